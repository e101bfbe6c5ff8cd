"""The `lotr` command line, the batch evaluation and the win-rate intervals."""

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import run_cli

from agents import progress
from agents.evaluation import evaluate_setup
from agents.setup import Setup
from gamecore.stats import normal_half_width, wilson_interval


@pytest.mark.parametrize(
    "argv, field, valid",
    [
        (("eval", "--difficulty", "nightmare"), "difficulty", "easy, medium, hard"),
        (("eval", "--policy", "smart"), "policy", "random, expert, rule, rule-full, flat-mc, mcts, oracle-mcts, rl"),
        (("play", "--difficulty", "nightmare"), "difficulty", "easy, medium, hard"),
        (("play", "--policy", "clever"), "policy", "random, expert, rule, rule-full, flat-mc, mcts, oracle-mcts, rl"),
    ],
)
def test_unknown_values_give_one_line_listing_the_valid_ones_and_exit_2(capsys, argv, field, valid):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"unknown {field}" in err and valid in err


@pytest.mark.parametrize("argv", [("eval", "--games", "0"), ("eval", "--seed", "-1"), ("eval", "--workers", "x")])
def test_bad_numbers_are_rejected_in_one_line(capsys, argv):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_play_prints_the_trace_of_one_game(capsys):
    code, out, _ = run_cli(capsys, "play", "--difficulty", "hard", "--seed", "7", "--policy", "expert")
    assert code == 0
    assert out.startswith("setup: Forest Spider#22 starts in the staging area")
    assert "Round 1 (threat 24)" in out
    assert out.strip().splitlines()[-1].startswith("game over: ")
    again = run_cli(capsys, "play", "--difficulty", "hard", "--seed", "7", "--policy", "expert")[1]
    assert again == out


def test_eval_json_reports_rate_interval_losses_rounds_and_speed(capsys):
    code, out, _ = run_cli(capsys, "eval", "--policy", "random", "--difficulty", "medium", "--games", "2000", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["games"] == 2000
    assert result["wins"] + result["lost_by_threat"] + result["lost_by_heroes"] == 2000
    low, high = result["wilson_95"]
    assert low < result["win_rate"] < high
    assert sum(result["rounds_histogram"].values()) == 2000
    assert result["games_per_second"] > 0 and result["mean_rounds"] > 1
    by_outcome = result["rounds_by_outcome"]  # the thesis's Figures 3.5, 6.1 and 6.3: rounds per outcome
    assert sum(by_outcome["won"].values()) == result["wins"]
    assert sum(by_outcome["lost by threat"].values()) == result["lost_by_threat"]
    assert {r: sum(o.get(r, 0) for o in by_outcome.values()) for r in result["rounds_histogram"]} == result[
        "rounds_histogram"]


def test_lotr_choices_counts_the_rounds_in_which_each_decision_offered_a_choice(capsys, tmp_path):
    """The thesis's Figure 3.4: under the random agent, questing offers a choice every round, travel and attack
    least often; the record is what the report reads."""
    out = tmp_path / "choices-hard.json"
    code, text, _ = run_cli(capsys, "lotr", "choices", "--games", "200", "--seed", "5", "--out", str(out))
    assert code == 0 and text.splitlines()[1].startswith("questing: a choice in ")
    roles = json.loads(out.read_text())["roles"]
    share = {role: c["rounds_with_choice"] / c["rounds"] for role, c in roles.items()}
    assert share["questing"] == 1 and max(share["travel"], share["attack"]) < min(share["planning"], share["defense"])
    assert len({c["rounds"] for c in roles.values()}) == 1
    from lotr_sim.report import choices_markdown

    [row] = [line for line in choices_markdown(tmp_path) if line.startswith("| hard")]
    assert row.startswith("| hard | corrected | random-random-random | 200 (5) | ") and "| 100.0% |" in row


NOISY_LOTR = """
import atexit, os, sys
import agents.evaluation
from tuning.cli import main
atexit.register(os.write, 1, b"a library's line at exit\\n")  # as Ray's shutdown at exit
play = agents.evaluation.evaluate_setup
def noisy(*args, **kwargs):  # as Ray's core worker when a node dies
    os.write(1, b"a library's line on file descriptor 1\\n")
    return play(*args, **kwargs)
agents.evaluation.evaluate_setup = noisy
sys.exit(main())
"""


def test_eval_json_stdout_is_the_json_document_alone_whatever_else_writes_to_it():
    """``lotr eval --json`` in a real process, with lines written to file descriptor 1 behind Python's back as it
    plays and at exit (what Ray does when a node dies): stdout is the document, the lines are on stderr."""
    done = subprocess.run([sys.executable, "-c", NOISY_LOTR, "eval", "--policy", "random", "--difficulty", "hard",
                           "--games", "300", "--workers", "2", "--json"], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"] == 300
    assert "a library's line on file descriptor 1" in done.stderr and "a library's line at exit" in done.stderr


def test_eval_text_report_names_the_figures(capsys):
    code, out, _ = run_cli(capsys, "eval", "--games", "500", "--difficulty", "easy")
    assert code == 0
    assert "500 games" in out and "95% Wilson interval" in out and "by threat" in out and "games/s" in out


def test_results_do_not_depend_on_the_number_of_workers():
    setup = Setup.parse("random", "lotr")
    one = evaluate_setup(setup, options={"difficulty": "hard"}, games=30_000, seed=11, workers=1)
    two = evaluate_setup(setup, options={"difficulty": "hard"}, games=30_000, seed=11, workers=2)
    assert np.array_equal(one.game_ids, np.arange(30_000)) and np.array_equal(two.game_ids, np.arange(30_000))
    assert np.array_equal(one.records, two.records)
    assert (one.wins, one.metrics) == (two.wins, two.metrics)


def test_same_seed_same_deals_different_seed_different_games():
    setup = Setup.parse("random-random-random", "lotr")
    a = evaluate_setup(setup, options={"difficulty": "medium"}, games=3000, seed=1)
    b = evaluate_setup(setup, options={"difficulty": "medium"}, games=3000, seed=1)
    c = evaluate_setup(setup, options={"difficulty": "medium"}, games=3000, seed=2)
    assert np.array_equal(a.records, b.records) and a.metrics == b.metrics
    assert not np.array_equal(a.records, c.records)


def test_per_stage_agents_are_used_per_stage():
    all_random = evaluate_setup(Setup.parse("random-random-random", "lotr"), options={"difficulty": "hard"},
                                games=5000, seed=3)
    expert_defense = evaluate_setup(Setup.parse("random-random-expert", "lotr"), options={"difficulty": "hard"},
                                    games=5000, seed=3)
    assert expert_defense.wins > all_random.wins
    assert expert_defense.decisions["defense"] > 0 and expert_defense.ms_per_decision["defense"] is not None


def test_wilson_interval_known_values():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)


def test_normal_half_width_is_the_thesis_formula():
    assert normal_half_width(4530, 100_000) == pytest.approx(0.0013, abs=1e-4)  # Table 3.2: 4.53 +- 0.13


def test_a_few_games_spread_over_the_workers():
    """Two games on two workers are two chunks, one a worker (a Star2.5 game takes minutes: one chunk of all
    the games would leave a worker idle)."""
    chunks = []
    result = evaluate_setup(Setup.parse("random-random-random", "lotr"), options={"difficulty": "easy"}, games=2,
                            seed=0, workers=2, on_chunk=lambda ids, rewards: chunks.append(sorted(ids.tolist())))
    assert result.games == 2 and sorted(chunks) == [[0], [1]]


def test_progress_without_a_terminal_is_plain_lines(monkeypatch, capsys):
    """In a job's log file (stderr not a terminal, as here) progress is a line now and then with the games, the
    win rate so far and the time left, not a bar's carriage-return redraws; a last line at the end."""
    monkeypatch.setattr(progress, "FIRST_LINE_SECONDS", 0.0)
    monkeypatch.setattr(progress, "LINE_INTERVAL_SECONDS", 0.0)
    result = evaluate_setup(Setup.parse("random-random-random", "lotr"),
                            options={"difficulty": "easy"}, games=3000, seed=0, progress=True, max_chunk=500)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert "\r" not in err and len(lines) >= 3 and "ETA" in lines[0]
    assert lines[-1].startswith(f"  games 3,000/3,000 (100%) | win {100 * result.win_rate:.1f}% | ")


def test_help_lists_every_game_with_its_agents_and_its_own_commands(capsys):
    """From the registry: a new game (the tests' nim too) is listed without a line written for it."""
    import gamecore
    from agents.specs import agent_names

    code, out, _ = run_cli(capsys, "--help")
    assert code == 0
    for name in gamecore.names():
        line = next(line for line in out.splitlines() if line.strip().startswith(f"{name}: agents "))
        assert all(agent in line for agent in agent_names(name))
        assert all(command.name in line for command in gamecore.load(name).command_line.commands) or "no commands" in line


def test_a_game_without_commands_of_its_own_lists_its_agents(capsys):
    code, out, _ = run_cli(capsys, "carcassonne", "--help")
    assert code == 0 and "carcassonne's own commands: none" in out and "star25" in out
    code, _, err = run_cli(capsys, "carcassonne")
    assert code == 2 and err.strip().endswith("has no commands of its own; play it with lotr play --game carcassonne")


def test_gametune_and_lotr_are_the_same_tool():
    from importlib.metadata import entry_points

    scripts = {e.name: e.value for e in entry_points(group="console_scripts") if e.value == "tuning.cli:main"}
    assert set(scripts) == {"gametune", "lotr"}


def test_one_agent_on_a_two_player_game_says_self_play_on_the_first_line(capsys):
    code, _, err = run_cli(capsys, "eval", "--game", "loveletter", "--setup", "mcts", "--set", "budget=4", "--games", "2")
    assert code == 0 and err.startswith("self-play: mcts against itself in every seat")


def test_gametune_agents_lists_a_games_agents_and_one_agents_parameters(capsys):
    code, out, _ = run_cli(capsys, "agents", "loveletter")
    assert code == 0 and out.splitlines()[0].startswith("agents of loveletter") and "  dp  " in out
    code, out, _ = run_cli(capsys, "agents", "loveletter", "mcts")
    rows = {line.split()[0]: line for line in out.splitlines()[2:]}
    assert code == 0 and out.splitlines()[1].split()[:5] == ["parameter", "type", "default", "valid", "values"]
    assert rows["opponent_belief"].split()[1:3] == ["str", "uniform"] and "one of uniform, dp" in rows["opponent_belief"]
    assert rows["budget"].split()[1:3] == ["int", "200"] and "[1, 100000]" in rows["budget"]
    code, _, err = run_cli(capsys, "agents", "loveletter", "chess-engine")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "valid: random, strategic" in err


def test_a_one_line_error_about_a_parameter_points_to_gametune_agents(capsys):
    code, _, err = run_cli(capsys, "eval", "--game", "loveletter", "--setup", "mcts-random", "--set", "ppx=3")
    assert code == 2 and "(gametune agents loveletter AGENT explains each)" in err
