"""The thesis's published results (Huibers 2016, the Love Letter agents thesis) as
plain data: Table 4 (the first turn of the dynamic-programming table) and the game counts of Tables 1-3 and 5-11.

Every count table plays 1,000,000 games with the left-hand (first-named) player moving first. Tables 1, 2, 3,
5, 6, 7 and 8 give the wins of both players (the rest are draws); Table 11 gives the first mover's wins for
every pair of the four players (and repeats the others); Tables 9 and 10 fix the first mover's two opening
cards (1 and 8, 1 and 7) in DP against DP. As report rows (``PUBLISHED``): the first mover's win rate in
percent with its 95 % normal half-width, ``counts`` (first, second; None where the thesis gives only the
first) in ``params``, and the opening where one is fixed.
"""

from __future__ import annotations

import math

from gamecore.published import Published

GAMES = 1_000_000
PLAYERS = ("random", "mc", "strategic", "dp")  # the thesis's four players, as agents of loveletter_sim

# Table 4, "Chances of winning at the start of the game": n, b1, b2, chance, play, guess, target (None where
# the thesis leaves the column blank).
TABLE4 = (
    (14, 1, 1, 0.523280, 1, 3, None),
    (14, 1, 2, 0.474567, 2, None, None),
    (14, 1, 3, 0.395335, 1, 2, None),
    (14, 1, 4, 0.510439, 1, 3, None),
    (14, 1, 5, 0.565033, 1, 2, None),
    (14, 1, 6, 0.635893, 1, 2, None),
    (14, 1, 7, 0.683812, 1, 2, None),
    (14, 1, 8, 0.709889, 1, 2, None),
    (14, 2, 2, 0.487082, 2, None, None),
    (14, 2, 3, 0.413797, 2, None, None),
    (14, 2, 4, 0.525749, 4, None, None),
    (14, 2, 5, 0.464601, 2, None, None),
    (14, 2, 6, 0.626971, 2, None, None),
    (14, 2, 7, 0.667182, 2, None, None),
    (14, 2, 8, 0.638904, 2, None, None),
    (14, 3, 3, 0.500000, 3, None, None),
    (14, 3, 4, 0.596214, 3, None, None),
    (14, 3, 5, 0.736906, 3, None, None),
    (14, 3, 6, 0.857143, 3, None, None),
    (14, 3, 7, 0.928571, 3, None, None),
    (14, 3, 8, 1.000000, 3, None, None),
    (14, 4, 4, 0.547819, 4, None, None),
    (14, 4, 5, 0.487741, 4, None, None),
    (14, 4, 6, 0.599004, 4, None, None),
    (14, 4, 7, 0.608690, 4, None, None),
    (14, 4, 8, 0.651215, 4, None, None),
    (14, 5, 5, 0.565066, 5, None, 1),
    (14, 5, 6, 0.552904, 5, None, 1),
    (14, 5, 7, 0.415273, 7, None, None),
    (14, 5, 8, 0.626603, 5, None, 1),
    (14, 6, 7, 0.618673, 7, None, None),
    (14, 6, 8, 0.542204, 6, None, None),
    (14, 7, 8, 0.624939, 7, None, None),
)
TABLE4_NONZERO = 2_604_215  # section 4.2: non-zero entries of the table
TABLE4_SECONDS = 13.5  # section 4.2: the time to build it

# (first, second): (the first mover's wins, the second's or None, the tables that give them)
COUNTS: dict[tuple[str, str], tuple[int, int | None, str]] = {
    ("random", "random"): (516_016, 483_867, "Tables 1, 11"),
    ("random", "mc"): (517_986, None, "Table 11"),
    ("random", "strategic"): (391_792, None, "Table 11"),
    ("random", "dp"): (345_708, None, "Table 11"),
    ("mc", "random"): (526_314, 473_595, "Tables 2, 11"),
    ("mc", "mc"): (531_099, None, "Table 11"),
    ("mc", "strategic"): (361_722, None, "Table 11"),
    ("mc", "dp"): (363_481, None, "Table 11"),
    ("strategic", "random"): (717_719, 282_243, "Tables 3, 11"),
    ("strategic", "mc"): (709_305, None, "Table 11"),
    ("strategic", "strategic"): (545_783, None, "Table 11"),
    ("strategic", "dp"): (509_168, 490_808, "Tables 8, 11"),
    ("dp", "random"): (723_929, 276_026, "Tables 5, 11"),
    ("dp", "mc"): (656_660, None, "Table 11"),
    ("dp", "strategic"): (619_072, 382_081, "Tables 7, 11"),
    ("dp", "dp"): (569_022, 430_949, "Tables 6, 11"),
}
# DP against DP with the first mover's opening cards fixed: opening -> (first's wins, second's wins, table)
OPENINGS = {"1-8": (723_094, 276_906, "Table 9"), "1-7": (690_221, 309_713, "Table 10")}


def _row(experiment: str, first: str, second: str, counts: tuple, params: dict | None = None) -> Published:
    wins, other, source = counts
    rate = wins / GAMES
    draws = "" if other is None else f"; {GAMES - wins - other:,} draws"
    return Published(source, experiment, f"{first}-{second}", {}, 100 * rate,
                     196 * math.sqrt(rate * (1 - rate) / GAMES), GAMES,
                     {"counts": (wins, other), **(params or {})}, f"{first} moves first{draws}")


PUBLISHED: tuple[Published, ...] = (
    *(_row("loveletter-pairs", first, second, counts) for (first, second), counts in COUNTS.items()),
    *(_row("loveletter-openings", "dp", "dp", counts, {"opening": opening}) for opening, counts in OPENINGS.items()),
)
