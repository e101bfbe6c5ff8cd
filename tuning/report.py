"""``lotr report``: the finished studies next to the thesis's published numbers (``docs/results.md`` and figures).

Each section is one published experiment, as the ``[report]`` tables of the
study files declare it (its studies, title, row key, the published rows it is
compared with, figure): our trials (read from the studies' Optuna storage),
each with its win rate, 95% Wilson interval and games, beside the published
figure with its interval, and judged by a test of equal rates over the table
(``tuning.verdicts``: *agrees*, *inconclusive* where the test could not have
seen 10 points, *differs* with the known reason), or *not run* when the
study has no trial for it. Figures: a section's win rate against a parameter,
the learning curves of the studies that ask for them, and the Pareto front of
two-objective studies. A best-agent section (a study that exports its choice) reads the chosen trial from
the study's storage, else from the export's own record. Nothing here names a study: a new experiment is a study
file with its ``[report]`` table.
"""

from __future__ import annotations

import csv
import datetime
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.setup import Setup
from gamecore.interface import Game, imported
from gamecore.published import Published
from gamecore.stats import Z95, holm
from tuning.selection import exported_figures
from tuning.study_file import StudySpec
from tuning.study_results import Measured, StudyRun, read_study, write_record
from tuning.tracking import code_version
from tuning.verdicts import NOTE as VERDICTS_NOTE
from tuning.verdicts import Comparison, compare, published_count, verdicts

# ---- sections ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Section:
    """One experiment of the report, from the ``[report]`` tables of its studies (``tuning.study_file``)."""

    key: str  # the published experiment its rows are compared with
    game: Game  # the game of its studies, whose published results (Game.published) it compares with
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
    reference: str = ""  # a reference column of the game's (Game.report_references) set beside the published one
    config: str | None = None  # the exported configuration (the best-agent section)
    note: str = ""  # text under the section
    values: dict = field(default_factory=dict)  # per study, per setup: constant columns
    bounds: dict = field(default_factory=dict)  # an ORACLE setup's label -> the published setup it bounds
    pairs: tuple = ()  # (setup, setup) rows compared game by game on the same deals

    def ours(self, m: Measured) -> tuple:
        return tuple(column_of(m, name, self.values.get(m.study, {})) for name in self.columns)

    def theirs(self, p: Published) -> tuple:
        return tuple(published_column(p, name) for name in self.columns)

    def published_rows(self) -> list[Published]:
        return [p for p in self.game.published if self.compares(p)]

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
    fields = ("source", "experiment", "label", "win_rate", "games")
    return getattr(p, name) if name in fields else p.options.get(name, p.params.get(name))


def sections(runs: dict[str, StudyRun]) -> list[Section]:
    """The report's sections: the studies' ``[report]`` tables grouped by section, in their order."""
    grouped: dict[str, list[StudySpec]] = {}
    for run in sorted(runs.values(), key=lambda run: "title" not in run.spec.report):  # the titled study first
        if "section" in run.spec.report:
            grouped.setdefault(run.spec.report["section"], []).append(run.spec)
    found = []
    for key, specs in grouped.items():
        table = {k: v for spec in reversed(specs) for k, v in spec.report.items()}  # the first study's keys win
        found.append(Section(
            key=key, game=specs[0].game, title=table.get("title", key), order=table.get("order", 0),
            studies=tuple(spec.name for spec in specs), columns=tuple(table.get("columns", ("setup",))),
            reason=specs[0].game.report_reasons.get(table.get("reason", ""), table.get("reason", "")),
            published=table.get("published", {}),
            exclude=table.get("exclude", {}), best_per=tuple(table.get("best_per", ())), detail=table.get("detail"),
            figure=table.get("figure"), curves=any(spec.report.get("curves") for spec in specs),
            reference=table.get("reference", ""), config=table.get("config"), note=table.get("note", ""),
            values={spec.name: spec.report.get("values", {}) for spec in specs}, bounds=table.get("bounds", {}),
            pairs=tuple(tuple(pair) for pair in table.get("pairs", ())),
        ))
    return sorted(found, key=lambda section: section.order)


def judged(pairs: list[tuple[Measured | None, Published | None]]) -> list[tuple[list[str], str]]:
    """Each row's comparison cells (``verdicts.Comparison.cells``) and verdict, Holm's correction over the rows
    that have both a trial and a published count; *not run* without a trial."""
    comparisons = [compare(m.wins, m.games, p) if m is not None and p is not None else None for m, p in pairs]
    return [(["-"] * 3 if c is None else c.cells(), "*not run*" if m is None else "no published value" if p is None
             else found) for (m, p), c, found in zip(pairs, comparisons, verdicts(comparisons))]


COMPARISON_HEADER = ("published wins / games", "difference, points [95% CI]", "p (test)")


def _ours(m: Measured | None) -> str:
    if m is None:
        return "-"
    text = f"{100 * m.win_rate:.1f} [{100 * m.low:.1f}, {100 * m.high:.1f}] ({m.games:,})"
    if m.chosen:
        test = m.chosen["test"]
        (low, high), games = test["wilson_95"], test["games"]
        text += f"; test {100 * test['win_rate']:.1f} [{100 * low:.1f}, {100 * high:.1f}] ({games:,})"
    return text


def _theirs(p: Published | None) -> str:
    if p is None:
        return "-"
    if math.isnan(p.win_rate):
        return f"peak only ({p.source})"
    if "counts" in p.params:  # a two-player game: the first mover's wins, the second's (draws the rest)
        first, second = p.params["counts"]
        second_wins = "-" if second is None else f"{second:,}"
        return f"{p.win_rate:.2f} ± {p.interval:.2f}: {first:,} / {second_wins} ({p.source})"
    return f"{p.win_rate:g} ± {p.interval:g} ({p.source})" if p.interval is not None else f"{p.win_rate:g} ({p.source})"


def _seat_counts(m: Measured | None) -> str:
    """A two-player trial's games as the first mover's wins / the second's / draws (one seat played)."""
    if m is None or len(m.seats) != 1:
        return "-"
    [(seat, counts)] = list(m.seats.items())
    first, second = (counts["wins"], counts["losses"]) if seat == "first" else (counts["losses"], counts["wins"])
    return f"{first:,} / {second:,} / {counts['draws']:,}"


def _cell(value) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "on", False: "off", None: "-"}[value]
    return str(value)


def margin_markdown(run: StudyRun) -> list[str]:
    """A study whose objective is the score margin: its trials, best first, with their parameters (the margin's
    95% half-width from each seat's standard deviation)."""
    header = ["trial", *(d.name for d in run.spec.space), "margin, points (± 95%)", "win % [95% CI] (games)", "s/game"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for m in sorted(run.trials or [], key=lambda m: (-m.objective, m.number)):
        values = [f"{m.params[d.name]:.3g}" if isinstance(m.params[d.name], float) else _cell(m.params[d.name])
                  for d in run.spec.space]
        win = f"{100 * m.win_rate:.1f} [{100 * m.low:.1f}, {100 * m.high:.1f}] ({m.games:,})"
        spread = sum(c["games"] * c["metrics"][f"margin_sd_{seat}"] ** 2 for seat, c in m.seats.items())
        margin = f"{m.objective:+.2f} ± {1.96 * math.sqrt(spread) / max(1, m.games):.2f}"
        lines.append("| " + " | ".join([str(m.number), *values, margin, win,
                                         f"{m.seconds_per_game:.2f}"]) + " |")
    return lines


def section_markdown(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """The table of one experiment."""
    lines = [f"## {section.title}", ""]
    studies = [runs[name] for name in section.studies if name in runs]
    trials = [m for run in studies if run.trials for m in run.trials]
    scale = ", ".join(
        f"`{run.spec.name}`: " + ("not run" if run.trials is None else f"{len(run.trials)} trials")
        for run in studies
    )
    lines += [f"Studies: {scale or 'none'}.", ""]
    if studies and all(run.spec.metrics == ("margin",) for run in studies):
        return lines + [line for run in studies if run.trials for line in margin_markdown(run)] + [""]
    if section.bounds:
        return lines + bounds_markdown(section, trials)
    published = section.published_rows()
    if any("seats" in p.params for p in published):
        return lines + seats_markdown(section, trials) + ["", VERDICTS_NOTE, "",
                                                          f"Where a row differs: {section.reason}.", ""]
    by_key = {section.theirs(p): p for p in published}
    rows = []
    for m in section.pick(trials):
        rows.append((section.ours(m), m, by_key.pop(section.ours(m), None)))
    rows += [(key, None, p) for key, p in by_key.items()]  # published, not run here
    rows.sort(key=lambda row: tuple(_order(value, section.game) for value in row[0]))
    counts = any(len(m.seats) == 1 for m in trials)
    extra = ["first / second wins / draws"] if counts else []
    extra += ([f"best {section.detail}"] if section.detail else []) + ["ms/game"]
    extra += ["training s"] if any(m.training_seconds for m in trials) else []
    if section.reference:
        reference_title, reference = section.game.report_references[section.reference]
        extra.append(reference_title)
    header = [*section.columns, "ours: win % [95% CI] (games)", *extra, "published", *COMPARISON_HEADER, "verdict"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for (key, m, p), (comparison, found) in zip(rows, judged([(m, p) for _, m, p in rows])):
        cells = [_cell(k) for k in key] + [_ours(m)]
        if counts:
            cells.append(_seat_counts(m))
        if section.detail:
            cells.append(_cell(column_of(m, section.detail)) if m else "-")
        cells.append(f"{1000 * m.seconds_per_game:.2f}" if m else "-")
        if "training s" in extra:
            cells.append(f"{m.training_seconds:.0f}" if m and m.training_seconds else "-")
        if section.reference:
            cells.append(f"{reference[key[0]]:g}")
        cells += [_theirs(p), *comparison, found]
        lines.append("| " + " | ".join(cells) + " |")
    lines += pairs_markdown(section, trials)
    oracle = " ORACLE rows read the true deck order: an upper bound, not an honest agent." if any(
        m.oracle for m in trials) else ""
    lines += ["", VERDICTS_NOTE]
    if section.reason or oracle:
        lines += ["", ((f"Where a row differs: {section.reason}." if section.reason else "") + oracle).strip()]
    return lines + [""]


def pairs_markdown(section: Section, trials: list[Measured]) -> list[str]:
    """Two setups on the same deals, game by game: the difference of their win rates with its paired 95%
    interval, and the deals only one of them won."""
    by_setup = {column_of(m, "setup"): m for m in section.pick(trials) if m.outcomes is not None}
    lines = []
    for first, second in section.pairs:
        a, b = by_setup.get(first), by_setup.get(second)
        if a is None or b is None:
            continue
        n = min(a.outcomes.size, b.outcomes.size)
        diff = a.outcomes[:n].astype(float) - b.outcomes[:n].astype(float)
        half = Z95 * float(diff.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
        mean = float(diff.mean())
        verdict_text = "*agrees*" if abs(mean) <= half else "*differs*"
        lines.append(f"| {first} | {second} | {100 * mean:+.1f} [{100 * (mean - half):+.1f}, {100 * (mean + half):+.1f}]"
                     f" | {int(np.sum(diff > 0))} / {int(np.sum(diff < 0))} | {n:,} | {verdict_text} |")
    if not lines:
        return []
    return ["", "Paired on the same deals:", "", "| setup | against | difference, points [95% CI] | deals only the "
            "first / only the second won | deals | verdict |", "|---|---|---|---|---|---|", *lines]


def bounds_markdown(section: Section, trials: list[Measured]) -> list[str]:
    """ORACLE searches as upper bounds: each trial next to the published rows of the setup it bounds (the same
    stages decided, the others random) on its difficulty, naming those that lie above the bound."""
    lines = ["| ORACLE setup | budget | options | bound: win % [95% CI] (games) | bounds | published rows above "
             "the bound |", "|---|---|---|---|---|---|"]
    for m in sorted(trials, key=lambda m: (m.label, sorted(m.options.items()), m.value("budget") or 0)):
        bounded = section.bounds.get(m.label)
        rows = [p for p in section.game.published if p.label == bounded and not math.isnan(p.win_rate)
                and all(m.options.get(k) == v for k, v in p.options.items())]
        above = [p for p in rows if p.win_rate - (p.interval or 0.0) > 100 * m.high]
        named = ", ".join(f"{p.win_rate:g} ({p.source}{_row_params(p)})" for p in above)
        lines.append("| " + " | ".join([
            m.label, _cell(m.value("budget")), _options_cell(m.options), _ours(m), bounded or "-",
            f"{len(above)} of {len(rows)}" + (f": {named}" if named else ""),
        ]) + " |")
    return lines + ["", "An ORACLE search reads the true deck orders, more than any honest policy for the same "
                    "stages sees. Its rate still rises slowly with the budget, so it estimates the bound rather "
                    "than proves it: a published figure far above it at every budget (beyond both intervals, and "
                    "beyond the budgets' trend) cannot be reached on the game of RULES.md.", ""]


def _options_cell(options: dict) -> str:
    """The game options a trial played, as ``name value`` (a flag only when on); "-" when there are none."""
    return ", ".join(name if value is True else f"{name} {value}" for name, value in options.items()
                     if value is not False) or "-"


def _row_params(p: Published) -> str:
    """What tells a published row from the others of its setup: its algorithm and encoding."""
    algo, encoding = p.params.get("algo"), p.params.get("encoding")
    return (f", {algo}" if algo else "") + (f", encoding {encoding}" if encoding is not None else "")


def _measures(values: dict, keys) -> str:
    return ", ".join("-" if values.get(k) is None or math.isnan(values[k]) else f"{values[k]:.2f}" for k in keys)


def measures_verdict(measures: tuple[str, ...], metrics: dict, seat: str, games: int, theirs: dict,
                     their_games: int | None) -> str:
    """*agrees* when every published measure of the seat's agent lies within the 95% interval of the difference
    of two means (our standard deviation for both samples, ``their_games`` or ours when the source gives none);
    else *differs* naming them."""
    far = []
    for measure in measures:
        value, sd = theirs.get(measure), metrics.get(f"{measure}_sd_{seat}")
        if value is None or math.isnan(value) or sd is None or games < 2:
            continue
        half = 1.96 * sd * math.sqrt(1 / games + 1 / (their_games or games))
        if abs(metrics[f"{measure}_{seat}"] - value) > half:
            far.append(measure)
    return "*agrees*" if not far else f"*differs* ({', '.join(far)})"


def seats_markdown(section: Section, trials: list[Measured]) -> list[str]:
    """A two-player section whose published rows give each seat's win rate and measures: one row per setup and
    seat of its first agent, ours beside theirs (the agent's measures, ``Game.seat_measures``; its opponent's
    after /)."""
    by_label = {p.label: p for p in section.published_rows()}
    measures = section.game.seat_measures
    header = ["setup", "seat", "ours: win % [95% CI] (games)", "published win %", *COMPARISON_HEADER, "verdict",
              f"ours: {', '.join(measures)} / opponent's", "published", "measures", "s/game"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    rows = [(m, seat, counts, by_label.get(m.label)) for m in sorted(trials, key=lambda m: m.label)
            for seat, counts in m.seats.items()]
    comparisons = []
    for m, seat, counts, published in rows:
        theirs = published.params["seats"].get(seat) if published else None
        count = published_count(theirs["win_rate"], theirs["interval"], theirs["games"]) if theirs else None
        comparisons.append(None if count is None else Comparison(counts["wins"], counts["games"], *count))
    for (m, seat, counts, published), comparison, found in zip(rows, comparisons, verdicts(comparisons)):
        theirs = published.params["seats"].get(seat) if published else None
        other = "second" if seat == "first" else "first"
        metrics = counts.get("metrics", {})
        ours_measures = (_measures(metrics, [f"{k}_{seat}" for k in measures]) + " / "
                         + _measures(metrics, [f"{k}_{other}" for k in measures]))
        low, high = counts["wilson_95"]
        cells = [m.label, seat, f"{100 * counts['win_rate']:.1f} [{100 * low:.1f}, {100 * high:.1f}] "
                                f"({counts['games']:,})"]
        if theirs is None:
            cells += ["-", "-", "-", "-", "no published value", ours_measures, "-", "-"]
        else:
            half = theirs["interval"]
            cells += [f"{theirs['win_rate']:.2f}" + (f" ± {half:.2f} ({theirs['games']})" if half else "")
                      + f" ({published.source})", *(["-"] * 3 if comparison is None else comparison.cells()),
                      found, ours_measures,
                      _measures(theirs, measures) + " / " + _measures(theirs["opponent"], measures),
                      measures_verdict(measures, metrics, seat, counts["games"], theirs, theirs["games"])]
        cells.append(f"{m.seconds_per_game:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    missing = sorted(set(by_label) - {m.label for m in trials})
    if missing:
        lines += ["", "Published, not run here: " + ", ".join(f"{label} ({by_label[label].source})"
                                                               for label in missing) + "."]
    return lines


def _order(value, game: Game) -> tuple:
    """Table order: a game option's values in the order the game declares them (LOTR's difficulties easy to hard),
    numbers by size, the rest alphabetically."""
    for option in game.options:
        if isinstance(value, str) and value in option.choices:
            return (0, option.choices.index(value), "")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (1, value, "")
    return (2, 0, str(value))


def chosen_trial(section: Section, run: StudyRun, root: Path = Path(".")) -> Measured | None:
    """A best-agent section's chosen trial: from the study's store, else as the export (``section.config``,
    committed beside the code) records it when the store is not here, so a lost store does not take the choice
    and its figures with it."""
    best = next((m for m in run.trials or [] if m.chosen), None)
    path = root / section.config
    if best is not None or run.trials is not None or not path.is_file():
        return best
    metadata = Setup.read_mapping(path).get("metadata", {})
    chosen = exported_figures(metadata)
    if metadata.get("study") != run.spec.name or chosen is None:
        return None
    config = Setup.load(path)
    low, high = chosen["search"]["wilson_95"]
    return Measured(study=run.spec.name, number=metadata["trial"], label=config.short_name, oracle=config.is_oracle,
                    options=metadata.get("options", {}), params={}, config=config,
                    win_rate=chosen["search"]["win_rate"], low=low, high=high, games=chosen["search"]["games"],
                    seconds_per_game=math.nan, chosen=chosen)


def best_markdown(section: Section, run: StudyRun, best: Measured | None) -> list[str]:
    """A best-agent section (a study whose report names a ``config``): its chosen trial's test figure against
    the one published row its ``published`` table selects; in a two-player game, each seat's test figure against
    that row's rate of the same seat."""
    lines = [f"## {section.title}", ""]
    if best is None:
        return lines + [f"`{run.spec.name}`: not run, or its chosen trial not tested yet.", ""]
    thesis = section.published_rows()[0]
    test, validation = best.chosen["test"], best.chosen["validation"]
    win, (low, high), games = test["win_rate"], test["wilson_95"], test["games"]
    command = f"lotr eval --config {section.config} --games {games} --seed {test['seed']}"
    if test.get("seats"):
        deals = games // len(test["seats"])
        command = f"lotr eval --config {section.config} --games {deals} --seed {test['seed']} --seat {run.spec.seat}"
        if "seats" in thesis.params:  # each seat's published rate
            marks = {seat: published_count(row["win_rate"], row["interval"], row["games"])
                     for seat, row in thesis.params["seats"].items()}
        else:  # the first mover's wins and the second's, of the same games
            first, second = thesis.params["counts"]
            marks = {"first": (first, thesis.games, False), "second": None if second is None else (second, thesis.games,
                                                                                                   False)}
        claims = {seat: (counts, marks.get(seat)) for seat, counts in test["seats"].items()}
        comparison = "; ".join(
            f"{seat} seat {100 * counts['win_rate']:.2f}% [{100 * counts['wilson_95'][0]:.2f}, "
            f"{100 * counts['wilson_95'][1]:.2f}] on {counts['games']:,}: " + claim
            for (seat, (counts, _)), claim in zip(claims.items(), _claims(
                [None if mark is None else Comparison(counts["wins"], counts["games"], *mark)
                 for counts, mark in claims.values()], f"{thesis.label}'s", thesis.source)))
    else:
        [claim] = _claims([compare(round(win * games), games, thesis)], "the thesis's best", thesis.source)
        comparison = f"against the thesis's best, {_theirs(thesis)}: {claim}"
    return lines + [
        f"Study `{run.spec.name}`, trial {best.number}: `{re.sub(r' weights=[^;)]*', '', str(best.config))}`.",
        "",
        f"Test: **{100 * win:.2f}% [{100 * low:.2f}, {100 * high:.2f}] on {games:,} fresh games** (chosen on "
        f"validation, {100 * validation['win_rate']:.2f}% on {validation['games']:,} other games; search figure "
        f"{100 * best.win_rate:.1f}% on {best.games:,} games, optimistic); {comparison}. Reproduce with "
        f"`{command}`.",
        "",
    ]


def _claims(comparisons: list[Comparison | None], whose: str, source: str) -> list[str]:
    """Each claim "above the published rate": made where ours is higher and the test of equal rates rejects it
    (Holm's correction over the claims), with the difference and the p-value either way."""
    rejected = iter(holm([c.test[0] for c in comparisons if c is not None]))
    found = []
    for c in comparisons:
        if c is None:
            found.append(f"no published rate of {whose} seat")
            continue
        above = next(rejected) and c.difference > 0
        low, high = c.interval
        found.append(f"{'above' if above else 'not above'} {whose} {100 * c.their_wins / c.their_games:.2f} "
                     f"({source}; {c.their_wins:,} of {c.their_games:,}{' implied' if c.implied else ''}): "
                     f"{100 * c.difference:+.2f} points [{100 * low:+.2f}, {100 * high:+.2f}], p = {c.test[0]:.2g} "
                     f"({c.test[1]}, Holm over the claims)")
    return found


# ---- figures ----------------------------------------------------------------------------------------------------


def _figure(path: Path, draw: Callable) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 4))
    draw(axes)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(figure)
    return path


def _lines(axes, trials: list[Measured], x: str, group: Callable[[Measured], str]) -> None:
    for name in sorted({group(m) for m in trials}):
        points = sorted(((m.value(x), m) for m in trials if group(m) == name), key=lambda point: point[0])
        xs = [v for v, _ in points]
        below = [100 * (m.win_rate - m.low) for _, m in points]
        above = [100 * (m.high - m.win_rate) for _, m in points]
        axes.errorbar(xs, [100 * m.win_rate for _, m in points], yerr=[below, above], capsize=3, marker="o", label=name)


def write_figures(runs: dict[str, StudyRun], folder: Path) -> dict[str, Path]:
    """Each section's figure (win rate against a parameter), the learning curves of the studies that ask for
    them and the Pareto front of two-objective studies: those whose studies ran."""
    folder.mkdir(parents=True, exist_ok=True)
    figures = {}
    for section in sections(runs):
        trials = section.pick([m for name in section.studies for m in runs[name].trials or []])
        if section.figure and trials:
            figures[section.key] = _figure(folder / f"{section.key}.png", _draw_section(section, trials))
    trained = [m for run in runs.values() if run.spec.report.get("curves") for m in run.trials or []]
    curves = [(m, m.folder / "curve.csv") for m in trained if m.folder and (m.folder / "curve.csv").is_file()]
    if curves:
        def draw_curves(axes):
            for m, path in curves[:8]:
                with open(path) as file:
                    rows = [r for r in csv.DictReader(file) if r["moving_win_rate"]]
                points = [(int(r["episode"]), float(r["moving_win_rate"])) for r in rows]
                label = f"{m.study} {m.label} enc {m.value('encoding')}"
                axes.plot([e for e, _ in points], [100 * a for _, a in points], label=label)
            axes.set(xlabel="training episode", ylabel="moving win rate %", title="learning curves")

        figures["learning-curves"] = _figure(folder / "learning-curves.png", draw_curves)
    for run in runs.values():
        if run.pareto and run.trials:
            figures[f"pareto-{run.spec.name}"] = _figure(folder / f"pareto-{run.spec.name}.png", _draw_pareto(run))
    return figures


def _draw_section(section: Section, trials: list[Measured]) -> Callable:
    figure = section.figure
    x, lines = figure["x"], figure.get("lines", [])

    def draw(axes):
        _lines(axes, trials, x, lambda m: ", ".join(f"{name} {_cell(column_of(m, name))}" for name in lines) or "ours")
        if figure.get("published"):
            rows = sorted((published_column(p, x), p.win_rate) for p in section.published_rows())
            source = section.title.rpartition("(")[2].rstrip(")")
            axes.plot(*zip(*rows), "k--", marker="s", label=f"published ({source})")
        axes.set(xscale="log" if figure.get("log") else "linear", xlabel=figure.get("xlabel", x),
                 ylabel="win rate %", title=figure.get("title", section.title))

    return draw


def _draw_pareto(run: StudyRun) -> Callable:
    from matplotlib.ticker import NullFormatter

    def draw(axes):
        axes.scatter([1000 * m.seconds_per_game for m in run.trials], [100 * m.win_rate for m in run.trials],
                     s=14, color="0.6", label="trials")
        front = sorted(run.pareto, key=lambda m: m.seconds_per_game)
        axes.plot([1000 * m.seconds_per_game for m in front], [100 * m.win_rate for m in front], "r-o",
                  label="Pareto front")
        axes.set(xscale="log", xlabel="ms per game (one core)", ylabel="win rate %",
                 title=f"{run.spec.name} ({run.spec.setup_label}): win rate against time")
        axes.xaxis.set_minor_formatter(NullFormatter())  # the minor labels of a short log axis overlap

    return draw


# ---- the document -----------------------------------------------------------------------------------------------


def previous_report(out: Path) -> tuple[dict[str, list[str]], dict[str, str]]:
    """The report already at ``out``: its sections (lines from a ``## `` title to the next, by title) and its
    study table's rows (by study name); empty when there is none."""
    blocks: dict[str, list[str]] = {}
    rows: dict[str, str] = {}
    title = None
    for line in out.read_text().splitlines() if out.is_file() else []:
        if line.startswith("## "):
            title = line[3:]
            blocks[title] = []
        if title is not None:
            blocks[title].append(line)
        elif match := re.match(r"\| `([^`]+)` \|", line):
            rows[match.group(1)] = line
    return blocks, rows


def write_report(study_files: list[Path], out: Path, root: Path = Path(".")) -> Path:
    """Read the studies (default local stores in ``root``); write ``out`` and its figures (``figures/`` beside it).

    A section none of whose studies was run here (no store in ``root``: run on another machine) keeps its text
    from the report already at ``out``, and so does its studies' row of the study table; a best-agent section
    whose store is not here and that the previous report lacks, or names another export than its study file's,
    is written from its export's record (``chosen_trial``)."""
    runs = {}
    for path in study_files:
        run = read_study(Path(path), root, out.parent)
        if run.trials is not None and not run.recorded:
            write_record(run, out.parent)
        runs[run.spec.name] = run
    figures = write_figures(runs, out.parent / "figures")
    kept_blocks, kept_rows = previous_report(out)

    def kept(title: str, names, export: str | None = None) -> list[str] | None:
        """The previous text of a section whose studies were not run here; of a best-agent section, only while
        it names the same ``export`` (a later stage may take its file's name)."""
        block = kept_blocks.get(title)
        if block is None or any(runs[name].trials is not None for name in names):
            return None
        return None if export and export not in "\n".join(block) else block

    lines = [
        "# Results: this pipeline next to the thesis",
        "",
        f"Generated by `lotr report` on {datetime.date.today().isoformat()} (code {code_version()}) from the study "
        "files in `studies/`, run on a 2-core machine at the scale each section states (trials, games per trial, "
        "training episodes). Win rates in percent with their 95% Wilson interval and games; the thesis's with its "
        "normal half-width. " + VERDICTS_NOTE + " A section whose studies were not run where "
        "this report was generated keeps its text from the previous report (its history says when it was made).",
        "",
        "| study | trials | games per trial | training episodes | sampler |",
        "|---|---|---|---|---|",
    ]
    report_sections = sections(runs)
    chosen = {section.title: chosen_trial(section, runs[section.studies[0]], root)
              for section in report_sections if section.config}
    exported = {m.study: section.config for section in report_sections if (m := chosen.get(section.title))}
    for name, run in runs.items():
        spec = run.spec
        if run.trials is None and name in kept_rows:
            lines.append(kept_rows[name])
            continue
        episodes = f"{spec.episodes:,}" if spec.trains else "-"
        count = "not run" if run.trials is None else str(len(run.trials))
        count += " (its record; the store is not here)" if run.recorded else ""
        count = f"not here; its choice in `{exported[name]}`" if run.trials is None and name in exported else count
        count += f" (+{run.pruned} pruned)" if run.pruned else ""
        lines.append(f"| `{name}` | {count} | {spec.games:,} | {episodes} | {spec.sampler} |")
    lines.append("")
    for game in dict.fromkeys(run.spec.game for run in runs.values()):  # each game's own preamble, once
        lines += imported(game.report_preamble)(out.parent) if game.report_preamble else []
    for section in report_sections:
        if (previous := kept(section.title, section.studies, section.config)) is not None:
            lines += previous
            continue
        lines += (best_markdown(section, runs[section.studies[0]], chosen[section.title]) if section.config
                  else section_markdown(section, runs))
        lines += [section.note, ""] if section.note else []
        if section.key in figures:
            lines += [f"![{section.key}](figures/{figures[section.key].name})", ""]
    trained = [name for name, run in runs.items() if run.spec.report.get("curves")]
    if "learning-curves" in figures:
        lines += ["## Learning curves", "", "![learning curves](figures/learning-curves.png)", ""]
    elif trained and (previous := kept("Learning curves", trained)) is not None:
        lines += previous
    for run in runs.values():
        title = run.spec.report.get("title", f"Win rate against time per game ({run.spec.name}, two objectives)")
        if len(run.spec.metrics) > 1 and (previous := kept(title, [run.spec.name])) is not None:
            lines += previous
        if not (run.pareto and run.trials):
            continue
        lines += [f"## {title}", "", "| trial | win % [95% CI] (games) | ms/game | parameters |", "|---|---|---|---|"]
        for m in sorted(run.pareto, key=lambda m: m.seconds_per_game):
            params = ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in m.params.items())
            lines.append(f"| {m.number} | {_ours(m)} | {1000 * m.seconds_per_game:.2f} | {params} |")
        lines += ["", f"![Pareto front](figures/{figures[f'pareto-{run.spec.name}'].name})", ""]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    return out
