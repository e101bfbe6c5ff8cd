"""Studies: study files, the search, storage, resume, distributed workers, MLflow logging, export."""

import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import numpy as np
import optuna
import pytest
from conftest import run_cli, start_mlflow_server
from mlflow import MlflowClient
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend
from optuna.trial import TrialState

from agents.evaluation import evaluate_setup
from agents.setup import Setup
from agents.specs import SpecError
from tuning.orchestrator import run_study
from tuning.samplers import SAMPLERS
from tuning.storage import storage_for, storage_object
from tuning.study_file import load_study, parse_study
from tuning.study_record import open_study
from tuning.tracking import trial_run_name

MCTS_STUDY = """
name = "{name}"
difficulty = "hard"
setup = "random-mcts-mcts"
[fixed]
ppn = 10
[space]
budget = {{ int = [20, 100], step = 20 }}
c = {{ float = [0.3, 2.0], log = true }}
[objective]
games = {games}
[validation]
top_k = {top_k}
games = 100
[test]
games = 100
[search]
n_trials = {trials}
sampler = "{sampler}"
pruner = "{pruner}"
"""


def write_study(folder, name="s", games=40, trials=2, sampler="tpe", pruner="none", extra="", top_k=2):
    """A study of ``random-mcts-mcts`` on hard; ``top_k = 0``: no validation, test or registered model."""
    path = folder / f"{name}.toml"
    path.write_text(MCTS_STUDY.format(name=name, games=games, trials=trials, sampler=sampler, pruner=pruner,
                                      top_k=top_k) + extra)
    return path


def test_a_two_trial_study_end_to_end_on_the_default_stores(in_tmp, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))  # loading the model puts its copy of the code first on sys.path
    result = run_study(load_study(write_study(in_tmp, pruner="wilcoxon")))
    assert result.complete + result.pruned == 2 and result.failed == 0
    study = optuna.load_study(study_name="s", storage="sqlite:///s.db")
    assert study.trials[0].state == TrialState.COMPLETE  # the first trial has nothing to be pruned against
    client = MlflowClient()  # MLflow's default store in the working directory
    experiment = client.get_experiment_by_name("s")
    runs = client.search_runs([experiment.experiment_id])
    parent = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    children = sorted((r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent[0].info.run_id),
                      key=lambda r: r.info.run_name)
    second = study.trials[1].state.name.lower()
    assert len(parent) == 1 and [r.info.run_name for r in children] == ["trial-0", trial_run_name(1, second)]
    assert children[1].data.tags["state"] == children[1].data.params["state"] == second
    assert children[1].data.metrics["games_played"] == study.trials[1].user_attrs["games"]  # pruned or not
    assert children[1].data.metrics["win_rate"] == pytest.approx(study.trials[1].value)
    assert experiment.tags["mlflow.experimentKind"] == "custom_model_development"  # not a GenAI experiment
    child = children[0]
    assert {"budget", "c"} <= set(child.data.params) and child.data.tags["state"] == "complete"
    assert {"win_rate", "win_rate_low", "win_rate_high", "seconds_per_game", "ms_per_decision.questing"} <= set(child.data.metrics)
    assert child.data.tags["setup"] == "random-mcts-mcts" and child.data.tags["code_version"]
    assert [a.path for a in client.list_artifacts(child.info.run_id)] == ["agent.toml"]
    history = client.get_metric_history(child.info.run_id, "intermediate_win_rate")
    assert len(history) == 20 and history[-1].value == pytest.approx(child.data.metrics["win_rate"])  # running rate
    assert all(0 < h.value < 1 for h in history[5:]) and [h.step for h in history][:2] == [2, 4]
    assert study.metric_names == ["win_rate"]
    # One answer to "which is best": the study's record, the parent run, the registry version and the export
    chosen = study.user_attrs["selection"]
    assert chosen["test"]["seed"] == 2000003 and chosen["validation"]["seed"] == 1000003
    complete = {t.number for t in study.trials if t.state == TrialState.COMPLETE}
    assert chosen["test"]["games"] == 100 and set(chosen["candidates"]) == complete and chosen["trial"] in complete
    parent_run = client.get_run(parent[0].info.run_id)
    assert parent_run.data.metrics["chosen_trial"] == chosen["trial"]
    assert parent_run.data.metrics["test_win_rate"] == pytest.approx(chosen["test"]["win_rate"])
    assert parent_run.data.metrics["validation_win_rate"] == pytest.approx(chosen["validation"]["win_rate"])
    for n in chosen["candidates"]:  # every candidate's validation figure, on the parent and its own run
        run = client.get_run(study.trials[n].user_attrs["mlflow_run"])
        assert run.data.metrics["validation_win_rate"] == pytest.approx(parent_run.data.metrics[f"validation_win_rate.trial-{n}"])
    chosen_run = client.get_run(chosen["mlflow_run"])
    assert chosen_run.info.run_name == f"trial-{chosen['trial']}" and "test_win_rate" in chosen_run.data.metrics
    assert "s-best.toml" in [a.path for a in client.list_artifacts(parent[0].info.run_id)]
    figures = {a.path for a in client.list_artifacts(parent[0].info.run_id, "figures")}
    assert {"figures/trials.csv", "figures/optimization_history.png", "figures/optimization_history.html",
            "figures/param_importances.png"} <= figures  # two parameters: their importances
    version = client.get_model_version_by_alias("s", "best")
    assert chosen["model"] == f"models:/s/{version.version}"
    assert version.run_id == chosen["mlflow_run"] and version.tags["parent_run"] == parent[0].info.run_id
    assert client.get_run(chosen["mlflow_run"]).info.status == "FINISHED"  # logging the model kept its status
    assert version.tags["trial"] == str(chosen["trial"]) and version.tags["test_seed"] == "2000003"
    assert float(version.tags["test_win_rate"]) == pytest.approx(chosen["test"]["win_rate"])
    assert f"trial {chosen['trial']}" in version.description and "test win rate" in version.description
    best = Setup.load(in_tmp / "s-best.toml")
    assert best.questing["ppn"] == 10 and best.questing["budget"] in (20, 40, 60, 80, 100)
    assert evaluate_setup(best, options={"difficulty": "hard"}, games=10).games == 10
    metadata = Setup.read_mapping(in_tmp / "s-best.toml")["metadata"]
    assert metadata["trial"] == chosen["trial"] and metadata["model"] == chosen["model"]
    assert metadata["test_win_rate"] == chosen["test"]["win_rate"] and metadata["mlflow_run"] == chosen["mlflow_run"]
    assert metadata["code_version"] == study.trials[chosen["trial"]].user_attrs["code_version"]
    assert metadata["trial_started"] == study.trials[chosen["trial"]].user_attrs["started"]
    import mlflow.pyfunc
    import pandas as pd

    from lotr_sim import GameState

    model = mlflow.pyfunc.load_model("models:/s@best")
    assert model.metadata.get_input_schema().input_names() == ["state"]
    games = [GameState("hard", seed=s) for s in range(3)]
    actions = model.predict(pd.DataFrame({"state": [g.to_json() for g in games]}))
    assert [a["role"] for a in actions] == [g.stage.label for g in games]
    for frame, message in ((pd.DataFrame({"State": ["{}"]}), "input has no column 'state'; give a frame"),
                           (pd.DataFrame({"state": ["not json"]}), "state JSON: not valid JSON")):
        with pytest.raises(ValueError, match=message) as error:
            model.predict(frame)
        assert "\n" not in str(error.value)
    # Run again: finished, nothing played, nothing registered again
    again = run_study(load_study(in_tmp / "s.toml"))
    assert again.already_finished and "already finished" in again.report()
    assert len(client.search_model_versions("name = 's'")) == 1
    assert len([r for r in client.search_runs([experiment.experiment_id]) if "mlflow.parentRunId" not in r.data.tags]) == 1


@pytest.mark.usefixtures("no_plots")
def test_export_writes_the_best_as_toml_or_json(in_tmp, capsys, monkeypatch):
    path = write_study(in_tmp, name="e", games=10, trials=2)
    code, _, err = run_cli(capsys, "tune", "export", str(path), "--out", "x.json")
    assert code == 2 and "no store of it here: looked for e.journal and e.db" in err and not (in_tmp / "e.db").exists()
    run_study(load_study(path))
    code, out, _ = run_cli(capsys, "tune", "export", str(path), "--out", "best.json")
    assert code == 0
    data = json.loads((in_tmp / "best.json").read_text())
    assert data["metadata"]["study"] == "e" and Setup.load(in_tmp / "best.json") == Setup.load(in_tmp / "e-best.toml")
    code, out, _ = run_cli(capsys, "tune", "export", "e", "--out", "by-name.json")  # the study's name: its store here
    assert code == 0 and "exported by-name.json" in out
    assert json.loads((in_tmp / "by-name.json").read_text())["metadata"]["trial"] == data["metadata"]["trial"]
    client = MlflowClient()
    child = client.search_runs([client.get_experiment_by_name("e").experiment_id], "attributes.run_name = 'trial-1'")[0]
    code, _, _ = run_cli(capsys, "tune", "export", "--run-id", child.info.run_id, "--out", "t1/agent.toml")
    assert code == 0
    trial = optuna.load_study(study_name="e", storage="sqlite:///e.db").trials[1]
    assert Setup.load(in_tmp / "t1" / "agent.toml").questing["budget"] == trial.params["budget"]
    code, _, err = run_cli(capsys, "tune", "export", "--run-id", "nope", "--out", "x.toml")
    assert code == 2 and "--run-id nope" in err and len(err.strip().splitlines()) == 1
    parent = client.get_run(child.data.tags["mlflow.parentRunId"])
    code, _, _ = run_cli(capsys, "tune", "export", "--run-id", parent.info.run_id, "--out", "p.json")
    kept = json.loads((in_tmp / "p.json").read_text())["metadata"]  # the parent's export: its figures kept
    assert code == 0 and kept == {**data["metadata"], "exported": kept["exported"]}
    figures = Setup.read_mapping(in_tmp / "t1" / "agent.toml")["metadata"]  # a candidate's: its validation figure
    assert figures["validation_win_rate"] == pytest.approx(child.data.metrics["validation_win_rate"])
    assert figures["validation_games"] == 100 and len(figures["validation_wilson_95"]) == 2
    # From another folder: where it looked and how to point at it; nothing created by a read
    elsewhere = in_tmp / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, _, err = run_cli(capsys, "tune", "export", "e", "--out", "x.json")
    assert code == 2 and f"looked for e.journal and e.db in {elsewhere}" in err and "--storage PATH/e.journal" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "tune", "export", "--run-id", child.info.run_id, "--out", "x.json")
    assert code == 2 and "mlflow.db (from MLflow's default): no such file; give --tracking-uri" in err
    assert len(err.strip().splitlines()) == 1 and not list(elsewhere.iterdir())  # no empty store made
    code, _, _ = run_cli(capsys, "tune", "export", "e", "--storage", str(in_tmp / "e.db"), "--out", "x.json")
    assert code == 0 and json.loads((elsewhere / "x.json").read_text())["metadata"]["trial"] == data["metadata"]["trial"]
    code, _, _ = run_cli(capsys, "tune", "export", "--run-id", child.info.run_id, "--tracking-uri",
                         f"sqlite:///{in_tmp}/mlflow.db", "--out", "t1.toml")
    assert code == 0 and Setup.load(elsewhere / "t1.toml") == Setup.load(in_tmp / "t1" / "agent.toml")


def test_a_storage_is_a_journal_or_sqlite_file_or_a_url():
    from tuning.storage_url import storage_url

    assert storage_url("runs/s.journal") == "journal:runs/s.journal" and storage_url("/x/s.db") == "sqlite:////x/s.db"
    for url in ("journal:s.journal", "sqlite:///s.db", "postgresql://postgres@127.0.0.1:5432/test"):
        assert storage_url(url) == url
    with pytest.raises(SpecError, match=r"storage 's.txt': not a storage; give a .journal or .db file, journal:PATH"):
        storage_url("s.txt")


@pytest.mark.slow
@pytest.mark.parametrize("sampler", ["tpe", "hyperopt", "random", "gp", "cmaes"])
def test_the_same_space_through_every_sampler(in_tmp, sampler):
    result = run_study(load_study(write_study(in_tmp, name=f"x-{sampler}", games=10, trials=3, sampler=sampler)))
    assert result.complete == 3
    study = optuna.load_study(study_name=f"x-{sampler}", storage=f"sqlite:///x-{sampler}.db")
    for trial in study.trials:
        assert trial.params["budget"] in (20, 40, 60, 80, 100) and 0.3 <= trial.params["c"] <= 2.0


@pytest.mark.parametrize("sampler", ["gp", "cmaes"])
def test_gp_and_cma_es_search_a_study_files_space_past_their_start(sampler):
    """Optuna's GP and CMA-ES samplers, named by a study file, propose values of its domains once they model the
    trials (after GP's 10 random ones), a choice included (CMA-ES draws it at random)."""
    text = MCTS_STUDY.format(name="m", games=10, trials=12, sampler=sampler, pruner="none", top_k=2)
    playout = 'playout = { choice = ["random", "expert"] }\n[objective]'
    spec = parse_study(tomllib.loads(text.replace("[objective]", playout)), "m.toml")
    study = optuna.create_study(direction="maximize", sampler=SAMPLERS[spec.sampler].optuna_sampler(0))
    for _ in range(spec.n_trials):
        trial = study.ask()
        params = {domain.name: domain.suggest(trial) for domain in spec.space}
        study.tell(trial, -abs(params["c"] - 1.0) - params["budget"] / 1000 + (params["playout"] == "expert"))
    assert {t.state for t in study.trials} == {TrialState.COMPLETE}
    for trial in study.trials:
        assert trial.params["budget"] in (20, 40, 60, 80, 100) and 0.3 <= trial.params["c"] <= 2.0
        assert trial.params["playout"] in ("random", "expert")


@pytest.mark.usefixtures("no_plots")
def test_pruning_stops_a_bad_configuration_early(in_tmp):
    data = tomllib_load(write_study(in_tmp, name="p", games=100, trials=2, pruner="wilcoxon"))
    data["space"] = {"budget": {"choice": [100, 1]}, "playout": {"choice": ["random", "expert"]}}
    spec = parse_study(data, "p.toml")
    study = open_study(spec, storage_for(spec.name, None, 1))
    study.enqueue_trial({"budget": 100, "playout": "random"})
    study.enqueue_trial({"budget": 1, "playout": "expert"})  # plays the expert questing rule: no wins on hard
    result = run_study(spec)
    trials = optuna.load_study(study_name="p", storage="sqlite:///p.db").trials
    assert trials[0].state == TrialState.COMPLETE and trials[1].state == TrialState.PRUNED
    assert max(trials[1].intermediate_values) < 50  # stopped well before its 100 games
    assert result.pruned == 1
    pruned = trials[1]  # its value: the win rate over the games it played, not its last game
    assert pruned.value == pruned.intermediate_values[max(pruned.intermediate_values)] < trials[0].value
    assert pruned.user_attrs["games"] == max(pruned.intermediate_values) and len(pruned.user_attrs["wilson_95"]) == 2
    run = MlflowClient(f"sqlite:///{in_tmp}/mlflow.db").get_run(pruned.user_attrs["mlflow_run"])
    assert run.info.status == "KILLED" and run.data.tags["state"] == "pruned"  # stopped early: not shown as finished
    assert run.info.run_name == "trial-1 pruned" and run.data.params["state"] == "pruned"  # seen as what it is
    assert run.data.metrics["win_rate"] == pytest.approx(pruned.value) and pruned.value < trials[0].value  # below
    assert run.data.metrics["games_played"] == pruned.user_attrs["games"]


def tomllib_load(path):
    import tomllib

    return tomllib.loads(path.read_text())


@pytest.mark.usefixtures("no_plots")
def test_resume_keeps_finished_trials_and_retries_the_interrupted_one(in_tmp):
    path = write_study(in_tmp, name="r", games=10, trials=2, top_k=0)
    run_study(load_study(path))
    spec = load_study(path)
    study = open_study(spec, storage_for(spec.name, None, 1))
    study.ask()  # a trial left running, as by a killed run
    result = run_study(spec, n_trials=3)
    states = [t.state for t in optuna.load_study(study_name="r", storage="sqlite:///r.db").trials]
    assert states[:2] == [TrialState.COMPLETE] * 2 and states[2] == TrialState.FAIL
    assert states.count(TrialState.COMPLETE) == 3 and result.complete == 3


@pytest.mark.slow
def test_distributed_workers_on_postgresql_meet_the_budget_exactly(in_tmp, fresh_postgres):
    name = "d"
    path = write_study(in_tmp, name=name, games=10, trials=6)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}  # this checkout's code
    started = run_study(load_study(path), n_trials=1, storage=fresh_postgres)
    assert started.complete == 1
    workers = [
        subprocess.Popen([sys.executable, "-m", "tuning.cli", "tune", "worker", str(path), "--storage", fresh_postgres],
                         cwd=in_tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    for worker in workers:
        _out, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err
    trials = optuna.load_study(study_name=name, storage=fresh_postgres).trials
    counted = [t for t in trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]
    assert len(counted) == 6
    assert len({t.number for t in trials}) == len(trials)


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda d: d.pop("name"), "missing key 'name'"),
        (lambda d: d.update(difficulty="nightmare"), "difficulty = 'nightmare' is invalid; expected one of easy, medium, hard"),
        (lambda d: d.update(setup="random-foo-mcts"), "unknown agent 'foo' at questing"),
        (lambda d: d.update(space={}), "space is empty"),
        (lambda d: d["space"].update(budget={"int": [100, 20]}), "space.budget.int = [100, 20] is invalid"),
        (lambda d: d["space"].update(budget={"choice": []}), "space.budget.choice = [] is invalid"),
        (lambda d: d["space"].update(depth={"int": [1, 3]}), "no role of random-mcts-mcts has parameter 'depth'"),
        (lambda d: d["space"].update(budget={"int": [0, 3]}), "budget = 0 is invalid"),
        (lambda d: d["space"].update(ppn={"int": [1, 3]}), "ppn is both in [fixed] and in [space]; keep one of them"),
        (lambda d: d.update(test={"seed": 0}), "objective.seed and test.seed are both 0; the search, validation and"),
        (lambda d: d.update(validation={"seed": 5}, test={"seed": 5}), "validation.seed and test.seed are both 5"),
        (lambda d: d.update(holdout=d.pop("validation")), "[holdout] is now [validation]"),
        (lambda d: d["search"].update(sampler="anneal"),
         "search.sampler = 'anneal' is invalid; expected one of tpe, hyperopt, random, grid, gp, cmaes"),
        (lambda d: d["objective"].update(games=0), "objective.games = 0 is invalid; expected a positive integer"),
        (lambda d: d.update(seeds=3), "unknown key 'seeds'"),
        (lambda d: (d["objective"].update(metrics=["win_rate", "seconds_per_game"]),
                    d["search"].update(sampler="cmaes")), "search.sampler = 'cmaes' takes one objective; use tpe"),
    ],
)
def test_bad_study_files_are_one_line_errors(in_tmp, change, expected):
    data = tomllib_load(write_study(in_tmp))
    change(data)
    with pytest.raises(SpecError) as error:
        parse_study(data, "s.toml")
    assert expected in str(error.value) and "\n" not in str(error.value)


def test_cli_errors_exit_2_and_write_nothing(in_tmp, capsys):
    path = write_study(in_tmp)
    path.write_text(path.read_text().replace('difficulty = "hard"', 'difficulty = "nightmare"'))
    code, _, err = run_cli(capsys, "tune", "run", str(path))
    assert code == 2 and "difficulty = 'nightmare'" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "tune", "run", str(write_study(in_tmp, name="u")), "--storage",
                             "postgresql://nobody@127.0.0.1:1/none")
    assert code == 2 and "postgresql://nobody@127.0.0.1:1/none: unreachable" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in in_tmp.iterdir()) == ["s.toml", "u.toml"]


def test_dry_run_prints_the_resolved_space(in_tmp, capsys):
    code, out, _ = run_cli(capsys, "tune", "run", str(write_study(in_tmp)), "--dry-run")
    assert code == 0 and "budget: int in [20, 100] step 20" in out and "c: float in [0.3, 2] (log)" in out
    assert not (in_tmp / "s.db").exists()


@pytest.mark.usefixtures("no_plots")
def test_local_workers_share_a_journal_file_and_meet_the_budget_exactly(in_tmp):
    result = run_study(load_study(write_study(in_tmp, name="w", games=10, trials=5, top_k=0)), workers=2)
    assert (in_tmp / "w.journal").is_file() and result.complete + result.pruned == 5
    study = optuna.load_study(study_name="w", storage=JournalStorage(JournalFileBackend(str(in_tmp / "w.journal"))))
    assert sum(t.state in (TrialState.COMPLETE, TrialState.PRUNED) for t in study.trials) == 5


@pytest.mark.usefixtures("no_plots")
def test_workers_beyond_the_trials_left_play_the_trials_games(in_tmp):
    """A study of one trial on 2 workers plays its games on both (the same games, the same figure); with as
    many trials as workers each trial plays on one."""
    figures = {}
    for name, trials, workers in (("one", 1, 1), ("shared", 1, 2), ("two", 2, 2)):
        path = write_study(in_tmp, name=name, games=12, trials=trials, top_k=0)
        run_study(load_study(path), workers=workers)
        study = optuna.load_study(study_name=name, storage=storage_object(storage_for(name, None, workers)))
        assert {t.user_attrs["evaluation_workers"] for t in study.trials} == {2 if name == "shared" else 1}
        figures[name] = (study.trials[0].params, study.trials[0].values)
    assert figures["one"] == figures["shared"]


@pytest.mark.slow
def test_two_objectives_give_a_pareto_front(in_tmp):
    path = write_study(in_tmp, name="m", games=10, trials=4)
    path.write_text(path.read_text().replace("[objective]", '[objective]\nmetrics = ["win_rate", "seconds_per_game"]'))
    result = run_study(load_study(path))
    assert result.pareto and all(len(point) == 3 for point in result.pareto)
    assert "Pareto front" in result.report()


@pytest.mark.slow  # 18 s; an RL study's trials train and export fast in test_learning (nim); the curve only here
def test_an_rl_study_trains_then_evaluates_and_logs_the_learning_curve(in_tmp):
    path = in_tmp / "rl.toml"
    path.write_text(textwrap.dedent("""
        name = "rl"
        difficulty = "easy"
        setup = "random-rl-random"
        [space]
        lr = { choice = [3.5e-4, 6.5e-4] }
        neurons = { choice = [50, 100] }
        [objective]
        games = 20
        [validation]
        top_k = 1
        games = 50
        [test]
        games = 50
        [training]
        episodes = 200
        envs = 8
        [search]
        n_trials = 2
        pruner = "median"
    """))
    result = run_study(load_study(path))
    assert result.complete == 2
    client = MlflowClient()
    runs = client.search_runs([client.get_experiment_by_name("rl").experiment_id], "tags.state = 'complete'")
    child = runs[0]
    assert "training_seconds" in child.data.metrics and "training_moving_win_rate" in child.data.metrics
    artifacts = {a.path for a in client.list_artifacts(child.info.run_id)}
    assert {"agent.toml", "learning_curve.png", "weights"} <= artifacts
    best = Setup.load(in_tmp / "rl-best.toml")
    assert best.questing["weights"].endswith("rl-best.questing.pt") and (in_tmp / "rl-best.questing.pt").is_file()
    assert not list(in_tmp.glob("questing.pt"))  # another study's export in this folder keeps its own weights
    assert evaluate_setup(best, options={"difficulty": "easy"}, games=20).games == 20


@pytest.mark.slow  # 9-13 s: MLflow's migrations on PostgreSQL; the PostgreSQL store is tested only here (and Ray's)
@pytest.mark.parametrize("through_server", [False, True], ids=["database", "mlflow-server"])
def test_mlflow_tracking_on_postgresql(in_tmp, fresh_postgres, through_server):
    """MLflow on a PostgreSQL database, directly or behind `mlflow server` (artifacts proxied)."""
    uri, server = fresh_postgres, None
    try:
        if through_server:
            server, uri = start_mlflow_server(uri, in_tmp)
        path = write_study(in_tmp, name="pg", games=10, trials=2, extra=f'[mlflow]\ntracking_uri = "{uri}"\n')
        run_study(load_study(path))
        client = MlflowClient(uri)
        runs = client.search_runs([client.get_experiment_by_name("pg").experiment_id])
        children = [r for r in runs if "mlflow.parentRunId" in r.data.tags]
        assert sorted(r.info.run_name for r in children) == ["trial-0", "trial-1"]
        assert "agent.toml" in [a.path for a in client.list_artifacts(children[0].info.run_id)]
        assert not (in_tmp / "mlflow.db").exists()
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)


def test_dry_run_names_the_fixed_values_and_checks_the_stores(in_tmp, capsys):
    path = write_study(in_tmp, name="n", games=10, trials=1)
    code, out, _ = run_cli(capsys, "tune", "run", str(path), "--dry-run")
    assert code == 0 and "fixed: ppn = 10" in out and "storage: sqlite:///n.db" in out
    assert f"MLflow: sqlite:///{in_tmp}/mlflow.db" in out and "test: the chosen one on 100 deals of seed 2000003" in out
    assert sorted(p.name for p in in_tmp.iterdir()) == ["n.toml"]  # nothing created
    path.write_text(path.read_text() + '[mlflow]\ntracking_uri = "http://127.0.0.1:1"\n')
    code, _, err = run_cli(capsys, "tune", "run", str(path), "--dry-run")
    assert code == 2 and "http://127.0.0.1:1 (from mlflow.tracking_uri in the study file)" in err
    assert len(err.strip().splitlines()) == 1


def test_an_unreachable_tracking_server_is_named_with_where_its_uri_came_from(in_tmp, capsys, monkeypatch):
    path = write_study(in_tmp, name="n", games=10, trials=1)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:1")
    code, _, err = run_cli(capsys, "tune", "run", str(path), "--dry-run")
    assert code == 2 and "(from MLFLOW_TRACKING_URI): " in err and "start the server or fix MLFLOW_TRACKING_URI" in err
    code, _, err = run_cli(capsys, "tune", "export", "--run-id", "r", "--tracking-uri", "http://127.0.0.1:2", "--out", "x.json")
    assert code == 2 and "http://127.0.0.1:2 (from --tracking-uri): " in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow  # 13 s; test_export_writes_the_best_as_toml_or_json exports by name too, and its errors
def test_export_takes_a_study_name_and_writes_the_chosen_trial_from_the_record(in_tmp, capsys):
    path = write_study(in_tmp, name="n", games=10, trials=2)
    code, _, err = run_cli(capsys, "tune", "export", "n", "--out", "best.json")
    assert code == 2 and "looked for n.journal and n.db" in err and len(err.strip().splitlines()) == 1
    chosen = run_study(load_study(path)).selection
    code, out, _ = run_cli(capsys, "tune", "export", "n", "--out", "best.json")
    assert code == 0 and "exported best.json" in out
    metadata = json.loads((in_tmp / "best.json").read_text())["metadata"]
    assert metadata["trial"] == chosen["trial"] and metadata["test_win_rate"] == chosen["test"]["win_rate"]
    assert Setup.load(in_tmp / "best.json") == Setup.load(in_tmp / "n-best.toml")


def test_a_trials_outcomes_are_in_game_order_whatever_the_order_its_chunks_finish():
    """The paired pruner compares two trials game by game: chunks finishing out of order (Ray, a pool) or of
    other sizes (chunks adapt to speed) must give the same packed order, game by game, each seat in turn."""
    import numpy as np

    from tuning.outcomes import GameOutcomes

    wins = np.random.default_rng(0).random((10, 2)) < 0.5  # game x seat

    def chunk(first, count):  # as evaluate_setup hands it: ids tiled over the seats, rewards seat after seat
        ids = np.arange(first, first + count)
        return np.tile(ids, 2), np.concatenate([wins[ids, 0], wins[ids, 1]]).astype(float)

    in_order, shuffled = GameOutcomes(10, 2), GameOutcomes(10, 2)
    for first, count in ((0, 3), (3, 3), (6, 4)):
        in_order.add(*chunk(first, count))
    assert np.array_equal(in_order.prefix(), wins.ravel())
    shuffled.add(*chunk(5, 5))
    assert shuffled.prefix().size == 0  # game 0 not finished: nothing to compare yet
    shuffled.add(*chunk(0, 2))
    assert np.array_equal(shuffled.prefix(), wins[:2].ravel())
    shuffled.add(*chunk(2, 3))
    assert np.array_equal(shuffled.prefix(), in_order.prefix())


def test_no_trial_is_pruned_while_its_running_win_rate_is_at_or_above_the_best():
    from tuning.outcomes import OUTCOMES, pack_outcomes
    from tuning.pruners import PRUNERS

    study = optuna.create_study(direction="maximize", pruner=PRUNERS["wilcoxon"].make())
    best = [True] * 20 + [False] * 20  # all of the first 20 deals won, none of the last 20: 0.5
    study.add_trial(optuna.create_trial(value=0.5, intermediate_values={40: 0.5},
                                        user_attrs={OUTCOMES: pack_outcomes(np.array(best))}))
    for wins, pruned in (([True] * 12 + [False] * 8, False), ([True] * 8 + [False] * 12, True)):
        trial = study.ask()  # both significantly worse on the 20 deals; the first at 60% so far
        trial.set_user_attr(OUTCOMES, pack_outcomes(np.array(wins)))
        trial.report(float(np.mean(wins)), len(wins))
        assert trial.should_prune() == pruned


def test_the_parent_run_s_parallel_coordinates_have_plain_numbers_on_log_axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from optuna.visualization.matplotlib import plot_parallel_coordinate

    from tuning.study_plots import readable_axes

    study = optuna.create_study(direction="maximize")
    study.optimize(lambda t: t.suggest_float("c", 0.1, 3.0, log=True) + t.suggest_int("budget", 40, 800), n_trials=8)
    with pytest.warns(optuna.exceptions.ExperimentalWarning):
        plot_parallel_coordinate(study, target_name="win_rate")
    figure = plt.gcf()
    readable_axes(figure)
    figure.canvas.draw()
    logs = [axis for axis in figure.axes if axis.get_yscale() == "log"]
    labels = [label.get_text() for axis in logs for label in axis.get_yticklabels() if label.get_visible()]
    plt.close(figure)
    assert logs and len(labels) >= 3 and all(re.fullmatch(r"[0-9.]+", text) for text in labels if text), labels
    assert figure.get_size_inches()[0] >= 1.6 * 3


def test_tune_init_writes_a_valid_commented_study_file_for_each_game(in_tmp, capsys):
    from tuning.study_file import SECTIONS
    from tuning.study_template import MEANINGS

    assert {s: set(keys) for s, (_, keys) in MEANINGS.items()} == {s: set(keys) for s, keys in SECTIONS.items()}
    for game, setup, name in (("loveletter", "mcts", "loveletter-mcts-random"), ("lotr", "random-mcts-mcts", None),
                              ("carcassonne", "mcts-rave", "carcassonne-mcts-rave-random")):
        code, out, err = run_cli(capsys, "tune", "init", "--game", game, "--setup", setup)
        assert code == 0, err
        written = in_tmp / f"{name or f'{game}-{setup}'}.toml"
        assert f"wrote {written.name}" in out
        spec = load_study(written)
        assert spec.game.name == game and [d.name for d in spec.space] == ["budget", "ppn", "c"]
        assert "n_trials = 20  # " in written.read_text()  # every key with its default, and what it means
    code, _, err = run_cli(capsys, "tune", "init", "--game", "loveletter", "--setup", "mcts")
    assert code == 2 and "exists" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "tune", "init", "--game", "loveletter", "--setup", "chess-engine")
    assert code == 2 and "unknown agent 'chess'" in err and len(err.strip().splitlines()) == 1


def test_a_training_study_draws_its_trials_training_times_for_its_parent_run(tmp_path):
    """The thesis's Figure 6.5 in MLflow: a study whose trials train draws the histogram of their training times
    beside Optuna's plots (and one that trains nothing does not)."""
    from tuning.study_file import load_study
    from tuning.study_plots import write_study_figures

    spec = load_study(Path(__file__).resolve().parent.parent / "studies/lotr/paper/rl-hpo-thesis-one.toml")
    study = optuna.create_study(direction="maximize")
    distribution = optuna.distributions.CategoricalDistribution([0, 1, 2, 3])
    for seconds in (18.0, 21.5, 19.2):
        study.add_trial(optuna.trial.create_trial(value=0.9, params={"encoding": 2}, user_attrs={
            "training_seconds": seconds}, distributions={"encoding": distribution}))
    assert tmp_path / "trial_times.png" in write_study_figures(study, spec, tmp_path)
    assert (tmp_path / "trial_times.png").stat().st_size > 0
    untrained = optuna.create_study(direction="maximize")
    untrained.add_trial(optuna.trial.create_trial(value=0.5, params={}, distributions={}))
    assert not any(path.name == "trial_times.png" for path in write_study_figures(untrained, spec, tmp_path / "u"))


def test_validation_compares_each_parameter_set_once():
    """A sampler over categorical lists proposes a set again; on the same seed and deals it trains and plays alike,
    so the candidates for validation are the best ``top_k`` distinct parameter sets, each by its best-ranked trial."""
    from tuning.selection import candidates

    spec = load_study(Path(__file__).resolve().parent.parent / "studies/lotr/paper/rl-hpo-thesis-one.toml")
    study = optuna.create_study(direction="maximize")
    distribution = optuna.distributions.CategoricalDistribution([0, 1, 2, 3])
    for value, encoding in ((0.90, 2), (0.95, 1), (0.95, 1), (0.80, 3), (0.95, 1), (0.70, 0)):
        study.add_trial(optuna.trial.create_trial(value=value, params={"encoding": encoding},
                                                  distributions={"encoding": distribution}))
    assert spec.validation_top_k == 3
    assert [t.number for t in candidates(study, spec)] == [1, 0, 3]


def test_a_space_of_one_parameter_has_no_importances_plot(tmp_path):
    """Its importance is 1 by definition (and computing it loads scikit-learn); the other plots are drawn."""
    from tuning.study_plots import write_study_figures

    path = write_study(tmp_path)
    path.write_text(path.read_text().replace("c = { float = [0.3, 2.0], log = true }\n", ""))
    spec = load_study(path)
    assert [domain.name for domain in spec.space] == ["budget"]
    study = optuna.create_study(direction="maximize")
    for budget, value in ((20, 0.2), (40, 0.5), (60, 0.4)):
        study.enqueue_trial({"budget": budget})
        trial = study.ask({"budget": optuna.distributions.IntDistribution(20, 100, step=20)})
        study.tell(trial, value)
    names = {path.name for path in write_study_figures(study, spec, tmp_path / "figures")}
    assert {"trials.csv", "optimization_history.png", "parallel_coordinate.html"} <= names
    assert not any(name.startswith("param_importances") for name in names)


def test_figures_false_draws_no_plots_and_a_word_for_it_is_refused(in_tmp):
    """``[mlflow] figures = false``: the study's parent run has no figures; ``figures = "no"`` is one line."""
    path = write_study(in_tmp, games=10, extra="[mlflow]\nfigures = false\n")
    result = run_study(load_study(path))
    assert result.complete + result.pruned == 2
    client = MlflowClient()
    [parent] = [r for r in client.search_runs([client.get_experiment_by_name("s").experiment_id])
                if "mlflow.parentRunId" not in r.data.tags]
    assert client.list_artifacts(parent.info.run_id, "figures") == []
    path.write_text(path.read_text().replace("figures = false", 'figures = "no"'))
    with pytest.raises(SpecError, match=r'mlflow\.figures = .no. is invalid; expected true or false$'):
        load_study(path)
