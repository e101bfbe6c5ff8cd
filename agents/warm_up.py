"""Compiling ahead (``gametune warm-up``, which the README's install runs): the code that ``play``, ``eval`` and the
studies use, for every game of the registry, in parallel processes, into the compile cache (safe: every save to
the cache holds its folder's lock, ``gamecore/_jit_cache.py``).

A game's code comes in two parts compiled apart: what a game played through the Python interface uses (its
rules and compiled policies: ``play`` with the baseline agents, and an untraced deal) and the harness's compiled
game loop, which holds every compiled agent (``eval``, studies, and the search agents of ``play``). The harness
parts of all games go first, the longest compiles, so that the processes work on different games at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import gamecore
from agents.evaluation import warm_up as warm_up_harness
from agents.executors import executor
from agents.play import play_traced_game
from agents.setup import Setup
from agents.specs import agent_names

PARTS = ("harness", "rules")
SEARCH_AGENT = "mcts"  # the generic search every compiled game has
SEARCH_BUDGET = 4  # playouts a decision: enough to compile, quick to play


def compile_part(game_name: str, part: str) -> float:
    """Compile (or load) ``part`` of the game's code; return the seconds it took."""
    start = time.perf_counter()
    game = gamecore.load(game_name)
    baseline = Setup.uniform(game.policies[0], game=game)
    if part == "harness":
        warm_up_harness(baseline, game.check_options({}, "options"))
        if SEARCH_AGENT in agent_names(game):  # the search deciding from Python (play --policy mcts)
            play_traced_game(Setup.uniform(SEARCH_AGENT, game=game).with_params({"budget": SEARCH_BUDGET}), 0)
    else:
        play_traced_game(baseline, 0)
        game.new_game(0)  # an untraced deal is compiled apart (Gymnasium, the registered model's example)
    return time.perf_counter() - start


def warm_up(games: list[str], workers: int) -> Iterator[tuple[str, str, float]]:
    """Compile every part of ``games`` on ``workers`` processes; yield (game, part, seconds) as each ends."""
    jobs = [(game, part) for part in PARTS for game in games]
    with executor("local", workers) as pool:
        pending = {pool.submit(compile_part, *job): job for job in jobs}
        while pending:
            for handle in pool.finished(pending):
                yield (*pending.pop(handle), pool.result(handle))


def report_warm_up(games: list[str], workers: int, say: Callable[[str], None]) -> float:
    """Run ``warm_up`` and ``say`` a line per part; return the wall-clock seconds."""
    start = time.perf_counter()
    say(f"compiling {', '.join(games)} on {workers} processes (once per version of the code) ...")
    for game, part, seconds in warm_up(games, workers):
        say(f"  {game} {part}: {seconds:.1f} s")
    return time.perf_counter() - start
