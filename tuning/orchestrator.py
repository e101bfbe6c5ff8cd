"""Running a study: the driver, its local workers and remote ones, and a record that stays true under faults.

``run_study(spec)`` (``lotr tune run``) is the study's one driver (``storage.driver_lock``).
It opens or creates the Optuna study, closes what a killed earlier invocation
left open (its running trials are failed and queued again, its MLflow runs
closed with their trials' status), then runs trials in local worker processes
until ``n_trials`` of them are complete or pruned, counted over every worker
and invocation, and finally chooses, tests, exports and registers the best
(``tuning.selection``). ``join_study`` (``lotr tune worker``) adds a worker
from any machine.

Each worker asks for a trial, runs it while its heartbeat thread says it is
alive, and tells the result; a trial numbered after the budget was met is
failed as surplus, so the total is exact. A worker whose trial's heartbeat
stops (killed, machine lost) is noticed by the others, which fail that trial,
queue it again and wait for the running trials before they leave, so the
budget is met without a restart. A dead local worker is replaced by the driver.

SIGINT or SIGTERM (``agents.interruption``): the driver stops its workers
within seconds; a trial cut short is failed (and queued again), never recorded
as complete; nothing is exported or registered from a partial evaluation. The
command exits 130 (143) saying what was kept and how to resume.
"""

from __future__ import annotations

import contextlib
import datetime
import itertools
import multiprocessing
import multiprocessing.connection
import os
import socket
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import optuna
from optuna.trial import TrialState

import gamecore
from agents.evaluation import warm_up
from agents.interruption import Interrupted, deferred, die_with_parent, raise_held, stop_processes, stop_signals
from agents.specs import SpecError
from gamecore.rng import derive_seed
from gamecore.stats import wilson_interval
from tuning.objective import objective_values, run_trial
from tuning.selection import describe_choice, export, finish, is_finished
from tuning.storage import (
    COUNTED,
    Heartbeat,
    check_storage,
    driver_identity,
    driver_lock,
    fail_stale,
    has_heartbeats,
    local_store,
    retry,
    set_driver,
    storage_for,
    storage_object,
)
from tuning.strategies import OUTCOMES, PRUNERS, SAMPLERS, unpack_outcomes
from tuning.study_file import CONTEXT, StudySpec, load_study
from tuning.tracking import Tracker, check_tracking_store, code_version

FAILURES_IN_A_ROW = 3  # a worker whose trials keep failing stops instead of spinning
POLL_SECONDS = 1.0  # a worker waiting for the study to start, or for others' last trials, looks this often


def open_study(spec: StudySpec, storage: str, worker: int = 0) -> optuna.Study:
    """Load (or create) the study; an unreachable storage is a one-line SpecError.

    The sampler's seed mixes the study file's seed with the worker's index and
    the number of trials already run, so that workers and resumed runs do not
    repeat each other's suggestions, while a fresh single-worker run is
    reproducible. Each process opens its own storage object."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", message="Heartbeat of storage is supposed to be used with Study.optimize")
    try:
        store = storage_object(storage, spec.liveness)
        try:
            existing = len(optuna.load_study(study_name=spec.name, storage=store).get_trials(deepcopy=False))
        except KeyError:
            created = optuna.create_study(storage=store, study_name=spec.name, load_if_exists=True,
                                          directions=spec.directions)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                created.set_metric_names(list(spec.metrics))
            existing = 0
        seed = int(derive_seed(np.uint64(spec.sampler_seed), np.uint64(existing * 1024 + worker))) % 2**32
        study = optuna.load_study(study_name=spec.name, storage=store, sampler=SAMPLERS[spec.sampler](seed),
                                  pruner=PRUNERS[spec.pruner]())
    except SpecError:
        raise
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
    """Complete, pruned and running trials (numbered below ``before``)."""
    trials = study.get_trials(deepcopy=False, states=(*COUNTED, TrialState.RUNNING))
    return sum(1 for t in trials if before is None or t.number < before)


def close_abandoned(study: optuna.Study, at_start: bool = False) -> list[int]:
    """Fail (and queue again) the running trials whose worker is gone: a stale heartbeat, a dead process on
    this machine, or, when a driver starts on a storage without heartbeats, any other machine's; returns them."""
    with deferred():
        fail_stale(study)
        here, failed, unwatched = socket.gethostname(), [], at_start and not has_heartbeats(study)
        for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            host, _, pid = str(trial.user_attrs.get("worker", ":")).rpartition(":")
            gone = (host == here and not _alive(pid)) or (unwatched and host != here)
            if gone or (at_start and "worker" not in trial.user_attrs):
                with contextlib.suppress(ValueError, RuntimeError):  # finished meanwhile by its worker
                    study.tell(trial.number, state=TrialState.FAIL)
                    retry(study, trial)
                    failed.append(trial.number)
    return failed


def _alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


RUN_STATUS = {TrialState.COMPLETE: ("FINISHED", "complete"), TrialState.PRUNED: ("FINISHED", "pruned")}


def close_stale_runs(tracker: Tracker, study: optuna.Study, keep: str | None = None) -> None:
    """Close the study's MLflow runs left RUNNING by dead processes: a trial's run with its trial's status
    (complete and pruned: FINISHED; failed: FAILED on an error, else KILLED), an earlier driver's parent
    run KILLED. Runs of trials still running, and ``keep``, stay open."""
    trials = study.get_trials(deepcopy=False)
    runs = tracker.client.search_runs([tracker.experiment_id], "attributes.status = 'RUNNING'", max_results=5000)
    for run in runs:
        tags = run.data.tags
        if tags.get("study") != study.study_name or run.info.run_id == keep:
            continue
        if "mlflow.parentRunId" not in tags:
            status, state = "KILLED", None
        else:
            number = int(tags.get("trial", -1))
            trial = trials[number] if 0 <= number < len(trials) else None
            if trial is not None and trial.state in (TrialState.RUNNING, TrialState.WAITING):
                continue
            error = trial.user_attrs.get("error") if trial is not None else None
            status, state = RUN_STATUS.get(trial.state if trial else None, ("FAILED" if error else "KILLED", "failed"))
        with deferred():
            if state:
                tracker.log(run.info.run_id, tags={"state": state})
            tracker.end(run.info.run_id, status)


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
    evaluation_workers: int = 1  # local processes playing each trial's games


def work(context: TrialContext, storage: str, n_trials: int, deadline: float | None, worker: int = 0) -> None:
    """A worker: run trials of the study until the budget (or the deadline) is met. With heartbeats it stays
    while others' trials run, to take over the trial of one that dies."""
    spec = context.spec
    study = open_study(spec, storage, worker)
    tracker = Tracker(context.tracking_uri, spec.experiment)
    if spec.sampler == "hyperopt":
        _hyperopt_work(context, study, tracker, n_trials, deadline, worker)
        return
    while deadline is None or time.time() < deadline:
        close_abandoned(study)
        trials = study.get_trials(deepcopy=False, states=(*COUNTED, TrialState.RUNNING))
        done = sum(t.state in COUNTED for t in trials)
        if done >= n_trials:
            return
        if len(trials) >= n_trials:  # the rest is running elsewhere
            if not has_heartbeats(study):
                return
            time.sleep(POLL_SECONDS)
            continue
        run_next(study, context, tracker, n_trials)


def run_next(study: optuna.Study, context: TrialContext, tracker: Tracker, n_trials: int) -> optuna.Trial:
    """Ask for the next trial (a queued one first) and run it, or fail it as surplus when trials numbered
    before it already meet the budget (so the total stays exact)."""
    trial = ask(study)
    if counted(study, before=trial.number) >= n_trials:
        with deferred():
            trial.set_user_attr("surplus", "the trial budget was met by other workers")
            study.tell(trial, state=TrialState.FAIL)
        return trial
    run_one(study, trial, context, tracker)
    return trial


def ask(study: optuna.Study) -> optuna.Trial:
    """A new trial, claimed by this process (its identity, start and first heartbeat, for the record and for
    reclaiming). A signal arriving meanwhile stays held: ``run_one`` fails the trial for it."""
    with deferred(release=False):
        trial = study.ask()
        if has_heartbeats(study):
            study._storage.record_heartbeat(trial._trial_id)  # a trial without one could never be found stale
        trial.set_user_attr("worker", driver_identity())
        trial.set_user_attr("started", datetime.datetime.now().isoformat(timespec="seconds"))
        trial.set_user_attr("code_version", code_version())
    return trial


def run_one(study: optuna.Study, trial: optuna.Trial, context: TrialContext, tracker: Tracker) -> None:
    """Run, log and tell one trial; print a progress line. SpecError when this worker's trials keep failing."""
    error = _run_one(study, trial, context, tracker)
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
        if context.spec.metrics[0] == "margin":
            line += f" | best margin {best.values[0]:+.2f} points (trial {best.number})"
        else:
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
        "setup": spec.setup_label, "game": spec.game.name, "games": spec.games, "seed": spec.seed,
        "sampler": spec.sampler, "pruner": spec.pruner, "code_version": code_version(), "study": spec.name,
        "trial": trial.number, "worker": driver_identity(), **spec.trial_options(trial.params),
    }
    run = None
    try:
        with deferred(release=False):
            run = tracker.start_run(f"trial-{trial.number}", tags, parent=context.parent_run)
            trial.set_user_attr("mlflow_run", run)
        raise_held()
        with Heartbeat(study, trial):
            setup, evaluation, training = run_trial(trial, spec, folder, context.evaluation_workers)
    except optuna.TrialPruned:
        with deferred():
            if _tell(study, trial, TrialState.PRUNED, **_played_so_far(study, trial)):
                _log_trial(tracker, run, trial, study, None, {}, "pruned")
            else:
                _discarded(tracker, run, trial)
        return None
    except Interrupted:
        with deferred():
            if _tell(study, trial, TrialState.FAIL, interrupted="stopped by a signal before its games were all played"):
                retry(study, study.get_trials(deepcopy=False)[trial.number])
            if run is not None:
                tracker.log(run, tags={"state": "interrupted"})
                tracker.end(run, "KILLED")
        raise
    except optuna.exceptions.UpdateFinishedTrialError:  # failed by another worker while it played (late heartbeat)
        with deferred():
            _discarded(tracker, run, trial)
        return None
    except Exception as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        with deferred():
            _tell(study, trial, TrialState.FAIL, error=message)
            if run is not None:
                tracker.log(run, tags={"state": "failed", "error": message})
                tracker.end(run, "FAILED")
        return message
    with deferred():
        setup.dump(folder / "agent.toml")
        attrs = {"config": setup.to_mapping(), "wilson_95": list(evaluation.wilson_95),
                 "seconds_per_game": evaluation.mean_seconds_per_game, "folder": str(folder.resolve()),
                 "options": spec.trial_options(trial.params),
                 "games": evaluation.games, "seats": evaluation.seats, "executor": spec.executor,
                 "evaluation_workers": evaluation.workers, **training}
        if _tell(study, trial, TrialState.COMPLETE, objective_values(spec, evaluation), **attrs):
            _log_trial(tracker, run, trial, study, evaluation, training, "complete", folder)
        else:
            _discarded(tracker, run, trial)
    return None


def _played_so_far(study: optuna.Study, trial: optuna.Trial) -> dict:
    """A pruned trial's games and 95% interval over them (its value is its win rate over them)."""
    outcomes = study.get_trials(deepcopy=False)[trial.number].user_attrs.get(OUTCOMES)
    if outcomes is None:
        return {}
    wins = unpack_outcomes(outcomes)
    return {"games": int(wins.size), "wilson_95": list(wilson_interval(int(wins.sum()), int(wins.size)))}


def _tell(study: optuna.Study, trial: optuna.Trial, state: TrialState, values=None, **attrs) -> bool:
    """Set the trial's attributes and tell its end; False when another worker failed it first (its heartbeat
    was late), in which case this result is dropped (the trial was queued again)."""
    try:
        for key, value in attrs.items():
            trial.set_user_attr(key, value)
        study.tell(trial, values, state=state if values is None else None)
    except (optuna.exceptions.UpdateFinishedTrialError, ValueError):  # "Cannot tell a FAIL trial"
        if study.get_trials(deepcopy=False)[trial.number].state.is_finished():
            return False
        raise
    return True


def _discarded(tracker: Tracker, run: str | None, trial: optuna.Trial) -> None:
    reason = "failed by another worker (its heartbeat was late); queued again"
    print(f"trial {trial.number}: {reason}; this result is dropped", file=sys.stderr, flush=True)
    if run is not None:
        tracker.log(run, tags={"state": "failed", "error": reason})
        tracker.end(run, "FAILED")


def game_metrics(evaluation) -> dict[str, float]:
    """The metrics the evaluation's game names (LOTR's loss causes), its draws and each seat's win rate and game
    metrics (``score_first.second``: the first player's score in the games the agent played second)."""
    named = gamecore.load(evaluation.game).metric_names
    metrics = {name: float(evaluation.metrics[name]) for name in named}
    if evaluation.seats:
        metrics["draws"] = float(evaluation.draws)
        for seat, counts in evaluation.seats.items():
            metrics[f"win_rate.{seat}"] = counts["wins"] / max(1, counts["games"])
            metrics.update({f"{name}.{seat}": float(counts["metrics"][name]) for name in named})
        if "margin_first" in named:  # the evaluated agent's score margin over its seats (Carcassonne's Eq. 4)
            metrics["margin"] = evaluation.agent_measure("margin")
    return metrics


def _log_trial(tracker, run, trial, study, evaluation, training, state, folder=None) -> None:
    """The child run of a told trial: parameters, metrics, the running win rate, artifacts. A pruned trial
    ends FINISHED (a normal outcome), tagged ``state = pruned``."""
    frozen = study.get_trials(deepcopy=False)[trial.number]
    metrics = dict(training)
    if evaluation is not None:
        low, high = evaluation.wilson_95
        metrics.update(win_rate=evaluation.win_rate, win_rate_low=low, win_rate_high=high,
                       seconds_per_game=evaluation.mean_seconds_per_game, games_played=evaluation.games)
        metrics.update({f"ms_per_decision.{s}": v for s, v in evaluation.ms_per_decision.items() if v is not None})
        metrics.update(game_metrics(evaluation))
    tags = {"state": state} | {key: str(trial.params[key]) for key in CONTEXT if key in trial.params}
    series = {"intermediate_win_rate": sorted(frozen.intermediate_values.items())}
    tracker.log(run, params=trial.params, metrics=metrics, tags=tags, series=series)
    if folder is not None:
        tracker.artifact(run, folder / "agent.toml")
        for weights in folder.glob("*.pt"):
            tracker.artifact(run, weights, "weights")
        if (folder / "curve.csv").is_file():
            _log_learning_curve(tracker, run, folder)
    tracker.end(run, "FINISHED")


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


def _hyperopt_work(context: TrialContext, study: optuna.Study, tracker: Tracker, n_trials: int,
                   deadline: float | None, worker: int) -> None:
    """Hyperopt's TPE (``fmin`` with ``tpe.suggest``, the thesis's choice) proposes; each proposal is
    queued as an Optuna trial marked with its own key, so both samplers write the same storage and MLflow
    layout. Queued trials of others (retries) that this worker is handed first are run too. A resumed run
    keeps the trials in storage but starts Hyperopt's own history afresh."""
    from hyperopt import STATUS_FAIL, STATUS_OK, Trials, fmin, tpe

    spec = context.spec

    def evaluate(draw: dict) -> dict:
        key = os.urandom(8).hex()
        with deferred():
            study.enqueue_trial({d.name: d.from_hyperopt(draw[d.name]) for d in spec.space},
                                user_attrs={"hyperopt_draw": key})
        while (mine := _draw(study, key)).state == TrialState.WAITING:
            run_next(study, context, tracker, n_trials)
        while mine.state == TrialState.RUNNING:  # another worker was handed it
            time.sleep(POLL_SECONDS)
            mine = _draw(study, key)
        if mine.state == TrialState.COMPLETE:
            return {"loss": -mine.values[0], "status": STATUS_OK}
        if mine.state == TrialState.PRUNED and mine.intermediate_values:
            return {"loss": -mine.intermediate_values[max(mine.intermediate_values)], "status": STATUS_OK}
        return {"status": STATUS_FAIL}

    def met(*_):
        return counted(study) >= n_trials or (deadline is not None and time.time() >= deadline), []

    if not met()[0]:
        seed = int(derive_seed(np.uint64(spec.sampler_seed), np.uint64(len(study.trials) * 1024 + worker)))
        fmin(evaluate, {d.name: d.hyperopt() for d in spec.space}, algo=tpe.suggest, max_evals=n_trials,
             trials=Trials(), rstate=np.random.default_rng(seed), show_progressbar=False, early_stop_fn=met)


def _draw(study: optuna.Study, key: str):
    return next(t for t in reversed(study.get_trials(deepcopy=False)) if t.user_attrs.get("hyperopt_draw") == key)


def _work_in_process(context, storage, n_trials, deadline, worker) -> None:
    """A local worker process: stops on SIGINT/SIGTERM (and with its driver), exits non-zero on errors."""
    die_with_parent()
    with stop_signals():
        try:
            work(context, storage, n_trials, deadline, worker)
        except Interrupted as stop:
            sys.exit(stop.exit_code)
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
    parent_run: str | None
    selection: dict | None = None  # tuning.selection's record of the chosen trial
    exported: Path | None = None
    pareto: list[tuple] | None = None
    games_run: int = 0
    games_saved: int = 0
    already_finished: bool = False

    def report(self) -> str:
        lines = [
            f"study {self.spec.name}: {self.complete} complete, {self.pruned} pruned, {self.failed} failed"
            + (" (already finished: nothing to run)" if self.already_finished else f" in {self.seconds:.1f} s")
        ]
        if self.games_saved:
            share = self.games_saved / (self.games_run + self.games_saved)
            lines.append(f"pruning saved {self.games_saved} of {self.games_run + self.games_saved} games ({100 * share:.0f}%)")
        if self.selection is not None:
            lines.append(f"best: {describe_choice(self.selection)}")
        if self.pareto:
            lines.append("Pareto front (trial: win rate, seconds per game):")
            lines += [f"  {n}: {100 * w:.1f}%, {1000 * t:.2f} ms" for n, w, t in self.pareto]
        if self.exported is not None:
            lines.append(f"exported: {self.exported}; MLflow model {self.selection.get('model', 'not registered')}")
        return "\n".join(lines)


def run_study(spec: StudySpec, n_trials: int | None = None, workers: int | None = None, storage: str | None = None,
              out: str | Path | None = None) -> StudyResult:
    """Run (or resume) a study as its one driver; then choose, test, export and register the best."""
    n_trials = n_trials or spec.n_trials
    workers = workers or spec.workers
    storage = storage_for(spec.name, storage or spec.storage, workers)
    target = Path(out or f"{spec.name}-best.toml")
    check_storage(storage)
    tracking_uri = check_tracking_store(spec.tracking_uri)  # both stores answer before either is written to
    with stop_signals(), driver_lock(storage, spec.name):
        study = open_study(spec, storage)
        with deferred():
            set_driver(study)
        close_abandoned(study, at_start=True)
        if spec.sampler == "grid":
            with deferred():
                enqueue_grid(study, spec)
        tracker = Tracker(tracking_uri, spec.experiment)
        close_stale_runs(tracker, study)
        if is_finished(study, spec, n_trials, target):
            return _result(spec, study, 0.0, None, study.user_attrs.get("selection"), target, already_finished=True)
        with deferred():
            parent = tracker.start_run(
                f"{spec.name} {datetime.datetime.now():%Y-%m-%d %H:%M:%S}",
                {"study": spec.name, "code_version": code_version(), "sampler": spec.sampler,
                 "driver": driver_identity()})
            tracker.log(parent, params={
                "n_trials": n_trials, "workers": workers, "games": spec.games, "seed": spec.seed,
                "game": spec.game.name, "options": spec.options_label or "defaults",
                "validation_seed": spec.validation_seed, "test_seed": spec.test_seed,
                "setup": spec.setup_label if spec.domain("setup") else str(spec.setup)})
            study.set_user_attr("parent_run", parent)  # `lotr tune worker` attaches its trials to it
            study.set_user_attr("tracking_uri", tracker.tracking_uri)
        start = time.perf_counter()
        try:
            if counted(study) < n_trials or study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
                trial_workers, evaluation_workers = share_workers(spec, workers, n_trials - counted(study))
                context = TrialContext(spec, tracker.tracking_uri, parent, n_trials, time.time(), counted(study),
                                       evaluation_workers=evaluation_workers)
                _compile(spec)
                _run_workers(context, storage, n_trials, trial_workers, spec.timeout)
            close_stale_runs(tracker, study, keep=parent)
            seconds = time.perf_counter() - start
            selection = finish(spec, study, tracker, parent, workers, target)
        except Interrupted as stop:
            with deferred():
                tracker.end(parent, "KILLED")
                close_stale_runs(tracker, study, keep=parent)
                stop.detail = _kept(spec, study, n_trials)
            raise
        except SpecError:
            with deferred():
                tracker.end(parent, "FAILED")
            raise
        tracker.end(parent)
        return _result(spec, study, seconds, parent, selection, target)


def share_workers(spec: StudySpec, workers: int, trials_left: int) -> tuple[int, int]:
    """``workers`` local processes as (trials run at once, processes playing each trial's games): fewer trials
    left than workers (a grid of one match) share the rest among their games; a Ray executor spreads the games
    itself."""
    trial_workers = max(1, min(workers, trials_left))
    return trial_workers, workers // trial_workers if spec.executor == "local" else 1


def _compile(spec: StudySpec) -> None:
    """Compile (or load) the agents' code once here, not in every worker, saying so (``warm_up``)."""
    start = time.perf_counter()
    print(f"[{spec.name}] loading the agents' compiled code (compiling on the first run only, about a minute)...",
          file=sys.stderr, flush=True)
    for setup in spec.setups:
        warm_up(setup, spec.trial_options({}))
    print(f"[{spec.name}] ready in {time.perf_counter() - start:.1f} s; running trials", file=sys.stderr, flush=True)


def _run_workers(context: TrialContext, storage: str, n_trials: int, workers: int, timeout: float | None) -> None:
    """``workers`` local worker processes (or this process for one) until the budget is met; a worker that
    dies is replaced (its trial failed and queued again), at most ``workers`` times."""
    deadline = time.time() + timeout if timeout else None
    if workers == 1:
        work(context, storage, n_trials, deadline)
        return
    spawn = lambda w: multiprocessing.Process(  # noqa: E731
        target=_work_in_process, args=(context, storage, n_trials, deadline, w), name=f"worker-{w}")
    processes = {w: spawn(w) for w in range(workers)}
    for process in processes.values():
        process.start()
    replacements, failed = workers, []
    try:
        while alive := [p.sentinel for p in processes.values() if p.is_alive()]:
            multiprocessing.connection.wait(alive, timeout=POLL_SECONDS)
            for w, process in list(processes.items()):
                if process.is_alive() or process.exitcode in (0, None) or w in failed:
                    continue
                if process.exitcode == 2 or replacements == 0:
                    failed.append(w)
                    continue
                close_abandoned(open_study(context.spec, storage))
                print(f"worker {w} died (exit code {process.exitcode}); its trial is queued again and a new worker "
                      "takes its place", file=sys.stderr, flush=True)
                replacements -= 1
                processes[w] = spawn(w)
                processes[w].start()
    except Interrupted:
        stop_processes(list(processes.values()))
        close_abandoned(open_study(context.spec, storage))  # a worker killed inside a long game left its trial running
        raise
    if failed:
        raise SpecError(f"study {context.spec.name}: workers stopped on failing trials (their messages above)")


def _kept(spec: StudySpec, study: optuna.Study, n_trials: int) -> str:
    """One line for the user: what the record holds after an interruption, and how to resume."""
    states = [t.state for t in study.get_trials(deepcopy=False)]
    complete, pruned = states.count(TrialState.COMPLETE), states.count(TrialState.PRUNED)
    waiting = states.count(TrialState.WAITING)
    return (f"kept {complete} complete and {pruned} pruned trials of {n_trials}"
            + (f"; {waiting} cut short or queued will run first" if waiting else "")
            + f"; nothing exported from a partial evaluation; resume with: lotr tune run {spec.source}")


def _result(spec, study, seconds, parent, selection, target, already_finished=False) -> StudyResult:
    trials = study.get_trials(deepcopy=False)
    states = [t.state for t in trials]
    result = StudyResult(spec, len(trials), states.count(TrialState.COMPLETE), states.count(TrialState.PRUNED),
                         states.count(TrialState.FAIL), seconds, parent, selection,
                         target if selection is not None else None, already_finished=already_finished)
    pruned = [t for t in trials if t.state == TrialState.PRUNED]
    result.games_saved = len(pruned) * spec.games_per_trial - sum(_games_played(spec, t) for t in pruned)
    result.games_run = sum(_games_played(spec, t) for t in trials if t.state in COUNTED)
    if len(spec.metrics) > 1 and result.complete:
        result.pareto = [(t.number, *t.values) for t in sorted(study.best_trials, key=lambda t: t.values[1])]
    return result


def _games_played(spec: StudySpec, trial) -> int:
    """Games a counted trial played: all of them if complete, up to its last report if pruned."""
    if trial.state == TrialState.COMPLETE or not trial.intermediate_values:
        return spec.games_per_trial
    last = max(trial.intermediate_values)  # step: games played (after the training's episodes)
    return max(0, last - spec.episodes) if spec.trains else last


def export_study(study: str, storage: str | None, target: Path) -> Path:
    """``lotr tune export``: the study's chosen trial (from a study file, or a study name whose default store
    is here) written again to ``target`` from the record, without playing a game."""
    spec = load_study(study) if study.endswith(".toml") or Path(study).is_file() else None
    name = spec.name if spec else study
    url = storage_for(name, storage or (spec.storage if spec else None), 1)
    store = local_store(url)
    if store is not None and not store.is_file():
        raise SpecError(f"study {name}: {store} does not exist; run lotr tune run on its study file here first")
    try:
        opened = optuna.load_study(study_name=name, storage=storage_object(url))
    except KeyError:
        raise SpecError(f"study {name}: not in {url}") from None
    chosen = opened.user_attrs.get("selection")
    if chosen is None:
        raise SpecError(f"study {name}: no trial chosen yet (its validation and test have not run); "
                        "run lotr tune run on its study file")
    return export(opened, chosen, target)


def join_study(spec: StudySpec, storage: str, n_trials: int | None = None, wait: float = 600.0) -> int:
    """``lotr tune worker``: run trials of a study that ``lotr tune run`` started (on this or another
    machine), waiting up to ``wait`` seconds for it to start, until its budget is met; returns the trials
    this worker ran."""
    with stop_signals():
        worker = int.from_bytes(os.urandom(4), "little")
        study = open_study(spec, storage, worker)
        deadline = time.monotonic() + wait
        if "parent_run" not in study.user_attrs:
            print(f"waiting for lotr tune run to start study {spec.name} (up to {wait:.0f} s)", file=sys.stderr,
                  flush=True)
        while "parent_run" not in (attrs := study.user_attrs):
            if time.monotonic() > deadline:
                raise SpecError(f"study {spec.name}: not started within {wait:.0f} s; start it with "
                                f"lotr tune run {spec.source} --storage {storage}")
            time.sleep(POLL_SECONDS)
        before = len(study.trials)
        n_trials = n_trials or spec.n_trials
        context = TrialContext(spec, attrs["tracking_uri"], attrs["parent_run"], n_trials, time.time(), counted(study))
        try:
            work(context, storage, n_trials, None, worker)
        except Interrupted as stop:
            stop.detail = ("this worker's trial cut short is queued again; the study's other workers go on; "
                           f"join again with: lotr tune worker {spec.source} --storage {storage}")
            raise
        mine = driver_identity()
        return sum(1 for t in study.get_trials(deepcopy=False)[before:] if t.user_attrs.get("worker") == mine)
