"""Simulator speed on one core: whole games, clone/determinize, and Python-interface stepping.

Run: python benchmarks/bench_simulator.py [--games N]
Prints games/s per difficulty and policy, microseconds per clone() and
determinize(), and decisions/s through legal_actions() + apply().
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.evaluation import evaluate_setup
from agents.setup import Setup
from lotr_sim import GameState


def best_of(repeats: int, fn) -> float:
    """The fastest of ``repeats`` timings of ``fn()`` in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def whole_games(games: int, repeats: int = 3) -> None:
    """Games/s is the best of ``repeats`` runs (this machine's speed varies by
    +-15% from run to run); the win rate is that of games 0..games-1 of seed 0."""
    for policy in ("random", "expert"):
        setup = Setup.uniform(policy, "lotr")
        for difficulty in ("easy", "medium", "hard"):
            evaluate_setup(setup, options={"difficulty": difficulty}, games=1_000, seed=1)  # warm up
            runs = [evaluate_setup(setup,
                                   options={"difficulty": difficulty}, games=games, seed=0) for _ in range(repeats)]
            result = runs[0]
            speed = max(run.games_per_second for run in runs)
            low, high = result.wilson_95
            print(
                f"whole games  {policy:6s} {difficulty:6s}  {speed:>10,.0f} games/s  "
                f"(win {100 * result.win_rate:.2f}% [{100 * low:.2f}, {100 * high:.2f}], {result.games} games)"
            )


def copies(repeats: int = 20_000) -> None:
    rng = np.random.default_rng(0)
    game = GameState("hard", seed=3)
    game.apply(game.legal_actions()[0])
    clone_us = best_of(5, lambda: [game.clone() for _ in range(repeats)]) / repeats * 1e6
    determinize_us = best_of(5, lambda: [game.determinize(rng) for _ in range(repeats)]) / repeats * 1e6
    print(f"clone()        {clone_us:6.2f} us")
    print(f"determinize()  {determinize_us:6.2f} us")


def stepping(games: int = 2_000) -> None:
    rng = np.random.default_rng(0)

    def run() -> int:
        decisions = 0
        for seed in range(games):
            game = GameState("hard", seed=seed)
            while not game.is_over:
                legal = game.legal_actions()
                game.apply(legal[int(rng.integers(len(legal)))])
                decisions += 1
        return decisions

    run()
    start = time.perf_counter()
    decisions = run()
    seconds = time.perf_counter() - start
    print(f"Python stepping (legal_actions + apply, uniform choice, hard): {decisions / seconds:,.0f} decisions/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000, help="games per whole-game measurement")
    args = parser.parse_args()
    whole_games(args.games)
    copies()
    stepping()


if __name__ == "__main__":
    main()
