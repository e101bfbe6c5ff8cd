"""The report's sections: one published experiment each, as the ``[report]`` tables of the study files declare it.

A ``Section`` names its kind (``[report] kind``, one of
``tuning.report_keys.REPORT_KINDS``: a table of rows against published ones,
per-seat rows, score margins, ORACLE bounds, a best agent's test figure or a
Pareto front), its studies, the columns that key a row (setup, a game option,
search, study or a parameter), the published rows it is compared with and its
figure. ``column_of`` and ``published_column`` give a trial's and a published
row's value in a column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from gamecore.errors import SpecError
from gamecore.interface import Game, imported
from gamecore.published import Published
from tuning.report_keys import REPORT_KIND
from tuning.study_results import Measured, StudyRun
from tuning.study_spec import StudySpec
from tuning.verdicts import MARGIN


@dataclass(frozen=True)
class Section:
    """One experiment of the report, from the ``[report]`` tables of its studies (``tuning.study_file``)."""

    key: str  # the published experiment its rows are compared with
    game: Game  # the game of its studies, whose published results (Game.reproduction.published) it compares with
    title: str
    order: int
    studies: tuple[str, ...]
    columns: tuple[str, ...]  # a row's key
    reason: str
    published: dict  # only the published rows with these values
    exclude: dict  # not the published rows with these values
    best_per: tuple[str, ...] = ()  # one row per these columns: the best win rate
    detail: str | None = None  # a column showing what best_per chose
    figure: dict | None = None
    curves: bool = False
    reference: str = ""  # a reference column of the game's (Game.reproduction.references) set beside the published one
    config: str | None = None  # the exported configuration (the best-agent section)
    note: str = ""  # text under the section
    values: dict = field(default_factory=dict)  # per study, per setup: constant columns
    bounds: dict = field(default_factory=dict)  # an ORACLE setup's label -> the published setup it bounds
    pairs: tuple = ()  # (setup, setup) rows compared game by game on the same deals
    as_published: bool = False  # setups shown as the published setup they reproduce (Game.reproduction.label)
    beside: str = ""  # another section whose trial of the same row is shown beside ours
    by: str = ""  # kind ablation: the searched option whose choices remove an ingredient each
    lengths: dict | None = None  # the rows (by their columns' values) whose rounds by outcome are drawn
    by_turn: bool = False  # kind seats: the first agent's lead turn by turn (the game's measure score_by_turn)
    kind: str = REPORT_KIND  # how it is written (tuning.report.RENDERERS)
    margin: float = MARGIN  # the equivalence margin, points of win rate ([report] margin, declared before the run)

    def ours(self, m: Measured, values: dict | None = None) -> tuple:
        """A trial's row key: its values in this section's columns (``values``: the constant columns of the
        section the trial comes from, this one's by default)."""
        values = self.values if values is None else values
        return tuple(imported(self.game.reproduction.label)(m.label) if name == "setup" and self.as_published
                     else column_of(m, name, values.get(m.study, {})) for name in self.columns)

    def theirs(self, p: Published) -> tuple:
        return tuple(published_column(p, name) for name in self.columns)

    def published_rows(self) -> list[Published]:
        return [p for p in self.game.reproduction.published if self.compares(p)]

    def compares(self, p: Published) -> bool:
        """Whether a published row belongs to this section."""
        return (p.experiment == self.key or "experiment" in self.published) and all(
            published_field(p, k) == v for k, v in self.published.items()
        ) and not any(published_field(p, k) == v for k, v in self.exclude.items())

    def pick(self, trials: list[Measured]) -> list[Measured]:
        if not self.best_per:
            return trials
        best: dict[tuple, Measured] = {}
        for m in trials:
            key = tuple(column_of(m, name) for name in self.best_per)
            if key not in best or m.win_rate > best[key].win_rate:
                best[key] = m
        return list(best.values())


def column_of(m: Measured, name: str, values: dict | None = None):
    """A trial's value in a report column: setup, a game option (LOTR's difficulty), search (honest or ORACLE),
    study, a constant of its study's report.values for its setup, or a parameter."""
    if name == "setup":
        return m.label + (" (ORACLE)" if m.oracle else "")
    if name in m.options:
        return m.options[name]
    if name == "search":
        return "ORACLE" if m.oracle else "honest"
    if name == "study":
        return m.study
    constants = (values or {}).get(m.label, {})
    return constants[name] if name in constants else m.value(name)


def published_column(p: Published, name: str):
    """A published row's value in a report column; a parameter named without a stage prefix applies to every stage."""
    if name == "setup":
        return p.label
    if name == "search":
        return "honest"
    if name == "study":
        return p.experiment
    if name in p.options:
        return p.options[name]
    return p.params.get(name, p.params.get(name.rpartition(".")[2]))


def published_field(p: Published, name: str):
    """A published row's field, option or parameter by name (what a section's ``published`` table selects on)."""
    fields = ("source", "experiment", "label", "win_rate", "games")
    return getattr(p, name) if name in fields else p.options.get(name, p.params.get(name))


def sections(runs: dict[str, StudyRun]) -> list[Section]:
    """The report's sections: the studies' ``[report]`` tables grouped by section, in their order; the studies of a
    section declare its kind alike (else a one-line SpecError)."""
    grouped: dict[str, list[StudySpec]] = {}
    for run in sorted(runs.values(), key=lambda run: "title" not in run.spec.report):  # the titled study first
        if "section" in run.spec.report:
            grouped.setdefault(run.spec.report["section"], []).append(run.spec)
    found = []
    for key, specs in grouped.items():
        kinds = {spec.report.get("kind", REPORT_KIND): spec.source for spec in specs}
        if len(kinds) > 1:
            raise SpecError(f"section {key!r}: its studies declare different kinds: "
                            + ", ".join(f"{kind!r} ({source})" for kind, source in kinds.items()))
        table = {k: v for spec in reversed(specs) for k, v in spec.report.items()}  # the first study's keys win
        found.append(Section(
            key=key, game=specs[0].game, title=table.get("title", key), order=table.get("order", 0),
            studies=tuple(spec.name for spec in specs), columns=tuple(table.get("columns", ("setup",))),
            reason=specs[0].game.reproduction.reasons.get(table.get("reason", ""), table.get("reason", "")),
            published=table.get("published", {}),
            exclude=table.get("exclude", {}), best_per=tuple(table.get("best_per", ())), detail=table.get("detail"),
            figure=table.get("figure"), curves=any(spec.report.get("curves") for spec in specs),
            reference=table.get("reference", ""), config=table.get("config"), note=table.get("note", ""),
            values={spec.name: spec.report.get("values", {}) for spec in specs}, bounds=table.get("bounds", {}),
            pairs=tuple(tuple(pair) for pair in table.get("pairs", ())),
            as_published=table.get("as_published", False), beside=table.get("beside", ""), by=table.get("by", ""),
            lengths=table.get("lengths"), by_turn=table.get("by_turn", False),
            kind=table.get("kind", REPORT_KIND), margin=float(table.get("margin", MARGIN)),
        ))
    # a reproduction after the rest, an ablation after the table it takes apart
    return sorted(found, key=lambda section: (section.order, section.as_published, section.kind == "ablation"))


def cell_text(value) -> str:
    """A column's value as the report prints it (a flag: on, off)."""
    if isinstance(value, bool) or value is None:
        return {True: "on", False: "off", None: "-"}[value]
    return str(value)


def percent(fraction: float, sign: bool = False) -> str:
    """``fraction`` in percent with two decimals, halves rounded up (51,165 of 100,000 reads 51.17 whether it comes
    from a count or a stored rate, whose binary forms fall either side of the half); ``sign``: with + or -."""
    if not math.isfinite(fraction):
        return f"{100 * fraction:{'+' if sign else ''}.2f}"
    shown = Decimal(repr(round(100 * fraction, 9))).quantize(Decimal("0.01"), ROUND_HALF_UP)
    return f"{shown:+}" if sign else f"{shown}"


def table_order(value, game: Game) -> tuple:
    """Table order: a game option's values in the order the game declares them (LOTR's difficulties easy to hard),
    numbers by size, the rest alphabetically."""
    for option in game.options:
        if isinstance(value, str) and value in option.choices:
            return (0, option.choices.index(value), "")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (1, value, "")
    return (2, 0, str(value))
