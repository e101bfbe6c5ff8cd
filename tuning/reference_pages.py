"""The generated reference pages of the documentation: the study-file reference (``docs/study-file.md``), written
from the validator's own tables, so that the page lists exactly the keys ``tuning.study_file`` accepts with the
defaults it fills in; and every agent's parameters (``docs/agent-parameters.md``), from the agents' own
declarations, as ``gametune agents GAME AGENT`` prints them.

The sources: ``tuning.study_file.TOP_KEYS`` and ``SECTIONS`` (every key of every section, and its default),
``tuning.study_template.MEANINGS`` (what each section key means, as ``gametune tune init`` writes it beside the
key), ``tuning.report_keys`` (the ``[report]`` keys and the kinds of section that take them), the samplers,
pruners, metrics and executors the validator accepts, the caps of ``gamecore.params.LIMITS``, and the options of
each game shipped in this repository. The meanings of the top-level and ``[report]`` keys are ``TOP_MEANINGS``
and ``REPORT_MEANINGS`` below (``tests/test_docs.py`` checks that they cover the validator's keys, and that the
committed page is what ``study_file_reference()`` writes).

``python -m tuning.reference_pages`` writes both pages again (``tests/test_docs.py`` fails while either differs).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import gamecore
from gamecore.atomic import write_atomically
from gamecore.params import LIMITS
from tuning.report_keys import REPORT_COMMON, REPORT_KEYS, REPORT_KIND, REPORT_KINDS
from tuning.study_file import SECTIONS, TOP_KEYS
from tuning.study_template import MEANINGS
from tuning.verdicts import MARGIN

DOCS = Path(__file__).resolve().parent.parent / "docs"

TOP_MEANINGS = {  # every key of TOP_KEYS that is not a section of SECTIONS: (required?, meaning)
    "name": (True, ("the study's name: its Optuna study, its stores' file names (`<name>.db`, `<name>.journal`), its "
                   "MLflow experiment and registered model, its record `docs/records/<name>.json`; letters, digits, "
                   "`_`, `.`, `-`")),
    "game": (False, "the game (`gametune --help` lists them); default `lotr`"),
    "setup": (True, ("the setup every trial starts from, in short form (`random-mcts-mcts`, `mcts-dp`); or, instead, "
                    "a choice in `[space]` (`setup = { choice = [...] }`)")),
    "options": (False, ("the game's options ([below](#game-options)); a game option may also be written at the top level "
                       "(`difficulty = \"hard\"`), not both")),
    "fixed": (False, ("parameters set for every trial: `budget` (every role whose agent has it) or `questing.budget` "
                     "(one role; also as a TOML sub-table `[fixed.questing]`)")),
    "space": (True, "the searched parameters, each a domain ([below](#space)); also the setup and game options as choices"),
    "report": (False, "the study's section of `lotr report` (`docs/results.md`; [below](#report))"),
}

REPORT_MEANINGS = {  # every key of tuning.report_keys.REPORT_KEYS
    "kind": "how the section is written: one of the kinds below",
    "section": "the section's key: the published experiment its rows are compared with (the game's `Game.reproduction.published`)",
    "title": "the section's title",
    "order": "where the section stands among the others (smaller first)",
    "note": "text printed under the section (measurements made beside the study)",
    "margin": "the equivalence margin of its comparisons, points of win rate, declared before the run",
    "columns": "what keys a row: `setup`, a game option, `search` (honest or ORACLE), `study`, or a parameter",
    "reason": "why a row may differ (a key of the game's `report_reasons`, or the text itself)",
    "published": "only the published rows with these values",
    "exclude": "not the published rows with these values",
    "best_per": "one row per value of these columns: the best win rate",
    "detail": "a column showing what `best_per` chose",
    "figure": "the figure drawn under the table",
    "values": "per study, per setup: constant columns",
    "curves": "draw the learning curves of its trained trials",
    "reference": "a reference column of the game's (`Game.reproduction.references`) beside the published one",
    "config": "the export of the study's chosen trial (a path from the repository's root)",
    "bounds": "an ORACLE setup's label and the published setup it bounds",
    "pairs": "pairs of setups compared game by game on the same deals",
    "as_published": "show the setups as the published setup they reproduce",
    "beside": "another section whose trial of the same row is shown beside ours",
    "replicate": "the seed of the study's out-of-sample re-run, declared before it runs (`lotr tune run FILE "
                 "--replicate`); the section shows both runs' verdicts side by side",
    "lengths": "draw the rounds each game of the rows it selects lasted, by outcome (a table of column values, "
               "e.g. { difficulty = \"hard\" }; {} for every row; the game's measure rounds_by_outcome)",
    "by_turn": "kind seats: the first agent's lead over its opponent turn by turn, each seat, drawn and tabled "
               "(the game's measure score_by_turn: Carcassonne's with the option by_turn)",
    "by": "kind ablation: the searched option whose first choice is the whole model and each other choice the "
          "same `+`-joined ingredients less some",
}

KIND_MEANINGS = {  # every kind of tuning.report_keys.REPORT_KINDS
    "table": "our rows against the published ones, judged",
    "seats": "a two-player game: each seat's rate and measures against the published ones",
    "margins": "a study whose objective is the score margin: its trials, best first",
    "bounds": "ORACLE searches as upper bounds of the published rows of the setups they bound",
    "best": "the exported agent's test figure against one published row",
    "pareto": "a two-objective study's Pareto front",
    "ablation": "the published rows judged again with one ingredient of a model removed at a time: a line per "
                "ingredient with its rows equivalent, differing, inconclusive",
    "maxima": "a study valued by the best window of its trainings (`best_window`): its top trials against the "
              "published rows `published` selects, best first, with a bootstrap interval of its maximum",
}


def shipped_games() -> list[str]:
    """The games of this repository's ``<name>_sim`` packages (not plug-ins installed beside it), by name."""
    root = Path(__file__).resolve().parent.parent
    return sorted(path.parent.name.removesuffix("_sim") for path in root.glob("*_sim/game.py"))


def _value(value: Any) -> str:
    """A default as it is written in a study file (TOML); none where the key has no default."""
    if value is None or value == "":
        return "none"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{json.dumps(value)}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def study_file_reference() -> str:
    """The page: every key of a study file with its default and meaning (see the module docstring)."""
    from agents.executors import EXECUTORS
    from tuning.pruners import PRUNERS
    from tuning.samplers import SAMPLERS
    from tuning.study_spec import METRICS

    lines = [
        "# Study-file reference",
        "",
        "<!-- Generated by `python -m tuning.reference_pages` from the validator's own tables; do not edit. -->",
        "",
        ("A study file is TOML. This page is written from the tables the validator itself reads "
        "(`tuning.study_file.SECTIONS` and `TOP_KEYS`, the meanings `gametune tune init` writes, "
        "`tuning.report_keys`), and a test fails when the two disagree: every key is here, with the default the "
        "validator fills in. `gametune tune init --game GAME --setup SETUP` writes a file with every key and its "
        "meaning; `gametune tune run FILE --dry-run` checks one and prints what it resolves to. A problem is one line "
        "naming the key, the value and what is allowed (exit code 2)."),
        "",
        "## Top-level keys",
        "",
        "| key | required | meaning |",
        "|---|---|---|",
    ]
    for key in TOP_KEYS:
        if key in SECTIONS:
            lines.append(f"| `[{key}]` | no | {_cell(MEANINGS[key][0])} ([below](#{key})) |")
        else:
            required, meaning = TOP_MEANINGS[key]
            shown = f"`[{key}]`" if key in ("options", "fixed", "space", "report") else f"`{key}`"
            lines.append(f"| {shown} | {'yes' if required else 'no'} | {_cell(meaning)} |")
    lines += [
        "",
        "## `[space]`",
        "",
        ("Each searched parameter is an inline table; its name is a parameter of the setup's agents (`budget`: every "
        "role whose agent has it; `questing.budget`: one role), `setup` (a choice of setups) or a game option "
        "(a choice of values):"),
        "",
        "| domain | values |",
        "|---|---|",
        "| `{ int = [low, high] }` | integers from low to high; optional `step` (default 1) or `log = true` |",
        "| `{ float = [low, high] }` | numbers from low to high; optional `step` or `log = true` |",
        "| `{ choice = [a, b, ...] }` | one of the values (strings, numbers or booleans) |",
        "",
        ("Every value of every domain must fit at least one of the setups (checked before anything runs). "
        "`gametune agents GAME AGENT` lists an agent's parameters with their types, defaults and valid values "
        "([agent parameters](agent-parameters.md))."),
        "",
    ]
    accepted = {
        ("objective", "metrics"): ", ".join(f"`{m}` ({direction})" for m, direction in METRICS.items()),
        ("search", "sampler"): ", ".join(f"`{name}`" for name in SAMPLERS),
        ("search", "pruner"): ", ".join(f"`{name}`" for name in PRUNERS),
        ("search", "executor"): ", ".join(f"`{name}`" for name in EXECUTORS),
    }
    for section, defaults in SECTIONS.items():
        meaning, keys = MEANINGS[section]
        lines += [f"## `[{section}]`", "", meaning[0].upper() + meaning[1:] + ".", "", "| key | default | meaning |",
                  "|---|---|---|"]
        for key, default in defaults.items():
            text = keys[key]
            if (section, key) in accepted:
                text += f" (accepted: {accepted[section, key]})"
            if key in LIMITS:
                text += f"; at most {LIMITS[key]:,} unless `--no-limits`"
            lines.append(f"| `{key}` | {_value(default)} | {_cell(text)} |")
        lines.append("")
    lines += [
        "## `[report]`",
        "",
        f"The study's section of the report (`lotr report`, `docs/results.md`). Optional; without `kind` a section is a `{REPORT_KIND}`. The keys every kind takes: "
        + ", ".join(f"`{key}`" for key in REPORT_COMMON) + f" (`margin` defaults to {MARGIN:g} points).",
        "",
        "| key | type | kinds | meaning |",
        "|---|---|---|---|",
    ]
    for key, kind in REPORT_KEYS.items():
        kinds = "every kind" if key in REPORT_COMMON else ", ".join(
            f"`{name}`" for name, keys in REPORT_KINDS.items() if key in keys)
        lines.append(f"| `{key}` | {kind.__name__} | {kinds} | {_cell(REPORT_MEANINGS[key])} |")
    lines += ["", "| kind | what the section shows |", "|---|---|"]
    lines += [f"| `{kind}` | {_cell(KIND_MEANINGS[kind])} |" for kind in REPORT_KINDS]
    lines += ["", "## Game options", "",
              ("Under `[options]` (or at the top level), per game; omitted, an option keeps its default. A game "
              "option may be searched too: `difficulty = { choice = [\"easy\", \"hard\"] }` in `[space]`."), ""]
    for name in shipped_games():
        game = gamecore.load(name)
        lines += [f"### {name}", ""]
        if not game.options:
            lines += ["No options.", ""]
            continue
        lines += ["| option | default | valid values | meaning |", "|---|---|---|---|"]
        for option in game.options:
            lines.append(f"| `{option.name}` | {_value(option.default)} | {_cell(option.valid())} | "
                         f"{_cell(option.help or '-')} |")
        lines.append("")
    caps = ", ".join(f"`{key}` {value:,}" for key, value in LIMITS.items())
    lines += ["## Caps", "",
              (f"How much a study runs is capped (`gamecore.params.LIMITS`: {caps}), so that a mistyped number does "
              "not allocate or fork that much; `--no-limits` of `gametune tune run`, `tune worker` and `tune retest` lifts the caps."),
              "", "## Rules checked across keys", "",
              ("- `[objective] seed`, `[validation] seed` and `[test] seed` differ: the search, validation and test "
              "deals are disjoint (deal *i* of seed *s* is dealt from `derive_seed(s, i)`, training deals from "
              "`derive_seed(s, 2**62 + e)`)."),
              ("- A parameter is either fixed or searched, not both; a game option is given once (top level or "
              "`[options]`)."),
              ("- `metrics = [\"margin\"]` (a game with scores) is a study's only objective and needs "
              "`validation.top_k = 0` and `search.pruner = \"none\"`."),
              ("- `metrics = [\"best_window\"]` is a study's only objective, for setups that train an rl agent; a "
               "training that diverges fails its trial with the reason, and the study goes on."),
              ("- `objective.seat` only in a two-player game; a two-player trial plays each deal from each seat it "
              "names (`both`: games x 2 games)."),
              "- `[training] setup` must train every role the study's setups train.",
              "- Numbers are finite (no `nan` or `inf`, in `[report]` too) and not booleans.",
              ""]
    return "\n".join(lines)


def agent_parameters_page() -> str:
    """Every agent of every game shipped here with its parameters: type, default, valid values and meaning."""
    from agents.catalogue import catalogue, shown
    from agents.specs import agent_kinds

    lines = ["# Agent parameters", "",
             "<!-- Generated by `python -m tuning.reference_pages` from the agents' own declarations; do not edit. -->",
             "", ("Every agent of every game shipped here, with its parameters as `gametune agents GAME AGENT` prints "
             "them. A parameter is set in a configuration file (`[questing]` `budget = 400`), on the command line "
             "(`--set budget=400`, `--set questing.budget=400`) or searched by a study (`[space]`); an unknown name "
             "or a value out of range is a one-line error naming this table. What the agents are: "
             "[agents and setups](agents.md), [learning agents](learning.md)."), ""]
    for name in shipped_games():
        lines += [f"## {name}", "", "```text", f"$ gametune agents {name}", catalogue(name), "```", ""]
        for agent, kind in agent_kinds(name).items():
            text = kind.help or agent
            lines += [f"### {name}: {agent}", "", _cell(text[0].upper() + text[1:]).rstrip(".") + "." + (
                f" Decides at {', '.join(kind.stages)}." if kind.stages else ""), ""]
            if not kind.params:
                lines += ["No parameters.", ""]
                continue
            lines += ["| parameter | type | default | valid values | meaning |", "|---|---|---|---|---|"]
            lines += [f"| `{p.name}` | {p.type.__name__} | `{shown(p.default)}` | {_cell(p.valid())} | "
                      f"{_cell(p.help or '-')} |" for p in kind.params]
            lines.append("")
    return "\n".join(lines)


PAGES = {"study-file.md": study_file_reference, "agent-parameters.md": agent_parameters_page}


def main(argv: list[str] | None = None) -> int:
    """Write the pages again into ``docs/`` (or the folder given)."""
    argv = sys.argv[1:] if argv is None else argv
    folder = Path(argv[0]) if argv else DOCS
    for page, written in PAGES.items():
        write_atomically(folder / page, written() + "\n")
        print(f"wrote {folder / page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
