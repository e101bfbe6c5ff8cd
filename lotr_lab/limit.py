"""The perfect-information limit of LOTR: the share of deals that some line of decisions wins, deck orders known
(``lotr lotr limit``; the method in ``lotr_sim.limit``). ORACLE searches through the evaluation harness find the
winning lines, ``lotr_sim.limit.search`` proves the losses."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from numba import types
from numba.typed import Dict

from agents.evaluation import evaluate_setup, play_side
from agents.search import compiled
from agents.setup import Setup
from gamecore.params import positive_int, seed_int
from gamecore.stats import wilson_interval
from lotr_sim import kernels
from lotr_sim import layout as L
from lotr_sim.game import GAME
from lotr_sim.limit import LOSS, NODES, UNKNOWN, WIN, search

ATTEMPTS = (  # the ORACLE searches that look for winning lines: (budget, ppn, c, playout)
    (200, 1, 0.7071, "random"),
    (1000, 1, 0.7071, "random"),
    (1000, 1, 0.7071, "expert"),
    (5000, 1, 1.5, "random"),
    (20000, 1, 1.5, "random"),
    (20000, 1, 0.7071, "expert"),
)


@dataclass
class Limit:
    """The limit of ``deals`` deals of ``seed``: winning lines found, losses proven, the rest unknown."""

    difficulty: str
    seed: int
    deals: int
    lines_found: int
    lines_found_by_search: int  # of which the exhaustive search found
    losses_proven: int
    unknown: int
    nodes: int  # the exhaustive search's budget per deal
    seconds_attempts: float
    seconds_search: float
    unknown_deals: list[int]  # the indices of the deals left unknown

    @property
    def bounds(self) -> tuple[float, float]:
        """The limit lies between these rates (before sampling error)."""
        return self.lines_found / self.deals, (self.deals - self.losses_proven) / self.deals

    @property
    def interval(self) -> tuple[float, float]:
        """A 95% interval of the limit over deals: the lower bound's Wilson low, the upper bound's Wilson high."""
        return (wilson_interval(self.lines_found, self.deals)[0],
                wilson_interval(self.deals - self.losses_proven, self.deals)[1])

    def report(self) -> str:
        (low, high), (i_low, i_high) = self.bounds, self.interval
        return "\n".join([
            f"perfect-information limit, {self.difficulty}, {self.deals:,} deals of seed {self.seed}: between "
            f"{100 * low:.2f}% and {100 * high:.2f}% (95% interval {100 * i_low:.2f}-{100 * i_high:.2f})",
            f"  winning lines found: {self.lines_found:,} ({self.lines_found - self.lines_found_by_search:,} by "
            f"ORACLE searches in {self.seconds_attempts:.0f} s, {self.lines_found_by_search:,} by the exhaustive "
            f"search); losses proven: {self.losses_proven:,}; unknown after {self.nodes:,} decisions: "
            f"{self.unknown:,} ({self.seconds_search:.0f} s)"
            + (f": deals {', '.join(map(str, self.unknown_deals))}" if self.unknown_deals else ""),
        ])


def deal_states(options: dict, seed: int, indices) -> list[np.ndarray]:
    """The deals ``indices`` of ``seed`` with the game ``options``, as the evaluation harness deals them."""
    codes = GAME.option_codes(options)
    states = []
    for k in indices:
        S = np.empty(kernels.STATE_SIZE, np.int64)
        compiled(kernels).deal(S, np.zeros((kernels.N_ROLES, 1), np.uint64), np.uint64(seed), k, codes)
        states.append(S)
    return states


def perfect_information_limit(difficulty: str, deals: int, seed: int, nodes: int = NODES, workers: int = 1,
                              progress: bool = True) -> Limit:
    """Bound the limit of ``deals`` deals of ``seed`` (``ATTEMPTS``, then ``search`` on the rest)."""
    options = GAME.check_options({"difficulty": difficulty})
    won = np.zeros(deals, bool)
    start = time.perf_counter()
    for attempt, (budget, ppn, c, playout) in enumerate(ATTEMPTS):
        setup = Setup.uniform("oracle-mcts").with_params(
            {"budget": budget, "ppn": ppn, "c": c, "playout": playout, "reduction": False})
        if attempt == 0:  # every deal, on the workers
            result = evaluate_setup(setup, games=deals, seed=seed, workers=workers, options=options)
            won[result.game_ids[result.rewards == 1.0]] = True
        else:  # the deals not won yet, one by one
            for k in np.flatnonzero(~won):
                won[k] = play_side(setup, options, 0, seed, k, 1).rewards[0] == 1
        if progress:
            print(f"ORACLE mcts budget {budget} ppn {ppn} c {c} {playout}: winning lines so far {int(won.sum()):,} "
                  f"of {deals:,}", flush=True)
        if won.all():
            break
    attempts = time.perf_counter() - start
    start = time.perf_counter()
    rest = np.flatnonzero(~won)
    outcomes = []
    for done, S in enumerate(deal_states(options, seed, rest), 1):
        outcomes.append(search(S, np.array([0, nodes], np.int64), Dict.empty(types.int64, types.boolean)))
        if progress and (done % 10 == 0 or done == len(rest)):
            print(f"exhaustive search: {done:,} of {len(rest):,} deals; {outcomes.count(WIN)} won, "
                  f"{outcomes.count(LOSS)} lost, {outcomes.count(UNKNOWN)} unknown", flush=True)
    return Limit(difficulty, seed, deals, int(won.sum()) + outcomes.count(WIN), outcomes.count(WIN),
                 outcomes.count(LOSS), outcomes.count(UNKNOWN), nodes, attempts, time.perf_counter() - start,
                 [int(k) for k, outcome in zip(rest, outcomes) if outcome == UNKNOWN])


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--difficulty", choices=L.DIFFICULTIES, default="hard")
    parser.add_argument("--deals", type=positive_int, default=1000)
    parser.add_argument("--seed", type=seed_int, default=0)
    parser.add_argument("--nodes", type=positive_int, default=NODES, help="decisions searched per deal before giving up")
    parser.add_argument("--workers", type=positive_int, default=1, help="processes for the ORACLE searches")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--out", help="also write the JSON result to this file (lotr report reads docs/limit-*.json)")


def run(args) -> int:
    limit = perfect_information_limit(args.difficulty, args.deals, args.seed, args.nodes, args.workers,
                                      progress=not args.json)
    data = json.dumps({**asdict(limit), "bounds": limit.bounds, "interval": limit.interval})
    print(data if args.json else limit.report())
    if args.out:
        Path(args.out).write_text(data + "\n")
    return 0
