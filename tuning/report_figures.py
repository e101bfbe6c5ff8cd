"""The report's figures: a section's win rate against a parameter, learning curves, Pareto fronts (matplotlib)."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

from gamecore.atomic import atomic_path
from tuning.report_sections import Section, cell_text, column_of, published_column, sections
from tuning.study_results import Measured, StudyRun


def figure(path: Path, draw: Callable) -> Path:
    """A figure drawn by ``draw(axes)``, with a grid and a legend, saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawing, axes = plt.subplots(figsize=(6.4, 4))
    draw(axes)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    with atomic_path(path) as temporary:
        drawing.savefig(temporary, format=Path(path).suffix[1:], dpi=110, bbox_inches="tight")
    plt.close(drawing)
    return path


def _lines(axes, trials: list[Measured], x: str, group: Callable[[Measured], str]) -> None:
    for name in sorted({group(m) for m in trials}):
        points = sorted(((m.value(x), m) for m in trials if group(m) == name), key=lambda point: point[0])
        xs = [v for v, _ in points]
        below = [100 * max(0.0, m.win_rate - m.low) for _, m in points]  # 0 where rounding puts a bound past it
        above = [100 * max(0.0, m.high - m.win_rate) for _, m in points]
        axes.errorbar(xs, [100 * m.win_rate for _, m in points], yerr=[below, above], capsize=3, marker="o", label=name)


def write_figures(runs: dict[str, StudyRun], folder: Path) -> dict[str, Path]:
    """Each section's figure (win rate against a parameter), the learning curves of the studies that ask for
    them and the Pareto front of two-objective studies: those whose studies ran."""
    folder.mkdir(parents=True, exist_ok=True)
    figures = {}
    for section in sections(runs):
        trials = section.pick([m for name in section.studies for m in runs[name].trials or []])
        if section.figure and trials:
            figures[section.key] = figure(folder / f"{section.key}.png", _draw_section(section, trials))
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

        figures["learning-curves"] = figure(folder / "learning-curves.png", draw_curves)
    for run in runs.values():
        if run.pareto and run.trials:
            figures[f"pareto-{run.spec.name}"] = figure(folder / f"pareto-{run.spec.name}.png", _draw_pareto(run))
    return figures


def _draw_section(section: Section, trials: list[Measured]) -> Callable:
    figure = section.figure
    x, lines = figure["x"], figure.get("lines", [])

    def draw(axes):
        _lines(axes, trials, x, lambda m: ", ".join(f"{name} {cell_text(column_of(m, name))}" for name in lines) or "ours")
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
