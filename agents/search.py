"""Honest Monte Carlo tree search and flat Monte Carlo, written once and compiled per game.

``compiled(kernels)`` returns a module of compiled functions over one game's
compiled interface (``gamecore.interface``): ``decide`` (a policy, flat Monte
Carlo or MCTS, by the agent row's KIND), the game loop (``play_games``,
``advance_batch``: ``agents.game_loop``) and the leaf evaluation its searches
share (``agents.playouts``). Each function is a closure over the game's kernel
module and over the returned module itself (its siblings, called as its
attributes), so Numba compiles it per game and caches it (the cache key
includes the modules' names).

Honest Monte Carlo tree search is single-observer information-set MCTS. One
decision runs ``budget // ppn`` iterations (the thesis's semantics: ``budget``
playouts per decision, ``ppn`` of them per leaf). Each iteration

1. samples a determinization: a copy of the state whose hidden information is
   re-drawn from what the searching player sees (the oracle variant keeps it);
2. descends the tree (``agents.tree``), whose nodes are keyed by the action
   history, so statistics are shared across determinizations. At each node the
   children whose action is a candidate in this determinization are
   *available* (their availability count grows); a candidate not yet in the
   tree is expanded (the playout policy's choice first, then uniform draws),
   otherwise the available child with the highest UCB1
   ``mean + c sqrt(2 ln avail / n)`` is followed (Cowling, Powley and
   Whitehouse 2012). With ``prior`` on (progressive bias, Chaslot et al.
   2008), the child the playout policy, or the networks of ``playout_nets``,
   would choose in this determinization adds ``prior / (n + 1)``: knowledge
   that leads the first visits and fades as they grow. Chance events come from
   the determinization, never chosen;
3. evaluates the new leaf by ``ppn`` playouts of the row's playout policy,
   one reward per player (with ``leaf = "value"``, each playout stops at the
   first state a trained network of ``playout_nets`` values, and that value
   stands for the reward: ``agents.playouts``);
4. backs the rewards up the path, each node taking the reward of the player
   who chose its action (two-player games: each player maximises its own).

MCTS-RAVE (``rave``): step 3 records each playout's moves (canonical action
key, mover) and credits every child of a node on the path whose action its
mover plays later in the episode, deeper on the path or in the playout, with
that playout's reward (all moves as first); step 2's UCB1 then blends a
child's mean with its AMAF mean (``ucb``).

The root's candidates are the same in every determinization (they depend on
what the player sees), so the root is fully enumerated once, the playout
policy's choice first. The answer (``final``) is the root child with the most
visits (ties: the better mean) or the best mean (ties: more visits). Flat
Monte Carlo (``agents.flat_mc``) searches the same root. The real game is
never touched: the searches work on copies.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numba
import numpy as np

from agents.flat_mc import flat_mc_functions
from agents.game_loop import game_loop_functions, learning_batch_functions
from agents.playouts import playout_functions
from agents.tree import (
    AMAF,
    AVAIL,
    CHILD,
    K0,
    K1,
    MOVER,
    NONE,
    ROOT,
    SIBLING,
    VISITS,
    add_child,
    final_choice,
    find_child,
    ucb,
)
from gamecore import _jit_cache
from gamecore.jit import allocating, kernel
from gamecore.rng import below
from gamecore.row import BUDGET, FLAT_MC, KIND, MCTS, ORACLE, PLAYOUT, PPN, PRIOR, RAVE, RAVE_BIAS, C

PLAYOUT_MOVES = 1024  # MCTS-RAVE: the moves of a playout credited as first (a longer playout's later moves are not)

_COMPILED: dict[str, types.ModuleType] = {}


@kernel
def shuffle_tail(keys, start, n, rs):
    """Shuffle rows ``start .. n - 1`` of the candidate keys ``keys`` in place."""
    for i in range(n - 1, start, -1):
        j = start + below(rs, i - start + 1)
        keys[i, 0], keys[j, 0] = keys[j, 0], keys[i, 0]
        keys[i, 1], keys[j, 1] = keys[j, 1], keys[i, 1]


def compiled(kernels: types.ModuleType) -> types.ModuleType:
    """The compiled agents and game loop of the game whose compiled interface is ``kernels``."""
    name = kernels.__name__
    if name not in _COMPILED:
        previous = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = _jit_cache.folder_for(Path(kernels.__file__))
        try:
            _COMPILED[name] = _build(kernels)
        finally:
            numba.config.CACHE_DIR = previous
    return _COMPILED[name]


def _build(game: types.ModuleType) -> types.ModuleType:
    this = types.ModuleType(f"{__name__}.{game.__name__}")
    this.__doc__ = f"The compiled agents of {game.__name__} (agents.search)."
    sys.modules[this.__name__] = this  # so that the closures' cache key names it instead of pickling it
    functions = (*playout_functions(game, this), *_search_functions(game, this), *flat_mc_functions(game, this),
                 *game_loop_functions(game, this))
    if hasattr(game, "encode"):
        functions += learning_batch_functions(game)
    for function in functions:
        setattr(this, function.__name__, function)
    return this


def _search_functions(game: types.ModuleType, this: types.ModuleType) -> tuple:
    """The root of a search, MCTS, and ``decide`` (an agent row's choice) over the game's kernels ``game``."""

    @kernel
    def best_available(T, V, W, node, D, row, nets, rs, c, act, scratch, err):
        """Count availability of ``node``'s children in ``D``; return the best by UCB1 (NONE if none), the
        playout policy's choice in ``D`` raised by the progressive bias ``prior / (n + 1)`` when the row's
        ``prior`` is on."""
        prior = row[PRIOR]
        k0 = k1 = np.int64(0)
        if prior > 0.0:
            this.policy_action(D, np.int64(row[PLAYOUT]), nets, rs, act, scratch)
            game.canonicalize(D, act)
            k0, k1 = game.action_key(D, act)
        best = NONE
        best_score = -np.inf
        child = T[node, CHILD]
        while child != NONE:
            if node == ROOT or game.key_matches(D, T[child, K0], T[child, K1]):
                game.key_action(T[child, K0], T[child, K1], act)
                if node == ROOT or game.is_candidate(D, act, row, scratch, err):
                    T[child, AVAIL] += 1
                    score = ucb(T, V, W, child, c, row[RAVE] != 0, row[RAVE_BIAS])
                    if prior > 0.0 and T[child, K0] == k0 and T[child, K1] == k1:
                        score += prior / (T[child, VISITS] + 1)
                    if score > best_score:
                        best_score = score
                        best = child
            child = T[child, SIBLING]
        return best

    @kernel
    def untried_action(T, node, D, row, nets, rs, act, scratch, err, ws):
        """Fill ``act`` with a candidate of ``D`` that is not yet a child of ``node``, if one is
        found: the playout policy's choice, else one uniform draw."""
        this.policy_action(D, np.int64(row[PLAYOUT]), nets, rs, act, scratch)
        game.canonicalize(D, act)
        for attempt in range(2):
            if attempt == 1 and not game.sample_candidate(D, rs, act, ws, scratch, err):
                return False
            if not game.reduced_out(D, act, row):
                k0, k1 = game.action_key(D, act)
                if find_child(T, node, k0, k1) == NONE:
                    return True
        return False

    @kernel
    def order_root(root, row, nets, rs, keys, n, act, scratch, err):
        """Put the playout policy's choice first and the other root candidates in random order."""
        this.policy_action(root, np.int64(row[PLAYOUT]), nets, rs, act, scratch)
        game.canonicalize(root, act)
        k0, k1 = game.action_key(root, act)
        front = NONE
        for i in range(n):
            if keys[i, 0] == k0 and keys[i, 1] == k1:
                front = i
        if front == NONE and n < keys.shape[0] and game.is_candidate(root, act, row, scratch, err):
            front = n
            keys[n, 0], keys[n, 1] = k0, k1
            n += 1
        if front != NONE:
            keys[front, 0], keys[0, 0] = keys[0, 0], keys[front, 0]
            keys[front, 1], keys[0, 1] = keys[0, 1], keys[front, 1]
        shuffle_tail(keys, 1 if front != NONE else 0, n, rs)
        return n

    @allocating
    def buffers(S):
        """A search's work arrays: three state-sized (scratch, work, D), the error codes, two of per-player values
        (a leaf's, a playout's)."""
        return (np.empty_like(S), np.empty_like(S), np.empty_like(S), np.zeros(4, np.int64), np.zeros(game.N_PLAYERS),
                np.zeros(game.N_PLAYERS))

    @allocating
    def prepared_root(S, row, nets, rs, attempts, act, scratch, err):
        """The root of a search (determinized when honest: from here on only the observation matters),
        its candidate keys (``attempts`` samples when too many to enumerate) and their number, the
        playout policy's choice first."""
        root = np.empty_like(S)
        if row[ORACLE] == 0:
            this.honest_world(root, S, game.to_move(S), nets, rs)
        else:
            game.copy(root, S)
        keys = np.empty((game.MAX_CANDIDATES, 2), np.int64)
        n_keys = game.root_candidates(root, row, rs, keys, attempts, scratch, err)
        return root, keys, this.order_root(root, row, nets, rs, keys, n_keys, act, scratch, err)

    @allocating
    def mcts_decide(S, row, rs, act):
        """Fill ``act`` with the search's choice for the pending decision of ``S`` (left unchanged)."""
        ppn = np.int64(row[PPN])
        iterations = max(np.int64(1), np.int64(row[BUDGET]) // ppn)
        honest = row[ORACLE] == 0
        c = row[C]
        searcher = game.to_move(S)
        scratch, work, D, err, values, outcome = this.buffers(S)
        ws = game.workspace()
        nets = this.net_buffers(row)
        root, keys, n_keys = this.prepared_root(S, row, nets, rs, max(64, 2 * iterations), act, scratch, err)
        if n_keys == 1:
            game.key_action(keys[0, 0], keys[0, 1], act)
            return

        T = np.empty((iterations + 1, AMAF + 1), np.int64)
        V = np.zeros(iterations + 1)
        W = np.zeros(iterations + 1)  # MCTS-RAVE: each node's all-moves-as-first reward sum
        moves = np.empty((PLAYOUT_MOVES if row[RAVE] != 0 else 0, 3), np.int64)
        T[ROOT, CHILD] = NONE
        T[ROOT, VISITS] = 0
        T[ROOT, MOVER] = searcher
        n_nodes = 1
        next_root_key = 0
        path = np.empty(iterations + 2, np.int64)
        for _ in range(iterations):
            if honest:
                this.honest_world(D, root, searcher, nets, rs)
            else:
                game.copy(D, root)
            node = ROOT
            depth = 0
            path[0] = ROOT
            while not game.is_over(D):
                expanded = True
                mover = game.to_move(D)
                if node == ROOT and next_root_key < n_keys:
                    this.best_available(T, V, W, node, D, row, nets, rs, c, act, scratch, err)
                    child = add_child(T, V, n_nodes, ROOT, keys[next_root_key, 0], keys[next_root_key, 1], mover)
                    next_root_key += 1
                    n_nodes += 1
                else:
                    best = this.best_available(T, V, W, node, D, row, nets, rs, c, act, scratch, err)
                    if node != ROOT and this.untried_action(T, node, D, row, nets, rs, act, scratch, err, ws):
                        k0, k1 = game.action_key(D, act)
                        child = add_child(T, V, n_nodes, node, k0, k1, mover)
                        n_nodes += 1
                    elif best != NONE:
                        child = best
                        expanded = False
                    else:  # nothing to branch on in this determinization: evaluate from here
                        break
                game.key_action(T[child, K0], T[child, K1], act)
                if game.apply(D, act, err) != game.OK:
                    raise RuntimeError("MCTS applied an illegal action")
                depth += 1
                path[depth] = child
                node = child
                if expanded:
                    break
            this.leaf_values(D, row, ppn, searcher, nets, rs, work, act, err, scratch, values, outcome,
                             (T, W, path, depth, moves))
            for i in range(depth + 1):
                T[path[i], VISITS] += 1
                V[path[i]] += values[T[path[i], MOVER]]
        best = final_choice(T, V, row)
        game.key_action(T[best, K0], T[best, K1], act)

    @kernel
    def decide(S, row, rs, act, scratch):
        """Fill ``act`` with the choice of the agent described by ``row`` for ``S``'s pending decision."""
        kind = np.int64(row[KIND])
        if kind == MCTS:
            this.mcts_decide(S, row, rs, act)
        elif kind == FLAT_MC:
            this.flat_mc_decide(S, row, rs, act)
        else:
            game.playout_action(S, kind, rs, act, scratch)

    return best_available, untried_action, order_root, buffers, prepared_root, mcts_decide, decide
