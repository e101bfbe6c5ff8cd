"""Samplers and pruners by name: the one place a study file's ``search.sampler`` and ``search.pruner`` are read.

A sampler is made from a seed; a pruner from nothing. Adding one is adding an
entry here (``grid`` and ``hyperopt`` are run by the orchestrator on top of
Optuna's samplers: a grid's points are queued, Hyperopt's draws are queued).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable

import numpy as np
import optuna
from optuna.trial import FrozenTrial, TrialState

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


class PairedWilcoxonPruner(optuna.pruners.BasePruner):
    """Stops a trial that is significantly worse than the best complete trial on the games both played.

    Every trial plays the same deals in the same order, so games pair up. On paired
    win/loss outcomes the Wilcoxon signed-rank test is the exact sign test on the
    discordant games: with ``b`` games only this trial won and ``w`` games only the
    best won, the trial is pruned when P(Binomial(b + w, 1/2) <= b) < ``p_threshold``.
    The per-game outcomes come from the trial's ``outcomes`` attribute, so the
    intermediate values stay free for the running win rate."""

    def __init__(self, p_threshold: float = 0.1, min_games: int = 10):
        self.p_threshold, self.min_games = p_threshold, min_games

    def prune(self, study: optuna.Study, trial: FrozenTrial) -> bool:
        if OUTCOMES not in trial.user_attrs:
            return False
        complete = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                    if OUTCOMES in t.user_attrs]
        if not complete:
            return False
        best = max(complete, key=lambda t: t.values[0])
        mine, theirs = unpack_outcomes(trial.user_attrs[OUTCOMES]), unpack_outcomes(best.user_attrs[OUTCOMES])
        n = min(mine.size, theirs.size)
        if n < self.min_games:
            return False
        only_mine = int(np.sum(mine[:n] & ~theirs[:n]))
        only_theirs = int(np.sum(theirs[:n] & ~mine[:n]))
        return sign_test_p(only_mine, only_mine + only_theirs) < self.p_threshold


def sign_test_p(successes: int, trials: int) -> float:
    """P(Binomial(trials, 1/2) <= successes), exactly."""
    return sum(math.comb(trials, k) for k in range(successes + 1)) / 2**trials


SAMPLERS: dict[str, Callable[[int], optuna.samplers.BaseSampler]] = {
    "tpe": lambda seed: optuna.samplers.TPESampler(seed=seed),
    "hyperopt": lambda seed: optuna.samplers.TPESampler(seed=seed),  # proposals come from Hyperopt's fmin
    "random": lambda seed: optuna.samplers.RandomSampler(seed=seed),
    "grid": lambda seed: optuna.samplers.RandomSampler(seed=seed),  # every point is queued (enqueue_grid)
}
PRUNERS: dict[str, Callable[[], optuna.pruners.BasePruner]] = {
    "wilcoxon": PairedWilcoxonPruner,
    "median": lambda: optuna.pruners.MedianPruner(n_startup_trials=3),
    "halving": lambda: optuna.pruners.SuccessiveHalvingPruner(),
    "none": lambda: optuna.pruners.NopPruner(),
}
