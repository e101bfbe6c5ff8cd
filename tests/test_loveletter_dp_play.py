"""The DP table against the game it is played in: the knowledge it plans for is the knowledge the game gives, and
the exact value of its play is what its games give.

At every decision the DP player meets in play, the chance the table stores for the mover's configuration
(against the opponent's actual card) must be what the table itself gives one play later, looked up where the
game puts the players: each possible draw is made the next one (deck and set-aside card are exchangeable),
the table's play is applied by the game's rules, and the opponent's configuration is read from the game
state as the DP player reads it. A table that kept knowledge the game forgets (or the reverse) looks its
successors up elsewhere and fails here.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.evaluation import evaluate_setup
from agents.setup import Setup
from loveletter_sim import dp
from loveletter_sim import kernels as K
from loveletter_sim.dp_player import DPPlayer, configuration, table

TIE = 1e-12


def _pool_positions(S: np.ndarray) -> list[int]:
    """Positions of ORDER still to be drawn, in drawing order: the deck, then the set-aside card."""
    return list(range(int(S[K.TOP]), K.N_CARDS)) + ([] if S[K.ASIDE_TAKEN] else [0])


def _with_draws(S: np.ndarray, values: tuple[int, ...]) -> np.ndarray:
    """A copy of ``S`` whose next draws are ``values``."""
    T = S.copy()
    positions = _pool_positions(T)
    for k, value in enumerate(values):
        j = next(q for q in positions[k:] if T[K.ORDER + q] == value)
        T[K.ORDER + positions[k]], T[K.ORDER + j] = T[K.ORDER + j], T[K.ORDER + positions[k]]
    return T


def _draws(S: np.ndarray, depth: int):
    """Every sequence of the next ``depth`` draws (fewer when the pool runs out) with its probability."""
    pool = [int(S[K.ORDER + q]) for q in _pool_positions(S)]
    if depth == 0 or not pool:
        yield (), 1.0
        return
    for value in sorted(set(pool)):
        rest_pool = list(pool)
        rest_pool.remove(value)
        weight = pool.count(value) / len(pool)
        if depth == 1 or not rest_pool:
            yield (value,), weight
            continue
        for second in sorted(set(rest_pool)):
            yield (value, second), weight * rest_pool.count(second) / len(rest_pool)


def _one_play_later(chance: np.ndarray, S: np.ndarray, act: np.ndarray) -> float:
    """The mover's chance after ``act`` by the table, over every draw, each successor read from the game."""
    me = int(S[K.TO_MOVE])
    total = 0.0
    for draws, weight in _draws(S, 2 if act[0] == K.PRINCE else 1):
        after = _with_draws(S, draws)
        err = np.zeros(4, np.int64)
        assert K.apply(after, act, err) == K.OK
        if K.is_over(after):  # the table's showdown: equal last cards draw, discards not compared
            value = 0.5 if after[K.ENDING] == K.EQUAL_CARDS else K.reward(after, me)
        else:
            successor = chance[configuration(after, their_card=True)]
            assert not np.isnan(successor), "the game reached a configuration the table does not hold"
            value = 1.0 - successor
        total += weight * value
    return total


def _tie_exception(dp_table: dp.DPTable, S: np.ndarray) -> bool:
    """Whether the table stored the gain instead of the true chance (section 3.2.3's exception)."""
    hand, slot, _, maid, p = configuration(S)
    if slot:
        return False
    b1, b2 = dp._HANDS[hand]
    counts = np.zeros(9, np.int64)
    K.unseen_counts(S, int(S[K.TO_MOVE]), counts)
    gains = dp_table.option_chances(b1, b2, 0, tuple(counts[1:]), bool(maid), False, p)
    best = dp_table.best_play(b1, b2, 0, tuple(counts[1:]), bool(maid), False, p)
    return any(play.card != best.card and abs(gain - gains[best]) <= TIE for play, gain in gains.items())


@pytest.mark.parametrize("opponent", ["dp", "random"])
def test_the_table_plans_with_the_knowledge_the_game_gives(opponent):
    dp_table = table()
    chance = dp_table._chance
    player = DPPlayer("first", None)
    rs = np.array([7], np.uint64)
    checked = pairs_known = 0
    for game in range(400):
        S = np.zeros(K.STATE_SIZE, np.int64)
        K.deal_game(S, game, np.zeros(0, np.int64))
        while not K.is_over(S):
            me = int(S[K.TO_MOVE])
            if opponent == "dp" or me == game % 2:
                act = player.play(S)
                stored = chance[configuration(S, their_card=True)]
                assert not np.isnan(stored), "the DP player met a configuration the table does not hold"
                if not _tie_exception(dp_table, S):
                    assert _one_play_later(chance, S, act) == pytest.approx(stored, abs=1e-9), K.to_move(S)
                    checked += 1
                    hand = S[K.HAND + 2 * me: K.HAND + 2 * me + 2]
                    pairs_known += hand[0] == hand[1] and S[K.KNOWN + 1 - me] == hand[0]
            else:
                act = np.zeros(K.ACTION_SIZE, np.int64)
                K.random_action(S, rs, act)
            assert K.apply(S, act, np.zeros(4, np.int64)) == K.OK
    assert checked > 700
    assert pairs_known > 0  # the case where the table once kept what the game forgets


def test_the_policy_values_are_the_games_one_play_at_a_time():
    """``DPTable.policy_values()`` at every decision of 300 games of the dp player against itself: the value
    stored against the opponent's actual card is the value one play later, at the configurations the game gives
    (no exception: the policy values have no tie exception)."""
    values = table().policy_values()._chance
    player = DPPlayer("first", None)
    checked = 0
    for game in range(300):
        S = np.zeros(K.STATE_SIZE, np.int64)
        K.deal_game(S, 1000 + game, np.zeros(0, np.int64))
        while not K.is_over(S):
            act = player.play(S)
            assert _one_play_later(values, S, act) == pytest.approx(values[configuration(S, their_card=True)],
                                                                      abs=1e-9)
            checked += 1
            assert K.apply(S, act, np.zeros(4, np.int64)) == K.OK
    assert checked > 1000


def rate_as_the_table_counts(result) -> float:
    """The first seat's rate of ``result`` with equal last cards counted 1/2 (the table's convention) instead of
    broken by the discards (the game's)."""
    equal = result.records[:, 2] == K.EQUAL_CARDS
    return float((result.rewards[~equal].sum() + 0.5 * equal.sum()) / len(result.rewards))


@pytest.mark.slow
@pytest.mark.parametrize(("opening", "thesis"), [("1-8", 0.723094), ("1-7", 0.690221)])
def test_the_exact_value_of_the_dp_policy_from_an_opening_is_what_its_games_give(opening, thesis):
    """The policy value of the table (both players playing it, ``DPTable.policy_values``) from an opening hand
    against 200,000 games of the dp player against itself from that hand; the thesis's own simulations of the
    hand (Tables 9-10, one million games) lie far outside."""
    b1, b2 = (int(card) for card in opening.split("-"))
    exact = table().policy_values().chance(b1, b2, 0, dp.first_turn_remaining(b1, b2))
    games = 200_000
    result = evaluate_setup(Setup.parse("dp-dp", "loveletter"), games=games, seed=11, seats="first",
                            options={"opening": opening})
    error = (exact * (1 - exact) / games) ** 0.5
    assert abs(rate_as_the_table_counts(result) - exact) < 4 * error
    thesis_error = (thesis * (1 - thesis) / 1_000_000) ** 0.5
    assert abs(thesis - exact) > 8 * thesis_error
