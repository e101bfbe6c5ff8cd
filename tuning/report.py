"""``lotr report``: the finished studies next to the published numbers (``docs/results.md`` and figures).

Each section is one published experiment, as the ``[report]`` tables of the
study files declare it: its kind (``RENDERERS``: how it is written), its
studies, title, row key, the published rows it is compared with, figure. Our
trials, each with its win rate, 95% Wilson interval and games, stand beside
the published figure with its interval, judged by an equivalence test at the
margin the study file declares and a difference test with Holm's correction
over the table (``tuning.verdicts``: *equivalent*, *differs*, *equivalent,
small difference*, *inconclusive*), or *not run* where no trial of ours has the
row. Nothing here names a study: a new experiment is a
study file with its ``[report]`` table.

The report is a function of what the repository holds: each study's record
(``records/<name>.json`` beside the report), which its store refreshes first
where the store is here, or, with neither, what its export records of its
chosen trial (then written as its record); never an earlier report. So the
same commit writes the same report, byte for byte, on any machine, its figures
too. A study with none of them says "no record".

The headline table (``tuning.headline``) opens the document, and its copy in the README beside ``docs/`` is
rewritten with it.

The parts: ``tuning.study_results`` reads the studies, ``tuning.report_sections`` models the sections,
``tuning.report_tables`` writes each kind's body (``tuning.verdicts`` judges the rows), ``tuning.report_figures``
draws; this module maps each kind to them and writes the document.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gamecore.atomic import write_atomically
from gamecore.interface import Game, imported
from tuning.headline import HEADLINES, headline_lines, refresh_readme
from tuning.report_by_turn import by_turn_figure
from tuning.report_checks import ablation_section, table_section
from tuning.report_figures import curves_figure, pareto_figure, table_figures
from tuning.report_maxima import maxima_figures, maxima_section
from tuning.report_sections import Section, sections
from tuning.report_tables import (
    best_section,
    bounds_section,
    margins_section,
    pareto_section,
    seats_section,
)
from tuning.sampler_comparison import sampler_markdown
from tuning.study_results import StudyRun, read_study, write_record
from tuning.verdicts import JUDGED_HEADING, JUDGED_LINK, how_rows_are_judged


@dataclass(frozen=True)
class Renderer:
    """How one kind of section is written: its body (``markdown(section, runs)``, the lines under its title) and,
    for the kinds that draw them, its figures (``figures(section, runs, folder)``: the files drawn)."""

    markdown: Callable[[Section, dict[str, StudyRun]], list[str]]
    figures: Callable[[Section, dict[str, StudyRun], Path], list[Path]] | None = None


# a section's kind (its studies' ``[report] kind``; the keys each takes: tuning.report_keys.REPORT_KINDS)
RENDERERS: dict[str, Renderer] = {
    "table": Renderer(table_section, table_figures),
    "seats": Renderer(seats_section, by_turn_figure),
    "margins": Renderer(margins_section),
    "bounds": Renderer(bounds_section),
    "best": Renderer(best_section),
    "pareto": Renderer(pareto_section, pareto_figure),
    "ablation": Renderer(ablation_section),
    "maxima": Renderer(maxima_section, maxima_figures),
}


def game_title(game: Game) -> str:
    """The game's name as its one-line description (``Game.help``) begins it, up to the first comma; else its
    short name."""
    return game.help.partition(",")[0] or game.name


def _trial_count(run: StudyRun) -> str:
    """The study table's trials cell: how many complete (and pruned) trials its record holds."""
    if run.trials is None:
        return "no record"
    if run.export:
        return f"its chosen trial alone, from its export `{run.export}`"
    return f"{len(run.trials)}" + (f" (+{run.pruned} pruned)" if run.pruned else "")


def _code_versions(run: StudyRun) -> str:
    """The code versions that ran the study's recorded trials (in trial order), "-" where its record keeps none."""
    return ", ".join(dict.fromkeys(m.code_version for m in run.trials or [] if m.code_version)) or "-"


def header(runs: dict[str, StudyRun], report_sections: list[Section]) -> list[str]:
    """The title (the games of the sections in their order, then those of studies without one), how the report is
    made, and the study table."""
    games = list(dict.fromkeys(game_title(game) for game in [*(section.game for section in report_sections),
                                                             *(run.spec.game for run in runs.values())]))
    named = ", ".join(games[:-1]) + " and " + games[-1] if len(games) > 1 else "".join(games)
    lines = [
        f"# Results: this pipeline next to the published studies of {named}",
        "",
        ("Generated by `lotr report` from the study files in `studies/` and their records in `records/` beside this "
        "report (a study's store, where it is present, rewrites its record first; a study with neither keeps what "
        "its export records of its chosen trial), never from an earlier report: the same records give the same "
        "text and figures on any machine. The studies ran on a 2-core machine at the scale each section states "
        "(trials, games per trial, training episodes), with the code versions the study table gives where their "
        "records keep them. Win rates in percent with their 95% Wilson interval and games; the published ones with "
        "their normal half-width. Rows compared with published ones are judged by an equivalence test at the "
        "margin their study file declares before the run and a difference test with Holm's correction "
        f"(`tuning/verdicts.py`; {JUDGED_LINK}, below the study table)."),
        "",
        "| study | trials | games per trial | training episodes | sampler | code |",
        "|---|---|---|---|---|---|",
    ]
    for name, run in runs.items():
        spec = run.spec
        episodes = f"{spec.episodes:,}" if spec.trains else "-"
        lines.append(f"| `{name}` | {_trial_count(run)} | {spec.games:,} | {episodes} | {spec.sampler} | "
                     f"{_code_versions(run)} |")
    return lines + ["", f"## {JUDGED_HEADING}", "", how_rows_are_judged(), ""]


def section_lines(section: Section, runs: dict[str, StudyRun], figures: Path) -> list[str]:
    """One section: its title, its kind's body, its note, its figure (drawn into ``figures``)."""
    renderer = RENDERERS[section.kind]
    lines = [f"## {section.title}", "", *renderer.markdown(section, runs)]
    lines += [section.note, ""] if section.note else []
    drawn = renderer.figures(section, runs, figures) if renderer.figures else []
    return lines + [line for path in drawn for line in (f"![{path.stem}](figures/{path.name})", "")]


def write_report(study_files: list[Path], out: Path, root: Path = Path(".")) -> Path:
    """Read the studies (default local stores in ``root``, records in ``records/`` beside ``out``); write each
    study read from its store or its export as its record, then ``out`` and its figures (``figures/`` beside
    it)."""
    folder = out.parent
    runs = {}
    for path in study_files:
        run = read_study(Path(path), root, folder)
        replicas = [read_study(Path(path), root, folder, replicate=True)] if run.spec.replicate_seed is not None else []
        for read in (run, *(replica for replica in replicas if replica.trials is not None)):
            if read.trials is not None and not read.recorded:
                write_record(read, folder)
            runs[read.spec.name] = read
    report_sections = sections(runs)
    headline = headline_lines(runs)
    lines = header(runs, report_sections)
    lines[2:2] = headline  # the headline table opens the report (tuning.headline)
    for game in dict.fromkeys(run.spec.game for run in runs.values()):  # each game's own preamble, once
        lines += imported(game.reproduction.preamble)(folder) if game.reproduction.preamble else []
    for section in report_sections:
        lines += section_lines(section, runs, folder / "figures")
    if curves := curves_figure(runs, folder / "figures"):
        lines += ["## Learning curves", "", f"![learning curves](figures/{curves.name})", ""]
    lines += sampler_markdown(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_atomically(out, "\n".join(lines) + "\n")
    if all(row.study in runs for row in HEADLINES):  # the whole table: its copy in the README beside docs/ too
        refresh_readme(folder.parent / "README.md", headline)
    return out
