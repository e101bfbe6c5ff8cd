"""Carcassonne's learning interface (``gamecore.contract.Encoding``): its encoder and its direct action space, compiled.

A placement is where the game's choice lies, and the places are the open
positions (the cells next to the board where a tile may go, at most
``MAX_FRONTIER``): both the action space and most of the encoding are laid
out by *slot*, the open positions in a canonical order (south to north, then
west to east), so that slot ``k`` of the observation describes the position
that indices ``k * SLOT_ACTIONS ..`` of the action space place on. A network
that reads the slots alike (one shared per-slot layer, attention) learns
"what makes a placement good" once for every position; a plain MLP can still
read it whole.

Action space ``direct`` (``N_DIRECT`` = 146 x 36 = 5,256 indices): slot ``k``,
rotation ``r`` (quarter turns clockwise) and meeple choice ``m`` (0: none,
1 + s: on the tile's segment s) at ``k * 36 + r * 9 + m``. The mask marks the
legal actions, each once: a symmetric tile's equivalent rotations only at the
lowest (as ``legal_actions()`` lists them).

Encoder ``slots`` (10,015 features), from ``player``'s side:

- global (87): the drawn tile's type, one-hot (24), and its segments' kinds
  (8 x city, road, field, monastery); the copies of each type still to come
  (24, a share of the type's copies: the stack's contents are public, its
  order is not); the tiles returned to the bottom in sight and the tiles left
  (shares of 71); the scores, mine and yours (/ 100); the meeples in hand
  (/ 7); whether it is my turn;
- per slot (146 x 68, zeros for an empty slot): present; its coordinates
  (/ 72); per side, the edge its neighbour requires (field, road, city,
  one-hot; none without a neighbour) and the feature across it (my meeples and
  yours on it / 7, its open ends or sides / 8 and its segments / 32, both
  capped at 1); the tiles among the 8 around it (/ 8, for monasteries); per
  rotation of the drawn tile, whether it fits and which of its segments may
  take the mover's meeple (1 + 8).

Everything read is on the board or counted from the stack, never its order.
It reads the rules (``kernels``), which cannot import it back: the game joins
it to them into its compiled interface (``game``, ``gamecore.contract.joined``).
"""

from carcassonne_sim.kernels import (
    CUR,
    DX,
    DY,
    FRONT_CELL,
    FRONT_X,
    FRONT_Y,
    GRID,
    KNOWN_BOTTOM,
    MAX_FRONTIER,
    MEEPLES,
    MEEPLES_EACH,
    N_FRONT,
    OPEN,
    ORDER,
    REACH,
    REQ_SHIFT,
    SCORE,
    SIZE,
    SUPPLY,
    TILE_ROT,
    TILE_TYPE,
    TO_MOVE,
    TOP,
    fits,
    meeple_choices,
    root_of,
    tile_at,
)
from carcassonne_sim.tiles import COUNTS, KIND, MAX_SEGMENTS, N_ROTATIONS, N_SEGMENTS, N_STACK, N_TYPES, PORT_SEGMENT
from gamecore.jit import kernel
from gamecore.two_player import is_over

N_KINDS = 4
MEEPLE_CHOICES = MAX_SEGMENTS + 1  # none, or one of the tile's segments
SLOT_ACTIONS = 4 * MEEPLE_CHOICES
N_DIRECT = MAX_FRONTIER * SLOT_ACTIONS
DECODE_WORK = 0
POINTS_SCALE = 100.0  # scores are shown in hundreds
MAX_SCORE_FEATURE = 5.0  # a score of 500: above any two-player game's
FEATURE_OPEN_SCALE, FEATURE_SIZE_SCALE = 8.0, 32.0

# The global part.
TILE_AT = 0
SEGMENTS_AT = TILE_AT + N_TYPES
STACK_AT = SEGMENTS_AT + MAX_SEGMENTS * N_KINDS
COUNTERS_AT = STACK_AT + N_TYPES  # bottom in sight, stack left, scores, meeples in hand, my turn
GLOBAL_SIZE = COUNTERS_AT + 7
# A slot's part.
SLOT_PRESENT, SLOT_X, SLOT_Y = 0, 1, 2
SLOT_EDGES = 3  # 4 sides x (field, road, city)
SLOT_FEATURES = SLOT_EDGES + 4 * 3  # 4 sides x (my meeples, yours, open ends or sides, segments)
SLOT_AROUND = SLOT_FEATURES + 4 * 4
SLOT_ROTATIONS = SLOT_AROUND + 1  # 4 rotations x (fits, 8 segments that may take the mover's meeple)
SLOT_SIZE = SLOT_ROTATIONS + 4 * MEEPLE_CHOICES
ENCODING_SIZE = GLOBAL_SIZE + MAX_FRONTIER * SLOT_SIZE


@kernel
def position_key(S, f):
    """Open position ``f``'s place in the canonical order: south to north, then west to east."""
    return (S[FRONT_Y + f] + REACH) * (4 * REACH) + S[FRONT_X + f] + REACH


@kernel
def slot_of(S, f):
    """The slot of open position ``f``: the open positions before it in the canonical order."""
    key = position_key(S, f)
    slot = 0
    for g in range(S[N_FRONT]):
        if position_key(S, g) < key:
            slot += 1
    return slot


@kernel
def encode_slot(S, f, me, out):
    """Fill ``out`` (one slot's features, zeros) with open position ``f`` seen by player ``me``."""
    x, y = S[FRONT_X + f], S[FRONT_Y + f]
    out[SLOT_PRESENT], out[SLOT_X], out[SLOT_Y] = 1.0, x / REACH, y / REACH
    w = S[GRID + S[FRONT_CELL + f]]
    for side in range(4):
        required = (w >> (REQ_SHIFT + 2 * side)) & 3
        if required == 0:
            continue
        out[SLOT_EDGES + 3 * side + required - 1] = 1.0
        j = tile_at(S, x + DX[side], y + DY[side]) - 1
        port = 3 * ((side + 2) % 4) + 1  # the middle port of the neighbour's facing side
        root = root_of(S, MAX_SEGMENTS * j + PORT_SEGMENT[S[TILE_TYPE + j], S[TILE_ROT + j], port])
        meeples = S[MEEPLES + root]
        at = SLOT_FEATURES + 4 * side
        out[at] = ((meeples >> (8 * me)) & 0xFF) / MEEPLES_EACH
        out[at + 1] = ((meeples >> (8 * (1 - me))) & 0xFF) / MEEPLES_EACH
        out[at + 2] = min(S[OPEN + root] / FEATURE_OPEN_SCALE, 1.0)
        out[at + 3] = min(S[SIZE + root] / FEATURE_SIZE_SCALE, 1.0)
    around = 0
    for dx in range(-1, 2):
        for dy in range(-1, 2):
            if tile_at(S, x + dx, y + dy) != 0:
                around += 1
    out[SLOT_AROUND] = around / 8
    if is_over(S):
        return
    t = S[CUR]
    for r in range(N_ROTATIONS[t]):
        if fits(S, f, t, r):
            at = SLOT_ROTATIONS + r * MEEPLE_CHOICES
            out[at] = 1.0
            choices = meeple_choices(S, f, t, r)
            for s in range(MAX_SEGMENTS):
                out[at + 1 + s] = (choices >> s) & 1


@kernel
def encode(S, encoding, player, out):
    """Fill ``out`` with encoder ``slots`` of what ``player`` sees of ``S`` (the module docstring)."""
    me, you = player, 1 - player
    out[:] = 0.0
    if not is_over(S):
        t = S[CUR]
        out[TILE_AT + t] = 1.0
        for s in range(N_SEGMENTS[t]):
            out[SEGMENTS_AT + N_KINDS * s + KIND[t, s]] = 1.0
    for k in range(S[TOP], N_STACK):
        out[STACK_AT + S[ORDER + k]] += 1.0
    for t in range(N_TYPES):
        out[STACK_AT + t] /= COUNTS[t]
    out[COUNTERS_AT] = S[KNOWN_BOTTOM] / N_STACK
    out[COUNTERS_AT + 1] = (N_STACK - S[TOP]) / N_STACK
    out[COUNTERS_AT + 2], out[COUNTERS_AT + 3] = S[SCORE + me] / POINTS_SCALE, S[SCORE + you] / POINTS_SCALE
    out[COUNTERS_AT + 4], out[COUNTERS_AT + 5] = S[SUPPLY + me] / MEEPLES_EACH, S[SUPPLY + you] / MEEPLES_EACH
    out[COUNTERS_AT + 6] = S[TO_MOVE] == me
    for f in range(S[N_FRONT]):
        at = GLOBAL_SIZE + slot_of(S, f) * SLOT_SIZE
        encode_slot(S, f, me, out[at: at + SLOT_SIZE])


@kernel
def action_mask(S, space, mask):
    """``mask[i]`` = 1 for the direct actions legal at ``S``."""
    mask[:] = 0
    if is_over(S):
        return
    t = S[CUR]
    for f in range(S[N_FRONT]):
        slot = slot_of(S, f)
        for r in range(N_ROTATIONS[t]):
            if not fits(S, f, t, r):
                continue
            at = slot * SLOT_ACTIONS + r * MEEPLE_CHOICES
            mask[at] = 1
            choices = meeple_choices(S, f, t, r)
            for s in range(N_SEGMENTS[t]):
                mask[at + 1 + s] = (choices >> s) & 1


@kernel
def decode(S, space, index, act, scratch, work):
    """Direct action ``index``: the drawn tile on slot ``index // SLOT_ACTIONS``, turned and with its meeple."""
    slot, choice = index // SLOT_ACTIONS, index % SLOT_ACTIONS
    for f in range(S[N_FRONT]):
        if slot_of(S, f) == slot:
            act[0], act[1] = S[FRONT_X + f], S[FRONT_Y + f]
    act[2], act[3] = choice // MEEPLE_CHOICES, choice % MEEPLE_CHOICES - 1
