"""MLflow logging of studies (our own; Optuna's MLflowCallback logs neither parents nor intermediate values).

One experiment per study, one parent run per ``lotr tune run`` invocation,
one child run per trial named ``trial-<n>`` (linked by ``mlflow.parentRunId``,
so workers in other processes attach their trials to the same parent). The
tracking store is created in the parent process before any worker starts.
A told trial's run gets its parameters, metrics, running win rate and
artifacts (``log_trial``); runs left RUNNING by dead processes are closed with
their trials' status (``close_stale_runs``).
The experiment is tagged a model-training one (``EXPERIMENT_KIND``), and a
trial's run ends with its state in its name (``trial-7 pruned``), as a tag and
as a parameter, so that no view shows a pruned or failed trial as a finished one.

Opening a store first checks it (``prepare_tracking_store``): a server or
database that does not answer is a one-line error within ``CHECK_SECONDS``
rather than minutes of MLflow's retries, and a local SQLite store is created
whole or not at all, so that runs started together or interrupted never leave
a half-built store behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import optuna
import requests
from mlflow import MlflowClient, get_tracking_uri
from mlflow.entities import Metric, Param, RunTag
from mlflow.exceptions import MlflowException
from mlflow.store.db.db_types import DATABASE_ENGINES
from mlflow.store.db.utils import _get_latest_schema_revision, _initialize_tables
from mlflow.store.tracking import DEFAULT_LOCAL_FILE_AND_ARTIFACT_PATH
from mlflow.store.tracking.sqlalchemy_store import SqlAlchemyStore
from optuna.trial import FrozenTrial, TrialState
from sqlalchemy import create_engine, event, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool

import gamecore
from agents.interruption import deferred
from agents.specs import SpecError
from gamecore.atomic import atomic_path
from gamecore.redaction import redact
from tuning.storage import sqlite_tables
from tuning.storage_url import local_store
from tuning.study_file import CONTEXT

if TYPE_CHECKING:
    from agents.evaluation import Evaluation

WAIT_SECONDS = 5  # the connect (or answer) timeout of the reachability probe
CHECK_SECONDS = 8  # the whole probe, whatever the HTTP library or database driver does
SQLITE_COMPANIONS = ("-journal", "-wal", "-shm")  # SQLite's side files, which belong to their database file
# What MLflow 3's UI reads to open an experiment as model training (runs, charts, models) and not as GenAI
# (traces, "Evaluations"); its UI also keeps a global workflow type, which ``?workflowType=machine_learning`` sets.
EXPERIMENT_KIND = ("mlflow.experimentKind", "custom_model_development")


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """The git commit of the code, or "unknown"."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False,
            cwd=Path(__file__).resolve().parent,
        )
    except OSError:
        return "unknown"
    return done.stdout.strip() or "unknown"


class Tracker:
    """An MLflow experiment and the runs of one study invocation."""

    def __init__(self, tracking_uri: str | None, experiment: str):
        logging.getLogger("mlflow").setLevel(logging.WARNING)  # not its store-migration chatter
        # not MLflow's own "View run ... at: <tracking URI>" lines: the URI may carry credentials (``view`` is redacted)
        os.environ["MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT"] = "true"
        self.client = MlflowClient(prepare_tracking_store(tracking_uri))
        self.tracking_uri = self.client.tracking_uri
        found = self.client.get_experiment_by_name(experiment)
        key, kind = EXPERIMENT_KIND
        if found is None:
            self.experiment_id = self.client.create_experiment(experiment, tags={key: kind})
        else:
            self.experiment_id = found.experiment_id
            if key not in found.tags:  # an experiment made by an earlier version of this code
                self.client.set_experiment_tag(self.experiment_id, key, kind)

    def view(self) -> str:
        """Where MLflow's UI shows the experiment's runs as model training (its path after ``mlflow ui``'s
        address): MLflow 3.17's UI opens any experiment as GenAI unless told so in the address or by its toggle."""
        return f"{redact(self.tracking_uri)}, at /#/experiments/{self.experiment_id}/runs?workflowType=machine_learning"

    def start_run(self, name: str, tags: dict[str, str], parent: str | None = None) -> str:
        if parent is not None:
            tags = {**tags, "mlflow.parentRunId": parent}
        tags = {key: str(value) for key, value in tags.items()}  # the REST store takes strings only
        return self.client.create_run(self.experiment_id, tags=tags, run_name=name).info.run_id

    def log(self, run_id: str, params: dict | None = None, metrics: dict | None = None, tags: dict | None = None,
            series: dict[str, list[tuple[int, float]]] | None = None) -> None:
        """Params, metrics (step 0), tags and metric series (step, value) in one batch."""
        now = int(time.time() * 1000)
        batch = [Metric(k, float(v), now, 0) for k, v in (metrics or {}).items() if v is not None]
        for key, points in (series or {}).items():
            batch += [Metric(key, float(v), now, int(step)) for step, v in points]
        for start in range(0, max(len(batch), 1), 1000):  # MLflow takes at most 1000 metrics per batch
            self.client.log_batch(
                run_id,
                metrics=batch[start : start + 1000],
                params=[Param(k, str(v)) for k, v in (params or {}).items()] if start == 0 else [],
                tags=[RunTag(k, str(v)) for k, v in (tags or {}).items()] if start == 0 else [],
            )

    def artifact(self, run_id: str, path: Path, folder: str | None = None) -> None:
        self.client.log_artifact(run_id, str(path), folder)

    def end(self, run_id: str, status: str = "FINISHED") -> None:
        self.client.set_terminated(run_id, status)

    def end_trial(self, run_id: str, number: int, state: str, status: str, tags: dict | None = None) -> None:
        """End a trial's run with its ``state`` (complete, pruned, failed, interrupted) shown three ways: the run's
        name (``trial-7 pruned``; a complete trial keeps ``trial-7``), the ``state`` tag and the ``state``
        parameter (a column and an axis of MLflow's charts); ``status`` is MLflow's (FINISHED, FAILED, KILLED)."""
        self.log(run_id, params={"state": state}, tags={"state": state, **(tags or {})})
        self.client.update_run(run_id, name=trial_run_name(number, state))
        self.end(run_id, status)


def trial_run_name(number: int, state: str = "complete") -> str:
    """``trial-7`` for a complete trial, ``trial-7 pruned`` (failed, interrupted) for the others."""
    return f"trial-{number}" if state == "complete" else f"trial-{number} {state}"


STUDY_FILE = "mlflow.tracking_uri in the study file"


def check_tracking_store(tracking_uri: str | None, source: str = STUDY_FILE, storage: str | None = None) -> str:
    """The tracking URI (None: MLFLOW_TRACKING_URI, else MLflow's default) once its server or database answers
    and, for a local SQLite store, the file is absent, complete, or half-built without runs; SpecError otherwise,
    naming where the URI came from (``source`` when it is given). A store that is the study's ``storage``, or a
    file that is no MLflow store, is refused. Creates nothing."""
    uri = tracking_uri or get_tracking_uri()
    origin = uri_origin(tracking_uri, source)
    _check_reachable(uri, origin)
    path = _sqlite_path(uri)
    if path is not None:
        study_store = local_store(storage) if storage else None
        if study_store is not None and study_store.resolve() == path.resolve():
            raise SpecError(f"tracking store {redact(uri)} (from {origin}) is the study's storage; give MLflow a store "
                            "of its own, e.g. sqlite:///mlflow.db")
        _refuse_valuable(path, _store_state(path))
    return uri


def prepare_tracking_store(tracking_uri: str | None) -> str:
    """``check_tracking_store``, then a local SQLite store that is absent or half-built (and holds no runs) is
    built whole: under an exclusive lock on ``<file>.lock``, at a temporary name then renamed into place, a
    half-built one first moved to ``<file>.broken-<timestamp>`` with a line on stderr. Returns the URI."""
    uri = check_tracking_store(tracking_uri)
    path = _sqlite_path(uri)
    if path is None or _is_current(_store_state(path)):
        return uri
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_name(path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process dies
            state = _store_state(path)  # another process may have built it while this one waited
            if _is_current(state):
                return uri
            _refuse_valuable(path, state)
            if state is not None:
                broken = path.with_name(f"{path.name}.broken-{time.strftime('%Y%m%d-%H%M%S')}")
                _move_database(path, broken)
                print(f"{path}: a half-built MLflow store without runs (schema revision {state[0] or 'none'}); "
                      f"moved it to {broken.name} and built a new one", file=sys.stderr)
            _build_store(path)
    except (OSError, MlflowException, SQLAlchemyError) as error:
        raise SpecError(f"{path}: cannot create the MLflow store: {redact(_first_line(error))}") from None
    return uri


def uri_origin(tracking_uri: str | None, source: str = STUDY_FILE) -> str:
    """Where a tracking URI came from: ``source`` (the study file's key, a flag) when it is given, else the
    environment's MLFLOW_TRACKING_URI, else MLflow's default."""
    if tracking_uri:
        return source
    return "MLFLOW_TRACKING_URI" if os.environ.get("MLFLOW_TRACKING_URI") else "MLflow's default"


def _check_reachable(uri: str, origin: str) -> None:
    """SpecError unless the tracking server (http, https) or database (other than SQLite) at ``uri`` answers
    within ``CHECK_SECONDS``; the message names ``origin``, where the URI came from, as what to fix."""
    scheme = uri.partition(":")[0].lower()
    database = scheme.partition("+")[0] in set(DATABASE_ENGINES) - {"sqlite"}  # a dialect may name its driver
    if scheme not in ("http", "https") and not database:
        return
    outcome: list[str | None] = []
    thread = threading.Thread(target=lambda: outcome.append(_probe(uri, database)), daemon=True)
    thread.start()
    thread.join(CHECK_SECONDS)
    failure = outcome[0] if outcome else f"no answer within {CHECK_SECONDS} s"
    if failure is not None:
        fix = f"set {STUDY_FILE}" if origin == "MLflow's default" else f"fix {origin}"
        raise SpecError(f"tracking store {redact(uri)} (from {origin}): {redact(failure)}; start the server or {fix}")


def _probe(uri: str, database: bool) -> str | None:
    """Why the database or tracking server at ``uri`` does not answer, or None when it does: any HTTP answer
    to ``<uri>/health`` counts, so does a TLS handshake (its certificate is MLflow's to judge)."""
    try:
        if database:
            _connect(uri)
        else:
            requests.get(f"{uri.rstrip('/')}/health", timeout=WAIT_SECONDS)
    except requests.exceptions.SSLError:
        return None
    except requests.Timeout:
        return f"no answer within {WAIT_SECONDS} s"
    except requests.ConnectionError as error:  # its message nests urllib3's; the innermost one says why
        return _first_line(getattr(error.args[0], "reason", error) if error.args else error)
    except Exception as error:  # the driver's own: refused, timed out, unknown host, bad credentials, bad URI...
        return _first_line(error)
    return None


def _connect(uri: str) -> None:
    """Open and close one connection to the database at ``uri``; the driver's error when it cannot."""
    backend = make_url(uri).get_backend_name()
    connect_args = {"connect_timeout": WAIT_SECONDS} if backend in ("postgresql", "mysql") else {}
    engine = create_engine(uri, poolclass=NullPool, connect_args=connect_args)
    try:
        engine.connect().close()
    finally:
        engine.dispose()


def _sqlite_path(uri: str) -> Path | None:
    """The file of a local SQLite store (relative to the working directory), or None for any other store."""
    if not uri.lower().startswith("sqlite"):
        return None
    database = make_url(uri).database
    return Path(database).absolute() if database and database != ":memory:" else None


def _store_state(path: Path) -> tuple[str | None, int] | None:
    """The alembic schema revision (None if missing) and number of runs of the SQLite file at ``path``, read
    read-only (once SQLite has rolled back a killed writer's journal, as any open does); None when there is no
    file. SpecError when the file is not an SQLite database."""
    if not path.exists():
        return None
    tables = sqlite_tables(path)
    if tables and "experiments" not in tables and not tables <= _mlflow_tables():
        raise SpecError(f"{path}: an SQLite database of other tables ({', '.join(sorted(tables)[:4])}...), not an "
                        "MLflow store; give mlflow.tracking_uri a store of its own, e.g. sqlite:///mlflow.db")
    try:
        try:
            return _read_state(path, "ro")
        except sqlite3.OperationalError as error:
            if error.sqlite_errorname != "SQLITE_READONLY_ROLLBACK":
                raise
            return _read_state(path, "rw")  # a killed writer's journal, which SQLite rolls back on a writable open
    except sqlite3.Error as error:
        raise SpecError(f"{path}: not a readable SQLite database ({error}); move it away or fix mlflow.tracking_uri "
                        "in the study file") from None


def _read_state(path: Path, mode: str) -> tuple[str | None, int]:
    """``_store_state`` of an existing file, read by a connection of SQLite's ``mode`` (ro, rw)."""
    with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode={mode}", uri=True)) as connection:
        tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        found = connection.execute("SELECT version_num FROM alembic_version").fetchone() \
            if "alembic_version" in tables else None
        revision = found[0] if found else None
        if revision == _head_revision() or "runs" not in tables:
            return revision, 0
        return revision, connection.execute("SELECT COUNT(*) FROM runs").fetchone()[0]


@functools.lru_cache(maxsize=1)
def _mlflow_tables() -> frozenset[str]:
    """The tables of an MLflow store (a half-built one holds some of them)."""
    import mlflow.store.model_registry.dbmodels.models  # noqa: F401  (their tables join the metadata)
    import mlflow.store.tracking.dbmodels.models  # noqa: F401
    from mlflow.store.db.base_sql_model import Base

    return frozenset({*Base.metadata.tables, "alembic_version", "sqlite_sequence"})


@functools.lru_cache(maxsize=1)
def _head_revision() -> str:
    """The schema revision of a complete store of this MLflow."""
    return _get_latest_schema_revision()


def _is_current(state: tuple[str | None, int] | None) -> bool:
    """Whether a store in ``state`` (see ``_store_state``) is complete: at MLflow's head schema revision."""
    return state is not None and state[0] == _head_revision()


def _refuse_valuable(path: Path, state: tuple[str | None, int] | None) -> None:
    """SpecError when the store at ``path`` is not at MLflow's head revision yet holds runs."""
    if state is None or _is_current(state) or not state[1]:
        return
    revision, runs = state
    raise SpecError(f"{path}: an MLflow store at schema revision {revision or 'none'}, not this MLflow's "
                    f"{_head_revision()}, that holds {runs} run(s); back it up and run "
                    f"`mlflow db upgrade sqlite:///{path}`, or move it away")


def _move_database(source: Path, target: Path) -> None:
    """Rename an SQLite file with its side files (a journal left by a killed writer must not meet another file)."""
    for suffix in ("", *SQLITE_COMPANIONS):
        if Path(f"{source}{suffix}").exists():
            os.replace(f"{source}{suffix}", f"{target}{suffix}")


def _build_store(path: Path) -> None:
    """A complete MLflow store (all migrations run) at ``path``, built at ``<file>.init`` and renamed into place;
    the caller holds the lock, so a ``<file>.init`` found there is a killed build's and is removed first.
    The migrations' hundreds of commits do not wait for the disk (a build cut short is thrown away, never
    opened): the finished file is written to disk once, before the rename (2-3 s rather than 6 s at load ~6
    on 2 cores)."""
    temporary = path.with_name(path.name + ".init")
    for suffix in ("", *SQLITE_COMPANIONS):
        Path(f"{temporary}{suffix}").unlink(missing_ok=True)
    engine = create_engine(f"sqlite:///{temporary}", poolclass=NullPool)
    event.listen(engine, "connect", _unsynced)
    try:
        _initialize_tables(engine)
    finally:
        engine.dispose()
    store = SqlAlchemyStore(f"sqlite:///{temporary}", DEFAULT_LOCAL_FILE_AND_ARTIFACT_PATH)  # its first rows
    store.engine.dispose()  # closes the file: the rename then moves a finished database
    with open(temporary, "rb") as built:
        os.fsync(built.fileno())
    os.replace(temporary, path)


def _unsynced(connection: sqlite3.Connection, _record: object) -> None:
    """A connection of the store's build: commits that do not wait for the disk, the undo journal in memory."""
    connection.execute("PRAGMA synchronous = OFF")
    connection.execute("PRAGMA journal_mode = MEMORY")


def _first_line(error: object) -> str:
    """The first line of an error's message, or its type's name when it has none."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def open_to_read(tracking_uri: str | None, source: str) -> MlflowClient:
    """A client of an existing tracking store, for reading: a local SQLite store that is absent or not
    complete is a one-line SpecError (never created), naming where its URI came from (``source`` if given)."""
    uri = check_tracking_store(tracking_uri, source)
    path = _sqlite_path(uri)
    if path is not None and not _is_current(_store_state(path)):
        what = "no such file" if not path.exists() else "not a complete MLflow store"
        raise SpecError(f"tracking store {redact(uri)} (from {uri_origin(tracking_uri, source)}): {what}; give "
                        f"{source} the store the run was logged to, e.g. sqlite:////PATH/mlflow.db or http://HOST:5000")
    return MlflowClient(uri)


def export_run(tracking_uri: str | None, run_id: str, target: Path) -> Path:
    """The agent configuration logged by an MLflow run (a trial's ``agent.toml`` or a study's best), with its
    weights, written to ``target`` (TOML or JSON). Its metadata keeps what the logged file's held (a study's best:
    its test, validation and search figures) and adds the figures the run logged (a trial: its validation and
    test win rates, intervals and games), and the run."""
    import tempfile

    from agents.setup import Setup

    client = open_to_read(tracking_uri, "--tracking-uri")
    try:
        run = client.get_run(run_id)
        names = [a.path for a in client.list_artifacts(run_id)]
    except Exception as error:  # unknown run, unreadable store
        raise SpecError(f"--run-id {run_id}: {redact(_first_line(error))}") from None
    configs = [name for name in names if name.endswith(".toml")]
    if not configs:
        raise SpecError(f"--run-id {run_id}: the run logged no agent configuration")
    with tempfile.TemporaryDirectory() as folder:
        config = Path(client.download_artifacts(run_id, configs[0], folder))
        if "weights" in names:
            for weights in Path(client.download_artifacts(run_id, "weights", folder)).glob("*.pt"):
                weights.replace(config.parent / weights.name)
        logged = Setup.read_mapping(config).get("metadata", {})
        metadata = {**_run_figures(run.data.metrics), **logged, "mlflow_run": logged.get("mlflow_run", run_id)}
        Setup.load(config).dump_with_weights(target, metadata=metadata)
    return target


# MLflow's status of a trial's run: FINISHED is a trial that played all its games; MLflow has no "pruned", and
# its UI shows FINISHED as a green "Finished", so a pruned trial's run ends KILLED (stopped early, by the pruner).
RUN_STATUS = {TrialState.COMPLETE: ("FINISHED", "complete"), TrialState.PRUNED: ("KILLED", "pruned")}


def close_stale_runs(tracker: Tracker, study: optuna.Study, keep: str | None = None) -> None:
    """Close the study's MLflow runs left RUNNING by dead processes: a trial's run with its trial's status
    (``RUN_STATUS``; failed: FAILED on an error, else KILLED), an earlier driver's parent
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
                tracker.end_trial(run.info.run_id, number, state, status)
            else:
                tracker.end(run.info.run_id, status)


def game_metrics(evaluation: Evaluation) -> dict[str, float]:
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


def log_trial(tracker: Tracker, run: str, trial: FrozenTrial, evaluation: Evaluation | None, training: dict,
              state: str, folder: Path | None = None) -> None:
    """The child run of a told trial (as the study records it): parameters, metrics, the running win rate,
    artifacts. A pruned trial's run ends KILLED (``RUN_STATUS``), named ``trial-<n> pruned``, with the same
    ``win_rate`` (its value: the win rate over the games it played, below the best's by the pruners' rule,
    ``tuning.pruners.BehindTheBest``) and ``games_played`` as a complete one, so that every chart of MLflow
    ranks it where it belongs."""
    metrics = dict(training)
    if evaluation is None and trial.values:  # pruned: what it played until it was stopped
        low, high = trial.user_attrs.get("wilson_95", (None, None))
        metrics.update(win_rate=trial.values[0], win_rate_low=low, win_rate_high=high,
                       games_played=trial.user_attrs.get("games", 0))
    if evaluation is not None:
        low, high = evaluation.wilson_95
        metrics.update(win_rate=evaluation.win_rate, win_rate_low=low, win_rate_high=high,
                       seconds_per_game=evaluation.mean_seconds_per_game, games_played=evaluation.games)
        metrics.update({f"ms_per_decision.{s}": v for s, v in evaluation.ms_per_decision.items() if v is not None})
        metrics.update(game_metrics(evaluation))
    tags = {key: str(trial.params[key]) for key in CONTEXT if key in trial.params}
    series = {"intermediate_win_rate": sorted(trial.intermediate_values.items())}
    tracker.log(run, params=trial.params, metrics=metrics, tags=tags, series=series)
    if folder is not None:
        tracker.artifact(run, folder / "agent.toml")
        for weights in folder.glob("*.pt"):
            tracker.artifact(run, weights, "weights")
        if (folder / "curve.csv").is_file():
            log_learning_curve(tracker, run, folder)
    tracker.end_trial(run, trial.number, state, RUN_STATUS[trial.state][0])


def log_learning_curve(tracker: Tracker, run: str, folder: Path) -> None:
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
    with atomic_path(folder / "learning_curve.png") as temporary:
        figure.savefig(temporary, format="png", dpi=110, bbox_inches="tight")
    plt.close(figure)
    tracker.artifact(run, folder / "learning_curve.png")
def _run_figures(metrics: dict[str, float]) -> dict:
    """``<kind>_win_rate``, ``<kind>_wilson_95`` and ``<kind>_games`` of the validation and test figures a trial's
    run logged (``tuning.selection``'s names, as in an export's metadata)."""
    figures = {}
    for kind in ("validation", "test"):
        if f"{kind}_win_rate" in metrics:
            figures[f"{kind}_win_rate"] = metrics[f"{kind}_win_rate"]
            figures[f"{kind}_wilson_95"] = [metrics.get(f"{kind}_low"), metrics.get(f"{kind}_high")]
            if f"{kind}_games" in metrics:
                figures[f"{kind}_games"] = int(metrics[f"{kind}_games"])
    return figures
