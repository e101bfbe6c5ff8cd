"""Samplers compared on one noisy game objective: the best validated win rate against trials, over sampler seeds.

Run: python benchmarks/bench_samplers.py [--trials 30] [--seeds 5] [--games 200] [--validation-games 2000]
     [--samplers tpe hyperopt random gp cmaes] [--workers 2] [--out docs/samplers.json] [--resume]

Each sampler (``tuning.samplers``: Optuna's TPE, Hyperopt's TPE, random
search, Optuna's GP and CMA-ES) searches ``studies/lotr/mcts-hpo.toml``'s space
for ``--trials`` trials from each of ``--seeds`` sampler seeds, driven by its
own strategy object exactly as a study's worker is, every trial on the same
``--games`` deals (the study file's seed), without pruning (so that every
sampler sees whole trials). After each trial, the incumbent (the best search
win rate so far) is played on the same ``--validation-games`` validation deals
(the study file's validation seed): its validated win rate is the curve, the
figure a researcher gets by choosing after k trials. Runs of (sampler, seed)
go to ``--workers`` processes, seed after seed. The result (every trial,
every incumbent's validated rate) is written to ``--out`` after each run; ``lotr report`` draws it and writes
its section (``tuning.sampler_comparison``). ``--resume`` keeps the runs an
interrupted benchmark wrote to ``--out`` (when its scale is the same) and runs
only the others.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import time
from pathlib import Path

import optuna

from agents.evaluation import evaluate_setup, warm_up
from tuning.samplers import SAMPLERS
from tuning.study_file import load_study
from tuning.study_spec import StudySpec

STUDY = Path(__file__).resolve().parent.parent / "studies" / "lotr" / "mcts-hpo.toml"


class InMemoryLoop:
    """A sampler's trials on an in-memory study, told as they finish (``tuning.samplers.TrialLoop``)."""

    def __init__(self, spec: StudySpec, sampler: str, seed: int, games: int):
        self.spec, self.games, self.n_trials = spec, games, spec.n_trials
        self.study = optuna.create_study(direction="maximize", sampler=SAMPLERS[sampler].optuna_sampler(seed))

    def run(self) -> None:
        while not self.out_of_budget():
            self.run_next()

    def run_next(self) -> None:
        trial = self.study.ask()
        params = {domain.name: domain.suggest(trial) for domain in self.spec.space}
        evaluation = evaluate_setup(self.spec.trial_setup(params), games=self.games, seed=self.spec.seed,
                                    options=self.spec.trial_options(params))
        self.study.tell(trial, evaluation.win_rate)

    def out_of_budget(self) -> bool:
        return len(self.study.trials) >= self.n_trials

    def poll(self) -> None:
        time.sleep(0.1)


def run(job: tuple[str, int, int, int, int]) -> dict:
    """One sampler from one seed: its trials, and after each the incumbent's validated win rate."""
    sampler, seed, trials, games, validation_games = job
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    spec = load_study(STUDY)
    spec = dataclasses.replace(spec, n_trials=trials, sampler=sampler, sampler_seed=seed, pruner="none")
    start = time.perf_counter()
    loop = InMemoryLoop(spec, sampler, seed, games)
    SAMPLERS[sampler].drive(loop, spec, worker=0)
    searched = time.perf_counter() - start
    done = [t for t in loop.study.trials if t.state == optuna.trial.TrialState.COMPLETE][:trials]
    validated: dict[int, float] = {}
    curve, best = [], None
    for t in done:
        if best is None or t.value > best.value:
            best = t
        if best.number not in validated:
            validated[best.number] = evaluate_setup(
                spec.trial_setup(best.params), games=validation_games, seed=spec.validation_seed,
                options=spec.trial_options(best.params)).win_rate
        curve.append(validated[best.number])
    return {"sampler": sampler, "seed": seed, "search_seconds": searched, "seconds": time.perf_counter() - start,
            "trials": [{"number": t.number, "params": t.params, "win_rate": t.value} for t in done],
            "validated": curve}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--games", type=int, default=200, help="deals per trial (the study file's: 200)")
    parser.add_argument("--validation-games", type=int, default=2000)
    parser.add_argument("--samplers", nargs="+", default=["tpe", "hyperopt", "random", "gp", "cmaes"],
                        choices=[name for name in SAMPLERS if name != "grid"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default="docs/samplers.json")
    parser.add_argument("--resume", action="store_true", help="keep the finished runs of an interrupted --out")
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    spec = load_study(STUDY)
    runs, minutes = finished_runs(args, spec) if args.resume else ([], 0.0)
    done = {(r["sampler"], r["seed"]) for r in runs}
    planned = [(sampler, seed) for seed in range(args.seeds) for sampler in args.samplers]
    jobs = [(sampler, seed, args.trials, args.games, args.validation_games)
            for sampler, seed in planned if (sampler, seed) not in done]
    print(f"{len(jobs)} of {len(planned)} runs to go", flush=True)
    if not jobs:
        return
    warm_up(spec.setup, spec.trial_options({}))
    start = time.perf_counter() - 60 * minutes
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        for result in pool.imap_unordered(run, jobs):
            runs.append(result)
            print(f"{result['sampler']:8} seed {result['seed']}: best validated {100 * result['validated'][-1]:.1f}% "
                  f"after {len(result['validated'])} trials ({result['seconds']:.0f} s)", flush=True)
            write(args, spec, runs, len(planned), (time.perf_counter() - start) / 60)
    print(f"wrote {args.out} in {(time.perf_counter() - start) / 60:.1f} minutes")


def scale(args: argparse.Namespace, spec: StudySpec) -> dict:
    """What makes two benchmarks' runs comparable: trials, deals and their seeds."""
    return {"study": STUDY.relative_to(STUDY.parents[1]).as_posix(), "trials": args.trials, "games": args.games,
            "validation_games": args.validation_games, "validation_seed": spec.validation_seed,
            "search_seed": spec.seed}


def finished_runs(args: argparse.Namespace, spec: StudySpec) -> tuple[list[dict], float]:
    """The runs an interrupted benchmark wrote to ``--out`` and the minutes they took; a file of another scale is
    refused in one line."""
    path = Path(args.out)
    if not path.exists():
        return [], 0.0
    written = json.loads(path.read_text())
    differing = [key for key, value in scale(args, spec).items() if written.get(key) != value]
    if differing:
        raise SystemExit(f"--resume: {path} was written at another scale ({', '.join(differing)} differ); "
                         f"give a new --out or the same options")
    return [r for r in written["runs"] if r["sampler"] in args.samplers and r["seed"] < args.seeds], written["minutes"]


def write(args: argparse.Namespace, spec: StudySpec, runs: list[dict], planned: int, minutes: float) -> None:
    """The result so far (after each run, so that a run stopped early keeps the runs it finished)."""
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({
        **scale(args, spec), "seeds": args.seeds, "workers": args.workers, "minutes": round(minutes, 1),
        "runs_planned": planned,
        "runs": sorted(runs, key=lambda r: (args.samplers.index(r["sampler"]), r["seed"]))}, indent=1) + "\n")

if __name__ == "__main__":
    main()
