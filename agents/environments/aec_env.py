"""``GameAECEnv``: any game as a PettingZoo AEC environment (turn-based multi-agent, as its classic games).

``GameAECEnv("carcassonne")``: the agents are the roles that the game's encoder ``encoder`` and action space
``action_space`` cover (default: the first of each): the seats of a two-player game, LOTR's decision kinds
(planning, questing, defense for its thesis encoders and macro actions), each deciding its own turns; ``setup``
plays the roles that are no agent (LOTR's travel and attack; default: the game's random policy). An observation
is ``{"observation": the encoder's view of the agent's player, "action_mask": its legal indices}`` (zeros when
it is not its turn); an action is an index of its action space. Rewards come at the end: +1 for a win, -1 for a
loss, 0 for a draw, to every agent of the player (LOTR's agents share the one player's); an illegal index ends
the game as a loss for its player (``illegal="raise"``: IllegalActionError in one line). ``reset(seed)`` deals
from a generator seeded by ``seed`` (without one, the next deal of the current generator); a game that ends
before an agent's first decision is dealt again.

PettingZoo's conventions, per game: ``raw_env("loveletter")`` is the environment, ``env(...)`` it wrapped as
PettingZoo's own games are (bounds checked, order enforced), ``parallel_env(...)`` its parallel form (the agent
whose turn it is acts; PettingZoo's turn-based conversion); ``metadata["name"]`` is ``"<game>_v0"``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import gamecore
from agents.batch import GAME_OVER
from agents.environments.match import Match, learned_roles, setup_of
from agents.setup import Setup
from gamecore.interface import Game


class GameAECEnv(AECEnv):
    """``game`` with its roles as agents (the module docstring)."""

    metadata: ClassVar[dict] = {"render_modes": [], "name": "gametune", "is_parallelizable": False}

    def __init__(self, game: Game | str, encoder: str | None = None,
                 action_space: str | None = None, options: dict[str, Any] | None = None,
                 setup: Setup | str | None = None, illegal: str = "lose"):
        super().__init__()
        game = gamecore.load(game)
        self.metadata = {**type(self).metadata, "name": f"{game.name}_v0"}  # PettingZoo's name of the environment
        self.possible_agents = learned_roles(game, game.encoder(encoder) if encoder else 0,
                                             game.action_space(action_space) if action_space else 0)
        self.match = Match(setup_of(game, setup), self.possible_agents, options, encoder, action_space, illegal)
        self._index = {agent: game.roles.index(agent) for agent in self.possible_agents}
        described = game.encoders[self.match.encoding]
        self.observation_spaces = {agent: gym.spaces.Dict({
            "observation": gym.spaces.Box(described.low, described.high, (self.match.sizes[index],), np.float32),
            "action_mask": gym.spaces.Box(0, 1, (self.match.n_actions[index],), np.int8),
        }) for agent, index in self._index.items()}
        self.action_spaces = {agent: gym.spaces.Discrete(self.match.n_actions[index])
                              for agent, index in self._index.items()}
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> gym.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gym.spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        index = self._index[agent]
        return {"observation": self.match.observe(index), "action_mask": self.match.mask(index)}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game (``options`` unused: the game's options are the constructor's)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.match.deal(self._rng)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.match.game.roles[self.match.role]

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.match.play(self._index[agent], int(action))
        if self.match.role == GAME_OVER:
            self.rewards = {a: self.match.outcome(self._index[a]) for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.match.game.roles[self.match.role]
        self._accumulate_rewards()


def raw_env(game: Game | str, **kwargs: Any) -> GameAECEnv:
    """``game`` as a PettingZoo AEC environment (PettingZoo's ``raw_env``); ``kwargs``: ``GameAECEnv``'s."""
    return GameAECEnv(game, **kwargs)


def env(game: Game | str, **kwargs: Any) -> AECEnv:
    """``raw_env`` wrapped as PettingZoo's own games are: an action out of bounds and calls out of order fail."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw_env(game, **kwargs)))


def parallel_env(game: Game | str, **kwargs: Any) -> ParallelEnv:
    """``raw_env`` in PettingZoo's parallel API: each step takes every agent's action and plays the one whose turn
    it is (``turn_based_aec_to_parallel``)."""
    return turn_based_aec_to_parallel(raw_env(game, **kwargs))
