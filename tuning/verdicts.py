"""Our win rate against a published one: the difference with its interval, a two-sided test of equal rates, and a
verdict per row of a table under Holm's correction.

A published rate comes with its games (``Published.games``), or with a normal
half-width only: then the games that half-width implies stand for them (said in
the row). The test is the pooled two-proportion z test, or Fisher's exact test
where an expected count is below 5. Over a table's rows, Holm's step-down
correction holds the chance of any false *differs* at 5%. A row whose test
rejects *differs*; one whose test does not reject *agrees* only when the test
could have seen a difference of ``MEANINGFUL`` (10 points) with at least
``POWER`` (80%) chance, and is *inconclusive* otherwise (70 published games
cannot tell 80% from 90%).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gamecore.published import Published
from gamecore.stats import equal_rates_test, holm, implied_games, newcombe_interval, power_to_detect

MEANINGFUL = 0.10  # the difference of rates a row must be able to see before "no difference found" is "agrees"
POWER = 0.80
ALPHA = 0.05


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

    @property
    def interval(self) -> tuple[float, float]:
        return newcombe_interval(self.wins, self.games, self.their_wins, self.their_games)

    @property
    def test(self) -> tuple[float, str]:
        """The two-sided p-value of equal rates and the test's name."""
        return equal_rates_test(self.wins, self.games, self.their_wins, self.their_games)

    @property
    def power(self) -> float:
        """The test's chance to see a difference of ``MEANINGFUL`` from the published rate."""
        return power_to_detect(self.their_wins / self.their_games, MEANINGFUL, self.games, self.their_games)

    def cells(self) -> list[str]:
        """The published count, the difference in points with its 95% interval, the p-value with its test."""
        low, high = self.interval
        p_value, test = self.test
        games = f"{self.their_games:,}" + (" implied" if self.implied else "")
        return [f"{self.their_wins:,} / {games}",
                f"{100 * self.difference:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]",
                f"{p_value:.2g} ({test})"]


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
    row has no rate or neither games nor an interval."""
    if math.isnan(published.win_rate) or games <= 0:
        return None
    count = published_count(published.win_rate, published.interval, published.games)
    if count is None:
        return None
    their_wins, their_games, implied = count
    if "counts" in published.params and published.games:  # a two-player row: the first mover's exact wins
        their_wins = published.params["counts"][0]
    return Comparison(wins, games, their_wins, their_games, implied)


def verdicts(comparisons: list[Comparison | None]) -> list[str]:
    """The verdict of each row of a table (Holm's correction over the rows compared)."""
    compared = [c for c in comparisons if c is not None]
    rejected = iter(holm([c.test[0] for c in compared], ALPHA))
    found = []
    for comparison in comparisons:
        if comparison is None:
            found.append("no published count")
        elif next(rejected):
            found.append("*differs*")
        elif comparison.power < POWER:
            found.append(f"*inconclusive* (power {100 * comparison.power:.0f}%)")
        else:
            found.append("*agrees*")
    return found


NOTE = (f"Verdicts: a two-sided test of equal rates (pooled two-proportion z, or Fisher's exact test where an "
        f"expected count is below 5), Holm's correction over the table's rows at {100 * ALPHA:.0f}%; a row that "
        f"does not differ *agrees* only where the test had {100 * POWER:.0f}% power to see "
        f"{100 * MEANINGFUL:.0f} points, else it is *inconclusive*. Published games marked *implied* are those its "
        "normal half-width implies (z^2 p (1 - p) / h^2).")
