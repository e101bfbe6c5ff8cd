"""A search's leaf evaluation, compiled per game (``agents.search.compiled``): playouts of the agent row's compiled
policy from an honest world (or the true state, for the oracle), the trained networks of ``playout_nets`` deciding
where they decide and, with ``leaf = "value"``, valuing the first state they can value; each player's outcome backed
up as the game's reward or, with ``reward = "margin"``, the player's score margin."""

from __future__ import annotations

import types

import numpy as np

from agents.tree import credit_amaf
from gamecore.jit import allocating, kernel
from gamecore.row import LEAF, LEAF_VALUE, ORACLE, PLAYOUT, REWARD, REWARD_MARGIN, ROW_WIDTH

REDRAWS = 32  # an honest world drawn again at most this often while the opponent model rejects it


def playout_functions(game: types.ModuleType, this: types.ModuleType) -> tuple:
    """The compiled functions of the leaf evaluation over the game's kernels ``game``; they call each other as
    attributes of ``this``, the game's compiled module (``leaf_values`` is the one a search calls)."""
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
                credit_amaf(T, W, path, depth, moves, n_moves, outcome)
            for p in range(values.shape[0]):
                values[p] += outcome[p]
        for p in range(values.shape[0]):
            values[p] /= playouts

    return payoff, net_buffers, policy_action, state_value, honest_world, play_out, outcome_of, leaf_values
