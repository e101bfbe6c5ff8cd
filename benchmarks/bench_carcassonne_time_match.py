"""Carcassonne: the rollouts a move that give MCTS and MCTS-RAVE the time a move Star2.5 takes (the paper matched
its MCTS agents' time per move to Star2.5's).

The match is per game, not decision by decision: Star2.5's time varies a hundredfold over a game (its branching),
a fixed rollout budget's much less, so the budget is the one whose mean time a decision over whole games equals
Star2.5's, both measured in the same games (the agent first, Star2.5 second, a reference budget), so the load of a
shared machine slows both alike. The budget is then fixed in the study files: the matches are reproducible, where a
wall-clock budget would make every game depend on the machine's load.

Run: python benchmarks/bench_carcassonne_time_match.py [--opponent star25] [--deals 6] [--repeats 3]
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.evaluation import evaluate_setup
from agents.setup import Setup


def matched_budget(agent: str, opponent: str, budget: int, deals: int, seed: int) -> tuple[float, float, int]:
    """The agent's and the opponent's ms a decision at ``budget`` rollouts a move over ``deals`` games (the agent
    first), and the budget that gives the agent the opponent's time."""
    setup = Setup.parse(f"{agent}-{opponent}", "carcassonne").with_params({"first.budget": budget})
    result = evaluate_setup(setup, games=deals, seed=seed, seats="first")
    mine, theirs = result.ms_per_decision["first"], result.ms_per_decision["second"]
    return mine, theirs, round(budget * theirs / mine)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="star25", choices=("star25", "star25-deep"))
    parser.add_argument("--agents", nargs="+", default=["mcts", "mcts-rave"])
    parser.add_argument("--budget", type=int, default=1000, help="the reference budget the agents are timed at")
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3, help="measurements on other deals, interleaved")
    parser.add_argument("--seed", type=int, default=5000011, help="the calibration's deals (none of the studies')")
    args = parser.parse_args()
    found: dict[str, list] = {agent: [] for agent in args.agents}
    for repeat in range(args.repeats):
        for agent in args.agents:
            mine, theirs, budget = matched_budget(agent, args.opponent, args.budget, args.deals, args.seed + repeat)
            found[agent].append(budget)
            print(f"{agent} at {args.budget:,} rollouts: {mine:.1f} ms a decision ({args.budget / mine:.1f} rollouts "
                  f"a ms); {args.opponent}: {theirs:.1f} ms a decision -> {budget:,} rollouts a move", flush=True)
    for agent, budgets in found.items():
        print(f"{agent} time-matched to {args.opponent}: {int(np.median(budgets)):,} rollouts a move (median of "
              f"{', '.join(f'{b:,}' for b in budgets)})")


if __name__ == "__main__":
    main()
