"""Bad input gives one line naming the field and the fix, never a traceback.

- weights files of ``rl`` agents: ``make_learner`` and the ``lotr`` commands that load them
  (``train``, ``eval`` with ``--set`` or ``--config``, ``play``);
- out-of-range or mistyped ``rl`` parameters in a configuration file;
- ``GameState.from_json`` on bad text (the MLflow pyfunc model's input).

The weights cases fail before any game starts: no test here waits for a compilation.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import run_cli

from agents.learning import make_learner
from agents.setup import Setup
from agents.specs import AgentSpec, SpecError
from lotr_sim import GameState

ROOT = Path(__file__).resolve().parent.parent
BEST = ROOT / "studies" / "best-rl"
BEST_QUESTING = BEST / "agent.questing.pt"  # ac-direct, neurons 175, encoding 0 (studies/best-rl/agent.toml)
AS_TRAINED = {"algo": "ac-direct", "neurons": 175, "encoding": 0}


def _copy_of_best(path: Path) -> None:
    shutil.copy(BEST_QUESTING, path)


def _truncated(path: Path) -> None:
    data = BEST_QUESTING.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _with_nan(path: Path) -> None:
    state = torch.load(BEST_QUESTING, weights_only=True)
    state["actor"]["0.weight"][0, 0] = float("nan")
    torch.save(state, path)


# case -> (writes the file, the questing agent's parameters, the reason the error must give)
CASES = {
    "garbage": (lambda p: p.write_bytes(b"garbage\n"), {}, "not a PyTorch file"),
    "empty": (lambda p: p.write_bytes(b""), {}, "empty file"),
    "truncated": (_truncated, AS_TRAINED, "truncated or corrupt PyTorch file"),
    "other dict": (
        lambda p: torch.save({"x": torch.zeros(3)}, p),
        {},
        "holds a dict with the key 'x', not the networks 'actor', 'critic'",
    ),
    "tensor": (lambda p: torch.save(torch.zeros(3), p), {}, "holds a Tensor, not the networks 'actor', 'critic'"),
    "list": (lambda p: torch.save([1, 2, 3], p), {}, "holds a list, not the networks 'actor', 'critic'"),
    "crafted pickle": (
        lambda p: p.write_bytes(b"cos\nsystem\n(S'echo crafted'\ntR."),
        {},
        "holds a Python object (os.system), not only tensors: refused, as loading it could run code",
    ),
    "neurons": (
        _copy_of_best,
        {**AS_TRAINED, "neurons": 50},
        "size mismatch for actor.0.weight: checkpoint [175, 32], agent [50, 32] (the checkpoint has neurons=175)",
    ),
    "algo": (_copy_of_best, {**AS_TRAINED, "algo": "q-macro"}, "holds the networks 'actor', 'critic', not 'q' (algo?)"),
    "same networks, other algo": (
        _copy_of_best,
        {**AS_TRAINED, "algo": "ac-macro"},
        "size mismatch for actor.2.weight: checkpoint [18, 175], agent [7, 175] (another algo or role?)",
    ),
    "encoding": (
        _copy_of_best,
        {**AS_TRAINED, "encoding": 1},
        "size mismatch for actor.0.weight: checkpoint [175, 32], agent [175, 44] (another encoding or role?)",
    ),
    "not finite": (_with_nan, AS_TRAINED, "actor.0.weight holds NaN or infinite values (training diverged?)"),
}


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory):
    """One bad weights file per case, written once."""
    folder = tmp_path_factory.mktemp("weights")
    files = {}
    for i, (name, (write, _, _)) in enumerate(CASES.items()):
        files[name] = folder / f"case{i}.pt"
        write(files[name])
    return files


def _agent_params(case: str) -> dict:
    return CASES[case][1]


def _set_args(params: dict) -> list[str]:
    args = []
    for name, value in params.items():
        args += ["--set", f"questing.{name}={value}"]
    return args


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}:\n{err}"
    return lines[0]


def _expected(command: str, path: Path, case: str) -> str:
    return f"lotr {command}: error: questing.weights = {str(path)!r}: cannot load: {CASES[case][2]}; give a .pt"


# ---- make_learner --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_make_learner_names_the_field_the_reason_and_the_fix(bad_files, case):
    spec = AgentSpec.make("rl", weights=str(bad_files[case]), **_agent_params(case))
    with pytest.raises(SpecError) as caught:
        make_learner("questing", spec)
    message = str(caught.value)
    assert "\n" not in message
    params = {**AgentSpec.make("rl").as_dict(), **_agent_params(case)}
    fix = (
        f"give a .pt written by lotr train for questing with algo={params['algo']}, neurons={params['neurons']}, "
        f"encoding={params['encoding']}"
    )
    assert message == f"questing.weights = {str(bad_files[case])!r}: cannot load: {CASES[case][2]}; {fix}"


def test_make_learner_on_a_directory_and_a_missing_file(tmp_path):
    spec = AgentSpec.make("rl", weights=str(tmp_path))
    with pytest.raises(SpecError, match=r"^questing.weights = '.*': cannot load: is a directory; give the path of a "):
        make_learner("questing", spec)
    spec = AgentSpec.make("rl", weights=str(tmp_path / "missing.pt"))
    with pytest.raises(SpecError, match=r"^questing.weights = '.*missing.pt': cannot load: no such file; "):
        make_learner("questing", spec)


def test_the_real_checkpoints_still_load():
    setup = Setup.load(BEST / "agent.toml")
    for stage in ("planning", "questing", "defense"):
        make_learner(stage, getattr(setup, stage))


# ---- lotr train: its errors are one line (it reports SpecError) ----------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_lotr_train_with_bad_weights_is_one_line(capsys, bad_files, case):
    path = bad_files[case]
    code, out, err = run_cli(
        capsys, "train", "--setup", "random-rl-random", "--set", f"questing.weights={path}",
        *_set_args(_agent_params(case)), "--episodes", "1",
    )
    assert code == 2 and _one_line(err).startswith(_expected("train", path, case))


@pytest.mark.slow  # 13 s, lotr train in a process without root's file capabilities; other bad weights files: fast
def test_an_unreadable_weights_file_is_one_line(tmp_path):
    """As root, the command runs without the capabilities that bypass file permissions."""
    path = tmp_path / "secret.pt"
    _copy_of_best(path)
    path.chmod(0)
    prefix = []
    if os.access(path, os.R_OK):
        if not shutil.which("setpriv"):
            pytest.skip("cannot make a file unreadable here")
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
    done = subprocess.run(
        [*prefix, sys.executable, "-m", "tuning.cli", "train", "--setup", "random-rl-random",
         "--set", f"questing.weights={path}", *_set_args(AS_TRAINED), "--episodes", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    line = _one_line(done.stderr)
    assert done.returncode == 2, done.stderr
    assert line.startswith(f"lotr train: error: questing.weights = {str(path)!r}: cannot load: permission denied; ")


# ---- lotr eval and lotr play ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES)
def test_lotr_eval_with_bad_weights_is_one_line(capsys, bad_files, case):
    path = bad_files[case]
    code, out, err = run_cli(
        capsys, "eval", "--setup", "random-rl-random", "--set", f"questing.weights={path}",
        *_set_args(_agent_params(case)), "--games", "10",
    )
    assert code == 2 and _one_line(err).startswith(_expected("eval", path, case))


@pytest.mark.parametrize("case", ["garbage", "truncated", "neurons"])
def test_lotr_eval_of_a_configuration_naming_bad_weights_is_one_line(capsys, tmp_path, bad_files, case):
    shutil.copy(bad_files[case], tmp_path / "bad.pt")
    params = "".join(f"{k} = {json.dumps(v)}\n" for k, v in _agent_params(case).items())
    (tmp_path / "agent.toml").write_text(f'setup = "random-rl-random"\n[questing]\nweights = "bad.pt"\n{params}')
    code, out, err = run_cli(capsys, "eval", "--config", str(tmp_path / "agent.toml"), "--games", "10")
    assert code == 2 and _one_line(err).startswith(_expected("eval", tmp_path / "bad.pt", case))


@pytest.mark.parametrize("case", ["garbage", "neurons"])
def test_lotr_play_with_bad_weights_is_one_line(capsys, bad_files, case):
    path = bad_files[case]
    code, out, err = run_cli(
        capsys, "play", "--setup", "random-rl-random", "--set", f"questing.weights={path}",
        *_set_args(_agent_params(case)),
    )
    assert code == 2 and _one_line(err).startswith(_expected("play", path, case))


def test_lotr_eval_with_a_directory_as_weights_is_one_line(capsys, tmp_path):
    code, out, err = run_cli(capsys, "eval", "--setup", "random-rl-random", "--set", f"questing.weights={tmp_path}")
    assert code == 2 and re.fullmatch(rf"lotr eval: error: questing.weights = {re.escape(repr(str(tmp_path)))}: .+",
                                      _one_line(err))


# ---- configuration values -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, expected",
    [
        ("encoding = 9", "questing.encoding = 9 is invalid; expected an integer in [0, 4]"),
        ('neurons = "many"', "questing.neurons = 'many' is invalid; expected an integer in [1, 4096]"),
        ("neurons = 2.5", "questing.neurons = 2.5 is invalid; expected an integer in [1, 4096]"),
        ('algo = "sarsa"', "questing.algo = 'sarsa' is invalid; expected one of q-macro, ac-macro, ppo-macro, ac-direct"),
    ],
)
def test_bad_rl_parameters_in_a_configuration_file_are_one_line(capsys, tmp_path, line, expected):
    config = tmp_path / "agent.toml"
    config.write_text(f'setup = "random-rl-random"\n[questing]\n{line}\n')
    code, out, err = run_cli(capsys, "eval", "--config", str(config), "--games", "10")
    assert code == 2 and _one_line(err) == f"lotr eval: error: {config}: {expected}"


# ---- GameState.from_json ---------------------------------------------------------------------------------------------


def _state(**changes) -> str:
    data = GameState("hard", seed=3).to_dict()  # planning; player_top 8; the encounter deck is all unread
    for name, value in changes.items():
        if value is None and name.startswith("no_"):
            del data[name[3:]]
        else:
            data[name] = value
    return json.dumps(data)


def _moved(card_of, zone: str) -> str:
    data = GameState("hard", seed=3).to_dict()
    data["zones"][card_of(data)] = zone
    return json.dumps(data)


def _set(name: str, index: int, value) -> str:
    data = GameState("hard", seed=3).to_dict()
    data[name][index] = value
    return json.dumps(data)


def _edited(edit) -> str:
    data = GameState("hard", seed=3).to_dict()
    edit(data)
    return json.dumps(data)


def _two_active_locations(data: dict) -> None:
    order = data["encounter_deck_order"]  # 33 (a location), 27, 38 (a location), ...
    data["encounter_top"] = 3  # the first three cards revealed
    data["zones"][order[0]], data["zones"][order[1]], data["zones"][order[2]] = (
        "active location", "staging area", "active location")


@pytest.mark.parametrize(
    "text, message",
    [
        ("{not json", r"state JSON: not valid JSON: Expecting property name .*\(char 1\)"),
        (None, r"state JSON: expected a string, got NoneType"),
        (float("nan"), r"state JSON: expected a string, got float"),
        ("", r"state JSON: not valid JSON: Expecting value: line 1 column 1 \(char 0\)"),
        ("[1, 2]", r"state JSON: expected an object, got list"),
        ("null", r"state JSON: expected an object, got null"),
        (_state(no_zones=None), r"state JSON: lacks the field 'zones'"),
        (_state(format="other/2"), r"state JSON: format: expected 'lotr_sim.state/1', got 'other/2'"),
        (_state(threat="x"), r"state JSON: threat: expected an integer, got 'x'"),
        (_state(threat=None), r"state JSON: threat: expected an integer, got null"),
        (_state(threat=3.5), r"state JSON: threat: expected an integer, got 3.5"),
        (_state(threat=True), r"state JSON: threat: expected an integer, got True"),
        (_state(threat=10**30), r"state JSON: threat: 1000000000000000000000000000000 is out of range"),
        (_state(damage=5), r"state JSON: damage: expected a list of 43 integers, got 5"),
        (_state(damage=["a"] * 43), r"state JSON: damage\[0\]: expected an integer, got 'a'"),
        (_state(zones=5), r"state JSON: zones: expected a list of 43 zone names, got 5"),
        (_state(zones=[[1]] * 43), r"state JSON: zones\[0\]: \[1\] is not one of player deck, hand, .*"),
        (_state(exhausted="1" * 43), r"state JSON: exhausted: expected a list of 43 flags \(0 or 1\), got '1111.*"),
        (_state(phase=["x"]), r"state JSON: phase: \['x'\] is not one of resource, planning, .*"),
        (_state(player_top=99), r"state JSON: player_top: 99 is not in \[0, 15\]"),
        (_state(threat=-1), r"state JSON: threat: -1 is negative"),
        (_set("player_deck_order", 14, 99), r"state JSON: player_deck_order\[14\]: 99 is not a card id \(0-42\)"),
        (_moved(lambda d: d["player_deck_order"][d["player_top"]], "hand"),
         r"state JSON: card 7 \(Northern Tracker\) is in two zones: hand \(zones\) and the player deck "
         r"\(player_deck_order from player_top\)"),
        (_moved(lambda d: d["encounter_deck_order"][0], "staging area"),
         r"state JSON: card 33 \(Enchanted Stream\) is in two zones: staging area \(zones\) and the encounter deck "
         r"\(encounter_deck_order from encounter_top to encounter_length\)"),
        (_moved(lambda d: 0, "player deck"),
         r"state JSON: card 0 \(Dunhere\) is in the player deck \(zones\) but not in player_deck_order "
         r"from player_top"),
        (_moved(lambda d: 3, "staging area"), r"state JSON: card 3 .* is in staging area: .*"),
        (_state(outcome="win"), r"state JSON: outcome 'win' with phase 'planning': .*"),
        (_set("player_deck_order", 9, 7),
         r"state JSON: card 7 \(Northern Tracker\) is twice in player_deck_order from .*"),
        (_edited(_two_active_locations), r"state JSON: zones: 2 active locations \(33, 38\); at most one"),
    ],
)
def test_from_json_rejects_bad_text_in_one_line(text, message):
    with pytest.raises(ValueError) as caught:
        GameState.from_json(text)
    assert "\n" not in str(caught.value)
    assert re.fullmatch(message, str(caught.value)), str(caught.value)


def test_from_json_accepts_every_state_of_real_games(decision_states):
    for g in decision_states:
        assert GameState.from_json(g.to_json()) == g
    for difficulty in ("easy", "medium", "hard"):  # finished games too, of both lengths
        for full in (False, True):
            g = GameState(difficulty, seed=7, full_scenario=full)
            g.play_out("expert", 7)
            assert GameState.from_json(g.to_json()) == g
