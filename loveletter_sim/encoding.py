"""Love Letter's learning interface (``gamecore.contract.Encoding``): its encoder and its direct action space, compiled.

Encoder ``cards`` (61 features in [0, 1]), from ``player``'s side ("mine",
"yours"):

- my hand: the copies of each value 1-8 I hold, halved (8);
- the value I know you hold, one-hot (8), and the values my failed Guard
  guesses ruled out, 2-8 (7);
- the value you know I hold, one-hot (8), and the values your guesses ruled
  out (7): what you know happened in my sight;
- per value, the share of its copies played or discarded (8) and the share
  still unseen by me (8): in your hand, set aside or in the deck;
- the Maid's protection, mine and yours (2); the totals of the values each of
  us discarded (2, of the deck's 54), which break a showdown's tie;
- the deck left (of 16), whether the set-aside card was drawn, whether it is
  my turn (3).

It reads my hand and what both players have seen, never your card (unless
known), the set-aside card or the deck order.

Action space ``direct`` (16 indices): a Guard naming 2-8 (0-6), a Guard naming
nothing against a protected opponent (7), the Priest (8), the Baron (9), the
Maid (10), the Prince on the opponent (11) and on oneself (12), the King (13),
the Countess (14), the Princess (15); the mask marks the legal plays
(``check``), every legal play has one index.

It reads the rules (``kernels``), which cannot import it back: the game joins
it to them into its compiled interface (``game``, ``gamecore.contract.joined``).
"""

import numpy as np

from gamecore.jit import kernel
from loveletter_sim.kernels import (
    ASIDE_TAKEN,
    BARON,
    COPIES,
    COUNTESS,
    DISCARDED,
    GUARD,
    HAND,
    KING,
    KNOWN,
    MAID,
    N_CARDS,
    N_VALUES,
    NOT_HELD,
    OK,
    PRIEST,
    PRINCE,
    PRINCESS,
    PROTECTED,
    SEEN,
    TARGET_OPPONENT,
    TARGET_SELF,
    TO_MOVE,
    TOP,
    check,
)

TOTAL_VALUE = int(np.sum(np.arange(N_VALUES + 1) * COPIES))  # 54: every card's value, discarded
N_GUESSES = N_VALUES - 1  # a Guard names 2-8
ENCODING_SIZE = 5 * N_VALUES + 2 * N_GUESSES + 7  # hand, two known values, seen, unseen; two ruled-out sets; 7 more
DIRECT_ACTIONS = np.array(
    [[GUARD, TARGET_OPPONENT, guess] for guess in range(2, N_VALUES + 1)] + [[GUARD, TARGET_OPPONENT, 0]]
    + [[PRIEST, TARGET_OPPONENT, 0], [BARON, TARGET_OPPONENT, 0], [MAID, TARGET_OPPONENT, 0],
       [PRINCE, TARGET_OPPONENT, 0], [PRINCE, TARGET_SELF, 0], [KING, TARGET_OPPONENT, 0],
       [COUNTESS, TARGET_OPPONENT, 0], [PRINCESS, TARGET_OPPONENT, 0]], np.int64)
N_DIRECT = len(DIRECT_ACTIONS)
DECODE_WORK = 0


@kernel
def one_hot_value(out, at, value):
    """out[at + value - 1] = 1 for a value 1-8 (nothing for 0, unknown)."""
    if value > 0:
        out[at + value - 1] = 1.0


@kernel
def ruled_out(out, at, bits):
    """out[at + v - 2] = 1 for each value v 2-8 whose bit is set."""
    for value in range(2, N_VALUES + 1):
        out[at + value - 2] = (bits >> value) & 1


@kernel
def encode(S, encoding, player, out):
    """Fill ``out`` with encoder ``cards`` of what ``player`` sees of ``S`` (the module docstring)."""
    me, you = player, 1 - player
    out[:] = 0.0
    for slot in range(2):
        value = S[HAND + 2 * me + slot]
        if value > 0:
            out[value - 1] += 0.5
    one_hot_value(out, N_VALUES, S[KNOWN + me])
    ruled_out(out, 2 * N_VALUES, S[NOT_HELD + me])
    at = 2 * N_VALUES + N_GUESSES
    one_hot_value(out, at, S[KNOWN + you])
    ruled_out(out, at + N_VALUES, S[NOT_HELD + you])
    at += N_VALUES + N_GUESSES
    for value in range(1, N_VALUES + 1):
        seen = S[SEEN + value]
        mine = (S[HAND + 2 * me] == value) + (S[HAND + 2 * me + 1] == value)
        out[at + value - 1] = seen / COPIES[value]
        out[at + N_VALUES + value - 1] = (COPIES[value] - seen - mine) / COPIES[value]
    at += 2 * N_VALUES
    out[at], out[at + 1] = S[PROTECTED + me], S[PROTECTED + you]
    out[at + 2], out[at + 3] = S[DISCARDED + me] / TOTAL_VALUE, S[DISCARDED + you] / TOTAL_VALUE
    out[at + 4] = (N_CARDS - S[TOP]) / N_CARDS
    out[at + 5] = S[ASIDE_TAKEN]
    out[at + 6] = S[TO_MOVE] == me


@kernel
def action_mask(S, space, mask):
    """``mask[i]`` = 1 for the direct actions legal at ``S``."""
    for i in range(mask.shape[0]):
        mask[i] = i < N_DIRECT and check(S, DIRECT_ACTIONS[i]) == OK


@kernel
def decode(S, space, index, act, scratch, work):
    """Direct action ``index``."""
    for j in range(act.shape[0]):
        act[j] = DIRECT_ACTIONS[index, j]
