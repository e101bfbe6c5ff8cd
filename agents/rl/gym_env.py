"""A Gymnasium environment for one decision stage, the others played by a setup's compiled agents.

``StageEnv(stage="questing", setup="random-random-random", difficulty="hard",
encoding=0)``: an observation is the stage's encoding (``encoding``), an action
one of the stage's macro actions (``actions``), the reward +1 for a win and -1
for a loss at the end of the game, 0 otherwise. ``info["action_mask"]`` marks
the legal actions (every macro action is legal; the mask is there for
libraries that expect it). Episodes whose game ends before the stage has a
decision are skipped by ``reset``.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from agents.batch import GameBatch
RL_STAGES = ("planning", "questing", "defense")
from agents.setup import Setup
from lotr_sim.game import STAGES
from agents.specs import AgentSpec
from lotr_sim.cards import N_CARDS
from lotr_sim.decoders import MACRO_ACTIONS, macro_action
from lotr_sim.encoding import encode, encoding_size

MAX_FEATURE = 100.0  # integer features (round, resources, threat) stay far below


class StageEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, stage: str = "questing", setup: Setup | str = "random-random-random", difficulty: str = "hard",
                 encoding: int = 0):
        if stage not in RL_STAGES:
            raise ValueError(f"stage {stage!r}: valid: {', '.join(RL_STAGES)}")
        setup = Setup.parse(setup) if isinstance(setup, str) else setup
        if setup.has_python_agents:
            raise ValueError("the other stages must be played by compiled agents (random, expert, flat-mc, mcts)")
        self.stage, self.encoding = stage, encoding
        self.index = STAGES.index(stage)
        agents = list(setup.agents)
        agents[self.index] = AgentSpec.make("rl")  # the stage is handed out, not played
        self._batch = GameBatch(Setup(*agents), {"difficulty": difficulty}, 1)
        self.observation_space = gym.spaces.Box(0.0, MAX_FEATURE, (encoding_size(stage, encoding),), np.float32)
        self.action_space = gym.spaces.Discrete(MACRO_ACTIONS[stage])
        self._act = np.empty(N_CARDS, np.int64)
        self._scratch = np.empty(self._batch.states.shape[1], np.int64)
        self._scores = np.empty(N_CARDS)

    def _observe(self) -> tuple[np.ndarray, dict]:
        obs = np.empty(self.observation_space.shape, np.float32)
        encode(self._batch.states[0], self.encoding, obs)
        return obs, {"action_mask": np.ones(self.action_space.n, np.int8)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        while True:
            self._batch.deal(0, int(self.np_random.integers(2**63)))
            self._batch.advance()
            if self._batch.waiting[0] == self.index:
                return self._observe()

    def step(self, action):
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in {self.action_space}")
        macro_action(self._batch.states[0], int(action), self._act, self._scratch, self._scores)
        self._batch.apply(np.array([0]), self._act[None, :])
        self._batch.advance()
        obs, info = self._observe()
        if self._batch.waiting[0] == self.index:
            return obs, 0.0, False, False, info
        return obs, 1.0 if self._batch.won(0) else -1.0, True, False, info
