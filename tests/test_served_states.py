"""A served model checks its input, for every game (issue 44): a state that the compiled kernels cannot safely
play is refused in one line; every other state is played without an exception.

The exported model (``tuning/agent_model.py``) calls ``game.state_from_json(text)`` on whatever a client sends,
and the kernels then index arrays with the state's values. Per game (``gamecore.names()``, Nim included), a
child process (this file run as a script) takes the JSON of valid states from random games (several seeds and
depths) and corrupts it at random: a value set to -1, to 2**40, to a small number or to another value of the
state, a value moved by one, two values swapped, a list cut short or lengthened, a value of the wrong type, text
that is no state at all. Each text must be refused with a SpecError or ValueError of one line, or accepted and
then played: the legal actions listed and one of them applied, the random policy's and a short MCTS's decisions
taken, every encoding, action mask and determinization made, without an exception. A value of the wrong type
(a bool, a float, a string, NaN where an integer is meant) must be refused, and every valid state accepted.

A compiled kernel given a bad state may crash the process (a segfault) or loop forever. The parent restarts the
child after the case that crashed or hung, so that each such case fails the test and the rest are still tried.

``SERVED_STATES_CASES`` sets the number of corrupted texts per game (300; more for a longer hunt).
``SERVED_STATES_BOUNDSCHECK=1`` runs the children with Numba's bounds checks, compiled once into a cache of
their own (minutes): a read or a write outside an array, which otherwise passes unseen, then raises IndexError.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import gamecore

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CASES = int(os.environ.get("SERVED_STATES_CASES", "300"))  # corrupted texts per game (more: a longer hunt)
SEEDS = range(max(3, CASES // 100))  # random games per game
DEPTHS = (0, 1, 4, 12, 40)  # decisions played before a state is taken (and each game's last state)
MCTS = {"budget": 24, "ppn": 2}  # the short search played on every accepted state
STALL_SECONDS = 15.0  # a case that takes longer hangs (a kernel looping forever)
WARMING_SECONDS = 900.0  # the start and the valid states, whose play compiles what is not in Numba's cache yet
MAX_RESTARTS = 40  # children started per game before the rest of its cases are given up
HEAD = 40  # the first values of a state: its counters, positions and players to move
WRONG_TYPES = (True, False, 1.5, 2.0, float("nan"), float("inf"), "3", None, [1], {"value": 1}, 2**70, -(2**70))
BOUNDSCHECK = os.environ.get("SERVED_STATES_BOUNDSCHECK") == "1"


# ---- the child: corrupts and plays -----------------------------------------------------------------------------


def valid_states(game) -> list[tuple[str, str]]:
    """(where it comes from, to_json()) of the states of random games at ``DEPTHS`` decisions and at their end."""
    from agents.agent import Agent
    from agents.specs import AgentSpec

    policy = AgentSpec.make(game.policies[0], game=game)
    states = []
    for seed in SEEDS:
        state, agent = game.new_game(seed), Agent(policy, seed)
        for depth in range(max(DEPTHS) + 1):
            if depth in DEPTHS or state.is_over:
                states.append((f"seed {seed} after {depth} decisions", state.to_json()))
            if state.is_over:
                break
            state.apply(agent.act(state))
        while not state.is_over:
            state.apply(agent.act(state))
        states.append((f"seed {seed} at the end", state.to_json()))
    return states


def leaves(data, path=()) -> list[tuple]:
    """The paths (keys and indices) to every value of ``data`` that is not a list or an object."""
    if isinstance(data, dict):
        return [p for key, value in data.items() for p in leaves(value, (*path, key))]
    if isinstance(data, list):
        return [p for i, value in enumerate(data) for p in leaves(value, (*path, i))]
    return [path]


def lists(data, path=()) -> list[tuple]:
    """The paths to every list of ``data``."""
    found = [path] if isinstance(data, list) else []
    children = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    return found + [p for key, value in children for p in lists(value, (*path, key))]


def at(data, path):
    for key in path:
        data = data[key]
    return data


def value_at(data, path):
    """The value at ``path``, 0 where the path leads nowhere any more (a list cut short)."""
    try:
        return at(data, path)
    except (IndexError, KeyError, TypeError):
        return 0


def put(data, path, value) -> None:
    at(data, path[:-1])[path[-1]] = value


def shown(path) -> str:
    return "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path).lstrip(".")


def corrupt(data, rng: np.random.Generator) -> tuple[str, tuple | None]:
    """Corrupt ``data`` in place once, at random; return what was done and, for a value of the wrong type, its
    path (then the text must be refused, unless a later change undoes it)."""
    paths = leaves(data)
    values = [at(data, p) for p in paths]
    numbers = [p for p, value in zip(paths, values) if isinstance(value, int)]
    kind = rng.integers(9) if paths else 7
    path = ()
    if paths:  # any value, one in use (not zero), or one of the first (the counters a flat state starts with)
        among = (paths, [p for p, value in zip(paths, values) if value] or paths, paths[:HEAD])[rng.integers(3)]
        path = among[rng.integers(len(among))]
    before = at(data, path)
    if kind == 0:
        value = -1
    elif kind == 1:
        value = 2**40
    elif kind == 2:
        value = int(rng.integers(-2, 80))
    elif kind == 3:
        value = values[rng.integers(len(values))]
    elif kind == 4 and isinstance(before, int) and not isinstance(before, bool):
        value = before + int(rng.choice((-1, 1)))
    elif kind == 5 and numbers:
        other = numbers[rng.integers(len(numbers))]
        value = at(data, other)
        put(data, other, before)
        return f"{shown(path)} and {shown(other)} swapped", None
    elif kind in (6, 7):
        every = lists(data)
        where = every[rng.integers(len(every))]
        values = at(data, where)
        if kind == 6 and values:
            cut = int(rng.integers(len(values)))
            del values[cut:]
            return f"{shown(where)} cut to {cut} values", None
        extra = int(rng.integers(1, 4))
        values.extend([0] * extra)
        return f"{shown(where)} lengthened by {extra}", None
    else:
        value = WRONG_TYPES[rng.integers(len(WRONG_TYPES))]
        if isinstance(before, bool) or not isinstance(before, int):
            return corrupt(data, rng)  # a wrong type only where an integer is meant
        put(data, path, value)
        return f"{shown(path)} = {value!r} (an integer is meant)", path
    put(data, path, value)
    return f"{shown(path)} = {value!r} (was {before!r})", None


def cases(game) -> list[tuple[str, object, str]]:
    """(what, input, expected): ``expected`` is "accept" (a valid state), "refuse" (a value of the wrong type, or no
    state at all) or "either" (refused in one line, or played)."""
    rng = np.random.default_rng(44)
    states = valid_states(game)
    found = [(f"valid state, {where}", text, "accept") for where, text in states]
    text = states[-1][1]
    found += [(f"input {value!r:.40}", value, "refuse") for value in (
        None, 5, float("nan"), [], {}, "", "not json", text[: len(text) // 2], text + "]", "null", "[]", "{}",
        "[" * 100_000, '{"state": null}', '{"state": "1 2 3"}', b"\xff\xfe")]
    for _ in range(CASES):
        where, text = states[rng.integers(len(states))]
        data = json.loads(text)
        done = [corrupt(data, rng) for _ in range(1 + rng.integers(3) // 2)]  # one change, sometimes two
        refuse = any(path is not None and type(value_at(data, path)) is not int for _, path in done)
        found.append((f"{'; '.join(what for what, _ in done)} in {where}", json.dumps(data),
                      "refuse" if refuse else "either"))
    return found


def play(game, state, seed: int) -> None:
    """What a served agent may do with an accepted state; raises whatever goes wrong."""
    from agents.agent import Agent
    from agents.specs import AgentSpec

    K = game.kernels
    S = state.core_state()
    state.returns()
    for player in range(game.n_players):
        state.observation(player)
        for number, encoder in enumerate(game.encoders):  # a seat's view also at the end (PettingZoo's last())
            role = game.roles[player] if game.by_seat else None if state.is_over else game.roles[int(K.role(S))]
            if role in encoder.sizes:
                K.encode(S, number, player, np.empty(encoder.sizes[role], np.float32))
    if state.is_over:
        return
    for player in range(game.n_players):
        state.determinize(player, seed)
    act, scratch = np.empty(K.ACTION_SIZE, np.int64), np.empty_like(S)
    for number, space in enumerate(game.action_spaces):
        mask = np.zeros(max(space.sizes.values()), np.int8)
        K.action_mask(S, number, mask)
        for index in np.flatnonzero(mask)[:3]:
            K.decode(S, number, index, act, scratch, np.empty(K.DECODE_WORK))
    legal = state.legal_actions()
    if not len(legal):
        raise AssertionError("a game not over with no legal action")
    state.clone().apply(legal[int(np.random.default_rng(seed).integers(len(legal)))])
    for spec in (AgentSpec.make(game.policies[0], game=game), AgentSpec.make("mcts", game=game, **MCTS)):
        state.clone().apply(Agent(spec, seed).act(state))


def check(game, given, expected: str, seed: int) -> str:
    """"refused", "played", or the problem."""
    try:
        state = game.state_from_json(given)
    except ValueError as error:  # SpecError included
        message = str(error)
        if expected == "accept":
            return f"a valid state refused: {message}"
        return "refused" if message and "\n" not in message else f"refused in more than one line: {message!r}"
    except BaseException as error:  # noqa: BLE001  (anything else is the finding: a traceback, not one line)
        return f"from_json raised {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    if expected == "refuse":
        return "accepted"
    try:
        if expected == "accept" and state.to_json() != given:
            return "a valid state accepted as another"
        play(game, state, seed)
    except BaseException as error:  # noqa: BLE001
        return f"accepted, then {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    return "played"


def child(name: str, start: int) -> None:
    """Check ``name``'s cases from number ``start`` on, writing a line before each case and one with its
    outcome."""
    game = gamecore.load(name)
    every = cases(game)
    for k in range(start, len(every)):
        what, given, expected = every[k]
        print(json.dumps({"case": k, "what": what, "warming": expected == "accept"}), flush=True)  # compiles first
        print(json.dumps({"case": k, "what": what, "outcome": check(game, given, expected, k)}), flush=True)
    print(json.dumps({"done": len(every)}), flush=True)


# ---- the parent: runs the children, restarts them after a crash -----------------------------------------------


def child_environment() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(TESTS), os.environ.get("PYTHONPATH", "")]))
    if BOUNDSCHECK:
        env["NUMBA_BOUNDSCHECK"] = "1"
        env["NUMBA_CACHE_DIR"] = str(Path(gamecore._jit_cache.folder_for()).parent / "boundscheck")
    return env


def run_child(name: str, start: int, problems: list[str], counts: dict) -> int | None:
    """Run a child on ``name``'s cases from ``start`` on, adding its problems and outcomes to ``problems`` and
    ``counts``; None when it checked them all, else the case at which it crashed or hung."""
    with tempfile.TemporaryFile("w+") as errors:  # a file, not a pipe: a child that writes much never waits on it
        process = subprocess.Popen([sys.executable, __file__, name, str(start)], stdout=subprocess.PIPE,
                                   stderr=errors, text=True, env=child_environment(), cwd=ROOT)
        last, what, stall, finished = None, "", WARMING_SECONDS, False
        with process, selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while selector.select(timeout=stall):
                line = process.stdout.readline()
                if not line:
                    break
                report = json.loads(line)
                if "done" in report:
                    finished = True
                elif report.get("outcome") in counts:
                    counts[report["outcome"]] += 1
                elif "outcome" in report:
                    problems.append(f"case {report['case']} ({report['what']}): {report['outcome']}")
                else:
                    last, what = report["case"], report["what"]
                    stall = WARMING_SECONDS if report["warming"] else STALL_SECONDS
            else:
                process.kill()
        errors.seek(0)
        error = errors.read().strip().splitlines()
    if finished:
        return None
    if last is None:
        raise AssertionError(f"the child process of {name} failed before its first case: {error[-5:]}")
    how = "hung" if process.returncode == -9 else f"crashed (exit code {process.returncode})"
    problems.append(f"case {last} ({what}): the child process {how}{': ' + error[-1] if error else ''}")
    return last


def run_children(name: str) -> tuple[list[str], dict]:
    """The problems found in ``name``'s cases and the counts of the outcomes, a child started again after the case
    at which the last one crashed or hung."""
    problems, counts, start = [], {"refused": 0, "played": 0}, 0
    for _ in range(MAX_RESTARTS):
        stopped = run_child(name, start, problems, counts)
        if stopped is None:
            return problems, counts
        start = stopped + 1
    problems.append(f"more than {MAX_RESTARTS} crashes or hangs: the rest of the cases not tried")
    return problems, counts


@pytest.mark.parametrize("name", gamecore.names())
def test_a_served_state_is_refused_in_one_line_or_played(name):
    problems, counts = run_children(name)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])
    assert counts["refused"] > CASES // 10 and counts["played"] > 0, counts  # the corruptions test both ways


def test_the_served_model_names_the_row_it_refuses():
    """The pyfunc model (``tuning/agent_model.py``) plays the valid rows and refuses a bad one in one line naming
    it."""
    import pandas as pd

    from agents.setup import Setup
    from tuning.agent_model import AgentModel

    model = AgentModel("gametune_nim.game")
    model.setup = Setup.parse("random-random", "nim")
    good = gamecore.load("nim").new_game(3).to_json()
    assert [action["role"] for action in model.predict(None, pd.DataFrame({"state": [good, good]}))] == ["first"] * 2
    bad = good.replace("[0, -1, ", "[0, -1, -", 1)  # a negative pile (after the player to move and the winner)
    with pytest.raises(ValueError, match=r"^row 1 of the input: not a NimState: state\[2\] \(PILE\) = -\d+: "
                                         r"expected stones in \[0, 10000\]$") as refused:
        model.predict(None, pd.DataFrame({"state": [good, bad, good]}))
    assert "\n" not in str(refused.value)


if __name__ == "__main__":
    child(sys.argv[1], int(sys.argv[2]))
