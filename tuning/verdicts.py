"""Our win rate against a published one, judged by two tests: a difference test over the table and an equivalence
test at a margin declared before the run.

A published rate comes with its games (``Published.games``), or with a normal
half-width only: then the games that half-width implies stand for them (said in
the row). Two tests judge each row:

- *difference*: a two-sided test of equal rates (the pooled two-proportion z
  test, or Fisher's exact test where an expected count is below 5), with
  Holm's step-down correction over the table's rows at ``ALPHA``. Each row's
  printed interval of the difference is the one at the level Holm gave it
  (``1 - ALPHA p / p_adjusted``); a row differs exactly when that interval
  excludes 0, so no printed interval that excludes 0 reads as no difference;
- *equivalence*: two one-sided tests at ``ALPHA`` each, i.e. the 90% interval
  of the difference inside the margin (``[report] margin``, ``MARGIN`` points
  by default, declared in the study file before it runs).

Four verdicts: *equivalent*, *differs*, *equivalent, small difference* (both),
*inconclusive* (neither). A table agrees only if every compared row is
equivalent (intersection-union: each row at ``ALPHA``, no correction).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from gamecore.published import Published
from gamecore.stats import equal_rates_test, implied_games, newcombe_interval

ALPHA = 0.05
MARGIN = 3.0  # points of win rate: the equivalence margin of a study file that declares none ([report] margin)


@dataclass(frozen=True)
class Comparison:
    """Our wins and games against the published ones (``implied``: their games from the half-width)."""

    wins: int
    games: int
    their_wins: int
    their_games: int
    implied: bool

    @property
    def difference(self) -> float:
        return self.wins / self.games - self.their_wins / self.their_games

    def interval(self, alpha: float = ALPHA) -> tuple[float, float]:
        """The ``1 - alpha`` interval of the difference (Newcombe's hybrid score interval)."""
        z = NormalDist().inv_cdf(1 - alpha / 2)
        return newcombe_interval(self.wins, self.games, self.their_wins, self.their_games, z)

    @property
    def test(self) -> tuple[float, str]:
        """The two-sided p-value of equal rates and the test's name."""
        return equal_rates_test(self.wins, self.games, self.their_wins, self.their_games)

    def equivalent(self, margin: float) -> bool:
        """Both one-sided tests reject a difference of ``margin`` (points) or more: the 90% interval inside it."""
        low, high = self.interval(2 * ALPHA)
        return -margin / 100 < low and high < margin / 100


@dataclass(frozen=True)
class Judged:
    """A row's verdict and the intervals it used: the difference's at Holm's level, the equivalence's (90%)."""

    verdict: str
    level: float  # the confidence of the difference interval Holm's correction gave the row
    difference: tuple[float, float]
    equivalence: tuple[float, float]
    equivalent: bool

    def cells(self, comparison: Comparison) -> list[str]:
        """The published count, the difference in points with its interval at Holm's level, the 90% interval the
        equivalence test used, the p-value with its test."""
        low, high = self.difference
        eq_low, eq_high = self.equivalence
        p_value, test = comparison.test
        games = f"{comparison.their_games:,}" + (" implied" if comparison.implied else "")
        return [f"{comparison.their_wins:,} / {games}",
                f"{100 * comparison.difference:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}] ({_level(self.level)})",
                f"[{100 * eq_low:+.1f}, {100 * eq_high:+.1f}]",
                f"{p_value:.2g} ({test})"]


def _level(confidence: float) -> str:
    shown = f"{100 * confidence:.2f}".rstrip("0").rstrip(".")
    return f"{shown}%"


def published_count(rate: float, half_width: float | None, games: int | None) -> tuple[int, int, bool] | None:
    """(wins, games, implied) of a published rate in percent with its half-width and games, where known."""
    if games:
        return round(rate * games / 100), games, False
    if half_width and 0 < rate < 100:
        implied = implied_games(rate / 100, half_width / 100)
        return round(rate * implied / 100), implied, True
    return None


def compare(wins: int, games: int, published: Published) -> Comparison | None:
    """Our ``wins`` of ``games`` against a published row (its exact count where the row gives one); None when the
    row has no rate, neither games nor an interval, or is a maximum (the best of many figures is no binomial
    sample: it is shown beside ours, not tested)."""
    if math.isnan(published.win_rate) or games <= 0 or published.maximum:
        return None
    count = published_count(published.win_rate, published.interval, published.games)
    if count is None:
        return None
    their_wins, their_games, implied = count
    if "counts" in published.params and published.games:  # a two-player row: the first mover's exact wins
        their_wins = published.params["counts"][0]
    return Comparison(wins, games, their_wins, their_games, implied)


def holm_levels(p_values: list[float], alpha: float = ALPHA) -> list[float]:
    """The significance level Holm's step-down correction gives each hypothesis, ``alpha p / p_adjusted`` with
    ``p_adjusted`` Holm's adjusted p-value: a hypothesis is rejected exactly when its p-value is below its level."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    levels, running = [0.0] * len(p_values), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        levels[i] = alpha * p_values[i] / running if running > 0 else alpha / len(p_values)
    return levels


def judge(comparisons: list[Comparison | None], margin: float = MARGIN) -> list[Judged | None]:
    """Each compared row's verdict (None where there is no comparison), Holm's correction over the rows compared."""
    compared = [c for c in comparisons if c is not None]
    levels = iter(holm_levels([c.test[0] for c in compared]))
    found: list[Judged | None] = []
    for comparison in comparisons:
        if comparison is None:
            found.append(None)
            continue
        level = next(levels)
        low, high = comparison.interval(level)
        differs, equivalent = (low > 0 or high < 0), comparison.equivalent(margin)
        found.append(Judged(verdict_of(equivalent, differs), 1 - level, (low, high), comparison.interval(2 * ALPHA),
                            equivalent))
    return found


def verdict_of(equivalent: bool, differs: bool) -> str:
    """The four-way verdict of a difference test and an equivalence test."""
    return {(True, False): "*equivalent*", (False, True): "*differs*", (True, True): "*equivalent, small difference*",
            (False, False): "*inconclusive*"}[(equivalent, differs)]


def verdicts(comparisons: list[Comparison | None], margin: float = MARGIN) -> list[str]:
    """The verdict of each row of a table ("no published count" where there is no comparison)."""
    return ["no published count" if j is None else j.verdict for j in judge(comparisons, margin)]


def table_verdict(judged: list[Judged | None], margin: float) -> str:
    """Whether the table agrees: every compared row equivalent (intersection-union), else how many are."""
    compared = [j for j in judged if j is not None]
    if not compared:
        return ""
    equivalent = sum(j.equivalent for j in compared)
    if equivalent == len(compared):
        return f"The table agrees: every compared row is equivalent within ±{margin:g} points."
    return (f"The table does not agree: {equivalent} of {len(compared)} compared rows are equivalent within "
            f"±{margin:g} points.")


JUDGED_HEADING = "How rows are judged"  # the report's section that says it once; each table links to it
JUDGED_LINK = f"[{JUDGED_HEADING.lower()}](#{JUDGED_HEADING.lower().replace(' ', '-')})"  # to that section's anchor


def how_rows_are_judged() -> str:
    """How every section's rows are judged against the published ones (the report says it once)."""
    return ("Each compared row gets two tests at the margin its study file declares before the run (default "
            f"±{MARGIN:g} points of win rate; each section names its own): *equivalent* where the 90% interval of the "
            f"difference lies inside the margin (two one-sided tests at {100 * ALPHA:.0f}%), *differs* where a "
            "two-sided test of equal rates (pooled two-proportion z, or Fisher's exact test where an expected count "
            f"is below 5) rejects under Holm's correction over the table's rows at {100 * ALPHA:.0f}% (the "
            "difference's interval is printed at the level Holm gave the row; it excludes 0 exactly where the row "
            "differs), *equivalent, small difference* where both hold, *inconclusive* where neither does. A table "
            "agrees only if every compared row is equivalent. Published games marked *implied* are those its normal "
            "half-width implies (z^2 p (1 - p) / h^2). A published figure that is a maximum (the best window of many "
            "trainings) is *descriptive*: shown beside ours, not tested as if it were a sample of games.")


def note(margin: float) -> str:
    """The line under a judged table: its margin, and where the report says how rows are judged."""
    return f"Verdicts at a margin of ±{margin:g} points, declared in the study file before the run ({JUDGED_LINK})."


def differing(judged: list[Judged | None]) -> bool:
    """Whether a compared row differs from its published one (*differs*, or *equivalent, small difference*)."""
    return any(j is not None and "differ" in j.verdict for j in judged)
