"""The report's tables: the body of each kind of section as markdown, with its comparisons and verdicts.

One function per kind (``[report] kind``, ``tuning.report.RENDERERS`` maps
each to its function), each taking the section and the studies read:
``section_markdown`` (``table``'s body: rows against the published ones, with
the pairs compared on the same deals; ``tuning.report_checks.table_section``
adds its checks), ``seats_section`` (``seats``: per-seat rows
of a two-player game), ``margins_section`` (``margins``: score margins),
``bounds_section`` (``bounds``: ORACLE bounds), ``best_section`` (``best``: a
best agent's test figure) and ``pareto_section`` (``pareto``: a two-objective
study's front). Verdicts come from ``tuning.verdicts``.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from gamecore.published import Published
from gamecore.stats import Z90, Z95
from tuning.report_by_turn import by_turn_markdown
from tuning.report_sections import Section, cell_text, column_of, percent, sections, table_order
from tuning.selection import describe
from tuning.study_results import Measured, StudyRun
from tuning.verdicts import (
    Comparison,
    Judged,
    compare,
    differing,
    holm_levels,
    judge,
    note,
    published_count,
    table_verdict,
    verdict_of,
)


def judged(pairs: list[tuple[Measured | None, Published | None]], margin: float
           ) -> tuple[list[tuple[list[str], str]], list[Judged | None]]:
    """Each row's comparison cells (``verdicts.Judged.cells``) and verdict at the equivalence ``margin``, Holm's
    correction over the rows that have both a trial and a published count (*not run* without a trial); and the
    rows' judgements, for the table's verdict."""
    comparisons = [compare(m.wins, m.games, p) if m is not None and p is not None else None for m, p in pairs]
    judgements = judge(comparisons, margin)
    rows = [(["-"] * len(COMPARISON_HEADER) if j is None else j.cells(c),
             "*not run*" if m is None else "no published value" if p is None or math.isnan(p.win_rate)
             else f"*descriptive*: theirs is {p.maximum}" if p.maximum
             else "no published count" if j is None else j.verdict)
            for (m, p), c, j in zip(pairs, comparisons, judgements)]
    return rows, judgements


COMPARISON_HEADER = ("published wins / games", "difference, points [interval at Holm's level]",
                     "90% interval (equivalence)", "p (test)")


def ours_cell(m: Measured | None) -> str:
    """A trial's win rate, interval and games (and its test figure when it is the chosen one)."""
    if m is None:
        return "-"
    text = f"{100 * m.win_rate:.1f} [{100 * m.low:.1f}, {100 * m.high:.1f}] ({m.games:,})"
    if m.chosen:
        test = m.chosen["test"]
        (low, high), games = test["wilson_95"], test["games"]
        text += f"; test {100 * test['win_rate']:.1f} [{100 * low:.1f}, {100 * high:.1f}] ({games:,})"
    return text


def theirs_cell(p: Published | None) -> str:
    """A published row's figure and source."""
    if p is None:
        return "-"
    if math.isnan(p.win_rate):  # drawn in a figure, its value not in the text
        return f"not in the text ({p.source})"
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


def studies_line(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """The section's studies with their trials; for those neither stored nor recorded here, what runs them."""
    def trials(run: StudyRun) -> str:
        return "no record" if run.trials is None else f"{len(run.trials)} trial" + "s" * (len(run.trials) != 1)

    missing = [runs[name].spec.source for name in section.studies if runs[name].trials is None]
    run_them = ["", "Not run here: " + ", ".join(f"`lotr tune run {Path(source).as_posix()}`" for source in missing)
                + " runs " + ("it" if len(missing) == 1 else "them") + "."] if missing else []
    return ["Studies: " + ", ".join(f"`{name}`: {trials(runs[name])}" for name in section.studies) + ".",
            *run_them, ""]


def _trials(section: Section, runs: dict[str, StudyRun]) -> list[Measured]:
    return [m for name in section.studies for m in runs[name].trials or []]


def margins_section(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """Kind ``margins``: each study's trials by score margin."""
    return studies_line(section, runs) + [line for name in section.studies if runs[name].trials
                                          for line in margin_markdown(runs[name]) + [""]]


def margin_markdown(run: StudyRun) -> list[str]:
    """A study whose objective is the score margin: its trials, best first, with their parameters (the margin's
    95% half-width from each seat's standard deviation)."""
    header = ["trial", *(d.name for d in run.spec.space), "margin, points (± 95%)", "win % [95% CI] (games)", "s/game"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for m in sorted(run.trials or [], key=lambda m: (-m.objective, m.number)):
        values = [f"{m.params[d.name]:.3g}" if isinstance(m.params[d.name], float) else cell_text(m.params[d.name])
                  for d in run.spec.space]
        win = f"{100 * m.win_rate:.1f} [{100 * m.low:.1f}, {100 * m.high:.1f}] ({m.games:,})"
        spread = sum(c["games"] * c["metrics"][f"margin_sd_{seat}"] ** 2 for seat, c in m.seats.items())
        margin = f"{m.objective:+.2f} ± {1.96 * math.sqrt(spread) / max(1, m.games):.2f}"
        lines.append("| " + " | ".join([str(m.number), *values, margin, win,
                                         f"{m.seconds_per_game:.2f}"]) + " |")
    return lines


def bounds_section(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """Kind ``bounds``: the ORACLE trials as upper bounds (nothing more without one)."""
    trials = _trials(section, runs)
    return studies_line(section, runs) + (bounds_markdown(section, trials) if trials else [])


def seats_section(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """Kind ``seats``: each seat's rate and measures against the published ones, judged (without a trial, the
    published rows alone); with ``by_turn``, the first agent's lead turn by turn (``tuning.report_by_turn``)."""
    trials = _trials(section, runs)
    lines = studies_line(section, runs) + seats_markdown(section, trials) + [""]
    if trials:
        lines += [note(section.margin), ""] + ([f"Where a row differs: {section.reason}.", ""] if section.reason else [])
    return lines + by_turn_markdown(section, runs)


def section_markdown(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """Kind ``table``: our rows of one experiment against the published ones (a published row we have not run
    is *not run*; without any row, no table)."""
    lines = studies_line(section, runs)
    trials = _trials(section, runs)
    by_key = {section.theirs(p): p for p in section.published_rows()}
    rows = []
    for m in section.pick(trials):
        rows.append((section.ours(m), m, by_key.pop(section.ours(m), None)))
    rows += [(key, None, p) for key, p in by_key.items()]  # published, not run here
    if not rows:
        return lines
    rows.sort(key=lambda row: tuple(table_order(value, section.game) for value in row[0]))
    counts = any(len(m.seats) == 1 for m in trials)
    extra = ["first / second wins / draws"] if counts else []
    extra += ([f"best {section.detail}"] if section.detail else []) + ["ms/game"]
    extra += ["training s"] if any(m.training_seconds for m in trials) else []
    if section.reference:
        reference_title, reference = section.game.reproduction.references[section.reference]
        extra.append(reference_title)
    if section.beside:
        others = {section.ours(m, other.values): m for other in sections(runs) if other.key == section.beside
                  for run in (runs[name] for name in other.studies) if run.trials for m in other.pick(run.trials)
                  if not m.oracle}
        extra.append(f"`{section.beside}`: win % [95% CI] (games)")
    header = [*section.columns, "ours: win % [95% CI] (games)", *extra, "published", *COMPARISON_HEADER, "verdict"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    judged_rows, judgements = judged([(m, p) for _, m, p in rows], section.margin)
    for (key, m, p), (comparison, found) in zip(rows, judged_rows):
        cells = [cell_text(k) for k in key] + [ours_cell(m)]
        if counts:
            cells.append(_seat_counts(m))
        if section.detail:
            cells.append(cell_text(column_of(m, section.detail)) if m else "-")
        cells.append(f"{1000 * m.seconds_per_game:.2f}" if m else "-")
        if "training s" in extra:
            cells.append(f"{m.training_seconds:.0f}" if m and m.training_seconds else "-")
        if section.reference:
            cells.append(f"{reference[key[0]]:g}")
        if section.beside:
            cells.append(ours_cell(others.get(key)))
        cells += [theirs_cell(p), *comparison, found]
        lines.append("| " + " | ".join(cells) + " |")
    lines += pairs_markdown(section, trials)
    oracle = " ORACLE rows read the true deck order: an upper bound, not an honest agent." if any(
        m.oracle for m in trials) else ""
    agreement = table_verdict(judgements, section.margin)
    lines += ["", *([agreement, ""] if agreement else []), note(section.margin)]
    reason = f"Where a row differs: {section.reason}." if section.reason and differing(judgements) else ""
    if reason or oracle:
        lines += ["", (reason + oracle).strip()]
    return lines + [""]


def pairs_markdown(section: Section, trials: list[Measured]) -> list[str]:
    """Two setups on the same deals, game by game: the difference of their win rates with its paired 95% interval
    (*differs* where it excludes 0, each pair at 5%) and 90% interval (*equivalent* where it lies within the
    section's margin), and the deals only one of them won."""
    by_setup = {column_of(m, "setup"): m for m in section.pick(trials) if m.outcomes is not None}
    lines = []
    for first, second in section.pairs:
        a, b = by_setup.get(first), by_setup.get(second)
        if a is None or b is None:
            continue
        n = min(a.outcomes.size, b.outcomes.size)
        diff = a.outcomes[:n].astype(float) - b.outcomes[:n].astype(float)
        spread = float(diff.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
        mean, half, half_90 = float(diff.mean()), Z95 * spread, Z90 * spread
        verdict = verdict_of(abs(mean) + half_90 <= section.margin / 100, abs(mean) > half)
        lines.append(f"| {first} | {second} | {100 * mean:+.1f} [{100 * (mean - half):+.1f}, {100 * (mean + half):+.1f}]"
                     f" | [{100 * (mean - half_90):+.1f}, {100 * (mean + half_90):+.1f}]"
                     f" | {int(np.sum(diff > 0))} / {int(np.sum(diff < 0))} | {n:,} | {verdict} |")
    if not lines:
        return []
    return ["", "Paired on the same deals (each pair tested at 5%):", "",
            ("| setup | against | difference, points [95% CI] | 90% interval (equivalence) | deals only the first / "
             "only the second won | deals | verdict |"), "|---|---|---|---|---|---|---|", *lines]


def bounds_markdown(section: Section, trials: list[Measured]) -> list[str]:
    """ORACLE searches as upper bounds: each trial next to the published rows of the setup it bounds (the same
    stages decided, the others random) on its difficulty, naming those that lie above the bound."""
    lines = [("| ORACLE setup | budget | options | bound: win % [95% CI] (games) | bounds | published rows above "
             "the bound |"), "|---|---|---|---|---|---|"]
    for m in sorted(trials, key=lambda m: (m.label, sorted(m.options.items()), m.value("budget") or 0)):
        bounded = section.bounds.get(m.label)
        rows = [p for p in section.game.reproduction.published if p.label == bounded and not math.isnan(p.win_rate)
                and all(m.options.get(k) == v for k, v in p.options.items())]
        above = [p for p in rows if p.win_rate - (p.interval or 0.0) > 100 * m.high]
        named = ", ".join(f"{p.win_rate:g} ({p.source}{_row_params(p)})" for p in above)
        lines.append("| " + " | ".join([
            m.label, cell_text(m.value("budget")), _optionscell_text(m.options), ours_cell(m), bounded or "-",
            f"{len(above)} of {len(rows)}" + (f": {named}" if named else ""),
        ]) + " |")
    return lines + ["", ("An ORACLE search reads the true deck orders, more than any honest policy for the same "
                    "stages sees. Its rate still rises slowly with the budget, so it estimates the bound rather "
                    "than proves it: a published figure far above it at every budget (beyond both intervals, and "
                    "beyond the budgets' trend) cannot be reached on the game of docs/lotr-rules.md."), ""]


def _optionscell_text(options: dict) -> str:
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
    """*no difference found* when every published measure of the seat's agent lies within the 95% interval of the
    difference of two means (our standard deviation for both samples, ``their_games`` or ours when the source gives
    none), else *differs* naming them: the measures have no declared margin, so nothing here claims they agree."""
    far = []
    for measure in measures:
        value, sd = theirs.get(measure), metrics.get(f"{measure}_sd_{seat}")
        if value is None or math.isnan(value) or sd is None or games < 2:
            continue
        half = 1.96 * sd * math.sqrt(1 / games + 1 / (their_games or games))
        if abs(metrics[f"{measure}_{seat}"] - value) > half:
            far.append(measure)
    return "*no difference found*" if not far else f"*differs* ({', '.join(far)})"


def seats_markdown(section: Section, trials: list[Measured]) -> list[str]:
    """A two-player section whose published rows give each seat's win rate and measures: one row per setup and
    seat of its first agent, ours beside theirs (the agent's measures, ``Game.reproduction.seat_measures``; its opponent's
    after /)."""
    by_label = {p.label: p for p in section.published_rows()}
    measures = section.game.reproduction.seat_measures
    header = ["setup", "seat", "ours: win % [95% CI] (games)", "published win %", *COMPARISON_HEADER, "verdict",
              f"ours: {', '.join(measures)} / opponent's", "published", "measures", "s/game"]
    rows = [(m, seat, counts, by_label.get(m.label)) for m in sorted(trials, key=lambda m: m.label)
            for seat, counts in m.seats.items()]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] if rows else []
    comparisons = []
    for _m, seat, counts, published in rows:
        theirs = published.params["seats"].get(seat) if published else None
        count = published_count(theirs["win_rate"], theirs["interval"], theirs["games"]) if theirs else None
        comparisons.append(None if count is None else Comparison(counts["wins"], counts["games"], *count))
    judgements = judge(comparisons, section.margin)
    for (m, seat, counts, published), comparison, judgement in zip(rows, comparisons, judgements):
        found = "no published count" if judgement is None else judgement.verdict
        theirs = published.params["seats"].get(seat) if published else None
        other = "second" if seat == "first" else "first"
        metrics = counts.get("metrics", {})
        ours_measures = (_measures(metrics, [f"{k}_{seat}" for k in measures]) + " / "
                         + _measures(metrics, [f"{k}_{other}" for k in measures]))
        low, high = counts["wilson_95"]
        cells = [m.label, seat, (f"{100 * counts['win_rate']:.1f} [{100 * low:.1f}, {100 * high:.1f}] "
                                f"({counts['games']:,})")]
        if theirs is None:
            cells += ["-", *["-"] * len(COMPARISON_HEADER), "no published value", ours_measures, "-", "-"]
        else:
            half = theirs["interval"]
            cells += [f"{theirs['win_rate']:.2f}" + (f" ± {half:.2f} ({theirs['games']})" if half else "")
                      + f" ({published.source})",
                      *(["-"] * len(COMPARISON_HEADER) if judgement is None else judgement.cells(comparison)),
                      found, ours_measures,
                      _measures(theirs, measures) + " / " + _measures(theirs["opponent"], measures),
                      measures_verdict(measures, metrics, seat, counts["games"], theirs, theirs["games"])]
        cells.append(f"{m.seconds_per_game:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    agreement = table_verdict(judgements, section.margin) if rows else ""
    lines += ["", agreement] if agreement else []
    missing = sorted(set(by_label) - {m.label for m in trials})
    if missing:
        lines += [""] * bool(lines) + ["Published, not run here: " + ", ".join(
            f"{label} ({by_label[label].source})" for label in missing) + "."]
    return lines


def best_section(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """Kind ``best``: the chosen trial of the section's (first) study, from its store, record or export."""
    run = runs[section.studies[0]]
    return best_markdown(section, run, next((m for m in run.trials or [] if m.chosen), None))


def best_markdown(section: Section, run: StudyRun, best: Measured | None) -> list[str]:
    """A best-agent section (a study whose report names a ``config``): its chosen trial's test figure against
    the one published row its ``published`` table selects; in a two-player game, each seat's test figure against
    that row's rate of the same seat."""
    if best is None:
        missing = "no record" if run.trials is None else "its chosen trial not tested yet"
        return [f"`{run.spec.name}`: {missing}.", ""]
    thesis = next(iter(section.published_rows()), None)  # none for a game variant the thesis did not play
    test, validation = best.chosen["test"], best.chosen["validation"]
    win, (low, high), games = test["win_rate"], test["wilson_95"], test["games"]
    command = reproduction(run, test)
    if thesis is None:
        comparison = "no published figure to compare with"
    elif test.get("seats"):
        if "seats" in thesis.params:  # each seat's published rate
            marks = {seat: published_count(row["win_rate"], row["interval"], row["games"])
                     for seat, row in thesis.params["seats"].items()}
        else:  # the first mover's wins and the second's, of the same games
            first, second = thesis.params["counts"]
            marks = {"first": (first, thesis.games, False), "second": None if second is None else (second, thesis.games,
                                                                                                   False)}
        claims = {seat: (counts, marks.get(seat)) for seat, counts in test["seats"].items()}
        comparison = "; ".join(
            f"{seat} seat {percent(counts['wins'] / counts['games'])}% [{percent(counts['wilson_95'][0])}, "
            f"{percent(counts['wilson_95'][1])}] on {counts['games']:,}: " + claim
            for (seat, (counts, _)), claim in zip(claims.items(), _claims(
                [None if mark is None else Comparison(counts["wins"], counts["games"], *mark)
                 for counts, mark in claims.values()], f"{thesis.label}'s", thesis.source)))
    elif thesis.maximum:
        comparison = (f"beside the thesis's best, {theirs_cell(thesis)}, which is {thesis.maximum}: shown, not "
                      "tested (a maximum is no sample of games)")
    else:
        [claim] = _claims([compare(round(win * games), games, thesis)], "the thesis's best", thesis.source)
        comparison = f"against the thesis's best, {theirs_cell(thesis)}: {claim}"
    return [
        f"Study `{run.spec.name}`, trial {best.number}: `{re.sub(r' weights=[^;)]*', '', str(best.config))}`.",
        "",
        (f"Test: **{percent(win)}% [{percent(low)}, {percent(high)}] on {games:,} fresh games** (chosen on "
        f"validation, {percent(validation['win_rate'])}% on {validation['games']:,} other games; search figure "
        f"{100 * best.win_rate:.1f}% on {best.games:,} games, optimistic); {comparison}. Reproduce with "
        f"`{command}`."),
        "",
        *[line for earlier in best.chosen.get("earlier_tests", [])
          for line in (f"An earlier test, replaced: {describe(earlier)}; {earlier['replaced_because']}.", "")],
    ]


def reproduction(run: StudyRun, test: dict | None) -> str:
    """What plays a chosen trial's ``test`` again: the export its study's ``[report] config`` names, on the same
    deals and seats (``lotr eval --config``), or the study run again where it keeps no export or no test."""
    config = run.spec.report.get("config")
    if not config or test is None:
        return f"lotr tune run {Path(run.spec.source).as_posix()}"
    flags = option_flags(run.spec.game, dict(run.spec.options))
    if test.get("seats"):
        deals = test["games"] // len(test["seats"])
        return f"lotr eval --config {config}{flags} --games {deals} --seed {test['seed']} --seat {run.spec.seat}"
    return f"lotr eval --config {config}{flags} --games {test['games']} --seed {test['seed']}"


def option_flags(game, options: dict) -> str:
    """The command-line flags of the game options that differ from their defaults (`` --full-scenario``)."""
    flags = ""
    for option in game.options:
        value = options.get(option.name, option.default)
        if value == option.default:
            continue
        if option.shorthand:
            flags += f" {option.flag}" if option.type is bool else f" {option.flag} {value}"
        else:
            flags += f" --option {option.name}={str(value).lower() if option.type is bool else value}"
    return flags


def _claims(comparisons: list[Comparison | None], whose: str, source: str) -> list[str]:
    """Each claim "above the published rate": made where the interval of the difference at the level Holm's
    correction over the claims gives it lies above 0, with that interval and the p-value either way."""
    levels = iter(holm_levels([c.test[0] for c in comparisons if c is not None]))
    found = []
    for c in comparisons:
        if c is None:
            found.append(f"no published rate of {whose} seat")
            continue
        level = next(levels)
        low, high = c.interval(level)
        found.append(f"{'above' if low > 0 else 'not above'} {whose} {percent(c.their_wins / c.their_games)} "
                     f"({source}; {c.their_wins:,} of {c.their_games:,}{' implied' if c.implied else ''}): "
                     f"{percent(c.difference, sign=True)} points [{percent(low, sign=True)}, {percent(high, sign=True)}] "
                     f"({100 * (1 - level):.2f}%), p = {c.test[0]:.2g} ({c.test[1]}, Holm over the claims)")
    return found


def pareto_section(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """Kind ``pareto``: the Pareto front of the section's (first) study, its trials by time per game with their
    parameters."""
    run = runs[section.studies[0]]
    lines = studies_line(section, runs)
    if not run.pareto:
        return lines
    lines += ["| trial | win % [95% CI] (games) | ms/game | parameters |", "|---|---|---|---|"]
    names = [d.name for d in run.spec.space]  # the space's order, whether the trials come from a store or a record
    for m in sorted(run.pareto, key=lambda m: m.seconds_per_game):
        shown = sorted(m.params.items(), key=lambda item: names.index(item[0]) if item[0] in names else len(names))
        params = ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {cell_text(v)}" for k, v in shown)
        lines.append(f"| {m.number} | {ours_cell(m)} | {1000 * m.seconds_per_game:.2f} | {params} |")
    return lines + [""]
