"""Agents: honesty, legality, non-interference with the real game, search sanity, the harness."""

import json

import numpy as np
import pytest
from conftest import run_cli

from agents.agent import Agent
from agents.evaluation import evaluate_setup
from agents.interruption import Interrupted
from agents.play import play_traced_game, role_agents
from agents.search import compiled
from agents.setup import Setup
from agents.specs import AgentSpec
from lotr_sim import GameState, kernels
from lotr_sim.cards import N_CARDS

SMALL = {
    "flat-mc": AgentSpec.make("flat-mc", budget=30, game="lotr"),
    "mcts": AgentSpec.make("mcts", budget=40, ppn=4, game="lotr"),
    "mcts-expert": AgentSpec.make("mcts", budget=40, ppn=4, playout="expert", final="mean", reduction=False,
                                  game="lotr"),
    "oracle-mcts": AgentSpec.make("oracle-mcts", budget=40, ppn=4, game="lotr"),
    "flat-mc-rule-full": AgentSpec.make("flat-mc", budget=30, playout="rule-full", reduction=False, game="lotr"),
    "mcts-rule-full": AgentSpec.make("mcts", budget=40, ppn=4, playout="rule-full", prior=3.0, game="lotr"),
}
HONEST = ("flat-mc", "mcts", "mcts-expert", "flat-mc-rule-full", "mcts-rule-full")


# -- honesty ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HONEST)
def test_honest_decisions_do_not_depend_on_the_hidden_deck_order(decision_states, full_scenario_states, name):
    """Same observation, same agent seed, different true deck orders: the same decision (first-quest and
    full-scenario states)."""
    rng = np.random.default_rng(5)
    for i, game in enumerate(decision_states[::6] + full_scenario_states[::5]):
        other = game.determinize(rng)  # same observation, re-drawn hidden order
        assert other.observation() == game.observation()
        a = Agent(SMALL[name], seed=i).act(game)
        b = Agent(SMALL[name], seed=i).act(other)
        assert a == b, f"{name} read the hidden deck order at state {i}"


def test_the_oracle_reads_the_deck_order(decision_states):
    rng = np.random.default_rng(5)
    changed = 0
    for i, game in enumerate(decision_states[::6]):
        other = game.determinize(rng)
        if Agent(SMALL["oracle-mcts"], seed=i).act(game) != Agent(SMALL["oracle-mcts"], seed=i).act(other):
            changed += 1
    assert changed > 0


# -- the real game ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*HONEST, "oracle-mcts"])
def test_a_decision_leaves_the_real_game_untouched(decision_states, name):
    """Deciding changes nothing; the game then differs from before only by the chosen action."""
    for i, state in enumerate(decision_states[::9]):
        game, before = state.clone(), state.clone()
        S = game.core_state()
        original = S.copy()
        act = np.empty(N_CARDS, np.int64)
        compiled(kernels).decide(S, SMALL[name].row(), np.array([i], np.uint64), act, np.empty_like(S))  # as the game loop calls it
        assert np.array_equal(S, original)
        action = Agent(SMALL[name], seed=i).act(game)
        assert game == before
        game.apply(action)
        before.apply(action)
        assert game == before


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_every_agent_decides_legally_on_every_stage(difficulty):
    """The compiled game loop raises on an illegal decision; every agent plays every stage."""
    for name in ("expert", *SMALL):
        setup = Setup(*[SMALL.get(name) or AgentSpec.make(name, game="lotr")] * 5)
        result = evaluate_setup(setup, options={"difficulty": difficulty}, games=40, seed=7)
        assert result.games == 40
        assert all(result.decisions[stage] > 0 for stage in ("planning", "questing", "defense"))


@pytest.mark.parametrize("short", ["random-mcts-mcts", "expert-random-expert"])
def test_python_play_is_the_harness_game(short):
    """``lotr play`` (Python interface, checked actions) plays the harness's game for that deal."""
    setup = Setup.parse(short, "lotr").with_params({"budget": 40, "ppn": 8} if "mcts" in short else {})
    result = evaluate_setup(setup, options={"difficulty": "medium"}, games=6, seed=3)
    from gamecore.rng import derive_seed

    for i in range(6):
        game = play_traced_game(setup, int(derive_seed(np.uint64(3), np.uint64(i))), difficulty="medium")
        assert int(game.outcome) == result.records[i, 0]
    assert set(role_agents(setup, 0)) == {"planning", "questing", "travel", "defense", "attack"}


# -- search sanity ---------------------------------------------------------------------------


def test_mcts_questing_clearly_beats_random_on_hard():
    hard = {"difficulty": "hard"}
    baseline = evaluate_setup(Setup.parse("random-random-random", "lotr"), options=hard, games=400, seed=0)
    mcts = evaluate_setup(Setup.parse("random-mcts-random", "lotr"), options=hard, games=400, seed=0)
    assert mcts.wilson_95[0] > baseline.wilson_95[1] + 0.05, (mcts.report(), baseline.report())


def test_mcts_with_budget_one_plays_its_expert_playout_policy():
    """One playout: the tree expands the playout policy's choice first and returns it."""
    mcts = AgentSpec.make("mcts", budget=1, playout="expert", reduction=False, game="lotr")
    expert = AgentSpec.make("expert", game="lotr")
    random = AgentSpec.make("random", game="lotr")
    with_mcts = evaluate_setup(Setup(random, mcts, random, mcts, random),
                               options={"difficulty": "hard"}, games=2000, seed=4)
    with_expert = evaluate_setup(Setup(random, expert, random, expert, random),
                                 options={"difficulty": "hard"}, games=2000, seed=4)
    assert np.array_equal(with_mcts.records, with_expert.records)


def test_mcts_with_budget_one_plays_like_its_random_playout_policy():
    spec = AgentSpec.make("mcts", budget=1, reduction=False, game="lotr")
    random = AgentSpec.make("random", game="lotr")
    mcts = evaluate_setup(Setup(random, spec, random, spec, random),
                          options={"difficulty": "medium"}, games=20_000, seed=8)
    base = evaluate_setup(Setup.parse("random-random-random", "lotr"), options={"difficulty": "medium"}, games=20_000,
                          seed=8)
    assert abs(mcts.win_rate - base.win_rate) < 4 * np.sqrt(0.25 / 10_000), (mcts.report(), base.report())


def test_a_strong_prior_makes_mcts_follow_its_playout_policy(decision_states):
    """Progressive bias: prior far above any mean gives the playout policy's choice the visits, so the search
    plays the policy (up to the decisions where that choice depends on hidden cards, redrawn in each
    determinization); without it the playouts decide, and often otherwise."""
    states = [g for g in decision_states if len(g.legal_actions()) > 1][::3]
    rule = [Agent(AgentSpec.make("rule", game="lotr"), seed=i).act(g) for i, g in enumerate(states)]

    def agreement(prior: float) -> float:
        spec = AgentSpec.make("mcts", budget=60, ppn=1, playout="rule", prior=prior, reduction=False, game="lotr")
        return float(np.mean([Agent(spec, seed=i).act(g) == rule[i] for i, g in enumerate(states)]))

    strong, none = agreement(1000.0), agreement(0.0)
    assert len(states) > 100 and strong > 0.95 and none < strong - 0.15, (strong, none)


def test_evaluation_is_identical_with_one_and_two_workers():
    setup = Setup.parse("random-mcts-mcts", "lotr").with_params({"budget": 40, "ppn": 10})
    one = evaluate_setup(setup, options={"difficulty": "hard"}, games=120, seed=2, workers=1)
    two = evaluate_setup(setup, options={"difficulty": "hard"}, games=120, seed=2, workers=2)
    assert np.array_equal(one.game_ids, two.game_ids) and np.array_equal(one.records, two.records)
    assert one.metrics == two.metrics


# -- reports and errors ----------------------------------------------------------------------


def test_the_report_has_every_figure_and_marks_the_oracle():
    result = evaluate_setup(Setup.parse("random-oracle-mcts-random", "lotr").with_params({"budget": 20, "ppn": 5}),
                            options={"difficulty": "hard"}, games=30)
    text = result.report()
    assert text.startswith("ORACLE")
    for figure in ("Wilson interval", "normal +-", "by threat", "histogram", "p95", "ms per decision", "questing"):
        assert figure in text
    data = result.to_dict()
    assert data["oracle"] is True and data["config"]["questing"]["agent"] == "oracle-mcts"
    assert result.ms_per_decision["questing"] > 0 and result.p95_seconds_per_game >= result.mean_seconds_per_game / 10
    json.dumps(data)


def test_eval_reads_a_config_file_and_applies_set(capsys, tmp_path):
    path = tmp_path / "best.toml"
    Setup.parse("random-mcts-mcts", "lotr").with_params({"budget": 20, "ppn": 5}).dump(path, metadata={"study": "t"})
    code, out, _ = run_cli(capsys, "eval", "--config", str(path), "--games", "20", "--json", "--set", "defense.c=2")
    assert code == 0
    config = json.loads(out)["config"]
    assert config["questing"]["budget"] == 20 and config["defense"]["c"] == 2.0 and config["questing"]["c"] != 2.0


@pytest.mark.parametrize(
    "argv, expected",
    [
        (("--setup", "random-mtcs-mcts"), "unknown agent 'mtcs' at questing; valid: random, expert, rule, rule-full, flat-mc, mcts"),
        (("--setup", "random-mcts"), "expected 1 agent, 3 parts"),
        (("--setup", "random-mcts-mcts", "--set", "questing.depth=3"), "mcts has no parameter 'depth'"),
        (("--setup", "random-mcts-mcts", "--set", "ppn=0"), "ppn = 0 is invalid; expected an integer in [1, 100000]"),
        (("--setup", "random-mcts-mcts", "--set", "playout=smart"), "expected one of random, expert"),
        (("--config", "/nonexistent/best.toml"), "cannot read"),
        (("--policy", "mcts", "--setup", "random-mcts-mcts"), "give --policy alone"),
    ],
)
def test_bad_setups_are_one_line_errors_with_exit_code_2(capsys, argv, expected):
    code, out, err = run_cli(capsys, "eval", "--games", "5", *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and expected in err, err


def test_play_prints_a_setup_game(capsys):
    code, out, _ = run_cli(capsys, "play", "--setup", "random-mcts-mcts", "--set", "budget=20", "--seed", "3")
    assert code == 0 and out.strip().splitlines()[-1].startswith("game over: ")
    assert run_cli(capsys, "play", "--setup", "random-mcts-mcts", "--set", "budget=20", "--seed", "3")[1] == out


def test_agents_use_only_their_own_seeded_stream():
    game = GameState("hard", seed=11)
    spec = SMALL["mcts"]
    assert Agent(spec, seed=1).act(game) == Agent(spec, seed=1).act(game)
    assert len({Agent(spec, seed=s).act(game) for s in range(30)}) > 1


def test_ctrl_c_raises_with_the_games_finished_in_game_order(monkeypatch):
    from agents import evaluation

    calls = []
    real = evaluation.play_chunk

    def interrupted_on_third_chunk(*args):
        if args[3] != evaluation.WARM_UP_SEED:
            calls.append(args)
            if len(calls) == 3:
                raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(evaluation, "play_chunk", interrupted_on_third_chunk)
    with pytest.raises(Interrupted) as stop:  # never a result that looks complete
        evaluate_setup(Setup.parse("random-random-random", "lotr"), options={"difficulty": "hard"}, games=100_000,
                       seed=1)
    result = stop.value.partial
    finished = sum(args[-1] for args in calls[:2])
    assert result.interrupted and result.games == finished == result.game_ids.size
    assert np.array_equal(result.game_ids, np.arange(finished))
    assert "(interrupted)" in result.report()
