"""What Love Letter conserves (``Game.invariants``; the conformance suite checks it at every state)."""

from __future__ import annotations

import numpy as np

from loveletter_sim import kernels as K


def broken(S: np.ndarray) -> list[str]:
    """The invariants the flat state ``S`` breaks: each value's copies are in the hands, played or discarded, in
    the deck or set aside; the player to move holds two cards, the other one, until the game ends."""
    problems = []
    where = np.zeros(K.N_VALUES + 1, np.int64)
    for card in (*S[K.HAND: K.HAND + 4], *S[K.ORDER + int(S[K.TOP]): K.ORDER + K.N_CARDS]):
        where[card] += 1
    if not S[K.ASIDE_TAKEN]:
        where[S[K.ORDER]] += 1
    where[1:] += S[K.SEEN + 1: K.SEEN + K.N_VALUES + 1]
    if not np.array_equal(where[1:], K.COPIES[1:]):
        problems.append(f"copies per value {where[1:].tolist()}, not {K.COPIES[1:].tolist()}")
    if not K.is_over(S):
        held = [int(np.count_nonzero(S[K.HAND + 2 * p: K.HAND + 2 * p + 2])) for p in range(2)]
        mover = int(S[K.TO_MOVE])
        if (held[mover], held[1 - mover]) != (2, 1):
            problems.append(f"player {mover} to move holds {held[mover]} cards, the other {held[1 - mover]}")
    return problems
