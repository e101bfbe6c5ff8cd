"""Carcassonne's features and legal actions against an independent model of the board.

The model (``Board``) is plain Python written from the tile list (``tiles.TILE_TYPES``: each segment's kind and
ports, turned by hand) and the board the game shows (``board()``, ``meeples()``, ``supply()``), not from the compiled
rules' tables or their union-find. Features are the components of a union-find over every placed segment, linked
port to port across each pair of touching tiles; a candidate placement is judged on the board *after* it: the new
tile's segments join that union-find, so a feature it connects through any of its segments is one feature.
"""

from __future__ import annotations

import functools
from collections import Counter

import pytest
from conftest import random_play

from carcassonne_sim import kernels as K
from carcassonne_sim.game import CarcassonneState, Play
from carcassonne_sim.tiles import CITY, FIELD, LETTERS, MAX_SEGMENTS, ROAD, TILE_TYPES, segment_name

STEPS = {0: (0, 1), 1: (1, 0), 2: (0, -1), 3: (-1, 0)}  # sides N E S W; y grows northwards


@functools.cache
def turned(letter: str, rotation: int) -> tuple[tuple[int, frozenset[int]], ...]:
    """The segments of tile ``letter`` turned ``rotation`` quarter turns clockwise: (kind, ports). A quarter turn
    moves each side's three ports to the next side clockwise."""
    return tuple((seg.kind, frozenset((port + 3 * rotation) % 12 for port in seg.ports()))
                 for seg in TILE_TYPES[LETTERS.index(letter)].segments)


@functools.cache
def port_owners(letter: str, rotation: int) -> tuple[int, ...]:
    """Per port 0-11 of tile ``letter`` turned ``rotation`` times: the index of the segment that holds it."""
    segments = turned(letter, rotation)
    return tuple(next(s for s, (_, ports) in enumerate(segments) if port in ports) for port in range(12))


@functools.cache
def segment_names(letter: str, rotation: int) -> tuple[str, ...]:
    """The names the game shows for the segments of tile ``letter`` turned ``rotation`` times."""
    return tuple(segment_name(LETTERS.index(letter), rotation, s) for s in range(len(turned(letter, rotation))))


@functools.cache
def side_kinds(letter: str, rotation: int) -> tuple[int, ...]:
    """What each side of tile ``letter`` turned ``rotation`` times shows: the kind of the segment at its middle port
    (a road side has fields on its halves)."""
    return tuple(next(kind for kind, ports in turned(letter, rotation) if 3 * side + 1 in ports) for side in range(4))


def facing(port: int) -> int:
    """The port of the neighbour that touches ``port``: the opposite side, its ports in the reverse order."""
    side, k = divmod(port, 3)
    return 3 * ((side + 2) % 4) + 2 - k


class UnionFind:
    def __init__(self, parent=None):
        self.parent = dict(parent or {})

    def find(self, a):
        parent = self.parent
        parent.setdefault(a, a)
        while parent[a] != a:
            parent[a] = parent[parent[a]]  # path halving: the chains stay short over a whole game
            a = parent[a]
        return a

    def union(self, a, b):
        self.parent[self.find(a)] = self.find(b)


class Board:
    """The placed tiles of a state, their features and the meeples on them, computed from what the game shows.
    Given the board of an earlier position of the same game (``before``: its tiles are the first ones placed here),
    only the tiles placed since are linked: features only ever merge."""

    def __init__(self, state: CarcassonneState, before: Board | None = None):
        shown = state.board()
        if before is None or before.shown != shown[:len(before.shown)]:
            before = None
        self.shown = shown
        self.tiles = {(x, y): (letter, rotation) for x, y, letter, rotation in shown}
        self.placed = {(x, y): i for i, (x, y, _, _) in enumerate(shown)}  # square -> placing order
        self.segments = {at: turned(letter, rotation) for at, (letter, rotation) in self.tiles.items()}
        self.owners = {at: port_owners(letter, rotation) for at, (letter, rotation) in self.tiles.items()}
        self.meeples = {}
        for x, y, name, player in state.meeples():
            self.meeples[(x, y), segment_names(*self.tiles[x, y]).index(name)] = player
        self.features = UnionFind(before.features.parent if before else None)
        for x, y, letter, rotation in shown[len(before.shown) if before else 0:]:
            self.link(self.features, (x, y), letter, rotation)

    def link(self, features: UnionFind, at, letter: str, rotation: int) -> None:
        """Join the segments of tile ``letter`` turned ``rotation`` times at ``at`` with those of its placed
        neighbours, port to port."""
        for s in range(len(turned(letter, rotation))):
            features.find((at, s))
        mine = port_owners(letter, rotation)
        for side, near in self.neighbours(at):
            theirs = self.owners[near]
            for port in range(3 * side, 3 * side + 3):
                features.union((at, mine[port]), (near, theirs[facing(port)]))

    def component_meeples(self, features: UnionFind) -> dict:
        """Per feature (its root in ``features``): the players' meeples on it."""
        held: dict = {}
        for node, player in self.meeples.items():
            held.setdefault(features.find(node), Counter())[player] += 1
        return held

    def open_features(self) -> set:
        """The roots of the roads and cities with a side left open (a side of theirs touching no tile)."""
        found = set()
        for at, segments in self.segments.items():
            for s, (kind, ports) in enumerate(segments):
                if kind in (CITY, ROAD) and any(3 * side + 1 in ports for side, _ in self.empty_sides(at)):
                    found.add(self.features.find((at, s)))
        return found

    def legal_actions(self, letter: str, meeple_in_hand: bool) -> set[Play]:
        """Every legal action for tile ``letter``: an empty square beside a tile, a rotation whose sides match
        every neighbour (one per distinct turned tile), and no meeple or one on a segment whose feature, on the
        board with the tile placed, holds none."""
        spots = {(x + dx, y + dy) for x, y in self.tiles for dx, dy in STEPS.values()} - set(self.tiles)
        shapes = {}
        for rotation in range(4):
            shape = frozenset(turned(letter, rotation))
            shapes.setdefault(shape, rotation)
        actions = set()
        for at in spots:
            shown = [(side, side_kinds(*self.tiles[near])[(side + 2) % 4]) for side, near in self.neighbours(at)]
            for rotation in shapes.values():
                segments, mine = turned(letter, rotation), side_kinds(letter, rotation)
                if any(mine[side] != theirs for side, theirs in shown):
                    continue
                actions.add(Play(*at, rotation))
                if not meeple_in_hand:
                    continue
                after = UnionFind(self.features.parent)
                self.link(after, at, letter, rotation)
                held = {after.find(node) for node in self.meeples}
                for s in range(len(segments)):
                    if after.find((at, s)) not in held:
                        actions.add(Play(*at, rotation, segment_names(letter, rotation)[s]))
        return actions

    def neighbours(self, at):
        """The sides of square ``at`` that touch a tile, and that tile's square."""
        for side, (dx, dy) in STEPS.items():
            if (at[0] + dx, at[1] + dy) in self.tiles:
                yield side, (at[0] + dx, at[1] + dy)

    def empty_sides(self, at):
        """The sides of square ``at`` that touch no tile."""
        for side, (dx, dy) in STEPS.items():
            if (at[0] + dx, at[1] + dy) not in self.tiles:
                yield side, (at[0] + dx, at[1] + dy)


def node_of(board: Board, at, s: int) -> int:
    """The compiled rules' union-find node of segment ``s`` of the tile at ``at`` (8 i + s, i its placing order)."""
    return MAX_SEGMENTS * board.placed[at] + s


def check_position(state: CarcassonneState, before: Board | None = None) -> Board:
    """The compiled features (membership, closed roads and cities, meeples) and legal actions equal the model's
    (built on ``before``, the model of an earlier position of the game, where given); returns the model."""
    s = state.core_state()
    board = Board(state, before)
    held, unfinished = board.component_meeples(board.features), board.open_features()
    roots, over, nobody = {}, state.is_over, Counter()
    for at, segments in board.segments.items():
        for seg, (kind, _) in enumerate(segments):
            mine = board.features.find((at, seg))
            theirs = int(K.root_of(s, node_of(board, at, seg)))
            assert roots.setdefault(mine, theirs) == theirs, f"segment {seg} of the tile at {at} in another feature"
            if kind in (CITY, ROAD):
                assert (s[K.OPEN + theirs] == 0) == (mine not in unfinished)
            if not over:  # the end scoring clears the counts of the features it scores
                count = held.get(mine, nobody)
                assert [int(s[K.MEEPLES + theirs]) & 0xFF, int(s[K.MEEPLES + theirs]) >> 8] == [count[0], count[1]]
    assert len(set(roots.values())) == len(roots)
    if not over:
        expected = board.legal_actions(state.tile, state.supply()[state.to_move] > 0)
        listed = state.legal_actions()
        assert len(listed) == len(set(listed)) and set(listed) == expected
        for action in expected:
            assert state.why_illegal(action) is None
    return board


def test_the_model_turns_tiles_and_faces_ports():
    assert side_kinds("D", 0)[0] == CITY and side_kinds("D", 1)[1] == CITY
    assert side_kinds("V", 1) == (ROAD, FIELD, FIELD, ROAD)
    assert facing(0) == 8 and facing(4) == 10 and facing(11) == 3
    assert len({frozenset(turned("U", r)) for r in range(4)}) == 2 and len({frozenset(turned("C", r))
                                                                           for r in range(4)}) == 1


def test_features_and_legal_actions_agree_with_the_model():
    checked = 0
    for n, state in enumerate(random_play(CarcassonneState, 12, seed=3)):
        if n % 4 == 0:
            check_position(state)
            checked += not state.is_over
    assert checked > 150


@pytest.mark.slow
def test_features_and_legal_actions_agree_with_the_model_over_20000_random_turns():
    """Issue 32's scale: the farmer bug showed in 8 of 21,300 random-play turns."""
    turns, board = 0, None
    for state in random_play(CarcassonneState, 300, seed=11):
        board = check_position(state, board)
        turns += not state.is_over
    assert turns > 20000

