"""The ``gametune`` command line (also installed as ``lotr``): ``play``, ``eval``, ``train``, ``tune``, ``report``,
``warm-up`` and each game's own commands (``gametune loveletter table``).

The games, their agents and their commands in the help come from ``gamecore``'s registry: a new game is listed
without a line written here.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tomllib
from pathlib import Path

import gamecore
from agents.compiling import announcing
from agents.evaluation import SEATS
from agents.executors import EXECUTORS
from agents.interruption import Interrupted, stop_signals
from agents.specs import SpecError, agent_names
from gamecore.atomic import writable_file
from gamecore.interface import Game, imported
from gamecore.params import LIMITS, add_capped, add_no_limits, over_cap, seed_int
from gamecore.redaction import redact
from tuning.cli_setup import add_setup_arguments, loadable_games, options_of, setup_of
from tuning.storage_url import STORAGE_FORMS

PROGRAMS = ("gametune", "lotr")  # the tool's name, then the alias every existing command uses

class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit with code 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {redact(message)}\n")


def _games_help() -> str:
    """Each game of the registry with its agents and its own commands."""
    lines = ["games (--game NAME; agents for --policy, --setup and --opponent; a game's own commands: PROG GAME "
             + "COMMAND):"]
    for name in gamecore.names():
        try:
            own = gamecore.load(name).command_line.commands
        except SpecError as error:  # a broken plug-in is named, not a traceback of every command
            lines.append(f"  {name}: does not load ({error})")
            continue
        lines.append(f"  {name}: agents {', '.join(agent_names(name))}; "
                     + (f"commands {', '.join(command.name for command in own)}" if own else "no commands of its own"))
    return "\n".join(lines)


def program_name() -> str:
    """The name the tool was called by (``gametune`` or its alias ``lotr``; ``lotr`` when run as a module)."""
    called = Path(sys.argv[0]).name
    return called if called in PROGRAMS else PROGRAMS[1]


def build_parser(game_name: str | None = None, prog: str | None = None) -> argparse.ArgumentParser:
    """The command line; ``game_name`` (the first argument) adds that game's own commands (``gametune loveletter
    table``)."""
    prog = prog or program_name()
    parser = _Parser(prog=prog, formatter_class=argparse.RawDescriptionHelpFormatter,
                     description="Simulate, evaluate and tune game-playing agents (MCTS, flat Monte Carlo, learning "
                     f"agents) on any registered game. {PROGRAMS[0]} and {PROGRAMS[1]} are the same tool.",
                     epilog=_games_help().replace("PROG", prog))
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")

    play = commands.add_parser("play", help="play one game and print its trace")
    add_setup_arguments(play)
    play.set_defaults(handler=_play, command_parser=play)
    play.add_argument("--seed", type=seed_int, default=0, help="the game's seed (deal and agents' choices)")
    play.add_argument("--png", help="also draw the final position to this PNG file (games that draw, e.g. carcassonne)")

    evaluate = commands.add_parser("eval", help="win rate of a setup over many games")
    add_setup_arguments(evaluate)
    evaluate.set_defaults(handler=_eval, command_parser=evaluate)
    add_capped(evaluate, "--games", default=10_000,
               help="games to play (default 10,000; --seat both: each deal in both seats counts twice)")
    evaluate.add_argument("--seed", type=seed_int, default=0, help="game i is dealt from (seed, i)")
    add_capped(evaluate, "--workers", default=1,
               help="local worker processes playing the games (default 1; a Ray cluster: its CPUs)")
    evaluate.add_argument("--json", action="store_true", help="print the result as JSON")
    evaluate.add_argument("--executor", choices=EXECUTORS, default="local",
                          help="where the games run: local processes (--workers) or a Ray cluster")
    evaluate.add_argument("--ray-address", help="the Ray cluster (ray.init address; default: a local Ray instance)")
    evaluate.add_argument("--seat", choices=SEATS, default="first",
                          help="two-player games: the evaluated agent's seat (default first, as the thesis's tables; "
                               "both: every deal in each seat)")
    add_no_limits(evaluate)

    train = commands.add_parser("train", help="train the rl stages of a setup")
    add_setup_arguments(train)
    train.set_defaults(handler=_train, command_parser=train)
    for name, kind, help_text in (
        ("--algo", str, "the learning algorithm, e.g. q-macro, ac-macro or ac-direct (the game's rl agent lists them)"),
        ("--encoding", str, "the game's encoder of the observation, by number (LOTR: the thesis's 0-3)"),
        ("--lr", str, "Adam learning rate"),
        ("--neurons", str, "hidden units"),
        ("--epsilon", str, "q-macro exploration rate"),
    ):
        train.add_argument(name, type=kind, help=f"every rl stage: {help_text} (same as --set {name[2:]}=...)")
    add_capped(train, "--episodes", default=10_000, help="training games (default 10,000)")
    train.add_argument("--seed", type=seed_int, default=0, help="training deals and network initialisation")
    add_capped(train, "--envs", default=1, help="games stepped together (vectorised training)")
    add_capped(train, "--window", default=1000, help="episodes of the moving win rate")
    train.add_argument("--out", help="folder for the checkpoints (agent.toml + weights; final/ for the last ones)")
    add_no_limits(train)

    tune = commands.add_parser("tune", help="hyperparameter studies")
    tune_commands = tune.add_subparsers(dest="tune_command", required=True, parser_class=_Parser)
    run = tune_commands.add_parser("run", help="run or resume the study of a study file")
    run.add_argument("study", help="a study file, e.g. studies/lotr/mcts-hpo.toml")
    add_capped(run, "--n-trials", help="trial budget (complete + pruned), overriding the file's")
    add_capped(run, "--workers", help="local worker processes, overriding the file's")
    run.add_argument("--storage", help=f"the study's storage: {STORAGE_FORMS} (default: the file's, else "
                     "<name>.db for one worker, <name>.journal for several, here)")
    run.add_argument("--out", help="where to export the best configuration (default <name>-best.toml)")
    run.add_argument("--executor", choices=EXECUTORS,
                     help="where the trials' games run, overriding the file's search.executor (ray: a Ray cluster)")
    run.add_argument("--ray-address", help="--executor ray: the cluster (ray.init address), overriding the file's")
    run.add_argument("--dry-run", action="store_true", help="validate the file and print the resolved study only")
    run.add_argument("--reuse-test-seed", metavar="REASON", help="test on a seed the ledger (test-seeds.json) gives to "
                     "another claim; the reason is recorded beside the result")
    run.add_argument("--replicate", action="store_true", help="run the study again unchanged on the fresh seed its "
                     "[report] replicate declares, as the study <name>-seed<S> (its section shows both runs)")
    add_no_limits(run, study=True)
    run.set_defaults(handler=_tune_run, command_parser=run)
    init = tune_commands.add_parser("init", help="write a commented study file for a game and a setup (every key "
                                    "with its default and meaning; the agents' parameters as a space to narrow)")
    init.add_argument("--game", required=True, choices=gamecore.names(), help="the game")
    init.add_argument("--setup", required=True, help="the agents to tune, e.g. mcts (a two-player game: against its "
                      "random policy) or random-mcts-mcts")
    init.add_argument("--out", help="the study file to write (default <its name>.toml here; never overwritten)")
    init.set_defaults(handler=_tune_init, command_parser=init)
    worker = tune_commands.add_parser("worker", help="join a running study (any machine) until its budget is met")
    worker.add_argument("study", help="the study file the study was started from")
    worker.add_argument("--storage", required=True, help=f"the study's shared storage: {STORAGE_FORMS}")
    add_capped(worker, "--n-trials", help="trial budget, overriding the file's")
    add_capped(worker, "--wait", default=600,
               help="seconds to wait for lotr tune run to start the study (workers launched together)")
    add_no_limits(worker, study=True)
    worker.set_defaults(handler=_tune_worker, command_parser=worker)
    retest = tune_commands.add_parser("retest", help="play a study's export again on the study file's (fresh) test "
                                      "seed; the earlier test stays beside the new one")
    retest.add_argument("study", help="the study file")
    retest.add_argument("--export", help="the export to play (default: the one its [report] config names)")
    retest.add_argument("--why", required=True, help="why the earlier test is replaced (recorded beside it)")
    retest.add_argument("--docs", default="docs", help="the report's folder: the study's record in its records/ is "
                        "updated too (default docs)")
    add_capped(retest, "--workers", default=1, help="local processes playing the games")
    retest.add_argument("--reuse-test-seed", metavar="REASON", help="as for tune run")
    add_no_limits(retest, study=True)
    retest.set_defaults(handler=_tune_retest, command_parser=retest)
    export = tune_commands.add_parser("export", help="write the study's best configuration (TOML or JSON)")
    export.add_argument("study", nargs="?", help="the study file or the study's name (or give --run-id)")
    export.add_argument("--storage", help=f"the study's storage: {STORAGE_FORMS} (default: the file's, else "
                        "<name>.journal or <name>.db here)")
    export.add_argument("--run-id", help="export the configuration logged by this MLflow run instead")
    export.add_argument("--tracking-uri", help="the MLflow store of --run-id, e.g. sqlite:///PATH/mlflow.db or "
                        "http://HOST:5000 (default: MLFLOW_TRACKING_URI, else mlflow.db here)")
    export.add_argument("--out", required=True, help="best.toml or best.json")
    export.set_defaults(handler=_tune_export, command_parser=export)
    agents = commands.add_parser("agents", help="a game's agents, or one agent's parameters with their type, default, "
                                 "valid values and meaning")
    agents.add_argument("game_name", metavar="GAME", choices=gamecore.names(), help="the game")
    agents.add_argument("agent", nargs="?", help="one of its agents: its parameters")
    agents.set_defaults(handler=_agents, command_parser=agents)
    warm_up = commands.add_parser("warm-up", help="compile every game's code ahead (run it once after the install): the "
                                  "first play, eval or study then starts at once")
    warm_up.add_argument("--game", action="append", choices=gamecore.names(),
                         help="only this game (repeatable; default: every game)")
    add_capped(warm_up, "--workers", default=min(os.cpu_count() or 1, LIMITS["workers"]),
               help="processes compiling at once (default: this machine's cores)")
    add_no_limits(warm_up)
    warm_up.set_defaults(handler=_warm_up, command_parser=warm_up)
    for commands_of, name in ((commands, "report"), (tune_commands, "report")):
        report = commands_of.add_parser(name, help="the finished studies next to the thesis's numbers (Markdown + PNG)")
        report.add_argument("studies", nargs="*", help="study files (default: those of studies/, by game)")
        report.add_argument("--root", default=".", help="folder of the studies' default local stores (default: here)")
        report.add_argument("--out", default="docs/results.md",
                            help="the report to write (default: docs/results.md, which this rewrites, with the figures "
                                 "in figures/ and the studies' records in records/ beside it, and the headline table "
                                 "of the README.md beside its folder when every headline study is reported)")
        report.set_defaults(handler=_report, command_parser=report)
    for game in loadable_games():  # <prog> <game> <command>: a game's own commands (only the named game's parsed)
        _add_game_commands(commands, game, prog, with_arguments=game.name == game_name)
    return parser


def _add_game_commands(commands, game: Game, prog: str, with_arguments: bool) -> None:
    """``<prog> <game> <command>``: the game's own commands; their arguments only when the game is the one asked
    for (the others' modules stay unimported)."""
    name, own = game.name, game.command_line.commands
    listed = ", ".join(command.name for command in own) or "none"
    of_game = commands.add_parser(
        name, help=f"{name}'s own commands: {listed}",
        description=f"{name}'s own commands: {listed}. Its agents (--policy, --setup, --opponent of {prog} play, "
                    f"eval and train with --game {name}): {', '.join(agent_names(name))}.")
    of_game.set_defaults(handler=_game_command(None, name, prog), command_parser=of_game)
    if not (with_arguments and own):
        return
    game_commands = of_game.add_subparsers(dest="game_command", metavar="COMMAND", required=bool(own),
                                          parser_class=_Parser)
    for command in own:
        parser_of = game_commands.add_parser(command.name, help=command.help, description=command.help)
        command.function("arguments")(parser_of)
        parser_of.set_defaults(handler=_game_command(command, name, prog), command_parser=parser_of)


def _train(parser, args) -> int:
    from agents.learning.train import train

    for name in ("algo", "encoding", "lr", "neurons", "epsilon"):
        if getattr(args, name) is not None:
            args.set.append(f"{name}={getattr(args, name)}")
    setup = setup_of(parser, args)
    if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
        parser.error(f"--out {args.out}: is a file; give a folder for the checkpoints")
    try:
        result = train(
            setup,
            options_of(parser, args, setup),
            args.episodes,
            seed=args.seed,
            envs=args.envs,
            out=args.out,
            window=args.window,
            progress=True,
        )
    except SpecError as error:
        parser.error(str(error))
    except Interrupted as stop:
        print(stop.partial.report())
        return stop.exit_code
    print(result.report())
    return 0


def _writable(parser, path, flag: str = "--out", **checks) -> None:
    """``gamecore.atomic.writable_file``, its refusal as argparse's one line: checked before any work."""
    try:
        writable_file(path, flag, **checks)
    except ValueError as error:
        parser.error(str(error))


def _tune_run(parser, args) -> int:
    from tuning.orchestrator import run_replicate, run_study
    from tuning.storage import check_storage, storage_for
    from tuning.study_file import load_study
    from tuning.supervision import timing_note
    from tuning.tracking_store import check_tracking_store

    try:
        spec = load_study(args.study, limits=not args.no_limits)
        if args.replicate and (args.n_trials or args.out):
            parser.error("--replicate runs the study file's own budget and exports nothing; drop --n-trials and --out")
        spec = spec.replicated() if args.replicate else spec
        if args.executor or args.ray_address:
            spec = dataclasses.replace(spec, executor=args.executor or spec.executor,
                                       ray_address=args.ray_address or spec.ray_address)
        if args.out:
            _writable(parser, args.out, suffixes=(".toml", ".json"), not_same_as=args.study, makes_folder=True)
        if args.dry_run:
            storage = check_storage(storage_for(spec.name, args.storage or spec.storage, args.workers or spec.workers))
            print(spec.resolved(storage, check_tracking_store(spec.tracking_uri, storage=storage)))
            print(timing_note(spec, args.workers or spec.workers) or "repeatable: a re-run from scratch repeats it")
            return 0
        if args.replicate:
            result = run_replicate(spec, workers=args.workers, storage=args.storage,
                                   reuse_test_seed=args.reuse_test_seed)
        else:
            result = run_study(spec, n_trials=args.n_trials, workers=args.workers, storage=args.storage,
                               out=args.out, reuse_test_seed=args.reuse_test_seed)
    except SpecError as error:
        parser.error(str(error))
    print(result.report())
    if note := timing_note(spec, args.workers or spec.workers):
        print(note)
    return 0


def _tune_retest(parser, args) -> int:
    from tuning.retest import retest_export
    from tuning.study_file import load_study

    try:
        spec = load_study(args.study, limits=not args.no_limits)
        print(retest_export(spec, args.why, Path(args.docs), args.workers, args.reuse_test_seed, args.export))
    except SpecError as error:
        parser.error(str(error))
    return 0


def _tune_init(parser, args) -> int:
    from gamecore.atomic import write_atomically
    from tuning.study_template import study_template
    from tuning.test_seeds import fresh_test_seed

    try:
        text = study_template(args.game, args.setup)
        out = Path(args.out or f"{tomllib.loads(text)['name']}.toml")
        if out.exists() and not out.is_dir():
            parser.error(f"--out {out}: exists; give another file (a study file is never overwritten)")
        _writable(parser, out, suffixes=(".toml",))
        wanted = tomllib.loads(text)["test"]["seed"]
        if (seed := fresh_test_seed(out, wanted)) != wanted:  # a seed its ledger gives to no claim yet
            text = study_template(args.game, args.setup, test_seed=seed)
    except SpecError as error:
        parser.error(str(error))
    write_atomically(out, text)
    print(f"wrote {out}; check it: {program_name()} tune run {out} --dry-run")
    return 0


def _tune_worker(parser, args) -> int:
    from tuning.orchestrator import join_study
    from tuning.study_file import load_study

    try:
        ran = join_study(load_study(args.study, limits=not args.no_limits), args.storage, args.n_trials,
                         wait=args.wait)
    except SpecError as error:
        parser.error(str(error))
    print(f"worker ran {ran} trials")
    return 0


def _tune_export(parser, args) -> int:
    from tuning.study_record import export_study

    if (args.study is None) == (args.run_id is None):
        parser.error("give a study file, a study name or --run-id")
    _writable(parser, args.out, suffixes=(".toml", ".json"), not_same_as=args.study, makes_folder=True)
    try:
        if args.run_id:
            from tuning.tracking import export_run

            target = export_run(args.tracking_uri, args.run_id, Path(args.out))
        else:
            target = export_study(args.study, args.storage, Path(args.out))
    except SpecError as error:
        parser.error(str(error))
    print(f"exported {target}")
    return 0


def _agents(parser, args) -> int:
    from agents.catalogue import catalogue

    try:
        print(catalogue(args.game_name, args.agent))
    except SpecError as error:
        parser.error(str(error))
    return 0


def _warm_up(parser, args) -> int:
    from agents.warm_up import report_warm_up

    seconds = report_warm_up(args.game or [game.name for game in loadable_games()], args.workers, print)
    print(f"compiled in {seconds:.0f} s: the next commands start at once")
    return 0


def _report(parser, args) -> int:
    from tuning.report import write_report
    from tuning.study_file import study_files

    studies = [Path(p) for p in args.studies] or study_files("studies")
    if not studies:
        parser.error("no study files: give them, or run from a folder with studies/<game>/*.toml")
    try:
        out = write_report(studies, Path(args.out), Path(args.root))
    except SpecError as error:
        parser.error(str(error))
    print(f"wrote {out}")
    return 0


def _game_command(command, game_name: str, prog: str):
    """The handler of ``<prog> <game> <command>``; without a command, a one-line error."""
    def run(parser, args) -> int:
        if command is None:
            parser.error(f"{game_name} has no commands of its own; play it with {prog} play --game {game_name}")
        return command.function("run")(args)

    return run


def _play(parser, args) -> int:
    from agents.play import play_traced_game

    setup = setup_of(parser, args)
    draw = setup.game.command_line.draw
    if args.png and not draw:
        parser.error(f"--png: {setup.game} has no picture; games that draw: "
                     f"{', '.join(game.name for game in loadable_games() if game.command_line.draw) or 'none'}")
    if args.png:
        _writable(parser, args.png, "--png", suffixes=(".png",))
    try:
        game = play_traced_game(setup, args.seed, **options_of(parser, args, setup))
    except SpecError as error:
        parser.error(str(error))
    print(game.trace_text())
    if args.png:
        print(f"drew {imported(draw)(game, args.png)}")
    return 0


def _eval(parser, args) -> int:
    """The report of every game played; on Ctrl-C or SIGTERM, of the games finished, marked interrupted. With
    ``--json`` stdout holds the JSON document alone (``result_stdout``), whatever the executor prints."""
    from agents.evaluation import evaluate_setup
    from tuning.result_stdout import result_stdout

    code = 0
    setup = setup_of(parser, args)
    if setup.game.by_seat and len(set(setup.agents)) == 1:
        print(f"self-play: {setup.agents[0].agent} against itself in every seat (another opponent: --opponent AGENT, "
              f"or --setup {setup.agents[0].agent}-AGENT)", file=sys.stderr, flush=True)
    with result_stdout(args.json) as out:
        try:
            result = evaluate_setup(
                setup,
                games=args.games,
                seed=args.seed,
                workers=args.workers,
                options=options_of(parser, args, setup),
                seats=args.seat,
                executor_kind=args.executor,
                address=args.ray_address,
                progress=sys.stderr.isatty() or not args.json,
            )
        except SpecError as error:  # e.g. weights that cannot be loaded
            parser.error(str(error))
        except Interrupted as stop:
            if stop.partial is None:  # stopped before the games began (compiling, loading networks): nothing to report
                raise
            result, code = stop.partial, stop.exit_code
            print(f"interrupted ({stop.signal_name}) after {result.games} of {args.games} games: the figures below "
                  "are of the games finished", file=sys.stderr)
        print(json.dumps(result.to_dict(), indent=2) if args.json else result.report(), file=out)
    return code


def parse_command_line(argv: list[str], prog: str | None = None) -> argparse.Namespace:
    """The parsed arguments, every capped number within its cap unless --no-limits is given; else argparse's
    one-line error (exit code 2) naming the flag, the value, the cap and --no-limits."""
    args = build_parser(argv[0] if argv else None, prog).parse_args(argv)
    for dest, flag in getattr(args, "capped", ()):
        value = getattr(args, dest)
        beyond = value is not None and over_cap(dest, value, limits=not args.no_limits)
        if beyond:
            args.command_parser.error(f"argument {flag}: must be {beyond}, got {value}")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    prog = program_name()
    args = parse_command_line(argv, prog)
    label = f"{prog} {args.command}"
    try:
        with announcing(label), stop_signals(label):
            return args.handler(args.command_parser, args)
    except Interrupted as stop:
        what = f"; {stop.detail}" if stop.detail else ""
        print(f"{label}: interrupted ({stop.signal_name}){redact(what)}", file=sys.stderr)
        return stop.exit_code
    except BrokenPipeError:  # output piped into a reader that stopped early (| head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
