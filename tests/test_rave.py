"""MCTS-RAVE, an option of the generic search: the all-moves-as-first credit and the blended tree policy."""

import math

import numpy as np

from agents.evaluation import evaluate_setup
from agents.setup import Setup
from agents.specs import AgentSpec
from agents.tree import AMAF, AVAIL, CHILD, NONE, ROOT, VISITS, add_child, credit_amaf, ucb
from gamecore.row import RAVE, RAVE_BIAS


def tree(keys_and_movers):
    """A root with one child per (key, mover), the newest first as the search links them."""
    size = len(keys_and_movers) + 1
    T, V, W = np.zeros((size, AMAF + 1), np.int64), np.zeros(size), np.zeros(size)
    T[ROOT, CHILD] = NONE
    for n, (key, mover) in enumerate(keys_and_movers, 1):
        add_child(T, V, n, ROOT, key, 0, mover)
    return T, V, W


def test_every_child_whose_action_its_mover_plays_later_is_credited():
    """Children 1-3 of the root (keys 10, 20, 30 for player 0, key 40 for player 1); the episode goes through
    child 1, then the playout plays 30 by player 0, 20 by player 1 and 40 by player 1."""
    T, _V, W = tree([(10, 0), (20, 0), (30, 0), (40, 1)])
    path = np.array([ROOT, 1], np.int64)
    moves = np.array([[30, 0, 0], [20, 0, 1], [40, 0, 1]], np.int64)
    outcome = np.array([0.0, 1.0])  # player 1 won the episode
    credit_amaf(T, W, path, 1, moves, 3, outcome)
    assert [int(T[n, AMAF]) for n in range(1, 5)] == [1, 0, 1, 1]  # 20 was played by the other player
    assert list(W[1:]) == [0.0, 0.0, 0.0, 1.0]  # each credited with its own mover's reward


def test_the_tree_policy_blends_the_amaf_mean_by_the_minimum_mse_schedule():
    T, V, W = tree([(10, 0)])
    T[ROOT, VISITS], T[1, VISITS], T[1, AVAIL], T[1, AMAF] = 9, 4, 9, 12
    V[1], W[1] = 1.0, 9.0
    n, m, b, c = 4, 12, 0.5, 0.7
    beta = m / (n + m + 4 * b * b * n * m)
    explore = c * math.sqrt(2 * math.log(9) / n)
    assert ucb(T, V, W, 1, c, True, b) == (1 - beta) * (1.0 / n) + beta * (9.0 / m) + explore
    assert ucb(T, V, W, 1, c, False, b) == 1.0 / n + explore  # RAVE off: plain UCB1


def test_rave_is_a_parameter_of_mcts_in_every_game():
    spec = AgentSpec.make("mcts", game="loveletter", rave=True, rave_bias=0.3)
    assert spec.row()[RAVE] == 1 and spec.row()[RAVE_BIAS] == 0.3
    assert AgentSpec.make("mcts", game="lotr")["rave"] is False  # off by default: every figure of plain MCTS unchanged
    result = evaluate_setup(Setup.parse("mcts-random", "loveletter").with_params({"first.rave": True}), games=300,
                            seed=2, seats="first")
    assert result.seats["first"]["wins"] / 300 > 0.55
