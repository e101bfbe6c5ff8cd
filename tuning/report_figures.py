"""The report's figures (matplotlib, byte for byte the same from the same records): a section's win rate against a
parameter, a two-objective study's Pareto front, and the learning curves its records keep."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from gamecore.atomic import atomic_path
from tuning.report_sections import Section, cell_text, column_of, published_column
from tuning.study_results import Measured, StudyRun

CURVES = 8  # the learning curves drawn at most, the first trained trials of the studies that ask for them


def figure(path: Path, draw: Callable) -> Path:
    """A figure drawn by ``draw(axes)``, with a grid and a legend, saved to ``path`` (its folder made) with no
    metadata that would change by machine (matplotlib's version)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawing, axes = plt.subplots(figsize=(6.4, 4))
    draw(axes)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    kind = Path(path).suffix[1:]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as temporary:
        drawing.savefig(temporary, format=kind, dpi=110, bbox_inches="tight",
                        metadata={"Software": None} if kind == "png" else None)
    plt.close(drawing)
    return path


def _lines(axes, trials: list[Measured], x: str, group: Callable[[Measured], str]) -> None:
    for name in sorted({group(m) for m in trials}):
        points = sorted(((m.value(x), m) for m in trials if group(m) == name), key=lambda point: point[0])
        xs = [v for v, _ in points]
        below = [100 * max(0.0, m.win_rate - m.low) for _, m in points]  # 0 where rounding puts a bound past it
        above = [100 * max(0.0, m.high - m.win_rate) for _, m in points]
        axes.errorbar(xs, [100 * m.win_rate for _, m in points], yerr=[below, above], capsize=3, marker="o", label=name)


def section_figure(section: Section, runs: dict[str, StudyRun], folder: Path) -> Path | None:
    """A table section's figure, when its ``figure`` asks for one and its studies have trials: the win rate
    against ``figure.x``, a line per ``figure.lines``, the published rows beside them if ``figure.published``."""
    trials = section.pick([m for name in section.studies for m in runs[name].trials or []])
    if not (section.figure and trials):
        return None
    spec = section.figure
    x, lines = spec["x"], spec.get("lines", [])

    def draw(axes):
        _lines(axes, trials, x, lambda m: ", ".join(f"{name} {cell_text(column_of(m, name))}" for name in lines) or "ours")
        if spec.get("published"):
            rows = sorted((published_column(p, x), p.win_rate) for p in section.published_rows())
            source = section.title.rpartition("(")[2].rstrip(")")
            axes.plot(*zip(*rows), "k--", marker="s", label=f"published ({source})")
        axes.set(xscale="log" if spec.get("log") else "linear", xlabel=spec.get("xlabel", x),
                 ylabel="win rate %", title=spec.get("title", section.title))

    return figure(folder / f"{section.key}.png", draw)


def pareto_figure(section: Section, runs: dict[str, StudyRun], folder: Path) -> Path | None:
    """A two-objective study's trials by win rate and time per game, its Pareto front joined; None without one."""
    from matplotlib.ticker import NullFormatter

    run = runs[section.studies[0]]
    if not (run.pareto and run.trials):
        return None

    def draw(axes):
        axes.scatter([1000 * m.seconds_per_game for m in run.trials], [100 * m.win_rate for m in run.trials],
                     s=14, color="0.6", label="trials")
        front = sorted(run.pareto, key=lambda m: m.seconds_per_game)
        axes.plot([1000 * m.seconds_per_game for m in front], [100 * m.win_rate for m in front], "r-o",
                  label="Pareto front")
        axes.set(xscale="log", xlabel="ms per game (one core)", ylabel="win rate %",
                 title=f"{run.spec.name} ({run.spec.setup_label}): win rate against time")
        axes.xaxis.set_minor_formatter(NullFormatter())  # the minor labels of a short log axis overlap

    return figure(folder / f"{section.key}.png", draw)


def curves_figure(runs: dict[str, StudyRun], folder: Path) -> Path | None:
    """The learning curves (moving win rate against training episode) of the first trained trials whose records
    keep them, of the studies whose ``[report]`` asks for them; None when there are none."""
    curves = [m for run in runs.values() if run.spec.report.get("curves") for m in run.trials or []
              if m.curve is not None][:CURVES]
    if not curves:
        return None

    def draw(axes):
        for m in curves:
            window, wins = m.curve
            moving = np.convolve(wins.astype(float), np.ones(window) / window, mode="valid")
            axes.plot(np.arange(window - 1, wins.size), 100 * moving,
                      label=f"{m.study} {m.label} enc {m.value('encoding')}")
        axes.set(xlabel="training episode", ylabel="moving win rate %", title="learning curves")

    return figure(folder / "learning-curves.png", draw)
