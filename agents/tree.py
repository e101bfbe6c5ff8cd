"""The search tree of MCTS as a table of integers (``T``, one row per node) beside the nodes' reward sums (``V``;
MCTS-RAVE's all-moves-as-first sums: ``W``).

A node's row holds its action key (``K0``, ``K1``: the game's canonical key of the action that leads to it), its
first child and next sibling (a linked list, newest child first), its visits, its availability count (the
determinizations in which its action was a candidate), the player who chose its action (``MOVER``) and its
all-moves-as-first visits (``AMAF``). Node ``ROOT`` is the decision searched; ``NONE`` ends a list.
"""

from __future__ import annotations

import numpy as np

from gamecore.jit import kernel
from gamecore.row import FINAL

ROOT = 0
NONE = -1
# Columns of the integer node table.
K0, K1, CHILD, SIBLING, VISITS, AVAIL, MOVER, AMAF = range(8)
FINAL_MOST_VISITS = 0


@kernel
def add_child(T, V, n_nodes, node, k0, k1, mover):
    """Create node ``n_nodes`` as a child of ``node`` with action key (k0, k1) chosen by ``mover``; return it."""
    T[n_nodes, K0] = k0
    T[n_nodes, K1] = k1
    T[n_nodes, CHILD] = NONE
    T[n_nodes, SIBLING] = T[node, CHILD]
    T[n_nodes, VISITS] = 0
    T[n_nodes, AVAIL] = 1
    T[n_nodes, MOVER] = mover
    T[n_nodes, AMAF] = 0
    V[n_nodes] = 0.0
    T[node, CHILD] = n_nodes
    return n_nodes


@kernel
def find_child(T, node, k0, k1):
    """The child of ``node`` with action key (k0, k1), ``NONE`` if it has none."""
    child = T[node, CHILD]
    while child != NONE:
        if T[child, K0] == k0 and T[child, K1] == k1:
            return child
        child = T[child, SIBLING]
    return NONE


@kernel
def ucb(T, V, W, child, c, rave, bias):
    """UCB1 of ``child``: its mean, blended with its all-moves-as-first mean under MCTS-RAVE (weight
    beta = m / (n + m + 4 b^2 n m), the minimum-MSE schedule of Gelly and Silver 2011, n visits, m AMAF
    visits, b the RAVE bias), plus c sqrt(2 ln avail / n)."""
    n = T[child, VISITS]
    mean = V[child] / n
    m = T[child, AMAF]
    if rave and m > 0:
        beta = m / (n + m + 4.0 * bias * bias * n * m)
        mean = (1.0 - beta) * mean + beta * W[child] / m
    return mean + c * np.sqrt(2.0 * np.log(T[child, AVAIL]) / n)


@kernel
def played_later(T, path, first, depth, moves, n_moves, child):
    """Whether ``child``'s action is played by its mover on ``path[first..depth]`` or among ``moves``."""
    k0, k1, mover = T[child, K0], T[child, K1], T[child, MOVER]
    for j in range(first, depth + 1):
        if T[path[j], K0] == k0 and T[path[j], K1] == k1 and T[path[j], MOVER] == mover:
            return True
    for m in range(n_moves):
        if moves[m, 0] == k0 and moves[m, 1] == k1 and moves[m, 2] == mover:
            return True
    return False


@kernel
def credit_amaf(T, W, path, depth, moves, n_moves, outcome):
    """All moves as first: each child of a node on ``path`` whose action its mover plays later in this
    episode (deeper on the path, or among the playout's ``moves``) counts the episode's ``outcome`` for
    him."""
    for i in range(depth):
        child = T[path[i], CHILD]
        while child != NONE:
            if played_later(T, path, i + 1, depth, moves, n_moves, child):
                T[child, AMAF] += 1
                W[child] += outcome[T[child, MOVER]]
            child = T[child, SIBLING]


@kernel
def final_choice(T, V, row):
    """The root child the agent ``row`` answers with: the most visits (ties: the better mean) or the best mean
    (ties: more visits), by its ``final`` rule."""
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
