"""The perfect-information limit of LOTR: the share of deals that some line of decisions wins, deck orders known
(``lotr lotr limit``; the method in ``lotr_sim.limit``). ORACLE searches (MCTS through the evaluation harness, nested
Monte Carlo) and an honest agent if one is given find the winning lines, ``lotr_sim.limit.search`` proves the losses."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass

import numpy as np
from numba import types
from numba.typed import Dict

from agents.evaluation import evaluate_setup, play_side
from agents.search import compiled
from agents.setup import Setup, parse_assignment
from gamecore.atomic import writable_file, write_atomically
from gamecore.errors import SpecError
from gamecore.params import add_capped, add_no_limits, seed_int
from gamecore.rng import mix64
from gamecore.stats import wilson_interval
from lotr_sim import kernels
from lotr_sim import layout as L
from lotr_sim.game import GAME
from lotr_sim.limit import LOSS, NODES, UNKNOWN, WIN, WON, nested, search
from lotr_sim.policies import POLICY_NAMES


@dataclass(frozen=True)
class OracleMcts:
    """An ORACLE MCTS (``oracle-mcts`` at every stage) playing the deals through the evaluation harness."""

    budget: int
    ppn: int
    c: float
    playout: str

    def __str__(self) -> str:
        return f"ORACLE mcts budget {self.budget} ppn {self.ppn} c {self.c} {self.playout}"

    def wins(self, options: dict, seed: int, deals: np.ndarray, workers: int, everything: bool, tick) -> np.ndarray:
        """Whether it wins each of ``deals`` (``everything``: the deals are all of them, played on the workers)."""
        setup = Setup.uniform("oracle-mcts", "lotr").with_params(
            {"budget": self.budget, "ppn": self.ppn, "c": self.c, "playout": self.playout, "reduction": False})
        if everything:
            result = evaluate_setup(setup, games=len(deals), seed=seed, workers=workers, options=options)
            return np.isin(deals, result.game_ids[result.rewards == 1.0])
        won = np.zeros(len(deals), bool)
        for i, k in enumerate(deals):
            won[i] = play_side(setup, options, 0, seed, k, 1).rewards[0] == 1
            tick(i + 1, int(won.sum()))
        return won


@dataclass(frozen=True)
class Nested:
    """A nested Monte Carlo search of ``level`` (``lotr_sim.limit.nested``) with ``playout`` playouts."""

    level: int
    playout: str

    def __str__(self) -> str:
        return f"nested Monte Carlo level {self.level} {self.playout}"

    def wins(self, options: dict, seed: int, deals: np.ndarray, workers: int, everything: bool, tick) -> np.ndarray:
        policies = np.full(5, POLICY_NAMES.index(self.playout), np.int64)
        won = np.zeros(len(deals), bool)
        for i, (k, S) in enumerate(zip(deals, deal_states(options, seed, deals))):
            won[i] = nested(S, self.level, policies, np.array([mix64(np.uint64(k))], np.uint64)) == WON
            tick(i + 1, int(won.sum()))
        return won


@dataclass
class HonestAgent:
    """An honest agent (a configuration file) playing the deals first: each game it wins is a winning line, and its
    figures on the limit's deals (``figures``) measure it against the limit, deal for deal."""

    config: str
    figures: dict | None = None

    def __str__(self) -> str:
        return f"the agent {self.config}"

    def wins(self, options: dict, seed: int, deals: np.ndarray, workers: int, everything: bool, tick) -> np.ndarray:
        result = evaluate_setup(Setup.load(self.config), games=len(deals), seed=seed, workers=workers, options=options)
        self.figures = {"config": self.config, "setup": result.setup, "games": result.games, "wins": result.wins,
                        "wilson_95": result.wilson_95, "mean_seconds_per_game": result.mean_seconds_per_game,
                        "metrics": result.metrics}
        return np.isin(deals, result.game_ids[result.rewards == 1.0])


ATTEMPTS = (  # the ORACLE searches that look for winning lines, each on the deals the earlier ones did not win; the
    # cheap first. 500 full hard deals of seed 2000003: nested level 1 with rule playouts 158 lines in 19 s, level 2
    # 244 more in 1,466 s, ORACLE MCTS 1 more in 434 s, 97 left; with rule-full playouts, level 1 499 in 17 s and
    # level 2 the last. Every first-quest deal is won by the first.
    OracleMcts(200, 1, 0.7071, "random"),
    Nested(1, "rule-full"),
    Nested(1, "rule"),
    Nested(1, "expert"),
    Nested(2, "rule-full"),
    Nested(2, "rule"),
    Nested(2, "expert"),
    OracleMcts(1000, 1, 0.7071, "random"),
    OracleMcts(1000, 1, 0.7071, "expert"),
    OracleMcts(5000, 1, 1.5, "random"),
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
    full_scenario: bool = False  # all three quest stages (else the first quest only)
    agent: dict | None = None  # an honest agent's figures on the same deals (HonestAgent.figures), if one played

    @property
    def scenario(self) -> str:
        return "full scenario" if self.full_scenario else "first quest"

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
        against = ([(f"  the agent {self.agent['config']} wins {self.agent['wins']:,} of these deals: "
                    f"{100 * self.agent['wins'] / max(1, self.lines_found):.1f}% of the winning lines found")]
                   if self.agent else [])
        return "\n".join([
            (f"perfect-information limit, {self.scenario}, {self.difficulty}, {self.deals:,} deals of seed {self.seed}: between "
            f"{100 * low:.2f}% and {100 * high:.2f}% (95% interval {100 * i_low:.2f}-{100 * i_high:.2f})"),
            f"  winning lines found: {self.lines_found:,} ({self.lines_found - self.lines_found_by_search:,} by "
            f"{'the agent and ' if self.agent else ''}ORACLE searches in {self.seconds_attempts:.0f} s, {self.lines_found_by_search:,} by the exhaustive "
            f"search); losses proven: {self.losses_proven:,}; unknown after {self.nodes:,} decisions: "
            f"{self.unknown:,} ({self.seconds_search:.0f} s)"
            + (f": deals {', '.join(map(str, self.unknown_deals))}" if self.unknown_deals else ""),
        ] + against)


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
                              progress: bool = True, full_scenario: bool = False, agent: str | None = None) -> Limit:
    """Bound the limit of ``deals`` deals of ``seed`` (the honest ``agent``'s games if one is given, ``ATTEMPTS``,
    then ``search`` on the rest)."""
    options = GAME.check_options({"difficulty": difficulty, "full_scenario": full_scenario})
    honest = HonestAgent(agent) if agent else None
    won = np.zeros(deals, bool)
    start = time.perf_counter()
    for attempt in ((honest,) if honest else ()) + ATTEMPTS:
        rest = np.flatnonzero(~won)
        before = int(won.sum())

        def tick(done: int, found: int) -> None:  # called within this iteration only: its loop variables hold
            if progress and done % 50 == 0:
                print(f"  {attempt}: {done:,} of {len(rest):,} deals, {before + found:,} winning lines so far",  # noqa: B023
                      flush=True)

        won[rest] = attempt.wins(options, seed, rest, workers, len(rest) == deals, tick)
        if progress:
            print(f"{attempt}: winning lines so far {int(won.sum()):,} of {deals:,} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
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
                 [int(k) for k, outcome in zip(rest, outcomes) if outcome == UNKNOWN], full_scenario,
                 honest.figures if honest else None)


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--difficulty", choices=L.DIFFICULTIES, help="the game option difficulty (default: hard)")
    parser.add_argument("--full-scenario", action="store_true",
                        help="all three quest stages (the game option full_scenario; default: the first quest)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option, e.g. full_scenario=true (repeatable; the limit plays the corrected rules)")
    add_capped(parser, "--deals", default=1000)
    parser.add_argument("--seed", type=seed_int, default=0)
    add_capped(parser, "--nodes", default=NODES, help="decisions searched per deal before giving up")
    add_capped(parser, "--workers", default=1, help="processes for the ORACLE searches")
    parser.add_argument("--agent", metavar="CONFIG",
                        help="an honest agent's configuration (e.g. studies/lotr/best-full/agent.toml) played on the same "
                             "deals first: its wins are winning lines, and the report sets it against the limit")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--out", help="also write the JSON result to this file (lotr report reads docs/limit-*.json)")
    add_no_limits(parser)


def _options(args) -> dict:
    """The game options of --option, --difficulty and --full-scenario, checked; SpecError unless the rules are the
    corrected ones (the searches here play them only)."""
    options = dict(parse_assignment(text, "--option") for text in args.option)
    if args.difficulty:
        options["difficulty"] = args.difficulty
    if args.full_scenario:
        options["full_scenario"] = True
    options = GAME.check_options(options, "--option")
    if options["rules"] != "corrected":
        raise SpecError(f"--option rules={options['rules']}: the limit plays the corrected rules only")
    return options


def run(args) -> int:
    try:
        options = _options(args)
        if args.out:
            writable_file(args.out, suffixes=(".json",))
    except (SpecError, ValueError) as error:
        print(f"lotr limit: {error}", file=sys.stderr)
        return 2
    if args.agent:
        try:
            if Setup.load(args.agent).game.name != "lotr":
                raise SpecError(f"{args.agent} is an agent of {Setup.load(args.agent).game.name}, not of lotr")
        except (SpecError, OSError) as error:
            print(f"lotr limit: --agent: {error}", file=sys.stderr)
            return 2
    limit = perfect_information_limit(options["difficulty"], args.deals, args.seed, args.nodes, args.workers,
                                      progress=not args.json, full_scenario=options["full_scenario"],
                                      agent=args.agent)
    data = json.dumps({**asdict(limit), "scenario": limit.scenario, "bounds": limit.bounds, "interval": limit.interval})
    print(data if args.json else limit.report())
    if args.out:
        write_atomically(args.out, data + "\n")
    return 0
