"""Pruners by name: the one place a study file's ``search.pruner`` is read.

A pruner is made from nothing; ``reads_curves`` says whether it judges a trial
by its intermediate values alone (so an RL trial's training curve may be
reported to it), where the paired Wilcoxon pruner reads per-game outcomes.
Adding a pruner is adding an entry to ``PRUNERS``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import optuna
from optuna.trial import FrozenTrial, TrialState

from tuning.outcomes import OUTCOMES, unpack_outcomes


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


class BehindTheBest(optuna.pruners.BasePruner):
    """``pruner``, restricted to trials whose running value is below the best complete trial's value: a pruned
    trial's value (its win rate over the games it played, logged as its ``win_rate``) is then always below the
    best's, and no chart ranks a stopped trial above the one it was stopped for."""

    def __init__(self, pruner: optuna.pruners.BasePruner):
        self.pruner = pruner

    def prune(self, study: optuna.Study, trial: FrozenTrial) -> bool:
        verdict = self.pruner.prune(study, trial)  # always asked: a pruner may keep books (halving's rungs)
        complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        if not verdict or trial.last_step is None or not complete:
            return verdict
        return trial.intermediate_values[trial.last_step] < max(t.values[0] for t in complete)


@dataclass(frozen=True)
class Pruner:
    """A pruner's maker, and whether it may be given a training curve (it reads intermediate values alone)."""

    make: Callable[[], optuna.pruners.BasePruner]
    reads_curves: bool


PRUNERS: dict[str, Pruner] = {
    "wilcoxon": Pruner(lambda: BehindTheBest(PairedWilcoxonPruner()), reads_curves=False),
    "median": Pruner(lambda: BehindTheBest(optuna.pruners.MedianPruner(n_startup_trials=3)), reads_curves=True),
    "halving": Pruner(lambda: BehindTheBest(optuna.pruners.SuccessiveHalvingPruner()), reads_curves=True),
    "none": Pruner(optuna.pruners.NopPruner, reads_curves=False),
}
