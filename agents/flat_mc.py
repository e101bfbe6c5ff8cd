"""Flat Monte Carlo, compiled: every root candidate gets an equal share of the budget.

Each candidate (``action_space``; at most ``budget`` of them, drawn at random
when there are more) is scored by ``budget // candidates`` playouts, each from
a fresh determinization with the candidate applied; the best mean wins (ties:
the candidate listed first, the playout policy's choice leading).
"""

import numpy as np

from agents.action_space import ENUMERATION_LIMIT, key_action, root_candidates
from agents.evaluators import leaf_value, playout_policies
from agents.mcts import order_root
from agents.specs import BUDGET, ORACLE
from lotr_sim.jit import allocating
from lotr_sim.rules import apply_action, copy_state, determinize


@allocating
def flat_mc_decide(S, row, rs, act):
    """Fill ``act`` with flat Monte Carlo's choice for the pending decision of ``S`` (left unchanged)."""
    budget = np.int64(row[BUDGET])
    honest = row[ORACLE] == 0
    scratch = np.empty_like(S)
    work = np.empty_like(S)
    D = np.empty_like(S)
    err = np.zeros(4, np.int64)
    policies = playout_policies(row)
    root = S.copy()
    if honest:
        determinize(root, rs)
    keys = np.empty((ENUMERATION_LIMIT, 2), np.int64)
    n = root_candidates(root, row, rs, keys, max(64, 2 * budget), scratch, err)
    n = min(order_root(root, row, rs, keys, n, act, scratch, err), budget)
    per_candidate = budget // n
    best = 0
    best_mean = -1.0
    for i in range(n if n > 1 else 0):
        wins = 0.0
        for _ in range(per_candidate):
            copy_state(D, root)
            if honest:
                determinize(D, rs)
            key_action(keys[i, 0], keys[i, 1], act)
            apply_action(D, act, err, None)
            wins += leaf_value(D, 1, honest, policies, rs, work, act, err, scratch)
        if wins / per_candidate > best_mean:
            best_mean = wins / per_candidate
            best = i
    key_action(keys[best, 0], keys[best, 1], act)
