"""``Agent``: one agent of any kind deciding from Python, on a ``GameState``."""

from __future__ import annotations

import numpy as np

from agents.batch import N_UNIFORMS
from agents.decide import decide
from agents.specs import EXPERT, PYTHON, RANDOM, AgentSpec
from lotr_sim import GameState, IllegalActionError
from lotr_sim.actions import Action, decode
from lotr_sim.cards import N_CARDS
from lotr_sim.policies import policy_action
from lotr_sim.rng import mix64


class Agent:
    """An agent with its own seeded random stream: ``Agent(AgentSpec.make("mcts"), seed=1).act(game)``.

    ``act`` returns the chosen action and never changes ``game``. Honest agents
    draw their determinizations from what the player sees only. An ``rl`` agent
    decides with its network for the pending stage (loaded on first use)."""

    def __init__(self, spec: AgentSpec, seed: int = 0):
        self.spec = spec
        self._row = spec.row()
        self._rs = np.array([mix64(np.uint64(seed))], np.uint64)
        self._generator = np.random.default_rng(int(self._rs[0]))  # as GameBatch seeds a Python agent
        self._learners = {}

    def act(self, game: GameState) -> Action:
        if game.is_over:
            raise IllegalActionError("the game is over: there is no decision to make")
        state = game.core_state()
        if self.spec.kind.code == PYTHON:
            act = self._learner(game.stage.label).choose(state[None, :], self._uniforms(), self.spec["policy"])[0][0]
        elif self.spec.kind.code in (RANDOM, EXPERT):  # what decide() does, without compiling the searches
            act = np.empty(N_CARDS, np.int64)
            policy_action(state, self.spec.kind.code, self._rs, act, np.empty_like(state))
        else:
            act = np.empty(N_CARDS, np.int64)
            decide(state, self._row, self._rs, act, np.empty_like(state))
        return decode(game.stage, act)

    def _uniforms(self) -> np.ndarray:
        return self._generator.random(N_UNIFORMS)[None, :]

    def _learner(self, stage: str):
        if stage not in self._learners:
            from agents.rl import make_learner  # torch loads only for an rl agent

            self._learners[stage] = make_learner(stage, self.spec)
        return self._learners[stage]

    def __repr__(self) -> str:
        return f"Agent({self.spec})"
