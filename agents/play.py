"""One game of a setup through the Python interface, traced (``lotr play``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.agent import Agent
from agents.game_loop import AGENT_STREAM
from agents.setup import Setup
from gamecore.rng import derive_seed


def role_agents(setup: Setup, deal_seed: int) -> dict[str, Agent]:
    """The setup's agents with the random streams the harness gives them for a game dealt from ``deal_seed``."""
    agent_seed = np.uint64(derive_seed(np.uint64(deal_seed), np.uint64(AGENT_STREAM)))
    return {
        role: Agent(spec, int(derive_seed(agent_seed, np.uint64(r))))
        for r, (role, spec) in enumerate(zip(setup.roles, setup.agents))
    }


def play_traced_game(setup: Setup, seed: int, **options: Any):
    """Deal a game from ``seed`` and play it to the end with ``setup``, recording its trace.

    The agents draw from the same streams as in the harness, so this is the
    game the harness plays for a deal seeded ``seed``."""
    game = setup.game
    state = game.new_game(seed, trace=True, **game.check_options(options, "game"))
    agents = role_agents(setup, seed)
    while not state.is_over:
        state.apply(agents[setup.role_of(state)].act(state))
    return state
