"""The dynamic-programming player (Huibers 2016, section 3.2): the play of the table ``dp.build_table``.

It decides in Python, in batches (``gamecore.interface.PythonAgent``), from
what the player to move sees: his two cards, the cards he has not seen (the
thesis's A: the deck, the set-aside card and the opponent's card), the
opponent's protection, the opponent's card when he knows it, and which of
his own cards the opponent knows. The table is built once per process
(about a second: ``dp.table``).
"""

from __future__ import annotations

import numpy as np

from loveletter_sim import dp
from loveletter_sim import kernels as K
from loveletter_sim.dp import table

TARGETS = {0: K.TARGET_OPPONENT, dp.TARGET_OPPONENT: K.TARGET_OPPONENT, dp.TARGET_SELF: K.TARGET_SELF}


class DPPlayer:
    """``choose`` plays the table's best play for each state."""

    def __init__(self, role: str, spec):
        self.plays = table()._plays  # the table's plays, indexed as DPTable._index does (checked in the tests)

    def choose(self, states: np.ndarray, uniforms: np.ndarray, mode: str):
        acts = np.zeros((len(states), K.ACTION_SIZE), np.int64)
        for i, state in enumerate(states):
            acts[i] = self.play(state)
        return acts, None

    def play(self, S: np.ndarray) -> np.ndarray:
        """The action vector of the table's play for the player to move in ``S``."""
        code = int(self.plays[configuration(S)])
        act = np.zeros(K.ACTION_SIZE, np.int64)
        K.fill(S, act, code // 100, TARGETS[code % 10], (code // 10) % 10)
        return act


def configuration(S: np.ndarray, their_card: bool = False) -> tuple[int, int, int, int, int]:
    """The table index (hand, opponent slot, A, maid, p) of what the player to move in ``S`` sees: his two
    cards, the cards he has not seen, the opponent's protection, the opponent's card when he knows it, and
    which of his cards the opponent knows. With ``their_card`` the slot names the opponent's actual card
    (known or not: the true chance the table stores for it), which only a test may read."""
    me, you = int(S[K.TO_MOVE]), 1 - int(S[K.TO_MOVE])
    b1, b2 = int(S[K.HAND + 2 * me]), int(S[K.HAND + 2 * me + 1])
    counts = np.zeros(K.N_VALUES + 1, np.int64)
    K.unseen_counts(S, me, counts)
    known = int(S[K.KNOWN + me])
    theirs = int(S[K.KNOWN + you])
    p = 1 if theirs == b1 else 2 if theirs == b2 else 0
    if b1 > b2:
        b1, b2, p = b2, b1, (0, 2, 1)[p]
    if b1 == b2 and p == 2:
        p = 1
    if their_card:
        card = int(S[K.HAND + 2 * you] + S[K.HAND + 2 * you + 1])
        slot = 8 + card if known else card
    else:
        slot = 8 + known if known else 0
    return dp._HAND_INDEX[b1, b2], slot, int(counts @ dp._PLACE), int(S[K.PROTECTED + you]), p


def make(role: str, spec) -> DPPlayer:
    return DPPlayer(role, spec)
