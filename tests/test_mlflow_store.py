"""Opening MLflow tracking stores (``tuning.tracking_store.prepare_tracking_store``), faults injected into real processes.

Every case runs ``Tracker`` in fresh Python processes in a temporary folder, where MLflow's default store is
``sqlite:///mlflow.db``: first runs started together, a first run killed while it creates the store, a store
half-built by a killed MLflow (rebuilt when it holds no runs, refused when it does), and tracking servers or
databases that do not answer (a refused port, and a local socket that accepts connections but never answers).
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mlflow.store
import pytest
from alembic.script import ScriptDirectory
from mlflow.store.db.utils import _get_latest_schema_revision

pytestmark = pytest.mark.slow  # fault injection into real processes
ROOT = Path(__file__).resolve().parents[1]
ENV = {**{k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}, "PYTHONPATH": str(ROOT)}

LOG_RUN = """
import sys, time
from pathlib import Path
from tuning.tracking import Tracker

if len(sys.argv) > 1:  # wait with the others, imports done, until the test says go
    Path(f"ready-{sys.argv[1]}").touch()
    while not Path("go").exists():
        time.sleep(0.001)
tracker = Tracker(None, "x")
run = tracker.start_run("r", {})
tracker.log(run, metrics={"m": 1.0})
tracker.end(run)
print(len(tracker.client.search_runs([tracker.experiment_id])))  # the runs it sees
"""

OPEN_AS_CLI = """
import sys, time
from agents.specs import SpecError
from tuning.tracking import Tracker

started = time.monotonic()
try:
    Tracker(sys.argv[1] if len(sys.argv) > 1 else None, "x")
except SpecError as error:  # what the CLI prints, exit code 2
    print(f"{time.monotonic() - started:.1f}")
    print(error, file=sys.stderr)
    sys.exit(2)
"""

CHECK_ONLY = """
from tuning.tracking_store import check_tracking_store

print(check_tracking_store(None))
"""

MLFLOW_ALONE = """
from mlflow import MlflowClient

MlflowClient("sqlite:///mlflow.db").search_experiments()
"""


def start(script: str, folder: Path, *args: str, cache: Path | None = None) -> subprocess.Popen:
    """``script`` in a Python process of its own in ``folder`` (with ``cache`` as gametune's cache folder)."""
    env = ENV if cache is None else {**ENV, "NUMBA_CACHE_DIR": str(cache)}
    return subprocess.Popen([sys.executable, "-c", script, *args], cwd=folder, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(process: subprocess.Popen, timeout: float = 60) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``process``; a test failure if it runs longer than ``timeout`` seconds."""
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"still running after {timeout} s: {' '.join(process.args[3:])}\n{err}")
    return process.returncode, out, err


def run(script: str, folder: Path, *args: str, cache: Path | None = None) -> tuple[int, str, str]:
    return finish(start(script, folder, *args, cache=cache))


def wait_for(condition, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def kill_while_creating(script: str, folder: Path, names: tuple[str, ...], cache: Path | None = None) -> None:
    """Start ``script`` and SIGKILL it 0.2 s after one of the files ``names`` (paths relative to ``folder``)
    appears (running MLflow's migrations takes a second or more)."""
    process = start(script, folder, cache=cache)
    wait_for(lambda: any((folder / name).exists() for name in names))
    time.sleep(0.2)
    process.send_signal(signal.SIGKILL)
    process.communicate()


def revision(folder: Path) -> str | None:
    """The alembic revision of ``folder/mlflow.db`` (None when it has none or there is no file), read from a
    copy: a killed writer's journal must stay for the code under test to meet."""
    if not (folder / "mlflow.db").exists():
        return None
    with tempfile.TemporaryDirectory() as scratch:
        copy_store(folder, Path(scratch))
        with sqlite3.connect(Path(scratch) / "mlflow.db") as connection:
            tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            found = connection.execute("SELECT version_num FROM alembic_version").fetchone() \
                if "alembic_version" in tables else None
        connection.close()
    return found[0] if found else None


@pytest.fixture(scope="module", params=["killed", "rewound"])
def half_built(request, tmp_path_factory) -> Path:
    """A folder holding a half-built ``mlflow.db`` without runs: left (with its journal) by plain MLflow killed
    while creating it, or complete but rewound to the revision before MLflow's last migration, as a kill after
    that migration's changes and before alembic's stamp leaves it."""
    folder = tmp_path_factory.mktemp(request.param)
    if request.param == "killed":
        kill_while_creating(MLFLOW_ALONE, folder, ("mlflow.db",))
        assert revision(folder) != _get_latest_schema_revision(), "the kill came after MLflow had finished the store"
    else:
        assert run(MLFLOW_ALONE, folder)[0] == 0
        migrations = ScriptDirectory(str(Path(mlflow.store.__file__).parent / "db_migrations"))
        with sqlite3.connect(folder / "mlflow.db") as connection:
            connection.execute("UPDATE alembic_version SET version_num = ?",
                               (migrations.get_revision(migrations.get_current_head()).down_revision,))
        connection.close()
    return folder


def copy_store(source: Path, target: Path) -> None:
    for name in ("mlflow.db", "mlflow.db-journal"):
        if (source / name).exists():
            (target / name).write_bytes((source / name).read_bytes())


def test_first_runs_at_once_all_succeed(tmp_path):
    workers = [start(LOG_RUN, tmp_path, str(n)) for n in range(2)]
    wait_for(lambda: all((tmp_path / f"ready-{n}").exists() for n in range(2)) or any(w.poll() for w in workers))
    (tmp_path / "go").touch()
    for worker in workers:
        code, _, err = finish(worker)
        assert code == 0, err
    code, out, err = run(LOG_RUN, tmp_path)
    assert (code, out.strip()) == (0, "3"), err


def test_first_run_killed_while_creating_the_store_leaves_none(tmp_path):
    """Where the cache folder cannot hold the migrated template (here a file, not a folder) the store runs
    MLflow's migrations itself, at ``mlflow.db.init``: the kill lands there."""
    unusable = tmp_path / "cache-is-a-file"
    unusable.touch()
    kill_while_creating(LOG_RUN, tmp_path, ("mlflow.db.init", "mlflow.db"), cache=unusable)
    store = tmp_path / "mlflow.db"
    assert not store.exists() or revision(tmp_path) == _get_latest_schema_revision(), "the kill left a half-built store"
    code, out, err = run(LOG_RUN, tmp_path, cache=unusable)
    assert (code, out.strip()) == (0, "1") and "already exists" not in err, err


def template_of(cache: Path) -> Path:
    """The migrated MLflow store that ``cache``, gametune's cache folder, keeps for new stores to copy."""
    return cache / f"mlflow-store-{_get_latest_schema_revision()}.db"


def test_a_first_run_killed_while_migrating_the_cached_template_leaves_neither_half_built(tmp_path):
    """With an empty cache folder the first store runs MLflow's migrations into the cache's template: a kill
    then leaves no store and no template, and the next run builds both."""
    cache = tmp_path / "cache"
    cache.mkdir()
    building = template_of(cache).relative_to(tmp_path).with_suffix(".db.init")
    kill_while_creating(LOG_RUN, tmp_path, (str(building),), cache=cache)
    assert not (tmp_path / "mlflow.db").exists() and not template_of(cache).exists()
    code, out, err = run(LOG_RUN, tmp_path, cache=cache)
    assert (code, out.strip()) == (0, "1"), err
    assert revision(tmp_path) == _get_latest_schema_revision() and template_of(cache).is_file()


def test_stores_copied_from_one_template_are_each_their_own_and_a_damaged_template_is_built_again(tmp_path):
    """Two stores built from one cache folder, the second after the template was cut in half (which is then not
    copied but built again): each default experiment keeps its artifacts in its own folder (the template holds
    the migrations only, not a store's first rows)."""
    cache, folders = tmp_path / "cache", [tmp_path / "a", tmp_path / "b"]
    for folder in [cache, *folders]:
        folder.mkdir()
    for folder in folders:
        if template_of(cache).exists():
            whole = template_of(cache).read_bytes()
            template_of(cache).write_bytes(whole[:len(whole) // 2])
        code, out, err = run(LOG_RUN, folder, cache=cache)
        assert (code, out.strip()) == (0, "1"), err
        with sqlite3.connect(folder / "mlflow.db") as connection:
            [(artifacts,)] = connection.execute("SELECT artifact_location FROM experiments WHERE experiment_id = 0")
        connection.close()
        assert artifacts == str(folder / "mlruns" / "0")
        with sqlite3.connect(template_of(cache)) as connection:
            assert connection.execute("PRAGMA quick_check").fetchall() == [("ok",)]
            [(revision,)] = connection.execute("SELECT version_num FROM alembic_version").fetchall()
        connection.close()
        assert revision == _get_latest_schema_revision()


def test_half_built_store_without_runs_is_moved_aside_and_rebuilt(tmp_path, half_built):
    copy_store(half_built, tmp_path)
    code, out, err = run(LOG_RUN, tmp_path)
    assert (code, out.strip()) == (0, "1"), err
    assert len(err.splitlines()) == 1 and "half-built" in err and "mlflow.db.broken-" in err, err
    assert list(tmp_path.glob("mlflow.db.broken-*")) and revision(tmp_path) == _get_latest_schema_revision()


@pytest.mark.parametrize("half_built", ["rewound"], indirect=True)
def test_half_built_store_with_runs_is_refused_in_one_line(tmp_path, half_built):
    copy_store(half_built, tmp_path)
    with sqlite3.connect(tmp_path / "mlflow.db") as connection:
        connection.execute("INSERT INTO runs (run_uuid, status, lifecycle_stage) VALUES ('0', 'FINISHED', 'active')")
    connection.close()
    before = (tmp_path / "mlflow.db").read_bytes()
    code, _, err = run(OPEN_AS_CLI, tmp_path)
    assert code == 2, err
    assert len(err.splitlines()) == 1 and str(tmp_path / "mlflow.db") in err and "mlflow db upgrade" in err, err
    assert (tmp_path / "mlflow.db").read_bytes() == before and not list(tmp_path.glob("mlflow.db.broken-*"))


def test_check_creates_nothing(tmp_path):
    code, out, err = run(CHECK_ONLY, tmp_path)
    assert code == 0 and out.strip().endswith(f"{tmp_path}/mlflow.db"), err
    assert not list(tmp_path.iterdir())


def test_stores_that_do_not_answer_fail_in_one_line_within_10_s(tmp_path):
    with socket.socket() as silent:  # accepts connections (the kernel does) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        uris = ["http://127.0.0.1:1", f"http://127.0.0.1:{port}", f"postgresql+psycopg://postgres@127.0.0.1:{port}/x"]
        processes = {uri: start(OPEN_AS_CLI, tmp_path, uri) for uri in uris}
        try:
            for uri, process in processes.items():
                code, out, err = finish(process, timeout=30)
                assert code == 2, f"{uri}: {err}"
                assert float(out) < 10, uri
                assert len(err.splitlines()) == 1 and uri in err and "start the server" in err, err
        finally:
            for process in processes.values():
                process.kill()  # nothing for those that ended
