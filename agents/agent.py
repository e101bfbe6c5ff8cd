"""``Agent``: one agent of any kind deciding from Python, on a game's state."""

from __future__ import annotations

import numpy as np

from agents.batch import N_UNIFORMS
from agents.search import compiled
from agents.setup import compiled_row
from agents.specs import FLAT_MC, PYTHON, AgentSpec, acting_mode, python_agent
from gamecore.errors import IllegalActionError
from gamecore.rng import mix64


class Agent:
    """An agent with its own seeded random stream: ``Agent(AgentSpec.make("mcts", game="lotr"), seed=1).act(game)``.

    ``act`` returns the chosen action and never changes ``game``. Honest agents
    draw their determinizations from what the player sees only. An ``rl`` agent
    decides with its network for the pending stage (loaded on first use)."""

    def __init__(self, spec: AgentSpec, seed: int = 0):
        self.spec = spec
        self._kernels = spec.game.kernels
        self._row = compiled_row(spec)
        self._rs = np.array([mix64(np.uint64(seed))], np.uint64)
        self._generator = np.random.default_rng(int(self._rs[0]))  # as GameBatch seeds a Python agent
        self._python_agents = {}

    def act(self, game):
        if game.is_over:
            raise IllegalActionError("the game is over: there is no decision to make")
        state = game.core_state()
        code = self.spec.kind.code
        if code == PYTHON:
            agent = self._python_agent(game.decision_kind)
            act = agent.choose(state[None, :], self._uniforms(), acting_mode(self.spec))[0][0]
        else:
            act = np.empty(self._kernels.ACTION_SIZE, np.int64)
            if code < FLAT_MC:  # a compiled policy: what decide() does, without compiling the searches
                self._kernels.playout_action(state, code, self._rs, act, np.empty_like(state))
            else:
                compiled(self._kernels).decide(state, self._row, self._rs, act, np.empty_like(state))
        return game.action_from_vector(act)

    def _uniforms(self) -> np.ndarray:
        return self._generator.random(N_UNIFORMS)[None, :]

    def _python_agent(self, role: str):
        if role not in self._python_agents:  # an rl agent loads torch only now
            self._python_agents[role] = python_agent(role, self.spec)
        return self._python_agents[role]

    def __repr__(self) -> str:
        return f"Agent({self.spec})"
