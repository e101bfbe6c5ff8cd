"""Opening an MLflow tracking store: checked first, created whole.

A server or database that does not answer is a one-line error within
``CHECK_SECONDS`` rather than minutes of MLflow's retries; a store that is
the study's own storage, or a file that is no MLflow store, is refused; a
local SQLite store is created whole or not at all (built at a temporary name
under a lock, then renamed; its migrations copied from a migrated file kept in
gametune's cache folder, built once), so that runs started together or interrupted
never leave a half-built store behind; a half-built one without runs is moved
aside and rebuilt, one with runs refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shutil
import sqlite3
import sys
import threading
import time
from pathlib import Path

import requests
from mlflow import MlflowClient, get_tracking_uri
from mlflow.exceptions import MlflowException
from mlflow.store.db.db_types import DATABASE_ENGINES
from mlflow.store.db.utils import _get_latest_schema_revision, _initialize_tables
from mlflow.store.tracking import DEFAULT_LOCAL_FILE_AND_ARTIFACT_PATH
from mlflow.store.tracking.sqlalchemy_store import SqlAlchemyStore
from sqlalchemy import create_engine, event, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool

from agents.specs import SpecError
from gamecore.cache_folder import cache_folder
from gamecore.redaction import redact, remember
from tuning.storage import sqlite_tables
from tuning.storage_url import local_store

WAIT_SECONDS = 5  # the connect (or answer) timeout of the reachability probe
CHECK_SECONDS = 8  # the whole probe, whatever the HTTP library or database driver does
SQLITE_COMPANIONS = ("-journal", "-wal", "-shm")  # SQLite's side files, which belong to their database file


STUDY_FILE = "mlflow.tracking_uri in the study file"


def check_tracking_store(tracking_uri: str | None, source: str = STUDY_FILE, storage: str | None = None) -> str:
    """The tracking URI (None: MLFLOW_TRACKING_URI, else MLflow's default) once its server or database answers
    and, for a local SQLite store, the file is absent, complete, or half-built without runs; SpecError otherwise,
    naming where the URI came from (``source`` when it is given). A store that is the study's ``storage``, or a
    file that is no MLflow store, is refused. Creates nothing."""
    uri = tracking_uri or get_tracking_uri()
    remember(uri)
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
        raise SpecError(f"{path}: cannot create the MLflow store: {redact(first_line(error))}") from None
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
        return first_line(getattr(error.args[0], "reason", error) if error.args else error)
    except Exception as error:  # noqa: BLE001  the driver's own: refused, timed out, unknown host, bad credentials, bad URI...
        return first_line(error)
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
    import mlflow.store.model_registry.dbmodels.models
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
    The migrations are copied from ``_migrated_template`` where the cache folder holds it (0.1 s rather than
    2-6 s), else run here; the store's first rows (its default experiment, whose artifact folder is the
    current folder's) are written on the copy. The finished file is written to disk once, before the rename."""
    temporary = path.with_name(path.name + ".init")
    for suffix in ("", *SQLITE_COMPANIONS):
        Path(f"{temporary}{suffix}").unlink(missing_ok=True)
    template = _migrated_template()
    if template is not None:
        shutil.copyfile(template, temporary)
    else:
        _migrate(temporary)
    store = SqlAlchemyStore(f"sqlite:///{temporary}", DEFAULT_LOCAL_FILE_AND_ARTIFACT_PATH)  # its first rows
    store.engine.dispose()  # closes the file: the rename then moves a finished database
    with open(temporary, "rb") as built:
        os.fsync(built.fileno())
    os.replace(temporary, path)


def _migrate(path: Path) -> None:
    """Run every MLflow migration on the SQLite file ``path``. The migrations' hundreds of commits do not wait
    for the disk (a build cut short is thrown away, never opened)."""
    engine = create_engine(f"sqlite:///{path}", poolclass=NullPool)
    event.listen(engine, "connect", _unsynced)
    try:
        _initialize_tables(engine)
    finally:
        engine.dispose()


def _migrated_template() -> Path | None:
    """An SQLite file with every migration of this MLflow and no rows of a store's own, in gametune's cache
    folder (``mlflow-store-<revision>.db``), built once under a lock at ``<file>.init`` and renamed into place; a
    file there that is not such a template is built again. None where the cache folder cannot hold it."""
    template = cache_folder() / f"mlflow-store-{_head_revision()}.db"
    try:
        if _is_template(template):
            return template
        with open(template.with_name(template.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not _is_template(template):  # another process may have built it while this one waited
                building = template.with_name(template.name + ".init")
                building.unlink(missing_ok=True)
                _migrate(building)
                with open(building, "rb") as built:
                    os.fsync(built.fileno())
                os.replace(building, template)
        return template
    except (OSError, MlflowException, SQLAlchemyError):
        return None


def _is_template(path: Path) -> bool:
    """Whether ``path`` is a whole SQLite database at this MLflow's head revision with no experiment yet."""
    if not path.is_file():
        return False
    try:
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as connection:
            [(checked,)] = connection.execute("PRAGMA quick_check").fetchall()
            [(revision,)] = connection.execute("SELECT version_num FROM alembic_version").fetchall()
            [(experiments,)] = connection.execute("SELECT COUNT(*) FROM experiments").fetchall()
    except (sqlite3.Error, ValueError):
        return False
    return checked == "ok" and revision == _head_revision() and experiments == 0


def _unsynced(connection: sqlite3.Connection, _record: object) -> None:
    """A connection of the store's build: commits that do not wait for the disk, the undo journal in memory."""
    connection.execute("PRAGMA synchronous = OFF")
    connection.execute("PRAGMA journal_mode = MEMORY")


def first_line(error: object) -> str:
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
