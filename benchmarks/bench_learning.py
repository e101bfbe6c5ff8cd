"""Training speed of every learning algorithm on every registered game: episodes and decisions per second.

Run: python benchmarks/bench_learning.py [--games loveletter,carcassonne] [--seconds 20]

For each game, the rl agent in its first role it can decide, the game's first baseline policy in the others
(Love Letter: rl-random), each of the game's algorithms trained from scratch until about ``--seconds`` have
passed (after a short untimed run that compiles or loads the game's code), the rate taken between runs of n
and 4n episodes so that a run's start-up cost cancels; then the network plays 200 deals to
count the role's decisions per game. Decisions per second = episodes per second x decisions per game (the
trained network's games, not the exploring ones: an estimate).
"""

from __future__ import annotations

import argparse

import gamecore
from agents.evaluation import evaluate_setup
from agents.learning import algorithms
from agents.learning.train import train
from agents.setup import Setup
from agents.specs import AgentSpec, SpecError


def learning_setup(game) -> tuple[Setup, str]:
    """rl in the first role the rl agent decides, the game's first baseline policy elsewhere; and that role."""
    rl = AgentSpec.make("rl", game=game)
    role = next(r for r in game.roles if not rl.kind.stages or r in rl.kind.stages)
    baseline = game.policies[0]
    agents = [rl if r == role else AgentSpec.make(baseline, game=game) for r in game.roles]
    return Setup(*agents, game=game), role


def measure(game, algo: str, seconds: float) -> tuple[float, float, int]:
    """(episodes per second, decisions per game, episodes trained) of ``algo`` on ``game``."""
    setup, role = learning_setup(game)
    setup = setup.with_params({f"{role}.algo": algo, f"{role}.neurons": 64})
    train(setup, episodes=20, seed=1, envs=8, window=10)  # compile or load the cache, untimed
    episodes, before = 50, train(setup, episodes=50, seed=0, envs=8, window=10).seconds
    while True:  # the marginal rate between runs of n and 4n episodes: a run's fixed start-up cost cancels
        result = train(setup, episodes=4 * episodes, seed=0, envs=8, window=100)
        if result.seconds >= seconds / 2 or episodes >= 1_000_000:
            break
        episodes, before = 4 * episodes, result.seconds
    rate = 3 * episodes / max(result.seconds - before, 1e-9)
    played = evaluate_setup(result.setup, games=200, seed=7)
    return rate, played.decisions[role] / played.games, 4 * episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(gamecore.names()), help="comma-separated game names")
    parser.add_argument("--seconds", type=float, default=20.0, help="about how long each timed training runs")
    args = parser.parse_args()
    print("| game | algorithm | episodes/s | decisions per game | decisions/s | episodes timed |")
    print("|---|---|---|---|---|---|")
    for name in args.games.split(","):
        game = gamecore.load(name)
        for algo in algorithms(game):
            try:
                rate, per_game, episodes = measure(game, algo, args.seconds)
            except SpecError as error:  # ppo without sb3-contrib
                print(f"| {name} | {algo} | - | - | - | {error} |", flush=True)
                continue
            print(f"| {name} | {algo} | {rate:,.0f} | {per_game:.1f} | {rate * per_game:,.0f} | {episodes:,} |",
                  flush=True)


if __name__ == "__main__":
    main()
