"""Carcassonne: whole random games per second on one core, and the random agents' mean scores, meeples per game
(mpg) and turns with meeples (twm).

Run: python benchmarks/bench_carcassonne.py [--games 200000]
Issue 15's goal: at least 10,000 random games/s on one core, compiled.
"""

from __future__ import annotations

import argparse

from agents.evaluation import evaluate_setup
from agents.setup import Setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000, help="games of the measurement")
    args = parser.parse_args()
    setup = Setup.parse("random-random", "carcassonne")
    evaluate_setup(setup, games=2000, seed=1, seats="first")  # compile or load the cache, warm up
    result = evaluate_setup(setup, games=args.games, seed=0, seats="first")
    m = result.metrics
    print(f"random-random: {result.games_per_second:,.0f} games/s ({result.games:,} games, one core, "
          f"{1e6 * result.mean_seconds_per_game:.1f} us per game)")
    print(f"mean final score: first {m['score_first']:.2f}, second {m['score_second']:.2f}; "
          f"mpg: first {m['mpg_first']:.2f}, second {m['mpg_second']:.2f}; "
          f"twm: first {m['twm_first']:.3f}, second {m['twm_second']:.3f}")
    print("\n".join(result.report().splitlines()[1:]))


if __name__ == "__main__":
    main()
