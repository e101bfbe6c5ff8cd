"""``Agent``: one agent of any kind deciding from Python, on a game's state."""

from __future__ import annotations

import numpy as np

import gamecore
from agents.batch import N_UNIFORMS
from agents.search import compiled
from agents.specs import FLAT_MC, PYTHON, AgentSpec
from gamecore.rng import mix64
from lotr_sim import IllegalActionError


class Agent:
    """An agent with its own seeded random stream: ``Agent(AgentSpec.make("mcts"), seed=1).act(game)``.

    ``act`` returns the chosen action and never changes ``game``. Honest agents
    draw their determinizations from what the player sees only. An ``rl`` agent
    decides with its network for the pending stage (loaded on first use)."""

    def __init__(self, spec: AgentSpec, seed: int = 0):
        self.spec = spec
        self._kernels = gamecore.load(spec.game).kernels
        self._row = spec.row()
        self._rs = np.array([mix64(np.uint64(seed))], np.uint64)
        self._generator = np.random.default_rng(int(self._rs[0]))  # as GameBatch seeds a Python agent
        self._learners = {}

    def act(self, game):
        if game.is_over:
            raise IllegalActionError("the game is over: there is no decision to make")
        state = game.core_state()
        code = self.spec.kind.code
        if code == PYTHON:
            act = self._learner(game.decision_kind).choose(state[None, :], self._uniforms(), self.spec["policy"])[0][0]
        else:
            act = np.empty(self._kernels.ACTION_SIZE, np.int64)
            if code < FLAT_MC:  # a compiled policy: what decide() does, without compiling the searches
                self._kernels.playout_action(state, code, self._rs, act, np.empty_like(state))
            else:
                compiled(self._kernels).decide(state, self._row, self._rs, act, np.empty_like(state))
        return game.action_from_vector(act)

    def _uniforms(self) -> np.ndarray:
        return self._generator.random(N_UNIFORMS)[None, :]

    def _learner(self, stage: str):
        if stage not in self._learners:
            from agents.rl import make_learner  # torch loads only for an rl agent

            self._learners[stage] = make_learner(stage, self.spec)
        return self._learners[stage]

    def __repr__(self) -> str:
        return f"Agent({self.spec})"
