"""A picture of a Carcassonne board with matplotlib: tiles, their features, the meeples by player and the score."""

from __future__ import annotations

from pathlib import Path

from matplotlib.patches import Circle, Polygon, Rectangle

from carcassonne_sim.game import CarcassonneState
from carcassonne_sim.tiles import (
    CITY,
    FIELD,
    KIND,
    LETTERS,
    MONASTERY,
    N_PORTS,
    N_SEGMENTS,
    PENNANT,
    PORT_SEGMENT,
    ROAD,
    segment_name,
)
from gamecore.atomic import atomic_path

COLOURS = {"field": "#9ccc65", "city": "#c98b4a", "road": "#f5f5f0", "monastery": "#8d3b2f", "pennant": "#1e50a0",
           "edge": "#55763a"}
PLAYER_COLOURS = ("#1565ff", "#e0102f")
MIDDLES = ((0.5, 1.0), (1.0, 0.5), (0.5, 0.0), (0.0, 0.5))  # the middle of each side, N E S W
CORNERS = ((0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0))  # side k runs from corner k to corner k + 1
PORTS = ((0.2, 1.0), (0.5, 1.0), (0.8, 1.0), (1.0, 0.8), (1.0, 0.5), (1.0, 0.2),
         (0.8, 0.0), (0.5, 0.0), (0.2, 0.0), (0.0, 0.2), (0.0, 0.5), (0.0, 0.8))
CENTRE = (0.5, 0.5)


def sides_of(t: int, rotation: int, s: int) -> list[int]:
    """The sides whose middle port belongs to segment ``s``."""
    return [side for side in range(4) if PORT_SEGMENT[t, rotation, 3 * side + 1] == s]


def city_shape(sides: list[int]) -> list[list[tuple[float, float]]]:
    """Polygons of a city on ``sides`` (unit-square coordinates): a cap for one side, triangles to the centre
    (and a band joining opposite sides) for more."""
    if len(sides) == 1:
        a, b, (mx, my) = CORNERS[sides[0]], CORNERS[(sides[0] + 1) % 4], MIDDLES[sides[0]]
        inner = [(u + 0.5 * (0.5 - mx) + 0.4 * (mx - u), v + 0.5 * (0.5 - my) + 0.4 * (my - v)) for u, v in (b, a)]
        return [[a, b, *inner]]
    shapes = [[CENTRE, CORNERS[side], CORNERS[(side + 1) % 4]] for side in sides]
    shapes.append([(0.3, 0.3), (0.7, 0.3), (0.7, 0.7), (0.3, 0.7)])
    return shapes


def meeple_spot(t: int, rotation: int, s: int) -> tuple[float, float]:
    """Where a meeple on segment ``s`` is drawn, in unit-square coordinates."""
    kind = KIND[t, s]
    if kind == MONASTERY:
        return CENTRE
    if kind == FIELD:
        ports = [PORTS[p] for p in range(N_PORTS) if PORT_SEGMENT[t, rotation, p] == s]
        x = sum(p[0] for p in ports) / len(ports)
        y = sum(p[1] for p in ports) / len(ports)
        if abs(x - 0.5) + abs(y - 0.5) < 0.2:  # a field all around: beside the centre
            return (0.2, 0.2)
        return (0.5 + 0.75 * (x - 0.5), 0.5 + 0.75 * (y - 0.5))
    ends = [MIDDLES[side] for side in sides_of(t, rotation, s)]
    x = sum(p[0] for p in ends) / len(ends)
    y = sum(p[1] for p in ends) / len(ends)
    pull = 0.5 if kind == ROAD and len(ends) == 1 else 0.3
    return (x + pull * (0.5 - x), y + pull * (0.5 - y)) if len(ends) < 4 else CENTRE


def draw_tile(ax, x: int, y: int, letter: str, rotation: int) -> None:
    t = LETTERS.index(letter)
    ax.add_patch(Rectangle((x, y), 1, 1, facecolor=COLOURS["field"], edgecolor=COLOURS["edge"], linewidth=0.6))
    for s in range(int(N_SEGMENTS[t])):
        kind = KIND[t, s]
        if kind == CITY:
            for shape in city_shape(sides_of(t, rotation, s)):
                ax.add_patch(Polygon([(x + u, y + v) for u, v in shape], closed=True, facecolor=COLOURS["city"],
                                     edgecolor="none"))
            if PENNANT[t, s]:
                px, py = meeple_spot(t, rotation, s)
                ax.add_patch(Rectangle((x + px + 0.08, y + py - 0.05), 0.1, 0.1, facecolor=COLOURS["pennant"]))
        elif kind == ROAD:
            ends = [MIDDLES[side] for side in sides_of(t, rotation, s)]
            path = [ends[0], CENTRE, ends[1]] if len(ends) == 2 else [ends[0], CENTRE]
            xs, ys = [x + u for u, _ in path], [y + v for _, v in path]
            ax.plot(xs, ys, color="#6d6d6d", linewidth=4.2, solid_capstyle="butt", zorder=2)
            ax.plot(xs, ys, color=COLOURS["road"], linewidth=2.6, solid_capstyle="butt", zorder=2)
        elif kind == MONASTERY:
            ax.add_patch(Rectangle((x + 0.33, y + 0.33), 0.34, 0.34, facecolor=COLOURS["monastery"], zorder=3))
    ends = sum(len(sides_of(t, rotation, s)) == 1 for s in range(int(N_SEGMENTS[t])) if KIND[t, s] == ROAD)
    if ends >= 3:  # a junction
        ax.add_patch(Rectangle((x + 0.42, y + 0.42), 0.16, 0.16, facecolor="#444444", zorder=3))
    ax.text(x + 0.04, y + 0.04, letter, fontsize=4, color="#2f4f2f", zorder=4)


def draw_board(state: CarcassonneState, path: str | Path, title: str | None = None) -> Path:
    """Draw ``state``'s board (tiles, features, meeples coloured by player, the score in the title) to a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    board = state.board()
    xs, ys = [x for x, *_ in board], [y for _, y, *_ in board]
    width, height = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    scale = 0.55
    figure, ax = plt.subplots(figsize=(max(4.0, scale * width + 0.6), max(3.0, scale * height + 0.9)))
    for x, y, letter, rotation in board:
        draw_tile(ax, x, y, letter, rotation)
    names = {}
    for x, y, letter, rotation in board:
        t = LETTERS.index(letter)
        for s in range(int(N_SEGMENTS[t])):
            names[(x, y, segment_name(t, rotation, s))] = (t, rotation, s)
    for x, y, feature, player in state.meeples():
        t, rotation, s = names[(x, y, feature)]
        u, v = meeple_spot(t, rotation, s)
        ax.add_patch(Circle((x + u, y + v), 0.13, facecolor=PLAYER_COLOURS[player], edgecolor="white", linewidth=0.8,
                            zorder=5))
    a, b = state.scores()
    status = "final score" if state.is_over else "score"
    ax.set_title(title or f"Carcassonne: {status} player 0 (blue) {a} - player 1 (red) {b}", fontsize=10)
    ax.set_xlim(min(xs) - 0.2, max(xs) + 1.2)
    ax.set_ylim(min(ys) - 0.2, max(ys) + 1.2)
    ax.set_aspect("equal")
    ax.axis("off")
    path = Path(path)
    with atomic_path(path) as temporary:
        figure.savefig(temporary, format=path.suffix[1:] or "png", dpi=150, bbox_inches="tight")
    plt.close(figure)
    return path

