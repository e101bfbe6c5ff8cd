"""A published result that a game's report rows are compared with (``Game.reproduction.published``)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Published:
    """One published win rate: where it comes from, what it measures and how it was obtained."""

    source: str  # "Table 6.2", "Figure 6.2", ...
    experiment: str  # short key, e.g. "mcts-setups"
    label: str  # the setup's short form: LOTR's "random-mcts-mcts", a two-player game's first-second "dp-random"
    options: dict  # the game options it was measured under (LOTR's {"difficulty": "hard"}); {}: the defaults
    win_rate: float  # percent (NaN where the thesis states no value)
    interval: float | None  # 95 % half-width in percent, if given
    games: int | None  # games behind the figure, if stated
    params: dict = field(default_factory=dict)  # the row's parameters (a two-player game: "counts" of each seat)
    note: str = ""
    maximum: str = ""  # what the figure is the best of, when it is (a training's best window): shown, not tested
