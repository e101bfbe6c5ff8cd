"""The compiled agents and game loop, written once and compiled per game.

``compiled(kernels)`` returns a module of compiled functions over one game's
compiled interface (``gamecore.interface``): ``decide`` (a policy, flat Monte
Carlo or MCTS, by the agent row's KIND), ``play_games`` (the evaluation
harness's inner loop) and ``advance_batch`` (games in lockstep for Python
agents). Each function is a closure over the game's kernel module and over
the returned module itself (its siblings), so Numba compiles it per game and
caches it (the cache key includes the modules' names).

Honest Monte Carlo tree search is single-observer information-set MCTS. One
decision runs ``budget // ppn`` iterations (the thesis's semantics: ``budget``
playouts per decision, ``ppn`` of them per leaf). Each iteration

1. samples a determinization: a copy of the state whose hidden information is
   re-drawn from what the searching player sees (the oracle variant keeps it);
2. descends the tree, whose nodes are keyed by the action history, so
   statistics are shared across determinizations. At each node the children
   whose action is a candidate in this determinization are *available* (their
   availability count grows); a candidate not yet in the tree is expanded
   (the playout policy's choice first, then uniform draws), otherwise the
   available child with the highest UCB1 ``mean + c sqrt(2 ln avail / n)`` is
   followed (Cowling, Powley and Whitehouse 2012). With ``prior`` on
   (progressive bias, Chaslot et al. 2008), the child the playout policy, or
   the networks of ``playout_nets``, would choose in this determinization
   adds ``prior / (n + 1)``: knowledge that leads the first visits and fades
   as they grow. Chance events come from the determinization, never chosen;
3. evaluates the new leaf by ``ppn`` playouts of the row's playout policy,
   one reward per player (with ``leaf = "value"``, each playout stops at the
   first state a trained network of ``playout_nets`` values, and that value
   stands for the reward);
4. backs the rewards up the path, each node taking the reward of the player
   who chose its action (two-player games: each player maximises its own).

MCTS-RAVE (``rave``): step 3 records each playout's moves (canonical action
key, mover) and credits every child of a node on the path whose action its
mover plays later in the episode, deeper on the path or in the playout, with
that playout's reward (all moves as first); step 2's UCB1 then blends a
child's mean with its AMAF mean (``ucb``).

The root's candidates are the same in every determinization (they depend on
what the player sees), so the root is fully enumerated once. The answer
(``final``) is the root child with the most visits (ties: the better mean) or
the best mean (ties: more visits). Flat Monte Carlo gives every root candidate
an equal share of the budget (``budget_per = "decision"``) or the whole budget
(``"action"``, the Love Letter thesis's Monte Carlo player), each playout from
a fresh determinization, and picks the best mean (ties: the candidate listed
first, the playout policy's choice leading). The real game is never touched:
the searches work on copies.

Common random numbers in the harness: game i is dealt from
``derive_seed(seed, i)`` whatever the setup, and the agent of role r draws
from its own stream ``derive_seed(derive_seed(deal, AGENT_STREAM), r)``, so two
setups face the same deals and a role's agent is not disturbed by another
role's choice of agent.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numba
import numpy as np

from agents.ticks import ticks
from gamecore import _jit_cache
from gamecore.jit import allocating, kernel
from gamecore.rng import below, derive_seed, mix64
from gamecore.row import (
    BUDGET,
    BUDGET_PER,
    BUDGET_PER_ACTION,
    FINAL,
    FLAT_MC,
    KIND,
    LEAF,
    LEAF_VALUE,
    MCTS,
    ORACLE,
    PLAYOUT,
    PPN,
    PRIOR,
    PYTHON,
    RAVE,
    RAVE_BIAS,
    REWARD,
    REWARD_MARGIN,
    ROW_WIDTH,
    C,
)

AGENT_STREAM = 1  # the agents' random stream of a game: derive_seed(deal seed, AGENT_STREAM)
ROOT = 0
NONE = -1
# Columns of the integer node table.
K0, K1, CHILD, SIBLING, VISITS, AVAIL, MOVER, AMAF = range(8)
FINAL_MOST_VISITS = 0
PLAYOUT_MOVES = 1024  # MCTS-RAVE: the moves of a playout credited as first (a longer playout's later moves are not)
REDRAWS = 32  # an honest world drawn again at most this often while the opponent model rejects it

_COMPILED: dict[str, types.ModuleType] = {}


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


@kernel
def shuffle_tail(keys, start, n, rs):
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

    if hasattr(game, "margin"):
        @kernel
        def payoff(S, player, margin):
            """What the search backs up for ``player`` from the finished game ``S``: the game's reward, or with
            ``margin`` his score minus his opponent's (the Carcassonne paper's Eq. 4)."""
            return game.margin(S, player) if margin else game.reward(S, player)
    else:
        @kernel
        def payoff(S, player, margin):
            """What the search backs up for ``player`` from the finished game ``S``: the game's reward."""
            return game.reward(S, player)

    net_work = game.NET_WORK if hasattr(game, "net_action") else 0

    @allocating
    def net_buffers(row):
        """The ``nets`` of the agent ``row``: its net table (the row's end; empty: no network) and work space."""
        return row[ROW_WIDTH:], np.empty(net_work)

    if hasattr(game, "net_action"):
        @kernel
        def policy_action(D, policy, nets, rs, act, scratch):
            """The playouts' choice for ``D``: the trained network of the net table ``nets`` that decides its
            decision, else the compiled ``policy``."""
            if not game.net_action(D, nets, act, scratch):
                game.playout_action(D, policy, rs, act, scratch)
    else:
        @kernel
        def policy_action(D, policy, nets, rs, act, scratch):
            """The playouts' choice for ``D``: the compiled ``policy`` (the game has no trained networks)."""
            game.playout_action(D, policy, rs, act, scratch)

    if hasattr(game, "net_value"):
        @kernel
        def state_value(D, nets):
            """The trained networks' chance of a win from ``D`` for the player to move (``nets``: a net table and
            its work space), -1 where none values ``D``."""
            return game.net_value(D, nets)
    else:
        @kernel
        def state_value(D, nets):
            """-1: the game has no trained networks to value a state."""
            return -1.0

    if hasattr(game, "net_plausible"):
        @kernel
        def honest_world(D, src, searcher, nets, rs):
            """``src`` with what ``searcher`` cannot see re-drawn, into ``D``; drawn again while the net table's
            model of the opponent finds the world implausible (at most ``REDRAWS`` draws, the last one stands)."""
            for _ in range(REDRAWS):
                game.copy(D, src)
                game.determinize(D, searcher, rs)
                if game.net_plausible(D, nets):
                    return
    else:
        @kernel
        def honest_world(D, src, searcher, nets, rs):
            """``src`` with what ``searcher`` cannot see re-drawn, into ``D``."""
            game.copy(D, src)
            game.determinize(D, searcher, rs)

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

    @kernel
    def play_out(D, policy, nets, rs, act, err, scratch, moves, truncate):
        """Play ``D`` to its end with the compiled ``policy`` and the trained networks of ``nets``
        (``policy_action``); with ``truncate``, only up to the first state those networks value
        (``state_value``). Under MCTS-RAVE (``moves`` not empty) each move is played in its canonical form and
        recorded (action key, mover), up to ``len(moves)``. Returns the number recorded and the value where
        the playout stopped (-1 at the end of the game)."""
        if moves.shape[0] == 0 and not truncate and nets[0].shape[0] == 0:  # bare: the checks cost LOTR's MCTS 15%
            while not game.is_over(D):
                game.playout_action(D, policy, rs, act, scratch)
                if game.apply(D, act, err) != game.OK:
                    raise RuntimeError("a compiled policy chose an illegal action")
            return 0, -1.0
        n = 0
        while not game.is_over(D):
            if truncate:
                value = this.state_value(D, nets)
                if value >= 0.0:
                    return n, value
            this.policy_action(D, policy, nets, rs, act, scratch)
            if n < moves.shape[0]:
                game.canonicalize(D, act)
                moves[n, 0], moves[n, 1] = game.action_key(D, act)
                moves[n, 2] = game.to_move(D)
                n += 1
            if game.apply(D, act, err) != game.OK:
                raise RuntimeError("a compiled policy chose an illegal action")
        return n, -1.0

    @kernel
    def outcome_of(D, value, margin, out):
        """Fill ``out`` with what each player backs up from a playout that stopped at ``D``: his ``payoff``
        (of ``margin``) where the game is over, else the networks' ``value`` for the player to move and
        1 - ``value`` for the others."""
        for p in range(out.shape[0]):
            if value < 0.0:
                out[p] = this.payoff(D, p, margin)
            else:
                out[p] = value if p == game.to_move(D) else 1.0 - value

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
    def leaf_values(S, row, playouts, searcher, nets, rs, work, act, err, scratch, values, outcome, amaf):
        """Fill ``values`` with each player's mean outcome (``outcome_of``) over ``playouts`` games played
        from ``S`` by the row's compiled playout policy and the networks of ``nets``, each stopped where
        they value the state when the row's ``leaf`` is "value".

        An honest evaluator re-draws the hidden information (as ``searcher`` sees it) before every
        playout; the oracle plays from the true state. ``S`` is left unchanged; ``work`` is a
        state-sized array and ``outcome`` one value per player. ``amaf`` is the tree (T, W, path, depth,
        moves) that MCTS-RAVE credits with every playout (``credit_amaf``); its ``moves`` is empty otherwise."""
        T, W, path, depth, moves = amaf
        policy, margin = np.int64(row[PLAYOUT]), row[REWARD] == REWARD_MARGIN
        if game.is_over(S):
            this.outcome_of(S, -1.0, margin, values)
            return
        values[:] = 0.0
        for _ in range(playouts):
            if row[ORACLE] == 0:
                this.honest_world(work, S, searcher, nets, rs)
            else:
                game.copy(work, S)
            n_moves, value = this.play_out(work, policy, nets, rs, act, err, scratch, moves, row[LEAF] == LEAF_VALUE)
            this.outcome_of(work, value, margin, outcome)
            if moves.shape[0] > 0:
                this.credit_amaf(T, W, path, depth, moves, n_moves, outcome)
            for p in range(values.shape[0]):
                values[p] += outcome[p]
        for p in range(values.shape[0]):
            values[p] /= playouts

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

    @kernel
    def seed_agents(deal_seed, rs):
        """The agents' streams for a game dealt from ``deal_seed``: row r of ``rs`` for role r."""
        agent_seed = derive_seed(deal_seed, AGENT_STREAM)
        for r in range(game.N_ROLES):
            rs[r, 0] = mix64(derive_seed(agent_seed, r))

    @kernel
    def play_compiled_roles(S, rows, rs, act, err, scratch, role_ticks, decisions):
        """Advance ``S`` with the compiled agents of ``rows`` until a decision of a Python agent
        (return its role) or the end of the game (return -1)."""
        while not game.is_over(S):
            r = game.role(S)
            if rows[r, KIND] == PYTHON:
                return r
            before = ticks()
            this.decide(S, rows[r], rs[r], act, scratch)
            role_ticks[r] += ticks() - before
            decisions[r] += 1
            if game.apply(S, act, err) != game.OK:
                raise RuntimeError("an agent chose an illegal action")
        return -1

    @kernel
    def deal(S, rs, seed, game_index, options):
        """Deal game ``game_index`` of ``seed`` into ``S`` and seed its agents' streams ``rs``."""
        deal_seed = derive_seed(seed, game_index)
        game.deal_game(S, deal_seed, options)
        this.seed_agents(deal_seed, rs)

    @allocating
    def play_games(options, rows, seed, first, records, rewards, game_ticks, role_ticks, decisions):
        """Play games ``first .. first + len(records) - 1`` of ``seed`` with the compiled agents ``rows``
        (one per role).

        Per game: the game's record, each player's reward and ticks; per role (added to): ticks
        spent deciding and number of decisions."""
        act = np.empty(game.ACTION_SIZE, np.int64)
        err = np.zeros(4, np.int64)
        rs = np.empty((game.N_ROLES, 1), np.uint64)
        scratch = np.empty(game.STATE_SIZE, np.int64)
        S = np.empty(game.STATE_SIZE, np.int64)
        for i in range(records.shape[0]):
            start = ticks()
            this.deal(S, rs, seed, first + i, options)
            if this.play_compiled_roles(S, rows, rs, act, err, scratch, role_ticks, decisions) != -1:
                raise RuntimeError("play_games takes compiled agents only")
            game.record(S, records[i])
            for p in range(rewards.shape[1]):
                rewards[i, p] = game.reward(S, p)
            game_ticks[i] = ticks() - start

    @allocating
    def advance_batch(states, active, rows, rs, waiting, role_ticks, decisions):
        """``play_compiled_roles`` for every active game of a batch; ``waiting[i]`` gets its result."""
        act = np.empty(game.ACTION_SIZE, np.int64)
        err = np.zeros(4, np.int64)
        scratch = np.empty(states.shape[1], np.int64)
        for i in range(states.shape[0]):
            if active[i]:
                waiting[i] = this.play_compiled_roles(states[i], rows, rs[i], act, err, scratch, role_ticks, decisions)

    for function in (payoff, net_buffers, policy_action, state_value, honest_world, best_available, untried_action,
                     order_root,
                     play_out, outcome_of, credit_amaf, leaf_values, buffers, prepared_root, mcts_decide,
                     flat_mc_decide, decide, seed_agents, play_compiled_roles, deal, play_games, advance_batch):
        setattr(this, function.__name__, function)
    if hasattr(game, "encode"):
        _build_learning(game, this)
    return this


def _build_learning(game: types.ModuleType, this: types.ModuleType) -> None:
    """Add the batches of the game's learning interface (``gamecore.interface``) to its compiled module ``this``:
    ``encode_batch``, ``mask_batch`` and ``decode_batch`` (row i of the output from ``states[i]``)."""

    @kernel
    def encode_batch(states, encoding, out):
        """Row i of ``out``: encoder ``encoding`` of ``states[i]``."""
        for i in range(states.shape[0]):
            game.encode(states[i], encoding, game.to_move(states[i]), out[i])

    @kernel
    def mask_batch(states, space, masks):
        """Row i of ``masks``: the legal indices of action space ``space`` at ``states[i]``."""
        for i in range(states.shape[0]):
            game.action_mask(states[i], space, masks[i])

    @allocating
    def decode_batch(states, space, indices, acts):
        """Row i of ``acts``: index ``indices[i]`` of action space ``space`` at ``states[i]``."""
        scratch = np.empty(states.shape[1], np.int64)
        work = np.empty(game.DECODE_WORK)
        for i in range(states.shape[0]):
            game.decode(states[i], space, indices[i], acts[i], scratch, work)

    for function in (encode_batch, mask_batch, decode_batch):
        setattr(this, function.__name__, function)
