"""RL agents on hard: training speed, and the thesis's RL figures reproduced on fresh deals.

Run: python benchmarks/bench_rl.py [--episodes 10000] [--eval-games 10000] [--speed-only] [--envs 1]

Speed (one core): ``--episodes`` training episodes online (one transition at
a time, the thesis's semantics) of one RL agent (ac-direct random-rl-random,
Table 6.7's best row: encoding 2, 100 neurons, lr 6.5e-4) and of two (ac-direct
rl-rl-random, Table 6.9's: encoding 3, 130/3e-4 and 120/9e-4), and episodes/s
of the vectorised mode at 16 and 64 games (one agent).
Figures: each configuration of thesis Tables 6.4, 6.5, 6.7-6.9 is trained for
``--episodes`` (seed 0), its best checkpoint (best 1000-episode moving win
rate) is evaluated greedily on ``--eval-games`` deals of seed 1000, which
training never plays; printed with the 95% Wilson interval next to the thesis's
figure (a best training moving average, on a game with the defects listed in
docs/lotr-rules.md).
"""

from __future__ import annotations

import argparse
import tempfile

from agents.evaluation import evaluate_setup
from agents.learning.train import train
from agents.setup import Setup

HARD = {"difficulty": "hard"}  # the game options every run plays
ROWS = (
    ("q-macro rl-rl-random, encoding 0 (Table 6.4)", "rl-rl-random", {"algo": "q-macro", "encoding": 0}, 60.1),
    ("ac-macro rl-rl-random, encoding 0 (Table 6.5)", "rl-rl-random", {"algo": "ac-macro", "encoding": 0}, 66.2),
    ("ac-direct random-rl-random, enc. 2, 100, 6.5e-4 (Table 6.7)", "random-rl-random",
     {"encoding": 2, "neurons": 100, "lr": 6.5e-4}, 92.9),
    ("ac-direct rl-rl-random, enc. 2, shared 130, 9e-4 (Table 6.8)", "rl-rl-random",
     {"encoding": 2, "neurons": 130, "lr": 9e-4}, 94.7),
    ("ac-direct rl-rl-random, enc. 3, 130/3e-4 + 120/9e-4 (Table 6.9)", "rl-rl-random",
     {"encoding": 3, "planning.neurons": 130, "planning.lr": 3e-4, "questing.neurons": 120, "questing.lr": 9e-4}, 95.3),
)


SPEED_ROWS = (("one rl agent", ROWS[2]), ("two rl agents", ROWS[4]))  # (what, a row of ROWS)


def speed(episodes: int) -> None:
    for what, (_, short, params, _) in SPEED_ROWS:
        setup = Setup.parse(short, "lotr").with_params(params)
        train(setup, HARD, 50, seed=1)  # compile / load the cache
        result = train(setup, HARD, episodes, seed=0)
        print(f"speed  online, {what} ({short}), {episodes} episodes: {result.seconds:.1f} s "
              f"({result.episodes_per_second:.0f} episodes/s)")
    setup = Setup.parse(SPEED_ROWS[0][1][1], "lotr").with_params(SPEED_ROWS[0][1][2])
    for envs in (16, 64):
        result = train(setup, HARD, 3000, seed=0, envs=envs)
        print(f"speed  vectorised, one rl agent, {envs} games: {result.episodes_per_second:.0f} episodes/s")


def figures(episodes: int, eval_games: int, envs: int) -> None:
    for label, short, params, published in ROWS:
        setup = Setup.parse(short, "lotr").with_params(params)
        with tempfile.TemporaryDirectory() as out:
            trained = train(setup, HARD, episodes, seed=0, envs=envs, out=out)
            result = evaluate_setup(Setup.load(f"{out}/agent.toml"),
                                    options=HARD, games=eval_games, seed=1000)
        low, high = result.wilson_95
        print(
            f"figure  {label:64s} {100 * result.win_rate:5.1f}% [{100 * low:.1f}, {100 * high:.1f}] n={result.games}"
            f"  (thesis {published}; best training average {100 * trained.best_average:.1f}%, "
            f"training {trained.seconds:.0f} s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--eval-games", type=int, default=10_000)
    parser.add_argument("--envs", type=int, default=1, help="games per training step for the figures")
    parser.add_argument("--speed-only", action="store_true")
    args = parser.parse_args()
    speed(args.episodes)
    if not args.speed_only:
        figures(args.episodes, args.eval_games, args.envs)


if __name__ == "__main__":
    main()
