"""The thesis's experiments on Love Letter through the pipeline: the Monte Carlo player, fixed opening hands,
one-seat studies over a game option, the published counts in the report and ``lotr loveletter table``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import optuna
import pytest
from scipy.stats import chisquare

import gamecore
from agents.agent import Agent
from agents.evaluation import evaluate_setup
from agents.setup import Setup
from agents.specs import AgentSpec, agent_names
from gamecore.row import BUDGET, BUDGET_PER, BUDGET_PER_ACTION
from loveletter_sim import kernels as K
from loveletter_sim.game import LoveLetterState, Play
from loveletter_sim.published import COUNTS, GAMES, TABLE4
from tuning import cli
from tuning.orchestrator import run_study
from tuning.report import write_report
from tuning.report_sections import sections
from tuning.report_tables import best_markdown
from tuning.study_file import SpecError, load_study
from tuning.study_results import Measured, StudyRun


def test_the_monte_carlo_player_is_flat_mc_with_the_budget_for_each_option():
    assert "mc" in agent_names("loveletter") and "mc" not in agent_names("lotr")
    spec = AgentSpec.make("mc", game="loveletter")
    assert spec.as_dict() == {"budget": 1000, "playout": "random", "opponent_playout": "playout",
                              "own_playout": "playout", "opponent_belief": "uniform", "budget_per": "action",
                              "reward": "outcome"}
    row = spec.row()
    assert row[BUDGET] == 1000 and row[BUDGET_PER] == BUDGET_PER_ACTION
    assert AgentSpec.make("flat-mc", game="loveletter")["budget_per"] == "decision"  # flat-mc keeps its default


def test_flat_mc_with_a_budget_for_each_action_takes_the_immediate_win():
    """A Guard naming a known Princess wins at once. Among 8 options a budget of 4 per decision tries only 4
    of them; 30 for each action tries every one 30 times (another option winning all 30 is unlikely)."""
    found = {}
    for per, budget in (("decision", 4), ("action", 30)):
        spec = AgentSpec.make("flat-mc", game="loveletter", budget=budget, budget_per=per)
        wins = 0
        for seed in range(40):
            state = LoveLetterState(seed)
            s = state._s
            s[K.HAND], s[K.HAND + 1], s[K.HAND + 2] = K.GUARD, K.KING, K.PRINCESS
            s[K.KNOWN] = K.PRINCESS
            wins += Agent(spec, seed=seed).act(state) == Play(K.GUARD, guess=K.PRINCESS)
        found[per] = wins
    assert found["action"] == 40 and found["decision"] < 35


def test_the_monte_carlo_player_beats_random():
    result = evaluate_setup(Setup.parse("mc-random", "loveletter").with_params({"budget": 100}), games=400, seed=3,
                            seats="first")
    assert result.seats["first"]["wins"] / 400 > 0.6


def test_a_fixed_opening_deals_those_cards_first_and_shuffles_the_rest():
    game = gamecore.load("loveletter")
    aside = np.zeros(9, np.int64)
    for seed in range(3000):
        state = game.new_game(seed, opening="1-8")
        cards = sorted(int(c) for c in state._s[K.ORDER:K.ORDER + K.N_CARDS])
        assert cards == sorted(v for v in range(1, 9) for _ in range(K.COPIES[v]))
        assert state.hand(0) == [1, 8] and state.to_move == 0
        aside[state._s[K.ORDER]] += 1
    left = np.array([K.COPIES[v] - (v in (1, 8)) for v in range(1, 8)], float)
    assert aside[8] == 0
    assert chisquare(aside[1:8], 3000 * left / left.sum()).pvalue > 0.001
    assert np.array_equal(LoveLetterState(5)._s, game.new_game(5)._s)  # the random deal is unchanged


def test_an_impossible_opening_is_a_one_line_error():
    with pytest.raises(SpecError, match=r"opening = '8-8' is invalid; expected one of random, 1-1, 1-2"):
        gamecore.load("loveletter").check_options({"opening": "8-8"})


STUDY = """
name = "ll-openings"
game = "loveletter"
setup = "dp-dp"

[space]
opening = {{ choice = ["1-8", "1-7"] }}

[objective]
games = {games}
seed = 0
seat = "first"

[validation]
top_k = 0

[search]
sampler = "grid"
pruner = "none"

[report]
section = "loveletter-openings"
title = "Openings"
columns = ["setup", "opening"]
reason = "a reason"
"""


@pytest.mark.usefixtures("no_plots")
def test_a_one_seat_grid_over_a_game_option_and_its_report(in_tmp):
    (in_tmp / "study.toml").write_text(STUDY.format(games=100))
    spec = load_study(in_tmp / "study.toml")
    assert spec.searched_options == ("opening",) and spec.seat == "first" and not spec.trains
    result = run_study(spec)
    assert result.complete == 2
    study = optuna.load_study(study_name="ll-openings", storage="sqlite:///ll-openings.db")
    for trial in study.trials:
        assert trial.user_attrs["options"]["opening"] == trial.params["opening"]
        recorded = Setup.read_mapping(Path(trial.user_attrs["folder"]) / "agent.toml")
        assert recorded["metadata"]["options"]["opening"] == trial.params["opening"]  # what lotr eval --config plays
        [(seat, counts)] = list(trial.user_attrs["seats"].items())
        assert seat == "first" and counts["games"] == 100 == trial.user_attrs["games"]
    direct = evaluate_setup(Setup.parse("dp-dp", "loveletter"), games=100, seed=0, seats="first",
                            options={"opening": "1-8"})
    eighteen = next(t for t in study.trials if t.params["opening"] == "1-8")
    assert eighteen.user_attrs["seats"]["first"] == direct.seats["first"]
    out = write_report([in_tmp / "study.toml"], in_tmp / "results.md", in_tmp)
    text = out.read_text()
    assert "| dp-dp | 1-8 |" in text and "723,094 / 276,906 (Table 9)" in text
    wins = direct.seats["first"]
    assert f"{wins['wins']:,} / {wins['losses']:,} / {wins['draws']:,}" in text


@pytest.mark.parametrize(
    "change, message",
    [
        ('seat = "first"', None),
        ('seat = "middle"', "objective.seat = 'middle' is invalid; expected one of first, second, both"),
        ('opening = {{ choice = ["1-8", "9-9"] }}', "opening = '9-9' is invalid"),
        ('opening = {{ int = [1, 8] }}', "space.opening is invalid; expected { choice = [...] }"),
    ],
)
def test_study_file_errors_for_seats_and_game_options(tmp_path, change, message):
    text = STUDY.format(games=10)
    key = change.partition(" =")[0]
    lines = [change.replace("{{", "{").replace("}}", "}") if line.startswith(f"{key} =") else line
             for line in text.splitlines()]
    (tmp_path / "s.toml").write_text("\n".join(lines))
    if message is None:
        assert load_study(tmp_path / "s.toml").seat == "first"
        return
    with pytest.raises(SpecError, match=message.replace("[", r"\[").replace("{", r"\{").replace("}", r"\}")):
        load_study(tmp_path / "s.toml")


def test_a_seat_in_a_game_without_seats_and_an_option_given_twice_are_errors(tmp_path):
    (tmp_path / "lotr.toml").write_text('name = "x"\nsetup = "random-mcts-mcts"\ndifficulty = "easy"\n[space]\n'
                                        'budget = { int = [1, 2] }\n[objective]\nseat = "first"\n')
    with pytest.raises(SpecError, match="objective.seat = 'first' is invalid; expected no seat: lotr is not a two"):
        load_study(tmp_path / "lotr.toml")
    (tmp_path / "twice.toml").write_text(STUDY.format(games=10) + '\n[options]\nopening = "1-8"\n')
    with pytest.raises(SpecError, match="opening is both fixed and in \\[space\\]"):
        load_study(tmp_path / "twice.toml")


def test_the_published_counts_are_the_thesis_tables():
    rows = {p.label: p for p in gamecore.load("loveletter").reproduction.published if p.experiment == "loveletter-pairs"}
    assert len(rows) == 16 and {tuple(label.split("-")) for label in rows} == set(COUNTS)
    assert rows["random-random"].params["counts"] == (516_016, 483_867)
    assert rows["dp-dp"].win_rate == pytest.approx(56.9022) and rows["dp-dp"].interval == pytest.approx(0.097, abs=1e-3)
    assert all(p.games == GAMES for p in rows.values())


def test_lotr_loveletter_table_prints_table4_beside_the_thesis(capsys):
    assert cli.main(["loveletter", "table", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(r["b1"], r["b2"]) for r in data["rows"]] == [row[1:3] for row in TABLE4]
    assert {(r["b1"], r["b2"]) for r in data["rows"] if r["agrees"]} == {(3, 3), (3, 6), (3, 7), (3, 8)}
    assert data["nonzero_entries"] == 1_929_405 and data["thesis_nonzero"] == 2_604_215
    assert cli.main(["loveletter", "table", "--cards", "4"]) == 0
    assert "non-zero" in capsys.readouterr().out


def test_the_games_are_found_from_any_folder(tmp_path):
    found = subprocess.run([sys.executable, "-c", "import gamecore; print(gamecore.names())"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout
    assert "'loveletter'" in found and "'lotr'" in found


def test_the_two_player_best_agent_claim_is_made_seat_by_seat():
    spec = load_study("studies/loveletter/loveletter-ismcts.toml")
    section = next(s for s in sections({spec.name: StudyRun(spec, None)}) if s.key == "loveletter-ismcts")
    seats = {"first": {"wins": 58_000, "draws": 0, "losses": 42_000, "games": 100_000, "win_rate": 0.58,
                       "wilson_95": [0.577, 0.583]},
             "second": {"wins": 43_000, "draws": 0, "losses": 57_000, "games": 100_000, "win_rate": 0.43,
                        "wilson_95": [0.427, 0.433]}}
    test = {"win_rate": 0.505, "wilson_95": [0.503, 0.507], "games": 200_000, "seed": 2000003, "seats": seats}
    validation = {"win_rate": 0.5, "wilson_95": [0.49, 0.51], "games": 40_000, "seed": 1000003}
    best = Measured(spec.name, 3, "mcts-dp", False, {}, {}, Setup.parse("mcts-dp", "loveletter"), 0.51, 0.5, 0.52,
                    6000, 0.0001, chosen={"test": test, "validation": validation})
    text = "\n".join(best_markdown(section, StudyRun(spec, [best]), best))
    assert ("first seat 58.00% [57.70, 58.30] on 100,000: above dp-dp's 56.90 (Tables 6, 11; 569,022 of 1,000,000): "
            "+1.10 points [+0.73, +1.46] (97.50%), p = 2.3e-11") in text  # the interval at Holm's level
    assert ("second seat 43.00% [42.70, 43.30] on 100,000: not above dp-dp's 43.09 (Tables 6, 11; 430,949 of "
            "1,000,000): -0.09 points [-0.42, +0.23] (95.00%), p = 0.56") in text
    assert "--games 100000 --seed 2000003 --seat both" in text
