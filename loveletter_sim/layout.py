"""Love Letter's flat state and action: the cards, the layout of the ``int64`` state, and the readers and writers of
it that the rules (``kernels``) and the DP player's compiled model (``dp_playout``) share.

The state begins with the two-player header (``gamecore.two_player``: the player to move and the winner). The 16
cards are dealt into ``ORDER``: ``ORDER[0]`` is set aside unseen, ``ORDER[1]`` and ``ORDER[2]`` are the players'
first cards, the rest is the deck, drawn from ``TOP`` on. An action is ``(card, target, guess)``: the value
played, the Prince's target (``TARGET_OPPONENT`` or ``TARGET_SELF``) and the Guard's guess (2-8).
"""

import numpy as np

from gamecore.jit import inline_kernel, kernel
from gamecore.two_player import HEADER, TO_MOVE

N_CARDS = 16
N_VALUES = 8
COPIES = np.array([0, 5, 2, 2, 2, 2, 1, 1, 1], np.int64)  # per value 1..8 (index 0 unused)
GUARD, PRIEST, BARON, MAID, PRINCE, KING, COUNTESS, PRINCESS = range(1, 9)
TARGET_OPPONENT, TARGET_SELF = 0, 1

# State layout, after the header (TO_MOVE; WINNER: NOBODY while the game runs, a player, or DRAW).
ORDER = HEADER  # 16 cards: set aside, player 0's first card, player 1's first card, then the deck
TOP = ORDER + N_CARDS  # next card of ORDER to draw
HAND = TOP + 1  # HAND + 2 * player + slot; 0 = empty slot
PROTECTED = HAND + 4  # per player: the Maid's protection, until his next turn
DISCARDED = PROTECTED + 2  # per player: total value of the cards he played or discarded
SEEN = DISCARDED + 2  # per value 1..8 (index 0 unused): copies played or discarded, in sight of both
KNOWN = SEEN + 9  # per player: the value he knows the other holds (0 unknown)
NOT_HELD = KNOWN + 2  # per player: bit v set when he knows the other does not hold v
ASIDE_TAKEN = NOT_HELD + 2  # the set-aside card was drawn by a Prince on an empty deck
TURNS = ASIDE_TAKEN + 1
VIEWER = TURNS + 1  # the player a copy was determinized for (its searcher), NOBODY in a dealt game
ENDING = VIEWER + 1  # how the game ended: KNOCK_OUT (or not over), HIGHER_CARD or EQUAL_CARDS (then discards)
MOVE = ENDING + 1  # per player: his last move, card * 100 + guess * 10 + target, while he still holds the card
# he kept (0 once his hand changed: a Prince or a King); what a model of him can infer his card from
MOVE_SEEN = MOVE + 2  # per player: the copies seen when he made it, packed (``seen_before``)
MOVE_VIEW = MOVE_SEEN + 2  # per player: his knowledge of the other's card, the other's of his (x 9), and the
# other's protection (x 81) when he made it
STATE_SIZE = MOVE_VIEW + 2

@inline_kernel
def card_of(S, player, slot):
    return S[HAND + 2 * player + slot]


@inline_kernel
def held(S, player):
    """The card of a player holding one (the other slot is empty)."""
    return S[HAND + 2 * player] + S[HAND + 2 * player + 1]


@kernel
def remember_move(S, player, card, target, guess):
    """Record ``player``'s move and what he saw when he made it (``MOVE``, ``MOVE_SEEN``, ``MOVE_VIEW``)."""
    seen = 0
    for value in range(N_VALUES, 0, -1):
        seen = seen * (COPIES[value] + 1) + S[SEEN + value]
    S[MOVE + player] = card * 100 + guess * 10 + target
    S[MOVE_SEEN + player] = seen
    S[MOVE_VIEW + player] = S[KNOWN + player] + 9 * S[KNOWN + 1 - player] + 81 * S[PROTECTED + 1 - player]


@kernel
def seen_before(S, player, value):
    """The copies of ``value`` seen when ``player`` made his last move (``MOVE_SEEN`` unpacked)."""
    seen = S[MOVE_SEEN + player]
    for lower in range(1, value):
        seen //= COPIES[lower] + 1
    return seen % (COPIES[value] + 1)


@kernel
def fill(S, act, card, target, guess):
    """``act`` for ``card`` with the target and guess made legal: the Prince on himself against a
    protected opponent, the guess only for a Guard that can hit."""
    protected = S[PROTECTED + 1 - S[TO_MOVE]] != 0
    act[0] = card
    act[1] = (TARGET_SELF if protected else target) if card == PRINCE else TARGET_OPPONENT
    act[2] = guess if card == GUARD and not protected else 0
