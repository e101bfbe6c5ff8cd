"""Start-up time per game: each command from an empty compile cache, and after `gametune warm-up`.

Run: python benchmarks/bench_startup.py [--base OTHER_CHECKOUT] [--game NAME ...]
Per game, two commands: `play` with the game's baseline policy, and `eval` of its search agent (`--policy mcts`,
2 games: the harness's game loop, which holds every compiled agent). Each runs once from an empty compile cache
(NUMBA_CACHE_DIR a new temporary folder), then once more from that cache (warm). `--base` runs the same
commands on another checkout (e.g. a worktree of main), alternating with this one, so that both face the same
load on a shared machine. Last, `warm-up` of the games from an empty cache, and each command after it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def commands(game: str) -> dict[str, list[str]]:
    return {"play": ["play", "--game", game, "--seed", "7"],
            "eval mcts": ["eval", "--game", game, "--policy", "mcts", "--games", "2", "--json"]}


def timed(tree: Path, argv: list[str], cache: str) -> float:
    """Seconds of ``gametune argv`` run from ``tree``'s code with the compile cache ``cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(tree))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tuning.cli", *argv], cwd=tree, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another checkout to measure alongside (e.g. main's)")
    parser.add_argument("--game", action="append", help="only this game (repeatable; default every game)")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    import gamecore

    games = args.game or list(gamecore.names())
    trees = {"this": HERE} | ({"base": args.base.resolve()} if args.base else {})
    print(f"{'game':12s} {'command':10s} " + " ".join(f"{name + ' cold':>10s} {name + ' warm':>10s}" for name in trees))
    for game in games:
        for label, argv in commands(game).items():
            cells = []
            for tree in trees.values():
                with tempfile.TemporaryDirectory() as cache:
                    cells += [timed(tree, argv, cache), timed(tree, argv, cache)]
            print(f"{game:12s} {label:10s} " + " ".join(f"{s:9.1f}s" for s in cells), flush=True)
    with tempfile.TemporaryDirectory() as cache:
        seconds = timed(HERE, ["warm-up", *(f"--game={g}" for g in games)], cache)
        print(f"warm-up of {', '.join(games)} (empty cache): {seconds:.1f} s", flush=True)
        for game in games:
            for label, argv in commands(game).items():
                print(f"{game:12s} {label:10s} after warm-up: {timed(HERE, argv, cache):.1f} s", flush=True)


if __name__ == "__main__":
    main()
