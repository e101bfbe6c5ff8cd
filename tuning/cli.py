"""The ``lotr`` command line: ``lotr play`` and ``lotr eval``."""

from __future__ import annotations

import argparse
import json
import sys

from lotr_sim.layout import DIFFICULTIES
from lotr_sim.policies import POLICY_NAMES as POLICIES


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit with code 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _choice(kind: str, valid: tuple[str, ...]):
    def parse(value: str) -> str:
        if value not in valid:
            raise argparse.ArgumentTypeError(f"unknown {kind} {value!r}; valid: {', '.join(valid)}")
        return value

    parse.__name__ = kind
    return parse


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


def _seed(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2**64), got {value!r}") from None
    if not 0 <= number < 2**64:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2**64), got {number}")
    return number


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="lotr", description="Simulate, evaluate and tune agents for the LOTR card game model.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    play = commands.add_parser("play", help="play one game and print its trace")
    play.add_argument("--difficulty", type=_choice("difficulty", DIFFICULTIES), default="hard")
    play.add_argument("--seed", type=_seed, default=0, help="the game's seed (deal and policy choices)")
    play.add_argument("--policy", type=_choice("policy", POLICIES), default="random")
    play.add_argument("--full-scenario", action="store_true", help="play all three quest stages")

    evaluate = commands.add_parser("eval", help="win rate of a policy over many games")
    evaluate.add_argument("--policy", type=_choice("policy", POLICIES), default="random")
    evaluate.add_argument("--difficulty", type=_choice("difficulty", DIFFICULTIES), default="hard")
    evaluate.add_argument("--games", type=_positive, default=10_000)
    evaluate.add_argument("--seed", type=_seed, default=0, help="game i is dealt from (seed, i)")
    evaluate.add_argument("--workers", type=_positive, default=1)
    evaluate.add_argument("--full-scenario", action="store_true")
    evaluate.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def _play(args) -> int:
    from lotr_sim import GameState
    from lotr_sim.playout import AGENT_STREAM
    from lotr_sim.rng import derive_seed

    game = GameState(args.difficulty, args.seed, full_scenario=args.full_scenario, trace=True)
    game.play_out(args.policy, int(derive_seed(args.seed, AGENT_STREAM)))
    print(game.trace_text())
    return 0


def _eval(args) -> int:
    from lotr_sim.evaluate import evaluate_policies

    result = evaluate_policies(
        args.policy,
        args.difficulty,
        args.games,
        seed=args.seed,
        workers=args.workers,
        full_scenario=args.full_scenario,
        progress=sys.stderr.isatty() or not args.json,
    )
    print(json.dumps(result.to_dict(), indent=2) if args.json else result.report())
    return 130 if result.interrupted else 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return {"play": _play, "eval": _eval}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
