"""The game interface is real: Nim (``examples/nim``, a package installed beside gametune and found by its
entry point) plugs in, and the agents, the two-player evaluation and a TPE study run on it unchanged."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import optuna
import pytest
from conftest import run_cli

import gamecore
from agents.agent import Agent
from agents.evaluation import evaluate_setup
from agents.setup import Setup
from agents.specs import AgentSpec, SpecError, agent_names
from tuning.orchestrator import run_study
from tuning.study_file import load_study


def winning_take(pile: int, max_take: int = 3) -> int:
    """The known optimum: leave a multiple of max_take + 1 (0 when the position is lost)."""
    return pile % (max_take + 1)


def test_a_game_package_is_found_by_its_name():
    assert {"lotr", "nim"} <= set(gamecore.names())
    nim = gamecore.load("nim")
    assert nim.roles == ("first", "second") and nim.by_seat and nim.n_players == 2
    assert agent_names("nim") == ("random", "optimal", "flat-mc", "mcts", "oracle-mcts", "rl",
                                  "openspiel-ismcts", "openspiel-mcts")
    with pytest.raises(SpecError, match=r"^unknown game 'chess'; valid: .*lotr.*nim"):
        gamecore.load("chess")
    with pytest.raises(SpecError, match="nim has no option 'difficulty'; its options: pile, max_take"):
        nim.check_options({"difficulty": "hard"})


def test_the_python_state_interface():
    state = gamecore.load("nim").new_game(5, pile=6)
    assert (state.to_move, state.decision_kind, state.legal_actions()) == (0, "take", [1, 2, 3])
    copy = state.clone()
    state.apply(2)
    assert (state.pile, copy.pile, state.to_move) == (4, 6, 1)
    with pytest.raises(SpecError, match="take 4 is illegal with 4 stones left; legal: \\[1, 2, 3\\]"):
        state.apply(4)
    again = type(state).from_json(state.to_json())
    assert again.observation(0) == state.observation(1) == {"pile": 4, "to_move": 1, "max_take": 3}
    state.apply(3)
    state.apply(1)
    assert state.is_over and state.returns() == [1.0, 0.0] and state.to_move is None


@pytest.mark.parametrize("agent, params, piles", [("mcts", {"ppn": 1}, range(5, 19)),
                                                   ("mcts", {"ppn": 1, "rave": True, "rave_bias": 10.0}, range(5, 19)),
                                                   ("flat-mc", {}, range(5, 12))])
def test_search_with_a_large_budget_plays_the_known_optimum(agent, params, piles):
    """MCTS converges to the minimax move, and so does MCTS-RAVE whose schedule fades the all-moves-as-first
    prior quickly (b = 10: with b <= 1 it misleads the search at piles 17-18, where taking k stones is worth
    little as a later move); flat Monte Carlo (random playouts, no tree) only where the playouts' values rank
    the moves as minimax does, on small piles."""
    spec = AgentSpec.make(agent, game="nim", budget=5000, **params)
    nim = gamecore.load("nim")
    for pile in piles:
        if winning_take(pile):
            assert Agent(spec, seed=pile).act(nim.new_game(0, pile=pile)) == winning_take(pile), f"pile {pile}"


def test_mcts_backs_up_each_players_own_reward():
    """Were the opponent's reward backed up as the searcher's, the tree would expect help from the
    opponent. Against the optimal player, from every winning pile, MCTS must win every game; and it
    beats random in both seats."""
    strong = Setup.parse("mcts-optimal", "nim").with_params({"budget": 5000, "ppn": 1})
    for pile in (9, 10, 11, 13, 14, 15):
        result = evaluate_setup(strong, games=5, seed=pile, seats="first", options={"pile": pile})
        assert result.wins == 5, f"pile {pile}"
    result = evaluate_setup(Setup.parse("mcts-random", "nim"), games=300, seed=1)
    assert set(result.seats) == {"first", "second"}
    assert all(c["wins"] / c["games"] > 0.8 for c in result.seats.values())


def test_two_player_evaluation_plays_both_seats_on_the_same_deals():
    both = evaluate_setup(Setup.parse("optimal-optimal", "nim"), games=400, seed=3)
    first = evaluate_setup(Setup.parse("optimal-optimal", "nim"), games=400, seed=3, seats="first")
    # Optimal against optimal: the deal decides. On the same deals the first seat wins exactly where the
    # second seat (the same agent, seats exchanged) loses.
    assert both.seats["first"]["wins"] + both.seats["second"]["wins"] == 400
    assert both.seats["first"] == first.seats["first"] and both.games == 800
    assert np.array_equal(both.rewards[:400] + both.rewards[400:], np.ones(400))
    assert both.wins == 400 and both.draws == 0 and 0.45 < both.win_rate < 0.55
    assert both.metrics["mean_moves"] > 1 and set(both.ms_per_decision) == {"first", "second"}
    assert "first seat:" in both.report() and "moves per game" in both.report()


def test_evaluation_with_two_workers_equals_one_worker():
    one = evaluate_setup(Setup.parse("mcts-random", "nim"), games=60, seed=4)
    two = evaluate_setup(Setup.parse("mcts-random", "nim"), games=60, seed=4, workers=2)
    assert np.array_equal(one.rewards, two.rewards) and one.seats == two.seats


def test_setups_and_configurations_name_their_game(tmp_path):
    setup = Setup.parse("mcts-random", "nim").with_params({"first.budget": 50})
    path = tmp_path / "nim.toml"
    setup.dump(path)
    assert Setup.load(path) == setup and setup.first.agent == "mcts" and setup.second.agent == "random"
    assert setup.swapped().agents == (setup.second, setup.first)
    with pytest.raises(SpecError, match="unknown agent 'expert' at first; valid: random, optimal"):
        Setup.parse("expert-random", "nim")
    with pytest.raises(SpecError, match="is a lotr agent, not a nim one"):
        Setup(AgentSpec.make("random", game="lotr"), AgentSpec.make("random", game="lotr"), game="nim")


def test_cli_evaluates_and_plays_the_game(capsys):
    """The game found by its entry point by a fresh process (``lotr play``); evaluated and refused in this one."""
    env = {"PATH": "/usr/bin:/bin"}
    played = subprocess.run([sys.executable, "-m", "tuning.cli", "play", "--game", "nim", "--setup", "optimal-random",
                             "--option", "pile=9"], capture_output=True, text=True, env=env, check=True)
    assert played.stdout.startswith("player 0 takes 1, 8 left") and "winner: player 0" in played.stdout
    for seat, games, seats in (([], 50, {"first"}), (["--seat", "both"], 100, {"first", "second"})):
        code, out, _ = run_cli(capsys, "eval", "--game", "nim", "--setup", "optimal-random", "--games", "50", *seat,
                               "--json")
        result = json.loads(out)
        assert code == 0 and result["game"] == "nim" and result["games"] == games and set(result["seats"]) == seats
    code, _, err = run_cli(capsys, "eval", "--game", "nim", "--difficulty", "hard")
    assert code == 2 and "nim has no option 'difficulty'" in err.strip().splitlines()[-1]


@pytest.mark.usefixtures("no_plots")
def test_a_two_trial_tpe_study_tunes_mcts_on_nim(in_tmp):
    (in_tmp / "nim.toml").write_text(
        'name = "nim-mcts"\ngame = "nim"\nsetup = "mcts-random"\n\n[options]\nmax_take = 3\n\n'
        '[space]\n"first.c" = { float = [0.1, 3.0] }\n"first.budget" = { int = [20, 200] }\n\n'
        "[objective]\ngames = 40\n\n[validation]\ntop_k = 2\ngames = 60\n\n[test]\ngames = 60\n\n"
        '[search]\nsampler = "tpe"\nn_trials = 2\npruner = "none"\n'
    )
    spec = load_study(in_tmp / "nim.toml")
    assert spec.game.name == "nim" and dict(spec.options) == {"pile": 0, "max_take": 3}
    result = run_study(spec)
    assert result.complete == 2 and result.failed == 0
    study = optuna.load_study(study_name="nim-mcts", storage="sqlite:///nim-mcts.db")
    assert all(t.user_attrs["games"] == 80 for t in study.trials)  # 40 deals, each in both seats
    assert result.selection["test"]["games"] == 120 and result.selection["search"]["games"] == 80
    exported = Setup.load(result.exported)
    assert exported.game.name == "nim" and exported.first.agent == "mcts"
    assert exported.first["budget"] == study.trials[result.selection["trial"]].params["first.budget"]
    metadata = Setup.read_mapping(result.exported)["metadata"]  # each seat's figure, for the report
    assert metadata["test_seats"] == result.selection["test"]["seats"] and "seats" in result.selection["test"]


def test_a_broken_plug_in_is_named_and_the_other_games_still_play(tmp_path):
    """An installed game whose entry point does not load: `--help` names it with why, the other games' commands run,
    and asking for it is one line (no traceback)."""
    info = tmp_path / "broken_game-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-game\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[gametune.games]\nbroken = no_such_module.game:GAME\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}:{Path(__file__).resolve().parent.parent}"}

    def gametune(*args):
        return subprocess.run([sys.executable, "-m", "tuning.cli", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300, check=False)

    helped = gametune("--help")
    assert helped.returncode == 0 and "broken: does not load (game broken: its entry point" in helped.stdout
    played = gametune("eval", "--game", "nim", "--policy", "random", "--games", "10")
    assert played.returncode == 0, played.stderr
    asked = gametune("eval", "--game", "broken", "--policy", "random")
    assert asked.returncode == 2 and "Traceback" not in asked.stderr
    assert asked.stderr.strip().splitlines()[-1].endswith("No module named 'no_such_module'")
