"""Learning agents on every game (``agents.learning``): the generic rules over a game's action spaces, masked PPO
through sb3-contrib, self-play, and the one-line errors of what cannot be learnt."""

import sys

import numpy as np
import pytest

import gamecore
from agents.batch import N_UNIFORMS
from agents.evaluation import evaluate_setup
from agents.learning import algorithms, make_learner
from agents.learning.train import train
from agents.setup import Setup
from agents.specs import SpecError


def nim_moves(learner) -> np.ndarray:
    """The stones a learner takes, greedily, from piles of 1-30 stones (the first player to move)."""
    game = gamecore.load("nim")
    states = np.stack([game.new_game(0, pile=pile).core_state() for pile in range(1, 31)])
    acts, _ = learner.choose(states, np.zeros((len(states), N_UNIFORMS)), "greedy")
    return acts[:, 0]


@pytest.mark.parametrize("algo", ["ac-direct", "q-direct"])
def test_the_thesis_learners_train_against_a_python_opponent(algo):
    """Love Letter's DP player decides in Python (not in the compiled game loop): the one-step learners' games
    wait on it and go on, rather than waiting forever."""
    setup = Setup.parse("rl-dp", "loveletter").with_params({"first.algo": algo, "first.neurons": 16})
    result = train(setup, episodes=300, seed=1, envs=8, window=100)
    assert result.wins.size == 300 and 0 < result.wins.mean() < 1


@pytest.mark.slow
@pytest.mark.parametrize("algo, opponent", [("q-direct", "optimal"), ("ac-direct", "random"),
                                            ("ppo-direct", "optimal")])
def test_a_learning_agent_reaches_nims_optimal_policy(tmp_path, algo, opponent):
    """Take 1-3 stones, the last stone wins: from every pile not a multiple of 4 the optimal move leaves one (takes
    pile % 4). Trained on Nim's own encoder and direct actions, every rule learns it at each of the 23 winning
    piles of 1-30. (Q-learning against the random player, 8,000 episodes, still errs at piles 25-30, which its
    games reach rarely: against the optimal one every error costs the game.)"""
    setup = Setup.parse(f"rl-{opponent}", "nim").with_params({"first.algo": algo})
    result = train(setup, {}, episodes=4000, seed=1, envs=4, window=200, out=tmp_path)
    took = nim_moves(make_learner("first", result.setup.first))
    wrong = [pile for pile in range(1, 31) if pile % 4 and took[pile - 1] != pile % 4]
    assert wrong == [], f"{algo} against {opponent}: not optimal at piles {wrong}"


def test_every_game_with_an_action_space_offers_each_rule_over_it():
    assert list(algorithms(gamecore.load("lotr"))) == ["q-macro", "ac-macro", "ppo-macro", "ac-direct"]
    for name in ("loveletter", "carcassonne", "nim"):
        assert {"q-direct", "ac-direct", "ppo-direct"} <= set(algorithms(gamecore.load(name))), name


@pytest.mark.slow
def test_ppo_trains_in_self_play_and_its_checkpoint_plays_both_seats(tmp_path):
    """Both seats rl with ppo: one network in self-play, written for each seat; it then plays either seat against
    another agent as an ordinary role of a setup."""
    setup = Setup.parse("rl-rl", "loveletter").with_params({"algo": "ppo-direct", "n_steps": 64, "neurons": 32})
    result = train(setup, {}, episodes=300, seed=2, envs=2, window=100, out=tmp_path)
    assert result.wins.size == 300 and (tmp_path / "first.pt").is_file() and (tmp_path / "second.pt").is_file()
    trained = Setup.load(tmp_path / "agent.toml")
    against = Setup(trained.first, Setup.parse("random-random", "loveletter").second)
    evaluation = evaluate_setup(against, games=200, seed=3, seats="both")
    assert set(evaluation.seats) == {"first", "second"} and evaluation.games == 400


def test_ppo_without_sb3_contrib_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if not installed: its import fails
    with pytest.raises(SpecError, match=r'sb3-contrib is not installed; pip install -e "\.\[ppo\]"'):
        make_learner("first", Setup.parse("rl-random", "loveletter").with_params({"first.algo": "ppo-direct"}).first)


def test_what_a_game_cannot_learn_is_one_line():
    with pytest.raises(SpecError, match=r"first\.algo = 'q-macro' is invalid; expected one of q-direct, ac-direct, "
                                        r"ppo-direct"):
        Setup.parse("rl-random", "loveletter").with_params({"first.algo": "q-macro"})
    encoders = len(gamecore.load("loveletter").encoders)
    with pytest.raises(SpecError, match=rf"first\.encoding = {encoders} is invalid; expected an integer in "
                                        rf"\[0, {encoders - 1}\]"):
        Setup.parse("rl-random", "loveletter").with_params({"first.encoding": encoders})


NIM_SELF_PLAY = """
name = "nim-self-play"
game = "nim"
setup = "rl-random"
[fixed]
algo = "ac-direct"
neurons = 16
[space]
lr = { float = [1e-3, 1e-2], log = true }
[objective]
games = 40
[training]
episodes = 48
envs = 8
setup = "rl-rl"
[validation]
top_k = 1
games = 40
[test]
games = 40
[search]
n_trials = 1
pruner = "none"
"""


@pytest.mark.usefixtures("no_plots")
def test_a_study_trains_its_networks_in_another_setup_and_plays_its_own(in_tmp, capsys):
    """``[training] setup = "rl-rl"``: each trial's network learns in self-play, then plays the study's setup
    (against random); a training setup that trains none of the study's networks is one line."""
    from conftest import run_cli

    from tuning.study_file import load_study

    study = in_tmp / "nim-self-play.toml"
    study.write_text(NIM_SELF_PLAY)
    code, _out, err = run_cli(capsys, "tune", "run", str(study), "--out", "best.toml")
    assert code == 0, err
    best = Setup.load(in_tmp / "best.toml")
    assert best.second.agent == "random" and best.first.agent == "rl" and best.first.as_dict()["weights"]
    study.write_text(NIM_SELF_PLAY.replace('setup = "rl-rl"', 'setup = "random-rl"'))
    with pytest.raises(SpecError, match=r"training.setup = 'random-rl' is invalid: it trains no network for first; "
                                        r"expected rl there$"):
        load_study(study)


def test_a_slots_network_scores_each_slot_from_the_global_features_and_that_slot_alone():
    """``net = "slots"``: one network shared by the slots, so a slot's logits are the same function of (global,
    its block) wherever the slot stands, and unmoved by the other slots' blocks."""
    import torch

    from agents.learning.slot_network import SlotNetwork

    torch.manual_seed(0)
    net = SlotNetwork((3, 4, 5, 2), neurons=8, layers=2)
    features = torch.randn(2, 3 + 4 * 5)
    logits = net.forward_actor(features).reshape(2, 4, 2)
    swapped = features.clone()
    swapped[:, 3:8], swapped[:, 18:23] = features[:, 18:23], features[:, 3:8]  # slots 0 and 3 exchanged
    moved = net.forward_actor(swapped).reshape(2, 4, 2)
    assert torch.allclose(moved[:, 0], logits[:, 3]) and torch.allclose(moved[:, 3], logits[:, 0])
    assert torch.allclose(moved[:, 1:3], logits[:, 1:3])
    assert net.forward_critic(features).shape == (2, 16)


def test_a_slots_network_where_the_game_or_the_rule_cannot_take_it_is_one_line():
    with pytest.raises(SpecError, match=r"^rl net = 'slots' on loveletter's encoder '[^']+' and action space 'direct'"
                                        r": they are not laid out by slot; use net = 'mlp'$"):
        make_learner("first", Setup.parse("rl-random", "loveletter").with_params(
            {"first.algo": "ppo-direct", "first.net": "slots"}).first)
    with pytest.raises(SpecError, match=r"^first: net = 'slots' is ppo's; algo ac-direct learns an MLP "
                                        r"\(net = 'mlp'\)$"):
        make_learner("first", Setup.parse("rl-random", "carcassonne").with_params(
            {"first.algo": "ac-direct", "first.net": "slots"}).first)


@pytest.mark.slow
def test_carcassonne_trains_a_slots_network_whose_checkpoint_plays_and_refuses_an_mlp(tmp_path):
    """Masked PPO over Carcassonne's slot layout: it trains, its checkpoint plays both seats as a role of a setup,
    and the same file given to an MLP agent is refused in one line naming the parameter."""
    setup = Setup.parse("rl-random", "carcassonne").with_params(
        {"first.algo": "ppo-direct", "first.net": "slots", "first.neurons": 16, "first.n_steps": 32})
    result = train(setup, {}, episodes=12, seed=2, envs=1, window=4, out=tmp_path)
    assert result.wins.size == 12
    trained = Setup.load(tmp_path / "agent.toml")
    assert trained.first.as_dict()["net"] == "slots"
    assert evaluate_setup(trained, games=2, seed=3, seats="both").games == 4
    as_mlp = trained.with_params({"first.net": "mlp"})
    with pytest.raises(SpecError, match=r"^first\.weights = '.+first\.pt': cannot load: trained for net 'slots', "
                                        r"not 'mlp'; give a \.pt trained for net 'mlp', or set net = 'slots'$"):
        make_learner("first", as_mlp.first)


THESIS_OBJECTIVE = """
name = "thesis-objective"
difficulty = "hard"
setup = "rl-rl-random"
[fixed]
algo = "ac-direct"
encoding = 0
[space]
lr = { choice = [1.0, 6.5e-4] }
[objective]
metrics = ["best_window"]
games = 60
[training]
episodes = 300
envs = 1
[validation]
top_k = 0
[search]
sampler = "grid"
pruner = "none"
"""


@pytest.mark.usefixtures("no_plots")
def test_the_thesis_objective_is_the_best_training_window_and_a_diverged_trial_fails_alone(in_tmp, capsys):
    """``metrics = ["best_window"]`` (thesis 5.7): a trial's value is its best moving win rate in training, its
    network's win rate on the study's deals kept beside; a trial whose training diverges (lr 1.0) fails with that
    reason in one line and the study goes on."""
    import optuna
    from conftest import run_cli

    study = in_tmp / "thesis-objective.toml"
    study.write_text(THESIS_OBJECTIVE)
    code, _out, err = run_cli(capsys, "tune", "run", str(study))
    assert code == 0, err
    assert "best training window" in err
    assert "trial 0 fail (training diverged: the critic's value reached" in err
    trials = optuna.load_study(study_name="thesis-objective", storage="sqlite:///thesis-objective.db").trials
    diverged = [t for t in trials if t.state == optuna.trial.TrialState.FAIL]
    learned = [t for t in trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert [t.params["lr"] for t in diverged] == [1.0] and learned and {t.params["lr"] for t in learned} == {6.5e-4}
    assert diverged[0].user_attrs["error"].startswith("training diverged: the critic's value reached")
    for trial in learned:
        assert trial.value == trial.user_attrs["best_training_win_rate"] > 0
        assert trial.user_attrs["games"] == 60 and 0 < trial.user_attrs["win_rate"] < 1
