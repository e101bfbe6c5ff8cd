"""Carcassonne's compiled rules (``gamecore.contract``): the base game for two players.

The state is one ``int64`` array (layout below; ``docs/carcassonne-rules.md``
has the rules). The board is a torus of ``BOARD`` x ``BOARD`` cells indexed by
the true coordinates modulo ``BOARD``: the 72 tiles span at most 72 columns, so
every placed tile and every open position (at most 74 columns) has a cell of
its own. A cell holds its placed tile's index plus one, or, for an open
position (the *frontier*), the edges its neighbours require (2 bits per side,
with a mask) and its index in the frontier list. Features are tracked
incrementally: segment ``s`` of the ``i``-th placed tile is node ``8 i + s`` of
a union-find whose roots keep the open edges (a city's unmatched sides, a
road's unmatched ends: complete at 0), the meeples of each player and a
circular list of the members (for scoring). An action is ``(x, y, rotation,
segment)`` for the tile drawn: rotation in quarter turns clockwise, segment
the tile's feature that takes a meeple (-1: none).
"""

import numpy as np

from carcassonne_sim.tiles import (
    CANONICAL,
    CITY,
    COUNTS,
    EDGE,
    EDGE_CITY,
    EDGE_ROAD,
    FIELD,
    KIND,
    MAX_SEGMENTS,
    MONASTERY,
    MONASTERY_SEGMENT,
    N_PORTS,
    N_ROTATIONS,
    N_SEGMENTS,
    N_STACK,
    N_TILES,
    N_TYPES,
    OPENING,
    PENNANT,
    PORT_SEGMENT,
    ROAD,
    SIGNATURE,
    STACK_TILES,
    START,
    TOUCHES,
)
from gamecore.default_kernels import copy
from gamecore.jit import allocating, inline_kernel, kernel
from gamecore.rng import below, mix64
from gamecore.two_player import (  # noqa: F401  (reward, role, to_move: the shared kernels, these rules whole alone)
    DRAW,
    HEADER,
    N_PLAYERS,
    NOBODY,
    TO_MOVE,
    WINNER,
    is_over,
    reward,
    role,
    to_move,
)

MEEPLES_EACH = 7
BOARD = N_TILES + 2  # the torus side: 72 tiles and the open positions at both ends of a line of them
OFFSET = 2 * BOARD  # added to a coordinate (|x| <= 72) before the modulo
N_CELLS = BOARD * BOARD
N_NODES = N_TILES * MAX_SEGMENTS
ROOT_BITS, ROOT_MASK = 10, 1023  # a union-find node in 10 bits, as claimable packs them
assert N_NODES <= ROOT_MASK + 1
COUNT_BITS, COUNT_MASK, COUNT_TYPES = 4, 15, 12  # the copies of a tile type in 4 bits, 12 types a word (lay_out)
assert COUNTS.max() <= COUNT_MASK and N_TYPES <= 2 * COUNT_TYPES
MAX_FRONTIER = 2 * N_TILES + 2  # the most open positions around n placed tiles is 2 n + 2
REACH = N_TILES  # |x| and |y| of any position
DX = np.array([0, 1, 0, -1], np.int64)  # sides N E S W; y grows northwards
DY = np.array([1, 0, -1, 0], np.int64)
MONASTERY_FULL = 9

# Grid cell bits.
TILE_BITS = 0xFF  # placed tile index + 1 (0: empty)
REQ_SHIFT, MASK_SHIFT, FRONT_SHIFT = 8, 16, 24

# State layout, after the two-player header (TO_MOVE; WINNER: NOBODY while the game runs, then the higher score's
# player or DRAW).
CUR = HEADER  # the drawn tile's type
TOP = CUR + 1  # next position of ORDER to draw
KNOWN_BOTTOM = TOP + 1  # the last tiles of the stack, returned to its bottom in sight of both players
REJECTS = KNOWN_BOTTOM + 1  # tiles returned to the bottom in a row (the game ends when every remaining tile was)
RETURNED = REJECTS + 1  # tiles returned to the bottom in the whole game
PLACED = RETURNED + 1
N_FRONT = PLACED + 1
STAMP_COUNT = N_FRONT + 1
SCORE = STAMP_COUNT + 1  # per player
SUPPLY = SCORE + 2  # meeples in hand, per player
MEEPLES_PLAYED = SUPPLY + 2  # per player
TURNS = MEEPLES_PLAYED + 2  # turns played, per player
TURNS_WITH_MEEPLE = TURNS + 2  # turns begun with a meeple in hand, per player
PLAYED_ON = TURNS_WITH_MEEPLE + 2  # meeples played per player and feature kind: 4 player + kind
BY_TURN = PLAYED_ON + 8  # 1: note_turn keeps both virtual scores after every turn (the option by_turn), else 0
ORDER = BY_TURN + 1  # the 71 tiles of the stack, drawn from TOP on
TILE_TYPE = ORDER + N_STACK  # per placed tile, in order of placement (0: the start tile)
TILE_ROT = TILE_TYPE + N_TILES
TILE_X = TILE_ROT + N_TILES
TILE_Y = TILE_X + N_TILES
FRONT_CELL = TILE_Y + N_TILES  # the open positions: cell, x, y
FRONT_X = FRONT_CELL + MAX_FRONTIER
FRONT_Y = FRONT_X + MAX_FRONTIER
GRID = FRONT_Y + MAX_FRONTIER
PARENT = GRID + N_CELLS  # union-find over segments
NEXT = PARENT + N_NODES  # circular list of a feature's segments
SIZE = NEXT + N_NODES  # at a root
OPEN = SIZE + N_NODES  # at a root: unmatched city sides or road ends
MEEPLES = OPEN + N_NODES  # at a root: player 0's meeples + 256 * player 1's
OWNER = MEEPLES + N_NODES  # per segment: 1 + the player whose meeple stands on it, 0 none
STAMP = OWNER + N_NODES  # marks for counting distinct tiles or cities
VIRTUAL = STAMP + N_NODES  # with BY_TURN: both players' virtual scores after turn k at VIRTUAL + 2 k (note_turn)
STATE_SIZE = VIRTUAL + 2 * N_STACK

ACTION_SIZE = 4  # x, y, rotation, segment (-1: no meeple)
NO_MEEPLE = -1
# Record: scores, meeples played, turns with a meeple, turns (per player), tiles placed, tiles returned to
# the bottom, tiles left when no remaining tile could be placed, meeples played per player and kind, whether the
# virtual scores were kept turn by turn and those (VIRTUAL's, 0 without BY_TURN).
REC_SCORE, REC_MEEPLES, REC_TWM, REC_TURNS, REC_PLACED, REC_RETURNED, REC_LEFT, REC_KINDS = 0, 2, 4, 6, 8, 9, 10, 11
REC_BY_TURN = REC_KINDS + 8
REC_VIRTUAL = REC_BY_TURN + 1
N_RECORD = REC_VIRTUAL + 2 * N_STACK
MAX_OPTIONS = 32  # per open position: 4 rotations x (7 segments + no meeple) for the tile with most
MAX_CANDIDATES = MAX_FRONTIER * MAX_OPTIONS
OK = 0
ERR_OVER, ERR_ROTATION, ERR_OCCUPIED, ERR_NOT_ADJACENT, ERR_EDGE, ERR_FEATURE, ERR_NO_MEEPLE, ERR_CLAIMED = range(1, 9)
RANDOM, STAR25, STAR25_DEEP = 0, 1, 2  # the compiled policies: the paper's random agent, its Star2.5, a deeper one
STAR25_PROBING = 5  # Table III: the probing factor
STAR25_PLIES = 2  # Table III's depth 3, chance counted: our move, the next tile, the opponent's move (decision levels)
STAR25_DEEP_PLIES = 3  # depth 3 in decision levels: ours, the opponent's, ours, chance levels between
LOWEST, HIGHEST = -100.0, 100.0  # Table III: the theoretical minimum and maximum of an evaluation
RANK_OF_KIND = np.array([0, 2, 4, 1], np.int64)  # the move order of a meeple on a city, road, field, monastery
RANK_NO_MEEPLE = 3
ONES = np.ones(N_TYPES)
DECISION, CHANCE = np.int64(0), np.int64(1)  # the kinds of Star2.5's nodes
# Star2.5's counts of its work (star_search): decision nodes expanded (legal actions listed), actions played (a
# child state made), chance nodes expanded, tiles drawn at them (a child state made), states evaluated (Eq. 4)
COUNT_DECISIONS, COUNT_PLAYED, COUNT_CHANCE, COUNT_DRAWN, COUNT_EVALUATED = range(5)
N_COUNTS = 5
ALL = np.int64(MAX_CANDIDATES)  # a decision node's children searched: all
# A weighted Eq. 4 (star_search): the virtual score's terms by kind (TERM_OF_KIND[kind]; TERM_FIELD_OPEN: a
# claimed field's 3 points per bordering city not completed yet, which Eq. 4 leaves out), each with a weight, then
# a meeple in hand's worth in points at the start (W_MEEPLE, scaled by the share of the stack left) and whether
# the weights apply at all (W_WEIGHTED 0: Eq. 4 as Star2.5 plays it)
TERM_CITY, TERM_ROAD, TERM_FIELD, TERM_MONASTERY, TERM_FIELD_OPEN = range(5)
N_TERMS = 5
TERM_OF_KIND = np.array([TERM_CITY, TERM_ROAD, TERM_FIELD, TERM_MONASTERY], np.int64)  # by CITY, ROAD, FIELD, MONASTERY
W_MEEPLE, W_WEIGHTED = N_TERMS, N_TERMS + 1
N_WEIGHTS = N_TERMS + 2
EQ4 = np.array([1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0])  # Star2.5's evaluation, unweighted


@inline_kernel
def cell_of(x, y):
    return (x + OFFSET) % BOARD + BOARD * ((y + OFFSET) % BOARD)


@inline_kernel
def tile_at(S, x, y):
    """The index + 1 of the tile at (x, y), 0 if none."""
    return S[GRID + cell_of(x, y)] & TILE_BITS


@kernel
def find(S, a):
    """The root of node ``a``, halving the path on the way."""
    while S[PARENT + a] != a:
        S[PARENT + a] = S[PARENT + S[PARENT + a]]
        a = S[PARENT + a]
    return a


@kernel
def root_of(S, a):
    """The root of node ``a``, changing nothing."""
    while S[PARENT + a] != a:
        a = S[PARENT + a]
    return a


@kernel
def union(S, a, b):
    """Merge the features of nodes ``a`` and ``b``; return the root."""
    ra, rb = find(S, a), find(S, b)
    if ra == rb:
        return ra
    if S[SIZE + ra] < S[SIZE + rb]:
        ra, rb = rb, ra
    S[PARENT + rb] = ra
    S[SIZE + ra] += S[SIZE + rb]
    S[OPEN + ra] += S[OPEN + rb]
    S[MEEPLES + ra] += S[MEEPLES + rb]
    S[NEXT + ra], S[NEXT + rb] = S[NEXT + rb], S[NEXT + ra]
    return ra


@kernel
def add_front(S, x, y):
    """Open the empty position (x, y) if it is not yet; return its cell."""
    c = cell_of(x, y)
    if (S[GRID + c] >> FRONT_SHIFT) == 0:
        f = S[N_FRONT]
        S[FRONT_CELL + f], S[FRONT_X + f], S[FRONT_Y + f] = c, x, y
        S[GRID + c] = (f + 1) << FRONT_SHIFT
        S[N_FRONT] = f + 1
    return c


@kernel
def remove_front(S, f):
    last = S[N_FRONT] - 1
    if f != last:
        moved = S[FRONT_CELL + last]
        S[FRONT_CELL + f], S[FRONT_X + f], S[FRONT_Y + f] = moved, S[FRONT_X + last], S[FRONT_Y + last]
        S[GRID + moved] = (S[GRID + moved] & ((np.int64(1) << FRONT_SHIFT) - 1)) | ((f + 1) << FRONT_SHIFT)
    S[N_FRONT] = last


@inline_kernel
def fits(S, f, t, r):
    """Whether tile type ``t`` at rotation ``r`` matches the neighbours of open position ``f``."""
    w = S[GRID + S[FRONT_CELL + f]]
    mask = (w >> MASK_SHIFT) & 0xFF
    return (SIGNATURE[t, r] & mask) == ((w >> REQ_SHIFT) & 0xFF)


@kernel
def placeable(S, t):
    for f in range(S[N_FRONT]):
        for r in range(N_ROTATIONS[t]):
            if fits(S, f, t, r):
                return True
    return False


@kernel
def join(S, i, side, j):
    """Connect side ``side`` of placed tile ``i`` with the facing side of its neighbour ``j``."""
    t, r = S[TILE_TYPE + i], S[TILE_ROT + i]
    u, q = S[TILE_TYPE + j], S[TILE_ROT + j]
    other = (side + 2) % 4
    mine, theirs = 3 * side, 3 * other
    a = MAX_SEGMENTS * i + PORT_SEGMENT[t, r, mine + 1]
    b = MAX_SEGMENTS * j + PORT_SEGMENT[u, q, theirs + 1]
    edge = EDGE[t, r, side]
    root = union(S, a, b)
    if edge == EDGE_CITY or edge == EDGE_ROAD:
        S[OPEN + root] -= 2
    if edge == EDGE_ROAD:
        union(S, MAX_SEGMENTS * i + PORT_SEGMENT[t, r, mine], MAX_SEGMENTS * j + PORT_SEGMENT[u, q, theirs + 2])
        union(S, MAX_SEGMENTS * i + PORT_SEGMENT[t, r, mine + 2], MAX_SEGMENTS * j + PORT_SEGMENT[u, q, theirs])


@kernel
def place(S, f, t, r):
    """Put tile type ``t`` at rotation ``r`` on open position ``f``: its segments join the features of its
    neighbours and the empty positions around it open. Returns the new tile's index."""
    c, x, y = S[FRONT_CELL + f], S[FRONT_X + f], S[FRONT_Y + f]
    remove_front(S, f)
    i = S[PLACED]
    S[PLACED] = i + 1
    S[GRID + c] = i + 1
    S[TILE_TYPE + i], S[TILE_ROT + i], S[TILE_X + i], S[TILE_Y + i] = t, r, x, y
    for s in range(N_SEGMENTS[t]):
        g = MAX_SEGMENTS * i + s
        S[PARENT + g], S[NEXT + g], S[SIZE + g] = g, g, 1
        S[OPEN + g], S[MEEPLES + g], S[OWNER + g] = OPENING[t, s], 0, 0
    for side in range(4):
        nx, ny = x + DX[side], y + DY[side]
        j = tile_at(S, nx, ny)
        if j != 0:
            join(S, i, side, j - 1)
        else:
            n = add_front(S, nx, ny)
            facing = 2 * ((side + 2) % 4)
            S[GRID + n] |= (EDGE[t, r, side] << (REQ_SHIFT + facing)) | (np.int64(3) << (MASK_SHIFT + facing))
    return i


@inline_kernel
def packed_root(low, high, port):
    """The root ``claimable`` packed for ``port``: 10 bits each, ports 0-5 in ``low``, 6-11 in ``high``."""
    word = low if port < 6 else high
    return (word >> (ROOT_BITS * (port % 6))) & ROOT_MASK


@kernel
def claimable(S, f, t, r):
    """The segments of tile type ``t`` at rotation ``r`` on open position ``f`` whose features, once the tile is
    placed, hold no meeple (bit s for segment s). Changes nothing.

    A segment's feature after placement holds the neighbours' features it touches and, through them, the tile's
    other segments that touch them too, and so on: a field touching only free fields is claimed when one of them
    wraps around to another field of the tile that touches a claimed one. So the neighbours' roots seen from each
    port (packed in two words) link the tile's segments, and a claim spreads along those links."""
    x, y = S[FRONT_X + f], S[FRONT_Y + f]
    present, low, high, claimed = np.int64(0), np.int64(0), np.int64(0), np.int64(0)
    for side in range(4):
        j = tile_at(S, x + DX[side], y + DY[side]) - 1
        if j < 0:
            continue
        u, q = S[TILE_TYPE + j], S[TILE_ROT + j]
        theirs = 3 * ((side + 2) % 4)
        road = EDGE[t, r, side] == EDGE_ROAD
        for k in range(3):
            if k != 1 and not road:  # a city or field side is one segment on each tile: its middle port stands for it
                continue
            port = 3 * side + k
            root = root_of(S, MAX_SEGMENTS * j + PORT_SEGMENT[u, q, theirs + 2 - k])
            present |= np.int64(1) << port
            if port < 6:
                low |= root << (ROOT_BITS * port)
            else:
                high |= root << (ROOT_BITS * (port - 6))
            if S[MEEPLES + root] != 0:
                claimed |= np.int64(1) << PORT_SEGMENT[t, r, port]
    spreading = claimed != 0
    while spreading:
        spreading = False
        for p in range(N_PORTS):
            s = PORT_SEGMENT[t, r, p]
            if not (present >> p) & 1 or (claimed >> s) & 1:
                continue
            for o in range(N_PORTS):
                if ((present >> o) & 1 and (claimed >> PORT_SEGMENT[t, r, o]) & 1
                        and packed_root(low, high, o) == packed_root(low, high, p)):
                    claimed |= np.int64(1) << s
                    spreading = True
                    break
    return ((np.int64(1) << N_SEGMENTS[t]) - 1) & ~claimed


@kernel
def front_index(S, x, y):
    """The open position at (x, y), or -1."""
    if abs(x) > REACH or abs(y) > REACH:
        return -1
    f = (S[GRID + cell_of(x, y)] >> FRONT_SHIFT) - 1
    if f < 0 or S[FRONT_X + f] != x or S[FRONT_Y + f] != y:
        return -1
    return f


@kernel
def check(S, act, err):
    """OK if ``act`` is legal for the player to move, else the reason's code (``err[1]``: the side of an edge
    mismatch)."""
    if is_over(S):
        return ERR_OVER
    x, y, r, m = act[0], act[1], act[2], act[3]
    t = S[CUR]
    if r < 0 or r > 3:
        return ERR_ROTATION
    f = front_index(S, x, y)
    if f < 0:
        if abs(x) <= REACH and abs(y) <= REACH and tile_at(S, x, y) != 0:
            return ERR_OCCUPIED
        return ERR_NOT_ADJACENT
    w = S[GRID + S[FRONT_CELL + f]]
    wrong = (SIGNATURE[t, r] & (w >> MASK_SHIFT)) ^ (w >> REQ_SHIFT)
    for side in range(4):
        if (wrong >> (2 * side)) & 3:
            err[1] = side
            return ERR_EDGE
    if m != NO_MEEPLE:
        if m < 0 or m >= N_SEGMENTS[t]:
            return ERR_FEATURE
        if S[SUPPLY + S[TO_MOVE]] == 0:
            return ERR_NO_MEEPLE
        if not (claimable(S, f, t, r) >> m) & 1:
            return ERR_CLAIMED
    return OK


@inline_kernel
def award(out, at, meeples, points):
    """Add ``points`` to ``out[at + p]`` for the player(s) p with most meeples (``meeples``: player 0's + 256 *
    player 1's)."""
    m0, m1 = meeples & 0xFF, meeples >> 8
    if m0 >= m1:
        out[at] += points
    if m1 >= m0:
        out[at + 1] += points


@inline_kernel
def new_stamp(M, counter):
    M[counter] += 1
    return M[counter]


@kernel
def lift(S, g):
    """Return the meeple on segment ``g`` (if any) to its owner."""
    owner = S[OWNER + g]
    if owner != 0:
        S[SUPPLY + owner - 1] += 1
        S[OWNER + g] = 0


@kernel
def feature_points(S, M, marks, counter, root, final):
    """The points of the road or city ``root``: a road 1 per tile; a city 2 per tile and per pennant when complete,
    1 at the end of the game. Reads ``S`` only; tiles are counted once with stamps ``M[marks + tile]``, the
    stamp counter being ``M[counter]``."""
    stamp = new_stamp(M, counter)
    tiles, pennants = 0, 0
    g = root
    while True:
        i = g // MAX_SEGMENTS
        if M[marks + i] != stamp:
            M[marks + i] = stamp
            tiles += 1
        pennants += PENNANT[S[TILE_TYPE + i], g % MAX_SEGMENTS]
        g = S[NEXT + g]
        if g == root:
            break
    if KIND[S[TILE_TYPE + root // MAX_SEGMENTS], root % MAX_SEGMENTS] == ROAD:
        return tiles
    return (tiles + pennants) * (1 if final else 2)


@kernel
def score_feature(S, root):
    """Score the completed road or city ``root`` for its majority; its meeples return."""
    award(S, SCORE, S[MEEPLES + root], feature_points(S, S, STAMP, STAMP_COUNT, root, False))
    g = root
    while True:
        lift(S, g)
        g = S[NEXT + g]
        if g == root:
            break
    S[MEEPLES + root] = 0


@kernel
def field_cities(S, M, marks, counter, root):
    """The cities the field ``root`` borders: (completed, not completed). Reads ``S`` only; cities are counted once
    with stamps ``M[marks + city root]``."""
    stamp = new_stamp(M, counter)
    complete, incomplete = 0, 0
    g = root
    while True:
        i = g // MAX_SEGMENTS
        near = TOUCHES[S[TILE_TYPE + i], g % MAX_SEGMENTS]
        c = 0
        while near != 0:
            if near & 1:
                city = root_of(S, MAX_SEGMENTS * i + c)
                if M[marks + city] != stamp:
                    M[marks + city] = stamp
                    if S[OPEN + city] == 0:
                        complete += 1
                    else:
                        incomplete += 1
            near >>= 1
            c += 1
        g = S[NEXT + g]
        if g == root:
            break
    return complete, incomplete


@kernel
def first_claimed(S, root):
    """The lowest segment holding a meeple in the feature ``root``."""
    first = N_NODES
    g = root
    while True:
        if S[OWNER + g] != 0 and g < first:
            first = g
        g = S[NEXT + g]
        if g == root:
            return first


@kernel
def neighbours(S, i):
    """The tiles among the 8 around placed tile ``i``."""
    x, y = S[TILE_X + i], S[TILE_Y + i]
    n = 0
    for dx in range(-1, 2):
        for dy in range(-1, 2):
            if (dx != 0 or dy != 0) and tile_at(S, x + dx, y + dy) != 0:
                n += 1
    return n


@kernel
def score_monasteries(S, i):
    """Score every claimed monastery completed by tile ``i`` (its own included): 9 to its owner."""
    x, y = S[TILE_X + i], S[TILE_Y + i]
    for dx in range(-1, 2):
        for dy in range(-1, 2):
            j = tile_at(S, x + dx, y + dy) - 1
            if j < 0:
                continue
            s = MONASTERY_SEGMENT[S[TILE_TYPE + j]]
            if s >= 0 and S[OWNER + MAX_SEGMENTS * j + s] != 0 and neighbours(S, j) == 8:
                g = MAX_SEGMENTS * j + s
                S[SCORE + S[OWNER + g] - 1] += MONASTERY_FULL
                S[MEEPLES + g] = 0
                lift(S, g)


@kernel
def score_completed(S, i):
    """Score the roads and cities tile ``i`` completed that hold meeples, then the monasteries."""
    t = S[TILE_TYPE + i]
    for s in range(N_SEGMENTS[t]):
        k = KIND[t, s]
        if k == CITY or k == ROAD:
            root = find(S, MAX_SEGMENTS * i + s)
            if S[OPEN + root] == 0 and S[MEEPLES + root] != 0:
                score_feature(S, root)
    score_monasteries(S, i)


@kernel
def end_points(S, M, marks, counter, out, at, spread):
    """Add to ``out[at + p]`` player p's end-of-game points: every road, city, monastery and field holding meeples
    scores once (at its lowest claimed segment) for its majority. With ``spread`` 2, each kind's points go to
    their own pair instead, ``out[at + 2 TERM_OF_KIND[kind] + p]``, and a field's 3 points for each city it borders
    that is not completed yet to ``out[at + 2 TERM_FIELD_OPEN + p]`` (``spread`` 0: not counted). Reads ``S``
    only; stamps in ``M`` as in ``feature_points``."""
    for i in range(S[PLACED]):
        t = S[TILE_TYPE + i]
        for s in range(N_SEGMENTS[t]):
            g = MAX_SEGMENTS * i + s
            if S[OWNER + g] == 0:
                continue
            k = KIND[t, s]
            pair = at + spread * TERM_OF_KIND[k]
            if k == MONASTERY:
                out[pair + S[OWNER + g] - 1] += 1 + neighbours(S, i)
                continue
            root = root_of(S, g)
            if first_claimed(S, root) != g:
                continue
            if k == FIELD:
                complete, incomplete = field_cities(S, M, marks, counter, root)
                award(out, pair, S[MEEPLES + root], 3 * complete)
                if spread != 0:
                    award(out, at + spread * TERM_FIELD_OPEN, S[MEEPLES + root], 3 * incomplete)
            else:
                award(out, pair, S[MEEPLES + root], feature_points(S, M, marks, counter, root, True))


@kernel
def score_end(S):
    """The end of the game: every feature holding meeples scores once (incomplete roads, cities and monasteries,
    and the fields); the meeples stay on the board."""
    end_points(S, S, STAMP, STAMP_COUNT, S, SCORE, 0)
    mine, theirs = S[SCORE], S[SCORE + 1]
    S[WINNER] = DRAW if mine == theirs else 0 if mine > theirs else 1


@kernel
def virtual_scores(S, marks, out):
    """``out[p]``: player p's virtual score, his score if the game ended now (``end_points``), ``S`` unchanged;
    ``marks``: ``N_NODES + 1`` int64 of scratch, zeroed once before the first call."""
    out[0], out[1] = S[SCORE], S[SCORE + 1]
    if not is_over(S):
        end_points(S, marks, 1, 0, out, 0, 0)


@kernel
def return_to_bottom(S):
    """The tile on top of the stack cannot be placed: it goes to the bottom, in sight of both players."""
    tile = S[ORDER + S[TOP]]
    for k in range(S[TOP], N_STACK - 1):
        S[ORDER + k] = S[ORDER + k + 1]
    S[ORDER + N_STACK - 1] = tile
    S[KNOWN_BOTTOM] = min(S[KNOWN_BOTTOM] + 1, N_STACK - S[TOP])
    S[RETURNED] += 1
    S[REJECTS] += 1


@kernel
def draw(S):
    """Draw the next placeable tile for the player to move (unplaceable ones go to the bottom), or end the
    game: the stack is empty, or every tile in it was returned in a row (none can be placed)."""
    while True:
        remaining = N_STACK - S[TOP]
        if remaining == 0 or S[REJECTS] >= remaining:
            score_end(S)
            return
        t = S[ORDER + S[TOP]]
        if placeable(S, t):
            break
        return_to_bottom(S)
    S[TOP] += 1
    S[CUR] = t
    S[REJECTS] = 0
    S[KNOWN_BOTTOM] = min(S[KNOWN_BOTTOM], N_STACK - S[TOP])
    p = S[TO_MOVE]
    S[TURNS + p] += 1
    if S[SUPPLY + p] > 0:
        S[TURNS_WITH_MEEPLE + p] += 1


@kernel
def shuffle(S, start, stop, rs):
    for i in range(stop - 1, start, -1):
        j = start + below(rs, i - start + 1)
        S[ORDER + i], S[ORDER + j] = S[ORDER + j], S[ORDER + i]


@allocating
def deal_game(S, seed, options):
    """Shuffle the 71 tiles from ``seed``, put the start tile at (0, 0) and draw player 0's tile; ``options``: the
    option by_turn (1: ``note_turn`` keeps the virtual scores turn by turn), none for its default 0."""
    for k in range(STATE_SIZE):
        S[k] = 0
    S[WINNER] = NOBODY
    S[BY_TURN] = options[0] if options.shape[0] > 0 else 0
    for k in range(N_STACK):
        S[ORDER + k] = STACK_TILES[k]
    rs = np.empty(1, np.uint64)
    rs[0] = mix64(seed)
    shuffle(S, 0, N_STACK, rs)
    S[SUPPLY], S[SUPPLY + 1] = MEEPLES_EACH, MEEPLES_EACH
    add_front(S, 0, 0)
    place(S, 0, START, 0)
    draw(S)


@kernel
def note_turn(S):
    """With ``BY_TURN`` set, both players' virtual scores (``virtual_scores``) after the turn just played, at
    ``VIRTUAL + 2 k`` for turn k (0: the first tile placed after the start tile), counted with the state's own
    stamps as ``score_end`` counts; else nothing."""
    if S[BY_TURN] == 0:
        return
    at = VIRTUAL + 2 * (S[PLACED] - 2)
    S[at], S[at + 1] = S[SCORE], S[SCORE + 1]
    if not is_over(S):
        end_points(S, S, STAMP, STAMP_COUNT, S, at, 0)


@inline_kernel
def margin(S, player):
    """The paper's Eq. 4: the player's score minus the opponent's."""
    return float(S[SCORE + player] - S[SCORE + 1 - player])


@kernel
def record(S, out):
    for p in range(N_PLAYERS):
        out[REC_SCORE + p] = S[SCORE + p]
        out[REC_MEEPLES + p] = S[MEEPLES_PLAYED + p]
        out[REC_TWM + p] = S[TURNS_WITH_MEEPLE + p]
        out[REC_TURNS + p] = S[TURNS + p]
    out[REC_PLACED] = S[PLACED]
    out[REC_RETURNED] = S[RETURNED]
    out[REC_LEFT] = N_STACK - S[TOP]
    for k in range(8):
        out[REC_KINDS + k] = S[PLAYED_ON + k]
    out[REC_BY_TURN] = S[BY_TURN]
    for k in range(2 * N_STACK):
        out[REC_VIRTUAL + k] = S[VIRTUAL + k]


@inline_kernel
def copy_range(dst, src, start, stop):
    to, of = dst[start:stop], src[start:stop]
    for k in range(to.size):
        to[k] = of[k]


@kernel
def copy_used(dst, src):
    """``copy`` into a ``dst`` that holds a state itself (Star2.5's work states), reading and writing only the
    parts in use: the header and stack, the placed tiles, the open positions, their cells of the board (``dst``'s
    own cleared first), the placed tiles' nodes and the stamps. Entries past them are never read before ``place``
    sets them."""
    for i in range(dst[PLACED]):
        dst[GRID + cell_of(dst[TILE_X + i], dst[TILE_Y + i])] = 0
    for f in range(dst[N_FRONT]):
        dst[GRID + dst[FRONT_CELL + f]] = 0
    placed, front, used = src[PLACED], src[N_FRONT], MAX_SEGMENTS * src[PLACED]
    copy_range(dst, src, 0, TILE_TYPE)
    for at in (TILE_TYPE, TILE_ROT, TILE_X, TILE_Y):
        copy_range(dst, src, at, at + placed)
    for at in (FRONT_CELL, FRONT_X, FRONT_Y):
        copy_range(dst, src, at, at + front)
    for at in (PARENT, NEXT, SIZE, OPEN, MEEPLES, OWNER):
        copy_range(dst, src, at, at + used)
    copy_range(dst, src, STAMP, STATE_SIZE)
    for i in range(placed):
        c = GRID + cell_of(src[TILE_X + i], src[TILE_Y + i])
        dst[c] = src[c]
    for f in range(front):
        c = GRID + src[FRONT_CELL + f]
        dst[c] = src[c]


@inline_kernel
def count_field(low, high, t):
    """The copies of tile type ``t`` counted by ``lay_out``: 4 bits a type, types 0-11 in ``low``, 12-23 in
    ``high``."""
    word = low if t < COUNT_TYPES else high
    return (word >> (COUNT_BITS * (t % COUNT_TYPES))) & COUNT_MASK


@kernel
def lay_out(S, start, stop):
    """Put the tiles ``ORDER[start:stop]`` in order of type: the same order whatever order they were in."""
    low, high = np.int64(0), np.int64(0)
    for k in range(start, stop):
        t = S[ORDER + k]
        if t < COUNT_TYPES:
            low += np.int64(1) << (COUNT_BITS * t)
        else:
            high += np.int64(1) << (COUNT_BITS * (t - COUNT_TYPES))
    k = start
    for t in range(N_TYPES):
        for _ in range(count_field(low, high, t)):
            S[ORDER + k] = t
            k += 1


@kernel
def determinize(S, player, rs):
    """Re-draw the order of the stack from what ``player`` sees: the tiles not yet drawn, but those returned to its
    bottom in sight, laid out by type (a canonical order that forgets the true one) and shuffled by ``rs``. So a
    search's determinizations, and its decision, depend on the information set and its stream only."""
    start, stop = S[TOP], N_STACK - S[KNOWN_BOTTOM]
    lay_out(S, start, stop)
    shuffle(S, start, stop, rs)


@kernel
def play(S, act):
    """Place the drawn tile and the meeple of the legal action ``act``, score what it completes and pass the turn,
    without drawing the next tile."""
    p = S[TO_MOVE]
    t = S[CUR]
    i = place(S, front_index(S, act[0], act[1]), t, act[2])
    m = act[3]
    if m != NO_MEEPLE:
        g = MAX_SEGMENTS * i + m
        S[OWNER + g] = p + 1
        S[MEEPLES + find(S, g)] += np.int64(1) << (8 * p)
        S[SUPPLY + p] -= 1
        S[MEEPLES_PLAYED + p] += 1
        S[PLAYED_ON + 4 * p + KIND[t, m]] += 1
    score_completed(S, i)
    S[TO_MOVE] = 1 - p


@kernel
def apply(S, act, err):
    """Place the drawn tile and the meeple of ``act``, score what it completes, then draw the other player's
    tile (or end the game)."""
    code = check(S, act, err)
    err[0] = code
    if code != OK:
        return code
    play(S, act)
    draw(S)
    return OK


@kernel
def placements(S, t):
    """The number of (open position, distinct rotation) pairs where tile type ``t`` fits."""
    n = 0
    for f in range(S[N_FRONT]):
        for r in range(N_ROTATIONS[t]):
            if fits(S, f, t, r):
                n += 1
    return n


@kernel
def nth_placement(S, t, k):
    """The ``k``-th fitting placement of tile type ``t``, as ``4 f + r``."""
    for f in range(S[N_FRONT]):
        for r in range(N_ROTATIONS[t]):
            if fits(S, f, t, r):
                if k == 0:
                    return 4 * f + r
                k -= 1
    return -1


@inline_kernel
def nth_bit(bits, k):
    """The position of the ``k``-th set bit of ``bits``."""
    s = 0
    while True:
        if (bits >> s) & 1:
            if k == 0:
                return s
            k -= 1
        s += 1


@inline_kernel
def popcount(bits):
    n = 0
    while bits != 0:
        bits &= bits - 1
        n += 1
    return n


@kernel
def meeple_choices(S, f, t, r):
    """The segments that may take the mover's meeple at this placement (none without a meeple in hand)."""
    if S[SUPPLY + S[TO_MOVE]] == 0:
        return np.int64(0)
    return claimable(S, f, t, r)


@kernel
def random_action(S, rs, act):
    """The paper's random agent: a placement uniformly, then uniformly no meeple or one of the features
    that may take it."""
    t = S[CUR]
    code = nth_placement(S, t, below(rs, placements(S, t)))
    f, r = code // 4, code % 4
    choices = meeple_choices(S, f, t, r)
    k = below(rs, popcount(choices) + 1)
    act[0], act[1], act[2] = S[FRONT_X + f], S[FRONT_Y + f], r
    act[3] = NO_MEEPLE if k == 0 else nth_bit(choices, k - 1)


@kernel
def playout_action(S, policy, rs, act, scratch):
    if policy == STAR25:
        star25(S, STAR25_PLIES, STAR25_PROBING, act)
    elif policy == STAR25_DEEP:
        star25(S, STAR25_DEEP_PLIES, STAR25_PROBING, act)
    else:
        random_action(S, rs, act)


@kernel
def legal_actions(S, acts):
    """Fill ``acts`` (rows x, y, rotation, segment) with the legal actions, one per outcome (the distinct
    rotations of a symmetric tile only); return their number."""
    t = S[CUR]
    n = 0
    for f in range(S[N_FRONT]):
        for r in range(N_ROTATIONS[t]):
            if not fits(S, f, t, r):
                continue
            choices = meeple_choices(S, f, t, r)
            for m in range(-1, N_SEGMENTS[t]):
                if m == NO_MEEPLE or (choices >> m) & 1:
                    acts[n, 0], acts[n, 1], acts[n, 2], acts[n, 3] = S[FRONT_X + f], S[FRONT_Y + f], r, m
                    n += 1
    return n


@inline_kernel
def action_key(S, act):
    """(x, y, rotation, segment) packed, and the tile type: the same placement of another tile is another
    action."""
    return (act[0] + 128) | ((act[1] + 128) << 8) | (act[2] << 16) | ((act[3] + 1) << 18), S[CUR]


@inline_kernel
def key_action(k0, k1, act):
    act[0], act[1] = (k0 & 0xFF) - 128, ((k0 >> 8) & 0xFF) - 128
    act[2], act[3] = (k0 >> 16) & 3, (k0 >> 18) - 1


@inline_kernel
def key_matches(S, k0, k1):
    return k1 == S[CUR]


@kernel
def is_candidate(S, act, row, scratch, err):
    return check(S, act, err) == OK


@kernel
def canonicalize(S, act):
    """The rotation of a symmetric tile among its distinct ones, and the meeple's segment there."""
    t, r = S[CUR], act[2]
    if act[3] != NO_MEEPLE:
        act[3] = CANONICAL[t, r, act[3]]
    act[2] = r % N_ROTATIONS[t]


@allocating
def workspace():
    return (np.empty(1, np.int64),)


@kernel
def sample_candidate(S, rs, act, ws, scratch, err):
    """A legal action uniformly: a placement uniformly, kept with a meeple choice drawn among
    MAX_SEGMENTS + 1 slots when the slot is one of its choices (rejection)."""
    t = S[CUR]
    n = placements(S, t)
    if n == 0:
        return False
    while True:
        code = nth_placement(S, t, below(rs, n))
        f, r = code // 4, code % 4
        choices = meeple_choices(S, f, t, r)
        k = below(rs, MAX_SEGMENTS + 1)
        if k <= popcount(choices):
            act[0], act[1], act[2] = S[FRONT_X + f], S[FRONT_Y + f], r
            act[3] = NO_MEEPLE if k == 0 else nth_bit(choices, k - 1)
            return True


# Star2.5 (Ballard's *-minimax with a probing factor; docs/carcassonne-rules.md, "Star2.5"). A decision node is a
# state with its tile drawn; its children, in the paper's move order, are the states after each legal action
# (``play``, no draw), which are chance nodes over the next tile but at the last decision level, where they are
# leaves. Values are Eq. 4 for the searching player on the virtual scores, clamped to [LOWEST, HIGHEST]; every
# search is fail-soft: a value <= alpha is an upper bound, >= beta a lower bound, exact in between.


@inline_kernel
def move_rank(t, seg):
    """The paper's move order for Star2.5, best first: a meeple on a city 0, on a monastery 1, on a road 2, no
    meeple 3, on a field 4 (tile type ``t``, segment ``seg``)."""
    return RANK_NO_MEEPLE if seg == NO_MEEPLE else RANK_OF_KIND[KIND[t, seg]]


@kernel
def ordered_options(S, acts, order):
    """``options`` in ``acts`` and their indices in the move order in ``order`` (stable); return their number."""
    n = legal_actions(S, acts)
    t = S[CUR]
    m = 0
    for rank in range(RANK_NO_MEEPLE + 2):
        for k in range(n):
            if move_rank(t, acts[k, 3]) == rank:
                order[m] = k
                m += 1
    return n


@kernel
def chance_weights(S, weights):
    """After a ``play``: ``weights[t]``, the copies of tile type ``t`` the next draw can give (the undrawn tiles
    out of sight, counted, not read in order, whose type fits somewhere); return their sum (0: no such tile)."""
    for t in range(N_TYPES):
        weights[t] = 0
    for k in range(S[TOP], N_STACK - S[KNOWN_BOTTOM]):
        weights[S[ORDER + k]] += 1
    total = 0
    for t in range(N_TYPES):
        if weights[t] != 0 and not placeable(S, t):
            weights[t] = 0
        total += weights[t]
    return total


@kernel
def draw_type(S, t):
    """After a ``play``: draw a copy of tile type ``t`` (one of ``chance_weights``) for the player to move."""
    k = S[TOP]
    while S[ORDER + k] != t:
        k += 1
    S[ORDER + k], S[ORDER + S[TOP]] = S[ORDER + S[TOP]], t
    draw(S)


@kernel
def evaluation(S, me, W):
    """Eq. 4 for player ``me`` on the virtual scores of ``S`` (weighted by ``W[10]`` where it says so:
    ``weighted_margin``), clamped to [LOWEST, HIGHEST]."""
    marks, points, weights = W[6], W[7], W[10]
    W[9][COUNT_EVALUATED] += 1
    if weights[W_WEIGHTED] == 0:
        virtual_scores(S, marks, points)
        value = float(points[me] - points[1 - me])
    else:
        value = weighted_margin(S, me, marks, W[11], weights)
    return min(HIGHEST, max(LOWEST, value))


@kernel
def weighted_margin(S, me, marks, terms, weights):
    """Player ``me``'s score minus the opponent's, plus each term of their virtual scores' difference times its
    weight (``TERM_CITY`` ...), plus ``weights[W_MEEPLE]`` per meeple more in hand times the share of the stack
    left; ``terms``: 2 N_TERMS int64 of scratch, ``marks`` as in ``virtual_scores``."""
    for k in range(2 * N_TERMS):
        terms[k] = 0
    if not is_over(S):
        end_points(S, marks, 1, 0, terms, 0, 2)
    value = float(S[SCORE + me] - S[SCORE + 1 - me])
    for k in range(N_TERMS):
        value += weights[k] * (terms[2 * k + me] - terms[2 * k + 1 - me])
    left = (N_STACK - S[TOP]) / N_STACK
    return value + weights[W_MEEPLE] * left * (S[SUPPLY + me] - S[SUPPLY + 1 - me])


@kernel
def outcome(W, d, t):
    """Set ``W[0][d + 1]`` to the chance node ``W[1][d]`` with a tile of type ``t`` drawn."""
    child = W[0][d + 1]
    copy_used(child, W[1][d])
    draw_type(child, t)
    W[9][COUNT_DRAWN] += 1


@kernel
def rest_of(weights, bounds, t, total):
    """The weighted sum of ``bounds`` over the outcomes after ``t``, as a share of ``total``."""
    rest = 0.0
    for u in range(t + 1, N_TYPES):
        rest += weights[u] * bounds[u]
    return rest / total


@kernel
def star_node(W, d, plies, probing, me, alpha, beta, limit, kind):
    """The value in the window (``alpha``, ``beta``) of the chance node ``W[1][d]`` (the next tile) if ``kind`` is
    CHANCE, else of the decision node ``W[0][d]`` (level ``d`` of ``plies``) over its first ``limit`` children in the move
    order (``W[8][d]``: the index in the order of its best one). At a chance node, Star2.5's probing phase bounds
    each outcome by the first ``probing`` children of its decision node (a lower bound when they maximise, an upper
    one when they minimise) and cuts when the weighted bounds leave the window; then Star1 with those bounds
    searches the outcomes in full. One function called with arguments of one type (Numba's cache cannot load
    mutually recursive functions or specialisations)."""
    if kind == CHANCE:
        A = W[1][d]
        if A[TOP] == N_STACK:  # the draw ends the game: the virtual scores are the final ones
            return evaluation(A, me, W)
        weights, bounds = W[4][d], W[5][d]
        W[9][COUNT_CHANCE] += 1
        total = chance_weights(A, weights)
        if total == 0:  # no undrawn tile fits: the draw brings the bottom's tiles back in public order, or ends
            copy_used(W[0][d + 1], A)
            draw(W[0][d + 1])
            return star_node(W, d + 1, plies, probing, me, alpha, beta, ALL, DECISION)
        maximize = A[TO_MOVE] == me  # whether the outcomes' decision nodes maximise
        extreme = LOWEST if maximize else HIGHEST
        for t in range(N_TYPES):
            bounds[t] = extreme
        if probing > 0 and (beta < HIGHEST if maximize else alpha > LOWEST):
            for t in range(N_TYPES):
                if weights[t] == 0:
                    continue
                p = weights[t] / total
                other = rest_of(weights, bounds, -1, total) - p * extreme
                outcome(W, d, t)
                if maximize:
                    v = star_node(W, d + 1, plies, probing, me, LOWEST, min((beta - other) / p, HIGHEST), probing,
                                  DECISION)
                else:
                    v = star_node(W, d + 1, plies, probing, me, max((alpha - other) / p, LOWEST), HIGHEST, probing,
                                  DECISION)
                bounds[t] = v
                bound = other + p * v
                if (bound >= beta) if maximize else (bound <= alpha):
                    return bound
        done = 0.0
        for t in range(N_TYPES):
            if weights[t] == 0:
                continue
            p = weights[t] / total
            rest = rest_of(weights, bounds, t, total)
            share = rest_of(weights, ONES, t, total)
            rest_low, rest_high = (rest, share * HIGHEST) if maximize else (share * LOWEST, rest)
            low, high = (alpha - done - rest_high) / p, (beta - done - rest_low) / p
            outcome(W, d, t)
            v = star_node(W, d + 1, plies, probing, me, max(low, LOWEST), min(high, HIGHEST), ALL, DECISION)
            if v <= low:
                return done + p * v + rest_high
            if v >= high:
                return done + p * v + rest_low
            done += p * v
        return done
    states, after, acts, order, best = W[0], W[1], W[2], W[3], W[8]
    S = states[d]
    if is_over(S):
        return evaluation(S, me, W)
    n = ordered_options(S, acts[d], order[d])
    W[9][COUNT_DECISIONS] += 1
    maximize = S[TO_MOVE] == me
    value = -np.inf if maximize else np.inf
    for k in range(min(n, limit)):
        A = after[d]
        copy_used(A, S)
        play(A, acts[d, order[d, k]])
        W[9][COUNT_PLAYED] += 1
        if d + 1 == plies:
            v = evaluation(A, me, W)
        else:
            v = star_node(W, d, plies, probing, me, alpha, beta, ALL, CHANCE)
        if maximize and v > value:
            value, best[d] = v, k
            alpha = max(alpha, v)
        elif not maximize and v < value:
            value, best[d] = v, k
            beta = min(beta, v)
        if alpha >= beta:
            break
    return value


@allocating
def star25(S, plies, probing, act):
    """Star2.5 for the player to move over ``plies`` decision levels with the probing factor ``probing``: fill
    ``act`` with its choice (the first best in the move order) and return its value."""
    return star_search(S, plies, probing, EQ4, act, np.zeros(N_COUNTS, np.int64))


@allocating
def star_search(S, plies, probing, weights, act, counts):
    """``star25`` whose evaluation is ``weights`` (``N_WEIGHTS``: ``EQ4`` is the paper's), adding its work to
    ``counts`` (``COUNT_DECISIONS`` ...: the nodes it expanded, the child states it made, the states it evaluated),
    the measure of its search cost that does not depend on the machine."""
    W = (np.empty((plies, STATE_SIZE), np.int64), np.empty((plies, STATE_SIZE), np.int64),
         np.empty((plies, MAX_CANDIDATES, ACTION_SIZE), np.int64), np.empty((plies, MAX_CANDIDATES), np.int64),
         np.empty((plies, N_TYPES), np.int64), np.empty((plies, N_TYPES)), np.zeros(N_NODES + 1, np.int64),
         np.empty(2, np.int64), np.zeros(plies, np.int64), counts, weights, np.empty(2 * N_TERMS, np.int64))
    for d in range(plies):  # every work state a state, as copy_used needs
        copy(W[0][d], S)
        copy(W[1][d], S)
    value = star_node(W, np.int64(0), np.int64(plies), np.int64(probing), S[TO_MOVE], LOWEST, HIGHEST, ALL, DECISION)
    chosen = W[3][0, W[8][0]]
    for j in range(ACTION_SIZE):
        act[j] = W[2][0, chosen, j]
    return value
