"""A search's model of its opponent on Love Letter: ``opponent_playout = "dp"`` and ``opponent_belief = "dp"``
(``loveletter_sim/dp_playout.py``)."""

from __future__ import annotations

import numpy as np

import gamecore
from agents.search import compiled
from agents.specs import AgentSpec
from gamecore.rng import mix64
from loveletter_sim import kernels as K
from loveletter_sim.dp_player import DPPlayer
from loveletter_sim.dp_playout import packed_plays


def decision_states(games: int, seed: int = 3) -> list[np.ndarray]:
    """Every decision state of ``games`` random games."""
    rs = np.array([mix64(np.uint64(seed))], np.uint64)
    act, states = np.empty(K.ACTION_SIZE, np.int64), []
    for game in range(games):
        S = np.zeros(K.STATE_SIZE, np.int64)
        K.deal_game(S, np.uint64(game), np.zeros(0, np.int64))
        while not K.is_over(S):
            states.append(S.copy())
            K.random_action(S, rs, act)
            K.apply(S, act, np.zeros(4, np.int64))
    return states


def test_the_compiled_opponent_plays_the_dp_players_play_in_each_world():
    nets = (packed_plays({"opponent_playout": "dp"}), np.empty(0))
    player = DPPlayer("first", None)
    act, scratch = np.zeros(K.ACTION_SIZE, np.int64), np.empty(K.STATE_SIZE, np.int64)
    states = decision_states(300)
    for k, S in enumerate(states):
        mover = int(S[K.TO_MOVE])
        world = S.copy()
        K.determinize(world, 1 - mover, np.array([mix64(np.uint64(k))], np.uint64))  # the mover is the opponent
        assert K.net_action(world, nets, act, scratch)
        assert np.array_equal(act, player.play(world))
        own = S.copy()
        K.determinize(own, mover, np.array([mix64(np.uint64(k))], np.uint64))
        assert not K.net_action(own, nets, act, scratch)  # the searcher's own moves: the playout policy
        both = (packed_plays({"opponent_playout": "dp", "own_playout": "dp"}), np.empty(0))
        assert K.net_action(own, both, act, scratch) and np.array_equal(act, player.play(own))
        assert not K.net_action(S, nets, act, scratch)  # a dealt game: no one's opponent
    assert len(states) > 1000
    assert packed_plays({"opponent_playout": "playout"}) is None


def test_a_search_with_the_dp_opponent_decides_from_what_the_player_sees_only():
    """The conformance suite's honesty check with the opponent modelled by the DP table."""
    game = gamecore.load("loveletter")
    search = compiled(K)
    for agent, params in (("mcts", {"ppn": 4}), ("flat-mc", {}), ("mcts", {"ppn": 4, "opponent_belief": "dp"}),
                          ("flat-mc", {"own_playout": "dp", "opponent_belief": "dp"})):
        row = AgentSpec.make(agent, game=game, budget=64, opponent_playout="dp", **params).row()
        assert len(row) > 1_000_000  # the table rides at the end of the row
        differ = []
        for k, S in enumerate(decision_states(20)[::7][:12]):
            choices = []
            hidden = S.copy()
            K.determinize(hidden, int(S[K.TO_MOVE]), np.array([mix64(np.uint64(100 + k))], np.uint64))
            for T in (S, hidden):
                act, rs = np.empty(K.ACTION_SIZE, np.int64), np.array([mix64(np.uint64(k))], np.uint64)
                search.decide(T.copy(), row, rs, act, np.empty_like(T))
                choices.append(act)
            if not np.array_equal(*choices):
                differ.append(k)
        assert not differ, f"{agent}: states {differ}: another decision on a state differing only in hidden cards"


def dp_games(games: int):
    """The decision states of ``games`` games of the DP player against itself."""
    player, err = DPPlayer("first", None), np.zeros(4, np.int64)
    for game in range(games):
        S = np.zeros(K.STATE_SIZE, np.int64)
        K.deal_game(S, np.uint64(game), np.zeros(0, np.int64))
        while not K.is_over(S):
            yield S.copy()
            K.apply(S, player.play(S), err)


def test_the_dp_belief_keeps_every_true_world_of_dp_play_and_rejects_others():
    """Against the DP player the real deal is always a world its last move allows (the belief never rules out
    the truth); drawn worlds are rejected often (what the moves say), and never by a row that asks for no
    belief."""
    belief = (packed_plays({"opponent_playout": "dp", "opponent_belief": "dp"}), np.empty(0))
    uniform = (packed_plays({"opponent_playout": "dp"}), np.empty(0))
    truths = drawn = rejected = 0
    for k, S in enumerate(dp_games(200)):
        me, you = int(S[K.TO_MOVE]), 1 - int(S[K.TO_MOVE])
        if S[K.MOVE + you] == 0:
            continue
        truth = S.copy()  # the real deal seen by the player to move: the opponent's card in his first slot
        truth[K.VIEWER] = me
        truth[K.HAND + 2 * you], truth[K.HAND + 2 * you + 1] = S[K.HAND + 2 * you] + S[K.HAND + 2 * you + 1], 0
        assert K.net_plausible(truth, belief), f"state {k}: the true world rejected"
        truths += 1
        for j in range(5):
            world = S.copy()
            K.determinize(world, me, np.array([mix64(np.uint64(1000 * k + j))], np.uint64))
            drawn += 1
            rejected += not K.net_plausible(world, belief)
            assert K.net_plausible(world, uniform)
    assert truths > 500 and 0.2 * drawn < rejected < 0.7 * drawn
