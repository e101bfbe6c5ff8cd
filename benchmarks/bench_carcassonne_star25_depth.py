"""Carcassonne: the cost of Star2.5 at each depth, to read the paper's "depth 3" from its timings.

Plays the paper's Table III row "Star2.5 vs RA" (the random agent first, Star2.5 second, as in its Table V) with
``star25`` (2 decision levels) choosing the moves, and at each of Star2.5's decisions searches the same position
at 1, 2 and 3 decision levels (and 4 at the first ``--deep-decisions`` decisions of a game): the seconds, and the
work that does not depend on the machine (``kernels.star_search``: decision nodes expanded, actions played and
tiles drawn, i.e. child states made, and states evaluated). The paper's Star2.5 took 20.58 minutes a game against
RA (Table III), 35.3 s for each of its 35 decisions; divided by each reading's states a decision, the time per
state its implementation would have taken. With ``--config``, the searches use the evaluation of that
configuration's ``weighted-star`` instead of Eq. 4, at the same positions (Star2.5 still chooses the moves).

Run: python benchmarks/bench_carcassonne_star25_depth.py [--games 3] [--seed 3000017] [--deep-decisions 2]
     [--config studies/carcassonne/best-vs-star25/agent.toml]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.setup import Setup
from carcassonne_sim import kernels as K
from carcassonne_sim.published import TABLE3
from carcassonne_sim.weighted_star import weights_of
from gamecore.rng import derive_seed

PAPER_SECONDS_PER_DECISION = 60 * TABLE3["Star2.5 vs RA"][1] / 35  # Star2.5 second: 35 decisions a game
NAMES = ("decision nodes", "actions played", "chance nodes", "tiles drawn", "states evaluated")


def measure(S: np.ndarray, plies: int, weights: np.ndarray = K.EQ4) -> tuple[float, np.ndarray]:
    """Seconds and counts of one Star2.5 search of ``S`` at ``plies`` decision levels, evaluating by ``weights``."""
    counts = np.zeros(K.N_COUNTS, np.int64)
    act = np.empty(K.ACTION_SIZE, np.int64)
    start = time.perf_counter()
    K.star_search(S, plies, K.STAR25_PROBING, weights, act, counts)
    return time.perf_counter() - start, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=3000017, help="the deals of carcassonne-star25-random.toml")
    parser.add_argument("--plies", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--deep-decisions", type=int, default=2, help="decisions a game also searched at 4 levels")
    parser.add_argument("--config", help="search with the evaluation of this configuration's weighted-star")
    args = parser.parse_args()
    weights = K.EQ4
    if args.config is not None:
        agent = Setup.load(args.config).agents[0]
        if agent.agent != "weighted-star":
            parser.error(f"--config {args.config}: its first agent is {agent.agent}, not weighted-star")
        weights = weights_of(agent.as_dict())
    measure(_opening(0), 1)  # compile or load the cache
    rows: dict[int, list] = {p: [] for p in (*args.plies, 4)}
    rs = np.array([7], np.uint64)
    act = np.empty(K.ACTION_SIZE, np.int64)
    for game in range(args.games):
        S = _opening(int(derive_seed(args.seed, game)))
        decision = 0
        while not K.is_over(S):
            if S[K.TO_MOVE] == 0:
                K.random_action(S, rs, act)
            else:
                for plies in args.plies:
                    rows[plies].append((game, decision, *measure(S.copy(), plies, weights)))
                if decision < args.deep_decisions:
                    rows[4].append((game, decision, *measure(S.copy(), 4, weights)))
                K.star25(S, K.STAR25_PLIES, K.STAR25_PROBING, act)
                decision += 1
            K.apply(S, act, np.zeros(4, np.int64))
        print(f"game {game}: {decision} Star2.5 decisions, "
              + ", ".join(f"{p} levels {sum(r[2] for r in rows[p] if r[0] == game):.1f} s" for p in args.plies),
              flush=True)
    for plies, found in rows.items():
        if not found:
            continue
        seconds = np.array([r[2] for r in found])
        counts = np.array([r[3] for r in found])
        made = counts[:, K.COUNT_PLAYED] + counts[:, K.COUNT_DRAWN]
        print(f"\n{plies} decision levels, {len(found)} decisions: {1e3 * seconds.mean():.2f} ms a decision (median "
              f"{1e3 * np.median(seconds):.2f}, max {1e3 * seconds.max():.1f}); per decision "
              + ", ".join(f"{name} {counts[:, k].mean():,.0f}" for k, name in enumerate(NAMES))
              + f"; child states made {made.mean():,.0f} (median {np.median(made):,.0f}, max {made.max():,})")
        print(f"  {1e6 * seconds.sum() / made.sum():.2f} us a child state here; the paper's 35.3 s a decision would be "
              f"{PAPER_SECONDS_PER_DECISION / seconds.mean():,.0f} times this machine's time, "
              f"{1e3 * PAPER_SECONDS_PER_DECISION / made.mean():,.3f} ms a child state")
    if rows[4]:
        pairs = [(r4[3][K.COUNT_PLAYED] + r4[3][K.COUNT_DRAWN],
                  next(r for r in rows[3] if r[:2] == r4[:2])[3][[K.COUNT_PLAYED, K.COUNT_DRAWN]].sum())
                 for r4 in rows[4] if 3 in rows and any(r[:2] == r4[:2] for r in rows[3])]
        if pairs:
            print("4 levels against 3 at the same decisions: "
                  + ", ".join(f"{four / three:,.0f}x" for four, three in pairs) + " the child states")


def _opening(seed: int) -> np.ndarray:
    S = np.empty(K.STATE_SIZE, np.int64)
    K.deal_game(S, np.uint64(seed), np.zeros(0, np.int64))
    return S


if __name__ == "__main__":
    main()
