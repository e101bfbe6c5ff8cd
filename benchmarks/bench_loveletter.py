"""Love Letter: whole random games per second on one core, the DP table's build time, ISMCTS milliseconds per
decision, and the Monte Carlo player's time for 1,000,000 games against random.

Run: python benchmarks/bench_loveletter.py [--games 1000000] [--mc-games 1000000]
Issue 14's goals: at least 1,000,000 random games/s on one core; the DP table in at most 2 s (thesis 13.5 s);
ISMCTS at budget 1000; the Monte Carlo player's 1,000,000 games against random in at most 30 minutes on 2 cores
(thesis 181 min 44 s). With fewer --mc-games the minutes for 1,000,000 are extrapolated (and say so).
"""

from __future__ import annotations

import argparse
import time

from agents.evaluation import evaluate_setup
from agents.setup import Setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games per whole-game measurement")
    parser.add_argument("--mc-games", type=int, default=20_000, help="Monte Carlo player's games (2 workers)")
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
    from loveletter_sim.dp import build_table

    times = []
    for _ in range(2):
        start = time.perf_counter()
        build_table()
        times.append(time.perf_counter() - start)
    print(f"DP table: first build {times[0]:.2f} s (compiled code loaded), warm {times[1]:.2f} s (thesis 13.5 s)")
    mc = Setup.parse("mc-random", "loveletter")
    evaluate_setup(mc, games=5, seed=1, seats="first")
    result = evaluate_setup(mc, games=args.mc_games, seed=0, seats="first", workers=2)
    minutes = result.seconds / 60 * 1_000_000 / result.games
    how = "measured" if result.games == 1_000_000 else f"extrapolated from {result.games:,} games"
    print(f"Monte Carlo player against random: {result.games_per_second:,.0f} games/s on 2 workers, 1,000,000 games "
          f"in {minutes:.1f} min ({how}; thesis 181.7 min); first seat {100 * result.win_rate:.2f}%")


if __name__ == "__main__":
    main()
