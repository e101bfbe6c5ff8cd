"""The 72 tiles of the base game as data, and the tables the compiled rules read.

A tile's edge has three *ports* in clockwise order, 12 in all: north ``Nw N Ne``
(0-2), east ``En E Es`` (3-5), south ``Se S Sw`` (6-8), west ``Ws W Wn`` (9-11).
A city or a field side fills its three ports; a road side has the road at the
middle port and a field on each half. A tile is a list of *segments* (the
features on one tile): a city (its sides, a pennant), a road (its sides: one
for a road ending at a junction, a city or a monastery, two for a road passing
through), a field (its sides or half sides, and the cities on the tile it
touches, for the farmers) or a monastery. Rotating a tile a quarter turn
clockwise moves port ``p`` to ``p + 3``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

CITY, ROAD, FIELD, MONASTERY = range(4)
KIND_NAMES = ("city", "road", "field", "monastery")
SIDES = "NESW"
HALVES = {"Nw": 0, "Ne": 2, "En": 3, "Es": 5, "Se": 6, "Sw": 8, "Ws": 9, "Wn": 11}
HALF_NAMES = {port: name for name, port in HALVES.items()}
N_PORTS = 12
MAX_SEGMENTS = 8  # the crossroads: four roads and four fields


@dataclass(frozen=True)
class Segment:
    """One feature of a tile: ``where`` names its sides (``"N E"``) or half sides (``"En Wn"``);
    ``touches`` the tile's cities (their indices in the tile's list) a field borders."""

    kind: int
    where: str = ""
    pennant: bool = False
    touches: tuple[int, ...] = ()

    def ports(self) -> tuple[int, ...]:
        ports = []
        for token in self.where.split():
            if token in HALVES:
                ports.append(HALVES[token])
            elif self.kind == ROAD:
                ports.append(3 * SIDES.index(token) + 1)
            else:
                ports += [3 * SIDES.index(token) + k for k in range(3)]
        return tuple(ports)


@dataclass(frozen=True)
class TileType:
    """A kind of tile: its letter (the usual A-X names), its copies among the 72 and its segments."""

    letter: str
    count: int
    segments: tuple[Segment, ...]
    picture: str  # a few words for people


def city(where, pennant=False):
    return Segment(CITY, where, pennant)


def road(where):
    return Segment(ROAD, where)


def field(where, *touches):
    return Segment(FIELD, where, touches=touches)


MONK = Segment(MONASTERY)

TILE_TYPES = (
    TileType("A", 2, (MONK, road("S"), field("N E W Se Sw")), "monastery with a road"),
    TileType("B", 4, (MONK, field("N E S W")), "monastery"),
    TileType("C", 1, (city("N E S W", True),), "city on four sides, pennant"),
    TileType("D", 4, (city("N"), road("E W"), field("En Wn", 0), field("Es S Ws")),
             "city cap, straight road (the start tile is one of the four)"),
    TileType("E", 5, (city("N"), field("E S W", 0)), "city cap"),
    TileType("F", 2, (city("E W", True), field("N", 0), field("S", 0)), "city through the middle, pennant"),
    TileType("G", 1, (city("E W"), field("N", 0), field("S", 0)), "city through the middle"),
    TileType("H", 3, (city("N"), city("S"), field("E W", 0, 1)), "two city caps on opposite sides"),
    TileType("I", 2, (city("N"), city("W"), field("E S", 0, 1)), "two city caps on adjacent sides"),
    TileType("J", 3, (city("N"), road("E S"), field("Es Se"), field("En W Sw", 0)), "city cap, road curving right"),
    TileType("K", 3, (city("N"), road("S W"), field("Sw Ws"), field("E Se Wn", 0)), "city cap, road curving left"),
    TileType("L", 3, (city("N"), road("E"), road("S"), road("W"), field("En Wn", 0), field("Es Se"), field("Sw Ws")),
             "city cap, three roads to a junction"),
    TileType("M", 2, (city("N E", True), field("S W", 0)), "diagonal city, pennant"),
    TileType("N", 3, (city("N E"), field("S W", 0)), "diagonal city"),
    TileType("O", 2, (city("N W", True), road("E S"), field("Es Se"), field("En Sw", 0)),
             "diagonal city with a road, pennant"),
    TileType("P", 3, (city("N W"), road("E S"), field("Es Se"), field("En Sw", 0)), "diagonal city with a road"),
    TileType("Q", 1, (city("N E W", True), field("S", 0)), "city on three sides, pennant"),
    TileType("R", 3, (city("N E W"), field("S", 0)), "city on three sides"),
    TileType("S", 2, (city("N E W", True), road("S"), field("Se", 0), field("Sw", 0)),
             "city on three sides with a road, pennant"),
    TileType("T", 1, (city("N E W"), road("S"), field("Se", 0), field("Sw", 0)), "city on three sides with a road"),
    TileType("U", 8, (road("N S"), field("Ne E Se"), field("Sw W Nw")), "straight road"),
    TileType("V", 9, (road("S W"), field("Sw Ws"), field("N E Se Wn")), "curved road"),
    TileType("W", 4, (road("E"), road("S"), road("W"), field("N En Wn"), field("Es Se"), field("Sw Ws")),
             "three roads to a junction"),
    TileType("X", 1, (road("N"), road("E"), road("S"), road("W"), field("Nw Wn"), field("Ne En"), field("Es Se"),
                      field("Sw Ws")), "four roads to a crossing"),
)
LETTERS = "".join(t.letter for t in TILE_TYPES)
N_TYPES = len(TILE_TYPES)
START = LETTERS.index("D")  # the start tile, placed at (0, 0) unrotated: city north, road east-west
N_TILES = sum(t.count for t in TILE_TYPES)  # 72
N_STACK = N_TILES - 1  # the start tile is not in the stack
EDGE_FIELD, EDGE_ROAD, EDGE_CITY = 1, 2, 3  # edge codes (2 bits per side in the signatures)


def _check(tile: TileType) -> None:
    """Every port in exactly one segment; a side all city, all field, or a road between two fields."""
    owner = {}
    for s, segment in enumerate(tile.segments):
        for port in segment.ports():
            if port in owner:
                raise ValueError(f"tile {tile.letter}: port {port} in two segments")
            owner[port] = s
        if segment.kind == FIELD and any(tile.segments[c].kind != CITY for c in segment.touches):
            raise ValueError(f"tile {tile.letter}: a field touches a segment that is not a city")
    if sorted(owner) != list(range(N_PORTS)) or len(tile.segments) > MAX_SEGMENTS:
        raise ValueError(f"tile {tile.letter}: ports {sorted(owner)} are not the 12 ports")
    for side in range(4):
        kinds = [tile.segments[owner[3 * side + k]].kind for k in range(3)]
        if kinds not in ([CITY] * 3, [FIELD] * 3, [FIELD, ROAD, FIELD]):
            raise ValueError(f"tile {tile.letter}: side {SIDES[side]} is {kinds}")
        if kinds[1] != ROAD and len({owner[3 * side + k] for k in range(3)}) != 1:
            raise ValueError(f"tile {tile.letter}: side {SIDES[side]} is split without a road")


def _tables():
    """The arrays of the compiled rules, indexed by tile type, rotation (quarter turns clockwise) and segment."""
    port_segment = np.zeros((N_TYPES, 4, N_PORTS), np.int64)
    edge = np.zeros((N_TYPES, 4, 4), np.int64)
    signature = np.zeros((N_TYPES, 4), np.int64)
    n_segments = np.zeros(N_TYPES, np.int64)
    kind = np.full((N_TYPES, MAX_SEGMENTS), -1, np.int64)
    opening = np.zeros((N_TYPES, MAX_SEGMENTS), np.int64)  # city sides or road ends: open until matched
    pennant = np.zeros((N_TYPES, MAX_SEGMENTS), np.int64)
    touches = np.zeros((N_TYPES, MAX_SEGMENTS), np.int64)  # bit c: the field borders the tile's city c
    monastery = np.full(N_TYPES, -1, np.int64)
    for t, tile in enumerate(TILE_TYPES):
        _check(tile)
        n_segments[t] = len(tile.segments)
        for s, segment in enumerate(tile.segments):
            kind[t, s] = segment.kind
            pennant[t, s] = segment.pennant
            touches[t, s] = sum(1 << c for c in segment.touches)
            if segment.kind == MONASTERY:
                monastery[t] = s
            if segment.kind in (CITY, ROAD):
                opening[t, s] = len(segment.where.split())
            for port in segment.ports():
                for r in range(4):
                    port_segment[t, r, (port + 3 * r) % N_PORTS] = s
        for r in range(4):
            for side in range(4):
                middle = tile.segments[port_segment[t, r, 3 * side + 1]].kind
                edge[t, r, side] = {CITY: EDGE_CITY, ROAD: EDGE_ROAD, FIELD: EDGE_FIELD}[middle]
                signature[t, r] |= edge[t, r, side] << (2 * side)
    # Rotations giving the same tile: the distinct ones are 0 .. n_rotations - 1 (symmetric tiles: 1 or 2).
    n_rotations = np.array([next(k for k in (1, 2, 4) if np.array_equal(
        kind[t][port_segment[t, 0]], kind[t][port_segment[t, k % 4]]) and _same_partition(port_segment, t, k))
        for t in range(N_TYPES)], np.int64)
    canonical = np.zeros((N_TYPES, 4, MAX_SEGMENTS), np.int64)  # segment s at rotation r is this one at r % n
    for t in range(N_TYPES):
        for r in range(4):
            base = r % n_rotations[t]
            for s in range(n_segments[t]):
                ports = np.flatnonzero(port_segment[t, r] == s)
                canonical[t, r, s] = s if ports.size == 0 else port_segment[t, base, ports[0]]
    return (port_segment, edge, signature, n_segments, kind, opening, pennant, touches, monastery, n_rotations,
            canonical)


def _same_partition(port_segment: np.ndarray, t: int, k: int) -> bool:
    """Whether rotation ``k`` of tile ``t`` groups the ports into segments as rotation 0 does."""
    a, b = port_segment[t, 0], port_segment[t, k % 4]
    return all((a[p] == a[q]) == (b[p] == b[q]) for p in range(N_PORTS) for q in range(N_PORTS))


(PORT_SEGMENT, EDGE, SIGNATURE, N_SEGMENTS, KIND, OPENING, PENNANT, TOUCHES, MONASTERY_SEGMENT, N_ROTATIONS,
 CANONICAL) = _tables()
COUNTS = np.array([t.count for t in TILE_TYPES], np.int64)
STACK_TILES = np.repeat(np.arange(N_TYPES), COUNTS - (np.arange(N_TYPES) == START))  # the 71 tiles, by type


@functools.cache  # the game lists every action by name: a few hundred a turn
def segment_name(t: int, rotation: int, s: int) -> str:
    """A readable name of segment ``s`` of tile type ``t`` at ``rotation``: ``city N+E``, ``road E-W``,
    ``field En+Wn``, ``monastery``."""
    k = int(KIND[t, s])
    if k == MONASTERY:
        return "monastery"
    ports = {p for p in range(N_PORTS) if PORT_SEGMENT[t, rotation, p] == s}
    tokens = []
    for side in range(4):
        mine = [3 * side + j in ports for j in range(3)]
        if k == ROAD:
            tokens += [SIDES[side]] if mine[1] else []
        elif all(mine):
            tokens.append(SIDES[side])
        else:
            tokens += [HALF_NAMES[3 * side + j] for j in (0, 2) if mine[j]]
    return f"{KIND_NAMES[k]} {('-' if k == ROAD else '+').join(tokens)}"
