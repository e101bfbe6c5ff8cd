"""``gametune lotr choices``: how often each decision of a game offers a choice, the thesis's Figure 3.4.

The thesis chose the decisions its agents learn (planning, questing, defense) by how often an agent playing at
random had at least two actions to choose from at each (section 3.5: "the phases with the lowest decision
probability are travel and attack"). Here, over ``--games`` deals (deal ``g`` of ``--seed``, as ``lotr eval``
deals them) played by a setup's agents (the thesis's random agent by default), each round of each game counts, per
decision, whether it offered two actions or more. ``--out docs/choices-<difficulty>.json`` keeps the record that ``lotr report``
shows (``lotr_sim.report``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from agents.play import role_agents
from agents.setup import Setup, parse_assignment
from gamecore.atomic import writable_file, write_atomically
from gamecore.errors import SpecError
from gamecore.params import add_capped, add_no_limits, seed_int
from gamecore.rng import derive_seed
from lotr_sim import layout as L
from lotr_sim.errors import TooManyActionsError
from lotr_sim.game import GAME


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--difficulty", choices=L.DIFFICULTIES, default="hard", help="the game's difficulty")
    parser.add_argument("--setup", default="random", help="the agents that play the games (default: random)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option, e.g. rules=published (repeatable)")
    add_capped(parser, "--games", default=2000)
    parser.add_argument("--seed", type=seed_int, default=0)
    parser.add_argument("--out", help="also write the JSON result to this file (lotr report reads docs/choices-*.json)")
    add_no_limits(parser)


def count_choices(setup: Setup, options: dict, games: int, seed: int) -> dict:
    """Per role, over ``games`` deals of ``seed``: the rounds played, the rounds in which that decision offered two
    actions or more at least once, and its decisions with two actions or more (the game asks no decision that has
    one action only)."""
    counts = {role: {"rounds": 0, "rounds_with_choice": 0, "choices": 0} for role in setup.roles}
    for g in range(games):
        deal_seed = int(derive_seed(seed, g))
        state = GAME.new_game(deal_seed, **options)
        agents = role_agents(setup, deal_seed)
        chose: set[tuple[str, int]] = set()
        while not state.is_over:
            role = setup.role_of(state)
            if _offers_a_choice(state):
                counts[role]["choices"] += 1
                chose.add((role, state.round))
            state.apply(agents[role].act(state))
        for role, count in counts.items():
            count["rounds"] += state.round
            count["rounds_with_choice"] += sum(1 for chosen, _ in chose if chosen == role)
    return counts


def _offers_a_choice(state) -> bool:
    """Whether the pending decision has two legal actions or more (more than the list can hold: it has)."""
    try:
        return len(state.legal_actions()) >= 2
    except TooManyActionsError:
        return True


def run(args) -> int:
    try:
        setup = Setup.parse(args.setup, GAME)
        given = dict(parse_assignment(text, "--option") for text in args.option)
        options = GAME.check_options({"difficulty": args.difficulty, **given}, "--option")
        if args.out:
            writable_file(args.out, suffixes=(".json",))
    except (SpecError, ValueError) as error:
        print(f"lotr choices: {error}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    counts = count_choices(setup, options, args.games, args.seed)
    data = {"setup": setup.short_name, "options": options, "games": args.games, "seed": args.seed,
            "seconds": round(time.perf_counter() - start, 1), "roles": counts}
    for role, count in counts.items():
        share = count["rounds_with_choice"] / max(1, count["rounds"])
        print(f"{role}: a choice in {count['rounds_with_choice']:,} of {count['rounds']:,} rounds ({100 * share:.1f}%), "
              f"{count['choices']:,} decisions")
    if args.out:
        write_atomically(args.out, json.dumps(data, indent=1) + "\n")
    return 0
