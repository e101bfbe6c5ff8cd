"""The perfect-information limit (``lotr_sim.limit``, ``lotr_lab.limit``): the exhaustive search's verdicts, checked by play."""

import json

import numpy as np
from conftest import random_play, run_cli
from numba import types
from numba.typed import Dict

from lotr_lab.limit import Limit
from lotr_sim.limit import LOSS, UNKNOWN, WIN, WON, nested, search
from lotr_sim.policies import RULE
from lotr_sim.state import GameState


def verdict(state: GameState, nodes: int = 200_000) -> int:
    return search(state.core_state(), np.array([0, nodes], np.int64), Dict.empty(types.int64, types.boolean))


def late_states(difficulty: str, games: int):
    """States two decisions or fewer from the end of random hard games."""
    for state in random_play(lambda g: GameState(difficulty, g), games, seed=4):
        if state.is_over:
            continue
        probe = state.clone()
        rng = np.random.default_rng(0)
        steps = 0
        while not probe.is_over and steps < 3:
            actions = probe.legal_actions()
            probe.apply(actions[rng.integers(len(actions))])
            steps += 1
        if probe.is_over and steps <= 2:
            yield state


def test_a_finished_game_is_its_outcome():
    ends = [s for s in random_play(lambda g: GameState("easy", g), 40) if s.is_over]
    assert {verdict(s) for s in ends} == {WIN, LOSS}
    assert all(verdict(s) == (WIN if s.returns()[0] == 1.0 else LOSS) for s in ends)


def test_a_proven_loss_is_lost_after_every_action_and_a_found_win_is_won_by_some_action():
    """A LOSS verdict is checked against every action (each child a LOSS, the game never won in 200 random
    playouts); a WIN verdict has a child that is a WIN."""
    losses = wins = 0
    for state in late_states("hard", 60):
        if losses >= 3 and wins >= 3:
            break
        outcome = verdict(state, nodes=20_000)
        if outcome == UNKNOWN:
            continue
        children = []
        for action in state.legal_actions():
            child = state.clone()
            child.apply(action)
            children.append(child)
        if outcome == LOSS:
            losses += 1
            assert all(verdict(child, nodes=20_000) == LOSS for child in children)
            rng = np.random.default_rng(1)
            for _ in range(200):
                game = state.clone()
                game.play_out("random", rng)
                assert game.returns()[0] == 0.0
        else:
            wins += 1
            assert any(verdict(child, nodes=20_000) == WIN for child in children)
    assert losses >= 3 and wins >= 3


def test_the_limit_is_bounded_by_lines_found_and_losses_proven():
    limit = Limit("hard", 0, 100, 90, 2, 4, 6, 1000, 1.0, 2.0, [3, 5, 7, 11, 13, 17])
    assert limit.bounds == (0.90, 0.96)
    low, high = limit.interval
    assert low < 0.90 and 0.96 < high < 1.0
    assert "between 90.00% and 96.00%" in limit.report() and "deals 3, 5, 7, 11, 13, 17" in limit.report()


def test_lotr_limit_command(capsys, tmp_path):
    out = tmp_path / "limit-easy.json"
    code, stdout, _ = run_cli(capsys, "lotr", "limit", "--difficulty", "easy", "--deals", "20", "--seed", "5",
                              "--json", "--out", str(out))
    assert code == 0
    data = json.loads(stdout)
    assert data == json.loads(out.read_text())
    assert data["deals"] == 20 and data["lines_found"] + data["losses_proven"] + data["unknown"] == 20
    assert data["bounds"][0] <= data["bounds"][1]


def test_the_report_opens_with_the_limit(tmp_path):
    from lotr_sim.report import limit_markdown

    limit = Limit("hard", 2000003, 1000, 994, 0, 0, 6, 1_000_000, 600.0, 30.0, [1, 2, 3, 4, 5, 6])
    (tmp_path / "limit-hard.json").write_text(json.dumps({**limit.__dict__, "bounds": limit.bounds,
                                                          "interval": limit.interval}))
    lines = limit_markdown(tmp_path)
    assert lines[0].startswith("## The limit")
    assert "| first quest | hard | 1,000 (2000003) | 994 | 0 | 6 | [99.4, 100.0] | [98.7, 100.0] | 630 |" in lines
    assert limit_markdown(tmp_path / "none") == []


def nested_outcome(state: GameState, level: int) -> int:
    return nested(state.core_state(), level, np.full(5, RULE, np.int64), np.array([3], np.uint64))


def test_the_nested_search_claims_no_win_where_every_line_loses_and_finds_a_win_one_decision_away():
    """Its WON is a line played to a win: never on a state the exhaustive search proves lost; and trying every
    action at the first decision, it finds a win that one action gives; the state searched is left as it was."""
    lost = one_step = 0
    for state in late_states("hard", 120):
        if lost >= 5 and one_step >= 2:
            break
        before = state.core_state().copy()
        outcome = verdict(state, nodes=20_000)
        if outcome == LOSS and lost < 5:
            lost += 1
            assert nested_outcome(state, 2) != WON
        elif outcome == WIN:
            children = []
            for action in state.legal_actions():
                child = state.clone()
                child.apply(action)
                children.append(child)
            if any(child.is_over and child.returns()[0] == 1.0 for child in children):
                one_step += 1
                assert nested_outcome(state, 1) == WON
        assert np.array_equal(state.core_state(), before)
    assert lost >= 5 and one_step >= 2


def test_the_full_scenario_limit_sets_the_agent_against_it(capsys, tmp_path):
    """``--full-scenario --agent``: the agent's wins are winning lines, and the report gives its share of the limit
    and its losses by cause and by the quest stage reached."""
    from lotr_sim.report import limit_markdown

    out = tmp_path / "limit-full-hard.json"
    code, stdout, _ = run_cli(capsys, "lotr", "limit", "--full-scenario", "--deals", "4", "--seed", "3", "--nodes",
                              "100", "--agent", "studies/lotr/best/agent.toml", "--json", "--out", str(out))
    assert code == 0
    data = json.loads(stdout)
    assert data["full_scenario"] and data["scenario"] == "full scenario"
    agent = data["agent"]
    assert agent["games"] == 4 and agent["wins"] <= data["lines_found"]
    losses = agent["metrics"]["losses_by_stage"]
    assert sum(losses.values()) == 4 - agent["wins"] == agent["metrics"]["lost_by_heroes"] + agent["metrics"][
        "lost_by_threat"]
    text = "\n".join(limit_markdown(tmp_path))
    assert "| full scenario | hard | 4 (3) |" in text and "The honest agent against the limit: full scenario" in text


def test_the_report_gives_the_honest_agents_losses_by_cause_and_stage_or_says_it_lost_none(tmp_path):
    from lotr_sim.report import limit_markdown

    limit = Limit("hard", 2000003, 10, 10, 0, 0, 0, 100_000, 5.0, 0.0, [], full_scenario=True)
    for wins, by_stage, expected in ((8, {"Flies and Spiders": 1, "Beorn's Path": 1},
                                      ("Its 2 losses: 0 by threat, 2 by heroes; by the quest stage they reached: "
                                       "1 in Flies and Spiders, 1 in Beorn's Path.")),
                                     (10, {}, "It loses none.")):
        agent = {"config": "a.toml", "setup": "rule-full", "games": 10, "wins": wins, "wilson_95": [0.5, 1.0],
                 "mean_seconds_per_game": 0.01, "metrics": {"lost_by_threat": 0, "lost_by_heroes": 10 - wins,
                                                            "losses_by_stage": by_stage}}
        (tmp_path / "limit-full-hard.json").write_text(json.dumps({**limit.__dict__, "agent": agent,
                                                                   "scenario": limit.scenario,
                                                                   "bounds": limit.bounds,
                                                                   "interval": limit.interval}))
        paragraph = next(line for line in limit_markdown(tmp_path) if line.startswith("`a.toml`"))
        assert paragraph.endswith(f"10.0 ms a game. {expected}")


def test_the_limit_takes_its_game_options_as_everywhere_else(capsys):
    """``--option full_scenario=true`` and ``--option difficulty=medium`` are the shorthands' options; the published
    rules, which the limit's searches do not play, are refused in one line."""
    def limit(*flags):
        code, stdout, err = run_cli(capsys, "lotr", "limit", *flags, "--deals", "3", "--seed", "3", "--nodes", "50",
                                    "--json")
        return code, (json.loads(stdout) if code == 0 else err)

    _, by_option = limit("--option", "full_scenario=true", "--option", "difficulty=medium")
    _, by_flag = limit("--full-scenario", "--difficulty", "medium")
    assert by_option["full_scenario"] and by_option["difficulty"] == "medium"
    assert ({k: v for k, v in by_option.items() if not k.startswith("seconds")}
            == {k: v for k, v in by_flag.items() if not k.startswith("seconds")})
    code, err = limit("--option", "rules=published")
    assert code == 2 and err.strip() == "lotr limit: --option rules=published: the limit plays the corrected rules only"
