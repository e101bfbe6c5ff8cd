"""What a command plays, from its flags: the setup (``--policy``, ``--setup``, ``--config``, ``--opponent``,
``--set``) and the game options (``--option`` and each game's shorthands, over those a ``--config`` records), with
argparse's one-line errors."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import gamecore
from agents.specs import AgentSpec, SpecError, agent_names
from gamecore import DEFAULT_GAME
from gamecore.interface import Game
from gamecore.params import Param


def choice_type(kind: str, valid: tuple[str, ...]):
    def parse(value: str) -> str:
        if value not in valid:
            raise argparse.ArgumentTypeError(f"unknown {kind} {value!r}; valid: {', '.join(valid)}")
        return value

    parse.__name__ = kind
    return parse


def add_setup_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--game", help=f"the game (default {DEFAULT_GAME}; a --config names its own)")
    command.add_argument(
        "--setup",
        help="agents per role: LOTR planning-questing-defense (travel, attack random) or all five, e.g. "
        "random-mcts-mcts; a two-player game: the evaluated agent then its opponent, e.g. mcts-random",
    )
    command.add_argument("--policy", help="the same agent in every role: one of the game's agents ("
                         + "; ".join(f"{game.name}: {', '.join(agent_names(game))}" for game in loadable_games()) + ")")
    command.add_argument("--opponent", help="two-player games: the second seat's agent (the setup's is the first's)")
    command.add_argument("--config", help="an agent configuration file (TOML or JSON), e.g. an exported best.toml")
    command.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="[STAGE.]PARAM=VALUE",
        help="change a parameter, e.g. budget=40 or questing.c=1.2 (repeatable)",
    )
    command.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                         help="a game option, e.g. difficulty=easy (repeatable)")
    for game, option in shorthands():
        what = f"{game}: {option.help} (--option {option.name}=...)"
        if option.type is bool:
            command.add_argument(option.flag, dest=f"option_{option.name}", action="store_true", help=what)
        else:
            command.add_argument(option.flag, dest=f"option_{option.name}", help=what, metavar=option.name.upper(),
                                 type=choice_type(option.name, option.choices) if option.choices else str)


def shorthands() -> list[tuple[str, Param]]:
    """The game options that the command line also takes as ``--<name>`` (the first game declaring a name)."""
    found: dict[str, tuple[str, Param]] = {}
    for game in loadable_games():
        for option in game.options:
            if option.shorthand:
                found.setdefault(option.name, (game.name, option))
    return list(found.values())


def loadable_games() -> list[Game]:
    """Every installed game that loads: a broken plug-in is left out here (``--help`` names it and why), so that it
    does not stop the command line for the other games."""
    games = []
    for name in gamecore.names():
        try:
            games.append(gamecore.load(name))
        except SpecError:
            continue
    return games


def setup_of(parser: argparse.ArgumentParser, args):
    """The setup named by --policy, --setup and/or --config, with --set applied; one-line errors."""
    from agents.setup import FILE_DEFAULT_GAME, Setup, parse_assignment

    if args.policy and (args.setup or args.config):
        parser.error("give --policy alone, or --setup and/or --config")
    try:
        game = gamecore.load(args.game or DEFAULT_GAME)
        if args.config:
            data = Setup.read_mapping(args.config)
            if args.setup:
                data["setup"] = args.setup
            if args.game and data.get("game", FILE_DEFAULT_GAME) != args.game:
                raise SpecError(f"{args.config}: game = {data.get('game', FILE_DEFAULT_GAME)!r}, not --game "
                                f"{args.game!r}")
            setup = Setup.from_mapping(data, source=args.config, folder=Path(args.config).parent)
        elif args.setup:
            setup = Setup.parse(args.setup, game.name)
        elif args.policy and args.policy not in agent_names(game.name):
            raise SpecError(f"--policy: unknown policy {args.policy!r}; valid: {', '.join(agent_names(game.name))}")
        else:
            setup = Setup.uniform(args.policy or game.policies[0], game.name)
        if args.opponent:
            if not setup.game.by_seat:
                raise SpecError(f"--opponent: {setup.game} has no seats; its roles are {', '.join(setup.roles)}")
            setup = Setup(setup.agents[0], AgentSpec.make(args.opponent, "--opponent", game=setup.game),
                          game=setup.game)
        setup = setup.with_params(dict(parse_assignment(text) for text in args.set))
    except SpecError as error:
        parser.error(str(error))
    for role, spec in zip(setup.roles, setup.agents):
        weights = spec.as_dict().get("weights")
        if weights and not Path(weights).is_file():
            parser.error(f"{role}.weights = {weights!r}: no such file")
    return setup


def recorded_options(args) -> dict:
    """The game options a --config file records (``metadata.options``: the game it was trained or tuned on)."""
    from agents.setup import Setup

    if not getattr(args, "config", None):
        return {}
    metadata = Setup.read_mapping(args.config).get("metadata")
    options = metadata.get("options") if isinstance(metadata, dict) else None
    return dict(options) if isinstance(options, dict) else {}


def options_of(parser: argparse.ArgumentParser, args, setup) -> dict:
    """The game options of --option, --difficulty and --full-scenario over those the --config file records,
    checked against the setup's game; the recorded ones in play are named on stderr."""
    from agents.setup import parse_assignment

    recorded = recorded_options(args)
    options = dict(recorded)
    try:
        setup.game.check_options(recorded, f"{getattr(args, 'config', None)}: metadata.options")
        for text in args.option:
            name, value = parse_assignment(text, "--option")
            options[name] = value
        for _, option in shorthands():
            given = getattr(args, f"option_{option.name}")
            if given not in (None, False):
                options[option.name] = given
        options = setup.game.check_options(options, "--option")
    except SpecError as error:
        parser.error(str(error))
    defaults = {option.name: option.default for option in setup.game.options}
    kept = {name: value for name, value in recorded.items() if options.get(name) == value != defaults.get(name)}
    if kept:
        shown = ", ".join(f"{name}={value}" for name, value in kept.items())
        print(f"game options recorded in {args.config}: {shown} (--option NAME=VALUE to change)", file=sys.stderr,
              flush=True)
    return options
