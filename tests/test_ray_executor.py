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
    setup = Setup.parse("random-mcts-mcts").with_params({"budget": 40, "ppn": 10})
    local = evaluate_setup(setup, "hard", games=300, seed=11, workers=2)
    on_ray = evaluate_setup(setup, "hard", games=300, seed=11, executor_kind="ray")
    assert on_ray.workers == 2  # the instance's CPUs
    assert np.array_equal(local.game_ids, on_ray.game_ids) and np.array_equal(local.records, on_ray.records)
    assert (local.wins, local.metrics) == (on_ray.wins, on_ray.metrics)


def test_an_unknown_executor_is_a_one_line_error():
    with pytest.raises(SpecError, match="unknown executor; valid: local, ray"):
        evaluate_setup("random", "hard", games=10, workers=2, executor_kind="dask")
