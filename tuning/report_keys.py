"""What a study file's ``[report]`` table may say: the keys, their types, and the kinds of section (each drawn by
its renderer, ``tuning.report.RENDERERS``) with the keys each takes."""

from __future__ import annotations

import math
from typing import Any

from agents.specs import SpecError

# [report]: the study's section of ``lotr report`` (tuning.report), with the type of each key
REPORT_KEYS = {"kind": str, "section": str, "title": str, "order": int, "note": str, "margin": float, "columns": list,
               "reason": str, "published": dict, "exclude": dict, "best_per": list, "detail": str, "figure": dict, "values": dict,
               "curves": bool, "reference": str, "config": str, "bounds": dict, "pairs": list,
               "as_published": bool, "beside": str, "replicate": int, "by": str, "lengths": dict,
               "by_turn": bool}
REPORT_COMMON = ("kind", "section", "title", "order", "note", "margin")  # every kind's: which section, where, what
# under it, and the equivalence margin of its comparisons (points of win rate)
# each kind of section (its renderer: tuning.report.RENDERERS) and the keys it takes besides the common ones
REPORT_KINDS = {
    "table": ("columns", "reason", "published", "exclude", "best_per", "detail", "figure", "values", "curves",
              "reference", "pairs", "as_published", "beside", "replicate", "lengths"),  # our rows against the published ones
    # (replicate: the seed of the study's out-of-sample re-run, lotr tune run --replicate, shown beside it)
    "seats": ("reason", "published", "exclude", "by_turn"),  # a two-player game: each seat's rate and measures
    # (by_turn: and the first agent's lead turn by turn, the game's measure score_by_turn)
    "margins": (),  # a study whose objective is the score margin: its trials, best first
    "bounds": ("bounds",),  # ORACLE searches as upper bounds of the published rows of the setups they bound
    "best": ("config", "published", "exclude"),  # the exported agent's test figure against one published row
    "pareto": (),  # a two-objective study's Pareto front
    "ablation": ("by", "columns", "reason", "published", "exclude", "as_published"),  # one ingredient removed in turn:
    # per value of the searched option ``by`` (its first choice the whole model, each other one the same "+"-joined
    # ingredients but some), how many of the published rows are equivalent, differ, ...
    "maxima": ("columns", "published"),  # a study valued by a maximum over training windows (best_window): its top
    # trials against the published rows it selects (best first), with a bootstrap over its trials
}
REPORT_KIND = "table"  # a [report] table that names no kind


def check_report(report: Any, source: str) -> dict:
    """A study file's ``[report]`` table: known keys of the right types, finite numbers, a section, and a kind
    (``REPORT_KINDS``, ``table`` when none is named) whose keys they all are; the kind is set in the result."""
    if not isinstance(report, dict):
        raise SpecError(f"{source}: report = {report!r} is invalid; expected a table")
    for key, value in report.items():
        if key not in REPORT_KEYS:
            raise SpecError(f"{source}: unknown key report.{key}; valid: {', '.join(REPORT_KEYS)}")
        expected = REPORT_KEYS[key]
        number = expected is float and isinstance(value, int) and not isinstance(value, bool)  # margin = 3
        if not (isinstance(value, expected) or number) or (expected in (int, float) and isinstance(value, bool)):
            raise SpecError(f"{source}: report.{key} = {value!r} is invalid; expected a {REPORT_KEYS[key].__name__}")
        check_finite(value, f"{source}: report.{key}")
    if not report:
        return report
    if "margin" in report and not 0 < report["margin"] < 100:
        raise SpecError(f"{source}: report.margin = {report['margin']!r} is invalid; expected points of win rate in "
                        "(0, 100), e.g. 3 (equivalent: the 90% interval of the difference within +-3 points)")
    if "replicate" in report and not 0 <= report["replicate"] < 2**32:
        raise SpecError(f"{source}: report.replicate = {report['replicate']!r} is invalid; expected a seed in "
                        "[0, 2^32), one no study has used (e.g. 5000001)")
    kind = report.get("kind", REPORT_KIND)
    if kind not in REPORT_KINDS:
        raise SpecError(f"{source}: report.kind = {kind!r} is invalid; expected one of {', '.join(REPORT_KINDS)}")
    if "section" not in report:
        raise SpecError(f"{source}: report.section is missing; expected the name of the study's section")
    for key in report:
        if key not in REPORT_COMMON and key not in REPORT_KINDS[kind]:
            others = ", ".join(name for name, keys in REPORT_KINDS.items() if key in keys)
            raise SpecError(f"{source}: report.{key} is a key of kind {others}, not of kind = {kind!r}; "
                            f"{kind} takes {', '.join((*REPORT_COMMON, *REPORT_KINDS[kind]))}")
    columns = report.get("columns", ["setup"])
    if unknown := [key for key in report.get("lengths", {}) if key not in columns]:
        raise SpecError(f"{source}: report.lengths names {', '.join(unknown)}, not a column of report.columns "
                        f"({', '.join(columns)}); select rows by their columns' values, e.g. {{ {columns[0]} = ... }}")
    return {**report, "kind": kind}


def check_ablation(report: dict, space: dict[str, tuple | None], source: str) -> None:
    """An ablation section's ``by`` must name a searched choice (``space``: each searched name, its choices or None)
    whose choices are "+"-joined ingredients, the first the whole model and each other one a part of it."""
    if report.get("kind") != "ablation":
        return
    choices = space.get(report.get("by"))
    if choices is None:
        searched = [name for name, values in space.items() if values is not None]
        raise SpecError(f"{source}: report.by = {report.get('by')!r} is invalid; expected the searched choice whose "
                        f"values remove an ingredient each, one of: {', '.join(searched) or 'none searched'}")
    whole = set(str(choices[0]).split("+"))
    if extra := [value for value in choices if not set(str(value).split("+")) <= whole]:
        raise SpecError(f"{source}: space.{report['by']} = {extra[0]!r} adds to its first choice; an ablation's first "
                        f"choice is the whole model and every other one the same ingredients less some")


def check_finite(value: Any, where: str) -> None:
    """No NaN or infinity anywhere in ``value`` (a [report] value: its published rates, its figure's numbers)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise SpecError(f"{where} = {value!r} is invalid; expected a finite number")
    if isinstance(value, dict):
        for key, inner in value.items():
            check_finite(inner, f"{where}.{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            check_finite(inner, f"{where}[{index}]")
