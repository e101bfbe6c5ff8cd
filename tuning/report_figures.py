"""The report's figures (matplotlib, byte for byte the same from the same records): a section's win rate against a
parameter, a two-objective study's Pareto front, and the learning curves its records keep."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.learning.curve import moving_win_rate
from gamecore.atomic import atomic_path
from tuning.report_sections import Section, cell_text, column_of, published_column, table_order
from tuning.study_results import Measured, StudyRun

CURVES = 8  # the learning curves drawn at most, the first trained trials of the studies that ask for them


def figure(path: Path, draw: Callable, panels: int = 1) -> Path:
    """A figure drawn by ``draw(axes)`` (``panels`` side by side: ``draw`` gets their list), each with a grid and a
    legend, saved to ``path`` (its folder made) with no metadata that would change by machine (matplotlib's
    version)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawing, grid = plt.subplots(1, panels, figsize=(6.4 if panels == 1 else 3.4 * panels, 4), squeeze=False)
    every = list(grid[0])
    draw(every[0] if panels == 1 else every)
    for axes in every:
        axes.grid(alpha=0.3)
        if axes.get_legend_handles_labels()[0]:
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


def line_label(section: Section, m: Measured, lines: list[str]) -> str:
    """The legend of a trial's line: its values in the columns ``lines`` (its study's ``[report] values`` among
    them), "ours" when there are none."""
    return ", ".join(f"{name} {cell_text(column_of(m, name, section.values.get(m.study)))}" for name in lines) or "ours"


def section_figure(section: Section, runs: dict[str, StudyRun], folder: Path) -> Path | None:
    """A table section's figure, when its ``figure`` asks for one and its studies have trials: the win rate
    against ``figure.x``, a line per ``figure.lines``, the published rows beside them if ``figure.published``."""
    trials = section.pick([m for name in section.studies for m in runs[name].trials or []])
    if not (section.figure and trials):
        return None
    spec = section.figure
    x, lines = spec["x"], spec.get("lines", [])

    def draw(axes):
        _lines(axes, trials, x, lambda m: line_label(section, m, lines))
        if spec.get("published"):
            rows = sorted((published_column(p, x), p.win_rate) for p in section.published_rows())
            source = section.title.rpartition("(")[2].rstrip(")")
            axes.plot(*zip(*rows), "k--", marker="s", label=f"published ({source})")
        axes.set(xscale="log" if spec.get("log") else "linear", xlabel=spec.get("xlabel", x),
                 ylabel="win rate %", title=spec.get("title", section.title))

    return figure(folder / f"{section.key}.png", draw)


ROUNDS_BY_OUTCOME = "rounds_by_outcome"  # a game's measure: per outcome, how many games lasted each number of rounds
PANELS = 6  # the rows a lengths figure draws at most


def lengths_figure(section: Section, runs: dict[str, StudyRun], folder: Path) -> Path | None:
    """The rounds each game lasted, stacked by outcome (the game's measure ``rounds_by_outcome``), a panel per row
    that the section's ``lengths`` selects (its columns' values as the table shows them; all rows when empty; the
    first ``PANELS`` in the table's order), when it asks for it."""
    if section.lengths is None:
        return None
    def selected(m: Measured) -> bool:
        row = dict(zip(section.columns, section.ours(m)))  # as the table shows it
        return all(cell_text(row[key]) == cell_text(value) for key, value in section.lengths.items())

    trials = [m for name in section.studies for m in section.pick(runs[name].trials or [])
              if m.metrics.get(ROUNDS_BY_OUTCOME) and selected(m)]
    trials = sorted(trials, key=lambda m: tuple(table_order(v, section.game) for v in section.ours(m)))[:PANELS]
    if not trials:
        return None

    def draw(panels):
        from matplotlib.ticker import MaxNLocator

        outcomes = sorted({outcome for m in trials for outcome in m.metrics[ROUNDS_BY_OUTCOME]})  # as records keep them
        for panel, (axes, m) in enumerate(zip(panels if len(trials) > 1 else [panels], trials)):
            counts = m.metrics[ROUNDS_BY_OUTCOME]
            rounds = sorted({int(r) for by_round in counts.values() for r in by_round})
            bottom = np.zeros(len(rounds))
            for colour, outcome in enumerate(outcomes):  # one colour per outcome in every panel, named in the first
                share = np.array([counts.get(outcome, {}).get(str(r), 0) for r in rounds]) / m.games
                axes.bar(rounds, 100 * share, bottom=100 * bottom, color=f"C{colour}",
                         label=outcome if panel == 0 else None)
                bottom += share
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
            axes.set(xlabel="rounds", ylabel="games %" if panel == 0 else None,
                     title=" / ".join(cell_text(k) for k in section.ours(m)))

    return figure(folder / f"{section.key}-lengths.png", draw, panels=len(trials))


def table_figures(section: Section, runs: dict[str, StudyRun], folder: Path) -> list[Path]:
    """A table section's figures, each where its ``[report]`` asks for it: the win rate against a parameter
    (``section_figure``) and the rounds its games lasted by outcome (``lengths_figure``)."""
    return [path for path in (section_figure(section, runs, folder), lengths_figure(section, runs, folder)) if path]


def pareto_figure(section: Section, runs: dict[str, StudyRun], folder: Path) -> list[Path]:
    """A two-objective study's trials by win rate and time per game, its Pareto front joined (none without one)."""
    from matplotlib.ticker import NullFormatter

    run = runs[section.studies[0]]
    if not (run.pareto and run.trials):
        return []

    def draw(axes):
        axes.scatter([1000 * m.seconds_per_game for m in run.trials], [100 * m.win_rate for m in run.trials],
                     s=14, color="0.6", label="trials")
        front = sorted(run.pareto, key=lambda m: m.seconds_per_game)
        axes.plot([1000 * m.seconds_per_game for m in front], [100 * m.win_rate for m in front], "r-o",
                  label="Pareto front")
        axes.set(xscale="log", xlabel="ms per game (one core)", ylabel="win rate %",
                 title=f"{run.spec.name} ({run.spec.setup_label}): win rate against time")
        axes.xaxis.set_minor_formatter(NullFormatter())  # the minor labels of a short log axis overlap

    return [figure(folder / f"{section.key}.png", draw)]


def plot_curve(axes, m: Measured, label: str) -> None:
    """A trained trial's learning curve (its record's ``curve``): the moving win rate, %, by training episode."""
    window, wins = m.curve
    axes.plot(np.arange(window - 1, wins.size), 100 * moving_win_rate(wins, window), label=label)


def curves_figure(runs: dict[str, StudyRun], folder: Path) -> Path | None:
    """The learning curves (moving win rate against training episode) of the first trained trials whose records
    keep them, of the studies whose ``[report]`` asks for them; None when there are none."""
    curves = [m for run in runs.values() if run.spec.report.get("curves") for m in run.trials or []
              if m.curve is not None][:CURVES]
    if not curves:
        return None

    def draw(axes):
        for m in curves:
            plot_curve(axes, m, f"{m.study} {m.label} enc {m.value('encoding')}")
        axes.set(xlabel="training episode", ylabel="moving win rate %", title="learning curves")

    return figure(folder / "learning-curves.png", draw)
