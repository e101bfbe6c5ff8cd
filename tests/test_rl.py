"""RL agents: encodings, decoders, learning, checkpoints."""

import json

import numpy as np
import pytest
from conftest import make_state, run_cli

import gamecore
from agents.batch import N_UNIFORMS
from agents.evaluation import evaluate_setup
from agents.learning import algorithms, make_learner
from agents.learning.train import save_checkpoint, train
from agents.setup import Setup
from agents.specs import AgentSpec, SpecError
from lotr_sim.actions import decode
from lotr_sim.cards import N_CARDS
from lotr_sim.decoders import MACRO_ACTIONS, macro_action
from lotr_sim.encoding import encode, encoding_size

STAGE_OF = {"planning": 1, "questing": 2, "defense": 5}


def encoded(game, encoding=0, stage="questing"):
    out = np.empty(encoding_size(stage, encoding), np.float32)
    encode(game.core_state(), encoding, out)
    return out


def vector(size, ones, last):
    v = np.zeros(size, np.float32)
    v[list(ones)] = 1
    v[-1] = last
    return v


def test_planning_encoding():
    # Allies 4, 7, 11 in hand (indices 1, 4, 8); staged Orcs 19 and Spider 23 (indices 15 + 1, 15 + 5); 5 resources.
    game = make_state(phase="planning", hand=(4, 7, 11), staging=(19, 23, 34), resources=(2, 2, 1))
    assert np.array_equal(encoded(game, stage="planning"), vector(29, (1, 4, 8, 16, 20), 5))


@pytest.mark.parametrize(
    "encoding, ones, last",
    [
        (0, (0, 1, 2, 9, 18 + 1, 18 + 5), 3),  # characters, staged enemies, round
        (1, (0, 1, 2, 9, 18 + 3, 30 + 1, 30 + 5), 3),  # + staged locations (Old Forest Road 34 -> 3)
        (2, (0, 1, 2, 9, 18 + 1, 18 + 5), 2 + 2 + 1),  # staged enemies, staging threat (2 + 2 + location 1)
        (3, (0, 1, 2, 9, 18 + 12), 5),  # engaged enemies (Ungoliant's Spawn 30 -> 12), staging threat
    ],
)
def test_questing_encodings(encoding, ones, last):
    game = make_state(phase="questing", in_play=(9,), staging=(19, 23, 34), engaged=(30,), round=3)
    assert np.array_equal(encoded(game, encoding), vector(encoding_size("questing", encoding), ones, last))


def test_defense_encoding_has_ready_characters_engaged_enemies_and_round():
    game = make_state(phase="defense", in_play=(9, 12), exhausted=(1, 12), engaged=(18, 27), round=4)
    assert np.array_equal(encoded(game, stage="defense"), vector(32, (0, 2, 9, 18 + 0, 18 + 9), 4))


def test_every_macro_action_is_legal(decision_states):
    act = np.empty(N_CARDS, np.int64)
    seen = 0
    for game in decision_states:
        stage = game.stage.label
        if stage not in MACRO_ACTIONS:
            continue
        S = game.core_state()
        for index in range(MACRO_ACTIONS[stage]):
            macro_action(S, index, act, np.empty_like(S), np.empty(N_CARDS))
            assert game.is_legal(decode(game.stage, act)), (stage, index, game.why_illegal(decode(game.stage, act)))
            seen += 1
    assert seen > 300


def test_macro_actions_follow_their_definitions():
    act = np.empty(N_CARDS, np.int64)
    # Planning, 8 resources, hand: Gandalf 15 (w4 d4 c5), Rider 12 (w2 d0 c3), Lorien Guide 3 (w0 d1 c3).
    game = make_state(phase="planning", hand=(3, 12, 15), resources=(3, 3, 2))
    S = game.core_state()
    bought = {}
    for index in range(7):
        macro_action(S, index, act, np.empty_like(S), np.empty(N_CARDS))
        bought[index] = set(np.flatnonzero(act == 1))
    assert bought[0] == {15, 12}  # willpower per cost: Gandalf .8, Rider .67, Guide 0
    assert bought[5] == {15, 3}  # defense per cost: Gandalf .8, Guide .33
    assert bought[6] == {3, 12}  # cheapest first: 3 + 3, then Gandalf (5) no longer affordable
    # Questing against staging threat 4: "everything" commits all; b = 1 commits Eowyn (4 willpower) only.
    game = make_state(phase="questing", staging=(22, 23))
    S = game.core_state()
    macro_action(S, 0, act, np.empty_like(S), np.empty(N_CARDS))
    assert set(np.flatnonzero(act == 1)) == {0, 1, 2}
    macro_action(S, 1, act, np.empty_like(S), np.empty(N_CARDS))
    assert set(np.flatnonzero(act == 1)) == {1}
    # Defense: "no defenders" sends every attack to a hero; "strongest" (defense + hitpoints left) blocks
    # with Dunhere (1 + 4), tied with Eleanor (2 + 3) and lower id; "lowest willpower" also picks Dunhere (1).
    game = make_state(phase="defense", engaged=(18,))
    S = game.core_state()
    macro_action(S, 3, act, np.empty_like(S), np.empty(N_CARDS))
    assert act[18] >= 64
    macro_action(S, 0, act, np.empty_like(S), np.empty(N_CARDS))
    assert act[18] == 0
    game = make_state(phase="defense", engaged=(18,), damage={0: 3})  # Dunhere 1 + 1 left: Eleanor now
    S = game.core_state()
    macro_action(S, 0, act, np.empty_like(S), np.empty(N_CARDS))
    assert act[18] == 2


@pytest.mark.parametrize("algo", sorted(algorithms(gamecore.load("lotr"))))
def test_every_learner_chooses_legal_actions_in_every_mode(decision_states, algo):
    spec = AgentSpec.make("rl", algo=algo, encoding=1, game="lotr")
    rng = np.random.default_rng(0)
    for stage in ("planning", "questing", "defense"):
        games = [g for g in decision_states if g.stage.label == stage][:40]
        learner = make_learner(stage, spec, seed=1)
        states = np.stack([g.core_state() for g in games])
        for mode in ("train", "greedy", "sample"):
            acts, choices = learner.choose(states, rng.random((len(games), N_UNIFORMS)), mode)
            assert choices["obs"].shape == (len(games), learner.obs_size)
            for game, act in zip(games, acts):
                assert game.is_legal(decode(game.stage, act)), (algo, stage, mode)


@pytest.mark.parametrize("algo", sorted(algorithms(gamecore.load("lotr"))))
def test_saved_and_loaded_learners_decide_the_same(tmp_path, decision_states, algo):
    setup = Setup.parse("rl-rl-rl", "lotr").with_params({"algo": algo})
    result = train(setup, {"difficulty": "easy"}, episodes=60, seed=3, envs=4, window=20)
    assert result.setup == setup  # no out folder: nothing written, the setup names no weights
    learners = {stage: make_learner(stage, setup.agents[i], seed=9) for i, stage in ((0, "planning"), (1, "questing"))}
    stepped = () if algo.startswith("ppo") else learners.values()  # ppo learns from whole rollouts, not one step
    for learner in stepped:  # a step of learning, so that the weights are not the initial ones
        states = np.stack([g.core_state() for g in decision_states if g.stage.label == learner.role][:8])
        _, choices = learner.choose(states, np.full((8, N_UNIFORMS), 0.5), "train")
        ones = np.ones(8, np.float32)
        learner.learn(choices, ones, {key: choices[key] for key in ("obs", "mask") if key in choices}, ones, ones)
    saved = save_checkpoint(learners, setup, {stage: learner.state_dict() for stage, learner in learners.items()}, tmp_path)
    loaded = Setup.load(tmp_path / "agent.toml")
    assert loaded == saved
    for stage, learner in learners.items():
        again = make_learner(stage, loaded.agents[("planning", "questing").index(stage)], seed=123)
        states = np.stack([g.core_state() for g in decision_states if g.stage.label == stage][:30])
        uniforms = np.random.default_rng(1).random((30, N_UNIFORMS))
        for mode in ("greedy", "sample"):
            assert np.array_equal(learner.choose(states, uniforms, mode)[0], again.choose(states, uniforms, mode)[0])


def test_training_learns_on_easy(tmp_path):
    """ac-direct random-rl-random, a short vectorised run: clearly above the random setup on the same fresh deals."""
    result = train(Setup.parse("random-rl-random", "lotr"), {"difficulty": "easy"}, episodes=1500, seed=0, envs=16,
                   out=tmp_path, window=500)
    assert result.wins.size == 1500 and result.best_episode >= 500
    assert (tmp_path / "agent.toml").is_file() and (tmp_path / "final" / "questing.pt").is_file()
    curve = (tmp_path / "curve.csv").read_text().splitlines()
    assert curve[0] == "episode,win,moving_win_rate" and len(curve) == 1501
    assert curve[499].endswith(",") and float(curve[500].split(",")[2]) == pytest.approx(result.wins[:500].mean(), abs=1e-4)
    trained = evaluate_setup(Setup.load(tmp_path / "agent.toml"), options={"difficulty": "easy"}, games=2000, seed=77)
    baseline = evaluate_setup(Setup.parse("random-random-random", "lotr"), options={"difficulty": "easy"}, games=2000,
                              seed=77)
    assert trained.wilson_95[0] > baseline.wilson_95[1] + 0.1, (trained.report(), baseline.report())


def test_training_is_reproducible_and_the_online_mode_learns_one_transition_at_a_time():
    setup = Setup.parse("random-rl-random", "lotr")
    a = train(setup, {"difficulty": "medium"}, episodes=150, seed=5, window=50)
    b = train(setup, {"difficulty": "medium"}, episodes=150, seed=5, window=50)
    assert np.array_equal(a.wins, b.wins) and a.best_average == b.best_average
    c = train(setup, {"difficulty": "medium"}, episodes=150, seed=6, window=50)
    assert not np.array_equal(a.wins, c.wins)


def test_rl_setup_errors_are_one_line(capsys, tmp_path):
    with pytest.raises(SpecError, match="travel: agent rl decides planning, questing, defense only"):
        Setup.parse("random-random-rl-random-random", "lotr")
    with pytest.raises(SpecError, match="has no rl role"):
        train(Setup.parse("random-mcts-random", "lotr"), {"difficulty": "easy"}, episodes=5)
    code, _, err = run_cli(capsys, "train", "--setup", "random-rl-random", "--algo", "sarsa", "--episodes", "5")
    assert code == 2 and "algo = 'sarsa' is invalid; expected one of q-macro, ac-macro, ppo-macro, ac-direct" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "train", "--setup", "random-rl-random", "--lr", "2", "--episodes", "5")
    assert code == 2 and "questing.lr = 2 is invalid" in err
    (tmp_path / "agent.toml").write_text('setup = "random-rl-random"\n[questing]\nweights = "missing.pt"\n')
    code, _out, err = run_cli(capsys, "eval", "--config", str(tmp_path / "agent.toml"), "--games", "5")
    assert code == 2 and "questing.weights" in err and "missing.pt" in err and len(err.strip().splitlines()) == 1


def test_lotr_train_writes_checkpoints_that_lotr_eval_plays(capsys, tmp_path):
    code, out, _ = run_cli(
        capsys, "train", "--setup", "random-rl-random", "--algo", "ac-macro", "--encoding", "0",
        "--difficulty", "easy", "--episodes", "200", "--envs", "8", "--window", "100", "--out", str(tmp_path),
    )
    assert code == 0 and "best 100-episode moving win rate" in out
    code, out, _ = run_cli(capsys, "eval", "--config", str(tmp_path / "agent.toml"), "--games", "50", "--difficulty", "easy")
    assert code == 0 and "setup random-rl-random" in out and "ms per decision" in out


def test_a_trained_agent_is_evaluated_on_the_game_it_was_trained_on(capsys, tmp_path):
    """``lotr train`` records its game options in the checkpoint; ``lotr eval --config`` plays them unless told
    otherwise, and names them on stderr."""
    code, _, _ = run_cli(capsys, "train", "--setup", "random-rl-random", "--algo", "ac-direct", "--difficulty", "easy",
                         "--option", "rules=published+idle-quest", "--episodes", "40", "--envs", "4", "--window", "20",
                         "--out", str(tmp_path))
    assert code == 0
    config = str(tmp_path / "agent.toml")
    code, out, err = run_cli(capsys, "eval", "--config", config, "--games", "20", "--json")
    assert code == 0 and "rules=published+idle-quest" in err and "difficulty=easy" in err
    assert json.loads(out)["options"] == {"difficulty": "easy", "full_scenario": False,
                                          "rules": "published+idle-quest"}
    code, out, err = run_cli(capsys, "eval", "--config", config, "--games", "20", "--json", "--option",
                             "rules=corrected", "--difficulty", "hard")
    assert code == 0 and "game options recorded" not in err
    assert json.loads(out)["options"] == {"difficulty": "hard", "full_scenario": False, "rules": "corrected"}


def test_lotr_play_with_a_trained_agent_is_the_harness_game(tmp_path):
    """The Python interface (``Agent``, checked actions) plays the harness's game for the same deal."""
    from agents.play import play_traced_game
    from gamecore.rng import derive_seed

    train(Setup.parse("rl-rl-random", "lotr"), {"difficulty": "medium"}, episodes=100, seed=2, envs=8, out=tmp_path,
          window=50)
    setup = Setup.load(tmp_path / "agent.toml").with_params({"policy": "sample"})
    result = evaluate_setup(setup, options={"difficulty": "medium"}, games=12, seed=4)
    for i in range(12):
        game = play_traced_game(setup, int(derive_seed(np.uint64(4), np.uint64(i))), difficulty="medium")
        assert int(game.outcome) == result.records[i, 0], f"game {i}"


def test_a_checkpoint_says_what_it_was_trained_for_and_is_refused_elsewhere_in_one_line(tmp_path):
    """The second format names its game, role, algo, encoding and depth; a learner of another is refused with one
    line naming the difference and the fix. The first format (the networks alone: the shipped best-rl) loads."""
    from agents.learning.checkpoint import save_weights

    questing = AgentSpec.make("rl", algo="ac-macro", encoding=1, neurons=12, game="lotr")
    learner = make_learner("questing", questing, seed=1)
    save_weights(learner, learner.state_dict(), tmp_path / "q.pt")
    again = make_learner("questing", questing.with_params(weights=str(tmp_path / "q.pt")), seed=2)
    assert all((a == b).all() for a, b in zip(again.modules["actor"].parameters(), learner.modules["actor"].parameters()))
    for changes, problem in (({"encoding": 3}, ("trained for encoding 1, not 3; give a .pt trained for encoding 3, "
                                               "or set encoding = 1")),
                             ({"algo": "q-macro"}, "trained for algo 'ac-macro', not 'q-macro'"),
                             ({"layers": 2}, "trained for layers 1, not 2")):
        with pytest.raises(SpecError) as caught:
            make_learner("questing", questing.with_params(weights=str(tmp_path / "q.pt"), **changes))
        assert problem in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(SpecError, match="trained for role 'questing', not 'defense'; give a .pt trained for lotr's "
                                        "defense"):
        make_learner("defense", questing.with_params(weights=str(tmp_path / "q.pt")))
    best = Setup.load("studies/lotr/best-rl/agent.toml")
    assert make_learner("questing", best.questing).modules  # the first format


def test_deeper_networks_train_and_the_compiled_playouts_refuse_them_in_one_line(tmp_path):
    setup = Setup.parse("random-rl-random", "lotr").with_params({"algo": "q-macro", "layers": 2, "neurons": 16})
    result = train(setup, {"difficulty": "easy"}, episodes=40, seed=1, envs=4, window=20, out=tmp_path)
    learner = make_learner("questing", result.setup.questing)
    assert [type(m).__name__ for m in learner.q] == ["Linear", "ReLU", "Linear", "ReLU", "Linear"]
    with pytest.raises(SpecError, match="its questing network has 2 hidden layers; the compiled playouts take one"):
        Setup.parse("rule-mcts-rule", "lotr").with_params({"playout_nets": str(tmp_path / "agent.toml")})



def _autograd_actor_critic_step(learner, optimizer, choices, reward, after, done, discount):
    """The reference: one-step actor-critic through PyTorch's autograd and Adam (the learners' code before NumPy)."""
    import torch
    import torch.nn.functional as F

    actor, critic = learner.modules["actor"], learner.modules["critic"]
    obs, n = torch.from_numpy(choices["obs"]), len(reward)
    logits = actor(obs)
    if "index" in choices:  # ac-<space>: a softmax over the legal indices
        masked = logits.masked_fill(~torch.from_numpy(choices["mask"]), -torch.inf)
        log_prob = torch.log_softmax(masked, 1).gather(1, torch.from_numpy(choices["index"])[:, None]).squeeze(1)
    elif "picks" in choices:  # ac-direct planning: a sequence of softmax draws
        picks, masks = torch.from_numpy(choices["picks"]), torch.from_numpy(choices["masks"])
        scores = logits[:, None, :].expand(-1, masks.shape[1], -1).masked_fill(~masks, -1e9)
        chosen = torch.log_softmax(scores, 2).gather(2, picks.clamp(min=0)[:, :, None]).squeeze(2)
        log_prob = (chosen * (picks >= 0)).sum(1)
    else:  # ac-direct questing and defense: a Bernoulli draw per eligible character
        per_card = -F.binary_cross_entropy_with_logits(logits, torch.from_numpy(choices["chosen"]).float(),
                                                       reduction="none")
        log_prob = (per_card * torch.from_numpy(choices["eligible"])).sum(1)
    value = critic(obs).squeeze(1)
    next_value = critic(torch.from_numpy(after["obs"])).squeeze(1).detach() * torch.from_numpy(1.0 - done)
    delta = torch.from_numpy(reward) + learner.spec["gamma"] * next_value - value
    loss = (delta**2).mean() - (torch.from_numpy(discount) * delta.detach() * log_prob).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    assert n == len(choices["obs"])


@pytest.mark.parametrize("algo, stage, layers", [("ac-direct", "planning", 1), ("ac-direct", "questing", 1),
                                                 ("ac-direct", "defense", 2), ("ac-macro", "questing", 1),
                                                 ("ac-macro", "planning", 3)])
def test_the_numpy_actor_critic_steps_as_autograd_and_adam_do(decision_states, algo, stage, layers):
    """The actor-critics learn in NumPy over their PyTorch networks' memory (``numpy_nets``): several updates on
    real decisions leave the same weights as autograd and ``torch.optim.Adam`` on a twin learner."""
    import torch

    spec = AgentSpec.make("rl", algo=algo, encoding=2, neurons=40, layers=layers, lr=3e-3, game="lotr")
    learner, twin = make_learner(stage, spec, seed=4), make_learner(stage, spec, seed=4)
    optimizer = torch.optim.Adam([p for net in twin.modules.values() for p in net.parameters()], lr=spec["lr"])
    states = np.stack([g.core_state() for g in decision_states if g.stage.label == stage][:24])
    rng = np.random.default_rng(2)
    for _ in range(6):
        _, choices = learner.choose(states, rng.random((len(states), N_UNIFORMS)), "train")
        after = {key: np.roll(choices[key], 1, axis=0) for key in ("obs", "mask") if key in choices}
        reward = rng.choice([-1.0, 0.0, 1.0], len(states)).astype(np.float32)
        done = (rng.random(len(states)) < 0.3).astype(np.float32)
        discount = (0.99 ** rng.integers(0, 8, len(states))).astype(np.float32)
        learner.learn(choices, reward, after, done, discount)
        _autograd_actor_critic_step(twin, optimizer, choices, reward, after, done, discount)
    for name, net in learner.modules.items():
        for mine, theirs in zip(net.parameters(), twin.modules[name].parameters()):
            assert torch.allclose(mine, theirs, rtol=1e-4, atol=1e-6), (name, (mine - theirs).abs().max())
    assert any(not torch.equal(p, q) for p, q in zip(learner.modules["actor"].parameters(),
                                                       make_learner(stage, spec, seed=4).modules["actor"].parameters()))


def test_a_diverged_training_is_one_line_naming_it():
    """A learning rate that blows the networks up (the published code's NaN at encoding 0) stops the training with
    TrainingDiverged, which a study records as its trial's failure, not a crash."""
    from agents.learning import TrainingDiverged

    setup = Setup.parse("rl-rl-random", "lotr").with_params({"lr": 1.0, "encoding": 0})
    with pytest.raises(TrainingDiverged, match=r"training diverged: the critic's value reached .* \(a learning rate"):
        train(setup, {"difficulty": "hard"}, episodes=400, seed=0, window=50)
