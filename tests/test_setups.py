"""Setups: short forms, parameter assignments, compiled rows and configuration files."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import gamecore
from agents import specs
from agents.setup import Setup, parse_assignment
from agents.specs import AgentSpec, SpecError
from lotr_sim.game import STAGES

VALID_AGENTS = "random, expert, rule, rule-full, flat-mc, mcts, oracle-mcts"


def one_line_error(call, *args, **kwargs) -> str:
    with pytest.raises(SpecError) as info:
        call(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


def agent_names(setup: Setup) -> tuple[str, ...]:
    return tuple(spec.agent for spec in setup.agents)


# ---- short forms ----------------------------------------------------------------------------------------------------


def test_three_parts_are_planning_questing_defense_with_random_travel_and_attack():
    setup = Setup.parse("expert-mcts-flat-mc", "lotr")
    assert agent_names(setup) == ("expert", "mcts", "random", "flat-mc", "random")
    assert setup.questing == AgentSpec.make("mcts", game="lotr")
    assert setup.short_name == "expert-mcts-flat-mc"
    assert str(setup) == "expert-mcts-flat-mc"


def test_five_parts_name_every_stage():
    setup = Setup.parse("random-mcts-expert-oracle-mcts-flat-mc", "lotr")
    assert agent_names(setup) == ("random", "mcts", "expert", "oracle-mcts", "flat-mc")
    assert setup.short_name == "random-mcts-expert-oracle-mcts-flat-mc"
    assert Setup.parse(setup.short_name, "lotr") == setup


def test_dashed_agent_names_are_taken_whole():
    setup = Setup.parse("flat-mc-oracle-mcts-random", "lotr")
    assert agent_names(setup) == ("flat-mc", "oracle-mcts", "random", "random", "random")
    assert agent_names(Setup.parse("oracle-mcts-flat-mc-mcts-oracle-mcts-flat-mc", "lotr")) == (
        "oracle-mcts",
        "flat-mc",
        "mcts",
        "oracle-mcts",
        "flat-mc",
    )


def test_the_longest_known_name_wins(monkeypatch):
    monkeypatch.setitem(specs.agent_kinds("lotr"), "flat", specs.AgentKind("flat", 0, ()))
    assert agent_names(Setup.parse("flat-mc-flat-mcts", "lotr"))[:2] == ("flat-mc", "flat")
    assert agent_names(Setup.parse("flat-flat-mc-mcts", "lotr"))[:2] == ("flat", "flat-mc")


def test_five_parts_with_random_travel_and_attack_shorten_to_three():
    assert Setup.parse("random-mcts-random-mcts-random", "lotr").short_name == "random-mcts-mcts"
    assert Setup.parse("random-mcts-random-mcts-random", "lotr") == Setup.parse("random-mcts-mcts", "lotr")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("random-foo-mcts", f"setup 'random-foo-mcts': unknown agent 'foo' at questing; valid: {VALID_AGENTS}"),
        ("random-mcts-mcts-mcts-bar", "unknown agent 'bar' at attack"),
        ("random-mcts-", "unknown agent '' at defense"),
        ("random-flat-mcts-mcts", "unknown agent 'flat' at part 2"),
        (
            "random-mcts",
            (
                "setup 'random-mcts': expected 1 agent, 3 parts (planning-questing-defense) "
                "or 5 (planning-questing-travel-defense-attack), got 2"
            ),
        ),
        ("mcts-mcts-mcts-mcts", "got 4"),
    ],
)
def test_bad_short_forms(text, expected):
    assert expected in one_line_error(Setup.parse, text, "lotr")


def test_uniform():
    setup = Setup.uniform("expert", "lotr")
    assert agent_names(setup) == ("expert",) * 5
    assert Setup.parse("expert", "lotr") == setup and Setup.parse("flat-mc", "lotr") == Setup.uniform("flat-mc", "lotr")
    assert Setup.uniform("random", "lotr") == Setup.parse("random-random-random", "lotr")
    assert f"valid: {VALID_AGENTS}" in one_line_error(Setup.uniform, "foo", "lotr")


def test_setups_are_hashable_values():
    a, b = Setup.parse("random-mcts-mcts", "lotr"), Setup.parse("random-mcts-random-mcts-random", "lotr")
    assert a == b and hash(a) == hash(b)
    assert len({a, b, Setup.uniform("random", "lotr")}) == 2
    assert a != a.with_params({"budget": 40})
    with pytest.raises(AttributeError):
        a.questing = AgentSpec.make("expert", game="lotr")


# ---- parameters ------------------------------------------------------------------------------------------------------


def test_global_parameter_reaches_every_stage_that_has_it():
    setup = Setup.parse("flat-mc-mcts-expert", "lotr").with_params({"budget": 40, "c": 1.5})
    assert setup.planning["budget"] == 40 and setup.questing["budget"] == 40
    assert setup.questing["c"] == 1.5
    assert setup.defense == AgentSpec.make("expert", game="lotr")
    assert setup.travel == AgentSpec.make("random", game="lotr")


def test_per_stage_parameter_wins_over_global_in_any_order():
    for assignments in ({"questing.budget": 10, "budget": 40}, {"budget": 40, "questing.budget": 10}):
        setup = Setup.parse("random-mcts-mcts", "lotr").with_params(assignments)
        assert (setup.questing["budget"], setup.defense["budget"]) == (10, 40)


def test_reduction_sets_all_three_flags_and_a_specific_flag_wins():
    setup = Setup.parse("random-mcts-mcts", "lotr").with_params({"reduction": False,
                                                                  "defense.reduction_questing": True})
    assert not any(setup.questing[f"reduction_{s}"] for s in ("planning", "questing", "defense"))
    assert setup.defense.as_dict()["reduction_questing"] is True
    assert setup.defense["reduction_planning"] is False


def test_with_params_errors():
    setup = Setup.parse("random-mcts-mcts", "lotr")
    message = one_line_error(setup.with_params, {"foo": 1})
    assert message.startswith("--set: no role of random-mcts-mcts has parameter 'foo'; valid: budget")
    assert "'budget'" in one_line_error(Setup.uniform("random", "lotr").with_params, {"budget": 3})
    assert "valid roles: planning, questing, travel, defense, attack" in one_line_error(
        setup.with_params, {"hand.budget": 3}
    )
    assert "random has no parameter 'budget'; its parameters: none" in one_line_error(
        setup.with_params, {"planning.budget": 3}
    )
    assert one_line_error(setup.with_params, {"questing.ppn": 0}, where="trial") == (
        "trial: questing.ppn = 0 is invalid; expected an integer in [1, 100000]"
    )
    assert "questing.playout = 'greedy' is invalid; expected one of random, expert" in one_line_error(
        setup.with_params, {"playout": "greedy"}
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("questing.budget=40", ("questing.budget", 40)),
        ("c=1.5", ("c", 1.5)),
        ("c = 2", ("c", 2)),
        ("playout=expert", ("playout", "expert")),
        ("reduction_defense=false", ("reduction_defense", False)),
        ("reduction=True", ("reduction", True)),
        ("playout_nets=", ("playout_nets", "")),
    ],
)
def test_parse_assignment(text, expected):
    key, value = parse_assignment(text)
    assert (key, value) == expected and type(value) is type(expected[1])


@pytest.mark.parametrize("text", ["budget", "=3", "a.b.c=1", "questing.=3", ".budget=3"])
def test_bad_assignments(text):
    assert "expected key=value" in one_line_error(parse_assignment, text)


def test_assignments_feed_with_params():
    pairs = dict(parse_assignment(t) for t in ["budget=40", "defense.ppn=50", "final=mean"])
    setup = Setup.parse("random-mcts-mcts", "lotr").with_params(pairs)
    assert (setup.defense["ppn"], setup.questing["final"]) == (50, "mean")
    assert "budget" in one_line_error(setup.with_params, dict([parse_assignment("budget=")]))  # empty: not a number


# ---- rows -----------------------------------------------------------------------------------------------------------


def test_rows():
    setup = Setup.parse("expert-mcts-random-flat-mc-oracle-mcts", "lotr").with_params(
        {"questing.budget": 40, "questing.ppn": 100, "attack.c": 2.0, "defense.playout": "expert"}
    )
    rows = setup.rows()
    assert rows.shape == (5, specs.ROW_WIDTH) and rows.dtype == np.float64
    policy = gamecore.load("lotr").policies.index
    assert list(rows[:, specs.KIND]) == [policy("expert"), specs.MCTS, policy("random"), specs.FLAT_MC, specs.MCTS]
    assert list(rows[:, specs.BUDGET]) == [0, 40, 0, 200, 200]
    assert rows[1, specs.PPN] == 40  # ppn clamped to the budget
    assert rows[4, specs.PPN] == 20
    assert rows[4, specs.C] == 2.0 and math.isclose(rows[1, specs.C], 1 / math.sqrt(2))
    assert rows[3, specs.PLAYOUT] == 1
    assert list(rows[:, specs.ORACLE]) == [0, 0, 0, 0, 1]
    for row, spec in zip(rows, setup.agents):
        assert np.array_equal(row, spec.row())


# ---- naming ---------------------------------------------------------------------------------------------------------


def test_str_lists_non_default_parameters():
    setup = Setup.parse("random-mcts-mcts", "lotr").with_params({"budget": 40, "ppn": 10})
    assert str(setup) == "random-mcts-mcts (questing: budget=40 ppn=10; defense: budget=40 ppn=10)"
    setup = Setup.parse("random-mcts-mcts", "lotr").with_params({"questing.c": 1.5, "defense.reduction_defense": False})
    assert str(setup) == "random-mcts-mcts (questing: c=1.5; defense: reduction_defense=false)"


def test_oracle_setups_say_so():
    for text in ("random-oracle-mcts-mcts", "random-mcts-random-mcts-oracle-mcts"):
        setup = Setup.parse(text, "lotr").with_params({"budget": 40})
        assert setup.is_oracle and "oracle" in str(setup) and "oracle" in setup.short_name
    assert not Setup.parse("flat-mc-mcts-mcts", "lotr").is_oracle


# ---- configuration files ---------------------------------------------------------------------------------------------

CONFIG = """\
setup = "random-mcts-mcts"
travel = "expert"

[defaults.mcts]
budget = 40
ppn = 10

[defaults.flat-mc]
budget = 30

[questing]
c = 1.0
ppn = 5

[defense]
agent = "flat-mc"
reduction = false

[attack]
agent = "mcts"
budget = 80

[metadata]
study = "s1"
trial = 7
"""


def test_toml_config_with_defaults_precedence(tmp_path):
    path = tmp_path / "best.toml"
    path.write_text(CONFIG)
    setup = Setup.load(path)
    assert agent_names(setup) == ("random", "mcts", "expert", "flat-mc", "mcts")
    # table > defaults > agent defaults
    assert setup.questing == AgentSpec.make("mcts", budget=40, ppn=5, c=1.0, game="lotr")
    assert setup.defense == AgentSpec.make("flat-mc", budget=30, reduction=False, game="lotr")
    assert setup.attack == AgentSpec.make("mcts", budget=80, ppn=10, game="lotr")


def test_changing_the_agent_of_a_stage_drops_the_base_agent():
    setup = Setup.from_mapping({"setup": "random-mcts-mcts", "questing": {"agent": "expert"}})
    assert setup.questing == AgentSpec.make("expert", game="lotr")
    assert Setup.from_mapping({}) == Setup.uniform("random", "lotr")


@pytest.mark.parametrize("suffix", [".toml", ".json", ".TOML"])
def test_round_trips(tmp_path, suffix):
    setup = Setup.parse("flat-mc-oracle-mcts-expert-mcts-random", "lotr").with_params(
        {"budget": 77, "c": 0.123456789, "questing.final": "mean", "defense.reduction_planning": False}
    )
    path = tmp_path / f"best{suffix}"
    setup.dump(path, metadata={"study": "s1", "win_rate": 0.25})
    assert Setup.load(path) == setup
    assert Setup.from_mapping(setup.to_mapping()) == setup


def test_written_files_are_self_contained(tmp_path):
    setup = Setup.parse("random-mcts-mcts", "lotr").with_params({"questing.budget": 40})
    data = setup.to_mapping(metadata={"trial": 3})
    assert data["format"] == 1 and data["setup"] == "random-mcts-mcts" and data["metadata"] == {"trial": 3}
    assert data["questing"] == {"agent": "mcts", **AgentSpec.make("mcts", budget=40, game="lotr").as_dict()}
    assert data["planning"] == {"agent": "random"}
    assert "metadata" not in setup.to_mapping()
    setup.dump(tmp_path / "a.json")
    assert json.loads((tmp_path / "a.json").read_text())["defense"]["budget"] == 200


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([1, 2], "cfg: expected a table, got list"),
        ({"seed": 1}, "cfg: unknown key 'seed'; valid: format, game, setup, defaults, metadata, planning, questing,"),
        ({"format": 2}, "cfg: format = 2 is not supported; expected 1"),
        ({"format": True}, "cfg: format = True is not supported"),
        ({"setup": 3}, "cfg: setup = 3 is invalid"),
        ({"setup": "random-foo-mcts"}, "cfg: setup 'random-foo-mcts': unknown agent 'foo' at questing; valid:"),
        ({"setup": "mcts-mcts"}, "cfg: setup 'mcts-mcts': expected 1 agent, 3 parts"),
        ({"defaults": {"ucts": {}}}, f"cfg: unknown agent 'ucts' in defaults; valid: {VALID_AGENTS}"),
        ({"defaults": {"questing": {}}}, "unknown agent 'questing' in defaults; valid: random, expert, rule"),
        ({"defaults": {"mcts": 3}}, "cfg: defaults.mcts: expected a table, got int"),
        ({"defaults": {"mcts": {"budget": 0}}}, "cfg: defaults.mcts.budget = 0 is invalid; expected an integer in"),
        ({"defaults": {"mcts": {"ppm": 1}}}, "cfg: defaults.mcts: mcts has no parameter 'ppm'; its parameters: budget"),
        ({"questing": "ucts"}, f"cfg: questing = 'ucts' is invalid; expected one of {VALID_AGENTS}"),
        ({"questing": {"agent": "ucts"}}, "cfg: questing.agent = 'ucts' is invalid"),
        ({"questing": {"agent": ["mcts"]}}, "cfg: questing.agent = ['mcts'] is invalid"),
        ({"questing": 3}, "cfg: questing: expected a table or an agent name, got int"),
        ({"questing": {"budget": 40}}, "cfg: questing: random has no parameter 'budget'; its parameters: none"),
        (
            {"questing": {"agent": "mcts", "ppn": 0}},
            "cfg: questing.ppn = 0 is invalid; expected an integer in [1, 100000]",
        ),
        ({"questing": {"agent": "mcts", "budget": 2.5}}, "cfg: questing.budget = 2.5 is invalid"),
        ({"questing": {"agent": "mcts", "budget": math.inf}}, "cfg: questing.budget = inf is invalid"),
        ({"questing": {"agent": "mcts", "budget": "40"}}, "cfg: questing.budget = '40' is invalid"),
        (
            {"questing": {"agent": "mcts", "reduction": 0}},
            "cfg: questing.reduction = 0 is invalid; expected true or false",
        ),
        ({"questing": {"agent": "mcts", "final": "max"}}, "cfg: questing.final = 'max' is invalid; expected one of"),
    ],
)
def test_mapping_errors(data, expected):
    assert expected in one_line_error(Setup.from_mapping, data, source="cfg")


def test_file_errors(tmp_path):
    missing = tmp_path / "missing.toml"
    assert one_line_error(Setup.load, missing).startswith(f"{missing}: cannot read: ")
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text('setup = "random-mcts-mcts"\n[questing\n')
    assert one_line_error(Setup.load, bad_toml).startswith(f"{bad_toml}: bad TOML: ")
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"setup": }')
    assert one_line_error(Setup.load, bad_json).startswith(f"{bad_json}: bad JSON: ")
    for name in ("best.yaml", "best"):
        path = tmp_path / name
        path.write_text("")
        assert "expected .toml or .json" in one_line_error(Setup.load, path)
        assert "expected .toml or .json" in one_line_error(Setup.uniform("random", "lotr").dump, path)
    best = tmp_path / "best.toml"
    best.write_text('[questing]\nagent = "mcts"\nppn = 0\n')
    assert (
        one_line_error(Setup.load, best) == f"{best}: questing.ppn = 0 is invalid; expected an integer in [1, 100000]"
    )
    listed = tmp_path / "list.json"
    listed.write_text("[1]")
    assert one_line_error(Setup.load, listed) == f"{listed}: expected a table, got list"


def test_every_stage_is_a_role():
    setup = Setup.parse("expert-mcts-random-flat-mc-oracle-mcts", "lotr")
    assert setup.roles == STAGES
    assert [getattr(setup, stage).agent for stage in STAGES] == ["expert", "mcts", "random", "flat-mc", "oracle-mcts"]
