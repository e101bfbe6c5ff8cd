"""Readings of section 3.2 judged against Table 4 on what tie-breaking cannot move.

Equal gains are common in the table, and which of the tied plays is taken moves Table 4's chances by up to
0.15 (row 1-3); the thesis broke its ties by floating-point rounding that the text cannot give. So a reading
(``dp.Reading``: the rules' switches) is not judged by its one table, but by the range each row takes over
the 16 tie rules (``TIE_SWITCHES`` on and off): a row scores its distance from the thesis's value to that
range, 0 when some tie rule reaches it. ``python -m loveletter_sim.dp_readings`` prints the ranking.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
from collections.abc import Sequence
from typing import NamedTuple

from loveletter_sim.dp import Reading, build_table, table4_rows
from loveletter_sim.published import TABLE4

RULE_SWITCHES = ("pair_knowledge_kept", "princess_safe_when_protected", "baron_protected_exchanges")
TIE_SWITCHES = ("tie_exception", "higher_guess_first", "prince_on_self_first", "exact_ties")
THESIS = {(b1, b2): row[0] for _, b1, b2, *row in TABLE4}


class Judged(NamedTuple):
    """A reading's Table 4 over the tie rules: per row the lowest and highest chance, and its scores."""

    reading: Reading
    low: dict[tuple[int, int], float]
    high: dict[tuple[int, int], float]

    def distance(self, row: tuple[int, int]) -> float:
        """How far the thesis's value of ``row`` lies outside the range the tie rules give it (0: inside)."""
        value = THESIS[row]
        return max(self.low[row] - value, value - self.high[row], 0.0)

    def rms(self) -> float:
        """Root mean square of the distances over the 33 rows."""
        return math.sqrt(sum(self.distance(row) ** 2 for row in THESIS) / len(THESIS))

    def reached(self, tolerance: float = 5e-7) -> int:
        """Rows whose thesis value some tie rule reaches (to 6 decimals)."""
        return sum(self.distance(row) <= tolerance for row in THESIS)


def table4(reading: Reading) -> dict[tuple[int, int], float]:
    """Table 4's chances under ``reading``."""
    return {(row.b1, row.b2): row.chance for row in table4_rows(build_table(reading=reading))}


def judge(rules: Reading) -> Judged:
    """``rules`` (its rule switches) over the 16 tie rules."""
    tables = [table4(dataclasses.replace(rules, **dict(zip(TIE_SWITCHES, ties))))
              for ties in itertools.product((False, True), repeat=len(TIE_SWITCHES))]
    return Judged(rules, {row: min(t[row] for t in tables) for row in THESIS},
                  {row: max(t[row] for t in tables) for row in THESIS})


def rule_readings() -> list[Reading]:
    """Every combination of the rule switches."""
    return [Reading(**dict(zip(RULE_SWITCHES, values))) for values in itertools.product((False, True), repeat=3)]


def main(argv: Sequence[str] | None = None) -> None:
    """Print the readings ranked by the rms distance of Table 4's rows outside their tie ranges."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    judged = sorted((judge(rules) for rules in rule_readings()), key=Judged.rms)
    print("| reading (rule switches on) | rows reached by a tie rule | rms outside the tie ranges | 4-4 4-6 4-7 4-8 | 5-7 |")
    print("| --- | --- | --- | --- | --- |")
    for j in judged:
        hands = " ".join(f"{j.distance(row):.4f}" for row in ((4, 4), (4, 6), (4, 7), (4, 8)))
        print(f"| {j.reading.name()} | {j.reached()} of 33 | {j.rms():.4f} | {hands} | {j.distance((5, 7)):.4f} |")


if __name__ == "__main__":
    main()
