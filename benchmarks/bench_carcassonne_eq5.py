"""Carcassonne: which reading of the paper's Eq. 5 (turns with meeples, twm) gives the values it prints?

The extraction lost Eq. 5; the text keeps "T_m, the number of turns where [the player] started with at least one
available meeple, and the constants 28 and 29, the total turns in a game where each player can potentially have no
meeples available" (a player's first 7 turns always begin with a meeple: 36 - 7 = 29 for the first player, 35 - 7 =
28 for the second). Readings, for a player of ``turns`` turns:

- after7: (T_m - 7) / (turns - 7), the share of the turns after the 7th (the reading until this measurement);
- over29: T_m / (turns - 7), every turn with a meeple counted over the constant (1.24 at most, not 1);
- share: T_m / turns, the share of all turns.

Each agent of the paper's Table V plays second against the random agent (RA), as the paper's did; each reading's
mean with its 95% interval, beside the paper's value.

Run: python benchmarks/bench_carcassonne_eq5.py [--deals 50] [--setups star25-random mcts-random mcts-rave-random]
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.evaluation import evaluate_setup
from agents.setup import Setup
from carcassonne_sim import kernels as K
from carcassonne_sim.published import TABLE5

READINGS = {
    "after7": lambda with_meeple, turns: (with_meeple - K.MEEPLES_EACH) / (turns - K.MEEPLES_EACH),
    "over29": lambda with_meeple, turns: with_meeple / (turns - K.MEEPLES_EACH),
    "share": lambda with_meeple, turns: with_meeple / turns,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--seed", type=int, default=3000017, help="the deals of carcassonne-random.toml")
    parser.add_argument("--setups", nargs="+", default=["star25-random", "mcts-random", "mcts-rave-random"])
    args = parser.parse_args()
    for label in args.setups:
        result = evaluate_setup(Setup.parse(label, "carcassonne"), games=args.deals, seed=args.seed, seats="second")
        records = result.records
        with_meeple, turns = records[:, K.REC_TWM + 1], records[:, K.REC_TURNS + 1]
        full = turns > K.MEEPLES_EACH
        paper = TABLE5[label.removesuffix("-random")][3]
        cells = []
        for name, reading in READINGS.items():
            values = reading(with_meeple[full], turns[full])
            half = 1.96 * values.std(ddof=1) / np.sqrt(values.size)
            cells.append(f"{name} {values.mean():.3f} ± {half:.3f}")
        print(f"{label}, the agent second, {full.sum()} games (turns {np.median(turns):.0f}, turns with a meeple "
              f"{with_meeple.mean():.2f}): " + "; ".join(cells) + f"; the paper's Table V: {paper:.2f}", flush=True)


if __name__ == "__main__":
    main()
