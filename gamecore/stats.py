"""Win-rate intervals."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


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
