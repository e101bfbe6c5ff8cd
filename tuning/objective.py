"""The objective of a trial: the evaluation harness on the study's common deals.

A trial's parameters make a setup; trials with ``rl`` stages train it first
(``training`` section; its deals are disjoint from the evaluation's). The
setup then plays games 0..games-1 of the study's seed. As chunks of games
finish, the trial reports its running win rate (step = games played, after the
training's episodes) and its per-game outcomes so far (the ``outcomes``
attribute, which the paired Wilcoxon pruner compares game by game on the same
deals). RL trials with the median or halving pruner also report their moving
training win rate (step = episodes), so hopeless learning curves stop early.
Two objectives (win rate, seconds per game) are not pruned.

The objective ``best_window`` is the thesis's (section 5.7): the best moving
win rate over ``window`` (1,000) training episodes, the weights of that window
being the trial's network. Its trials report the best window so far to the
pruner (a trial stops when its best so far trails the others' at the same
episode); their network still plays the study's deals, and that win rate is
kept beside (the trial's ``win_rate`` attribute, and ``win_rate`` in MLflow).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import optuna

from agents.evaluation import Evaluation, evaluate_setup, sides
from agents.interruption import deferred
from agents.setup import Setup
from tuning.outcomes import OUTCOMES, GameOutcomes, pack_outcomes
from tuning.pruners import PRUNERS
from tuning.study_spec import StudySpec

REPORTS = 20  # pruning decisions per trial, at most


def run_trial(trial: optuna.Trial, spec: StudySpec, folder: Path,
              workers: int = 1) -> tuple[Setup, Evaluation, dict]:
    """Train (if needed) and evaluate the trial's setup on ``workers`` local processes, reporting to the pruner;
    returns the setup, its evaluation and training figures. Raises ``optuna.TrialPruned`` when the pruner stops
    it."""
    params = {domain.name: domain.suggest(trial) for domain in spec.space}
    setup, options = spec.trial_setup(params), spec.trial_options(params)
    training: dict = {}
    offset = 0  # evaluation steps follow the training's (episodes) for the same pruner
    if setup.has_trained_agents:
        offset = spec.episodes
        from agents.learning.train import train

        def report_training(episodes: int, moving_win_rate: float, best_so_far: float) -> None:
            if len(spec.metrics) == 1 and PRUNERS[spec.pruner].reads_curves:
                with deferred():
                    trial.report(best_so_far if spec.metrics == ("best_window",) else moving_win_rate, episodes)
                if trial.should_prune():
                    raise optuna.TrialPruned()

        window = max(1, min(1000, spec.episodes // 10))
        result = train(spec.trial_training_setup(setup, params), options, spec.episodes, seed=spec.seed,
                       envs=spec.envs, out=folder, window=window, on_window=report_training)
        setup = setup.with_trained(result.setup)
        training = {"training_seconds": result.seconds, "best_training_win_rate": result.best_average}
    played = GameOutcomes(spec.games, len(sides(setup, spec.seat)))
    reported = 0  # games reported to the pruner, in game order

    def report(game_ids: np.ndarray, rewards: np.ndarray) -> None:
        nonlocal reported
        played.add(game_ids, rewards)
        wins = played.prefix()
        if spec.metrics != ("win_rate",) or wins.size <= reported:  # nothing new in game order yet
            return
        reported = wins.size
        with deferred():
            trial.set_user_attr(OUTCOMES, pack_outcomes(wins))
            trial.report(float(wins.mean()), offset + int(wins.size))
        if trial.should_prune():
            raise optuna.TrialPruned()

    evaluation = evaluate_setup(setup, games=spec.games, seed=spec.seed, options=options,
                                workers=workers, on_chunk=report, max_chunk=max(1, spec.games // REPORTS),
                                seats=spec.seat, executor_kind=spec.executor, address=spec.ray_address)
    return setup, evaluation, training


def objective_values(spec: StudySpec, evaluation: Evaluation, training: dict) -> float | tuple[float, ...]:
    """The value(s) Optuna optimises, in ``spec.metrics`` order."""
    measured = {"win_rate": lambda: evaluation.win_rate, "seconds_per_game": lambda: evaluation.mean_seconds_per_game,
                "margin": lambda: evaluation.agent_measure("margin"),
                "best_window": lambda: training["best_training_win_rate"]}
    values = tuple(measured[m]() for m in spec.metrics)
    return values[0] if len(values) == 1 else values
