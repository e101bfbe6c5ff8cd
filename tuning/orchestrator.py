"""Running a study: storage, samplers and pruners, local worker processes, held-out re-evaluation, export.

``run_study(spec)`` opens (or resumes) the Optuna study named in the study file
and runs trials until ``n_trials`` of them are complete or pruned, counted over
every worker and every earlier invocation. Trials left running by an
interrupted invocation are marked failed (and so retried). Each worker asks
for a trial, checks that the budget is not met by trials numbered before it
(otherwise the trial is marked failed as surplus), runs it and tells the
result: the total is exact however many workers share the study.

Storage: the study file's, else ``sqlite:///<name>.db`` for one worker and a
journal file ``<name>.journal`` (process-safe without a server) for several;
``postgresql://...`` for workers on several machines (``lotr tune worker``).
"""

from __future__ import annotations

import datetime
import itertools
import multiprocessing
import os
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import optuna
from optuna.trial import TrialState

from agents.evaluation import evaluate_setup
from agents.setup import Setup
from agents.specs import SpecError
from lotr_sim.rng import derive_seed
from tuning.agent_model import register_agent
from tuning.objective import objective_values, run_trial
from tuning.study_file import CONTEXT, StudySpec
from tuning.study_plots import write_study_figures
from tuning.tracking import Tracker, code_version

COUNTED = (TrialState.COMPLETE, TrialState.PRUNED)
FAILURES_IN_A_ROW = 3  # a worker whose trials keep failing stops instead of spinning


JOURNAL = "journal:"


def storage_for(spec: StudySpec, override: str | None, workers: int, root: Path = Path(".")) -> str:
    """The study's storage: a database URL, or ``journal:<file>`` for Optuna's journal file.

    Without one given, the default store in ``root`` that already holds the study (so that a study
    resumes, exports and reports whatever its first run's worker count), else a journal file for
    several workers and an SQLite file for one."""
    url = override or spec.storage
    if url:
        return url
    journal, database = root / f"{spec.name}.journal", root / f"{spec.name}.db"
    if journal.is_file() or (workers > 1 and not database.is_file()):
        return f"{JOURNAL}{journal}"
    if workers > 1:
        raise SpecError(f"study {spec.name} is in {database} (SQLite, one worker at a time); run it with --workers 1, "
                        "or give --storage")
    return f"sqlite:///{database}"


def local_store(url: str) -> Path | None:
    """The file of a journal or SQLite storage URL (None for a server)."""
    for prefix in (JOURNAL, "sqlite:///"):
        if url.startswith(prefix):
            return Path(url[len(prefix):])
    return None


def storage_object(url: str):
    """What Optuna takes for ``url``: the URL itself, or a journal storage for ``journal:<file>``."""
    if url.startswith(JOURNAL):
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend

        return JournalStorage(JournalFileBackend(url[len(JOURNAL) :]))
    return url


def open_study(spec: StudySpec, storage: str, worker: int = 0) -> optuna.Study:
    """Load (or create) the study; an unreachable storage is a one-line SpecError.

    The sampler's seed mixes the study file's seed with the worker's index and
    the number of trials already run, so that workers and resumed runs do not
    repeat each other's suggestions, while a fresh single-worker run is
    reproducible. Each process opens its own storage object."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)  # WilcoxonPruner
    pruner = {
        "wilcoxon": lambda: optuna.pruners.WilcoxonPruner(p_threshold=0.1),
        "median": lambda: optuna.pruners.MedianPruner(n_startup_trials=3),
        "halving": lambda: optuna.pruners.SuccessiveHalvingPruner(),
        "none": lambda: optuna.pruners.NopPruner(),
    }[spec.pruner]()
    try:
        store = storage_object(storage)
        try:
            existing = len(optuna.load_study(study_name=spec.name, storage=store).get_trials(deepcopy=False))
        except KeyError:
            optuna.create_study(storage=store, study_name=spec.name, load_if_exists=True, directions=spec.directions)
            existing = 0
        seed = int(derive_seed(np.uint64(spec.sampler_seed), np.uint64(existing * 1024 + worker))) % 2**32
        # a grid's points are enqueued (enqueue_grid); Optuna's GridSampler stops studies only inside optimize()
        samplers = optuna.samplers
        sampler = (samplers.TPESampler if spec.sampler in ("tpe", "hyperopt") else samplers.RandomSampler)(seed=seed)
        study = optuna.load_study(study_name=spec.name, storage=store, sampler=sampler, pruner=pruner)
    except Exception as error:  # SQLAlchemy, journal and driver errors all mean the same to the user
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise SpecError(f"storage {storage}: cannot open the study: {reason}") from None
    if [d.name.lower() for d in study.directions] != spec.directions:
        raise SpecError(f"storage {storage}: study {spec.name} optimises {study.directions}, the file {spec.directions}")
    check_space(study, spec)
    return study


def check_space(study: optuna.Study, spec: StudySpec) -> None:
    """A resumed study keeps each parameter's kind and a choice's values (Optuna cannot mix them in one study)."""
    finished = study.get_trials(deepcopy=False, states=COUNTED)
    if not finished:
        return
    for domain in spec.space:
        before = finished[-1].distributions.get(domain.name)
        if before is None:
            continue
        try:
            optuna.distributions.check_distribution_compatibility(before, domain.distribution())
        except ValueError:
            raise SpecError(f"{spec.source}: space.{domain.name} differs from what study {spec.name} began with "
                            f"({before}); keep it, or give the study a new name") from None


def enqueue_grid(study: optuna.Study, spec: StudySpec) -> None:
    """Queue every grid point that no trial has covered or is waiting for (failed points are retried)."""
    names = [d.name for d in spec.space]
    covered = {
        tuple((t.params or t.system_attrs.get("fixed_params", {})).get(n) for n in names)  # waiting: not asked yet
        for t in study.get_trials(deepcopy=False, states=(*COUNTED, TrialState.RUNNING, TrialState.WAITING))
    }
    for point in itertools.product(*(d.choices for d in spec.space)):
        if point not in covered:
            study.enqueue_trial(dict(zip(names, point)))


def counted(study: optuna.Study, before: int | None = None) -> int:
    trials = study.get_trials(deepcopy=False, states=(*COUNTED, TrialState.RUNNING))
    return sum(1 for t in trials if before is None or t.number < before)


@dataclass
class TrialContext:
    """What a worker process needs to run trials (picklable)."""

    spec: StudySpec
    tracking_uri: str
    parent_run: str
    n_trials: int = 0
    started: float = 0.0  # time.time() of the invocation, for the ETA
    done_before: int = 0  # counted trials when the invocation started
    failures_in_a_row: int = 0  # of this worker


def run_one(study: optuna.Study, trial: optuna.Trial, context: TrialContext, tracker: Tracker) -> None:
    """Run, log and tell one trial; print a progress line. SpecError when this worker's trials keep failing."""
    try:
        error = _run_one(study, trial, context, tracker)
    finally:
        print(progress_line(study, context, trial.number), file=sys.stderr, flush=True)
    context.failures_in_a_row = context.failures_in_a_row + 1 if error else 0
    if context.failures_in_a_row >= FAILURES_IN_A_ROW:
        raise SpecError(f"study {context.spec.name}: {FAILURES_IN_A_ROW} trials in a row failed; the last: {error}")


def progress_line(study: optuna.Study, context: TrialContext, number: int) -> str:
    """``trial 12 pruned | 13/30 done (8 pruned), 1 running | best 75.5% [69.1, 80.9] (trial 7) | ETA 25 s``."""
    trials = study.get_trials(deepcopy=False)
    states = [t.state for t in trials]
    done = states.count(TrialState.COMPLETE) + states.count(TrialState.PRUNED)
    line = (f"[{context.spec.name}] trial {number} {trials[number].state.name.lower()} | {done}/{context.n_trials} done "
            f"({states.count(TrialState.PRUNED)} pruned), {states.count(TrialState.RUNNING)} running")
    complete = [t for t in trials if t.state == TrialState.COMPLETE]
    if complete:
        best = max(complete, key=lambda t: t.values[0])
        low, high = best.user_attrs.get("wilson_95", (0.0, 0.0))
        line += f" | best {100 * best.values[0]:.1f}% [{100 * low:.1f}, {100 * high:.1f}] (trial {best.number})"
    new = done - context.done_before
    if new > 0 and done < context.n_trials:
        line += f" | ETA {(time.time() - context.started) / new * (context.n_trials - done):.0f} s"
    return line


def _run_one(study: optuna.Study, trial: optuna.Trial, context: TrialContext, tracker: Tracker) -> str | None:
    """Run, log and tell one trial; the error of a failed trial, else None."""
    spec = context.spec
    folder = Path(f"{spec.name}-trials") / f"trial-{trial.number}"
    folder.mkdir(parents=True, exist_ok=True)
    tags = {
        "setup": spec.setup_label, "difficulty": spec.difficulty, "games": spec.games, "seed": spec.seed,
        "sampler": spec.sampler, "pruner": spec.pruner, "code_version": code_version(), "study": spec.name,
    }
    run = tracker.start_run(f"trial-{trial.number}", tags, parent=context.parent_run)
    try:
        setup, evaluation, training = run_trial(trial, spec, folder)
    except optuna.TrialPruned:
        study.tell(trial, state=TrialState.PRUNED)
        _log_trial(tracker, run, trial, study, None, {}, "pruned")
        return None
    except KeyboardInterrupt:
        study.tell(trial, state=TrialState.FAIL)
        tracker.log(run, tags={"state": "failed"})
        tracker.end(run, "KILLED")
        raise
    except Exception as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        trial.set_user_attr("error", message)
        study.tell(trial, state=TrialState.FAIL)
        tracker.log(run, tags={"state": "failed", "error": message})
        tracker.end(run, "FAILED")
        return message
    setup.dump(folder / "agent.toml")
    trial.set_user_attr("config", setup.to_mapping())
    trial.set_user_attr("wilson_95", list(evaluation.wilson_95))
    trial.set_user_attr("seconds_per_game", evaluation.mean_seconds_per_game)
    trial.set_user_attr("folder", str(folder.resolve()))
    trial.set_user_attr("difficulty", spec.trial_difficulty(trial.params))
    trial.set_user_attr("games", evaluation.games)
    for name, value in training.items():
        trial.set_user_attr(name, value)
    study.tell(trial, objective_values(spec, evaluation))
    _log_trial(tracker, run, trial, study, evaluation, training, "complete", folder)
    return None


def _log_trial(tracker, run, trial, study, evaluation, training, state, folder=None) -> None:
    """The child run of a told trial: parameters, metrics, the running win rate, artifacts."""
    steps = sorted(study.get_trials(deepcopy=False)[trial.number].intermediate_values.items())
    if isinstance(study.pruner, optuna.pruners.WilcoxonPruner):
        wins = np.cumsum([value for _, value in steps])
        series = [(step, wins[k] / (k + 1)) for k, (step, _) in enumerate(steps)]  # running win rate by game
    else:
        series = steps  # already the running win rate
    metrics = dict(training)
    if evaluation is not None:
        low, high = evaluation.wilson_95
        metrics.update(win_rate=evaluation.win_rate, win_rate_low=low, win_rate_high=high,
                       seconds_per_game=evaluation.mean_seconds_per_game, games_played=evaluation.games)
        metrics.update({f"ms_per_decision.{s}": v for s, v in evaluation.ms_per_decision.items() if v is not None})
    tags = {"state": state} | {key: str(trial.params[key]) for key in CONTEXT if key in trial.params}
    tracker.log(run, params=trial.params, metrics=metrics, tags=tags, series={"intermediate_win_rate": series})
    if folder is not None:
        tracker.artifact(run, folder / "agent.toml")
        for weights in folder.glob("*.pt"):
            tracker.artifact(run, weights, "weights")
        if (folder / "curve.csv").is_file():
            _log_learning_curve(tracker, run, folder)
    tracker.end(run, "FINISHED" if state == "complete" else "KILLED")


def _log_learning_curve(tracker: Tracker, run: str, folder: Path) -> None:
    """An RL trial's moving training win rate by episode: a metric series (every 10th episode) and a plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [line.split(",") for line in (folder / "curve.csv").read_text().splitlines()[1:]]
    points = [(int(e), float(a)) for e, _, a in rows if a]
    tracker.log(run, series={"training_moving_win_rate": points[::10]})
    figure, axes = plt.subplots(figsize=(6, 3.5))
    axes.plot([e for e, _ in points], [a for _, a in points])
    axes.set(xlabel="episode", ylabel="moving win rate", title="learning curve")
    figure.savefig(folder / "learning_curve.png", dpi=110, bbox_inches="tight")
    plt.close(figure)
    tracker.artifact(run, folder / "learning_curve.png")


def work(context: TrialContext, storage, n_trials: int, deadline: float | None, worker: int = 0) -> None:
    """A worker: run trials of the study until the budget (or the deadline) is met."""
    spec = context.spec
    study = open_study(spec, storage, worker)
    tracker = Tracker(context.tracking_uri, spec.experiment)
    if spec.sampler == "hyperopt":
        _hyperopt_work(context, study, tracker, n_trials, deadline, worker)
        return
    while deadline is None or time.time() < deadline:
        if counted(study) >= n_trials:
            return
        trial = study.ask()
        if counted(study, before=trial.number) >= n_trials:
            trial.set_user_attr("surplus", "the trial budget was met by other workers")
            study.tell(trial, state=TrialState.FAIL)
            return
        run_one(study, trial, context, tracker)


def _hyperopt_work(context: TrialContext, study: optuna.Study, tracker: Tracker, n_trials: int,
                   deadline: float | None, worker: int) -> None:
    """Hyperopt's TPE (``fmin`` with ``tpe.suggest``, the thesis's choice) proposes; each proposal is
    enqueued as an Optuna trial, so both samplers write the same storage and MLflow layout. A resumed
    run keeps the trials in storage but starts Hyperopt's own history afresh."""
    from hyperopt import STATUS_FAIL, STATUS_OK, Trials, fmin, tpe

    spec = context.spec

    def evaluate(draw: dict) -> dict:
        study.enqueue_trial({d.name: d.from_hyperopt(draw[d.name]) for d in spec.space})
        trial = study.ask()
        run_one(study, trial, context, tracker)
        frozen = study.get_trials(deepcopy=False)[trial.number]
        if frozen.state == TrialState.COMPLETE:
            return {"loss": -frozen.values[0], "status": STATUS_OK}
        if frozen.state == TrialState.PRUNED and frozen.intermediate_values:
            return {"loss": -float(np.mean(list(frozen.intermediate_values.values()))), "status": STATUS_OK}
        return {"status": STATUS_FAIL}

    def met(*_):
        return counted(study) >= n_trials or (deadline is not None and time.time() >= deadline), []

    if not met()[0]:
        seed = int(derive_seed(np.uint64(spec.sampler_seed), np.uint64(len(study.trials) * 1024 + worker)))
        fmin(evaluate, {d.name: d.hyperopt() for d in spec.space}, algo=tpe.suggest, max_evals=n_trials,
             trials=Trials(), rstate=np.random.default_rng(seed), show_progressbar=False, early_stop_fn=met)


def _work_in_process(context, storage, n_trials, deadline, worker) -> None:
    try:
        work(context, storage, n_trials, deadline, worker)
    except KeyboardInterrupt:
        pass
    except SpecError as error:
        print(f"worker {worker}: {error}", file=sys.stderr, flush=True)
        sys.exit(2)


@dataclass
class StudyResult:
    spec: StudySpec
    trials: int
    complete: int
    pruned: int
    failed: int
    seconds: float
    best_number: int | None
    best_search: float | None
    best_holdout: object | None
    parent_run: str
    exported: Path | None
    pareto: list[tuple] | None = None
    games_run: int = 0
    games_saved: int = 0
    model_uri: str | None = None

    def report(self) -> str:
        lines = [
            f"study {self.spec.name}: {self.complete} complete, {self.pruned} pruned, {self.failed} failed "
            f"in {self.seconds:.1f} s"
        ]
        if self.games_saved:
            share = self.games_saved / (self.games_run + self.games_saved)
            lines.append(f"pruning saved {self.games_saved} of {self.games_run + self.games_saved} games ({100 * share:.0f}%)")
        if self.best_number is not None and self.best_holdout is not None:
            h = self.best_holdout
            lines.append(
                f"best: trial {self.best_number}, search win rate {100 * self.best_search:.1f}% "
                f"({self.spec.games} games; optimistic), held-out {100 * h.win_rate:.1f}% "
                f"[{100 * h.wilson_95[0]:.1f}, {100 * h.wilson_95[1]:.1f}] on {h.games} fresh games"
            )
        if self.pareto:
            lines.append("Pareto front (trial: win rate, seconds per game):")
            lines += [f"  {n}: {100 * w:.1f}%, {1000 * t:.2f} ms" for n, w, t in self.pareto]
        if self.exported is not None:
            lines.append(f"exported: {self.exported}; MLflow model {self.model_uri}")
        return "\n".join(lines)


def run_study(spec: StudySpec, n_trials: int | None = None, workers: int | None = None, storage: str | None = None,
              out: str | Path | None = None) -> StudyResult:
    """Run (or resume) a study; re-evaluate its top trials on held-out deals; export the best."""
    n_trials = n_trials or spec.n_trials
    workers = workers or spec.workers
    storage = storage_for(spec, storage, workers)
    study = open_study(spec, storage)
    for stale in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.tell(stale.number, state=TrialState.FAIL)  # left running by an interrupted run: retried
    if spec.sampler == "grid":
        enqueue_grid(study, spec)
    tracker = Tracker(spec.tracking_uri, spec.experiment)  # creates the store before any worker starts
    parent = tracker.start_run(f"{spec.name} {datetime.datetime.now():%Y-%m-%d %H:%M:%S}",
                               {"study": spec.name, "code_version": code_version(), "sampler": spec.sampler})
    tracker.log(parent, params={"n_trials": n_trials, "workers": workers, "games": spec.games, "seed": spec.seed,
                                "difficulty": spec.difficulty,
                                "setup": spec.setup_label if spec.domain("setup") else str(spec.setup)})
    study.set_user_attr("parent_run", parent)  # `lotr tune worker` attaches its trials to it
    study.set_user_attr("tracking_uri", tracker.tracking_uri)
    context = TrialContext(spec, tracker.tracking_uri, parent, n_trials, time.time(), counted(study))
    deadline = time.time() + spec.timeout if spec.timeout else None
    for setup in spec.setups:  # compile here once, not in every worker
        evaluate_setup(setup, spec.difficulty, 1, seed=spec.seed)
    start = time.perf_counter()
    try:
        if workers == 1:
            work(context, storage, n_trials, deadline)
        else:
            processes = [
                multiprocessing.Process(target=_work_in_process, args=(context, storage, n_trials, deadline, w))
                for w in range(workers)
            ]
            for p in processes:
                p.start()
            for p in processes:
                p.join()
            if any(p.exitcode == 2 for p in processes):
                raise SpecError(f"study {spec.name}: workers stopped on failing trials (their messages above)")
    except KeyboardInterrupt:
        tracker.end(parent, "KILLED")
        raise
    except SpecError:
        tracker.end(parent, "FAILED")
        raise
    seconds = time.perf_counter() - start
    result = _finish(spec, study, tracker, parent, seconds, workers, out)
    tracker.end(parent)
    return result


def join_study(spec: StudySpec, storage: str, n_trials: int | None = None) -> int:
    """``lotr tune worker``: run trials of a study that ``lotr tune run`` started (on this or another
    machine) until its budget is met; returns the trials this worker ran."""
    study = open_study(spec, storage, worker=int.from_bytes(os.urandom(4), "little"))
    parent, tracking_uri = study.user_attrs.get("parent_run"), study.user_attrs.get("tracking_uri")
    if parent is None:
        raise SpecError(f"study {spec.name}: not started yet; start it with lotr tune run {spec.source} --storage ...")
    before = len(study.trials)
    n_trials = n_trials or spec.n_trials
    work(TrialContext(spec, tracking_uri, parent, n_trials, time.time(), counted(study)), storage, n_trials, None)
    return len(study.trials) - before


def _finish(spec, study, tracker, parent, seconds, workers, out) -> StudyResult:
    trials = study.get_trials(deepcopy=False)
    states = [t.state for t in trials]
    complete = [t for t in trials if t.state == TrialState.COMPLETE]
    result = StudyResult(spec, len(trials), states.count(TrialState.COMPLETE), states.count(TrialState.PRUNED),
                         states.count(TrialState.FAIL), seconds, None, None, None, parent, None)
    pruned = [t for t in trials if t.state == TrialState.PRUNED]
    played = sum(_games_played(spec, t) for t in pruned)
    result.games_saved = len(pruned) * spec.games - played
    result.games_run = sum(_games_played(spec, t) for t in trials if t.state in COUNTED)
    if complete:
        for path in write_study_figures(study, spec, Path(f"{spec.name}-trials") / "figures"):
            tracker.artifact(parent, path, "figures")
        if len(spec.metrics) > 1:
            result.pareto = [(t.number, *t.values) for t in sorted(study.best_trials, key=lambda t: t.values[1])]
    if not complete or spec.holdout_top_k == 0:
        return result  # nothing to re-evaluate or export
    candidates = study.best_trials if len(spec.metrics) > 1 else complete  # the Pareto front for two objectives
    top = sorted(candidates, key=lambda t: t.values[0], reverse=True)[: spec.holdout_top_k]
    holdouts = []
    for t in top:
        setup = Setup.from_mapping(t.user_attrs["config"], source=f"trial {t.number}")
        difficulty = spec.trial_difficulty(t.params)
        holdouts.append(evaluate_setup(setup, difficulty, spec.holdout_games, seed=spec.holdout_seed, workers=workers))
    k = max(range(len(top)), key=lambda i: holdouts[i].win_rate)
    best, holdout = top[k], holdouts[k]
    result.best_number, result.best_search, result.best_holdout = best.number, best.values[0], holdout
    low, high = holdout.wilson_95
    tracker.log(parent, params={f"best.{name}": v for name, v in best.params.items()},
                metrics={"best_trial": best.number, "best_search_win_rate": best.values[0],
                         "best_holdout_win_rate": holdout.win_rate, "best_holdout_low": low, "best_holdout_high": high})
    held_out = {"win_rate": holdout.win_rate, "wilson_95": list(holdout.wilson_95), "games": holdout.games,
                "seed": spec.holdout_seed}
    study.set_user_attr("best", {"trial": best.number, "holdout": held_out})
    target = Path(out or f"{spec.name}-best.toml")
    export(spec, best, held_out, target)
    tracker.artifact(parent, target)
    result.model_uri = register_agent(tracker.tracking_uri, parent, spec.name, target)
    result.exported = target
    return result


def _games_played(spec: StudySpec, trial) -> int:
    """Games a counted trial played: all of them if complete, up to its last report if pruned."""
    if trial.state == TrialState.COMPLETE or not trial.intermediate_values:
        return spec.games
    last = max(trial.intermediate_values)
    if spec.trains:  # steps: training episodes, then episodes + games played
        return max(0, last - spec.episodes)
    return last + 1 if spec.pruner == "wilcoxon" else last  # a game number, or games played


def export_best(spec: StudySpec, storage: str, target: Path) -> Path:
    """``lotr tune export``: the study's best (chosen on held-out deals by its last run) to ``target``."""
    store = local_store(storage)
    if store is not None and not store.is_file():
        raise SpecError(f"study {spec.name}: {store} does not exist; run lotr tune run {spec.source} here first")
    study = open_study(spec, storage)
    best = study.user_attrs.get("best")
    if best is None:
        raise SpecError(f"study {spec.name}: no held-out best yet; run lotr tune run {spec.source} first")
    export(spec, study.get_trials(deepcopy=False)[best["trial"]], best["holdout"], target)
    return target


def export(spec: StudySpec, trial, holdout: dict, target: Path) -> None:
    """Write the trial's agent configuration with provenance (``holdout``: win_rate, wilson_95, games,
    seed) and its RL weights beside it (``Setup.dump_with_weights``)."""
    setup = Setup.from_mapping(trial.user_attrs["config"], source=f"trial {trial.number}")
    metadata = {
        "study": spec.name, "trial": trial.number, "difficulty": spec.trial_difficulty(trial.params),
        "search_win_rate": trial.values[0], "search_wilson_95": trial.user_attrs["wilson_95"], "search_games": spec.games,
        "search_seed": spec.seed, "holdout_win_rate": holdout["win_rate"], "holdout_wilson_95": holdout["wilson_95"],
        "holdout_games": holdout["games"], "holdout_seed": holdout["seed"], "code_version": code_version(),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
    }
    setup.dump_with_weights(target, metadata=metadata)
