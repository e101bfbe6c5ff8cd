"""Leaf evaluation for the searches, kept apart from the search code (OpenSpiel's ``Evaluator``).

A searcher asks ``leaf_value`` for the value (expected win, in [0, 1]) of a
state it reached; how that value is estimated is decided here, from the
agent row. Today: the mean outcome of playouts by the row's playout policy.
A value network or a learned playout policy plugs in here, not in the
search.
"""

import numpy as np

from agents.specs import PLAYOUT
from lotr_sim import layout as L
from lotr_sim.jit import allocating, kernel
from lotr_sim.playout import play_out
from lotr_sim.rules import copy_state, determinize


@kernel
def terminal_value(S):
    return 1.0 if S[L.OUTCOME] == L.WIN else 0.0


@allocating
def playout_policies(row):
    """The ``policies`` argument of ``leaf_value``: the row's playout policy at every decision stage."""
    return np.full(5, np.int64(row[PLAYOUT]))


@kernel
def leaf_value(S, playouts, honest, policies, rs, work, act, err, scratch):
    """Mean outcome of ``playouts`` games played from ``S`` by ``policies`` (``playout_policies``).

    An honest evaluator re-draws the hidden deck orders before every playout;
    the oracle plays from the true order. ``S`` is left unchanged; ``work``
    is a state-sized array."""
    if S[L.PHASE] == L.GAME_OVER:
        return terminal_value(S)
    wins = 0
    for _ in range(playouts):
        copy_state(work, S)
        if honest:
            determinize(work, rs)
        if play_out(work, policies, rs, None, act, err, scratch) == L.WIN:
            wins += 1
    return wins / playouts
