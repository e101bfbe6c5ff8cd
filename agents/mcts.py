"""Honest Monte Carlo tree search, compiled: single-observer information-set MCTS.

One decision runs ``budget // ppn`` iterations (the thesis's semantics:
``budget`` playouts per decision, ``ppn`` of them per leaf). Each iteration

1. samples a determinization: a copy of the state whose hidden deck orders are
   re-drawn from the observation (the oracle variant keeps the true order);
2. descends the tree, whose nodes are keyed by the action history, so
   statistics are shared across determinizations. At each node the children
   whose action is a candidate in this determinization are *available* (their
   availability count grows); a candidate not yet in the tree is expanded
   (the playout policy's choice first, then uniform draws), otherwise the
   available child with the highest UCB1 ``mean + c sqrt(2 ln avail / n)`` is
   followed (Cowling, Powley and Whitehouse 2012). The tree spans every later
   decision of every stage and round; chance events come from the
   determinization, never chosen;
3. evaluates the new leaf with ``evaluators.leaf_value`` (``ppn`` playouts);
4. backs the value up the path.

The root's candidates (``action_space``) are the same in every determinization
(they depend on what the player sees), so the root is fully enumerated once.
The answer (``final``) is the root child with the most visits (ties: the
better mean) or the best mean (ties: more visits). The real game is never
touched: the search works on its own copies and returns an action only.
"""

import numpy as np

from agents.action_space import (
    ENUMERATION_LIMIT,
    action_key,
    canonicalize,
    is_candidate,
    key_action,
    key_phase,
    reduced_out,
    root_candidates,
    sample_action,
)
from agents.evaluators import leaf_value, playout_policies
from agents.specs import BUDGET, FINAL, ORACLE, PLAYOUT, PPN, C
from lotr_sim import layout as L
from lotr_sim.cards import N_CARDS
from lotr_sim.jit import allocating, kernel
from lotr_sim.legal import MAX_OPTIONS
from lotr_sim.policies import policy_action
from lotr_sim.rng import below
from lotr_sim.rules import apply_action, copy_state, determinize

ROOT = 0
NONE = -1
# Columns of the integer node table.
K0, K1, CHILD, SIBLING, VISITS, AVAIL = 0, 1, 2, 3, 4, 5
FINAL_MOST_VISITS = 0


@kernel
def add_child(T, V, n_nodes, node, k0, k1):
    """Create node ``n_nodes`` as a child of ``node`` with action key (k0, k1); return it."""
    T[n_nodes, K0] = k0
    T[n_nodes, K1] = k1
    T[n_nodes, CHILD] = NONE
    T[n_nodes, SIBLING] = T[node, CHILD]
    T[n_nodes, VISITS] = 0
    T[n_nodes, AVAIL] = 1
    V[n_nodes] = 0.0
    T[node, CHILD] = n_nodes
    return n_nodes


@kernel
def find_child(T, node, k0, k1):
    child = T[node, CHILD]
    while child != NONE:
        if T[child, K0] == k0 and T[child, K1] == k1:
            return child
        child = T[child, SIBLING]
    return NONE


@kernel
def ucb(T, V, child, c):
    n = T[child, VISITS]
    return V[child] / n + c * np.sqrt(2.0 * np.log(T[child, AVAIL]) / n)


@kernel
def best_available(T, V, node, D, row, c, act, scratch, err):
    """Count availability of ``node``'s children in ``D``; return the best by UCB1 (NONE if none)."""
    best = NONE
    best_score = -np.inf
    child = T[node, CHILD]
    while child != NONE:
        if node == ROOT or key_phase(T[child, K1]) == D[L.PHASE]:
            key_action(T[child, K0], T[child, K1], act)
            if node == ROOT or is_candidate(D, act, row, scratch, err):
                T[child, AVAIL] += 1
                score = ucb(T, V, child, c)
                if score > best_score:
                    best_score = score
                    best = child
        child = T[child, SIBLING]
    return best


@kernel
def untried_action(T, node, D, row, rs, act, scratch, err, slots, options, n_options):
    """Fill ``act`` with a candidate of ``D`` that is not yet a child of ``node``, if one is
    found: the playout policy's choice, else one uniform draw."""
    policy_action(D, np.int64(row[PLAYOUT]), rs, act, scratch)
    canonicalize(D, act)
    for attempt in range(2):
        if attempt == 1 and not sample_action(D, rs, act, slots, options, n_options, scratch, err):
            return False
        if not reduced_out(D, act, row):
            k0, k1 = action_key(D[L.PHASE], act)
            if find_child(T, node, k0, k1) == NONE:
                return True
    return False


@kernel
def order_root(root, row, rs, keys, n, act, scratch, err):
    """Put the playout policy's choice first and the other root candidates in random order."""
    policy_action(root, np.int64(row[PLAYOUT]), rs, act, scratch)
    canonicalize(root, act)
    k0, k1 = action_key(root[L.PHASE], act)
    front = NONE
    for i in range(n):
        if keys[i, 0] == k0 and keys[i, 1] == k1:
            front = i
    if front == NONE and n < keys.shape[0] and is_candidate(root, act, row, scratch, err):
        front = n
        keys[n, 0], keys[n, 1] = k0, k1
        n += 1
    if front != NONE:
        keys[front, 0], keys[0, 0] = keys[0, 0], keys[front, 0]
        keys[front, 1], keys[0, 1] = keys[0, 1], keys[front, 1]
    start = 1 if front != NONE else 0
    for i in range(n - 1, start, -1):
        j = start + below(rs, i - start + 1)
        keys[i, 0], keys[j, 0] = keys[j, 0], keys[i, 0]
        keys[i, 1], keys[j, 1] = keys[j, 1], keys[i, 1]
    return n


@kernel
def final_choice(T, V, row):
    best = NONE
    child = T[ROOT, CHILD]
    while child != NONE:  # newest child first: ">=" lets the earliest expanded win exact ties
        n = T[child, VISITS]
        if n > 0:
            if best == NONE:
                better = True
            else:
                mean, best_mean = V[child] / n, V[best] / T[best, VISITS]
                if row[FINAL] == FINAL_MOST_VISITS:
                    better = n > T[best, VISITS] or (n == T[best, VISITS] and mean >= best_mean)
                else:
                    better = mean > best_mean or (mean == best_mean and n >= T[best, VISITS])
            if better:
                best = child
        child = T[child, SIBLING]
    return best


@allocating
def mcts_decide(S, row, rs, act):
    """Fill ``act`` with the search's choice for the pending decision of ``S`` (left unchanged)."""
    ppn = np.int64(row[PPN])
    iterations = max(np.int64(1), np.int64(row[BUDGET]) // ppn)
    honest = row[ORACLE] == 0
    c = row[C]
    scratch = np.empty_like(S)
    work = np.empty_like(S)
    D = np.empty_like(S)
    err = np.zeros(4, np.int64)
    policies = playout_policies(row)
    slots = np.empty(N_CARDS, np.int64)
    options = np.empty((N_CARDS, MAX_OPTIONS), np.int64)
    n_options = np.empty(N_CARDS, np.int64)

    root = S.copy()
    if honest:  # from here on only the observation matters: the true deck order is gone
        determinize(root, rs)
    keys = np.empty((ENUMERATION_LIMIT, 2), np.int64)
    n_keys = root_candidates(root, row, rs, keys, max(64, 2 * iterations), scratch, err)
    n_keys = order_root(root, row, rs, keys, n_keys, act, scratch, err)
    if n_keys == 1:
        key_action(keys[0, 0], keys[0, 1], act)
        return

    T = np.empty((iterations + 1, 6), np.int64)
    V = np.zeros(iterations + 1)
    T[ROOT, CHILD] = NONE
    T[ROOT, VISITS] = 0
    n_nodes = 1
    next_root_key = 0
    path = np.empty(iterations + 2, np.int64)
    for _ in range(iterations):
        copy_state(D, root)
        if honest:
            determinize(D, rs)
        node = ROOT
        depth = 0
        path[0] = ROOT
        while D[L.PHASE] != L.GAME_OVER:
            expanded = True
            if node == ROOT and next_root_key < n_keys:
                best_available(T, V, node, D, row, c, act, scratch, err)
                child = add_child(T, V, n_nodes, ROOT, keys[next_root_key, 0], keys[next_root_key, 1])
                next_root_key += 1
                n_nodes += 1
            else:
                best = best_available(T, V, node, D, row, c, act, scratch, err)
                if node != ROOT and untried_action(T, node, D, row, rs, act, scratch, err, slots, options, n_options):
                    k0, k1 = action_key(D[L.PHASE], act)
                    child = add_child(T, V, n_nodes, node, k0, k1)
                    n_nodes += 1
                elif best != NONE:
                    child = best
                    expanded = False
                else:  # nothing to branch on in this determinization: evaluate from here
                    break
            key_action(T[child, K0], T[child, K1], act)
            if apply_action(D, act, err, None) != L.OK:
                raise RuntimeError("MCTS applied an illegal action")
            depth += 1
            path[depth] = child
            node = child
            if expanded:
                break
        value = leaf_value(D, ppn, honest, policies, rs, work, act, err, scratch)
        for i in range(depth + 1):
            T[path[i], VISITS] += 1
            V[path[i]] += value
    best = final_choice(T, V, row)
    key_action(T[best, K0], T[best, K1], act)
