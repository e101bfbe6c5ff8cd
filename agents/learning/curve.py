"""A training's learning curve as its episodes finish: the best moving win rate and the weights then, the progress
bar, and the calls a tuning pruner listens to."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def moving_win_rate(wins, window: int) -> np.ndarray:
    """The win rate of every ``window`` consecutive episodes of ``wins`` (0/1, in episode order), ending at episode
    ``window - 1`` onwards; empty when there are fewer episodes. Exact (the wins are summed as integers), so it does
    not vary by CPU as a float convolution's rounding does."""
    wins = np.asarray(wins, np.int64)
    if wins.size < window:
        return np.empty(0)
    return np.convolve(wins, np.ones(window, np.int64), mode="valid") / window


class Curve:
    """The wins of the finished episodes in finishing order (``wins``), and ``best``: (the best moving win rate over
    ``window`` episodes, the episode count where it ended, ``snapshot()`` taken then). Episodes beyond ``episodes``
    (environments finishing together past the budget) are not counted. Every ``window`` episodes, ``on_window``
    gets (episodes, moving win rate, best moving win rate so far); an exception it raises (a pruner's) propagates."""

    def __init__(self, episodes: int, window: int, snapshot: Callable[[], dict], bar,
                 on_window: Callable[[int, float, float], None] | None):
        self.episodes, self.window, self.snapshot, self.bar, self.on_window = episodes, window, snapshot, bar, on_window
        self.wins: list[int] = []
        self.best: tuple[float, int, dict | None] = (-1.0, -1, None)
        self._in_window = 0  # wins among the last ``window`` episodes

    def add(self, won: bool) -> None:
        if len(self.wins) >= self.episodes:
            return
        self.wins.append(int(won))
        n = len(self.wins)
        self._in_window += int(won) - (self.wins[n - 1 - self.window] if n > self.window else 0)
        if n >= self.window:
            average = self._in_window / self.window
            if average > self.best[0]:
                self.best = (average, n, self.snapshot())
            if self.on_window is not None and n % self.window == 0:
                self.on_window(n, average, self.best[0])
        if self.bar is not None:
            self.bar.update(1)
            if n % 100 == 0:
                self.bar.set_postfix(win=f"{100 * np.mean(self.wins[-self.window:]):.1f}%")
