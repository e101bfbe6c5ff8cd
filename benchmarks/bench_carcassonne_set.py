"""Carcassonne: the paper's whole experiment set (its Table III) as study files, timed end to end, each study's
minutes next to the paper's (75,080 minutes on a 336-node cluster).

Each study runs as ``lotr tune run`` would (its stores in the current folder, so ``lotr report`` reads them);
a finished study is not run again. ``--executor ray`` plays every trial's games on a Ray cluster
(``--ray-address``; default a new local instance).

Run: python benchmarks/bench_carcassonne_set.py [--only carcassonne-tuning ...] [--executor ray]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from agents.interruption import Interrupted, stop_signals
from carcassonne_sim.published import TABLE3, TABLE3_MINUTES

STUDIES = Path(__file__).resolve().parent.parent / "studies" / "carcassonne" / "paper"
# each study file of the set, and the rows of Table III it runs
SET = {
    "carcassonne-tuning": ("MCTS vs RA (parameter tuning)",),
    "carcassonne-rave-tuning": ("MCTS-RAVE vs RA (parameter tuning)",),
    "carcassonne-star25-random": ("Star2.5 vs RA",),
    "carcassonne-matches": ("MCTS vs Star2.5", "MCTS-RAVE vs Star2.5"),
    "carcassonne-rave-mcts": ("MCTS-RAVE vs MCTS",),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(SET), help="these studies of the set only")
    parser.add_argument("--executor", choices=("local", "ray"), default="local")
    parser.add_argument("--ray-address", help="--executor ray: the cluster (default: a new local instance)")
    args = parser.parse_args()

    import dataclasses

    from tuning.orchestrator import run_study
    from tuning.study_file import load_study

    total = 0.0
    for name in args.only or SET:
        spec = load_study(STUDIES / f"{name}.toml")
        spec = dataclasses.replace(spec, executor=args.executor, ray_address=args.ray_address)
        start = time.perf_counter()
        result = run_study(spec)
        minutes = (time.perf_counter() - start) / 60
        if result.already_finished:
            print(f"{name}: finished before, not timed (its stores are here; delete them to run it again)")
            continue
        total += minutes
        paper = sum(TABLE3[row][2] for row in SET[name])
        games = spec.games_per_trial * spec.n_trials
        print(f"{name}: {minutes:.1f} min for {games:,} games ({result.complete} trials, {spec.workers} workers, "
              f"{args.executor}); the paper's {' + '.join(SET[name])}: {paper:,} min", flush=True)
    print(f"the studies timed: {total:.1f} min here; the paper's whole Table III: {TABLE3_MINUTES:,} min")


if __name__ == "__main__":
    try:
        with stop_signals():
            main()
    except Interrupted as stop:  # the study's finished trials are kept; run it again to resume
        print(f"interrupted ({stop.signal_name}); {stop.detail or 'run it again to resume'}", file=sys.stderr)
        sys.exit(stop.exit_code)
