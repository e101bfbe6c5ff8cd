"""Run the thesis's own published code (kondziug/LOTR_AI) directly: its MCTS agent at one commit, one setup.

The published simulator is not part of this project and no line of it is copied here: the script imports it
from a checkout given on the command line (``git clone https://github.com/kondziug/LOTR_AI && git -C LOTR_AI
checkout 3e1a1b2``) and plays whole games through its ``vanilla_mcts.mctsAgent.MCTSAgent``, as its ``main.py``
did (``mctsTrial``), printing the wins with their 95% interval. Its configuration module ``mainConfig`` (from
29 July 2021) is replaced by the command line's values; earlier checkouts set the difficulty in code and are
refused. Each game seeds Python's ``random`` (the published code's only source of chance) from ``--seed`` and
its index, so a row is reproducible on one Python version.

    python benchmarks/bench_published_code.py --checkout LOTR_AI --setup random-mcts-mcts --difficulty hard \
        --budget 40 --ppn 1 --games 1000

What it measured is in docs/lotr-published-rules.md ("The published code, run directly").
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import subprocess
import sys
import time
import types
from pathlib import Path

from gamecore.stats import wilson_interval

STAGES = ("planning", "questing", "defense")
LETTERS = {"random": "r", "expert": "e", "mcts": "m", "rl": "l"}


def mode_of(setup: str) -> str:
    """The published agent mode (planning, questing, travel, defense, attack) of a thesis setup
    ``planning-questing-defense`` (random, expert, mcts or rl each; travel and attack random, as in the thesis)."""
    parts = setup.split("-")
    if len(parts) != len(STAGES) or any(p not in LETTERS for p in parts):
        raise SystemExit(f"--setup {setup!r}: give planning-questing-defense, each one of {', '.join(LETTERS)}")
    planning, questing, defense = (LETTERS[p] for p in parts)
    return f"{planning}{questing}r{defense}r"


def install_config(args) -> None:
    """Stand in for the checkout's ``mainConfig`` with the command line's values."""
    config = types.ModuleType("mainConfig")
    config.pipeline = 3  # the published "mcts trial" pipeline (its decks copy cards as that pipeline did)
    config.difficulty, config.fullGame = args.difficulty, args.full_scenario
    config.reduction_planning = config.reduction_questing = config.reduction_defense = not args.vanilla
    sys.modules["mainConfig"] = config


def start_worker(args) -> None:
    install_config(args)
    sys.path.insert(0, str(args.checkout))


def play(job) -> int:
    """One game of the published MCTS agent; 1 for a win."""
    seed, index, mode, budget, ppn, playout = job
    import Game_Model.globals as published_globals
    from vanilla_mcts.mctsAgent import MCTSAgent

    random.seed(seed * 1_000_003 + index)
    published_globals.init()
    outcome = MCTSAgent(mode, budget, ppn, playout).simulate()
    return int(outcome[0] if isinstance(outcome, tuple) else outcome)


def positive(text: str) -> int:
    """A command-line count of at least 1 (games, workers, budget, playouts per node): else argparse's one line."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is below 1")
    return value


def wins_of(play, jobs: list, workers: int, initializer, initargs: tuple) -> tuple[int, float, float, float]:
    """Each job's game played by ``play`` on ``workers`` processes (each started by ``initializer``): the wins, the
    seconds and the win rate's 95% interval."""
    start = time.perf_counter()
    with multiprocessing.Pool(workers, initializer=initializer, initargs=initargs) as pool:
        wins = sum(pool.imap_unordered(play, jobs, chunksize=4))
    return wins, time.perf_counter() - start, *wilson_interval(wins, len(jobs))


def commit_of(checkout: Path) -> str:
    done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, check=False,
                          text=True)
    return done.stdout.strip() if done.returncode == 0 else checkout.name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, required=True, help="a checkout of kondziug/LOTR_AI")
    parser.add_argument("--setup", default="random-mcts-mcts", help="planning-questing-defense, e.g. mcts-random-random")
    parser.add_argument("--difficulty", default="hard", choices=["easy", "medium", "hard"])
    parser.add_argument("--full-scenario", action="store_true", help="all three quest cards")
    parser.add_argument("--budget", type=positive, default=40, help="playouts a decision (playoutBudget)")
    parser.add_argument("--ppn", type=positive, default=1, help="playouts per node (playoutsPerSimulation)")
    parser.add_argument("--playout", choices=["random", "expert"], default="random")
    parser.add_argument("--vanilla", action="store_true", help="no action reduction (checkouts that offer it)")
    parser.add_argument("--games", type=positive, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=positive, default=2)
    args = parser.parse_args()
    if not (args.checkout / "vanilla_mcts" / "mctsAgent.py").is_file():
        raise SystemExit(f"--checkout {args.checkout}: no vanilla_mcts/mctsAgent.py there; clone kondziug/LOTR_AI")
    if not (args.checkout / "mainConfig.py").is_file():
        raise SystemExit(f"--checkout {args.checkout}: it predates mainConfig.py (29 July 2021) and sets its "
                         "difficulty in code; check out a later commit")
    mode = mode_of(args.setup)
    if "l" in mode:
        raise SystemExit(f"--setup {args.setup!r}: RL setups run with benchmarks/bench_published_rl.py")
    playout = 0 if args.playout == "random" else 1
    jobs = [(args.seed, g, mode, args.budget, args.ppn, playout) for g in range(args.games)]
    wins, seconds, low, high = wins_of(play, jobs, args.workers, start_worker, (args,))
    print(f"{commit_of(args.checkout)} {args.setup} ({mode}) {args.difficulty} budget {args.budget} ppn {args.ppn} "
          f"{args.playout} playouts{' vanilla' if args.vanilla else ''}: {wins} / {args.games} wins, "
          f"{100 * wins / args.games:.1f}% [{100 * low:.1f}, {100 * high:.1f}], {seconds:.0f} s")


if __name__ == "__main__":
    main()
