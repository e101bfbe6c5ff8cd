"""Running a study: its one driver (``lotr tune run``) and the workers that join it (``lotr tune worker``).

``run_study(spec)`` is the study's one driver (``storage.driver_lock``). It
opens or creates the Optuna study, closes what a killed earlier invocation
left open (its running trials are failed and queued again, its MLflow runs
closed with their trials' status), lets the sampler prepare the study (a
grid's points are queued), then runs trials in local worker processes until
``n_trials`` of them are complete or pruned, counted over every worker and
invocation, and finally chooses, tests, exports and registers the best
(``tuning.selection``). ``join_study`` adds a worker from any machine.

The parts: ``tuning.study_record`` (the study in its storage, kept true under
faults), ``tuning.samplers`` (how trials are proposed and driven),
``tuning.worker`` (a worker's loop and its faults), ``tuning.supervision``
(the local worker processes), ``tuning.tracking`` (MLflow).

SIGINT or SIGTERM (``agents.interruption``): the driver stops its workers
within seconds; a trial cut short is failed (and queued again), never recorded
as complete; nothing is exported or registered from a partial evaluation. The
command exits 130 (143) saying what was kept and how to resume.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
from pathlib import Path

from optuna.trial import TrialState

from agents.interruption import Interrupted, deferred, stop_signals
from agents.specs import SpecError
from gamecore.redaction import redact
from tuning.samplers import SAMPLERS
from tuning.selection import describe, finish, is_finished
from tuning.storage import check_storage, driver_identity, driver_lock, set_driver, storage_for
from tuning.storage_url import storage_url, trials_folder
from tuning.study_record import StudyResult, close_abandoned, counted, kept, open_study, study_result
from tuning.study_spec import StudySpec
from tuning.supervision import compile_agents, run_workers, share_workers
from tuning.test_seeds import check_one_replicate, check_seed, check_test_seed, record_seed, record_test
from tuning.tracking import Tracker, close_stale_runs, code_version
from tuning.tracking_store import check_tracking_store
from tuning.worker import POLL_SECONDS, TrialContext, work


def run_study(spec: StudySpec, n_trials: int | None = None, workers: int | None = None, storage: str | None = None,
              out: str | Path | None = None, reuse_test_seed: str | None = None) -> StudyResult:
    """Run (or resume) a study as its one driver; then choose, test, export and register the best. A test seed
    that the ledger gives to another claim is refused unless ``reuse_test_seed`` says why (``tuning.test_seeds``)."""
    check_test_seed(spec, reuse_test_seed)
    n_trials = n_trials or spec.n_trials
    workers = workers or spec.workers
    storage = storage_for(spec.name, storage or spec.storage, workers)
    target = Path(out or f"{spec.name}-best.toml")
    check_storage(storage)
    tracking_uri = check_tracking_store(spec.tracking_uri, storage=storage)  # both answer before either is written
    with stop_signals(), driver_lock(storage, spec.name):
        study = open_study(spec, storage)
        with deferred():
            set_driver(study)
        close_abandoned(study, at_start=True)
        with deferred():
            SAMPLERS[spec.sampler].prepare(study, spec)
        tracker = Tracker(tracking_uri, spec.experiment)
        close_stale_runs(tracker, study)
        if is_finished(study, spec, n_trials, target):
            chosen = study.user_attrs.get("selection")
            _record_test(spec, chosen, reuse_test_seed)
            return study_result(spec, study, 0.0, None, chosen, target, already_finished=True,
                                mlflow_view=tracker.view())
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
        start = time.perf_counter()
        try:
            if counted(study) < n_trials or study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
                trial_workers, evaluation_workers = share_workers(spec, workers, n_trials - counted(study))
                context = TrialContext(spec, tracker.tracking_uri, parent, n_trials, time.time(), counted(study),
                                       evaluation_workers=evaluation_workers,
                                       trials_folder=trials_folder(spec.name, storage))
                compile_agents(spec)
                run_workers(context, storage, n_trials, trial_workers, spec.timeout)
            close_stale_runs(tracker, study, keep=parent)
            seconds = time.perf_counter() - start
            selection = finish(spec, study, tracker, parent, workers, target, trials_folder(spec.name, storage))
            _record_test(spec, selection, reuse_test_seed)
        except Interrupted as stop:
            with deferred():
                tracker.end(parent, "KILLED")
                close_stale_runs(tracker, study, keep=parent)
                stop.detail = kept(spec, study, n_trials)
            raise
        except SpecError:
            with deferred():
                tracker.end(parent, "FAILED")
            raise
        tracker.end(parent)
        return study_result(spec, study, seconds, parent, selection, target, mlflow_view=tracker.view())


def run_replicate(replica: StudySpec, workers: int | None = None, storage: str | None = None,
                  reuse_test_seed: str | None = None) -> StudyResult:
    """Run a study's out-of-sample replicate (``StudySpec.replicated``): refused in one line when the ledger gives
    its seed to another claim, and entered in the ledger once run."""
    check_seed(replica, replica.seed, "report.replicate", reuse_test_seed)
    check_one_replicate(replica, reuse_test_seed)
    result = run_study(replica, workers=workers, storage=storage, reuse_test_seed=reuse_test_seed)
    with deferred():
        record_seed(replica, replica.seed, f"out-of-sample replicate: {result.complete} trials of "
                    f"{replica.games:,} games on seed {replica.seed}", reuse_test_seed)
    return result


def _record_test(spec: StudySpec, selection: dict | None, reuse_test_seed: str | None) -> None:
    """The chosen trial's test in the ledger (once per study file and seed)."""
    if selection and selection.get("test", {}).get("seed") == spec.test_seed:
        with deferred():
            record_test(spec, f"trial {selection['trial']}: {describe(selection['test'])}", reuse_test_seed)


def join_study(spec: StudySpec, storage: str, n_trials: int | None = None, wait: float = 600.0) -> int:
    """``lotr tune worker``: run trials of a study that ``lotr tune run`` started (on this or another
    machine), waiting up to ``wait`` seconds for it to start, until its budget is met; returns the trials
    this worker ran."""
    with stop_signals():
        worker = int.from_bytes(os.urandom(4), "little")
        storage = storage_url(storage)
        study = open_study(spec, storage, worker)
        deadline = time.monotonic() + wait
        if "parent_run" not in study.user_attrs:
            print(f"waiting for lotr tune run to start study {spec.name} (up to {wait:.0f} s)", file=sys.stderr,
                  flush=True)
        while "parent_run" not in (attrs := study.user_attrs):
            if time.monotonic() > deadline:
                raise SpecError(f"study {spec.name}: not started within {wait:.0f} s; start it with "
                                f"lotr tune run {spec.source} --storage {redact(storage)}")
            time.sleep(POLL_SECONDS)
        before = len(study.trials)
        n_trials = n_trials or spec.n_trials
        # the tracking store from the study file or the environment, as the driver's: the storage never holds it
        tracking_uri = check_tracking_store(spec.tracking_uri)
        context = TrialContext(spec, tracking_uri, attrs["parent_run"], n_trials, time.time(), counted(study),
                               trials_folder=trials_folder(spec.name, storage))
        try:
            work(context, storage, n_trials, None, worker)
        except Interrupted as stop:
            stop.detail = ("this worker's trial cut short is queued again; the study's other workers go on; "
                           f"join again with: lotr tune worker {spec.source} --storage {redact(storage)}")
            raise
        mine = driver_identity()
        return sum(1 for t in study.get_trials(deepcopy=False)[before:] if t.user_attrs.get("worker") == mine)
