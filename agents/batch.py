"""Games played in lockstep from Python: the compiled agents play their stages inside the core,
and the decisions of Python agents (RL networks) come out in batches, one network call each.

Game streams are those of the compiled loop (``games.seed_agents``); a Python
agent's random numbers come from a numpy generator seeded by its stage's
stream, so a game's choices do not depend on the batch it is played in.
"""

from __future__ import annotations

import numpy as np

from agents.games import N_STAGES, advance_batch, seed_agents
from lotr_sim.layout import OK, OUTCOME, ROUND, STATE_SIZE, WIN
from lotr_sim.rules import apply_action, new_state

GAME_OVER = -1
N_UNIFORMS = 32  # uniform numbers handed to a Python agent per decision


class GameBatch:
    """``size`` game slots; ``deal`` starts a game in a slot, ``advance`` plays the compiled stages."""

    def __init__(self, rows: np.ndarray, difficulty: int, quest_stages: int, size: int):
        self.rows, self.difficulty, self.quest_stages = rows, difficulty, quest_stages
        self.states = np.zeros((size, int(STATE_SIZE)), np.int64)
        self.rs = np.zeros((size, N_STAGES, 1), np.uint64)
        self.active = np.zeros(size, bool)
        self.waiting = np.full(size, GAME_OVER, np.int64)
        self.generators: list[list[np.random.Generator]] = [[] for _ in range(size)]
        self.stage_ticks = np.zeros(N_STAGES, np.int64)
        self.decisions = np.zeros(N_STAGES, np.int64)
        self._err = np.zeros(4, np.int64)

    def deal(self, slot: int, deal_seed: int) -> None:
        self.states[slot] = new_state(self.difficulty, self.quest_stages, np.uint64(deal_seed), None)
        seed_agents(np.uint64(deal_seed), self.rs[slot])
        self.generators[slot] = [np.random.default_rng(int(self.rs[slot, s, 0])) for s in range(N_STAGES)]
        self.active[slot] = True

    def advance(self) -> None:
        """Play every active game until a Python agent's decision or its end."""
        advance_batch(self.states, self.active, self.rows, self.rs, self.waiting, self.stage_ticks, self.decisions)

    def at_stage(self, stage: int) -> np.ndarray:
        return np.flatnonzero(self.active & (self.waiting == stage))

    def finished(self) -> np.ndarray:
        return np.flatnonzero(self.active & (self.waiting == GAME_OVER))

    def uniforms(self, slots: np.ndarray, stage: int) -> np.ndarray:
        return np.array([self.generators[i][stage].random(N_UNIFORMS) for i in slots]).reshape(len(slots), N_UNIFORMS)

    def apply(self, slots: np.ndarray, acts: np.ndarray) -> None:
        for i, act in zip(slots, acts):
            if apply_action(self.states[i], act, self._err, None) != OK:
                raise RuntimeError("a Python agent chose an illegal action")
        self.decisions[self.waiting[slots[0]]] += len(slots)

    def won(self, slot: int) -> bool:
        return bool(self.states[slot, OUTCOME] == WIN)

    def outcome(self, slot: int) -> int:
        return int(self.states[slot, OUTCOME])

    def round(self, slot: int) -> int:
        return int(self.states[slot, ROUND])
