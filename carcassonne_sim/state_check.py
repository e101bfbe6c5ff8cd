"""What a Carcassonne state must be for the compiled kernels to play it: ``check_state``, run on every state given
as JSON (``CarcassonneState.from_json``, a served model's input).

Most of the state follows from the tiles placed: the board's cells, the open positions, and the union-find over
the segments (its member lists, sizes and open ends). The kernels follow those as pointers (a cell's tile index,
an open position's index, a parent, the next member of a feature), where a wrong value reads or writes outside
the state or loops forever. So they are not judged one by one: the placed tiles are placed again, in their
order, on an empty board by the kernels' own ``place`` (each must fit where it lies, as when it was played), and
the given fields must be the ones that makes. What the history leaves free is checked on its own: the parents
(``find`` shortens their paths: a parent only has to lead, without a loop, to its feature's root), the meeples
(one player's on a segment of a placed tile; at each feature's root, the count its segments hold; seven per
player in hand or on the board), the stack (the 71 tiles, the first ``TOP`` drawn in the order of the tiles
placed, the drawn one placeable somewhere) and the counters.
"""

from __future__ import annotations

import numpy as np

from carcassonne_sim import kernels as K
from carcassonne_sim.tiles import LETTERS, MAX_SEGMENTS, N_SEGMENTS, N_STACK, N_TILES, N_TYPES, STACK_TILES, START
from gamecore.errors import SpecError
from gamecore.state import field, within

NAMES = {getattr(K, name): name for name in (
    "TO_MOVE", "WINNER", "CUR", "TOP", "KNOWN_BOTTOM", "REJECTS", "RETURNED", "PLACED", "N_FRONT", "STAMP_COUNT",
    "SCORE", "SUPPLY", "MEEPLES_PLAYED", "TURNS", "TURNS_WITH_MEEPLE", "PLAYED_ON", "BY_TURN", "ORDER", "TILE_TYPE",
    "TILE_ROT", "TILE_X", "TILE_Y", "FRONT_CELL", "FRONT_X", "FRONT_Y", "GRID", "PARENT", "NEXT", "SIZE", "OPEN",
    "MEEPLES", "OWNER", "STAMP", "VIRTUAL")}
MOST_POINTS = 100_000  # far above any game's score (a score is never an index: the bound keeps sums from overflow)
MOST_STAMP = 2**62  # the stamp counter only grows, by one a feature counted
MOST_RETURNED = N_STACK * N_STACK  # each draw returns at most the tiles left to the bottom
# The fields placing the tiles again makes, as (first index, length): the placed tiles, the open positions and
# their number, the board, the members, sizes and open ends of the features.
DERIVED = ((K.TILE_TYPE, 4 * N_TILES), (K.FRONT_CELL, 3 * K.MAX_FRONTIER), (K.N_FRONT, 1), (K.GRID, K.N_CELLS),
           (K.NEXT, K.N_NODES), (K.SIZE, K.N_NODES), (K.OPEN, K.N_NODES))
UNFIT = {K.ERR_OCCUPIED: "the position holds a tile before it", K.ERR_NOT_ADJACENT: "no tile before it is next to it",
         K.ERR_EDGE: "an edge does not match its neighbour's"}


def check_state(S: np.ndarray) -> None:
    """SpecError (one line naming the index and what is allowed) unless the kernels can safely play ``S``."""
    placed, over = _check_counters(S)
    _check_tiles(S, placed, over)
    board = _placed_again(S, placed)
    for start, length in DERIVED:
        wrong = np.flatnonzero(S[start: start + length] != board[start: start + length])
        if wrong.size:
            index = start + int(wrong[0])
            raise SpecError(f"{field(NAMES, index)} = {S[index]}: expected {board[index]}, as the placed tiles make it")
    _check_features(S, board, placed)
    if not over and not K.placeable(board, S[K.CUR]):
        raise SpecError(f"the fields disagree: the drawn tile {LETTERS[S[K.CUR]]} (CUR) fits nowhere on the board")


def _check_counters(S: np.ndarray) -> tuple[int, bool]:
    """The counters at the state's start, the stack and the stamps; (tiles placed, whether the game is over)."""
    def check(index: int, low: int, high: int, what: str = "") -> int:
        return within(S, NAMES, index, low, high, what)

    winner = check(K.WINNER, K.NOBODY, K.DRAW, "the winner (-1: none yet, 2: a draw)")
    over = winner != K.NOBODY
    check(K.TO_MOVE, 0, 1, "a player")
    placed = check(K.PLACED, 1, N_TILES, "tiles placed")
    top = int(S[K.TOP])
    if top != placed - over:
        raise SpecError(f"{field(NAMES, K.TOP)} = {top}: expected the tiles drawn, PLACED ({placed}) while the game "
                        f"runs, PLACED - 1 once it is over")
    check(K.CUR, 0, N_TYPES - 1, "a tile type")
    check(K.KNOWN_BOTTOM, 0, N_STACK - top, "tiles at the bottom of the stack")
    check(K.REJECTS, 0, N_STACK - top if over else 0, "tiles returned in a row, 0 while the game runs")
    check(K.RETURNED, 0, MOST_RETURNED, "tiles returned")
    stamps = check(K.STAMP_COUNT, 0, MOST_STAMP, "stamps")
    for player in range(K.N_PLAYERS):
        check(K.SCORE + player, 0, MOST_POINTS, "points")
        check(K.SUPPLY + player, 0, K.MEEPLES_EACH, "meeples in hand")
        turns = check(K.TURNS + player, 0, N_STACK, "turns")
        played = check(K.MEEPLES_PLAYED + player, 0, turns, "meeples played, at most one a turn")
        check(K.TURNS_WITH_MEEPLE + player, 0, turns, "turns")
        for kind in range(4):
            check(K.PLAYED_ON + 4 * player + kind, 0, played, "meeples played")
    check(K.BY_TURN, 0, 1, "whether the virtual scores are kept turn by turn")
    for k in range(2 * N_STACK):
        check(K.VIRTUAL + k, 0, MOST_POINTS, "points")
    scores = S[K.SCORE], S[K.SCORE + 1]
    if over and winner != (K.DRAW if scores[0] == scores[1] else int(scores[1] > scores[0])):
        raise SpecError(f"{field(NAMES, K.WINNER)} = {winner}: expected the higher score's player, or {K.DRAW} for a "
                        f"tie (SCORE: {scores[0]}, {scores[1]})")
    for k in range(N_STACK):
        check(K.ORDER + k, 0, N_TYPES - 1, "a tile type")
    stack = np.bincount(S[K.ORDER: K.ORDER + N_STACK], minlength=N_TYPES)
    if not np.array_equal(stack, np.bincount(STACK_TILES, minlength=N_TYPES)):
        raise SpecError(f"the fields disagree: the stack (ORDER) holds {stack.tolist()} tiles per type, not "
                        f"{np.bincount(STACK_TILES, minlength=N_TYPES).tolist()}")
    wrong = np.flatnonzero((S[K.STAMP: K.STAMP + K.N_NODES] < 0) | (S[K.STAMP: K.STAMP + K.N_NODES] > stamps))
    if wrong.size:
        index = K.STAMP + int(wrong[0])
        raise SpecError(f"{field(NAMES, index)} = {S[index]}: expected a stamp given out, in [0, {stamps}] "
                        "(STAMP_COUNT)")
    return placed, over


def _check_tiles(S: np.ndarray, placed: int, over: bool) -> None:
    """The placed tiles: the start tile first, then the stack's tiles in the order they were drawn."""
    for i in range(placed):
        within(S, NAMES, K.TILE_TYPE + i, 0, N_TYPES - 1, "a tile type")
        within(S, NAMES, K.TILE_ROT + i, 0, 3, "quarter turns")
        within(S, NAMES, K.TILE_X + i, -K.REACH, K.REACH, "a column")
        within(S, NAMES, K.TILE_Y + i, -K.REACH, K.REACH, "a row")
    if (S[K.TILE_TYPE], S[K.TILE_ROT], S[K.TILE_X], S[K.TILE_Y]) != (START, 0, 0, 0):
        raise SpecError(f"the fields disagree: the first tile placed (TILE_TYPE, TILE_ROT, TILE_X, TILE_Y) is the "
                        f"start tile {LETTERS[START]} at (0, 0) unturned")
    for i in range(1, placed):
        if S[K.TILE_TYPE + i] != S[K.ORDER + i - 1]:
            raise SpecError(f"the fields disagree: tile {i} placed is {LETTERS[S[K.TILE_TYPE + i]]} (TILE_TYPE + {i}), "
                            f"the stack's tile {i - 1} drawn {LETTERS[S[K.ORDER + i - 1]]} (ORDER + {i - 1})")
    if not over and S[K.CUR] != S[K.ORDER + placed - 1]:
        raise SpecError(f"the fields disagree: the drawn tile is {LETTERS[S[K.CUR]]} (CUR), the stack's tile "
                        f"{placed - 1} {LETTERS[S[K.ORDER + placed - 1]]} (ORDER + {placed - 1})")


def _placed_again(S: np.ndarray, placed: int) -> np.ndarray:
    """An empty state with ``S``'s placed tiles placed again in their order by the kernels (each checked to fit
    first, as ``apply`` does)."""
    board = np.zeros(K.STATE_SIZE, np.int64)
    board[K.WINNER] = K.NOBODY
    K.add_front(board, 0, 0)
    K.place(board, 0, START, 0)
    act, err = np.empty(K.ACTION_SIZE, np.int64), np.zeros(4, np.int64)
    for i in range(1, placed):
        t, r, x, y = (int(S[at + i]) for at in (K.TILE_TYPE, K.TILE_ROT, K.TILE_X, K.TILE_Y))
        board[K.CUR] = t
        act[:] = x, y, r, K.NO_MEEPLE
        code = int(K.check(board, act, err))
        if code != K.OK:
            raise SpecError(f"the fields disagree: tile {i} placed, {LETTERS[t]} at ({x}, {y}) turned {r} (TILE_TYPE, "
                            f"TILE_ROT, TILE_X, TILE_Y + {i}), cannot lie there: {UNFIT.get(code, code)}")
        K.place(board, K.front_index(board, x, y), t, r)
    board[K.CUR] = 0
    return board


def _roots(board: np.ndarray, used: np.ndarray) -> np.ndarray:
    """The root of each node in use of the features placing the tiles again made (-1 for the others)."""
    roots = np.full(K.N_NODES, -1, np.int64)
    for g in np.flatnonzero(used):
        root = g
        while board[K.PARENT + root] != root:
            root = board[K.PARENT + root]
        roots[g] = root
    return roots


def _check_features(S: np.ndarray, board: np.ndarray, placed: int) -> None:
    """The parents, the meeples on the segments and at the features' roots."""
    nodes = np.arange(K.N_NODES)
    tile = nodes // MAX_SEGMENTS
    used = (tile < placed) & (nodes % MAX_SEGMENTS < N_SEGMENTS[S[K.TILE_TYPE + np.minimum(tile, placed - 1)]])
    roots = _roots(board, used)
    for g in range(K.N_NODES):
        parent, owner, meeples = (int(S[at + g]) for at in (K.PARENT, K.OWNER, K.MEEPLES))
        if not used[g]:
            for at, value in ((K.PARENT, parent), (K.OWNER, owner), (K.MEEPLES, meeples)):
                if value:
                    raise SpecError(f"{field(NAMES, at + g)} = {value}: expected 0, a segment of no placed tile")
            continue
        if not (0 <= parent < K.N_NODES and roots[parent] == roots[g]) or (parent == g) != (roots[g] == g):
            raise SpecError(f"{field(NAMES, K.PARENT + g)} = {parent}: expected a segment of the same feature, "
                            f"{g} itself only at its root {roots[g]}")
        within(S, NAMES, K.OWNER + g, 0, K.N_PLAYERS, "1 + the player whose meeple stands there (0: none)")
        if meeples < 0 or (meeples & 0xFF) > K.MEEPLES_EACH or (meeples >> 8) > K.MEEPLES_EACH:
            raise SpecError(f"{field(NAMES, K.MEEPLES + g)} = {meeples}: expected player 0's meeples + 256 * player "
                            f"1's, each in [0, {K.MEEPLES_EACH}]")
    _check_paths(S, used, roots)
    held = np.zeros(K.N_NODES, np.int64)
    for g in np.flatnonzero(used & (S[K.OWNER: K.OWNER + K.N_NODES] > 0)):
        held[roots[g]] += np.int64(1) << (8 * (S[K.OWNER + g] - 1))
    for g in np.flatnonzero(used & (roots == nodes)):
        if S[K.MEEPLES + g] != held[g]:
            raise SpecError(f"{field(NAMES, K.MEEPLES + g)} = {S[K.MEEPLES + g]}: expected {held[g]}, the meeples "
                            "its feature's segments hold (OWNER), player 0's + 256 * player 1's")
    for player in range(K.N_PLAYERS):
        on_board = int(np.sum(S[K.OWNER: K.OWNER + K.N_NODES] == player + 1))
        if on_board + S[K.SUPPLY + player] != K.MEEPLES_EACH:
            raise SpecError(f"the fields disagree: player {player} has {S[K.SUPPLY + player]} meeples in hand (SUPPLY) "
                            f"and {on_board} on the board (OWNER), not {K.MEEPLES_EACH}")


def _check_paths(S: np.ndarray, used: np.ndarray, roots: np.ndarray) -> None:
    """Every parent path (each step within its feature) reaches the root without a loop."""
    reaching = {int(g) for g in np.flatnonzero(roots == np.arange(K.N_NODES))}
    for g in np.flatnonzero(used):
        path, node = [], int(g)
        while node not in reaching:
            path.append(node)
            if len(path) > K.N_NODES:
                raise SpecError(f"{field(NAMES, K.PARENT + int(g))}: the parents from segment {g} loop without "
                                "reaching their feature's root")
            node = int(S[K.PARENT + node])
        reaching.update(path)
