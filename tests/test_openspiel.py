"""OpenSpiel: every game as a pyspiel game (``gamecore.openspiel``; OpenSpiel's own checks run on every game in
``tests/test_conformance.py``), and its MCTS bots as agents of the pipeline (``agents.openspiel``)."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from agents.evaluation import evaluate_setup  # noqa: E402
from agents.setup import Setup  # noqa: E402
from gamecore import openspiel  # noqa: E402
from gamecore.params import SpecError  # noqa: E402
from lotr_sim.encoding import OBSERVATION_SIZE  # noqa: E402


@pytest.mark.parametrize("difficulty", ["easy", "hard"])
def test_lotr_passes_openspiels_random_simulation_test_on_every_deck(difficulty):
    """pyspiel.random_sim_test: random games with cloning, serialisation and the legal-actions mask checked."""
    pyspiel.random_sim_test(openspiel.load("lotr", difficulty=difficulty), num_sims=10, serialize=True, verbose=False)


def dealt(name: str, seed: int = 3, **options):
    game = openspiel.load(name, deals=1, seed=seed, **options)
    state = game.new_initial_state()
    assert state.is_chance_node() and state.chance_outcomes() == [(0, 1.0)]
    state.apply_action(0)
    return game, state


def test_the_deal_is_the_chance_node_and_replays_the_games_own_deal():
    game = openspiel.load("lotr", difficulty="hard", seed=40, deals=10)
    state = game.new_initial_state()
    assert [p for _, p in state.chance_outcomes()] == [0.1] * 10
    state.apply_action(7)
    from lotr_sim.state import GameState
    assert state.ours == GameState("hard", 47)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 7) == "deal 47"


def test_lotr_tensors_are_its_observation_encoder_and_never_show_a_deck_order():
    game, state = dealt("lotr")
    assert game.observation_tensor_size() == OBSERVATION_SIZE == game.information_state_tensor_size()
    tensor = np.array(state.observation_tensor(0))
    assert tensor.shape == (OBSERVATION_SIZE,) and tensor.any()
    assert dealt("carcassonne")[0].observation_tensor_size() > 0  # every game with an encoder has tensors
    world = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert str(world) != str(state)
    assert np.array_equal(np.array(world.observation_tensor(0)), tensor)
    state.apply_action(state.legal_actions()[-1])
    assert not np.array_equal(np.array(state.observation_tensor(0)), tensor)


def test_openspiels_ismcts_bot_plays_through_resample_from_infostate():
    """The bot as OpenSpiel ships it, with its random rollouts, and no resampler of ours: it calls the state's."""
    game, state = dealt("loveletter")
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=1.0, max_simulations=50, random_state=np.random.RandomState(0))
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    assert sorted(state.returns()) in ([0.0, 1.0], [0.5, 0.5])


def test_openspiel_bots_are_agents_of_the_pipeline_and_replay_exactly():
    setup = Setup.parse("openspiel-ismcts-random", game="loveletter").with_params({"max_simulations": 30})
    runs = [evaluate_setup(setup, games=6, seed=11, seats="both") for _ in range(2)]
    assert not runs[0].oracle and runs[0].games == 12
    assert np.array_equal(runs[0].rewards, runs[1].rewards)
    oracle = evaluate_setup(Setup.parse("openspiel-mcts-random", game="loveletter").with_params(
        {"max_simulations": 30}), games=3, seed=11)
    assert oracle.oracle  # MCTSBot searches the true state: an upper bound, reported as such


def test_openspiel_agent_parameters_are_checked_in_one_line():
    with pytest.raises(SpecError, match="uct_c"):
        Setup.parse("openspiel-ismcts-random", game="loveletter").with_params({"uct_c": -1.0})
    with pytest.raises(SpecError, match="rollouts"):
        Setup.parse("openspiel-mcts-random", game="loveletter").with_params({"rollouts": "neural"})
