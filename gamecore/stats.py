"""Win rates: their intervals, the difference of two with its interval and test, the power of that test and
Holm's correction over a table of such tests."""

from __future__ import annotations

import math

Z95 = 1.959963984540054
Z90 = 1.6448536269514715  # a two-sided 90% interval: the equivalence test's (two one-sided tests at 5%)


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default)."""
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def normal_half_width(wins: int, games: int, z: float = Z95) -> float:
    """The thesis's normal-approximation half width, z * sqrt(p (1 - p) / n)."""
    if games <= 0:
        return 1.0
    p = wins / games
    return z * math.sqrt(p * (1 - p) / games)


def newcombe_interval(wins_a: int, games_a: int, wins_b: int, games_b: int, z: float = Z95) -> tuple[float, float]:
    """A 95% interval of the difference of two rates, a - b (Newcombe's hybrid score interval, from the two Wilson
    intervals: good where the counts are small or the rates near 0 or 1, as the Wald interval is not)."""
    p, q = wins_a / games_a, wins_b / games_b
    (low_a, high_a), (low_b, high_b) = wilson_interval(wins_a, games_a, z), wilson_interval(wins_b, games_b, z)
    diff = p - q
    return (diff - math.sqrt((p - low_a) ** 2 + (high_b - q) ** 2),
            diff + math.sqrt((high_a - p) ** 2 + (q - low_b) ** 2))


def implied_games(rate: float, half_width: float, z: float = Z95) -> int:
    """The games a normal-approximation interval ``rate`` +- ``half_width`` (rates) implies: z^2 p (1 - p) / h^2."""
    if half_width <= 0 or not 0 < rate < 1:
        raise ValueError(f"no games are implied by {rate} +- {half_width}")
    return max(1, round(z * z * rate * (1 - rate) / half_width**2))


def equal_rates_test(wins_a: int, games_a: int, wins_b: int, games_b: int) -> tuple[float, str]:
    """The two-sided p-value of equal rates and the test's name: the pooled two-proportion z test, or Fisher's
    exact test where an expected count of the 2x2 table is below 5 (the z test's approximation fails there)."""
    pooled = (wins_a + wins_b) / (games_a + games_b)
    expected = min(games * share for games in (games_a, games_b) for share in (pooled, 1 - pooled))
    if expected < 5:
        from scipy.stats import fisher_exact

        table = [[wins_a, games_a - wins_a], [wins_b, games_b - wins_b]]
        return float(fisher_exact(table, alternative="two-sided").pvalue), "Fisher"
    spread = math.sqrt(pooled * (1 - pooled) * (1 / games_a + 1 / games_b))
    z = (wins_a / games_a - wins_b / games_b) / spread if spread > 0 else 0.0
    return math.erfc(abs(z) / math.sqrt(2)), "z"


def power_to_detect(rate: float, difference: float, games_a: int, games_b: int, z: float = Z95) -> float:
    """The chance that the two-sided test of equal rates at 5% rejects when the rates are ``rate`` and
    ``rate + difference`` (normal approximation), the lower of the two directions that stay in [0, 1]."""
    powers = []
    for other in (rate + difference, rate - difference):
        if not 0 <= other <= 1:
            continue
        spread = math.sqrt(rate * (1 - rate) / games_b + other * (1 - other) / games_a)
        shift = abs(other - rate) / spread if spread > 0 else math.inf
        powers.append(0.5 * math.erfc((z - shift) / math.sqrt(2)))
    return min(powers) if powers else 1.0


def holm(p_values: list[float], alpha: float = 0.05) -> list[bool]:
    """Holm's step-down correction: which of the hypotheses are rejected, the family-wise error held at ``alpha``."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (len(p_values) - rank):
            break
        rejected[i] = True
    return rejected
