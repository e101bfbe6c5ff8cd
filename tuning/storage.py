"""Where a study's trials live: Optuna storages, their faults, and who may drive a study.

- ``storage_url`` (``tuning.storage_url``): the one syntax of a storage, wherever it is given.
- ``storage_for``: the study's storage URL (the one given, else a default
  file here: ``<name>.db`` for one worker, ``<name>.journal`` for several).
- ``storage_object``: what Optuna takes for a URL. Database storages record a
  heartbeat per running trial (``Heartbeat``); a trial whose heartbeat is older
  than the grace period belongs to a dead worker: ``fail_stale`` fails it and
  queues a retry with the same parameters, so that the survivors meet the
  budget. Tables are created under a lock (an advisory lock on PostgreSQL, a
  file lock beside an SQLite file), so processes started together all join. A
  journal whose last record was cut by a kill is repaired before anything
  writes to it (``repair_journal``), by a command that writes the study only; a
  file that is not an Optuna journal, or an SQLite file that is not an Optuna
  storage (an MLflow store), is refused in one line and never touched
  (``check_local_store``).
- ``driver_lock``: one ``lotr tune run`` per study at a time (a file lock
  beside a local store, an advisory lock on PostgreSQL; both vanish with their
  process); ``lotr tune worker`` joins without it.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import hashlib
import json
import os
import socket
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Self

import optuna
from optuna.storages.journal import JournalFileBackend
from optuna.storages.journal._file import get_lock_file
from optuna.trial import FrozenTrial, TrialState

from agents.specs import SpecError
from gamecore.atomic import write_atomically
from gamecore.redaction import redact
from tuning.storage_url import JOURNAL, local_store, storage_url

CONNECT_SECONDS = 10  # a database server that does not answer within this is unreachable
MAX_RETRIES = 3  # a trial lost with its worker is queued again at most this often
COUNTED = (TrialState.COMPLETE, TrialState.PRUNED)  # the trials a budget counts


@dataclass(frozen=True)
class Liveness:
    """How often a running trial's worker says it is alive, and how long before it counts as dead (seconds)."""

    heartbeat_interval: int = 10
    grace_period: int = 30


def storage_for(name: str, given: str | None, workers: int, root: Path = Path(".")) -> str:
    """The study's storage URL: ``given`` (any form of ``storage_url``), else the default store in ``root`` that
    already holds the study (so that it resumes, exports and reports whatever its first run's worker count),
    else a journal file for several workers and an SQLite file for one."""
    if given:
        return storage_url(given)
    journal, database = root / f"{name}.journal", root / f"{name}.db"
    if journal.is_file() or (workers > 1 and not database.is_file()):
        return f"{JOURNAL}{journal}"
    if workers > 1:
        raise SpecError(f"study {name} is in {database} (SQLite, one worker at a time); run it with --workers 1, "
                        "or give --storage")
    return f"sqlite:///{database}"


def check_storage(url: str) -> str:
    """``url`` if a run could use it (a local store's folder exists, a server answers); else a one-line SpecError.
    Creates nothing (``lotr tune run --dry-run``)."""
    store = local_store(url)
    if store is not None:
        folder = store.resolve().parent
        if store.is_dir():
            raise SpecError(f"storage {redact(url)}: {store} is a folder; give a file, e.g. --storage NAME.journal")
        if not folder.is_dir() or not os.access(folder, os.W_OK):
            raise SpecError(f"storage {redact(url)}: cannot write in {folder}; create it or give --storage")
        check_local_store(url)
    elif is_postgres(url):
        with _advisory_lock(url, "check", wait=False):
            pass
    return url


def is_postgres(url: str) -> bool:
    return url.startswith(("postgresql:", "postgresql+", "postgres:"))


def storage_object(url: str, liveness: Liveness = Liveness(), writes: bool = False):
    """What Optuna takes for ``url``: a journal storage, or a database storage with heartbeats, a connect timeout
    and tables created once however many processes start together. ``writes``: the command writes the study (a
    run, a worker), and only then is a journal cut by a kill repaired (a reader skips a torn last record, as
    Optuna does). A local file that is not a store of its kind is refused (``check_local_store``)."""
    check_local_store(url)
    if url.startswith(JOURNAL):
        from optuna.storages import JournalStorage

        path = url[len(JOURNAL):]
        if not writes:
            if not Path(path).is_file():
                raise SpecError(f"storage {url}: no such journal")
            return JournalStorage(JournalFileBackend(path))
        notice = repair_journal(Path(path))
        if notice:
            print(notice, flush=True)
        return JournalStorage(RepairingJournal(path))
    kwargs = _connect_args(url)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        make = lambda: _opened(url, lambda: optuna.storages.RDBStorage(  # noqa: E731
            url, engine_kwargs=kwargs, heartbeat_interval=liveness.heartbeat_interval,
            grace_period=liveness.grace_period, heartbeat_stale_trial_callback=retry, skip_table_creation=not writes,
        ))
        store = local_store(url)
        if not writes:  # a reader creates nothing: no tables, no lock file, no SQLite file
            if not _holds_optuna_tables(url):
                raise SpecError(f"storage {redact(url)}: holds no Optuna study to read (no Optuna tables, or a writer "
                                "killed mid-transaction, which the next run or worker finishes)")
            return make()
        if store is not None:  # SQLite: tables created by one process at a time
            with _file_lock(Path(f"{store}.lock")):
                return make()
        if not is_postgres(url):
            return make()
        with _advisory_lock(url, "optuna-tables", wait=True):
            return make()


def _connect_args(url: str) -> dict:
    """SQLAlchemy's engine arguments for ``url``: a server that does not answer within ``CONNECT_SECONDS`` is
    unreachable (PostgreSQL's connect timeout; other databases take none)."""
    return {"connect_args": {"connect_timeout": CONNECT_SECONDS}} if is_postgres(url) else {}


def _opened(url: str, make):
    """``make()``, a database storage of ``url``; a one-line SpecError where its driver is missing or the server
    refuses the URL (an unknown option, an unreachable host)."""
    import sqlalchemy

    try:
        return make()
    except (sqlalchemy.exc.SQLAlchemyError, ImportError) as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        what = "unreachable" if isinstance(error, sqlalchemy.exc.OperationalError) else "cannot open it"
        raise SpecError(f"storage {redact(url)}: {what}: {redact(reason)}") from None


OPTUNA_SCHEMA = ("studies", "version_info", "alembic_version")  # what Optuna's table creation leaves, the last two
# with their one row each: a storage opened where they are is only read (Optuna writes the version rows otherwise)


def _holds_optuna_tables(url: str) -> bool:
    """Whether the database of ``url`` holds Optuna's tables as a finished creation leaves them (``OPTUNA_SCHEMA``),
    read without writing: an SQLite file read-only (a missing file holds none; one a writer is still creating, or
    holding, reads as none), a server through one connection."""
    import sqlite3

    import sqlalchemy

    def finished(names: set[str], count) -> bool:
        return set(OPTUNA_SCHEMA) <= names and all(count(table) for table in OPTUNA_SCHEMA[1:])

    store = local_store(url)
    if store is not None:
        if not store.is_file():
            return False
        try:
            with _read_only(store) as connection:
                return finished(_table_names(connection),
                                lambda table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        except sqlite3.DatabaseError:
            return False
    engine = _opened(url, lambda: sqlalchemy.create_engine(url, poolclass=sqlalchemy.pool.NullPool,
                                                           **_connect_args(url)))
    try:
        with _opened(url, engine.connect) as connection:
            names = set(sqlalchemy.inspect(connection).get_table_names())
            return finished(names, lambda table: connection.execute(sqlalchemy.text(f"SELECT count(*) FROM {table}"))
                            .scalar())
    finally:
        engine.dispose()


def check_local_store(url: str) -> None:
    """SpecError (one line) when a journal or SQLite storage names an existing file that is not an Optuna store
    of its kind: a journal's first record must be one of Optuna's, an SQLite database must hold Optuna's tables or
    none. Reads at most one line; changes nothing."""
    store = local_store(url)
    if store is None or not store.is_file() or store.stat().st_size == 0:
        return
    if url.startswith(JOURNAL):
        with open(store, "rb") as file:
            first = file.readline(1 << 20)
        try:
            record = json.loads(first)
        except ValueError:
            record = None
        if not isinstance(record, dict) or "op_code" not in record:
            raise SpecError(f"storage {url}: {store} is not an Optuna journal (its first line is no journal record); "
                            "give the study a journal of its own, e.g. --storage NAME.journal")
        return
    tables = sqlite_tables(store)
    if tables is None or (tables and "studies" not in tables):
        what = "no SQLite database" if tables is None else f"an SQLite database of other tables ({_some(tables)})"
        raise SpecError(f"storage {url}: {store} is {what}, not an Optuna storage; give the study a file of its "
                        "own, e.g. --storage NAME.db")


def sqlite_tables(path: Path) -> set[str] | None:
    """The table names of the SQLite file at ``path``, read-only; None when it is not an SQLite database, and no
    names when SQLite cannot tell yet (a killed writer's journal, which only a writable open rolls back)."""
    import sqlite3

    try:
        with _read_only(path) as connection:
            return _table_names(connection)
    except sqlite3.DatabaseError as error:
        return None if getattr(error, "sqlite_errorname", "") == "SQLITE_NOTADB" else set()


def _read_only(path: Path):
    """A read-only connection to the SQLite file at ``path`` (closed with its block): it never writes, nor creates."""
    import sqlite3

    return contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True))


def _table_names(connection) -> set[str]:
    return {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _some(names: set[str], shown: int = 4) -> str:
    listed = sorted(names)
    return ", ".join(listed[:shown]) + (", ..." if len(listed) > shown else "")


def repair_journal(path: Path) -> str | None:
    """If the journal's last record was cut (no final newline: its writer was killed mid-write), back the
    file up beside it and drop the partial record, under the journal's own lock; returns a notice, else None.
    Without this, the next write would land on the cut line and make the whole study unreadable."""
    from optuna.storages.journal import JournalFileSymlinkLock

    if not path.is_file() or path.stat().st_size == 0 or _last_byte(path) == b"\n":
        return None
    lock = JournalFileSymlinkLock(str(path))
    lock.acquire()
    try:
        return _drop_torn_tail(path)
    finally:
        lock.release()


def _drop_torn_tail(path: Path) -> str | None:
    """``repair_journal``'s work, for a caller that holds the journal's lock: the torn journal is kept whole at
    ``<name>.torn-<time>`` and the journal replaced, atomically, by its complete records."""
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return None
    backup = path.with_name(f"{path.name}.torn-{datetime.datetime.now():%Y%m%d-%H%M%S}")
    write_atomically(backup, data)
    keep = data.rfind(b"\n") + 1
    write_atomically(path, data[:keep])
    return (f"journal {path}: its last record was cut ({len(data) - keep} bytes, a killed writer); "
            f"backed up to {backup.name} and dropped; finished trials are kept")


class RepairingJournal(JournalFileBackend):
    """Optuna's journal file that, under its lock, drops a record cut by a killed writer before appending, so
    that live workers never write onto it."""

    def append_logs(self, logs: list[dict]) -> None:
        with get_lock_file(self._lock):
            notice = _drop_torn_tail(Path(self._file_path))
            if notice:
                print(notice, file=sys.stderr, flush=True)
            with open(self._file_path, "ab") as file:
                file.write(("\n".join(json.dumps(log, separators=(",", ":")) for log in logs) + "\n").encode())
                file.flush()
                os.fsync(file.fileno())


@contextlib.contextmanager
def _file_lock(path: Path):
    """An exclusive lock on ``path`` (created if missing) for the block; it vanishes with its process."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(file, fcntl.LOCK_UN)


def _last_byte(path: Path) -> bytes:
    with open(path, "rb") as file:
        file.seek(-1, os.SEEK_END)
        return file.read(1)


def fail_stale(study: optuna.Study) -> None:
    """Fail the running trials whose worker stopped beating, queueing their retries (database storages)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        optuna.storages.fail_stale_trials(study)


def has_heartbeats(study: optuna.Study) -> bool:
    from optuna.storages._heartbeat import is_heartbeat_enabled

    return is_heartbeat_enabled(study._storage)


def retry(study: optuna.Study, trial: FrozenTrial) -> None:
    """Queue a trial that did not finish (its worker died, or it was interrupted) again with the same parameters,
    at most ``MAX_RETRIES`` times; the new trial names the first one (``failed_trial``, as Optuna's retry
    callback) and carries none of the old trial's attributes."""
    history = [*trial.system_attrs.get("retry_history", []), trial.number]
    if len(history) > MAX_RETRIES:
        return
    attrs = {"failed_trial": history[0], "retry_history": history}
    if trial.params:
        study.add_trial(optuna.create_trial(state=TrialState.WAITING, params=trial.params,
                                            distributions=trial.distributions, system_attrs=attrs,
                                            user_attrs={"retry_of": trial.number}))
    elif "fixed_params" in trial.system_attrs:  # a queued point (a grid's) stopped before its parameters were set
        study.enqueue_trial(trial.system_attrs["fixed_params"], user_attrs={"retry_of": trial.number})


class Heartbeat:
    """While running (a context), a thread records the trial's heartbeat every interval."""

    def __init__(self, study: optuna.Study, trial: optuna.Trial):
        self.storage = study._storage
        self.trial_id = trial._trial_id
        self.interval = self.storage.get_heartbeat_interval() if has_heartbeats(study) else None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True)

    def _beat(self) -> None:
        while not self.stop.wait(self.interval):
            with contextlib.suppress(Exception):  # a missed beat is not an error; a dead process misses them all
                self.storage.record_heartbeat(self.trial_id)

    def __enter__(self) -> Self:
        if self.interval is not None:
            self.storage.record_heartbeat(self.trial_id)
            self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.interval is not None:
            self.stop.set()
            self.thread.join()


def driver_identity() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@contextlib.contextmanager
def driver_lock(url: str, name: str):
    """Hold the study's driver lock for the block; SpecError when another driver holds it."""
    store = local_store(url)
    if store is not None:
        store.parent.mkdir(parents=True, exist_ok=True)
        with open(store.parent / f"{name}.driver", "a+") as file:  # one per study here, SQLite or journal
            try:
                fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise _driven_elsewhere(url, name) from None
            try:
                yield
            finally:
                fcntl.flock(file, fcntl.LOCK_UN)
    elif is_postgres(url):
        with _advisory_lock(url, f"driver:{name}", wait=False) as held:
            if not held:
                raise _driven_elsewhere(url, name)
            yield
    else:
        yield  # other servers: no lock (run one driver by hand)


def _driven_elsewhere(url: str, name: str) -> SpecError:
    driver = {}
    with contextlib.suppress(Exception):
        driver = optuna.load_study(study_name=name, storage=storage_object(url)).user_attrs.get("driver", {})
    who = f"by {driver['who']} since {driver['since']}" if driver else "by another lotr tune run"
    return SpecError(f"study {name} is already being run {who}; add workers with lotr tune worker ... "
                     f"--storage {redact(url)}, or wait for it to finish")


@contextlib.contextmanager
def _advisory_lock(url: str, key: str, wait: bool):
    """A PostgreSQL session advisory lock named ``key`` on its own connection; yields whether it is held."""
    import sqlalchemy

    number = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)
    engine = _opened(url, lambda: sqlalchemy.create_engine(url, poolclass=sqlalchemy.pool.NullPool,
                                                           **_connect_args(url)))
    try:
        connection = _opened(url, lambda: engine.connect().execution_options(isolation_level="AUTOCOMMIT"))
        with connection:
            query = "SELECT pg_advisory_lock(:k)" if wait else "SELECT pg_try_advisory_lock(:k)"
            held = connection.execute(sqlalchemy.text(query), {"k": number}).scalar() is not False
            try:
                yield held
            finally:
                if held:
                    connection.execute(sqlalchemy.text("SELECT pg_advisory_unlock(:k)"), {"k": number})
    finally:
        engine.dispose()


def set_driver(study: optuna.Study) -> None:
    """Name this process as the study's driver (for the message a second driver gets)."""
    study.set_user_attr("driver", {"who": driver_identity(),
                                   "since": datetime.datetime.now().isoformat(timespec="seconds")})

