"""Games played in lockstep from Python: the compiled agents play their roles inside the core,
and the decisions of Python agents (RL networks) come out in batches, one network call each.

Game streams are those of the compiled loop (``search.seed_agents``); a Python
agent's random numbers come from a numpy generator seeded by its role's
stream, so a game's choices do not depend on the batch it is played in.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.search import compiled
from gamecore.row import KIND, PYTHON

GAME_OVER = -1
N_UNIFORMS = 32  # uniform numbers handed to a Python agent per decision


class GameBatch:
    """``size`` game slots of ``setup``'s game with ``options``; ``deal`` starts a game in a slot,
    ``advance`` plays the compiled roles."""

    def __init__(self, setup, options: dict[str, Any], size: int):
        game = setup.game
        self.kernels, self.search = game.kernels, compiled(game.kernels)
        self.rows, self.options = setup.rows(), game.option_codes(game.check_options(options))
        n_roles = len(game.roles)
        self.states = np.zeros((size, int(self.kernels.STATE_SIZE)), np.int64)
        self.rs = np.zeros((size, n_roles, 1), np.uint64)
        self.active = np.zeros(size, bool)
        self.waiting = np.full(size, GAME_OVER, np.int64)
        self.seeds = np.zeros((size, n_roles), np.uint64)  # each role's stream at the deal: its generator's seed
        self.generators: list[dict[int, np.random.Generator]] = [{} for _ in range(size)]
        self.role_ticks = np.zeros(n_roles, np.int64)
        self.decisions = np.zeros(n_roles, np.int64)
        self._err = np.zeros(4, np.int64)

    def hand_out(self, role: int) -> None:
        """Let ``role``'s decisions come out of ``advance`` whatever agent the setup names there (an environment's
        learner decides them)."""
        self.rows[role, KIND] = PYTHON

    def deal(self, slot: int, deal_seed: int) -> None:
        self.kernels.deal_game(self.states[slot], np.uint64(deal_seed), self.options)
        self.search.seed_agents(np.uint64(deal_seed), self.rs[slot])
        self.seeds[slot] = self.rs[slot, :, 0]
        self.generators[slot] = {}  # made when a Python agent first asks (most roles never do)
        self.active[slot] = True

    def advance(self) -> None:
        """Play every active game until a Python agent's decision or its end."""
        self.search.advance_batch(self.states, self.active, self.rows, self.rs, self.waiting, self.role_ticks,
                                  self.decisions)

    def at_role(self, role: int) -> np.ndarray:
        return np.flatnonzero(self.active & (self.waiting == role))

    def finished(self) -> np.ndarray:
        return np.flatnonzero(self.active & (self.waiting == GAME_OVER))

    def uniforms(self, slots: np.ndarray, role: int) -> np.ndarray:
        return np.array([self._generator(i, role).random(N_UNIFORMS) for i in slots]).reshape(len(slots), N_UNIFORMS)

    def _generator(self, slot: int, role: int) -> np.random.Generator:
        if role not in self.generators[slot]:
            self.generators[slot][role] = np.random.default_rng(int(self.seeds[slot, role]))
        return self.generators[slot][role]

    def decide(self, role: int, agent, mode: str) -> None:
        """Apply a Python agent's choices (``mode``: greedy or sample) in every game where ``role`` is to move."""
        slots = self.at_role(role)
        if slots.size:
            acts, _ = agent.choose(self.states[slots], self.uniforms(slots, role), mode)
            self.apply(slots, acts)

    def apply(self, slots: np.ndarray, acts: np.ndarray) -> None:
        for i, act in zip(slots, acts):
            if self.kernels.apply(self.states[i], act, self._err) != self.kernels.OK:
                raise RuntimeError("a Python agent chose an illegal action")
            self.kernels.note_turn(self.states[i])
        self.decisions[self.waiting[slots[0]]] += len(slots)

    def won(self, slot: int) -> bool:
        return self.reward(slot, 0) == 1.0

    def reward(self, slot: int, player: int) -> float:
        """``player``'s reward of a finished game: 1 win, 0.5 draw, 0 loss."""
        return float(self.kernels.reward(self.states[slot], player))

    def record(self, slot: int) -> np.ndarray:
        """The game's record of a finished game (``kernels.record``)."""
        out = np.empty(self.kernels.N_RECORD, np.int64)
        self.kernels.record(self.states[slot], out)
        return out
