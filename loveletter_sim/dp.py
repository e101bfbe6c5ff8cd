"""Exact dynamic-programming player for two-player classic Love Letter (Huibers 2016, section 3.2).

The table holds the thesis's function ``f(b1, b2, c, A, maid, known, p)``: the chance that the
active player wins, for every configuration of the game seen from the active player.

* ``b1 <= b2`` are the two cards in the active player's hand, just after drawing.
* ``A = (a1, ..., a8)`` counts the *remaining* cards: every card the active player has not seen
  being played or discarded and does not hold.  These are the deck, the card set aside at the
  start and the opponent's card, so the deck holds ``n - 2`` cards, where ``n = sum(A)``.  The
  very first turn of a game has ``n = 14``.
* ``c`` is the opponent's card.  ``c = 0`` leaves it unspecified: the chance is then averaged
  over the opponent's possible cards, in proportion to their counts in ``A`` (the thesis's gain).
  With ``c != 0`` the chance is the one for that card.
* ``known`` says that the active player knows ``c`` (after a Priest, a Baron tie or a King).
* ``maid`` says that the opponent played the Handmaid on the previous turn and cannot be targeted.
* ``p`` says which of the active player's cards the opponent knows: 0 none, 1 ``b1``, 2 ``b2``.
  For a pair of equal cards only ``p`` in (0, 1) exists: the opponent knows that value.

Reading of section 3.2 implemented here (docs/loveletter-dp.md lists the alternatives tried):

* Each player chooses the play with the highest chance *by his own knowledge*: if he knows the
  opponent's card he uses it, otherwise he averages over the remaining cards (the gain).  Ties
  go to the lower card, the lower Guard guess and the Prince aimed at the opponent.
* The chance stored for a configuration with ``c != 0`` is the true chance of the play so chosen
  against the actual card ``c`` (the thesis's second use of ``r``), except when the best plays of
  the two different cards have equal gains but different true chances: the gain is stored then.
* Nobody infers anything from the cards the opponent chooses to play; only the Priest, a Baron
  tie and the King give knowledge.  Knowledge of a card lasts until that card leaves the hand.
* After each play the opponent draws from the deck, which from the mover's point of view is
  uniform over the remaining cards except the opponent's card.  When the deck is empty after a
  play the game ends: the higher card wins, equal cards draw and count 1/2 (discards are not
  compared).  A Prince played on the last turn makes its target take the set-aside card.
* Card effects: Guard (1) names a card 2..8 and wins if it is the opponent's; Priest (2) reveals
  the opponent's card; Baron (3) compares the kept card with the opponent's, the lower one loses
  and on a tie both players learn both cards; Handmaid (4) protects until the player's next turn;
  Prince (5) makes the opponent or the player himself discard and draw (discarding the Princess
  loses); King (6) swaps hands and both players learn both cards; Countess (7) must be played
  when held together with the Prince or the King; Princess (8) loses when played.  Against a
  protected opponent the Guard, Priest, Baron and King do nothing and the Prince must be played
  on oneself.
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import NamedTuple

import numba
import numpy as np

__all__ = [
    "CARD_NAMES",
    "COPIES",
    "FIRST_TURN_CARDS",
    "TARGET_OPPONENT",
    "TARGET_SELF",
    "DPTable",
    "Entry",
    "Play",
    "Reading",
    "Table4Row",
    "build_table",
    "first_turn_remaining",
    "table4_rows",
]

COPIES = (0, 5, 2, 2, 2, 2, 1, 1, 1)
"""Copies of each card value in the 16-card deck (index = value, index 0 unused)."""

CARD_NAMES = ("", "Guard", "Priest", "Baron", "Handmaid", "Prince", "King", "Countess", "Princess")

FIRST_TURN_CARDS = 14
"""Remaining cards at the very first turn: 12 in the deck, the opponent's card, the set-aside card."""

TARGET_OPPONENT = 1
TARGET_SELF = 2

_GUARD, _PRIEST, _BARON, _HANDMAID, _PRINCE, _KING, _COUNTESS, _PRINCESS = range(1, 9)
_TIE_TOLERANCE = 1e-12
_MAX_OPTIONS = 9  # a Guard (7 guesses) beside a Prince (2 targets)

_COPIES = np.array(COPIES, dtype=np.int64)
_PLACE = np.zeros(9, dtype=np.int64)
_place = 1
for _value in range(1, 9):
    _PLACE[_value] = _place
    _place *= COPIES[_value] + 1
_N_REMAINING_CODES = _place  # 6 * 3**4 * 2**3 = 3888 multisets A

_HAND_INDEX = np.full((9, 9), -1, dtype=np.int64)
_HANDS = []
for _low in range(1, 9):
    for _high in range(_low, 9):
        _HAND_INDEX[_low, _high] = _HAND_INDEX[_high, _low] = len(_HANDS)
        _HANDS.append((_low, _high))
_N_HANDS = len(_HANDS)  # 36
_HAND_PAIRS = np.array(_HANDS, dtype=np.int64)

_N_SLOTS = 17
"""Opponent-card slot: 0 unspecified (c = 0), 1..8 card c not known, 9..16 card c - 8 known."""

# The switches of a reading, by index in ``Reading.flags()``.
(PAIR_KNOWLEDGE_KEPT, PRINCESS_SAFE_WHEN_PROTECTED, BARON_PROTECTED_EXCHANGES, TIE_EXCEPTION, HIGHER_GUESS_FIRST,
 PRINCE_ON_SELF_FIRST, EXACT_TIES) = range(7)


@dataclass(frozen=True)
class Reading:
    """A reading of section 3.2 where the text leaves a choice (docs/loveletter-dp.md); the defaults are the
    shipped table's, the one consistent with the game (``loveletter_sim/kernels.py``).

    The first three are readings of the rules; the last four only decide ties between equal gains.
    """

    pair_knowledge_kept: bool = False
    """The opponent still knows a pair's value after one of the pair is played (the table before issue 32;
    section 3.2.4 and the game forget it)."""
    princess_safe_when_protected: bool = False
    """On a turn the opponent is protected, the Princess discarded to one's own Prince is no loss: the player
    draws again (section 3.2.4, literally: with maid true "r will never result in a direct win or a direct
    loss, no matter what card is played")."""
    baron_protected_exchanges: bool = False
    """A Baron against a protected opponent acts as a tie: no one loses and both players learn both cards
    (the "formula used as normal" of the Baron's tie); else it does nothing."""
    tie_exception: bool = True
    """Section 3.2.3's exception: equal gains of both cards with different true chances store the gain."""
    higher_guess_first: bool = False
    """Equal Guard guesses go to the higher value (section 4.2 says the lower)."""
    prince_on_self_first: bool = False
    """Equal Prince targets go to oneself (section 4.2 says the opponent)."""
    exact_ties: bool = False
    """Gains are equal only when exactly equal, as in a program comparing floats (else within 1e-12)."""

    def flags(self) -> np.ndarray:
        """The switches as the compiled build reads them."""
        return np.array([getattr(self, f.name) for f in fields(self)], dtype=np.int64)

    def name(self) -> str:
        """The switches that differ from the shipped reading, or "shipped"."""
        changed = [f.name for f in fields(self) if getattr(self, f.name) != f.default]
        return ", ".join(f"{n}={getattr(self, n)}" for n in changed) or "shipped"


@dataclass(frozen=True)
class Play:
    """A play: the card, the Guard's guess (0 unless a Guard) and the Prince's target (0 unless a Prince)."""

    card: int
    guess: int = 0
    target: int = 0

    def __str__(self) -> str:
        text = CARD_NAMES[self.card]
        if self.guess:
            text += f" naming {CARD_NAMES[self.guess]}"
        if self.target:
            text += " on the opponent" if self.target == TARGET_OPPONENT else " on himself"
        return text


class Entry(NamedTuple):
    """One configuration of the table: the chance of winning and the play that achieves it."""

    chance: float
    play: Play


class Table4Row(NamedTuple):
    """A row of the thesis's Table 4; ``guess`` and ``target`` are None where the thesis leaves them blank."""

    n: int
    b1: int
    b2: int
    chance: float
    play: int
    guess: int | None
    target: int | None


@numba.njit(cache=True)
def _play_code(card, guess, target):
    """A play packed into one integer, as stored in the table of plays."""
    return card * 100 + guess * 10 + target


def _decode_play(code: int) -> Play:
    return Play(card=code // 100, guess=(code // 10) % 10, target=code % 10)


@numba.njit(cache=True)
def _showdown(mine, theirs):
    """Chance of winning when the deck is empty: higher card wins, equal cards draw."""
    if mine > theirs:
        return 1.0
    if mine < theirs:
        return 0.0
    return 0.5


@numba.njit(cache=True)
def _chance_after_opponent_draws(chance, my_card, their_card, drawn, pool_code, maid, they_know_mine, i_know_theirs):
    """Mover's chance once the opponent, holding ``their_card``, has drawn ``drawn`` and is to move.

    ``pool_code`` encodes the deck plus the set-aside card before the draw.  The opponent's remaining
    cards are that pool without ``drawn`` and with the mover's card.  The opponent knows the mover's
    card (``they_know_mine``); the mover knows ``their_card`` (``i_know_theirs``), which becomes
    ``b1`` of the opponent's hand unless the drawn card is lower.
    """
    hand = _HAND_INDEX[their_card, drawn]
    slot = my_card + 8 if they_know_mine else my_card
    code = pool_code - _PLACE[drawn] + _PLACE[my_card]
    if not i_know_theirs:
        known_slot = 0
    elif their_card <= drawn:
        known_slot = 1
    else:
        known_slot = 2
    return 1.0 - chance[hand, slot, code, maid, known_slot]


@numba.njit(cache=True)
def _chance_after_turn(chance, my_card, their_card, pool, pool_code, pool_size, maid, they_know_mine, i_know_theirs):
    """Mover's chance once his play has resolved and he holds ``my_card`` against ``their_card``.

    ``pool`` counts the deck plus the set-aside card.  If the deck is empty the game ends in a
    showdown; otherwise the opponent draws a card uniformly from the pool and moves.
    """
    if pool_size <= 1:
        return _showdown(my_card, their_card)
    total = 0.0
    for drawn in range(1, 9):
        if pool[drawn] > 0:
            total += pool[drawn] * _chance_after_opponent_draws(
                chance, my_card, their_card, drawn, pool_code, maid, they_know_mine, i_know_theirs
            )
    return total / pool_size


@numba.njit(cache=True)
def _outcome(
    chance, played, kept, their_card, remaining, remaining_code, n, maid, i_know_theirs, they_know_kept, target, reading
):
    """The thesis's ``r``: chance of winning when playing ``played``, keeping ``kept``, against ``their_card``.

    A Guard is evaluated as a miss; the caller turns a correct guess into a win.  ``remaining`` is
    the active player's count vector A (it is restored before returning).
    """
    remaining[their_card] -= 1  # the pool: deck plus set-aside card
    pool_code = remaining_code - _PLACE[their_card]
    pool_size = n - 1
    protected = maid == 1
    result = 0.0
    if played == _PRINCESS:
        result = 0.0
    elif played == _HANDMAID:
        result = _chance_after_turn(
            chance, kept, their_card, remaining, pool_code, pool_size, 1, they_know_kept, i_know_theirs
        )
    elif protected and played == _BARON and reading[BARON_PROTECTED_EXCHANGES]:
        result = _chance_after_turn(chance, kept, their_card, remaining, pool_code, pool_size, 0, True, True)
    elif played == _GUARD or played == _COUNTESS or (protected and played != _PRINCE):
        result = _chance_after_turn(
            chance, kept, their_card, remaining, pool_code, pool_size, 0, they_know_kept, i_know_theirs
        )
    elif played == _PRIEST:
        result = _chance_after_turn(chance, kept, their_card, remaining, pool_code, pool_size, 0, they_know_kept, True)
    elif played == _BARON:
        if kept > their_card:
            result = 1.0
        elif kept < their_card:
            result = 0.0
        else:
            result = _chance_after_turn(chance, kept, their_card, remaining, pool_code, pool_size, 0, True, True)
    elif played == _KING:
        result = _chance_after_turn(chance, their_card, kept, remaining, pool_code, pool_size, 0, True, True)
    elif target == TARGET_OPPONENT and their_card == _PRINCESS:
        result = 1.0
    elif target == TARGET_SELF and kept == _PRINCESS and not (protected and reading[PRINCESS_SAFE_WHEN_PROTECTED]):
        result = 0.0
    else:
        total = 0.0
        deck_size = n - 2
        for new_card in range(1, 9):
            copies = remaining[new_card]
            if copies == 0:
                continue
            if deck_size == 0:  # the target takes the set-aside card and the game ends
                if target == TARGET_OPPONENT:
                    value = _showdown(kept, new_card)
                else:
                    value = _showdown(new_card, their_card)
            else:
                remaining[new_card] -= 1
                if target == TARGET_OPPONENT:
                    value = _chance_after_turn(
                        chance,
                        kept,
                        new_card,
                        remaining,
                        pool_code - _PLACE[new_card],
                        pool_size - 1,
                        0,
                        they_know_kept,
                        False,
                    )
                else:
                    value = _chance_after_turn(
                        chance,
                        new_card,
                        their_card,
                        remaining,
                        pool_code - _PLACE[new_card],
                        pool_size - 1,
                        0,
                        False,
                        i_know_theirs,
                    )
                remaining[new_card] += 1
            total += copies * value
        result = total / pool_size
    remaining[their_card] += 1
    return result


@numba.njit(cache=True)
def _list_options(b1, b2, maid, p, cards, kept_cards, guesses, targets, kept_known, reading):
    """Legal plays of hand (b1, b2) in tie-break order; returns how many were written.

    ``kept_known[q]`` tells whether the opponent knows the card kept by option ``q``.
    """
    count = 0
    countess_forced = b2 == _COUNTESS and (b1 == _PRINCE or b1 == _KING)
    for side in range(2):
        if side == 0:
            played, kept = b1, b2
        else:
            if b1 == b2:
                break
            played, kept = b2, b1
        if countess_forced and played != _COUNTESS:
            continue
        if b1 == b2:
            knows_kept = p != 0 and reading[PAIR_KNOWLEDGE_KEPT] != 0  # else forgotten: that value is played (3.2.4)
        elif side == 0:
            knows_kept = p == 2
        else:
            knows_kept = p == 1
        if played == _GUARD:
            for g in range(7):
                guess = 8 - g if reading[HIGHER_GUESS_FIRST] else 2 + g
                cards[count] = played
                kept_cards[count] = kept
                guesses[count] = guess
                targets[count] = 0
                kept_known[count] = knows_kept
                count += 1
        elif played == _PRINCE:
            for t in range(2):
                target = 2 - t if reading[PRINCE_ON_SELF_FIRST] else 1 + t
                if target == TARGET_OPPONENT and maid == 1:
                    continue
                cards[count] = played
                kept_cards[count] = kept
                guesses[count] = 0
                targets[count] = target
                kept_known[count] = knows_kept
                count += 1
        else:
            cards[count] = played
            kept_cards[count] = kept
            guesses[count] = 0
            targets[count] = 0
            kept_known[count] = knows_kept
            count += 1
    return count


@numba.njit(cache=True)
def _option_outcomes(
    chance,
    b1,
    b2,
    remaining,
    remaining_code,
    n,
    maid,
    p,
    known,
    their_cards,
    n_their,
    cards,
    kept_cards,
    guesses,
    targets,
    kept_known,
    outcomes,
    reading,
):
    """Fill ``outcomes[q, c]`` for every legal option q and every opponent card c in ``their_cards[:n_their]``."""
    n_options = _list_options(b1, b2, maid, p, cards, kept_cards, guesses, targets, kept_known, reading)
    q = 0
    while q < n_options:
        played = cards[q]
        if played == _GUARD:
            for t in range(n_their):
                c = their_cards[t]
                miss = _outcome(
                    chance, played, kept_cards[q], c, remaining, remaining_code, n, maid, known, kept_known[q], 0, reading
                )
                for g in range(7):
                    hit = maid == 0 and guesses[q + g] == c
                    outcomes[q + g, c] = 1.0 if hit else miss
            q += 7
        else:
            for t in range(n_their):
                c = their_cards[t]
                outcomes[q, c] = _outcome(
                    chance,
                    played,
                    kept_cards[q],
                    c,
                    remaining,
                    remaining_code,
                    n,
                    maid,
                    known,
                    kept_known[q],
                    targets[q],
                    reading,
                )
            q += 1
    return n_options


@numba.njit(cache=True)
def _best_option(values, n_options, tolerance):
    """Index of the highest value; an option must beat the earlier ones by more than the tie ``tolerance``."""
    best = 0
    for q in range(1, n_options):
        if values[q] > values[best] + tolerance:
            best = q
    return best


@numba.njit(cache=True)
def _solve_hand(
    chance,
    plays,
    b1,
    b2,
    remaining,
    remaining_code,
    n,
    maid,
    p,
    knowledge_possible,
    their_cards,
    n_their,
    one_card,
    cards,
    kept_cards,
    guesses,
    targets,
    kept_known,
    outcomes,
    gains,
    reading,
):
    """Fill every opponent-card slot of one (hand, remaining, maid, p) configuration.

    Slot 0 and the unknown slots share one decision, taken on the gains; each known slot takes its
    own decision against that card.  ``one_card`` is a length-1 work array.
    """
    hand = _HAND_INDEX[b1, b2]
    n_options = _option_outcomes(
        chance,
        b1,
        b2,
        remaining,
        remaining_code,
        n,
        maid,
        p,
        False,
        their_cards,
        n_their,
        cards,
        kept_cards,
        guesses,
        targets,
        kept_known,
        outcomes,
        reading,
    )
    tolerance = 0.0 if reading[EXACT_TIES] else _TIE_TOLERANCE
    for q in range(n_options):
        total = 0.0
        for t in range(n_their):
            c = their_cards[t]
            total += remaining[c] * outcomes[q, c]
        gains[q] = total / n
    best = _best_option(gains, n_options, tolerance)
    rival = -1  # best option of the other card when its gain ties with the chosen one
    for q in range(n_options):
        if reading[TIE_EXCEPTION] and cards[q] != cards[best] and abs(gains[q] - gains[best]) <= tolerance:
            rival = q
            break
    code = _play_code(cards[best], guesses[best], targets[best])
    chance[hand, 0, remaining_code, maid, p] = gains[best]
    plays[hand, 0, remaining_code, maid, p] = code
    for t in range(n_their):
        c = their_cards[t]
        value = outcomes[best, c]
        if rival >= 0 and abs(outcomes[rival, c] - value) > tolerance:
            value = gains[best]
        chance[hand, c, remaining_code, maid, p] = value
        plays[hand, c, remaining_code, maid, p] = code
    if not knowledge_possible:
        return
    for t in range(n_their):
        c = their_cards[t]
        one_card[0] = c
        n_options = _option_outcomes(
            chance,
            b1,
            b2,
            remaining,
            remaining_code,
            n,
            maid,
            p,
            True,
            one_card,
            1,
            cards,
            kept_cards,
            guesses,
            targets,
            kept_known,
            outcomes,
            reading,
        )
        for q in range(n_options):
            gains[q] = outcomes[q, c]
        best = _best_option(gains, n_options, tolerance)
        chance[hand, 8 + c, remaining_code, maid, p] = gains[best]
        plays[hand, 8 + c, remaining_code, maid, p] = _play_code(cards[best], guesses[best], targets[best])


@numba.njit(cache=True)
def _unpack_remaining(code, remaining):
    """Fill ``remaining`` (the copies of each value not yet seen) from its code; return how many cards they are."""
    size = 0
    for value in range(1, 9):
        remaining[value] = code % (_COPIES[value] + 1)
        code //= _COPIES[value] + 1
        size += remaining[value]
    return size


@numba.njit(cache=True)
def _discarded(value, b1, b2, remaining):
    """Copies of ``value`` already played or discarded, seen from the player holding b1 and b2."""
    held = 0
    if b1 == value:
        held += 1
    if b2 == value:
        held += 1
    return _COPIES[value] - remaining[value] - held


@numba.njit(cache=True)
def _build(chance, plays, max_remaining, reading):
    """Fill the table bottom-up, from 2 remaining cards (the last turn) to ``max_remaining``.

    Only possible configurations are filled: the hand and A fit in the deck, ``maid`` needs a
    discarded Handmaid, and knowledge (``known``, ``p``) needs a discarded Priest, Baron or King.
    """
    remaining = np.zeros(9, dtype=np.int64)
    their_cards = np.zeros(8, dtype=np.int64)
    one_card = np.zeros(1, dtype=np.int64)
    cards = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    kept_cards = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    guesses = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    targets = np.zeros(_MAX_OPTIONS, dtype=np.int64)
    kept_known = np.zeros(_MAX_OPTIONS, dtype=np.bool_)
    outcomes = np.zeros((_MAX_OPTIONS, 9))
    gains = np.zeros(_MAX_OPTIONS)
    for n in range(2, max_remaining + 1):
        for remaining_code in range(_N_REMAINING_CODES):
            if _unpack_remaining(remaining_code, remaining) != n:
                continue
            n_their = 0
            for value in range(1, 9):
                if remaining[value] > 0:
                    their_cards[n_their] = value
                    n_their += 1
            for b1 in range(1, 9):
                for b2 in range(b1, 9):
                    held_low = remaining[b1] + (2 if b1 == b2 else 1)
                    if held_low > _COPIES[b1] or remaining[b2] + 1 > _COPIES[b2]:
                        continue
                    discarded_handmaids = _discarded(_HANDMAID, b1, b2, remaining)
                    discarded_informers = (
                        _discarded(_PRIEST, b1, b2, remaining)
                        + _discarded(_BARON, b1, b2, remaining)
                        + _discarded(_KING, b1, b2, remaining)
                    )
                    knowledge_possible = discarded_informers > 0
                    for maid in range(2 if discarded_handmaids > 0 else 1):
                        for p in range(1 if not knowledge_possible else (2 if b1 == b2 else 3)):
                            _solve_hand(
                                chance,
                                plays,
                                b1,
                                b2,
                                remaining,
                                remaining_code,
                                n,
                                maid,
                                p,
                                knowledge_possible,
                                their_cards,
                                n_their,
                                one_card,
                                cards,
                                kept_cards,
                                guesses,
                                targets,
                                kept_known,
                                outcomes,
                                gains,
                                reading,
                            )


@numba.njit(cache=True)
def _policy_value(value, plays, slot, b1, b2, c, remaining, remaining_code, n, maid, p, known, options, reading):
    """The value against ``c`` of the play the table stores at ``slot``, the game continuing by the table's
    plays, read from (and written to) ``value``; ``options`` is _list_options' work arrays."""
    cards, kept_cards, guesses, targets, kept_known = options
    code = plays[_HAND_INDEX[b1, b2], slot, remaining_code, maid, p]
    n_options = _list_options(b1, b2, maid, p, cards, kept_cards, guesses, targets, kept_known, reading)
    for q in range(n_options):
        if _play_code(cards[q], guesses[q], targets[q]) == code:
            if cards[q] == _GUARD and maid == 0 and guesses[q] == c:
                return 1.0
            return _outcome(value, cards[q], kept_cards[q], c, remaining, remaining_code, n, maid, known,
                            kept_known[q], targets[q], reading)
    return np.nan


@numba.njit(cache=True)
def _evaluate(value, chance, plays, max_remaining, reading):
    """Fill ``value`` like ``_build`` fills ``chance``, with the true value of the table's own plays: both
    players play the table (slot 0 or their known card), no tie exception, every slot against its card."""
    remaining = np.zeros(9, dtype=np.int64)
    options = (np.zeros(_MAX_OPTIONS, dtype=np.int64), np.zeros(_MAX_OPTIONS, dtype=np.int64),
               np.zeros(_MAX_OPTIONS, dtype=np.int64), np.zeros(_MAX_OPTIONS, dtype=np.int64),
               np.zeros(_MAX_OPTIONS, dtype=np.bool_))
    for n in range(2, max_remaining + 1):
        for remaining_code in range(_N_REMAINING_CODES):
            if _unpack_remaining(remaining_code, remaining) != n:
                continue
            for hand in range(_N_HANDS):
                b1, b2 = _HAND_PAIRS[hand, 0], _HAND_PAIRS[hand, 1]
                for maid in range(2):
                    for p in range(3):
                        if np.isnan(chance[hand, 0, remaining_code, maid, p]):
                            continue
                        total = 0.0
                        for c in range(1, 9):
                            if remaining[c] == 0:
                                continue
                            v = _policy_value(value, plays, 0, b1, b2, c, remaining, remaining_code, n, maid, p,
                                              False, options, reading)
                            value[hand, c, remaining_code, maid, p] = v
                            total += remaining[c] * v
                            if not np.isnan(chance[hand, 8 + c, remaining_code, maid, p]):
                                value[hand, 8 + c, remaining_code, maid, p] = _policy_value(
                                    value, plays, 8 + c, b1, b2, c, remaining, remaining_code, n, maid, p, True,
                                    options, reading)
                        value[hand, 0, remaining_code, maid, p] = total / n


def _remaining_code(remaining: Sequence[int]) -> int:
    return int(sum(int(remaining[value - 1]) * int(_PLACE[value]) for value in range(1, 9)))


def first_turn_remaining(b1: int, b2: int) -> tuple[int, ...]:
    """The vector A = (a1, ..., a8) at the very first turn, when the active player holds b1 and b2."""
    counts = list(COPIES[1:])
    counts[b1 - 1] -= 1
    counts[b2 - 1] -= 1
    if min(counts) < 0:
        raise ValueError(f"the deck has no hand ({b1}, {b2})")
    return tuple(counts)


class DPTable:
    """The filled table of ``f(b1, b2, c, A, maid, known, p)`` with the play that achieves each chance.

    Arguments of the queries follow the thesis: ``b1`` and ``b2`` the active player's cards (any
    order), ``c`` the opponent's card or 0, ``remaining`` the vector A of 8 counts (Guard first),
    ``maid`` the opponent's Handmaid protection, ``known`` whether the active player knows ``c``,
    ``p`` which of ``b1``/``b2`` the opponent knows (0 none, 1 ``b1``, 2 ``b2``, as given).
    """

    def __init__(self, cards: int, chance: np.ndarray, plays: np.ndarray, reading: Reading | None = None):
        self.cards = cards
        self.reading = reading or Reading()
        self._chance = chance
        self._plays = plays

    def _index(self, b1, b2, c, remaining, maid, known, p):
        if not (1 <= b1 <= 8 and 1 <= b2 <= 8 and 0 <= c <= 8 and p in (0, 1, 2)):
            raise ValueError("cards are 1..8, c is 0..8 and p is 0, 1 or 2")
        if len(remaining) != 8 or any(not 0 <= remaining[v - 1] <= COPIES[v] for v in range(1, 9)):
            raise ValueError("remaining must hold 8 counts (a1, ..., a8), each between 0 and the copies in the deck")
        if b1 > b2:
            b1, b2 = b2, b1
            p = {0: 0, 1: 2, 2: 1}[p]
        if b1 == b2 and p == 2:
            p = 1
        n = sum(remaining)
        if not 2 <= n <= self.cards:
            raise ValueError(f"the table covers 2..{self.cards} remaining cards, not {n}")
        if known and c == 0:
            raise ValueError("known needs the opponent's card c")
        if c and remaining[c - 1] == 0:
            raise ValueError("the opponent's card c must be among the remaining cards")
        slot = 0 if c == 0 else (8 + c if known else c)
        index = (_HAND_INDEX[b1, b2], slot, _remaining_code(remaining), int(bool(maid)), p)
        if np.isnan(self._chance[index]):
            raise ValueError(
                "not a possible configuration (cards beyond the deck, or maid/knowledge without "
                "a discarded Handmaid/Priest, Baron or King)"
            )
        return index

    def chance(
        self, b1: int, b2: int, c: int, remaining: Sequence[int], maid: bool = False, known: bool = False, p: int = 0
    ) -> float:
        """Chance of winning for the active player, ``f(b1, b2, c, A, maid, known, p)``."""
        return float(self._chance[self._index(b1, b2, c, remaining, maid, known, p)])

    def best_play(
        self, b1: int, b2: int, c: int, remaining: Sequence[int], maid: bool = False, known: bool = False, p: int = 0
    ) -> Play:
        """The play that achieves :meth:`chance` (the same for every unknown ``c``)."""
        return _decode_play(int(self._plays[self._index(b1, b2, c, remaining, maid, known, p)]))

    def entry(
        self, b1: int, b2: int, c: int, remaining: Sequence[int], maid: bool = False, known: bool = False, p: int = 0
    ) -> Entry:
        """Both the chance and the play of one configuration."""
        index = self._index(b1, b2, c, remaining, maid, known, p)
        return Entry(float(self._chance[index]), _decode_play(int(self._plays[index])))

    def option_chances(
        self, b1: int, b2: int, c: int, remaining: Sequence[int], maid: bool = False, known: bool = False, p: int = 0
    ) -> dict[Play, float]:
        """Chance of every legal play, as the active player compares them (his gain values).

        Without knowledge of the opponent's card (``known`` false) this is the average over the
        remaining cards, whatever ``c``; with it, the chance against ``c``.
        """
        hand, _, code, maid_index, p_index = self._index(b1, b2, c, remaining, maid, known, p)
        low, high = _HANDS[hand]
        counts = np.zeros(9, dtype=np.int64)
        counts[1:] = remaining
        n = int(counts.sum())
        their_cards = np.array([c] if known else [v for v in range(1, 9) if counts[v]], dtype=np.int64)
        cards = np.zeros(_MAX_OPTIONS, dtype=np.int64)
        kept_cards = np.zeros(_MAX_OPTIONS, dtype=np.int64)
        guesses = np.zeros(_MAX_OPTIONS, dtype=np.int64)
        targets = np.zeros(_MAX_OPTIONS, dtype=np.int64)
        kept_known = np.zeros(_MAX_OPTIONS, dtype=np.bool_)
        outcomes = np.zeros((_MAX_OPTIONS, 9))
        n_options = _option_outcomes(
            self._chance,
            low,
            high,
            counts,
            code,
            n,
            maid_index,
            p_index,
            bool(known),
            their_cards,
            len(their_cards),
            cards,
            kept_cards,
            guesses,
            targets,
            kept_known,
            outcomes,
            self.reading.flags(),
        )
        result = {}
        for q in range(n_options):
            if known:
                value = outcomes[q, c]
            else:
                value = float(sum(counts[v] * outcomes[q, v] for v in their_cards)) / n
            result[Play(int(cards[q]), int(guesses[q]), int(targets[q]))] = float(value)
        return result

    def policy_values(self) -> DPTable:
        """The table's own play valued exactly: a table of the same configurations whose chance is the true
        chance of the active player when both players play this table's plays, the opponent's card given
        (slots c, known or not) or averaged over A (c = 0); the tie exception does not apply. With the
        game's knowledge (the shipped reading), this is what games of the ``dp`` player against itself
        give, equal last cards counted 1/2 (``tests/test_loveletter_dp_play.py``)."""
        value = np.full(self._chance.shape, np.nan)
        _evaluate(value, self._chance, self._plays, self.cards, self.reading.flags())
        return DPTable(self.cards, value, self._plays, self.reading)

    def chances(self) -> np.ndarray:
        """Every chance in the table as a flat array, in no particular order (for statistics)."""
        return self._chance[~np.isnan(self._chance)]

    @property
    def entries(self) -> int:
        """Number of configurations in the table."""
        return int(np.count_nonzero(~np.isnan(self._chance)))

    @property
    def nonzero_entries(self) -> int:
        """Number of configurations with a non-zero chance (the thesis counts 2,604,215)."""
        return int(np.count_nonzero(np.nan_to_num(self._chance) > 0.0))


def build_table(cards: int = FIRST_TURN_CARDS, reading: Reading | None = None) -> DPTable:
    """Fill the table for every configuration with 2 to ``cards`` remaining cards.

    ``cards`` is the thesis's n, the number of remaining cards: 14 at the very first turn of a
    game (``--cards 14``), so 14 covers whole games; a smaller value builds only the end of the
    game, from the turn with ``cards`` remaining cards onwards. ``reading``: the shipped one by default.
    """
    if not 2 <= cards <= FIRST_TURN_CARDS:
        raise ValueError(f"cards must be between 2 and {FIRST_TURN_CARDS}")
    chance = np.full((_N_HANDS, _N_SLOTS, _N_REMAINING_CODES, 2, 3), np.nan)
    plays = np.zeros(chance.shape, dtype=np.int16)
    reading = reading or Reading()
    _build(chance, plays, cards, reading.flags())
    return DPTable(cards, chance, plays, reading)


@functools.cache
def table() -> DPTable:
    """The table of whole games with the shipped reading, built once per process (about a second): what the DP
    player plays (``dp_player``) and what a search's model of him reads (``dp_playout``)."""
    return build_table()


def table4_rows(table: DPTable) -> list[Table4Row]:
    """Table 4 of the thesis: the first turn of a game, one row per hand, in the thesis's order."""
    if table.cards < FIRST_TURN_CARDS:
        raise ValueError(f"Table 4 needs the first turn: build_table({FIRST_TURN_CARDS})")
    rows = []
    for b1, b2 in _HANDS:
        if b1 == b2 and COPIES[b1] < 2:
            continue
        chance, play = table.entry(b1, b2, 0, first_turn_remaining(b1, b2))
        rows.append(
            Table4Row(
                n=FIRST_TURN_CARDS,
                b1=b1,
                b2=b2,
                chance=chance,
                play=play.card,
                guess=play.guess if play.card == _GUARD else None,
                target=play.target if play.card == _PRINCE else None,
            )
        )
    return rows


def table_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``lotr loveletter table`` (and ``python -m loveletter_sim.dp``)."""
    parser.add_argument("--cards", type=int, default=FIRST_TURN_CARDS, choices=range(2, FIRST_TURN_CARDS + 1),
                        metavar="N", help=f"remaining cards at the first turn covered, 2-{FIRST_TURN_CARDS} "
                        f"(default {FIRST_TURN_CARDS}: whole games, Table 4)")
    parser.add_argument("--json", action="store_true", help="print the rows, counts and times as JSON")


def table_command(args: argparse.Namespace) -> int:
    """Build the table; print Table 4 beside the thesis's, the entry counts and the build times (first, warm)."""
    from loveletter_sim.published import TABLE4, TABLE4_NONZERO, TABLE4_SECONDS

    start = time.perf_counter()
    table = build_table(args.cards)
    first = time.perf_counter() - start
    start = time.perf_counter()
    table = build_table(args.cards)
    warm = time.perf_counter() - start
    rows = table4_rows(table) if table.cards == FIRST_TURN_CARDS else []
    thesis = {(b1, b2): row for _, b1, b2, *row in TABLE4}
    agree = [f"{row.chance:.6f}" == f"{thesis[row.b1, row.b2][0]:.6f}" for row in rows]
    if args.json:
        print(json.dumps({
            "rows": [row._asdict() | {"chance": round(row.chance, 6), "thesis_chance": thesis[row.b1, row.b2][0],
                                      "agrees": same} for row, same in zip(rows, agree)],
            "entries": table.entries, "nonzero_entries": table.nonzero_entries, "thesis_nonzero": TABLE4_NONZERO,
            "build_seconds": {"first": first, "warm": warm}, "thesis_seconds": TABLE4_SECONDS,
        }, indent=2))
        return 0
    if rows:
        print("n  b1 b2  chance    play guess target   thesis    play guess target")
        for row, same in zip(rows, agree):
            chance, play, guess, target = thesis[row.b1, row.b2]
            print(f"{row.n} {row.b1:3d}{row.b2:3d}  {row.chance:.6f}  {row.play:3d}  {_blank(row.guess):5} "
                  f"{_blank(row.target):6}   {chance:.6f}  {play:3d}  {_blank(guess):5} {_blank(target):6}"
                  f"{'' if same else '  differs'}")
        print(f"{sum(agree)} of {len(rows)} chances equal the thesis's to 6 decimals (docs/loveletter-dp.md)")
    print(f"entries {table.entries:,}, non-zero {table.nonzero_entries:,} (thesis: {TABLE4_NONZERO:,})")
    print(f"build: first {first:.2f} s (includes Numba compilation or cache load), warm {warm:.2f} s "
          f"(thesis: {TABLE4_SECONDS} s)")
    return 0


def _blank(value) -> str:
    return "" if value is None else str(value)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m loveletter_sim.dp``: the same as ``lotr loveletter table``."""
    parser = argparse.ArgumentParser(description="Huibers (2016) Love Letter DP table")
    table_arguments(parser)
    table_command(parser.parse_args(argv))


if __name__ == "__main__":
    main()
