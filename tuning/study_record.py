"""The study's record in its Optuna storage: opened and checked, counted, kept true when workers die, summed up.

``open_study`` loads (or creates) the study with its sampler and pruner;
``close_abandoned`` fails (and queues again) the running trials whose worker
is gone, so that the budget is counted over live workers only; ``StudyResult``
is what a run reports; ``export_study`` writes the chosen trial again from the
record without playing a game.
"""

from __future__ import annotations

import contextlib
import os
import socket
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import optuna
from optuna.trial import TrialState

from agents.interruption import deferred
from agents.specs import SpecError
from gamecore.redaction import redact
from gamecore.rng import derive_seed
from tuning.pruners import PRUNERS
from tuning.samplers import SAMPLERS
from tuning.selection import describe_choice, export
from tuning.storage import COUNTED, fail_stale, has_heartbeats, retry, storage_for, storage_object
from tuning.storage_url import local_store
from tuning.study_file import load_study
from tuning.study_spec import StudySpec


def open_study(spec: StudySpec, storage: str, worker: int = 0) -> optuna.Study:
    """Load (or create) the study; an unreachable storage is a one-line SpecError.

    The sampler's seed mixes the study file's seed with the worker's index and
    the number of trials already run, so that workers and resumed runs do not
    repeat each other's suggestions, while a fresh single-worker run is
    reproducible. Each process opens its own storage object."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", message="Heartbeat of storage is supposed to be used with Study.optimize")
    try:
        store = storage_object(storage, spec.liveness, writes=True)
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
        study = optuna.load_study(study_name=spec.name, storage=store,
                                  sampler=SAMPLERS[spec.sampler].optuna_sampler(seed),
                                  pruner=PRUNERS[spec.pruner].make())
    except SpecError:
        raise
    except Exception as error:  # noqa: BLE001  SQLAlchemy, journal and driver errors all mean the same to the user
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise SpecError(f"storage {redact(storage)}: cannot open the study: {redact(reason)}") from None
    if [d.name.lower() for d in study.directions] != spec.directions:
        raise SpecError(f"storage {redact(storage)}: study {spec.name} optimises {study.directions}, "
                        f"the file {spec.directions}")
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


@dataclass
class StudyResult:
    """What a run of a study did and chose (``report()``: its lines for the console)."""

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
    mlflow_view: str | None = None  # where MLflow's UI shows its runs (Tracker.view)

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
        if self.mlflow_view:
            lines.append(f"MLflow: {self.mlflow_view}")
        return "\n".join(lines)


def kept(spec: StudySpec, study: optuna.Study, n_trials: int) -> str:
    """One line for the user: what the record holds after an interruption, and how to resume."""
    states = [t.state for t in study.get_trials(deepcopy=False)]
    complete, pruned = states.count(TrialState.COMPLETE), states.count(TrialState.PRUNED)
    waiting = states.count(TrialState.WAITING)
    return (f"kept {complete} complete and {pruned} pruned trials of {n_trials}"
            + (f"; {waiting} cut short or queued will run first" if waiting else "")
            + f"; nothing exported from a partial evaluation; resume with: lotr tune run {spec.source}")


def study_result(spec, study, seconds, parent, selection, target, already_finished=False,
                 mlflow_view=None) -> StudyResult:
    """The result of a run from the record: its trials' states, the games pruning saved, a Pareto front."""
    trials = study.get_trials(deepcopy=False)
    states = [t.state for t in trials]
    result = StudyResult(spec, len(trials), states.count(TrialState.COMPLETE), states.count(TrialState.PRUNED),
                         states.count(TrialState.FAIL), seconds, parent, selection,
                         target if selection is not None else None, already_finished=already_finished,
                         mlflow_view=mlflow_view)
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
    # reading runs nothing: the caps on how much a study runs do not apply (a study run with --no-limits exports)
    spec = load_study(study, limits=False) if study.endswith(".toml") or Path(study).is_file() else None
    name = spec.name if spec else study
    given = storage or (spec.storage if spec else None)
    url = storage_for(name, given, 1)
    store = local_store(url)
    if store is not None and not store.is_file():
        if given:
            raise SpecError(f"study {name}: storage {redact(given)}: {store.absolute()} does not exist")
        raise SpecError(f"study {name}: no store of it here: looked for {name}.journal and {name}.db in "
                        f"{Path.cwd()}; run this where its lotr tune run ran, or point at it with "
                        f"--storage PATH/{name}.journal (or a .db file, or the server's URL)")
    try:
        opened = optuna.load_study(study_name=name, storage=storage_object(url))
    except KeyError:
        raise SpecError(f"study {name}: not in {redact(url)}") from None
    chosen = opened.user_attrs.get("selection")
    if chosen is None:
        raise SpecError(f"study {name}: no trial chosen yet (its validation and test have not run); "
                        "run lotr tune run on its study file")
    return export(opened, chosen, target)
