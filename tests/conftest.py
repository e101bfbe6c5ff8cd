"""Shared helpers: hand-made game positions and a few walks through real games.

``make_state`` edits the full-state dict of a dealt game (``GameState.to_dict``)
into a consistent position: every one of the 43 card ids ends up in exactly one
zone, and the unread parts of both deck-order arrays hold exactly the cards of
the deck zones, in the order asked for.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lotr_sim import GameState
from lotr_sim import layout as L
from lotr_sim.cards import ALLY_IDS, ENEMY_IDS, HERO_IDS, LOCATION_IDS, N_CARDS

ENCOUNTER_IDS = ENEMY_IDS + LOCATION_IDS

# make_state keyword -> zone name (layout.ZONE_NAMES)
_ZONE_KEYWORDS = {
    "hand": "hand",
    "in_play": "in play",
    "player_discard": "player discard",
    "staging": "staging area",
    "engaged": "engagement area",
    "encounter_discard": "encounter discard",
    "destroyed_heroes": "destroyed heroes",
}


WARMED = ".warmed"  # written in the compiled code's cache folder once `gametune warm-up` has filled it


def pytest_configure(config):
    """Before the test workers start: fill the compiled code's cache for this version of the code, once
    (``gametune warm-up``, on its parallel processes), so that the test workers load it instead of both compiling
    the same functions."""
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller has warmed up
        return
    config.stash[REPOSITORY_FILES] = _repository_files()
    from gamecore._jit_cache import folder_for

    marker = Path(folder_for()) / WARMED
    if marker.is_file():
        return
    print("compiling every game's code before the tests (gametune warm-up, once per version of the code) ...",
          file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "tuning.cli", "warm-up"], check=True)
    marker.touch()


REPOSITORY = Path(__file__).resolve().parent.parent
REPOSITORY_FILES = pytest.StashKey[set]()
CACHES = ("__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", "build")  # made by running or installing


def _repository_files() -> set[str]:
    """The repository's top-level entries and what ``git status`` lists (a file a test left behind shows here)."""
    status = "" if shutil.which("git") is None else subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=normal"], cwd=REPOSITORY, capture_output=True,
        text=True, check=False).stdout
    found = {p.name for p in REPOSITORY.iterdir()} | {line[3:] for line in status.splitlines()}
    return {path for path in found if not any(part in CACHES or part.endswith(".egg-info")
                                              for part in Path(path).parts)}


def pytest_sessionfinish(session, exitstatus):
    """A test that writes into the repository (an MLflow store in the working directory, a study's files) fails
    the run: every test works in its own folder."""
    before = session.config.stash.get(REPOSITORY_FILES, None)
    if before is None:  # a worker, or configured without the controller's listing
        return
    left = sorted(_repository_files() - before)
    if left and exitstatus == pytest.ExitCode.OK:
        print(f"\nthe repository changed during the tests (a test that writes into it; or an edit made meanwhile): "
              f"{', '.join(left)}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_collection_modifyitems(items):
    """The slow tests first in the order, each file's as written. Under work stealing (``addopts``) they fill the
    first worker's share until the others take from it, so a long one can still run late: the order helps, it does
    not schedule (handing tests out in order, ``--dist load``, was slower: docs/benchmarks.md)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def make_state(
    difficulty: str = "hard",
    seed: int = 0,
    *,
    phase: str = "planning",
    hand=(),
    in_play=(),
    player_discard=(),
    staging=(),
    engaged=(),
    active_location=None,
    encounter_discard=(),
    destroyed_heroes=(),
    player_deck=None,
    encounter_deck=None,
    next_encounter=(),
    threat: int = 24,
    resources=(0, 0, 0),
    damage=None,
    exhausted=(),
    quest_progress: int = 0,
    quest_stage: int = 0,
    quest_stages: int = 1,
    location_progress: int = 0,
    round: int = 1,
    rules: str = "corrected",
    ally_order=(),
) -> GameState:
    """A hand-made position, waiting at ``phase``.

    Heroes not listed in ``destroyed_heroes`` are in play; ``in_play`` adds
    allies. Allies not placed anywhere go to the player deck (after the ones
    listed in ``player_deck``, which is the full deck, top first, when given;
    then unplaced allies go to the player discard instead). Encounter cards not
    placed anywhere go to the encounter deck after ``next_encounter`` (so the
    next reveals are known); ``encounter_deck`` gives the whole deck, top
    first, and sends unplaced encounter cards to the encounter discard. On easy,
    unplaced locations stay out of the game. ``rules``: the game option; ``ally_order``: allies in the order
    they were bought (the list-skip defect's list order).
    """
    data = GameState(difficulty, seed=seed, rules=rules).to_dict()
    data["ally_order"] = sum(rank << 4 * (a - ALLY_IDS[0]) for rank, a in enumerate(ally_order))
    zones: dict[int, str] = {}

    def put(cards, zone):
        for c in cards:
            assert c not in zones, f"card {c} placed twice ({zones[c]} and {zone})"
            zones[c] = zone

    placed = {
        "hand": hand,
        "in_play": in_play,
        "player_discard": player_discard,
        "staging": staging,
        "engaged": engaged,
        "encounter_discard": encounter_discard,
        "destroyed_heroes": destroyed_heroes,
    }
    for keyword, cards in placed.items():
        put(cards, _ZONE_KEYWORDS[keyword])
    if active_location is not None:
        put([active_location], "active location")
    for h in HERO_IDS:
        if h not in zones:
            zones[h] = "in play"
    assert all(zones[h] in ("in play", "destroyed heroes") for h in HERO_IDS)

    # Player deck: top first.
    if player_deck is None:
        deck = [c for c in ALLY_IDS if c not in zones]
    else:
        deck = list(player_deck)
        put([c for c in ALLY_IDS if c not in zones and c not in deck], "player discard")
    put(deck, "player deck")
    size = L.PLAYER_DECK_SIZE
    drawn = [c for c in ALLY_IDS if c not in deck]
    data["player_deck_order"] = drawn + deck
    data["player_top"] = size - len(deck)

    # Encounter deck: top first.
    if difficulty == "easy":
        put([c for c in LOCATION_IDS if c not in zones and c not in next_encounter and
             (encounter_deck is None or c not in encounter_deck)], "out of game")
    if encounter_deck is None:
        edeck = list(next_encounter) + [c for c in ENCOUNTER_IDS if c not in zones and c not in next_encounter]
    else:
        assert not next_encounter, "give either encounter_deck or next_encounter"
        edeck = list(encounter_deck)
        put([c for c in ENCOUNTER_IDS if c not in zones and c not in edeck], "encounter discard")
    put(edeck, "encounter deck")
    length = data["encounter_length"]
    if len(edeck) > length:  # e.g. a hard position with both setup cards back in the deck
        length = data["encounter_length"] = L.ENCOUNTER_DECK_SIZE
    gone = [c for c in ENCOUNTER_IDS if c not in edeck][: length - len(edeck)]
    order = gone + edeck
    data["encounter_deck_order"] = order + [0] * (L.ENCOUNTER_DECK_SIZE - len(order))
    data["encounter_top"] = length - len(edeck)

    assert sorted(zones) == list(range(N_CARDS)), "every card must be in exactly one zone"
    data["zones"] = [zones[c] for c in range(N_CARDS)]
    data["phase"] = phase
    data["outcome"] = "ongoing"
    data["threat"] = threat
    data["resources"] = list(resources)
    data["damage"] = [0] * N_CARDS
    for card, value in (damage or {}).items():
        data["damage"][card] = value
    data["exhausted"] = [1 if c in exhausted else 0 for c in range(N_CARDS)]
    data["quest_progress"] = quest_progress
    data["quest_stage"] = quest_stage
    data["quest_stages"] = quest_stages
    data["location_progress"] = location_progress
    data["round"] = round
    return GameState.from_dict(data)


def walk(difficulty: str, seed: int, rng_seed: int, max_states: int | None = None):
    """The states at every decision of one game played with uniformly sampled actions."""
    rng = np.random.default_rng(rng_seed)
    g = GameState(difficulty, seed=seed)
    states = []
    while not g.is_over and (max_states is None or len(states) < max_states):
        states.append(g.clone())
        g.apply(g.sample_action(rng))
    return states


@pytest.fixture(scope="session")
def decision_states():
    """A few hundred decision states from random games on every difficulty."""
    states = []
    for difficulty in ("easy", "medium", "hard"):
        for seed in range(8):
            states.extend(walk(difficulty, seed, rng_seed=100 + seed))
    return states


@pytest.fixture(scope="session")
def full_scenario_states():
    """The states at every decision of hard full-scenario games (three quest stages) played by ``rule-full``, which
    reaches the later stages (the first of them where the game's states would otherwise all be)."""
    states = []
    for seed in range(6):
        g = GameState("hard", seed=seed, full_scenario=True)
        while not g.is_over:
            states.append(g.clone())
            g.apply(g.policy_action("rule-full", seed))
    assert {int(g.core_state()[L.QUEST_STAGE]) for g in states} == {0, 1, 2}
    return states


POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """A fresh working folder, with MLflow's default store in it (no MLFLOW_TRACKING_URI from outside)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    return tmp_path


@pytest.fixture
def no_plots(monkeypatch):
    """Studies that finish without drawing Optuna's plots for their parent run (2-4 s a study on a busy 2-core
    machine, in most tests that run a study for something else): test_a_two_trial_study_end_to_end_on_the_default_stores
    and the slow tests check them."""
    monkeypatch.setattr("tuning.selection.write_study_figures", lambda study, spec, folder: [])


@pytest.fixture
def fresh_postgres():
    """The URL of a new, empty PostgreSQL database, dropped afterwards; skips without PostgreSQL."""
    import uuid

    try:
        import psycopg

        admin = psycopg.connect(POSTGRES, autocommit=True)
    except Exception as error:  # noqa: BLE001  pragma: no cover - CI has PostgreSQL
        pytest.skip(f"no PostgreSQL at {POSTGRES}: {error}")
    name = f"test_{uuid.uuid4().hex[:8]}"
    admin.execute(f"CREATE DATABASE {name}")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
        admin.close()


def run_gametune(folder, *args) -> subprocess.CompletedProcess:
    """``gametune *args`` in a process of its own in ``folder`` (this checkout's code, no MLFLOW_TRACKING_URI from
    outside): its exit code, stdout and stderr, within 10 minutes."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    return subprocess.run([sys.executable, "-m", "tuning.cli", *map(str, args)], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def run_cli(capsys, *argv):
    """Run ``lotr *argv``; return (exit code, stdout, stderr)."""
    from tuning.cli import main

    try:
        code = main(list(argv))
    except SystemExit as stop:
        code = stop.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_in_process(capsys, *args) -> subprocess.CompletedProcess:
    """``run_cli`` in the working folder, its result shaped as ``run_gametune``'s (the same checks read both): for
    tests of what a command does to files, which need no process of their own."""
    code, out, err = run_cli(capsys, *map(str, args))
    return subprocess.CompletedProcess(["lotr", *map(str, args)], code, out, err)


def random_play(new_game, n: int, seed: int = 0):
    """States along ``n`` games (``new_game(g)`` for g = 0..n-1) of uniformly random legal play, the last
    state of each game included."""
    rng = np.random.default_rng(seed)
    for g in range(n):
        state = new_game(g)
        while not state.is_over:
            yield state
            actions = state.legal_actions()
            state.apply(actions[rng.integers(len(actions))])
        yield state


SMALL_MAIN_JOB = """# The main job's study (studies/lotr/mcts-hpo.toml), small: a grid whose last two points lose (budget 1)
name = "mcts-hpo"
difficulty = "hard"
setup = "random-mcts-mcts"
[fixed]
final = "visits"
ppn = 10
[space]
budget = { choice = [100, 1] }
playout = { choice = ["random", "expert"] }
[objective]
metrics = ["win_rate"]
games = 60
[validation]
top_k = 2
games = 200
seed = 1000003
[test]
games = 200
seed = 2000003
[search]
sampler = "grid"
pruner = "wilcoxon"
n_trials = 4
workers = 2
"""


@pytest.fixture(scope="session")
def finished_main_job(tmp_path_factory):
    """A folder after the README's main job, ``lotr tune run studies/lotr/mcts-hpo.toml``, run as written on a study
    file of that name made small (``SMALL_MAIN_JOB``: 4 trials of 60 games on 2 workers, trial 0 complete and
    chosen, trials 2 and 3 pruned, trial 1 either, by timing; 200 validation and test deals; about 35 s): its
    journal, MLflow store and export, as a researcher finds them."""
    import os

    folder = tmp_path_factory.mktemp("main-job")
    (folder / "studies" / "lotr").mkdir(parents=True)
    (folder / "studies" / "lotr" / "mcts-hpo.toml").write_text(SMALL_MAIN_JOB)
    env = {key: value for key, value in os.environ.items() if key != "MLFLOW_TRACKING_URI"}
    lotr = Path(sys.executable).with_name("lotr")
    done = subprocess.run([str(lotr), "tune", "run", "studies/lotr/mcts-hpo.toml"], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return folder


TRACKING_SERVER_ENV = {"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}  # a tracking server only: no job workers
# (MLflow 3 starts them beside each server for its GenAI jobs: about 19 s of CPU a start here, docs/distributed.md)


def launch_mlflow_server(backend: str, folder, output=subprocess.DEVNULL) -> tuple[subprocess.Popen, str]:
    """`mlflow server` on a free port with ``backend``, started: (process, tracking URI); it answers later. Its
    output and errors go to ``output`` (an open file, to search them)."""
    import os
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "mlflow", "server", "--backend-store-uri", backend, "--host", "127.0.0.1",
               "--port", str(port), "--workers", "1", "--artifacts-destination", str(folder / "artifacts")]
    server = subprocess.Popen(command, cwd=folder, stdout=output, stderr=subprocess.STDOUT,
                              env=os.environ | TRACKING_SERVER_ENV)
    return server, f"http://127.0.0.1:{port}"


def wait_for_mlflow_server(server: subprocess.Popen, uri: str, seconds: float = 120) -> None:
    """Return once the server at ``uri`` answers; kill it and fail after ``seconds``."""
    import time
    import urllib.request

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{uri}/health", timeout=1)
            return
        except OSError:
            time.sleep(0.5)
    server.kill()
    pytest.fail(f"mlflow server did not start within {seconds:.0f} s")


def start_mlflow_server(backend: str, folder) -> tuple[subprocess.Popen, str]:
    """`mlflow server` on a free port with ``backend``; returns (process, tracking URI) once it answers."""
    server, uri = launch_mlflow_server(backend, folder)
    wait_for_mlflow_server(server, uri)
    return server, uri
