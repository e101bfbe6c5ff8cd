"""The test-seed ledger (issue 47, point 4): one test seed serves one claim."""

import json
import tomllib
from pathlib import Path

import pytest
from conftest import run_cli

from tuning.study_file import load_study, study_files
from tuning.test_seeds import LEDGER, ledger_path

REPOSITORY = Path(__file__).resolve().parent.parent
STUDY = """
name = "{name}"
setup = "random"
[space]
difficulty = {{ choice = ["easy", "medium"] }}
[objective]
games = 30
[validation]
top_k = 1
games = 30
[test]
games = {test_games}
seed = 7000001
[search]
n_trials = 2
sampler = "random"
pruner = "none"
[mlflow]
figures = false                  # Optuna's plots are not what these tests check (test_tuning.py does)
"""


def _study(folder: Path, name: str, test_games: int = 40) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(STUDY.format(name=name, test_games=test_games))
    return path


def _uses(folder: Path) -> list[dict]:
    return json.loads((folder / LEDGER).read_text())["uses"]


@pytest.mark.usefixtures("no_plots")
def test_a_used_test_seed_is_refused_in_one_line_unless_a_reason_is_recorded(in_tmp, capsys):
    """Five commands of lotr, in this process (the ledger's rules need no process of their own)."""
    _study(in_tmp, "first")
    code, _, err = run_cli(capsys, "tune", "run", "first.toml")
    assert code == 0, err
    [use] = _uses(in_tmp)
    assert use["seed"] == 7000001 and use["study"] == "first" and use["result"].startswith("trial ")

    code, _, err = run_cli(capsys, "tune", "run", "first.toml")  # the same claim replayed: allowed, not re-recorded
    assert code == 0, err
    assert len(_uses(in_tmp)) == 1

    _study(in_tmp, "second")
    code, out, err = run_cli(capsys, "tune", "run", "second.toml")
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()[-1:]
    assert "[test] seed = 7000001 was used by study first" in line and "--reuse-test-seed REASON" in line
    assert "e.g. 7000002" in line
    assert not (in_tmp / "second.db").exists()  # refused before anything ran

    _study(in_tmp, "first", test_games=50)  # the same study, changed after its test: a new claim
    code, _, err = run_cli(capsys, "tune", "run", "first.toml")
    assert code == 2 and "this study before its file changed" in err

    code, _, err = run_cli(capsys, "tune", "run", "second.toml", "--reuse-test-seed", "a demonstration")
    assert code == 0, err
    assert [u["study"] for u in _uses(in_tmp)] == ["first", "second"]
    assert _uses(in_tmp)[1]["reused_because"] == "a demonstration"


def test_a_ledger_that_is_not_one_is_refused_and_left_alone(in_tmp, capsys):
    _study(in_tmp, "first")
    (in_tmp / LEDGER).write_text("not json")
    code, _, err = run_cli(capsys, "tune", "run", "first.toml")
    assert code == 2 and "not a test-seed ledger" in err.splitlines()[-1]
    assert (in_tmp / LEDGER).read_text() == "not json"


def test_every_study_here_has_a_test_seed_of_its_own_and_every_export_was_tested_on_it():
    """The repository's ledger: each test seed has one owner (its first use), every study file that tests owns its
    seed (a re-run of it unchanged is allowed), and every shipped export's test figure is on its study's seed."""
    uses = json.loads((REPOSITORY / "studies" / LEDGER).read_text())["uses"]
    owners: dict[int, str] = {}
    for use in uses:
        owners.setdefault(use["seed"], use["study"])
    specs = {}
    for path in study_files(REPOSITORY / "studies"):
        spec = specs[path.stem] = load_study(path, limits=False)
        if spec.validation_top_k and spec.test_games:
            assert owners.get(spec.test_seed, spec.name) == spec.name, f"{path}: test seed {spec.test_seed}"
    exports = sorted(p for p in (REPOSITORY / "studies").glob("*/*/*.toml") if p.parent.name != "paper")
    assert len(exports) >= 12
    for export in exports:
        if export.name in ("stage1.toml", "agent.nets.toml"):  # an earlier stage's export, superseded by agent.toml
            continue  # beside it; the networks an export's playouts read
        metadata = tomllib.loads(export.read_text())["metadata"]
        spec = specs[metadata["study"]]
        assert metadata["test_seed"] == spec.test_seed, f"{export}: tested on {metadata['test_seed']}"


def test_a_study_file_is_governed_by_the_ledger_above_it_within_its_repository(tmp_path):
    """Wherever the command runs from: the nearest ledger above the file, not above the repository's root."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "studies" / "game").mkdir(parents=True)
    study = _study(tmp_path / "repo" / "studies" / "game", "mine")
    (tmp_path / LEDGER).write_text('{"uses": []}')  # outside the repository: not this file's
    assert ledger_path(study) == study.parent / LEDGER
    (tmp_path / "repo" / "studies" / LEDGER).write_text('{"uses": []}')
    assert ledger_path(study) == tmp_path / "repo" / "studies" / LEDGER


def test_a_ledger_in_a_folder_anyone_may_write_to_governs_nothing_below_it(tmp_path, capsys):
    """A stray /tmp/test-seeds.json (another user's study, one CI run) refused every study under /tmp: a folder anyone
    may write to holds nobody's ledger, and the walk stops below it; a study file in such a folder keeps its own."""
    shared = tmp_path / "shared"
    (shared / "me" / "studies" / "game").mkdir(parents=True)
    shared.chmod(0o1777)
    (shared / LEDGER).write_text('{"uses": [{"seed": 7000001, "study": "stranger", "fingerprint": "f", "date": "d", '
                                 '"result": "r"}]}')
    study = _study(shared / "me" / "studies" / "game", "mine")
    assert ledger_path(study) == study.parent / LEDGER
    code, _, err = run_cli(capsys, "tune", "run", str(study), "--dry-run")
    assert code == 0, err
    assert ledger_path(_study(shared, "beside")) == shared / LEDGER


def test_tune_init_writes_a_test_seed_its_ledger_has_not_used(tmp_path, capsys):
    (tmp_path / LEDGER).write_text('{"uses": [{"seed": 2000003, "study": "other", "fingerprint": "f", "date": "d", '
                                   '"result": "r"}]}')
    code, _, err = run_cli(capsys, "tune", "init", "--game", "nim", "--setup", "mcts", "--out", str(tmp_path / "n.toml"))
    assert code == 0, err
    assert load_study(tmp_path / "n.toml").test_seed == 2000004


REPLICATED = """
name = "{name}"
setup = "random"
[space]
difficulty = {{ choice = ["easy", "hard"] }}
[objective]
games = 40
[validation]
top_k = 0
[search]
sampler = "grid"
pruner = "none"
workers = 1
[report]
kind = "table"
section = "{name}"
columns = ["difficulty"]
published = {{ experiment = "random-baseline" }}
replicate = 7100001
"""


@pytest.mark.usefixtures("no_plots")
def test_a_study_runs_again_on_its_declared_fresh_seed_once_and_the_report_shows_both_runs(in_tmp, capsys):
    """``lotr tune run FILE --replicate`` plays the study unchanged on the seed its [report] replicate declares, as
    its own study, enters that seed in the ledger, and another study may not claim it; the report shows the two
    runs' rows side by side with their verdicts."""
    from tuning.report import write_report

    for name in ("baseline", "other"):
        (in_tmp / f"{name}.toml").write_text(REPLICATED.format(name=name))
    assert run_cli(capsys, "tune", "run", "baseline.toml")[0] == 0
    _, dry, _ = run_cli(capsys, "tune", "run", "baseline.toml", "--replicate", "--dry-run")
    assert "study baseline-seed7100001:" in dry and "of seed 7100001" in dry
    code, out, err = run_cli(capsys, "tune", "run", "baseline.toml", "--replicate")
    assert code == 0, err
    assert "study baseline-seed7100001: 2 complete" in out and (in_tmp / "baseline-seed7100001.db").exists()
    [use] = _uses(in_tmp)
    assert use["seed"] == 7100001 and use["study"] == "baseline-seed7100001"
    assert use["result"].startswith("out-of-sample replicate: 2 trials of 40 games")

    code, _, err = run_cli(capsys, "tune", "run", "other.toml", "--replicate")
    assert code == 2 and "report.replicate = 7100001 was used by study baseline-seed7100001" in (
        err.strip().splitlines()[-1])
    assert not (in_tmp / "other-seed7100001.db").exists()

    text = write_report([in_tmp / "baseline.toml"], in_tmp / "docs" / "results.md", in_tmp).read_text()
    assert "| `baseline-seed7100001` | 2 |" in text
    replicate = text[text.index("Out of sample"):]
    assert "(`baseline`: seed 0 and 7100001)" in replicate.splitlines()[0]
    assert [line.split(" | ")[0] for line in replicate.splitlines()[4:6]] == ["| easy", "| hard"]
    assert "verdict changed" in replicate or "Verdicts changed" in replicate


def test_a_replicate_of_a_study_that_declares_no_seed_for_it_is_refused_in_one_line(tmp_path, capsys):
    path = _study(tmp_path, "plain")
    code, out, err = run_cli(capsys, "tune", "run", str(path), "--replicate", "--dry-run")
    assert code == 2 and out == ""
    assert err.strip().splitlines()[-1].endswith("report.replicate is not set; declare the fresh seed of the "
                                                  "replicate there (e.g. replicate = 5000001) before running it")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.toml"]


def test_a_replicate_needs_deals_the_study_never_played_and_one_replicate_per_study(tmp_path, capsys):
    """The replicate seed may not be the study's own objective, validation or test seed; once a study has a
    replicate in the ledger, another seed for it is a second chance at the same claim: refused unless a reason
    is given. --n-trials and --out do not apply to a replicate."""
    from tuning.test_seeds import check_one_replicate, write_ledger

    path = tmp_path / "x.toml"
    path.write_text(REPLICATED.format(name="x").replace("replicate = 7100001", "replicate = 0"))
    with pytest.raises(Exception, match=r"report.replicate = 0 is one of the study's own seeds"):
        load_study(path).replicated()
    path.write_text(REPLICATED.format(name="x").replace("replicate = 7100001", "replicate = 7100002"))
    write_ledger(tmp_path / LEDGER, [{"seed": 7100001, "study": "x-seed7100001", "file": "x.toml", "fingerprint": "f",
                                     "date": "2026-11-28", "result": "out-of-sample replicate: 2 trials"}])
    replica = load_study(path).replicated()
    with pytest.raises(Exception, match=r"study x already has an out-of-sample replicate on seed 7100001"):
        check_one_replicate(replica)
    check_one_replicate(replica, "a second replicate asked for by a reviewer")
    code, out, err = run_cli(capsys, "tune", "run", str(path), "--replicate", "--n-trials", "1")
    assert code == 2 and out == "" and err.strip().splitlines()[-1].endswith("drop --n-trials and --out")
