"""Carcassonne: can the paper's printed figures tell its UCB form (Eq. 1, lost in the extraction) apart?

The generic search's UCB1 is mean + c sqrt(2 ln N / n). The paper's "C = 3, as in Heyden (2009)" is c = 3 here if
its Eq. 1 has the same form, c = 3 / sqrt(2) = 2.12 if it is C sqrt(ln N / n), and c = 6 if it is Browne et
al.'s 2 C_p sqrt(2 ln N / n). The paper's only figures that depend on C are its MCTS rows; this plays its Table V
row (MCTS second against the random agent, the preset's 5,000 rollouts a move in steps of 100) under each reading
on the same deals and compares the reward (Eq. 4, the margin) with the paper's 93.45 and with each other, game by
game.

Run: python benchmarks/bench_carcassonne_ucb.py [--deals 25]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from agents.evaluation import evaluate_setup
from agents.setup import Setup
from carcassonne_sim import kernels as K
from carcassonne_sim.published import TABLE5

READINGS = {"C sqrt(ln N / n)": 3 / math.sqrt(2), "C sqrt(2 ln N / n) (ours)": 3.0, "2 C sqrt(2 ln N / n)": 6.0}


def margins(c: float, deals: int, seed: int) -> np.ndarray:
    """MCTS's margin in each game, second against the random agent, at exploration ``c``."""
    setup = Setup.parse("mcts-random", "carcassonne").with_params({"first.c": c})
    records = evaluate_setup(setup, games=deals, seed=seed, seats="second").records
    return (records[:, K.REC_SCORE + 1] - records[:, K.REC_SCORE]).astype(float)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=25)
    parser.add_argument("--seed", type=int, default=3000017, help="the deals of carcassonne-random.toml")
    args = parser.parse_args()
    found = {name: margins(c, args.deals, args.seed) for name, c in READINGS.items()}
    ours = found["C sqrt(2 ln N / n) (ours)"]
    for name, values in found.items():
        half = 1.96 * values.std(ddof=1) / math.sqrt(values.size)
        line = f"{name}, c = {READINGS[name]:.2f}: margin {values.mean():.2f} ± {half:.2f} ({values.size} games)"
        if values is not ours:
            paired = values - ours
            line += (f"; against ours game by game {paired.mean():+.2f} ± "
                     f"{1.96 * paired.std(ddof=1) / math.sqrt(paired.size):.2f}")
        print(line + f"; the paper's Table V: {TABLE5['mcts'][0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
