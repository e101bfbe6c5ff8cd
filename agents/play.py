"""One game of a setup through the Python interface, traced (``lotr play``)."""

from __future__ import annotations

import numpy as np

from agents.agent import Agent
from agents.setup import STAGES, Setup
from lotr_sim import GameState
from lotr_sim.playout import AGENT_STREAM
from lotr_sim.rng import derive_seed


def stage_agents(setup: Setup, deal_seed: int) -> dict[str, Agent]:
    """The setup's agents with the random streams the harness gives them for a game dealt from ``deal_seed``."""
    agent_seed = np.uint64(derive_seed(np.uint64(deal_seed), np.uint64(AGENT_STREAM)))
    return {
        stage: Agent(spec, int(derive_seed(agent_seed, np.uint64(s))))
        for s, (stage, spec) in enumerate(zip(STAGES, setup.agents))
    }


def play_traced_game(setup: Setup, difficulty: str, seed: int, full_scenario: bool = False) -> GameState:
    """Deal a game from ``seed`` and play it to the end with ``setup``, recording its trace.

    The agents draw from the same streams as in the harness, so this is the
    game the harness plays for a deal seeded ``seed``."""
    game = GameState(difficulty, seed, full_scenario=full_scenario, trace=True)
    agents = stage_agents(setup, seed)
    while not game.is_over:
        game.apply(agents[game.stage.label].act(game))
    return game
