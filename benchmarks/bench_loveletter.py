"""Love Letter: whole random games per second on one core, and ISMCTS milliseconds per decision.

Run: python benchmarks/bench_loveletter.py [--games 1000000]
Issue 14's goals: at least 1,000,000 random games/s on one core; ISMCTS at budget 1000.
"""

from __future__ import annotations

import argparse

from agents.evaluation import evaluate_setup
from agents.setup import Setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games per whole-game measurement")
    args = parser.parse_args()
    for pair in ("random-random", "strategic-random"):
        setup = Setup.parse(pair, "loveletter")
        evaluate_setup(setup, games=1000, seed=1, seats="first")  # compile or load the cache
        result = evaluate_setup(setup, games=args.games, seed=0, seats="first")
        print(f"whole games  {pair:17s} {result.games_per_second:12,.0f} games/s  ({result.games:,} games, one core)")
    for budget in (200, 1000):
        setup = Setup.parse("mcts-random", "loveletter").with_params({"first.budget": budget, "first.ppn": 1})
        evaluate_setup(setup, games=5, seed=1, seats="first")
        result = evaluate_setup(setup, games=500, seed=0, seats="first")
        print(f"ISMCTS budget {budget:4d} (ppn 1): {result.ms_per_decision['first']:.3f} ms per decision, "
              f"{100 * result.win_rate:.1f}% against random (500 games, first seat)")


if __name__ == "__main__":
    main()
