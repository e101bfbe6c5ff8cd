"""The DP table against the game it is played in: the knowledge it plans for is the knowledge the game gives.

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


def _knocked_out(S: np.ndarray, act: np.ndarray) -> bool:
    """Whether ``act`` ends the game at once (rather than the deck running out)."""
    me, you = int(S[K.TO_MOVE]), 1 - int(S[K.TO_MOVE])
    card, target, guess = (int(x) for x in act)
    hand = [int(c) for c in S[K.HAND + 2 * me: K.HAND + 2 * me + 2]]
    hand.remove(card)
    kept, theirs = hand[0], int(S[K.HAND + 2 * you] + S[K.HAND + 2 * you + 1])
    protected = bool(S[K.PROTECTED + you])
    if card == K.PRINCE:
        return (kept if target == K.TARGET_SELF else theirs) == K.PRINCESS
    return card == K.PRINCESS or (not protected and (
        (card == K.GUARD and guess == theirs) or (card == K.BARON and kept != theirs)))


def _one_play_later(chance: np.ndarray, S: np.ndarray, act: np.ndarray) -> float:
    """The mover's chance after ``act`` by the table, over every draw, each successor read from the game."""
    me = int(S[K.TO_MOVE])
    total = 0.0
    for draws, weight in _draws(S, 2 if act[0] == K.PRINCE else 1):
        after = _with_draws(S, draws)
        err = np.zeros(4, np.int64)
        assert K.apply(after, act, err) == K.OK
        if K.is_over(after):
            if _knocked_out(S, act):
                value = K.reward(after, me)
            else:  # the table's showdown: equal last cards draw, discards not compared
                mine, theirs = int(K.held(after, me)), int(K.held(after, 1 - me))
                value = 1.0 if mine > theirs else 0.0 if mine < theirs else 0.5
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
