"""Overhead of tuning itself: ms per trial spent on storage (Optuna) and tracking (MLflow).

Run: python benchmarks/bench_tuning.py [--trials 40]

A study whose trials play one game each (evaluation time well under a
millisecond) on SQLite storage and MLflow's default local store, in a
temporary folder: its wall time per trial is the tuning machinery's own cost
(ask, tell, the heartbeat, the MLflow child run with params, metrics, tags
and the configuration artifact, the exported files). The first trial (compilation and
store creation) is excluded.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import optuna

from tuning.orchestrator import run_study
from tuning.study_file import parse_study


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        study = {
            "name": "overhead", "difficulty": "easy", "setup": "random-mcts-random",
            "space": {"budget": {"int": [1, 4]}}, "objective": {"games": 1},
            "validation": {"top_k": 1, "games": 1}, "test": {"games": 1},
            "search": {"n_trials": 1, "pruner": "none"},
        }
        run_study(parse_study(study, "overhead"))  # compile, create the stores
        start = time.perf_counter()
        run_study(parse_study(study, "overhead"), n_trials=1 + args.trials)
        seconds = time.perf_counter() - start
        trials = optuna.load_study(study_name="overhead", storage="sqlite:///overhead.db").trials[1:]
        per_trial = [(t.datetime_complete - t.datetime_start).total_seconds() for t in trials]
        print(f"overhead  {len(trials)} one-game trials: {1000 * seconds / len(trials):.0f} ms per trial "
              f"including the invocation's parent run, validation and test games, export and registry; "
              f"{1000 * sum(per_trial) / len(per_trial):.0f} ms per trial between ask and tell")


if __name__ == "__main__":
    main()
