"""Only the study's own files are touched, and every file is written whole (issue 44): a reading command changes no
file; a storage or tracking store that names a file of another kind is refused in one line and left as it was; a
configuration cannot name files outside its folder; writes go through unique temporary files; a full disk fails the
trial with its reason; trial folders are keyed by storage; records hold no machine's absolute paths."""

import json
import os
import subprocess
from pathlib import Path

import optuna
import pytest
from conftest import run_cli, run_gametune, run_in_process
from optuna.trial import TrialState

from agents.setup import Setup
from agents.specs import SpecError
from gamecore.atomic import atomic_path, write_atomically
from tuning.storage import storage_object
from tuning.study_results import _portable

REPO = Path(__file__).resolve().parent.parent

STUDY = """name = "{name}"
difficulty = "hard"
setup = "random-mcts-mcts"
[fixed]
ppn = 1
[space]
budget = {{ choice = [1, 2] }}
[objective]
games = 4
[validation]
top_k = 0
[search]
sampler = "grid"
pruner = "none"
{extra}[mlflow]
figures = false                  # Optuna's plots are not what these tests check (test_tuning.py does)
{mlflow}"""


def one_line_error(done: subprocess.CompletedProcess, *fragments: str) -> None:
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def snapshot_but_the_report(folder: Path) -> dict[str, bytes]:
    """``snapshot`` without out/, where the tests' reports write their own files."""
    return {name: data for name, data in snapshot(folder).items() if not name.startswith("out/")}


def test_a_reading_command_never_repairs_a_journal_nor_touches_a_foreign_file(in_tmp, capsys):
    (in_tmp / "notes.txt").write_bytes(b"hello\nworld")  # 11 bytes, no journal, no final newline
    (in_tmp / "s.toml").write_text(STUDY.format(name="s", extra='storage = "journal:notes.txt"\n', mlflow=""))
    before = snapshot(in_tmp)
    for args in (("report", "s.toml", "--out", "out/r.md"), ("tune", "export", "s.toml", "--out", "x.toml"),
                 ("tune", "run", "s.toml", "--dry-run"), ("tune", "run", "s.toml")):
        done = run_in_process(capsys, *args)
        assert "Traceback" not in done.stderr, done.stderr[-2000:]
        after = snapshot_but_the_report(in_tmp)
        assert after == before, f"{args} changed {set(after) ^ set(before) or 'notes.txt'}"
    one_line_error(done, "notes.txt is not an Optuna journal")


def test_a_reading_command_creates_no_table_no_lock_and_no_store(in_tmp, capsys, fresh_postgres):
    """export and report opened an empty SQLite file, a missing one or an empty database as a writer would: they
    wrote Optuna's 13 tables into it (and a .lock file beside an SQLite store) before saying there was no study.
    (The commands run in this process: the files and the database are what is checked.)"""
    import sqlalchemy

    (in_tmp / "empty.db").write_bytes(b"")
    for storage, why in (("empty.db", "holds no Optuna study"), ("missing.db", "does not exist"),
                         (fresh_postgres, "holds no Optuna study")):
        (in_tmp / "s.toml").write_text(STUDY.format(name="s", extra=f'storage = "{storage}"\n', mlflow=""))
        before = snapshot_but_the_report(in_tmp)
        for args in (("tune", "export", "s.toml", "--out", "x.toml"), ("report", "s.toml", "--out", "out/r.md")):
            done = run_in_process(capsys, *args)
            after = snapshot_but_the_report(in_tmp)
            assert after == before, f"{args} on {storage} changed {set(after) ^ set(before)}"
            if args[0] == "tune":
                one_line_error(done, why)
    assert sqlalchemy.inspect(sqlalchemy.create_engine(fresh_postgres)).get_table_names() == []
    (in_tmp / "s.toml").write_text(STUDY.format(name="s", extra="", mlflow=""))
    assert run_cli(capsys, "tune", "run", "s.toml", "--storage", "s.db")[0] == 0
    (in_tmp / "s.db.lock").unlink()
    study = snapshot_but_the_report(in_tmp)
    run_cli(capsys, "tune", "export", "s", "--storage", "s.db", "--out", "x.toml")  # no trial chosen (top_k = 0)
    assert run_cli(capsys, "report", "s.toml", "--out", "out/r.md")[0] == 0
    assert snapshot_but_the_report(in_tmp) == study  # no s.db.lock


def test_a_reader_leaves_a_store_whose_tables_a_writer_is_still_creating(in_tmp, capsys):
    """Optuna's tables without its version rows (a driver between creating them and writing the rows): a reader that
    opened it wrote the rows itself, and the driver then failed on them (UNIQUE constraint failed:
    alembic_version.version_num, seen in CI); now the reader refuses in one line and writes nothing."""
    import sqlalchemy
    from optuna.storages._rdb import models

    engine = sqlalchemy.create_engine("sqlite:///half.db")
    models.BaseModel.metadata.create_all(engine)
    engine.dispose()
    (in_tmp / "s.toml").write_text(STUDY.format(name="s", extra='storage = "half.db"\n', mlflow=""))
    before = snapshot(in_tmp)
    one_line_error(run_in_process(capsys, "tune", "export", "s.toml", "--out", "x.toml"), "holds no Optuna study to read")
    assert snapshot(in_tmp) == before


def test_a_torn_journal_is_left_alone_by_report_and_export(in_tmp, capsys):
    (in_tmp / "t.toml").write_text(STUDY.format(name="t", extra="", mlflow=""))
    assert run_in_process(capsys, "tune", "run", "t.toml", "--storage", "t.journal").returncode == 0
    journal = in_tmp / "t.journal"
    journal.write_bytes(journal.read_bytes() + b'{"op_code": 5, "worker_id": "cut')  # a writer killed mid-record
    before = snapshot(in_tmp)
    run_in_process(capsys, "tune", "export", "t.toml", "--storage", "t.journal", "--out", "x.toml")
    assert snapshot(in_tmp) == before  # export read it (the torn record skipped) and wrote nothing
    done = run_in_process(capsys, "tune", "run", "t.toml", "--storage", "t.journal", "--n-trials", "3")
    assert done.returncode == 0, done.stderr[-2000:]
    assert journal.read_bytes().endswith(b"\n") and list(in_tmp.glob("t.journal.torn-*"))  # a writer repairs it


@pytest.mark.parametrize("tracking", ["sqlite:///s.db", "sqlite:///other.db"], ids=["the-storage", "another-study"])
def test_a_tracking_store_that_is_an_optuna_storage_is_refused_and_left_alone(in_tmp, capsys, tracking):
    (in_tmp / "o.toml").write_text(STUDY.format(name="o", extra="", mlflow=""))
    assert run_in_process(capsys, "tune", "run", "o.toml", "--storage", "other.db").returncode == 0
    (in_tmp / "s.toml").write_text(STUDY.format(name="s", extra="", mlflow=f'tracking_uri = "{tracking}"\n'))
    if tracking.endswith("s.db"):
        assert run_in_process(capsys, "tune", "run", "s.toml", "--n-trials", "1").returncode == 2
        (in_tmp / "s.toml").write_text(STUDY.format(name="s", extra="", mlflow=""))
        assert run_in_process(capsys, "tune", "run", "s.toml").returncode == 0  # s.db: a finished study of its own
        (in_tmp / "s.toml").write_text(STUDY.format(name="s", extra="", mlflow=f'tracking_uri = "{tracking}"\n'))
    before = snapshot(in_tmp)
    done = run_in_process(capsys, "tune", "run", "s.toml", "--n-trials", "3")
    expected = "is the study's storage" if tracking.endswith("s.db") else "not an MLflow store"
    one_line_error(done, expected)
    assert snapshot(in_tmp) == before and not list(in_tmp.glob("*.broken-*"))


def test_a_storage_that_is_an_mlflow_store_is_refused_and_left_alone(in_tmp, capsys):
    (in_tmp / "s.toml").write_text(STUDY.format(name="s", extra="", mlflow=""))
    assert run_in_process(capsys, "tune", "run", "s.toml").returncode == 0  # mlflow.db: MLflow's default store here
    before = snapshot(in_tmp)
    one_line_error(run_in_process(capsys, "tune", "run", "s.toml", "--storage", "mlflow.db"), "not an Optuna storage")
    (in_tmp / "m.toml").write_text(STUDY.format(name="s", extra='storage = "mlflow.db"\n', mlflow=""))
    before = snapshot(in_tmp)
    one_line_error(run_in_process(capsys, "report", "m.toml", "--out", "r.md"), "not an Optuna storage")
    assert snapshot(in_tmp) == before


@pytest.mark.parametrize("line", ['weights = "/etc/hostname"', 'weights = "../../secret.pt"',
                                  'playout_nets = "/etc/hostname"'])
def test_a_configuration_cannot_name_a_file_outside_its_folder(tmp_path, capsys, line):
    from conftest import run_cli

    folder = tmp_path / "downloaded"
    folder.mkdir()
    setup = "rl-rl-rl" if "weights" in line else "rule-mcts-rule"
    (folder / "agent.toml").write_text(f'setup = "{setup}"\n[questing]\n{line}\n')
    with pytest.raises(SpecError, match="lies outside the configuration's folder"):
        Setup.load(folder / "agent.toml")
    code, _, err = run_cli(capsys, "eval", "--config", str(folder / "agent.toml"), "--games", "1")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "GAMETUNE_MODELS" in err
    code, _, err = run_cli(capsys, "tune", "export", "--run-id", "x", "--tracking-uri", "http://127.0.0.1:1",
                           "--out", str(tmp_path / "x.toml"))
    assert code == 2 and not (tmp_path / "x.toml").exists()


def test_atomic_writes_use_a_unique_temporary_file_and_follow_no_planted_link(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    for fixed in ("best.toml.partial", "best.toml.tmp"):  # the fixed names writers used before
        (tmp_path / fixed).symlink_to(victim)
    Setup.parse("random-mcts-mcts", "lotr").dump(tmp_path / "best.toml")
    assert victim.read_text() == "keep me" and "random-mcts-mcts" in (tmp_path / "best.toml").read_text()
    with pytest.raises(RuntimeError), atomic_path(tmp_path / "half.txt") as temporary:
        temporary.write_text("half")
        raise RuntimeError("killed midway")
    assert not (tmp_path / "half.txt").exists() and not list(tmp_path.glob(".half.txt.*"))
    write_atomically(tmp_path / "best.toml", "x")
    assert (tmp_path / "best.toml").stat().st_mode & 0o777 == 0o644


def test_trial_folders_are_keyed_by_storage(in_tmp, capsys):
    (in_tmp / "k.toml").write_text(STUDY.format(name="k", extra="", mlflow=""))
    for storage in ("k.db", "k.journal"):
        assert run_in_process(capsys, "tune", "run", "k.toml", "--storage", storage).returncode == 0
    folders = sorted(p.parent.name for p in in_tmp.glob("k-trials/*/trial-0"))
    assert len(folders) == 2 and folders[0].startswith("journal-") and folders[1].startswith("sqlite-")
    for storage in (f"sqlite:///{in_tmp}/k.db", f"journal:{in_tmp}/k.journal"):
        study = optuna.load_study(study_name="k", storage=storage_object(storage))
        assert len({t.user_attrs["folder"] for t in study.trials}) == 2


def test_records_hold_no_absolute_path():
    for path in sorted((REPO / "docs" / "records").glob("*.json")):
        for trial in json.loads(path.read_text())["trials"]:
            for table in trial["config"].values():
                if isinstance(table, dict):
                    for name in ("weights", "playout_nets"):
                        assert not Path(table.get(name) or "x").is_absolute(), f"{path.name}: {table[name]}"
    outside = {"questing": {"weights": "/elsewhere/x/best-trials/trial-1/questing.pt"}}
    inside = {"questing": {"weights": str(Path.cwd() / "a-trials" / "trial-0" / "q.pt")}}
    assert _portable(outside)["questing"]["weights"] == "best-trials/trial-1/questing.pt"
    assert _portable(inside)["questing"]["weights"] == "a-trials/trial-0/q.pt"


@pytest.mark.slow
def test_a_full_disk_fails_the_trial_with_its_reason_and_leaves_none_running(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], capture_output=True,
                             check=False)
    if mounted.returncode:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        (tmp_path / "f.toml").write_text(STUDY.format(name="f", extra="", mlflow=""))
        (tmp_path / "f-trials").symlink_to(disk)  # the trial folders on a small disk, the record beside it
        filler = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)  # the disk filled up
        try:
            while os.write(filler, b"x" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(filler)
        done = run_gametune(tmp_path, "tune", "run", "f.toml")
        assert done.returncode == 2 and "No space left on device" in done.stderr, done.stderr[-2000:]
        trials = optuna.load_study(study_name="f", storage=f"sqlite:///{tmp_path}/f.db").trials
        assert trials and all(t.state == TrialState.FAIL for t in trials)
        assert all("No space left on device" in t.user_attrs["error"] for t in trials)
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
