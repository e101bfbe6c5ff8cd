"""Search agents: speed (ms per game and per decision) and strength on hard.

Run: python benchmarks/bench_agents.py [--games 1000] [--workers 2] [--speed-only]

Speed runs on one core: honest random-mcts-mcts at budget 200, ppn 20, random
playouts (ms per game), and ms per questing/defense decision at budgets 40,
200 and 800 (ppn = budget / 10); then the full scenario (three quest stages) on
hard: ``rule-full`` alone and the full-scenario best agent (``studies/lotr/best-full/``),
ms per game and per decision of each searched stage, and their win rates, on
up to 200 games of seed 0. Strength: games 0..games-1 of seed 0 on hard
(the same deals for every row), honest and oracle random-mcts-mcts at
(budget, ppn) = (40, 10), (200, 20), (800, 80) with random and expert
playouts, and random-flat-mc-flat-mc at budget 200; each win rate with its 95%
Wilson interval.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.evaluation import evaluate_setup
from agents.setup import Setup

BUDGETS = ((40, 10), (200, 20), (800, 80))
FULL_BEST = Path(__file__).parent.parent / "studies" / "lotr" / "best-full" / "agent.toml"


def mcts_setup(agent: str, budget: int, ppn: int, playout: str = "random") -> Setup:
    return Setup.parse(f"random-{agent}-{agent}", "lotr").with_params({"budget": budget, "ppn": ppn,
                                                                       "playout": playout})


def speed(games: int) -> None:
    setup = mcts_setup("mcts", 200, 20)
    evaluate_setup(setup, options={"difficulty": "hard"}, games=20, seed=99)  # compile / load the cache
    result = evaluate_setup(setup, options={"difficulty": "hard"}, games=games, seed=0)
    print(
        f"speed  {setup}, hard, {games} games: {1000 * result.mean_seconds_per_game:.2f} ms per game "
        f"(p95 {1000 * result.p95_seconds_per_game:.2f}), {result.games_per_second:.0f} games/s, one core"
    )
    for budget, ppn in BUDGETS:
        result = evaluate_setup(mcts_setup("mcts", budget, ppn), options={"difficulty": "hard"}, games=games, seed=0)
        ms = result.ms_per_decision
        print(
            f"speed  budget {budget:4d} ppn {ppn:3d}: questing {ms['questing']:.3f} ms/decision, "
            f"defense {ms['defense']:.3f} ms/decision, {1000 * result.mean_seconds_per_game:.2f} ms per game"
        )


def full_scenario_speed(games: int) -> None:
    options = {"difficulty": "hard", "full_scenario": True}
    setups = (("rule-full", Setup.uniform("rule-full", "lotr")), ("studies/lotr/best-full", Setup.load(FULL_BEST)))
    for name, setup in setups:
        result = evaluate_setup(setup, options=options, games=games, seed=0)
        searched = ", ".join(f"{stage} {ms:.2f}" for stage, ms in result.ms_per_decision.items()
                             if ms is not None and ms >= 0.005)
        low, high = result.wilson_95
        print(
            f"speed  full scenario, {name}, hard, {games} games: {1000 * result.mean_seconds_per_game:.2f} ms per "
            f"game (p95 {1000 * result.p95_seconds_per_game:.2f}), ms/decision: {searched or 'all under 0.005'}; "
            f"{100 * result.win_rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}], one core"
        )


def strength(games: int, workers: int) -> None:
    rows = [
        mcts_setup(agent, budget, ppn, playout)
        for agent in ("mcts", "oracle-mcts")
        for playout in ("random", "expert")
        for budget, ppn in BUDGETS
    ]
    rows.append(Setup.parse("random-flat-mc-flat-mc", "lotr").with_params({"budget": 200}))
    rows.insert(0, Setup.parse("random-random-random", "lotr"))
    for setup in rows:
        result = evaluate_setup(setup, options={"difficulty": "hard"}, games=games, seed=0, workers=workers)
        low, high = result.wilson_95
        print(
            f"strength  {setup!s:95s} {100 * result.win_rate:5.1f}% [{100 * low:.1f}, {100 * high:.1f}] "
            f"n={result.games}  {1000 * result.mean_seconds_per_game:7.2f} ms/game"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--speed-only", action="store_true")
    args = parser.parse_args()
    speed(min(args.games, 500))
    full_scenario_speed(min(args.games, 200))
    if not args.speed_only:
        strength(args.games, args.workers)


if __name__ == "__main__":
    main()
