"""The GameState interface: determinism, copies, serialisation, legal actions, action values."""

import itertools
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import make_state
from scipy import stats

from lotr_sim import (
    Attack,
    Defend,
    GameState,
    Plan,
    Quest,
    Stage,
    TooManyActionsError,
    Travel,
)
from lotr_sim.cards import COST

# -- determinism -------------------------------------------------------------------------

_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from lotr_sim import GameState
    g = GameState("{difficulty}", seed={seed}, trace=True)
    rng = np.random.default_rng({rng_seed})
    while not g.is_over:
        g.apply(g.sample_action(rng))
    print(g.to_json())
    print("=====")
    print(g.trace_text())
    """
)


def _run_in_subprocess(difficulty, seed, rng_seed, hash_seed):
    code = _SCRIPT.format(difficulty=difficulty, seed=seed, rng_seed=rng_seed)
    env = {"PYTHONHASHSEED": str(hash_seed), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("difficulty, seed, rng_seed", [("hard", 7, 3), ("easy", 11, 5)])
def test_same_seeds_give_the_same_game_in_another_process(difficulty, seed, rng_seed):
    first = _run_in_subprocess(difficulty, seed, rng_seed, hash_seed=1)
    second = _run_in_subprocess(difficulty, seed, rng_seed, hash_seed=2)
    assert first == second
    # ... and the same game here.
    g = GameState(difficulty, seed=seed, trace=True)
    rng = np.random.default_rng(rng_seed)
    while not g.is_over:
        g.apply(g.sample_action(rng))
    assert first == g.to_json() + "\n=====\n" + g.trace_text() + "\n"
    assert "game over" in first


def test_different_seeds_give_different_games():
    a = GameState("hard", seed=1)
    b = GameState("hard", seed=2)
    assert a != b
    assert a.to_dict()["player_deck_order"] != b.to_dict()["player_deck_order"]


def test_same_seed_same_deal():
    assert GameState("medium", seed=42) == GameState("medium", seed=42)


def test_play_out_is_deterministic():
    results = []
    for _ in range(2):
        g = GameState("hard", seed=9)
        outcome = g.play_out("random", 17)
        results.append((outcome, g.to_json()))
    assert results[0] == results[1]
    assert results[0][0] != 0  # a finished game


def test_clone_is_equal_and_independent():
    g = GameState("hard", seed=4)
    before = g.to_dict()
    c = g.clone()
    assert c == g and c is not g
    c.apply(c.sample_action(0))
    assert g.to_dict() == before
    assert c != g
    # and the other way round
    c2 = g.clone()
    g.apply(g.sample_action(1))
    assert c2.to_dict() == before


def test_clone_keeps_and_separates_the_trace():
    g = GameState("hard", seed=4, trace=True)
    c = g.clone()
    assert c.trace() == g.trace()
    c.apply(c.sample_action(0))
    assert len(c.trace()) > len(g.trace())


def test_dict_and_json_round_trip(decision_states):
    for g in decision_states[::7]:
        assert GameState.from_dict(g.to_dict()) == g
        assert GameState.from_json(g.to_json()) == g
        assert GameState.from_json(g.to_json()).observation() == g.observation()


def test_from_dict_rejects_bad_data():
    d = GameState("hard", seed=0).to_dict()
    for field, value in [("format", "other"), ("phase", "lunch"), ("zones", ["hand"] * 42), ("damage", [0])]:
        bad = dict(d)
        bad[field] = value
        with pytest.raises(ValueError):
            GameState.from_dict(bad)
    bad = dict(d)
    del bad["threat"]
    with pytest.raises(ValueError, match="threat"):
        GameState.from_dict(bad)


def test_trace_requires_trace_flag_and_tells_the_story():
    with pytest.raises(ValueError):
        GameState("hard", seed=0).trace()
    g = GameState("hard", seed=0, trace=True)
    text = g.trace_text()
    assert "Forest Spider#22 starts in the staging area" in text
    assert "Round 1" in text
    g.play_out("expert", 1)
    assert "game over" in g.trace_text()


def test_repr_and_properties():
    g = GameState("medium", seed=0)
    assert g.difficulty == "medium"
    assert "planning pending" in repr(g)
    with pytest.raises(ValueError):
        GameState("nightmare", seed=0)
    with pytest.raises(ValueError):
        GameState("hard", seed=-1)


# -- legal actions -----------------------------------------------------------------------


def test_every_listed_action_is_legal_and_applies(decision_states):
    checked = 0
    for g in decision_states[::3]:
        before = g.to_dict()
        actions = g.legal_actions()
        assert len(actions) >= 2
        assert len(set(actions)) == len(actions), "duplicates in legal_actions()"
        for a in list(actions)[:40]:
            assert a.stage == g.stage
            assert g.is_legal(a) and g.why_illegal(a) is None
            c = g.clone()
            c.apply(a)
            checked += 1
        assert g.to_dict() == before
    assert checked > 500


def _brute_force_count(g: GameState) -> int:
    """Count the legal planning / questing / travel actions from the rules directly."""
    obs = g.observation()
    if g.stage == Stage.PLANNING:
        hand = obs.hand
        return sum(
            1
            for k in range(len(hand) + 1)
            for subset in itertools.combinations(hand, k)
            if sum(COST[c] for c in subset) <= obs.total_resources
        )
    if g.stage == Stage.QUESTING:
        return 2 ** len(obs.ready)
    if g.stage == Stage.TRAVEL:
        return 1 + sum(1 for c in obs.staging if c >= 31)
    raise ValueError


def test_legal_actions_are_complete_for_planning_questing_travel(decision_states):
    seen = set()
    for g in decision_states:
        if g.stage in (Stage.PLANNING, Stage.QUESTING, Stage.TRAVEL):
            assert len(g.legal_actions()) == _brute_force_count(g), g.observation()
            seen.add(g.stage)
    assert seen == {Stage.PLANNING, Stage.QUESTING, Stage.TRAVEL}


def test_legal_defenses_are_complete():
    """Two engaged enemies, ready Eowyn and Eleanor, three heroes: each enemy gets a
    ready defender or one of three heroes, no defender twice: 5*5 - 2 = 23."""
    g = make_state(phase="defense", engaged=[18, 26], exhausted=[0], encounter_deck=[])
    actions = set(g.legal_actions())
    assert len(actions) == 23
    assert Defend(blocks=[(18, 1), (26, 2)]) in actions
    assert Defend(blocks=[(18, 1), (26, 1)]) not in actions
    assert Defend(undefended=[(18, 0), (26, 0)]) in actions
    assert Defend(blocks=[(18, 0)], undefended=[(26, 1)]) not in actions  # Dunhere is exhausted


def test_legal_attacks_skip_targets_already_destroyed():
    """Bats (2 hitpoints, defense 0) die to Dunhere's 2: Eowyn can then not attack them."""
    g = make_state(phase="attack", engaged=[27, 26], exhausted=[2], encounter_deck=[])
    actions = set(g.legal_actions())
    # Dunhere: none/27/26, Eowyn: none/27/26 = 9, minus (0->27, 1->27).
    assert len(actions) == 8
    assert Attack(attacks=[(0, 27), (1, 27)]) not in actions
    assert Attack(attacks=[(1, 27), (0, 26)]) in actions


def test_sample_action_is_a_legal_action(decision_states):
    for i, g in enumerate(decision_states[::2]):
        legal = set(g.legal_actions())
        for s in range(5):
            assert g.sample_action(1000 * i + s) in legal


def test_sample_action_accepts_a_generator_and_advances_it():
    g = GameState("hard", seed=0)
    rng = np.random.default_rng(0)
    draws = {g.sample_action(rng) for _ in range(60)}
    assert draws == set(g.legal_actions())  # 5 actions: nothing, or one affordable card


def test_sampling_is_uniform_over_the_legal_actions():
    """Questing with three ready heroes: 8 subsets, each drawn about 1/8 of the time."""
    g = make_state(phase="questing", encounter_deck=[])
    legal = list(g.legal_actions())
    assert len(legal) == 8
    rng = np.random.default_rng(123)
    draws = [g.sample_action(rng) for _ in range(4000)]
    counts = [draws.count(a) for a in legal]
    assert sum(counts) == 4000
    assert stats.chisquare(counts).pvalue > 0.001


def test_sampling_is_uniform_when_some_combinations_are_illegal():
    """Planning with 4 resources and Took (2), Took (2), Rider (3) in hand: 5 legal buys
    out of 8 combinations: uniform over those 5 (rejection sampling done right)."""
    g = make_state(phase="planning", hand=[9, 10, 12], resources=(2, 1, 1))
    legal = list(g.legal_actions())
    assert set(legal) == {Plan(), Plan([9]), Plan([10]), Plan([12]), Plan([9, 10])}
    rng = np.random.default_rng(7)
    draws = [g.sample_action(rng) for _ in range(5000)]
    counts = [draws.count(a) for a in legal]
    assert sum(counts) == 5000
    assert stats.chisquare(counts).pvalue > 0.001


@pytest.mark.parametrize("policy", ["random", "expert", "rule", "rule-full"])
def test_policy_actions_are_legal(decision_states, policy):
    for i, g in enumerate(decision_states):
        a = g.policy_action(policy, i)
        assert g.why_illegal(a) is None, (policy, g.observation(), a)


def test_too_many_actions_error_when_limit_is_tiny():
    g = GameState("hard", seed=0)
    assert g.stage == Stage.PLANNING
    with pytest.raises(TooManyActionsError, match="planning"):
        g.legal_actions(limit=1)
    assert len(g.legal_actions(limit=10_000)) >= 2


def test_unknown_policy_is_rejected():
    g = GameState("hard", seed=0)
    with pytest.raises(ValueError, match="unknown policy"):
        g.policy_action("clever", 0)
    with pytest.raises(ValueError):
        g.play_out(["random"] * 4, 0)


# -- action values -----------------------------------------------------------------------


def test_actions_are_canonical_values():
    assert Plan(buy=[12, 9]) == Plan(buy=(9, 12))
    assert hash(Plan(buy=[12, 9])) == hash(Plan(buy=(9, 12)))
    assert Plan(buy=[9, 9]) == Plan(buy=[9])
    assert Defend(blocks=[(26, 2), (18, 1)]) == Defend(blocks=[(18, 1), (26, 2)])
    assert Attack(attacks=[(1, 18), (0, 26)]) == Attack(attacks=[(0, 26), (1, 18)])
    assert Travel(31) == Travel(location=31)
    assert Travel() == Travel(None)


def test_different_action_types_with_the_same_content_differ():
    assert Plan(buy=[9]) != Quest(commit=[9])
    assert Plan() != Quest()
    assert Defend(blocks=[(18, 1)]) != Attack(attacks=[(18, 1)])
    assert Travel(31) != Travel(32)
    assert Defend(blocks=[(18, 1)]) != Defend(undefended=[(18, 1)])
    assert len({Plan(), Quest(), Travel(), Defend(), Attack()}) == 5


def test_equal_actions_across_clones_and_determinizations(decision_states):
    rng = np.random.default_rng(5)
    for g in decision_states[::11]:
        actions = list(g.legal_actions())
        assert list(g.clone().legal_actions()) == actions
        other = list(g.determinize(rng).legal_actions())
        assert other == actions
        assert [hash(a) for a in other] == [hash(a) for a in actions]


def test_legal_actions_sequence_interface():
    g = make_state(phase="questing", encounter_deck=[])
    actions = g.legal_actions()
    assert len(actions) == 8
    assert actions[-1] == actions[7]
    assert actions[1:3] == [actions[1], actions[2]]
    assert Quest() in actions
    assert Quest(commit=[0, 1, 2]) in actions
    with pytest.raises(IndexError):
        actions[8]


# -- compiled-code cache -----------------------------------------------------------------


def test_numba_cache_folder_is_keyed_by_every_source_file(tmp_path):
    """A stale on-disk cache once ran old constants in policies.py (every compiled game
    failed with 'a compiled policy chose an illegal action'). The cache folder must be
    named by a digest of all the sources compiled into it: the game interface's, the
    agents' and every game package's, for the games' kernels and for the search
    compiled per game (which inlines the rules)."""
    import shutil

    import lotr_sim.rules
    from agents.search import compiled
    from gamecore import _jit_cache as cache
    from lotr_sim import kernels

    folder = f"numba-{cache.sources_digest(cache.compiled_packages())}"
    assert folder in lotr_sim.rules.advance._cache._cache_path
    assert folder in compiled(kernels).mcts_decide._cache._cache_path
    copies = []
    for package in cache.compiled_packages():
        copies.append(tmp_path / package.name)
        shutil.copytree(package, copies[-1], ignore=shutil.ignore_patterns("__pycache__"))
    digest = cache.sources_digest(tuple(copies))
    for edited in (tmp_path / "lotr_sim" / "layout.py", tmp_path / "agents" / "search.py", tmp_path / "gamecore" / "rng.py"):
        edited.write_text(edited.read_text() + "\n# edited\n")
        assert cache.sources_digest(tuple(copies)) != digest
        digest = cache.sources_digest(tuple(copies))


def test_a_compiled_function_is_saved_to_the_cache_only_under_its_folder_lock(tmp_path):
    """Two processes saving two signatures of one function at once could leave its cache index naming the other
    signature's machine code (numba/numba#4807; this project's crashes under parallel compiles). Every save holds
    the cache folder's lock: while this test holds it, a process that has compiled a function cannot save it."""
    import fcntl
    import os
    import time
    from pathlib import Path

    (tmp_path / "kernel.py").write_text("import numba\n\n@numba.njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import gamecore, kernel; "
              "print(kernel.twice._cache._cache_path, flush=True); sys.stdin.readline(); assert kernel.twice(21) == 42")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    child = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], env=env, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    folder = Path(child.stdout.readline().strip())
    with open(folder / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        child.stdin.write("compile\n")
        child.stdin.flush()
        time.sleep(3)  # the compile takes a fraction of this; the save then waits for the lock
        assert child.poll() is None and not list(folder.glob("*.nbi"))
    assert child.wait(timeout=60) == 0
    assert list(folder.glob("*.nbi"))


def test_a_cache_access_nested_in_another_of_the_same_process_does_not_wait_on_itself(tmp_path):
    """A load whose unpickling imports a module that compiles and saves into the same folder asks for the folder's
    lock while this process holds it: it goes on under the lock it holds, instead of waiting for ever."""
    import fcntl
    import threading

    from gamecore._jit_cache import _holding_folder_lock

    class CacheFile:
        _cache_path = str(tmp_path)

    save = _holding_folder_lock(lambda cache_file: "saved", fcntl.LOCK_EX)
    load = _holding_folder_lock(lambda cache_file: save(cache_file), fcntl.LOCK_SH)
    done = []
    worker = threading.Thread(target=lambda: done.append(load(CacheFile())), daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert done == ["saved"]


def test_processes_forked_from_one_parent_name_their_compiled_code_apart():
    """Numba names compiled code by qualified name and a per-process counter, which forked processes continue
    alike: two of them compiling one closure over two games gave both the same symbol, and a process that loaded
    both from the cache ran one game's playouts in the other's search (numba/numba#10486; a parallel warm-up,
    then "a compiled policy chose an illegal action"). Each forked process now draws its own ids."""
    script = """
import multiprocessing, sys
import gamecore, numba

def make(k):
    @numba.njit
    def plus(x):
        return x + k
    return plus

def symbol(k, queue):
    plus = make(k)
    plus(0)
    queue.put(next(iter(plus.overloads.values())).fndesc.mangled_name)

if __name__ == "__main__":
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    children = [context.Process(target=symbol, args=(k, queue)) for k in (1, 2)]
    for child in children:
        child.start()
    names = {queue.get(timeout=60) for _ in children}
    for child in children:
        child.join()
    print(len(names))
"""
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2"]
