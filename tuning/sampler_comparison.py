"""The report's comparison of samplers, from ``benchmarks/bench_samplers.py``'s result (``samplers.json`` beside it).

For each sampler, the validated win rate of the incumbent (the best search
figure so far) after each trial, over the sampler seeds: a figure (the mean
over seeds, the band from the lowest to the highest seed) and a table at a
few trial counts, with what was run and how long it took.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gamecore.stats import holm
from tuning.report_figures import figure

RESULT = "samplers.json"
TITLE = "Samplers compared on mcts-hpo's space"


def _runs(data: dict) -> str:
    """How many of the planned runs (sampler, seed) the result holds, when it was stopped before the end."""
    done, planned = len(data["runs"]), data.get("runs_planned", len(data["runs"]))
    return "" if done == planned else f"stopped after {done} of its {planned} runs, "


def sampler_curves(data: dict) -> dict[str, np.ndarray]:
    """Per sampler, its runs' validated incumbent win rates: an array (seeds, trials)."""
    curves: dict[str, list] = {}
    for run in data["runs"]:
        curves.setdefault(run["sampler"], []).append(run["validated"])
    return {name: np.array(runs) for name, runs in curves.items()}


def draw_samplers(data: dict, path: Path) -> Path:
    """The validated incumbent's win rate against trials, per sampler: mean over seeds and its range."""
    def draw(axes):
        for name, runs in sampler_curves(data).items():
            trials = np.arange(1, runs.shape[1] + 1)
            line = axes.plot(trials, 100 * runs.mean(axis=0), label=f"{name} ({runs.shape[0]} seeds)")[0]
            axes.fill_between(trials, 100 * runs.min(axis=0), 100 * runs.max(axis=0), color=line.get_color(),
                              alpha=0.15)
        axes.set(xlabel="trials", ylabel="validated win rate of the best so far, %",
                 title=f"{TITLE}: mean and range over sampler seeds")

    path.parent.mkdir(parents=True, exist_ok=True)
    return figure(path, draw)


def sampler_markdown(folder: Path) -> list[str]:
    """The section (and its figure in ``folder/figures``) when ``folder/samplers.json`` exists, else nothing."""
    path = folder / RESULT
    if not path.is_file():
        return []
    data = json.loads(path.read_text())
    curves = sampler_curves(data)
    trials = min(runs.shape[1] for runs in curves.values())
    marks = sorted({min(trials, k) for k in (5, 10, 20, 30)} | {trials})
    command = (f"`python benchmarks/bench_samplers.py --trials {data['trials']} --seeds {data['seeds']} --games "
               f"{data['games']} --validation-games {data['validation_games']}`")
    scale = (f" ({data['minutes']:.1f} minutes, {_runs(data)}{data['workers']} processes on this 2-core machine, "
             f"shared): each sampler searches `studies/{data['study']}`'s space from each seed, every trial on the "
             f"same {data['games']:,} deals (seed {data['search_seed']}), no pruning; after each trial the best trial "
             f"so far is played on the same {data['validation_games']:,} validation deals (seed "
             f"{data['validation_seed']}). Cells: the mean over seeds of that validated win rate, % [lowest, highest "
             "seed]. Optuna's TPE and GP draw their first 10 trials at random (their start), so from the same seed "
             "they begin as random search does.")
    lines = [f"## {TITLE}", "", command + scale, "",
             "| sampler | " + " | ".join(f"after {k} trials" for k in marks) + " | search s per run |",
             "|---|" + "---|" * (len(marks) + 1)]
    for name, runs in curves.items():
        seconds = np.mean([run["search_seconds"] for run in data["runs"] if run["sampler"] == name])
        cells = [f"{100 * runs[:, k - 1].mean():.1f} [{100 * runs[:, k - 1].min():.1f}, "
                 f"{100 * runs[:, k - 1].max():.1f}]" for k in marks]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {seconds:.0f} |")
    order = sorted(curves, key=lambda name: -curves[name][:, trials - 1].mean())
    half = 1.96 * np.sqrt(0.25 / data["validation_games"])
    reading = (f"After {trials} trials the order of the means is {', '.join(order)}. One validated figure is "
               f"within ±{100 * half:.1f} points (95%) of its rate, and the seeds spread as the table shows: read an "
               "order as a measurement of this scale, not a ranking for every game.")
    drawn = draw_samplers(data, folder / "figures" / "samplers.png")
    lines += ["", reading, *against_baseline(curves, trials), "", f"![samplers](figures/{drawn.name})", ""]
    return lines


def against_baseline(curves: dict[str, np.ndarray], trials: int, baseline: str = "random") -> list[str]:
    """Each sampler's mean validated win rate after ``trials`` trials minus random search's, with a 95% Welch
    interval over the sampler seeds and its p-value, judged with Holm's correction over the samplers; nothing
    without random search or with one seed."""
    from scipy.stats import t as student

    if baseline not in curves or any(runs.shape[0] < 2 for runs in curves.values()):
        return []
    base = curves[baseline][:, trials - 1]
    names, cells, diffs, p_values = [], [], [], []
    for name, runs in curves.items():
        if name == baseline:
            continue
        ours = runs[:, trials - 1]
        va, vb = ours.var(ddof=1) / ours.size, base.var(ddof=1) / base.size
        diff, se = ours.mean() - base.mean(), np.sqrt(va + vb)
        freedom = (va + vb) ** 2 / (va**2 / (ours.size - 1) + vb**2 / (base.size - 1)) if se > 0 else 1.0
        half = student.ppf(0.975, freedom) * se
        p = 2 * student.sf(abs(diff) / se, freedom) if se > 0 else (1.0 if diff == 0 else 0.0)
        names.append(name)
        diffs.append(diff)
        p_values.append(p)
        cells.append(f"{name} {100 * diff:+.1f} [{100 * (diff - half):+.1f}, {100 * (diff + half):+.1f}], p = {p:.2g}")
    rejected = holm(p_values)
    above = [n for n, d, r in zip(names, diffs, rejected) if r and d > 0]
    below = [n for n, d, r in zip(names, diffs, rejected) if r and d < 0]
    if above or below:
        verdict = "; ".join(part for part in (f"above it: {', '.join(above)}" if above else "",
                                              f"below it: {', '.join(below)}" if below else "") if part) + "."
    else:
        verdict = ("no sampler differs from random search at this scale: on this noisy objective the choice of "
                   "sampler is not what a study's result depends on; its cost (the last column) is.")
    return ["", (f"Against random search after {trials} trials, points of validated win rate (mean over seeds, "
                 f"95% Welch interval, two-sided p; Holm's correction over the {len(names)} samplers at 5%): "
                 f"{'; '.join(cells)}. So {verdict}")]
