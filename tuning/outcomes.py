"""A trial's per-game outcomes: gathered as its chunks of games finish, kept in its ``outcomes`` attribute.

Every trial of a study plays the same deals in the same order, so these are
what the paired pruner (``tuning.pruners``) and the report's paired rows
compare game by game.
"""

from __future__ import annotations

import base64

import numpy as np

OUTCOMES = "outcomes"  # a trial's per-game wins so far, in game order (``pack_outcomes``)


class GameOutcomes:
    """A trial's per-game wins as its chunks of games finish, in whatever order: ``prefix()`` is the wins of the
    games finished from game 0 on, game by game (each seat in turn), the order every trial of a study shares
    whatever its chunk sizes or executor, so the paired pruner compares the same deals."""

    def __init__(self, games: int, sides: int):
        self.won = np.zeros((games, sides), bool)
        self.done = np.zeros((games, sides), bool)

    def add(self, game_ids: np.ndarray, rewards: np.ndarray) -> None:
        """A chunk: ``game_ids`` tiled over the sides, ``rewards`` side after side (``evaluate_setup``)."""
        sides = self.won.shape[1]
        per_side = len(game_ids) // sides
        for k in range(sides):
            games = game_ids[k * per_side: (k + 1) * per_side]
            self.won[games, k] = rewards[k * per_side: (k + 1) * per_side] == 1.0
            self.done[games, k] = True

    def prefix(self) -> np.ndarray:
        finished = self.done.all(axis=1)
        count = len(finished) if finished.all() else int(np.argmin(finished))
        return self.won[:count].ravel()


def pack_outcomes(wins: np.ndarray) -> str:
    """Per-game wins (0/1, game order) as text: the bits packed, base64."""
    return f"{wins.size}:" + base64.b64encode(np.packbits(wins.astype(np.uint8)).tobytes()).decode()


def unpack_outcomes(text: str) -> np.ndarray:
    size, bits = text.split(":", 1)
    return np.unpackbits(np.frombuffer(base64.b64decode(bits), np.uint8))[: int(size)].astype(bool)
