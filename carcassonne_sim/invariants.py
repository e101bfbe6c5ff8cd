"""What Carcassonne conserves (``Game.invariants``; the conformance suite checks it at every state)."""

from __future__ import annotations

import numpy as np

from carcassonne_sim import kernels as K
from carcassonne_sim.tiles import COUNTS, MAX_SEGMENTS, N_TYPES


def broken(S: np.ndarray) -> list[str]:
    """The invariants the flat state ``S`` breaks: each tile type's copies are placed, drawn or in the stack; each
    player's seven meeples are in his hand or on the board; every open position is empty and next to a tile."""
    problems = []
    placed = int(S[K.PLACED])
    types = [*S[K.TILE_TYPE: K.TILE_TYPE + placed], *S[K.ORDER + int(S[K.TOP]): K.ORDER + K.N_STACK]]
    if not K.is_over(S):
        types.append(S[K.CUR])
    copies = np.bincount(np.array(types, np.int64), minlength=N_TYPES)
    if not np.array_equal(copies, COUNTS):
        problems.append(f"tiles per type {copies.tolist()}, not {COUNTS.tolist()}")
    owners = S[K.OWNER: K.OWNER + MAX_SEGMENTS * placed]
    for p in range(K.N_PLAYERS):
        on_board = int(np.sum(owners == p + 1))
        if on_board + S[K.SUPPLY + p] != K.MEEPLES_EACH:
            problems.append(f"player {p}: {S[K.SUPPLY + p]} meeples in hand and {on_board} on the board")
    for f in range(int(S[K.N_FRONT])):
        x, y = int(S[K.FRONT_X + f]), int(S[K.FRONT_Y + f])
        if K.tile_at(S, x, y) or not any(K.tile_at(S, x + int(K.DX[d]), y + int(K.DY[d])) for d in range(4)):
            problems.append(f"open position ({x}, {y}) is occupied or next to no tile")
    return problems
