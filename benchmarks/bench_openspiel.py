"""OpenSpiel's ISMCTS and MCTS bots against our compiled searches: ms per decision at equal simulation budgets.

Run: python benchmarks/bench_openspiel.py [--games 20] [--simulations 200]

Every stage of LOTR (hard) searched, one playout per simulation (our budget = simulations with ppn 1; OpenSpiel's
max_simulations), the same compiled random playout, uct_c = sqrt(2) c, no action reduction; games 0..games-1
of seed 99 for each agent, one core. Prints ms per decision and per game and how many times faster ours is.
"""

from __future__ import annotations

import argparse
import math

from agents.evaluation import evaluate_setup
from agents.setup import Setup

PAIRS = (("openspiel-ismcts", "mcts"), ("openspiel-mcts", "oracle-mcts"))


def everywhere(agent: str, simulations: int) -> Setup:
    setup = Setup.parse("-".join([agent] * 5), "lotr")
    values = {"budget": simulations, "ppn": 1, "c": 1 / math.sqrt(2), "reduction": False,
              "max_simulations": simulations, "uct_c": 1.0}
    return setup.with_params({k: v for k, v in values.items() if setup.has_param(k)})


def ms_per_decision(agent: str, simulations: int, games: int) -> tuple[float, float]:
    evaluate_setup(everywhere(agent, simulations),
                   options={"difficulty": "hard"}, games=2, seed=98)  # compile / load the cache
    result = evaluate_setup(everywhere(agent, simulations), options={"difficulty": "hard"}, games=games, seed=99)
    decisions = sum(result.decisions.values())
    return 1000 * result.seconds / max(1, decisions), 1000 * result.mean_seconds_per_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=200)
    args = parser.parse_args()
    for theirs, ours in PAIRS:
        their_ms, their_game = ms_per_decision(theirs, args.simulations, args.games)
        our_ms, our_game = ms_per_decision(ours, args.simulations, args.games)
        print(f"{theirs}: {their_ms:.1f} ms per decision, {their_game:.0f} ms per game; {ours}: {our_ms:.3f} ms per "
              f"decision, {our_game:.1f} ms per game; ours {their_ms / our_ms:,.0f} times faster "
              f"({args.simulations} simulations, hard, {args.games} games)", flush=True)


if __name__ == "__main__":
    main()
