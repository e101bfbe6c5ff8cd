"""The perfect-information limit's cost: seconds per 1,000 deals for the first quest and the full scenario, and the
honest agent's ms per game on the same deals.

Run: python benchmarks/bench_limit.py [--deals N] [--nodes N] [--agent CONFIG]
Prints, per scenario, the limit's bounds on ``--deals`` hard deals of seed 2000003, the seconds its searches took
(winning lines, then proofs), those seconds per 1,000 deals, and the agent's wins and ms per game.
"""

from __future__ import annotations

import argparse

from lotr_lab.limit import perfect_information_limit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=100_000, help="the exhaustive search's decisions per deal")
    parser.add_argument("--agent", default="studies/lotr/best/agent.toml")
    parser.add_argument("--seed", type=int, default=2000003)
    args = parser.parse_args()
    for full_scenario in (False, True):
        limit = perfect_information_limit("hard", args.deals, args.seed, args.nodes, progress=False,
                                          full_scenario=full_scenario, agent=args.agent)
        seconds = limit.seconds_attempts + limit.seconds_search
        low, high = limit.bounds
        agent = limit.agent
        print(f"{limit.scenario}, hard, {args.deals} deals: limit in [{100 * low:.1f}, {100 * high:.1f}]%, "
              f"{limit.unknown} unknown; {limit.seconds_attempts:.1f} s finding lines + {limit.seconds_search:.1f} s "
              f"proving = {1000 * seconds / args.deals:.0f} s per 1,000 deals; the agent {agent['wins']} wins, "
              f"{1000 * agent['mean_seconds_per_game']:.1f} ms a game", flush=True)


if __name__ == "__main__":
    main()
