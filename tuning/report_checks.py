"""Checks of a table's verdicts: the same studies on a fresh seed (``replicate_markdown``: each study's
``[report] replicate``, run by ``lotr tune run --replicate``), the rows that are one measurement shown in two
tables (``same_runs_markdown``) and the published rows judged again with one ingredient of the model removed at
a time (``ablation_section``: kind ``ablation``)."""

from __future__ import annotations

import json

from tuning.report_sections import Section, cell_text, column_of, sections, table_order
from tuning.report_tables import judged, ours_cell, section_markdown, studies_line
from tuning.study_results import StudyRun
from tuning.study_spec import replicate_name
from tuning.verdicts import note, table_verdict


def table_section(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """Kind ``table``: our rows against the published ones (``report_tables.section_markdown``), the rows that are
    a measurement of an earlier table, and the same rows on the studies' out-of-sample replicates where they
    declare one."""
    return section_markdown(section, runs) + same_runs_markdown(section, runs) + replicate_markdown(section, runs)


def same_runs_markdown(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """The rows of this table that are the same configuration, on the same deals, as a row of an earlier table:
    one measurement shown twice, to be counted once."""
    def played(m) -> str:
        spec = runs[m.study].spec
        return json.dumps([m.config.to_mapping(), m.options, spec.seed, spec.seat, m.games], sort_keys=True,
                          default=str)

    earlier = {}
    for other in sections(runs):
        if other.key == section.key:
            break
        for m in (m for name in other.studies for m in other.pick(runs[name].trials or [])):
            earlier.setdefault(played(m), (other, m))
    shared = []
    for m in (m for name in section.studies for m in section.pick(runs[name].trials or [])):
        if (found := earlier.get(played(m))) is not None:
            other, twin = found
            row, twin_row = (" / ".join(cell_text(k) for k in key) for key in (section.ours(m), other.ours(twin)))
            shared.append(f"{row} is {twin_row} of *{other.title}*")
    if not shared:
        return []
    return [(f"Counted once: the same configuration on the same deals as a row above, one measurement shown twice "
            f"({'; '.join(shared)})."), ""]


def replicate_markdown(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """The section's rows that have a published figure, on its studies' out-of-sample replicates (``[report]
    replicate``, the same studies run again unchanged on a fresh seed) beside the first runs: each row's verdict on
    both, and those that changed."""
    replicated = [(name, runs.get(replicate_name(name, runs[name].spec.replicate_seed))) for name in section.studies
                  if runs[name].spec.replicate_seed is not None]
    if not replicated:
        return []
    seeds = ", ".join(f"`{name}`: seed {runs[name].spec.seed} and {runs[name].spec.replicate_seed}"
                      for name, _ in replicated)
    searched = [name for name, _ in replicated if runs[name].spec.sampler != "grid"]
    title = (f"Out of sample: the same studies run again unchanged on a fresh seed, declared in the study file "
             f"before the run ({seeds})" + (f"; {', '.join(f'`{name}`' for name in searched)} searches, so its "
                                            "replicate is its whole search again on the fresh deals and its row the "
                                            "best found there" if searched else ""))
    if all(replica is None for _, replica in replicated):
        return [f"{title}: not run yet.", ""]
    first = {section.ours(m): m for m in section.pick([m for name in section.studies for m in runs[name].trials or []])}
    origin = {replica.spec.name: name for name, replica in replicated if replica is not None}
    again = {section.ours(m, {m.study: section.values.get(origin[m.study], {})}): m
             for m in section.pick([m for replica in map(runs.get, origin) for m in replica.trials or []])}
    published = {section.theirs(p): p for p in section.published_rows()}
    keys = sorted((key for key in first if key in published),
                  key=lambda key: tuple(table_order(value, section.game) for value in key))
    before, _ = judged([(first[key], published.get(key)) for key in keys], section.margin)
    after, judgements = judged([(again.get(key), published.get(key)) for key in keys], section.margin)
    header = [*section.columns, "first run: win % [95% CI] (games)", "verdict", "replicate: win % [95% CI] (games)",
              "difference, points [interval at Holm's level]", "90% interval (equivalence)", "verdict", "changed"]
    lines = [f"{title}:", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    changed = []
    for key, (_, verdict), (cells, replicate_verdict) in zip(keys, before, after):
        moved = verdict != replicate_verdict and key in again
        changed += [" / ".join(cell_text(k) for k in key)] if moved else []
        lines.append("| " + " | ".join([*(cell_text(k) for k in key), ours_cell(first[key]), verdict,
                                         ours_cell(again.get(key)), cells[1], cells[2], replicate_verdict,
                                         "yes" if moved else ""]) + " |")
    agreement = table_verdict(judgements, section.margin)
    summary = (f"Verdicts changed in {len(changed)} of {len(keys)} rows: {'; '.join(changed)}." if changed
               else f"No verdict changed in {len(keys)} row{'s' * (len(keys) != 1)}.")
    return lines + ["", summary + (f" On the replicate: {agreement[0].lower()}{agreement[1:]}" if agreement else ""),
                    ""]


ABLATION_VERDICTS = ("*equivalent*", "*equivalent, small difference*", "*differs*", "*inconclusive*")


def ablation_section(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """Kind ``ablation``: the published rows judged again with one ingredient removed at a time. Each study's
    searched option ``by`` has the whole model as its first choice ("+"-joined ingredients) and the same but some
    as the others; a row of a study without a variant keeps its whole model's trial. One line per variant: how many
    rows are equivalent, differ, ..., at the section's margin (Holm over that variant's rows)."""
    lines = studies_line(section, runs)
    removed_by_study = {}
    for name in section.studies:
        run = runs[name]
        domain = run.spec.domain(section.by)
        if not run.trials or domain is None:
            continue
        whole = set(str(domain.choices[0]).split("+"))
        removed_by_study[name] = {value: " + ".join(sorted(whole - set(str(value).split("+")), key=str(
            domain.choices[0]).split("+").index)) for value in domain.choices}
    if not removed_by_study:
        return lines
    variants = list(dict.fromkeys(label for removed in removed_by_study.values() for label in removed.values()))
    published = {section.theirs(p): p for p in section.published_rows()}
    header = ["removed", "rows", *(verdict.strip("*") for verdict in ABLATION_VERDICTS), "table"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for variant in variants:
        rows = {}
        for name, removed in removed_by_study.items():
            has_variant = variant in removed.values()
            for m in runs[name].trials:
                label = removed.get(column_of(m, section.by))  # None: a recorded choice the file no longer has
                if label == variant or (not has_variant and label == ""):
                    rows[section.ours(m)] = m
        keys = [key for key in rows if key in published]
        _, judgements = judged([(rows[key], published[key]) for key in keys], section.margin)
        counts = [sum(j is not None and j.verdict == verdict for j in judgements) for verdict in ABLATION_VERDICTS]
        compared = [j for j in judgements if j is not None]
        agrees = "-" if not compared else "agrees" if all(j.equivalent for j in compared) else "does not"
        lines.append("| " + " | ".join([variant or "nothing (the whole model)", str(len(keys)), *map(str, counts),
                                         agrees]) + " |")
    lines += ["", note(section.margin)]
    return lines + (["", f"Where a row differs: {section.reason}."] if section.reason else []) + [""]
