"""A worker's loop and its faults: trials asked, run while a heartbeat says the worker lives, and told.

Each worker asks for a trial, runs it while its heartbeat thread says it is
alive, and tells the result; a trial numbered after the budget was met is
failed as surplus, so the total is exact. A worker whose trial's heartbeat
stops (killed, machine lost) is noticed by the others, which fail that trial,
queue it again and wait for the running trials before they leave, so the
budget is met without a restart. A trial failed by another worker while it
played (its heartbeat was late) is dropped by the worker that played it. A
signal (``agents.interruption``) fails the trial it cuts short and queues it
again; it is never recorded as complete.
"""

from __future__ import annotations

import datetime
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import optuna
from optuna.trial import TrialState

from agents.evaluation import json_ready
from agents.interruption import Interrupted, deferred, raise_held
from agents.learning import TrainingDiverged
from agents.specs import SpecError
from gamecore.interface import imported
from gamecore.redaction import redact
from gamecore.stats import wilson_interval
from tuning.objective import objective_values, run_trial
from tuning.outcomes import OUTCOMES, unpack_outcomes
from tuning.samplers import SAMPLERS
from tuning.storage import COUNTED, Heartbeat, driver_identity, has_heartbeats, retry
from tuning.study_record import close_abandoned, counted, open_study
from tuning.study_spec import StudySpec
from tuning.tracking import Tracker, code_version, log_trial

FAILURES_IN_A_ROW = 3  # a worker whose trials keep failing stops instead of spinning
POLL_SECONDS = 1.0  # a worker waiting for the study to start, or for others' last trials, looks this often


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
    trials_folder: Path = Path("trials")  # where each trial's files go (``storage_url.trials_folder``)


class WorkerLoop:
    """One worker's trials of a study, for the sampler that drives them (``tuning.samplers.TrialLoop``)."""

    def __init__(self, study: optuna.Study, context: TrialContext, tracker: Tracker, n_trials: int,
                 deadline: float | None):
        self.study, self.context, self.tracker = study, context, tracker
        self.n_trials, self.deadline = n_trials, deadline

    def run(self) -> None:
        """Run trials until the budget (or the deadline) is met. With heartbeats the worker stays while others'
        trials run, to take over the trial of one that dies."""
        study = self.study
        while self.deadline is None or time.time() < self.deadline:
            close_abandoned(study)
            trials = study.get_trials(deepcopy=False, states=(*COUNTED, TrialState.RUNNING))
            done = sum(t.state in COUNTED for t in trials)
            if done >= self.n_trials:
                return
            if len(trials) >= self.n_trials:  # the rest is running elsewhere
                if not has_heartbeats(study):
                    return
                self.poll()
                continue
            self.run_next()

    def run_next(self) -> None:
        """Ask for the next trial (a queued one first) and run it, or fail it as surplus when trials numbered
        before it already meet the budget (so the total stays exact)."""
        trial = ask(self.study)
        if counted(self.study, before=trial.number) >= self.n_trials:
            with deferred():
                trial.set_user_attr("surplus", "the trial budget was met by other workers")
                self.study.tell(trial, state=TrialState.FAIL)
            return
        run_one(self.study, trial, self.context, self.tracker)

    def out_of_budget(self) -> bool:
        """Whether the counted trials (running ones included) meet the budget, or the deadline passed."""
        return counted(self.study) >= self.n_trials or (self.deadline is not None and time.time() >= self.deadline)

    def poll(self) -> None:
        """Wait a moment for the other workers."""
        time.sleep(POLL_SECONDS)


def work(context: TrialContext, storage: str, n_trials: int, deadline: float | None, worker: int = 0) -> None:
    """A worker: run trials of the study, as its sampler drives them, until the budget (or the deadline) is met."""
    spec = context.spec
    study = open_study(spec, storage, worker)
    loop = WorkerLoop(study, context, Tracker(context.tracking_uri, spec.experiment), n_trials, deadline)
    SAMPLERS[spec.sampler].drive(loop, spec, worker)


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
    error = trials[number].user_attrs.get("error") if trials[number].state == TrialState.FAIL else None
    line = (f"[{context.spec.name}] trial {number} {trials[number].state.name.lower()}"
            f"{f' ({error})' if error else ''} | {done}/{context.n_trials} done "
            f"({states.count(TrialState.PRUNED)} pruned), {states.count(TrialState.RUNNING)} running")
    complete = [t for t in trials if t.state == TrialState.COMPLETE]
    if complete:
        best = max(complete, key=lambda t: t.values[0])
        if context.spec.metrics[0] == "margin":
            line += f" | best margin {best.values[0]:+.2f} points (trial {best.number})"
        elif context.spec.metrics[0] == "best_window":
            line += f" | best training window {100 * best.values[0]:.1f}% (trial {best.number})"
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
    folder = context.trials_folder / f"trial-{trial.number}"
    tags = {
        "setup": spec.setup_label, "game": spec.game.name, "games": spec.games, "seed": spec.seed,
        "sampler": spec.sampler, "pruner": spec.pruner, "code_version": code_version(), "study": spec.name,
        "trial": trial.number, "worker": driver_identity(), **spec.trial_options(trial.params),
    }
    run = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with deferred(release=False):
            run = tracker.start_run(f"trial-{trial.number}", tags, parent=context.parent_run)
            trial.set_user_attr("mlflow_run", run)
        raise_held()
        with Heartbeat(study, trial):
            setup, evaluation, training = run_trial(trial, spec, folder, context.evaluation_workers)
        model = played_model(spec, trial.params, setup)  # as it ran; an error here fails the trial like the others
    except optuna.TrialPruned:
        with deferred():
            if _tell(study, trial, TrialState.PRUNED, **_played_so_far(study, trial)):
                log_trial(tracker, run, study.get_trials(deepcopy=False)[trial.number], None, {}, "pruned")
            else:
                _discarded(tracker, run, trial)
        return None
    except Interrupted:
        with deferred():
            if _tell(study, trial, TrialState.FAIL, interrupted="stopped by a signal before its games were all played"):
                retry(study, study.get_trials(deepcopy=False)[trial.number])
            if run is not None:
                tracker.end_trial(run, trial.number, "interrupted", "KILLED")
        raise
    except optuna.exceptions.UpdateFinishedTrialError:  # failed by another worker while it played (late heartbeat)
        with deferred():
            _discarded(tracker, run, trial)
        return None
    except TrainingDiverged as error:  # its hyperparameters', not this worker's fault: failed, and the study goes on
        with deferred():
            _fail(study, trial, tracker, run, str(error))
        return None
    except Exception as error:  # noqa: BLE001  any error of a trial fails that trial, in one line, not the study
        message = redact(str(error).splitlines()[0] if str(error) else type(error).__name__)
        with deferred():
            _fail(study, trial, tracker, run, message)
        return message
    with deferred():
        try:
            setup.dump(folder / "agent.toml", metadata={"options": spec.trial_options(trial.params)})
        except OSError as error:  # a full disk, a folder gone: the trial fails with its reason, never stays RUNNING
            message = f"cannot write {folder / 'agent.toml'}: {error.strerror or error}"
            _fail(study, trial, tracker, run, message)
            return message
        attrs = {"config": setup.to_mapping(), "win_rate": evaluation.win_rate, "wilson_95": list(evaluation.wilson_95),
                 "seconds_per_game": evaluation.mean_seconds_per_game, "folder": str(folder.resolve()),
                 "options": spec.trial_options(trial.params),
                 "games": evaluation.games, "seats": evaluation.seats, "metrics": json_ready(evaluation.metrics),
                 "model": model, "executor": spec.executor,
                 "evaluation_workers": evaluation.workers, **training}
        if _tell(study, trial, TrialState.COMPLETE, objective_values(spec, evaluation, training), **attrs):
            log_trial(tracker, run, study.get_trials(deepcopy=False)[trial.number], evaluation, training, "complete",
                      folder)
        else:
            _discarded(tracker, run, trial)
    return None


def played_model(spec: StudySpec, params: dict, setup) -> dict | None:
    """The model of a paper's code that the trial played (``Game.reproduction.model``: its rules, switches and the
    digest of the code that played them, taken now, as it runs), or None."""
    model = spec.game.reproduction.model
    return imported(model)(spec.trial_options(params), setup.to_mapping()) if model else None


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


def _fail(study: optuna.Study, trial: optuna.Trial, tracker: Tracker, run: str | None, message: str) -> None:
    """Fail the trial with ``message`` in the record, and its MLflow run with it."""
    _tell(study, trial, TrialState.FAIL, error=message)
    if run is not None:
        tracker.end_trial(run, trial.number, "failed", "FAILED", tags={"error": message})


def _discarded(tracker: Tracker, run: str | None, trial: optuna.Trial) -> None:
    reason = "failed by another worker (its heartbeat was late); queued again"
    print(f"trial {trial.number}: {reason}; this result is dropped", file=sys.stderr, flush=True)
    if run is not None:
        tracker.end_trial(run, trial.number, "failed", "FAILED", tags={"error": reason})
