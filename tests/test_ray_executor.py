"""The evaluation on a Ray cluster (a local Ray instance here) equals the local one, game by game."""

import numpy as np
import pytest

from agents.evaluation import evaluate_setup
from agents.setup import Setup
from agents.specs import SpecError

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.mark.slow
def test_ray_plays_the_same_games_with_the_same_result_as_local_processes(local_ray):
    setup = Setup.parse("random-mcts-mcts", "lotr").with_params({"budget": 40, "ppn": 10})
    local = evaluate_setup(setup, options={"difficulty": "hard"}, games=300, seed=11, workers=2)
    on_ray = evaluate_setup(setup, options={"difficulty": "hard"}, games=300, seed=11, executor_kind="ray")
    assert on_ray.workers == 2  # the instance's CPUs
    assert np.array_equal(local.game_ids, on_ray.game_ids) and np.array_equal(local.records, on_ray.records)
    assert (local.wins, local.metrics) == (on_ray.wins, on_ray.metrics)


def test_an_unknown_executor_is_a_one_line_error():
    with pytest.raises(SpecError, match="unknown executor; valid: local, ray"):
        evaluate_setup(Setup.parse("random", "lotr"), options={"difficulty": "hard"}, games=10, workers=2,
                       executor_kind="dask")


@pytest.mark.slow
def test_a_study_on_ray_records_the_trials_a_local_run_records(local_ray, in_tmp):
    """``search.executor = "ray"`` (``lotr tune run --executor ray``): each trial's games are Ray tasks, and the
    record is the one local workers make."""
    import tomllib

    import optuna

    from tuning.orchestrator import run_study
    from tuning.storage import storage_for, storage_object
    from tuning.study_file import parse_study

    text = """
        game = "carcassonne"
        [fixed]
        budget = 20
        ppn = 2
        [space]
        setup = { choice = ["mcts-random", "mcts-rave-random"] }
        [objective]
        games = 4
        [validation]
        top_k = 0
        [search]
        sampler = "grid"
        pruner = "none"
    """
    values = {}
    for name, executor in (("local", "local"), ("on-ray", "ray")):
        data = tomllib.loads(f'name = "{name}"\n' + text.replace("[search]", f'[search]\nexecutor = "{executor}"'))
        spec = parse_study(data, f"{name}.toml")
        assert spec.executor == executor and spec.ray_address is None
        run_study(spec)
        study = optuna.load_study(study_name=name, storage=storage_object(storage_for(name, None, 1)))
        values[name] = sorted((t.params["setup"], t.values[0], str(t.user_attrs["seats"])) for t in study.trials)
        assert {(t.user_attrs["executor"], t.user_attrs["evaluation_workers"]) for t in study.trials} == {
            (executor, 2 if executor == "ray" else 1)}  # on Ray: the instance's 2 CPUs
    assert values["local"] == values["on-ray"] and len(values["local"]) == 2
