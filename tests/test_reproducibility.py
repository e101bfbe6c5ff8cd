"""The same study, the same answer (issue 47, point 7): one worker repeats a study exactly; several say that they
do not, in the run's output and its dry run."""

import optuna
import pytest
from conftest import run_cli, run_gametune

STUDY = """
name = "again"
setup = "random-mcts-random"
difficulty = "easy"
[fixed]
ppn = 2
[space]
budget = {{ int = [4, 40] }}
c = {{ float = [0.3, 2.0], log = true }}
[objective]
games = 30
[validation]
top_k = 2
games = 30
[test]
games = 30
[search]
n_trials = 4
workers = {workers}
pruner = "wilcoxon"
[mlflow]
figures = false                  # Optuna's plots are not what these tests check (test_tuning.py does)
"""


def _trials(folder) -> list[tuple]:
    study = optuna.load_study(study_name="again", storage=f"sqlite:///{folder}/again.db")
    return [(t.number, t.state.name, t.params, t.values) for t in study.trials]


@pytest.mark.slow  # two small studies in processes of their own: about 40 s
def test_one_worker_repeats_a_study_exactly(tmp_path):
    runs = []
    for attempt in ("first", "second"):
        folder = tmp_path / attempt
        folder.mkdir()
        (folder / "again.toml").write_text(STUDY.format(workers=1))
        done = run_gametune(folder, "tune", "run", "again.toml")
        assert done.returncode == 0, done.stderr
        assert "asynchronous" not in done.stdout
        runs.append((_trials(folder), done.stdout.splitlines()[1]))  # the "best: trial N ... test ..." line
    assert runs[0] == runs[1]


def test_several_workers_say_in_the_dry_run_that_a_rerun_may_choose_another_trial(in_tmp, capsys):
    (in_tmp / "again.toml").write_text(STUDY.format(workers=2))
    code, out, err = run_cli(capsys, "tune", "run", "again.toml", "--dry-run")
    assert code == 0, err
    assert out.splitlines()[-1].startswith("asynchronous: 2 trials run at once")
    _, once, _ = run_cli(capsys, "tune", "run", "again.toml", "--dry-run", "--workers", "1")
    assert once.splitlines()[-1] == "repeatable: a re-run from scratch repeats it"
