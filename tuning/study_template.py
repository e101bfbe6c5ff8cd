"""``gametune tune init``: a commented study file for a game and a setup, written from the validator's own table of
sections, keys and defaults (``tuning.study_file.SECTIONS``) and the meaning of each key (``MEANINGS``), with the
tuned agents' parameters as a search space to narrow. It is validated before it is written."""

from __future__ import annotations

import json
import tomllib
from typing import Any

import gamecore
from agents.setup import Setup
from agents.specs import agent_names
from gamecore.params import Param
from tuning.study_file import SECTIONS, parse_study

SEARCHED = 3  # parameters searched as written; the others are listed, commented out
MEANINGS = {  # every key of SECTIONS: what it means (tests/test_tuning.py checks that none is missing)
    "objective": ("how a trial is scored", {
        "metrics": 'what a trial optimises: ["win_rate"], or ["win_rate", "seconds_per_game"] (a Pareto front), '
                   'or ["margin"] (a game with scores), or ["best_window"] (rl trials: the best moving win rate over '
                   '1,000 training episodes, the thesis\'s objective)',
        "games": "deals a trial plays: games 0..games-1 of seed, the same for every trial (a two-player game plays "
                 "each deal from each seat that `seat` names: games x seats games)",
        "seed": "the seed the trials' deals are dealt from",
        "seat": "a two-player game: the tuned agent's seat, first | second | both",
    }),
    "validation": ("the top trials compared on fresh deals: the one to export is chosen here", {
        "top_k": "parameter sets compared, each by its best trial (0: no validation, test or export: a comparison, "
                 "not a search for one agent)",
        "games": "deals each of them plays",
        "seed": "their seed (differs from the objective's and the test's)",
    }),
    "test": ("the chosen trial played once on other fresh deals: the figure to report", {
        "games": "deals it plays",
        "seed": "their seed, used for this claim only",
    }),
    "training": ("trials with rl roles: their networks trained first, on deals disjoint from the games", {
        "episodes": "training games a trial",
        "envs": "games stepped together",
        "setup": 'the setup the networks train in (e.g. "rl-rl", self-play); empty: the study\'s own',
    }),
    "search": ("how trials are proposed, pruned, run and stored", {
        "sampler": "tpe | hyperopt (Hyperopt's TPE) | random | grid (every combination) | gp | cmaes",
        "seed": "the sampler's seed",
        "pruner": "wilcoxon (game by game, on common deals) | median | halving | none",
        "n_trials": "complete and pruned trials to run (a grid: its combinations)",
        "timeout": "seconds after which no new trial starts (none: no limit)",
        "workers": "local processes: trials at once",
        "storage": "the Optuna storage: a .db or .journal file, or a PostgreSQL URL (none: <name>.db here, a "
                   "journal for several workers)",
        "heartbeat_interval": "seconds between a running trial's heartbeats (database storages)",
        "grace_period": "seconds without one before the trial's worker counts as dead",
        "executor": "where a trial's games run: local | ray",
        "ray_address": "executor ray: the cluster's address (none: a new local Ray instance)",
    }),
    "mlflow": ("where the trials are logged", {
        "tracking_uri": "the MLflow store (none: MLFLOW_TRACKING_URI, else MLflow's default, ./mlflow.db)",
        "experiment": "the experiment (none: the study's name)",
        "figures": "Optuna's plots of the study (HTML and PNG) and its trials table on the parent run; false skips "
                   "them (about 2 s of a study's end: many small studies)",
    }),
}


def study_template(game_name: str, setup_text: str, test_seed: int | None = None) -> str:
    """A commented study file tuning the agents of ``setup_text`` in ``game_name`` (a two-player game's single agent
    plays the first seat against the game's first policy), its test on ``test_seed`` (default: the format's);
    SpecError (one line) for an unknown game or setup."""
    game = gamecore.load(game_name)
    if game.by_seat and setup_text in agent_names(game):
        setup_text = f"{setup_text}-{game.policies[0]}"
    setup = Setup.parse(setup_text, game)
    name = f"{game.name}-{setup.short_name}"
    lines = [f"# A study of {setup.short_name} in {game.name}, written by gametune tune init; every key is shown with",
             "# its default. Check it: gametune tune run FILE --dry-run; run it: gametune tune run FILE.",
             f"# The agents' parameters: gametune agents {game.name} AGENT.",
             f'name = "{name}"', f'game = "{game.name}"', f'setup = "{setup.short_name}"', ""]
    if game.options:
        lines += ["[options]                          # the game's options (these are the defaults)"]
        lines += [f"{option.name} = {_toml(option.default)}  # {option.help or option.valid()}"
                  for option in game.options]
        lines.append("")
    lines += ["[space]                            # searched parameters, ranges around the defaults: narrow them"]
    for count, (param, role) in enumerate(_searchable(setup)):
        prefix = "" if count < SEARCHED else "# "
        lines.append(f"{prefix}{param.name} = {_domain(param)}  # {role}: {param.help}")
    lines.append("")
    for section, (meaning, keys) in MEANINGS.items():
        if section == "training" and not setup.has_trained_agents:
            continue
        lines.append(f"[{section}]  # {meaning}")
        for key, default in SECTIONS[section].items():
            if section == "test" and key == "seed" and test_seed is not None:
                default = test_seed
            if game.by_seat or key != "seat":
                shown = f"{key} = {_toml(default)}" if default not in (None, "") else f"# {key} = ..."
                lines.append(f"{shown}  # {keys[key]}")
        lines.append("")
    text = "\n".join(lines)
    parse_study(tomllib.loads(text), f"gametune tune init --game {game.name} --setup {setup_text}")
    return text


def _searchable(setup: Setup) -> list[tuple[Param, str]]:
    """The numeric and choice parameters of the setup's agents, each once, with the first role that has it."""
    found: dict[str, tuple[Param, str]] = {}
    for role, spec in zip(setup.roles, setup.agents):
        for param in spec.kind.params:
            numeric = param.type in (int, float) and not param.choices
            if (numeric or len(param.choices) > 1 or param.type is bool) and param.name not in found:
                found[param.name] = (param, role)
    return list(found.values())


def _domain(param: Param) -> str:
    """A search domain around the parameter's default, inside its range."""
    if param.type is bool:
        return "{ choice = [true, false] }"
    if param.choices:
        return "{ choice = " + json.dumps(list(param.choices)) + " }"
    default = param.default
    if param.type is int:
        low = max(int(param.low), max(1, default // 4))
        high = min(int(param.high), max(default * 4, low + 1))
        return f"{{ int = [{low}, {high}] }}"
    if default > 0:
        low, high = max(param.low, default / 4), min(param.high, default * 4)
        return f"{{ float = [{low:.6g}, {high:.6g}], log = true }}"
    return f"{{ float = [{param.low:.6g}, {min(param.high, 1.0):.6g}] }}"


def _toml(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, bool) else str(value).lower()
