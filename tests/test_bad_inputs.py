"""Bad input gives one line naming the field and the fix, never a traceback.

- weights files of ``rl`` agents: ``make_learner`` and the ``lotr`` commands that load them
  (``train``, ``eval`` with ``--set`` or ``--config``, ``play``);
- out-of-range or mistyped ``rl`` parameters in a configuration file;
- ``GameState.from_json`` on bad text (the MLflow pyfunc model's input);
- numbers over their caps (``gamecore.params.LIMITS``: games, episodes, envs, window, workers, trials, top_k and
  seconds) in study files and on the command line, refused naming the cap and ``--no-limits``, and accepted with
  it (checked on the parsed arguments or the study, not by running so much);
- NaN, infinities, booleans and integers too large for a float wherever a number is meant: study files (their
  search, space, fixed and report values), agent parameters from ``--set`` and TOML or JSON configurations, the
  command line's whole numbers; two of them in real ``gametune`` processes.

The weights cases fail before any game starts: no test here waits for a compilation.
"""

from __future__ import annotations

import json
import math
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
BEST = ROOT / "studies" / "lotr" / "best-rl"
BEST_QUESTING = BEST / "agent.questing.pt"  # ac-direct, neurons 175, encoding 0 (studies/lotr/best-rl/agent.toml)
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
    spec = AgentSpec.make("rl", weights=str(bad_files[case]), **_agent_params(case), game="lotr")
    with pytest.raises(SpecError) as caught:
        make_learner("questing", spec)
    message = str(caught.value)
    assert "\n" not in message
    params = {**AgentSpec.make("rl", game="lotr").as_dict(), **_agent_params(case)}
    fix = (
        f"give a .pt written by lotr train for questing with algo={params['algo']}, neurons={params['neurons']}, "
        f"encoding={params['encoding']}"
    )
    assert message == f"questing.weights = {str(bad_files[case])!r}: cannot load: {CASES[case][2]}; {fix}"


def test_make_learner_on_a_directory_and_a_missing_file(tmp_path):
    spec = AgentSpec.make("rl", weights=str(tmp_path), game="lotr")
    with pytest.raises(SpecError, match=r"^questing.weights = '.*': cannot load: is a directory; give the path of a "):
        make_learner("questing", spec)
    spec = AgentSpec.make("rl", weights=str(tmp_path / "missing.pt"), game="lotr")
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
    code, _out, err = run_cli(
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
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    line = _one_line(done.stderr)
    assert done.returncode == 2, done.stderr
    assert line.startswith(f"lotr train: error: questing.weights = {str(path)!r}: cannot load: permission denied; ")


# ---- lotr eval and lotr play ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES)
def test_lotr_eval_with_bad_weights_is_one_line(capsys, bad_files, case):
    path = bad_files[case]
    code, _out, err = run_cli(
        capsys, "eval", "--setup", "random-rl-random", "--set", f"questing.weights={path}",
        *_set_args(_agent_params(case)), "--games", "10",
    )
    assert code == 2 and _one_line(err).startswith(_expected("eval", path, case))


@pytest.mark.parametrize("case", ["garbage", "truncated", "neurons"])
def test_lotr_eval_of_a_configuration_naming_bad_weights_is_one_line(capsys, tmp_path, bad_files, case):
    shutil.copy(bad_files[case], tmp_path / "bad.pt")
    params = "".join(f"{k} = {json.dumps(v)}\n" for k, v in _agent_params(case).items())
    (tmp_path / "agent.toml").write_text(f'setup = "random-rl-random"\n[questing]\nweights = "bad.pt"\n{params}')
    code, _out, err = run_cli(capsys, "eval", "--config", str(tmp_path / "agent.toml"), "--games", "10")
    assert code == 2 and _one_line(err).startswith(_expected("eval", tmp_path / "bad.pt", case))


@pytest.mark.parametrize("case", ["garbage", "neurons"])
def test_lotr_play_with_bad_weights_is_one_line(capsys, bad_files, case):
    path = bad_files[case]
    code, _out, err = run_cli(
        capsys, "play", "--setup", "random-rl-random", "--set", f"questing.weights={path}",
        *_set_args(_agent_params(case)),
    )
    assert code == 2 and _one_line(err).startswith(_expected("play", path, case))


def test_lotr_eval_with_a_directory_as_weights_is_one_line(capsys, tmp_path):
    code, _out, err = run_cli(capsys, "eval", "--setup", "random-rl-random", "--set", f"questing.weights={tmp_path}")
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
    code, _out, err = run_cli(capsys, "eval", "--config", str(config), "--games", "10")
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
         (r"state JSON: card 7 \(Northern Tracker\) is in two zones: hand \(zones\) and the player deck "
          r"\(player_deck_order from player_top\)")),
        (_moved(lambda d: d["encounter_deck_order"][0], "staging area"),
         (r"state JSON: card 33 \(Enchanted Stream\) is in two zones: staging area \(zones\) and the encounter "
          r"deck \(encounter_deck_order from encounter_top to encounter_length\)")),
        (_moved(lambda d: 0, "player deck"),
         (r"state JSON: card 0 \(Dunhere\) is in the player deck \(zones\) but not in player_deck_order "
          r"from player_top")),
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


# ---- bounded, finite inputs: caps, NaN, infinities and booleans (issue 44) -----------------------------------------
#
# The caps (gamecore.params.LIMITS) are written out here as the user reads them: the tests say what a message is.

NO_LIMITS = "--no-limits lifts it"
STUDY_SPACE = "budget = { int = [20, 100], step = 20 }"


def _study(folder: Path, table: str = "", line: str = "", name: str = "bad") -> Path:
    """A valid study of random-mcts-mcts, with ``line`` added to ``[table]`` (top level: table "")."""
    tables = {"": ['name = "bad"', 'setup = "random-mcts-mcts"'], "space": [STUDY_SPACE]}
    tables.setdefault(table, []).append(line)
    text = "\n".join(tables.pop(""))
    text += "".join(f"\n[{key}]\n" + "\n".join(lines) for key, lines in tables.items()) + "\n"
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


# (table, key, a value just over the cap, the cap's name, the cap, the StudySpec's value)
STUDY_CAPS = [
    ("objective", "games", 10_000_001, "games", 10_000_000, lambda s: s.games),
    ("validation", "games", 10_000_001, "games", 10_000_000, lambda s: s.validation_games),
    ("test", "games", 10_000_001, "games", 10_000_000, lambda s: s.test_games),
    ("validation", "top_k", 100_001, "top_k", 100_000, lambda s: s.validation_top_k),
    ("training", "episodes", 100_000_001, "episodes", 100_000_000, lambda s: s.episodes),
    ("training", "envs", 4_097, "envs", 4_096, lambda s: s.envs),
    ("search", "n_trials", 100_001, "n_trials", 100_000, lambda s: s.n_trials),
    ("search", "workers", 257, "workers", 256, lambda s: s.workers),
    ("search", "timeout", 31_536_001, "timeout", 31_536_000, lambda s: s.timeout),
    ("search", "heartbeat_interval", 86_401, "heartbeat_interval", 86_400, lambda s: s.liveness.heartbeat_interval),
    ("search", "grace_period", 604_801, "grace_period", 604_800, lambda s: s.liveness.grace_period),
]
CAP_IDS = [f"{table}.{key}" for table, key, *_ in STUDY_CAPS]


def _capped_line(key: str, value: int) -> str:
    """``key = value``; a heartbeat interval with a grace period longer than it, as a study file must give."""
    return f"grace_period = 604800\n{key} = {value}" if key == "heartbeat_interval" else f"{key} = {value}"


@pytest.mark.parametrize("table, key, value, cap_name, cap, read", STUDY_CAPS, ids=CAP_IDS)
def test_a_study_value_over_its_cap_is_refused_naming_the_cap_and_the_flag(tmp_path, table, key, value, cap_name,
                                                                             cap, read):
    from tuning.study_file import load_study

    path = _study(tmp_path, table, _capped_line(key, value))
    with pytest.raises(SpecError) as caught:
        load_study(path)
    assert str(caught.value) == (f"{path}: {table}.{key} = {value} is invalid; expected at most {cap:,} "
                                 f"(the cap on {cap_name}; {NO_LIMITS})")
    assert read(load_study(_study(tmp_path, table, _capped_line(key, cap)))) == cap  # the cap itself is allowed


@pytest.mark.parametrize("table, key, value, cap_name, cap, read", STUDY_CAPS, ids=CAP_IDS)
def test_a_study_value_over_its_cap_is_accepted_without_limits(tmp_path, table, key, value, cap_name, cap, read):
    from tuning.study_file import load_study

    assert read(load_study(_study(tmp_path, table, _capped_line(key, value)), limits=False)) == value


def test_a_grid_of_more_combinations_than_the_trials_cap_is_refused(tmp_path):
    """A grid's trials are its combinations, all queued before the search starts: 50**3 here."""
    from tuning.study_file import load_study

    values = ", ".join(str(v) for v in range(1, 51))
    path = tmp_path / "grid.toml"
    path.write_text(f'name = "grid"\nsetup = "random-mcts-mcts"\n[space]\nbudget = {{ choice = [{values}] }}\n'
                    f'ppn = {{ choice = [{values}] }}\nc = {{ choice = [{values}] }}\n[search]\nsampler = "grid"\n')
    with pytest.raises(SpecError) as caught:
        load_study(path)
    assert str(caught.value) == (f"{path}: search.n_trials = 125000 (the sampler's count) is invalid; expected at "
                                 f"most 100,000 (the cap on n_trials; {NO_LIMITS})")
    assert load_study(path, limits=False).n_trials == 125_000


BIG = "1" + "0" * 400  # an integer no float holds (TOML and --set both read it as an int)

# (table, line, the one-line message after "<file>: ")
BAD_STUDY_NUMBERS = [
    ("search", "timeout = nan", "search.timeout = nan is invalid; expected a positive finite number of seconds"),
    ("search", "timeout = inf", "search.timeout = inf is invalid; expected a positive finite number of seconds"),
    ("search", "timeout = -inf", "search.timeout = -inf is invalid; expected a positive finite number of seconds"),
    ("search", "timeout = true", "search.timeout = True is invalid; expected a positive finite number of seconds"),
    ("search", "timeout = 0", "search.timeout = 0 is invalid; expected a positive finite number of seconds"),
    ("search", "heartbeat_interval = nan", "search.heartbeat_interval = nan is invalid; expected a positive integer"),
    ("search", "heartbeat_interval = true",
     "search.heartbeat_interval = True is invalid; expected a positive integer"),
    ("search", "grace_period = inf", "search.grace_period = inf is invalid; expected a positive integer"),
    ("search", "n_trials = true", "search.n_trials = True is invalid; expected a positive integer"),
    ("search", "workers = 2.0", "search.workers = 2.0 is invalid; expected a positive integer"),
    ("objective", "games = nan", "objective.games = nan is invalid; expected a positive integer"),
    ("objective", "games = true", "objective.games = True is invalid; expected a positive integer"),
    ("training", "episodes = inf", "training.episodes = inf is invalid; expected a positive integer"),
    ("training", "envs = true", "training.envs = True is invalid; expected a positive integer"),
    ("validation", "top_k = nan",
     "validation.top_k = nan is invalid; expected 0 (no re-evaluation) or a positive integer"),
    ("space", "c = { float = [0.1, 2.0], step = nan }", "space.c.step = nan is invalid; expected a positive finite float of at most 1.9"),
    ("space", "c = { float = [0.1, 2.0], step = inf }", "space.c.step = inf is invalid; expected a positive finite float of at most 1.9"),
    ("space", "c = { float = [0.1, 2.0], step = true }",
     "space.c.step = True is invalid; expected a positive finite float of at most 1.9"),
    ("space", "c = { float = [0.1, nan] }",
     "space.c.float = [0.1, nan] is invalid; expected [low, high] with low <= high (finite floats)"),
    ("space", "c = { float = [-inf, 1.0] }",
     "space.c.float = [-inf, 1.0] is invalid; expected [low, high] with low <= high (finite floats)"),
    ("space", "c = { float = [0.1, 2.0], step = 2.5 }",
     "space.c.step = 2.5 is invalid; expected a positive finite float of at most 1.9"),
    ("space", f"ppn = {{ int = [1, {BIG}], step = {BIG} }}",
     f"space.ppn.step = {BIG} is invalid; expected a positive int of at most {int(BIG) - 1}"),
    ("space", f"ppn = {{ int = [1, {BIG}] }}", f"space: questing.ppn = {BIG} is invalid; expected an integer in [1, 100000]"),
    ("space", "ppn = { int = [true, 3] }",
     "space.ppn.int = [True, 3] is invalid; expected [low, high] with low <= high (ints)"),
    ("space", "c = { choice = [0.5, nan] }", "space: questing.c = nan is invalid; expected a number in [0, 100]"),
    ("fixed", "c = nan", "fixed: questing.c = nan is invalid; expected a number in [0, 100]"),
    ("fixed", "c = -inf", "fixed: questing.c = -inf is invalid; expected a number in [0, 100]"),
    ("fixed", "ppn = true", "fixed: questing.ppn = True is invalid; expected an integer in [1, 100000]"),
    ("fixed", f"ppn = {BIG}", f"fixed: questing.ppn = {BIG} is invalid; expected an integer in [1, 100000]"),
    ("fixed", "c = 1e400", "fixed: questing.c = inf is invalid; expected a number in [0, 100]"),
    ("report", "order = true", "report.order = True is invalid; expected a int"),
    ("report", "order = nan", "report.order = nan is invalid; expected a int"),
    ("report", 'published = { experiment = "mcts-setups", win_rate = nan }',
     "report.published.win_rate = nan is invalid; expected a finite number"),
    ("report", 'figure = { x = "budget", ylim = [0, inf] }',
     "report.figure.ylim[1] = inf is invalid; expected a finite number"),
]


@pytest.mark.parametrize("table, line, expected", BAD_STUDY_NUMBERS,
                         ids=[line.replace(BIG, "BIG") for _, line, _ in BAD_STUDY_NUMBERS])
def test_nan_infinities_and_booleans_in_a_study_file_are_one_line(tmp_path, table, line, expected):
    from tuning.study_file import load_study

    path = _study(tmp_path, table, line)
    with pytest.raises(SpecError) as caught:
        load_study(path)
    assert str(caught.value) == f"{path}: {expected}"


# ---- agent parameters from every source: --set, a TOML or JSON configuration ---------------------------------------

BAD_AGENT_VALUES = [  # (--set text, the value as the error shows it, the range)
    ("budget=nan", "nan", "an integer in [1, 100000]"),
    ("budget=inf", "inf", "an integer in [1, 100000]"),
    ("budget=true", "True", "an integer in [1, 100000]"),
    ("budget=1e400", "inf", "an integer in [1, 100000]"),
    (f"budget={BIG}", BIG, "an integer in [1, 100000]"),
    ("budget=100001", "100001", "an integer in [1, 100000]"),
    ("c=-inf", "-inf", "a number in [0, 100]"),
    (f"c={BIG}", BIG, "a number in [0, 100]"),
    ("rave_bias=nan", "nan", "a number in [0, 100]"),
    ("prior=1e400", "inf", "a number in [0, 1000]"),
]


@pytest.mark.parametrize("text, shown, valid", BAD_AGENT_VALUES,
                         ids=[text.replace(BIG, "BIG") for text, _, _ in BAD_AGENT_VALUES])
def test_bad_agent_values_given_by_set_are_one_line(capsys, text, shown, valid):
    code, _out, err = run_cli(capsys, "eval", "--setup", "random-mcts-mcts", "--set", text, "--games", "1")
    name = text.partition("=")[0]
    assert code == 2 and _one_line(err) == f"lotr eval: error: --set: questing.{name} = {shown} is invalid; expected {valid}"


@pytest.mark.parametrize(
    "suffix, line, expected",
    [
        (".toml", "budget = nan", "questing.budget = nan is invalid; expected an integer in [1, 100000]"),
        (".toml", "c = inf", "questing.c = inf is invalid; expected a number in [0, 100]"),
        (".toml", "budget = true", "questing.budget = True is invalid; expected an integer in [1, 100000]"),
        (".toml", f"budget = {BIG}", f"questing.budget = {BIG} is invalid; expected an integer in [1, 100000]"),
        (".json", '"c": NaN', "questing.c = nan is invalid; expected a number in [0, 100]"),
        (".json", '"budget": -Infinity', "questing.budget = -inf is invalid; expected an integer in [1, 100000]"),
        (".json", f'"c": {BIG}', f"questing.c = {BIG} is invalid; expected a number in [0, 100]"),
        (".json", '"budget": false', "questing.budget = False is invalid; expected an integer in [1, 100000]"),
    ],
)
def test_bad_agent_values_in_a_configuration_file_are_one_line(capsys, tmp_path, suffix, line, expected):
    config = tmp_path / f"agent{suffix}"
    if suffix == ".toml":
        config.write_text(f'setup = "random-mcts-mcts"\n[questing]\n{line}\n')
    else:
        config.write_text(f'{{"setup": "random-mcts-mcts", "questing": {{{line}}}}}')
    code, _out, err = run_cli(capsys, "eval", "--config", str(config), "--games", "1")
    assert code == 2 and _one_line(err) == f"lotr eval: error: {config}: {expected}"


def test_lotr_train_refuses_a_nan_learning_rate_in_one_line(capsys):
    code, _out, err = run_cli(capsys, "train", "--setup", "random-rl-random", "--lr", "nan", "--episodes", "1")
    assert code == 2 and _one_line(err) == "lotr train: error: --set: questing.lr = nan is invalid; expected a number in [1e-07, 1]"


def test_every_numeric_parameter_has_a_finite_range():
    """Agents (each game's, presets too), their search options and the games' options: no number is unbounded."""
    import gamecore
    from agents.specs import agent_kinds

    for name in gamecore.names():
        game = gamecore.load(name)
        params = [p for kind in agent_kinds(game).values() for p in kind.params]
        for param in [*params, *game.options, *game.search.params]:
            if param.type in (int, float) and not param.choices:
                assert all(isinstance(b, (int, float)) and math.isfinite(b) for b in (param.low, param.high)), (
                    f"{name}: {param.name} in [{param.low}, {param.high}]")


def test_a_numeric_parameter_without_a_finite_range_cannot_be_declared():
    from gamecore.params import Param

    for low, high in ((0, None), (None, 1), (0, math.inf), (-math.inf, 0), (0, math.nan), (2, 1)):
        with pytest.raises(ValueError, match="budget"):
            Param("budget", int, 1, low, high)


# ---- command-line numbers: caps and --no-limits ---------------------------------------------------------------------

# (command, the arguments that fail at once on code without caps, the flag, a value just over the cap, its name, cap)
CLI_CAPS = [
    ("eval", ["--config", "missing.toml"], "--games", 10_000_001, "games", 10_000_000),
    ("eval", ["--config", "missing.toml"], "--workers", 257, "workers", 256),
    ("train", ["--config", "missing.toml"], "--episodes", 100_000_001, "episodes", 100_000_000),
    ("train", ["--config", "missing.toml"], "--envs", 4_097, "envs", 4_096),
    ("train", ["--config", "missing.toml"], "--window", 100_000_001, "window", 100_000_000),
    ("tune run", ["missing.toml"], "--n-trials", 100_001, "n_trials", 100_000),
    ("tune run", ["missing.toml"], "--workers", 257, "workers", 256),
    ("tune worker", ["missing.toml", "--storage", "x.journal"], "--n-trials", 100_001, "n_trials", 100_000),
    ("tune worker", ["missing.toml", "--storage", "x.journal"], "--wait", 604_801, "wait", 604_800),
    ("warm-up", ["--game", "lotr"], "--workers", 257, "workers", 256),
]


def _refuse_to_compile(*args, **kwargs):
    raise AssertionError("warm-up compiled: its --workers were not capped")


@pytest.mark.parametrize("command, rest, flag, value, cap_name, cap", CLI_CAPS,
                         ids=[f"{c} {f}" for c, _, f, *_ in CLI_CAPS])
def test_a_command_line_number_over_its_cap_is_one_line(capsys, in_tmp, monkeypatch, command, rest, flag, value,
                                                        cap_name, cap):
    monkeypatch.setattr("agents.warm_up.report_warm_up", _refuse_to_compile)
    code, _out, err = run_cli(capsys, *command.split(), *rest, flag, str(value))
    assert code == 2 and _one_line(err) == (f"lotr {command}: error: argument {flag}: must be at most {cap:,} "
                                            f"(the cap on {cap_name}; {NO_LIMITS}), got {value}")


@pytest.mark.parametrize("command, rest, flag, value, cap_name, cap", CLI_CAPS,
                         ids=[f"{c} {f}" for c, _, f, *_ in CLI_CAPS])
def test_a_command_line_number_over_its_cap_is_accepted_with_no_limits(command, rest, flag, value, cap_name, cap):
    from tuning.cli import parse_command_line

    args = parse_command_line([*command.split(), *rest, flag, str(10**12), "--no-limits"])
    assert getattr(args, flag[2:].replace("-", "_")) == 10**12


@pytest.mark.parametrize("flag, text", [("--games", "nan"), ("--games", "inf"), ("--games", "true"),
                                        ("--workers", "1e3"), ("--seed", "nan")])
def test_a_command_line_number_that_is_not_a_whole_number_is_one_line(capsys, flag, text):
    code, _out, err = run_cli(capsys, "eval", flag, text)
    assert code == 2 and re.fullmatch(rf"lotr eval: error: argument {flag}: expected .*, got '{text}'", _one_line(err))


def test_lotr_tune_run_dry_run_of_a_study_over_a_cap_needs_no_limits(capsys, in_tmp):
    path = _study(in_tmp, "objective", "games = 20000000")
    code, _out, err = run_cli(capsys, "tune", "run", str(path), "--dry-run")
    assert code == 2 and _one_line(err) == (f"lotr tune run: error: {path}: objective.games = 20000000 is invalid; "
                                            f"expected at most 10,000,000 (the cap on games; {NO_LIMITS})")
    code, out, err = run_cli(capsys, "tune", "run", str(path), "--dry-run", "--no-limits")
    assert code == 0 and "over deals 0..19999999 of seed 0" in out
    assert sorted(p.name for p in in_tmp.iterdir()) == ["bad.toml"]  # a dry run creates nothing


def test_lotr_tune_worker_passes_no_limits_to_the_study_file(capsys, in_tmp):
    path = _study(in_tmp, "search", "n_trials = 200000")
    code, _out, err = run_cli(capsys, "tune", "worker", str(path), "--storage", "bad.journal", "--wait", "1")
    assert code == 2 and _one_line(err).endswith(f"search.n_trials = 200000 is invalid; expected at most 100,000 "
                                                 f"(the cap on n_trials; {NO_LIMITS})")
    code, _out, err = run_cli(capsys, "tune", "worker", str(path), "--storage", "bad.journal", "--wait", "1",
                             "--no-limits")
    assert code == 2 and err.strip().splitlines()[-1].startswith("lotr tune worker: error: study bad: not started "
                                                                 "within 1 s")


# ---- the same in real processes: exit code 2, one line on stderr, no traceback --------------------------------------


def _gametune(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    program = Path(sys.executable).with_name("gametune")
    command = [str(program)] if program.is_file() else [sys.executable, "-m", "tuning.cli"]
    return subprocess.run([*command, *args], check=False, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_gametune_tune_run_dry_run_refuses_a_nan_timeout(tmp_path):
    path = _study(tmp_path, "search", "timeout = nan")
    done = _gametune("tune", "run", str(path), "--dry-run", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert _one_line(done.stderr).endswith(
        f"tune run: error: {path}: search.timeout = nan is invalid; expected a positive finite number of seconds")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_gametune_eval_refuses_a_trillion_games(tmp_path):
    done = _gametune("eval", "--games", str(10**12), cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stdout == ""
    assert _one_line(done.stderr).endswith(
        f"eval: error: argument --games: must be at most 10,000,000 (the cap on games; {NO_LIMITS}), got {10**12}")


BAD_OUTPUTS = [  # each was found to fail after its work (a whole study, a training, a search) or with a traceback
    (("tune", "run", "s.toml", "--out", "x.txt"), "--out x.txt: expected a .toml or .json file"),
    (("tune", "run", "s.toml", "--out", "folder.toml"), "--out folder.toml: is a folder"),
    (("tune", "export", "s.toml", "--out", "s.toml"), "--out s.toml: is the file this command reads"),
    (("tune", "export", "s.toml", "--out", "s.toml/x.toml"), "--out s.toml/x.toml: no folder"),  # under a file
    (("tune", "init", "--game", "nim", "--setup", "mcts", "--out", "folder.toml"), "--out folder.toml: is a folder"),
    (("play", "--game", "carcassonne", "--png", "x.txt"), "--png x.txt: expected a .png file"),
    (("play", "--game", "carcassonne", "--png", "missing/x.png"), "--png missing/x.png: no folder"),
    (("train", "--game", "nim", "--setup", "rl-random", "--episodes", "2", "--out", "s.toml"),
     "--out s.toml: is a file; give a folder"),
    (("lotr", "choices", "--games", "1", "--out", "folder.toml"), "--out folder.toml: is a folder"),
    (("lotr", "limit", "--deals", "1", "--out", "missing/x.json"), "--out missing/x.json: no folder"),
    (("lotr", "choices", "--games", str(10**20)), "--games: must be at most 10,000,000"),
    (("lotr", "limit", "--nodes", str(10**20)), "--nodes: must be at most 100,000,000"),
    (("lotr", "limit", "--deals", str(10**20)), "--deals: must be at most 10,000,000"),
]


@pytest.mark.parametrize("argv, message", BAD_OUTPUTS, ids=[" ".join(a[:2]) + f" {i}" for i, (a, _) in
                                                            enumerate(BAD_OUTPUTS)])
def test_a_bad_output_path_or_count_is_one_line_before_any_work(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "studies" / "lotr" / "mcts-hpo.toml", "s.toml")
    (tmp_path / "folder.toml").mkdir()
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1 and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.toml", "s.toml"]  # nothing written, nothing run


def test_a_dry_run_refuses_what_the_run_would(capsys, tmp_path, monkeypatch):
    """A folder as the store, and a grace period a live worker's heartbeats cannot meet: the dry run passed both."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dir.journal").mkdir()
    text = (ROOT / "studies" / "lotr" / "mcts-hpo.toml").read_text()
    Path("s.toml").write_text(text)
    Path("g.toml").write_text(text.replace("workers = 2", "workers = 2\nheartbeat_interval = 10\ngrace_period = 10"))
    for argv, message in ((("s.toml", "--storage", "dir.journal"), "dir.journal is a folder"),
                          (("g.toml",), "search.grace_period = 10 must exceed search.heartbeat_interval = 10")):
        code, _, err = run_cli(capsys, "tune", "run", *argv, "--dry-run")
        assert code == 2 and len(err.strip().splitlines()) == 1 and message in err, err


@pytest.mark.parametrize("argv", [("eval", "--option", "pile", "--games", "1"), ("lotr", "choices", "--option", "pile"),
                                  ("lotr", "limit", "--option", "pile")], ids=["eval", "choices", "limit"])
def test_a_game_option_without_a_value_names_option_not_set(capsys, argv):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and "--option 'pile': expected name=value, e.g. difficulty=easy" in err, err
    assert "--set" not in err
