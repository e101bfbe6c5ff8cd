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

The parts: ``tuning.study_results`` reads the studies (their stores, else their records), ``tuning.report_sections``
models the sections, ``tuning.report_tables`` writes each kind as markdown (``tuning.verdicts`` judges the rows),
``tuning.report_figures`` draws; this module writes the document, keeping the previous report's text for the
studies not run here.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

from gamecore.atomic import write_atomically
from gamecore.interface import imported
from tuning.report_figures import write_figures
from tuning.report_sections import sections
from tuning.report_tables import best_markdown, pareto_markdown, section_markdown
from tuning.sampler_comparison import sampler_markdown
from tuning.study_results import chosen_trial, read_study, write_record
from tuning.tracking import code_version
from tuning.verdicts import NOTE as VERDICTS_NOTE


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


EARLIER_VERDICTS = ("Kept from an earlier report, whose verdicts used an earlier rule (a row *agrees* when the two "
                    "intervals overlap), not the test above: this section's studies are not here to be judged again.")


def _judged_by_an_earlier_rule(block: list[str]) -> bool:
    """Whether a kept section's verdicts predate the test of equal rates (and it does not say so yet)."""
    text = "\n".join(block)
    judged = "*agrees*" in text or "*differs*" in text
    return judged and VERDICTS_NOTE.split(" (")[0] not in text and EARLIER_VERDICTS not in text


def _claims_by_an_earlier_rule(block: list[str]) -> bool:
    """Whether a kept best-agent section claims "above" a published rate by its interval alone, before each claim
    was a test against the published counts."""
    text = "\n".join(block)
    return "above" in text and "Holm over the claims" not in text


def write_report(study_files: list[Path], out: Path, root: Path = Path(".")) -> Path:
    """Read the studies (default local stores in ``root``); write ``out`` and its figures (``figures/`` beside it).

    A section none of whose studies was run here (no store in ``root``: run on another machine) keeps its text
    from the report already at ``out``, and so does its studies' row of the study table; a best-agent section
    whose store is not here and that the previous report lacks, names another export than its study file's, or
    claims "above" a published rate without the test, is written from its export's record (``chosen_trial``)."""
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
        if export and (export not in "\n".join(block) or _claims_by_an_earlier_rule(block)):
            return None
        return block + [EARLIER_VERDICTS, ""] if _judged_by_an_earlier_rule(block) else block

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
    chosen = {section.title: chosen_trial(section.config, runs[section.studies[0]], root)
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
    elif trained and (previous := kept("Learning curves", [n for n in trained if not runs[n].recorded])) is not None:
        # a study's record holds no learning curves: the figure is the one of the last report drawn from stores
        lines += previous
    for run in runs.values():
        title = run.spec.report.get("title", f"Win rate against time per game ({run.spec.name}, two objectives)")
        if len(run.spec.metrics) > 1 and (previous := kept(title, [run.spec.name])) is not None:
            lines += previous
        if not (run.pareto and run.trials):
            continue
        lines += pareto_markdown(run, title, figures[f"pareto-{run.spec.name}"].name)
    comparison = sampler_markdown(out.parent)
    lines += ([""] if comparison and lines[-1] else []) + comparison  # a kept section may end without a blank line
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(out, "\n".join(lines) + "\n")
    return out
