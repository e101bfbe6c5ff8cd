"""Flat Monte Carlo, compiled per game (``agents.search.compiled``): every root candidate gets an equal share of the
budget (``budget_per = "decision"``) or the whole budget (``"action"``, the Love Letter thesis's Monte Carlo
player), each playout from a fresh determinization, and the best mean is chosen (ties: the candidate listed first,
the playout policy's choice leading)."""

from __future__ import annotations

import types

import numpy as np

from agents.tree import AMAF
from gamecore.jit import allocating
from gamecore.row import BUDGET, BUDGET_PER, BUDGET_PER_ACTION, ORACLE


def flat_mc_functions(game: types.ModuleType, this: types.ModuleType) -> tuple:
    """``flat_mc_decide`` over the game's kernels ``game``, calling the root and playouts of ``this``, the game's
    compiled module."""

    @allocating
    def flat_mc_decide(S, row, rs, act):
        """Fill ``act`` with flat Monte Carlo's choice for the pending decision of ``S`` (left unchanged)."""
        budget = np.int64(row[BUDGET])
        honest = row[ORACLE] == 0
        searcher = game.to_move(S)
        scratch, work, D, err, values, outcome = this.buffers(S)
        nets = this.net_buffers(row)
        root, keys, n = this.prepared_root(S, row, nets, rs, max(64, 2 * budget), act, scratch, err)
        if row[BUDGET_PER] == BUDGET_PER_ACTION:
            per_candidate = budget
        else:
            n = min(n, budget)
            per_candidate = budget // n
        no_tree = (np.empty((0, AMAF + 1), np.int64), np.empty(0), np.empty(0, np.int64), np.int64(0),
                   np.empty((0, 3), np.int64))
        best = 0
        best_mean = -np.inf
        for i in range(n if n > 1 else 0):
            total = 0.0
            for _ in range(per_candidate):
                if honest:
                    this.honest_world(D, root, searcher, nets, rs)
                else:
                    game.copy(D, root)
                game.key_action(keys[i, 0], keys[i, 1], act)
                game.apply(D, act, err)
                this.leaf_values(D, row, 1, searcher, nets, rs, work, act, err, scratch, values, outcome, no_tree)
                total += values[searcher]
            if total / per_candidate > best_mean:
                best_mean = total / per_candidate
                best = i
        game.key_action(keys[best, 0], keys[best, 1], act)

    return (flat_mc_decide,)
