"""A study's finished trials as the report reads them (``Measured``, ``StudyRun``): from its Optuna storage, or
from its committed record where the storage is not here.

Stores are not committed (a lost machine takes them), so each time the report
reads a study from its store it also writes the study's *record*,
``records/<name>.json`` beside the report: every complete trial's parameters,
options, setup, counts (per seat where there are seats), times, code version,
its per-game outcomes and learning curve where kept, and the study's choice.
Where the store is not here, the record stands for it, so the report can be
written again, with today's verdicts and figures, from what was measured once.
A study whose store and record are both lost keeps what its export (the
``[report] config`` its study file names) records of its chosen trial: the
report writes that as its record, marked with the export it came from.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import optuna
from optuna.trial import TrialState

from agents.setup import FILE_PARAMS, Setup
from agents.specs import REDUCTION, SpecError
from gamecore.atomic import write_atomically
from gamecore.redaction import redact
from tuning.outcomes import OUTCOMES, pack_outcomes, unpack_outcomes
from tuning.selection import exported_figures
from tuning.storage import storage_for, storage_object
from tuning.storage_url import local_store
from tuning.study_file import load_study
from tuning.study_spec import StudySpec

RECORD_FORMAT = 1


@dataclass
class Measured:
    """One finished trial, as the report reads it."""

    study: str
    number: int
    label: str  # setup short form with oracle-mcts shown as mcts
    oracle: bool
    options: dict  # the game options it played (LOTR's difficulty)
    params: dict
    config: Setup
    win_rate: float
    low: float
    high: float
    games: int
    seconds_per_game: float
    training_seconds: float | None = None
    chosen: dict | None = None  # the study's selection record (validation and test figures), on its chosen trial
    seats: dict = field(default_factory=dict)  # a two-player game: per seat of the evaluated agent, its counts
    objective: float = math.nan  # the study's (first) objective value, when it is not the win rate (a margin)
    outcomes: np.ndarray | None = None  # per-game wins in game order (the paired pruner's record), when kept
    code_version: str | None = None  # the code that ran it (tuning.tracking.code_version), when recorded
    curve: tuple[int, np.ndarray] | None = None  # a trained trial's learning curve: its moving average's window and
    # each training episode's win (its folder's curve.csv), when kept
    metrics: dict = field(default_factory=dict)  # the game's measures of its games (LOTR: rounds by outcome), when kept
    model: dict | None = None  # the model of a paper's code it played, as it ran (Game.reproduction.model), when kept

    @property
    def wins(self) -> int:
        return round(self.win_rate * self.games)

    def value(self, key: str):
        """A searched value, else the trial's setup's value of ``key`` (``questing.encoding`` or ``budget``)."""
        if key in self.params:
            return self.params[key]
        role, _, name = key.rpartition(".")
        for spec in [getattr(self.config, role)] if role else self.config.agents:
            values = spec.as_dict()
            if name == REDUCTION:  # the flags it sets (agents.specs), read from the first
                name = next((flag for flag in values if flag.startswith(f"{REDUCTION}_")), name)
            if name in values:
                return values[name]
        return None


@dataclass
class StudyRun:
    """A study file and what its storage (or its record) holds (``trials`` is None when it has neither)."""

    spec: StudySpec
    trials: list[Measured] | None  # the complete ones
    pareto: list[Measured] = field(default_factory=list)
    pruned: int = 0
    recorded: bool = False  # read from its record, its store not here
    export: str = ""  # the export its chosen trial alone was recovered from, its store and record lost


def read_study(path: Path, root: Path = Path("."), records: Path | None = None, replicate: bool = False) -> StudyRun:
    """The complete trials of a study file's study (``replicate``: of its out-of-sample replicate), from its
    storage (a default local store lies in ``root``), else from its record in ``records`` (``read_record``), else
    its chosen trial from its export (``root`` / its ``[report] config``, ``read_export``); ``trials`` is None
    when there is none of them."""
    spec = load_study(path, limits=False)  # reading runs nothing: the caps on how much a study runs do not apply
    spec = spec.replicated() if replicate else spec
    url = storage_for(spec.name, spec.storage, 1, root)
    local = local_store(url)
    recorded = None if records is None else read_record(spec, records)
    missing = recorded or read_export(spec, root) or StudyRun(spec, None)
    if local is not None and not local.is_file():
        return missing
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        study = optuna.load_study(study_name=spec.name, storage=storage_object(url))
    except KeyError:
        return missing
    except Exception as error:  # noqa: BLE001 - whatever the storage raises is one line naming the study
        reason = redact(str(error).splitlines()[0])
        raise SpecError(f"storage of {spec.name}: cannot read the study: {reason}") from None
    chosen = study.user_attrs.get("selection") or {}
    measured = [_measured(spec, t, chosen) for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]
    run = StudyRun(spec, measured, pruned=len(study.get_trials(deepcopy=False, states=(TrialState.PRUNED,))))
    if len(spec.metrics) > 1:
        front = {t.number for t in study.best_trials}
        run.pareto = [m for m in measured if m.number in front]
    return run


def _measured(spec: StudySpec, trial, chosen: dict) -> Measured:
    config = Setup.from_mapping(trial.user_attrs["config"], source=f"{spec.name} trial {trial.number}")
    low, high = trial.user_attrs["wilson_95"]
    folder = trial.user_attrs.get("folder")
    seats = trial.user_attrs.get("seats", {})
    win_rate = trial.values[0]
    if spec.metrics[0] != "win_rate":  # the win rate of the games the trial played (before it was kept: its seats')
        win_rate = trial.user_attrs.get("win_rate", sum(c["wins"] for c in seats.values())
                                        / max(1, sum(c["games"] for c in seats.values())))
    return Measured(
        study=spec.name, number=trial.number, label=config.short_name.replace("oracle-mcts", "mcts"),
        oracle=config.is_oracle, options=spec.trial_options(trial.params), params=dict(trial.params),
        config=config, win_rate=win_rate, low=low, high=high, objective=trial.values[0],
        games=trial.user_attrs.get("games", spec.games), seconds_per_game=trial.user_attrs["seconds_per_game"],
        metrics=trial.user_attrs.get("metrics", {}), model=trial.user_attrs.get("model"),
        training_seconds=trial.user_attrs.get("training_seconds"),
        chosen=chosen if chosen.get("trial") == trial.number else None, seats=seats,
        outcomes=unpack_outcomes(trial.user_attrs[OUTCOMES]) if OUTCOMES in trial.user_attrs else None,
        code_version=trial.user_attrs.get("code_version"), curve=_curve(Path(folder) if folder else None),
    )


def _curve(folder: Path | None) -> tuple[int, np.ndarray] | None:
    """A trained trial's learning curve from its folder's ``curve.csv`` (``agents.learning.train``): the moving
    average's window (its first full one ends at episode window - 1) and each episode's win; None without one."""
    path = None if folder is None else folder / "curve.csv"
    if path is None or not path.is_file():
        return None
    rows = [line.split(",") for line in path.read_text().splitlines()[1:]]
    window = next((episode + 1 for episode, row in enumerate(rows) if row[2]), None)
    return None if window is None else (window, np.array([row[1] == "1" for row in rows]))


def read_record(spec: StudySpec, folder: Path) -> StudyRun | None:
    """The study's record in ``folder`` (``records/<name>.json``), or None when there is none."""
    path = record_path(spec.name, folder)
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    if data.get("format") != RECORD_FORMAT:
        raise SpecError(f"{path}: format = {data.get('format')!r} is not supported; expected {RECORD_FORMAT}")
    trials = [_from_record(spec, trial) for trial in data["trials"]]
    front = set(data.get("pareto", []))
    return StudyRun(spec, trials, [m for m in trials if m.number in front], data.get("pruned", 0), recorded=True,
                    export=data.get("export", ""))


def write_record(run: StudyRun, folder: Path) -> Path:
    """Write the record of a study read from its store or its export (see the module docstring); return its path."""
    path = record_path(run.spec.name, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"format": RECORD_FORMAT, "study": run.spec.name, "pruned": run.pruned,
            "pareto": [m.number for m in run.pareto], "trials": [_to_record(m) for m in run.trials or []]}
    if run.export:
        data["export"] = run.export
    write_atomically(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def record_path(name: str, folder: Path) -> Path:
    return folder / "records" / f"{name}.json"


def _to_record(m: Measured) -> dict:
    kept = {"code_version": m.code_version} if m.code_version else {}
    if m.model is not None:
        kept["model"] = m.model
    if m.curve is not None:
        kept["curve"] = {"window": m.curve[0], "wins": pack_outcomes(m.curve[1])}
    if m.metrics:
        kept["metrics"] = m.metrics
    return {"number": m.number, "options": m.options, "params": m.params, "config": _portable(m.config.to_mapping()),
            "win_rate": m.win_rate, "interval": [m.low, m.high], "games": m.games,
            "seconds_per_game": None if math.isnan(m.seconds_per_game) else m.seconds_per_game,
            "training_seconds": m.training_seconds, "chosen": m.chosen,
            "seats": m.seats, "objective": None if math.isnan(m.objective) else m.objective,
            "outcomes": None if m.outcomes is None else pack_outcomes(m.outcomes), **kept}


def _portable(config: dict) -> dict:
    """A trial's configuration with the files it names (``FILE_PARAMS``) as another machine can resolve them:
    relative to the working directory (the repository, where studies run) when inside it, else from the study's
    ``<name>-trials`` folder on."""
    portable = dict(config)
    for role, table in config.items():
        if not isinstance(table, dict):
            continue
        for name in FILE_PARAMS:
            value = table.get(name)
            if value and Path(value).is_absolute():
                path = Path(value)
                if path.is_relative_to(Path.cwd()):
                    shown = path.relative_to(Path.cwd())
                else:
                    trials = [i for i, part in enumerate(path.parts) if part.endswith("-trials")]
                    shown = Path(*path.parts[trials[0] if trials else -1:])
                portable[role] = {**portable[role], name: shown.as_posix()}
    return portable


def _from_record(spec: StudySpec, trial: dict) -> Measured:
    config = Setup.from_mapping(trial["config"], source=f"{spec.name} record, trial {trial['number']}")
    low, high = trial["interval"]
    return Measured(
        study=spec.name, number=trial["number"], label=config.short_name.replace("oracle-mcts", "mcts"),
        oracle=config.is_oracle, options=trial["options"], params=trial["params"], config=config,
        win_rate=trial["win_rate"], low=low, high=high, games=trial["games"],
        seconds_per_game=math.nan if trial["seconds_per_game"] is None else trial["seconds_per_game"],
        training_seconds=trial["training_seconds"], chosen=trial["chosen"], seats=trial["seats"],
        objective=math.nan if trial["objective"] is None else trial["objective"],
        outcomes=None if trial["outcomes"] is None else unpack_outcomes(trial["outcomes"]),
        code_version=trial.get("code_version"),
        curve=(trial["curve"]["window"], unpack_outcomes(trial["curve"]["wins"])) if trial.get("curve") else None,
        metrics=trial.get("metrics", {}), model=trial.get("model"),
    )


def read_export(spec: StudySpec, root: Path = Path(".")) -> StudyRun | None:
    """What is left of a study whose store and record are lost: its chosen trial, with its test, validation and
    search figures, as the export its ``[report] config`` names (``root`` / config, committed beside the code)
    records it; None when there is no such file or it is another study's choice (a later stage took its name)."""
    config = spec.report.get("config")
    path = root / config if config else None
    if path is None or not path.is_file():
        return None
    metadata = Setup.read_mapping(path).get("metadata", {})
    chosen = exported_figures(metadata)
    if metadata.get("study") != spec.name or chosen is None:
        return None
    setup = Setup.load(path)
    low, high = chosen["search"]["wilson_95"]
    best = Measured(study=spec.name, number=metadata["trial"], label=setup.short_name.replace("oracle-mcts", "mcts"),
                    oracle=setup.is_oracle, options=metadata.get("options", {}), params={}, config=setup,
                    win_rate=chosen["search"]["win_rate"], low=low, high=high, games=chosen["search"]["games"],
                    seconds_per_game=math.nan, chosen=chosen, code_version=metadata.get("code_version"))
    return StudyRun(spec, [best], export=config)
