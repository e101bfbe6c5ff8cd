"""Carcassonne: whole random games per second on one core, and the random agents' mean scores, meeples per game
(mpg) and turns with meeples (twm).

Then Star2.5 against random: seconds per decision and per game, and its win rate in both seats.

Run: python benchmarks/bench_carcassonne.py [--games 200000] [--star25-games 20]
Issue 15's goal: at least 10,000 random games/s on one core, compiled.
"""

from __future__ import annotations

import argparse

from agents.evaluation import evaluate_setup
from agents.setup import Setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000, help="games of the measurement")
    parser.add_argument("--star25-games", type=int, default=20,
                        help="deals of Star2.5 against random, each in both seats (about half a second a game)")
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
    if args.star25_games:
        star = evaluate_setup(Setup.parse("star25-random", "carcassonne"), games=args.star25_games, seed=0,
                              seats="both")
        per_decision = star.mean_seconds_per_game / 35.5  # Star2.5 makes 36 decisions first, 35 second
        print(f"star25-random: {star.mean_seconds_per_game:.2f} s per game, about {1e3 * per_decision:.1f} ms per "
              f"Star2.5 decision; win rate {100 * star.win_rate:.1f}% over {star.games} games in both seats")
        print(star.report())


if __name__ == "__main__":
    main()
