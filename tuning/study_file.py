"""Study files (``studies/*.toml``): what a study searches, how it is scored, where it is stored.

::

    name = "mcts-hpo"                  # the Optuna study and (by default) the MLflow experiment
    game = "lotr"                      # optional: the game (default: lotr, agents.setup.FILE_DEFAULT_GAME)
    setup = "random-mcts-mcts"         # the setup every trial starts from (short form)
    difficulty = "hard"                # a game option may be given here, for short (LOTR's difficulty) ...

    [options]                          # ... or here: the game's options, e.g. full_scenario = true (omitted: its
                                       # defaults)

    [fixed]                            # parameters set for every trial: "budget" or "questing.budget"
    final = "visits"

    [space]                            # searched parameters (see tuning.space)
    budget = { int = [40, 800], step = 40 }
    c = { float = [0.1, 3.0], log = true }
    playout = { choice = ["random", "expert"] }

    [objective]
    metrics = ["win_rate"]             # or ["win_rate", "seconds_per_game"]: two objectives, Pareto front;
                                       # or ["best_window"]: rl trials, the best 1,000-episode training window
    games = 200                        # per trial, games 0..games-1 of seed: every trial plays the same deals
    seed = 0
    seat = "both"                      # a two-player game: the tuned agent's seat, first | second | both

    [validation]                       # the top trials compared on fresh deals: the one to export is chosen here
    top_k = 3
    games = 2000
    seed = 1000003

    [test]                             # the chosen trial played once on other fresh deals: the reported figure
    games = 2000
    seed = 2000003

    [training]                         # trials with rl stages: trained first (deals disjoint from the games)
    episodes = 10000
    envs = 1
    setup = "rl-rl"                    # optional: the setup the networks train in (here self-play), then
                                       # played in the study's setup; default: the study's setup

    [search]
    sampler = "tpe"                    # tpe (Optuna) | hyperopt (Hyperopt TPE) | random | grid (every combination)
                                       # | gp (Gaussian process) | cmaes (CMA-ES; a choice drawn at random)
    seed = 0
    pruner = "wilcoxon"                # wilcoxon (per game, common deals) | median | halving | none
    n_trials = 30
    timeout = 3600                     # seconds (optional)
    workers = 1                        # local processes: trials at once; fewer trials left share them for games
    storage = "sqlite:///mcts-hpo.db"  # default: sqlite:///<name>.db; a journal file for workers > 1
    heartbeat_interval = 10            # seconds between a running trial's heartbeats (database storages)
    grace_period = 30                  # seconds without one before the trial's worker counts as dead
    executor = "local"                 # where a trial's games run: local (the worker itself) | ray (a Ray cluster)
    ray_address = "auto"               # executor = "ray": ray.init's address (omitted: a new local Ray instance)

    [mlflow]
    tracking_uri = "sqlite:///mlflow.db"   # default: MLflow's own default
    experiment = "mcts-hpo"                # default: the study's name
    figures = true                         # Optuna's plots on the study's parent run (false: about 2 s a study less)

    [report]                           # optional: the study's section of lotr report (tuning.report)
    kind = "table"                     # table | seats | margins | bounds | best | pareto (REPORT_KINDS: its keys)
    section = "mcts-setups"            # the published experiment it is compared with (the game's Game.reproduction.published)
    title = "MCTS setups at budget 40 (Table 6.2)"
    columns = ["setup", "difficulty"]  # a row's key: setup, difficulty, search, study, or a parameter
    note = "..."                       # optional: text printed under the section (measurements made beside it)

Experiments that compare setups or game options (the thesis's tables) search
them like any other choice and usually run every combination::

    [space]
    setup = { choice = ["random-random-random", "random-mcts-mcts"] }   # instead of the top-level setup
    difficulty = { choice = ["easy", "medium", "hard"] }                # a game option, instead of a fixed one
    reduction = { choice = [true, false] }

    [search]
    sampler = "grid"                   # every combination once; n_trials defaults to their number
    pruner = "none"

With a searched setup, fixed and searched parameters apply to the setups that
have them (``budget`` is ignored by ``random-random-random``); each must fit
at least one. ``validation.top_k = 0`` skips the validation, the test and the
export (a comparison, not a search for one best agent).

The search, validation and test deals are disjoint: game i of seed s is dealt
from ``derive_seed(s, i)`` (training deals from ``derive_seed(s, 2**62 + e)``),
so the three seeds must differ, which is checked.

In a two-player game (``game = "nim"``) the setup names the tuned agent first
and its opponent second ("mcts-random"); every trial plays each deal in both
seats, or in the one ``objective.seat`` names (the validation and the test
too).

Every key is validated before anything runs; a problem is one line naming the
key, the value and what is allowed (``SpecError``). Numbers are finite (no
``nan`` or ``inf`` anywhere, ``[report]`` included) and not booleans; how much a
study runs (games, episodes, envs, trials, top_k, workers and its seconds) is
capped by ``gamecore.params.LIMITS``, which ``load_study(path, limits=False)``
(``--no-limits`` of ``gametune tune run`` and ``tune worker``) lifts.
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from pathlib import Path
from typing import Any

import gamecore
from agents.evaluation import SEATS
from agents.executors import EXECUTORS
from agents.setup import FILE_DEFAULT_GAME, Setup
from agents.specs import SpecError
from gamecore.interface import Game
from gamecore.moved import MOVED_TABLE, moved_message
from gamecore.params import LIMITS, over_cap
from tuning.pruners import PRUNERS
from tuning.report_keys import check_ablation, check_report
from tuning.samplers import SAMPLERS
from tuning.space import Domain
from tuning.storage import Liveness
from tuning.study_spec import CONTEXT, METRICS, StudySpec

SECTIONS = {
    "objective": {"metrics": ["win_rate"], "games": 200, "seed": 0, "seat": "both"},
    "validation": {"top_k": 3, "games": 2000, "seed": 1_000_003},
    "test": {"games": 2000, "seed": 2_000_003},
    "training": {"episodes": 10_000, "envs": 1, "setup": ""},
    "search": {
        "sampler": "tpe",
        "seed": 0,
        "pruner": "wilcoxon",
        "n_trials": 20,
        "timeout": None,
        "workers": 1,
        "storage": None,
        "heartbeat_interval": 10,
        "grace_period": 30,
        "executor": "local",
        "ray_address": None,
    },
    "mlflow": {"tracking_uri": None, "experiment": None, "figures": True},
}
TOP_KEYS = ("name", "game", "setup", "options", "fixed", "space", "report", *SECTIONS)  # and the game's options
POSITIVE = {"games", "episodes", "envs", "n_trials", "workers", "heartbeat_interval", "grace_period"}


def study_files(folder: str | Path) -> list[Path]:
    """The study files of a studies folder: ``<game>/*.toml`` and ``<game>/paper/*.toml`` (the paper's tables
    reproduced), or ``*.toml`` of a flat folder; an export is a folder of its own, so its files are not listed."""
    folder = Path(folder)
    found = [*folder.glob("*.toml"), *folder.glob("*/*.toml"), *folder.glob("*/paper/*.toml")]
    return sorted(path for path in found if path.name != MOVED_TABLE)


def load_study(path: str | Path, limits: bool = True) -> StudySpec:
    """Read and validate a study file; SpecError (one line) on any problem. ``limits=False`` (``--no-limits``)
    lifts the caps on how much it runs (``gamecore.params.LIMITS``)."""
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except OSError as error:
        raise SpecError(moved_message(path) or f"{path}: cannot read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{path}: bad TOML: {error}") from None
    return parse_study(data, str(path), limits)


def _section(data: dict, key: str, source: str, limits: bool = True) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise SpecError(f"{source}: {key} = {value!r} is invalid; expected a table")
    defaults = SECTIONS[key]
    for name in value:
        if name not in defaults:
            raise SpecError(f"{source}: unknown key {key}.{name}; valid: {', '.join(defaults)}")
    merged = {**defaults, **value}
    for name in defaults:
        given = merged[name]
        where = f"{source}: {key}.{name} = {given!r} is invalid"
        if name == "top_k" and (not isinstance(given, int) or isinstance(given, bool) or given < 0):
            raise SpecError(f"{where}; expected 0 (no re-evaluation) or a positive integer")
        if name in POSITIVE and (not isinstance(given, int) or isinstance(given, bool) or given < 1):
            raise SpecError(f"{where}; expected a positive integer")
        if name == "seed" and (not isinstance(given, int) or isinstance(given, bool) or not 0 <= given < 2**63):
            raise SpecError(f"{where}; expected an integer in [0, 2**63)")
        if name == "timeout" and given is not None and (
                not isinstance(given, (int, float)) or isinstance(given, bool) or not 0 < given < math.inf):
            raise SpecError(f"{where}; expected a positive finite number of seconds")  # nan too: it ran no trial
        if name in LIMITS and given is not None and (beyond := over_cap(name, given, limits)):
            raise SpecError(f"{where}; expected {beyond}")
        if name == "figures" and not isinstance(given, bool):
            raise SpecError(f"{where}; expected true or false")
        if name == "executor" and given not in EXECUTORS:
            raise SpecError(f"{where}; expected one of {', '.join(EXECUTORS)}")
        if name in ("storage", "tracking_uri", "experiment", "ray_address", "setup") and given is not None and not isinstance(
                given, str):
            raise SpecError(f"{where}; expected a string")
    return merged


def parse_study(data: dict, source: str = "study", limits: bool = True) -> StudySpec:
    """A StudySpec from a parsed study file (see the module docstring); ``limits=False`` lifts the caps."""
    if "holdout" in data:
        raise SpecError(f"{source}: [holdout] is now [validation] (top_k, games, seed: where the best is chosen) and "
                        "[test] (games, seed: where it is reported); rename it and add [test] with a fresh seed")
    try:
        game = gamecore.load(data.get("game", FILE_DEFAULT_GAME))
    except SpecError as error:
        raise SpecError(f"{source}: game: {error}") from None
    option_names = [p.name for p in game.options]
    for key in data:
        if key not in TOP_KEYS and key not in option_names:
            raise SpecError(f"{source}: unknown key {key!r}; valid: {', '.join((*TOP_KEYS, *option_names))}")
    for key in ("name", "space"):
        if key not in data:
            raise SpecError(f"{source}: missing key {key!r}")
    name = data["name"]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise SpecError(f"{source}: name = {name!r} is invalid; expected letters, digits, '_', '.', '-'")
    space_table = data["space"]
    if not isinstance(space_table, dict) or not space_table:
        raise SpecError(f"{source}: space is empty; declare at least one searched parameter")
    space = tuple(Domain.parse(name, value, f"{source}: space.{name}") for name, value in _flatten(space_table, domains=True).items())
    searched = {d.name: d for d in space if d.name in CONTEXT}
    if ("setup" in data) == ("setup" in searched):
        raise SpecError(f"{source}: setup is {'given twice' if 'setup' in data else 'missing'}; give it at the top "
                        "level or as a choice in space.setup, not both")
    if "setup" in searched and searched["setup"].kind != "choice":
        raise SpecError(f"{source}: space.setup is invalid; expected {{ choice = [...] }}")
    option_table = data.get("options", {})
    if not isinstance(option_table, dict):
        raise SpecError(f"{source}: options = {option_table!r} is invalid; expected a table of game options")
    for key in option_names:
        if key in data and key in option_table:
            raise SpecError(f"{source}: {key} is both at the top level and in [options]; keep one of them")
    option_table = option_table | {key: data[key] for key in option_names if key in data}
    searched_options = tuple(d.name for d in space if d.name in option_names)
    options = game.check_options(option_table, f"{source}: options")
    for domain in (d for d in space if d.name in searched_options):  # a game option searched: every value checked
        if domain.name in option_table:
            raise SpecError(f"{source}: {domain.name} is both fixed and in [space]; keep one of them")
        if domain.kind != "choice":
            raise SpecError(f"{source}: space.{domain.name} is invalid; expected {{ choice = [...] }}")
        for value in domain.choices:
            game.check_options({**option_table, domain.name: value}, f"{source}: space")
    options = {k: v for k, v in options.items() if k not in searched_options}
    names = searched["setup"].choices if "setup" in searched else (data["setup"],)
    setups = []
    for setup_name in names:
        if not isinstance(setup_name, str):
            expected = "a short form such as 'random-mcts-mcts'"
            raise SpecError(f"{source}: setup = {setup_name!r} is invalid; expected {expected}")
        try:
            setups.append(Setup.parse(setup_name, game))
        except SpecError as error:
            raise SpecError(f"{source}: {error}") from None
    fixed = data.get("fixed", {})
    if not isinstance(fixed, dict):
        raise SpecError(f"{source}: fixed = {fixed!r} is invalid; expected a table of parameter values")
    fixed = _flatten(fixed)
    both = next((key for key in fixed if key in {d.name for d in space}), None)
    if both is not None:
        raise SpecError(f"{source}: {both} is both in [fixed] and in [space]; keep one of them")
    if "setup" in searched:  # each value must fit some setup; each setup takes the values it has
        _check_fits(fixed, setups, f"{source}: fixed")
        setups = [s.with_params({k: v for k, v in fixed.items() if s.has_param(k)}, f"{source}: fixed") for s in setups]
    else:
        setups = [setups[0].with_params(fixed, where=f"{source}: fixed")]
    parameters = [d for d in space if d.name not in CONTEXT and d.name not in searched_options]
    _check_fits({d.name: None for d in parameters}, setups, f"{source}: space")
    for domain in parameters:  # every value of every domain must fit the setups that have it
        for value in domain.choices or (domain.low, domain.high):
            value = int(value) if domain.kind == "int" else value
            for setup in setups:
                if setup.has_param(domain.name):
                    setup.with_params({domain.name: value}, where=f"{source}: space")
    objective = _section(data, "objective", source, limits)
    metrics = objective["metrics"]
    if not isinstance(metrics, list) or not metrics or any(m not in METRICS for m in metrics) or len(set(metrics)) != len(metrics):
        raise SpecError(f"{source}: objective.metrics = {metrics!r} is invalid; expected a list of {', '.join(METRICS)}")
    if "margin" in metrics and "margin_first" not in game.metric_names:
        raise SpecError(f"{source}: objective.metrics = {metrics!r} is invalid: {game.name} has no score margin; "
                        f"expected a list of win_rate, seconds_per_game")
    for alone in ("margin", "best_window"):
        if alone in metrics and metrics != [alone]:
            raise SpecError(f"{source}: objective.metrics = {metrics!r} is invalid: {alone} is a study's only objective")
    if "best_window" in metrics and not all(setup.has_trained_agents for setup in setups):
        raise SpecError(f"{source}: objective.metrics = ['best_window'] is invalid: a setup of the study trains no "
                        "rl agent; best_window is the best moving win rate of a training")
    if objective["seat"] not in SEATS or ("seat" in data.get("objective", {}) and not game.by_seat):
        expected = f"one of {', '.join(SEATS)}" if game.by_seat else f"no seat: {game.name} is not a two-player game"
        raise SpecError(f"{source}: objective.seat = {objective['seat']!r} is invalid; expected {expected}")
    validation, test, training, search, tracking = (
        _section(data, key, source, limits) for key in ("validation", "test", "training", "search", "mlflow"))
    seeds = {"objective.seed": objective["seed"], "validation.seed": validation["seed"], "test.seed": test["seed"]}
    for (a, x), (b, y) in itertools.combinations(seeds.items(), 2):
        if x == y:
            raise SpecError(f"{source}: {a} and {b} are both {x}; the search, validation and test deals must be "
                            "disjoint: give each its own seed")
    if search["sampler"] not in SAMPLERS:
        raise SpecError(f"{source}: search.sampler = {search['sampler']!r} is invalid; expected one of {', '.join(SAMPLERS)}")
    if search["pruner"] not in PRUNERS:
        raise SpecError(f"{source}: search.pruner = {search['pruner']!r} is invalid; expected one of {', '.join(PRUNERS)}")
    if search["grace_period"] <= search["heartbeat_interval"]:
        raise SpecError(f"{source}: search.grace_period = {search['grace_period']} must exceed search.heartbeat_interval "
                        f"= {search['heartbeat_interval']}: a live worker beating every {search['heartbeat_interval']} s "
                        f"would count as dead; give e.g. grace_period = {3 * search['heartbeat_interval']}")
    if "margin" in metrics and (validation["top_k"] or search["pruner"] != "none"):
        raise SpecError(f"{source}: objective.metrics = ['margin'] needs validation.top_k = 0 and search.pruner = "
                        "'none' (validation and the pruners compare win rates)")
    given = data.get("search", {}).get("n_trials")
    n_trials = SAMPLERS[search["sampler"]].check(space, metrics, given, source)
    n_trials = search["n_trials"] if n_trials is None else n_trials
    if beyond := over_cap("n_trials", n_trials, limits):  # the sampler's own count (a grid's combinations)
        raise SpecError(f"{source}: search.n_trials = {n_trials} (the sampler's count) is invalid; expected {beyond}")
    report = check_report(data.get("report", {}), source)
    check_ablation(report, {domain.name: domain.choices or None for domain in space}, source)
    return StudySpec(
        name=name,
        setup=setups[0],
        space=space,
        metrics=tuple(metrics),
        games=objective["games"],
        seed=objective["seed"],
        validation_top_k=validation["top_k"],
        validation_games=validation["games"],
        validation_seed=validation["seed"],
        test_games=test["games"],
        test_seed=test["seed"],
        episodes=training["episodes"],
        envs=training["envs"],
        sampler=search["sampler"],
        sampler_seed=search["seed"],
        pruner=search["pruner"] if len(metrics) == 1 else "none",
        n_trials=n_trials,
        timeout=search["timeout"],
        workers=search["workers"],
        storage=search["storage"],
        tracking_uri=tracking["tracking_uri"],
        experiment=tracking["experiment"] or name,
        figures=tracking["figures"],
        source=source,
        fixed=tuple(fixed.items()),
        liveness=Liveness(search["heartbeat_interval"], search["grace_period"]),
        game=game,
        options=tuple(options.items()),
        report=report,
        seat=objective["seat"],
        searched_options=searched_options,
        executor=search["executor"],
        ray_address=search["ray_address"],
        training_setup=_training_setup(training["setup"], setups, game, source),
    )


def _training_setup(text: str, setups: list[Setup], game: Game, source: str) -> str:
    """``[training] setup``, checked: it parses, and it trains every role the study's setups train."""
    if not text:
        return ""
    where = f"{source}: training.setup = {text!r} is invalid"
    try:
        training = Setup.parse(text, game)
    except SpecError as error:
        raise SpecError(f"{where}: {error}") from None
    trains = {role for role, spec in zip(training.roles, training.agents) if spec.kind.trained}
    for setup in setups:
        missing = [role for role, spec in zip(setup.roles, setup.agents) if spec.kind.trained and role not in trains]
        if missing:
            raise SpecError(f"{where}: it trains no network for {', '.join(missing)}; expected rl there")
    return text


def _check_fits(values: dict[str, Any], setups: list[Setup], where: str) -> None:
    """Each key must be a parameter of at least one of the setups."""
    for key in values:
        if not any(setup.has_param(key) for setup in setups):
            valid = sorted({p.name for setup in setups for spec in setup.agents for p in spec.kind.params}) or ["none"]
            which = f"no role of {setups[0].short_name}" if len(setups) == 1 else "no setup"
            raise SpecError(f"{where}: {which} has parameter {key!r}; valid: {', '.join(valid)} "
                            f"(gametune agents {setups[0].game} AGENT explains each)")


def _flatten(table: dict, domains: bool = False) -> dict[str, Any]:
    """``{questing = {c = ...}}`` (a TOML sub-table) to ``{"questing.c": ...}``; domains are tables themselves."""
    flat = {}
    for key, value in table.items():
        nested = isinstance(value, dict) and (not domains or not {"int", "float", "choice"} & set(value))
        if nested:
            for inner, v in value.items():
                flat[f"{key}.{inner}"] = v
        else:
            flat[key] = value
    return flat
