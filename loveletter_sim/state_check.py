"""What a Love Letter state must be for the compiled kernels to play it: ``check_state``, run on every state given
as JSON (``LoveLetterState.from_json``, a served model's input).

The kernels index arrays with card values (``SEEN + card``, the encoder's one-hot features, the DP table's
hands), count the unseen copies to re-draw the hidden cards (``determinize``: a count that does not add up
draws from uninitialised memory) and unpack each player's last move into the DP table's index
(``dp_playout.net_plausible``). So every value is checked against its range, then the fields against each
other wherever the kernels rely on them: every copy of every value accounted for once (``invariants.broken``),
the player to move holding two cards and the other one, a card known to be held being held, a copy made for
one player's search holding the other's card where ``determinize`` puts it, and a last move made when its card
was unseen.
"""

from __future__ import annotations

import numpy as np

from gamecore.errors import SpecError
from gamecore.state import field, within
from gamecore.two_player import DRAW, NOBODY, TO_MOVE, WINNER
from loveletter_sim import kernels as K
from loveletter_sim import layout as L
from loveletter_sim.encoding import TOTAL_VALUE
from loveletter_sim.invariants import broken

NAMES = {TO_MOVE: "TO_MOVE", WINNER: "WINNER"} | {getattr(L, name): name for name in (
    "ORDER", "TOP", "HAND", "PROTECTED", "DISCARDED", "SEEN", "KNOWN", "NOT_HELD", "ASIDE_TAKEN",
    "TURNS", "VIEWER", "ENDING", "MOVE", "MOVE_SEEN", "MOVE_VIEW")}
FIRST_TOP = 4  # three cards dealt and player 0's first draw
GUESS_BITS = sum(1 << value for value in range(2, L.N_VALUES + 1))  # NOT_HELD's bits: the values a Guard names
SEEN_CODES = int(np.prod(L.COPIES[1:] + 1))  # MOVE_SEEN: the copies seen per value, packed (layout.seen_before)
VIEW_CODES = 9 * 9 * 2  # MOVE_VIEW: two known values (0-8) and a protection (0-1), packed (layout.remember_move)


def check_state(S: np.ndarray) -> None:
    """SpecError (one line naming the index and what is allowed) unless the kernels can safely play ``S``."""
    _check_ranges(S)
    problems = broken(S)
    if problems:
        raise SpecError(f"the fields disagree: {problems[0]}")
    _check_agreement(S)


def _check_ranges(S: np.ndarray) -> None:
    def check(index: int, low: int, high: int, what: str = "") -> int:
        return within(S, NAMES, index, low, high, what)

    top = check(L.TOP, FIRST_TOP, L.N_CARDS, "the next position of ORDER to draw")
    aside_taken = check(L.ASIDE_TAKEN, 0, 1)
    for position in range(L.N_CARDS):  # the cards still to come, then the ones drawn (0 once determinized)
        unread = position >= top or (position == 0 and not aside_taken)
        check(L.ORDER + position, 1 if unread else 0, L.N_VALUES, "a card to come" if unread else "a card drawn")
    for slot in range(4):
        check(L.HAND + slot, 0, L.N_VALUES, "a card (0: an empty slot)")
    check(TO_MOVE, 0, 1, "a player")
    check(WINNER, NOBODY, DRAW, "the winner (-1: none yet, 2: a draw)")
    check(L.SEEN, 0, 0, "unused")
    for value in range(1, L.N_VALUES + 1):
        check(L.SEEN + value, 0, int(L.COPIES[value]), f"the copies of {value} seen")
    for player in range(2):
        check(L.PROTECTED + player, 0, 1)
        check(L.DISCARDED + player, 0, TOTAL_VALUE, "a total of card values")
        check(L.KNOWN + player, 0, L.N_VALUES, "a card (0: unknown)")
        if S[L.NOT_HELD + player] & ~GUESS_BITS:
            raise SpecError(f"{field(NAMES, L.NOT_HELD + player)} = {S[L.NOT_HELD + player]}: expected a set of "
                            f"values 2-8 (bit v for value v) in [0, {GUESS_BITS}]")
        move = int(S[L.MOVE + player])
        card, guess, target = move // 100, (move // 10) % 10, move % 10
        if move != 0 and not (1 <= card <= L.N_VALUES and guess in (0, *range(2, L.N_VALUES + 1))
                              and target in (L.TARGET_OPPONENT, L.TARGET_SELF)):
            raise SpecError(f"{field(NAMES, L.MOVE + player)} = {move}: expected 0 or card * 100 + guess * 10 + "
                            "target (card 1-8, guess 0 or 2-8, target 0-1)")
        check(L.MOVE_SEEN + player, 0, SEEN_CODES - 1, "the copies seen, packed")
        check(L.MOVE_VIEW + player, 0, VIEW_CODES - 1, "two known cards and a protection, packed")
    check(L.TURNS, 0, L.N_CARDS, "turns")
    check(L.VIEWER, NOBODY, 1, "a player (-1: none)")
    check(L.ENDING, K.KNOCK_OUT, K.EQUAL_CARDS, "how the game ended")


def _hand(S: np.ndarray, player: int) -> list[int]:
    return [int(card) for card in S[L.HAND + 2 * player: L.HAND + 2 * player + 2] if card]


def _check_agreement(S: np.ndarray) -> None:
    """The fields agree (their ranges checked, every copy accounted for once)."""
    discarded = int(S[L.DISCARDED] + S[L.DISCARDED + 1])
    seen_total = sum(value * int(S[L.SEEN + value]) for value in range(1, L.N_VALUES + 1))
    if discarded != seen_total:
        raise SpecError(f"the fields disagree: DISCARDED totals {discarded}, the cards SEEN {seen_total}")
    over = bool(K.is_over(S))
    if S[L.ASIDE_TAKEN] and not (over and S[L.TOP] == L.N_CARDS):
        raise SpecError("the fields disagree: ASIDE_TAKEN is 1, but the set-aside card is drawn only with the deck "
                        "empty (TOP 16), and the game then ends")
    viewer = int(S[L.VIEWER])
    if not over and viewer != NOBODY and S[L.HAND + 2 * (1 - viewer)] == 0:
        raise SpecError(f"the fields disagree: a copy determinized for player {viewer} (VIEWER) gives the other his "
                        "card in his first slot")
    for player in range(2):
        other = _hand(S, 1 - player)
        known = int(S[L.KNOWN + player])
        if not over and known and known not in other:
            raise SpecError(f"the fields disagree: player {player} knows the other holds {known} (KNOWN), who holds "
                            f"{other}")
        ruled_out = int(S[L.NOT_HELD + player])
        if not over and all((ruled_out >> card) & 1 for card in other):
            raise SpecError(f"the fields disagree: player {player} rules out (NOT_HELD) every card the other holds, "
                            f"{other}")
        move = int(S[L.MOVE + player])
        if move:
            card = move // 100
            for value in range(1, L.N_VALUES + 1):
                before = int(L.seen_before(S, player, value)) + (value == card)
                if before > S[L.SEEN + value]:
                    raise SpecError(f"the fields disagree: player {player}'s last move (MOVE, MOVE_SEEN) and the "
                                    f"card it played count {before} copies of {value} seen, more than SEEN now")
