"""Sections of kind ``maxima``: studies whose objective is a maximum over noisy training windows (the thesis's RL
tuning, Tables 6.7-6.9, section 5.7), compared as what they are.

The thesis's rows are each the best 1,000-episode moving win rate of a trial of
a 100-trial study: the top of a sample of maxima, not a binomial sample of the
games its interval implies. So the section sets the thesis's top rows beside
our study's top trainings by the same objective (``best_window``), and gives
our maximum with a bootstrap interval over the trainings (resampling them,
each bootstrap study's best value: what the maximum of that many noisy
trainings varies by; a bootstrap cannot exceed the observed maximum, so the
interval's top is that maximum). A trial whose parameters an earlier trial
already had (TPE over categorical lists proposes them again) trains on the
same seed and deals, so it repeats that training exactly: the trainings are
the distinct parameter sets, each counted once, and a table row says how many
trials repeated it. The thesis's top row is *within* our
interval, *above* it or *below* it. Each trial's network on the study's deals
(never trained on), and the chosen network's validation and test figures,
stand beside as the measure of play.

Figures: the optimisation history (the objective per trial, the best so far
marked: Figure 6.4), the histogram of trial training times (Figure 6.5), and
the learning curves of the chosen networks (Figure 6.6).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gamecore.published import Published
from tuning.report_figures import figure, plot_curve
from tuning.report_sections import Section, published_column
from tuning.study_results import Measured, StudyRun

TOP = 5  # our trainings shown, at least (more where the publication lists more rows)
RESAMPLES = 10_000  # bootstrap studies
BOOTSTRAP_SEED = 0  # the same report from the same records


def maximum_interval(values: np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of the maximum of ``values`` over bootstrap resamples of them (in any order)."""
    values = np.sort(values)[::-1]
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    maxima = values[rng.integers(0, values.size, (RESAMPLES, values.size))].max(axis=1)
    low, high = np.percentile(maxima, [2.5, 97.5])
    return float(low), float(high)


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def distinct_trainings(run: StudyRun) -> list[tuple[Measured, int]]:
    """The study's distinct trainings, best first: the first trial of each parameter set (a later trial with the
    same parameters repeats its training exactly), and how many trials had that set."""
    first: dict[tuple, Measured] = {}
    count: dict[tuple, int] = {}
    for m in sorted(run.trials or [], key=lambda m: m.number):
        key = tuple(sorted(m.params.items()))
        first.setdefault(key, m)
        count[key] = count.get(key, 0) + 1
    return sorted(((m, count[key]) for key, m in first.items()), key=lambda pair: (-pair[0].objective, pair[0].number))


def study_maximum(run: StudyRun) -> tuple[list[tuple[Measured, int]], float, float]:
    """The study's distinct trainings (``distinct_trainings``) and the bootstrap 95% interval of their maximum."""
    ranked = distinct_trainings(run)
    low, high = maximum_interval(np.array([m.objective for m, _ in ranked])) if ranked else (float("nan"),) * 2
    return ranked, low, high


def maximum_verdict(theirs: float, low: float, high: float) -> str:
    """A published maximum (percent) against our maximum's bootstrap interval (fractions)."""
    if theirs / 100 > high:
        return "above our interval: not reached by our study"
    if theirs / 100 < low:
        return "below our interval: ours is higher"
    return "within our interval: reached"


def _chosen_line(run: StudyRun) -> str:
    chosen = next((m.chosen for m in run.trials or [] if m.chosen), None)
    if chosen is None:
        return ""
    parts = [f"chosen on validation: trial {chosen['trial']}"]
    for kind in ("validation", "test"):
        figure_ = chosen[kind]
        low, high = figure_["wilson_95"]
        parts.append(f"{kind} {_percent(figure_['win_rate'])} [{100 * low:.1f}, {100 * high:.1f}] on "
                     f"{figure_['games']:,} games of seed {figure_['seed']}")
    return "; ".join(parts) + "."


def _values(values: list) -> str:
    return " / ".join(f"{value:g}" if isinstance(value, float) else str(value) for value in values)


def study_markdown(section: Section, run: StudyRun, theirs: list[Published]) -> list[str]:
    """One study of the section: its maximum against the published best (``theirs``, best first), the top rows
    side by side, the chosen network."""
    name = run.spec.name
    ranked, low, high = study_maximum(run)
    if not ranked:
        return [f"`{name}`: no record (pre-registered in its study file, not run here yet).", ""]
    source = theirs[0].source if theirs else "published"
    seconds = [m.training_seconds for m in run.trials if m.training_seconds is not None]
    best = ranked[0][0]
    lines = [(f"`{name}` ({run.spec.sampler}, {len(run.trials)} complete trials, {len(ranked)} distinct trainings, "
              f"{run.pruned} pruned; {sum(seconds) / 60:.0f} min of training, median {np.median(seconds):.0f} s a "
              f"trial): our best window {_percent(best.objective)}, bootstrap 95% over the trainings "
              f"[{100 * low:.1f}, {100 * high:.1f}].")]
    if theirs:
        lines[0] += f" {source}'s best, {theirs[0].win_rate:.1f}%, is {maximum_verdict(theirs[0].win_rate, low, high)}."
    columns = list(section.columns)
    lines += ["", (f"Rows: {' / '.join(columns)}; the best window and, beside, the trial's network on the study's "
                   f"{run.spec.games:,} deals (never trained on)."), "",
              f"| rank | {source} | ours | best window | its network | training s |", "|---|---|---|---|---|---|"]
    for rank in range(max(TOP, len(theirs))):
        published = (f"{_values([published_column(theirs[rank], c) for c in columns])}: {theirs[rank].win_rate:.1f}%"
                     if rank < len(theirs) else "")
        if rank < len(ranked):
            m, trials = ranked[rank]
            again = f" (and {trials - 1} more trial{'s' * (trials > 2)})" if trials > 1 else ""
            ours = (f"trial {m.number}{again}: {_values([m.value(c) for c in columns])} | {_percent(m.objective)} | "
                    f"{_percent(m.win_rate)} [{100 * m.low:.1f}, {100 * m.high:.1f}] | {m.training_seconds or 0:.0f}")
        else:
            ours = " |  |  | "
        lines.append(f"| {rank + 1} | {published} | {ours} |")
    lines.append("")
    if chosen := _chosen_line(run):
        lines += [chosen, ""]
    return lines


def maxima_section(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """The section's body: each of its studies (``study_markdown``) against the published rows it selects."""
    theirs = sorted(section.published_rows(), key=lambda p: -p.win_rate)
    return [line for name in section.studies for line in study_markdown(section, runs[name], theirs)]


def maxima_figures(section: Section, runs: dict[str, StudyRun], folder: Path) -> list[Path]:
    """Figures 6.4, 6.5 and 6.6 of the section's studies that have trials."""
    studied = [runs[name] for name in section.studies if runs[name].trials]
    if not studied:
        return []

    def history(axes):
        for run in studied:
            trials = sorted(run.trials, key=lambda m: m.number)
            numbers = [m.number for m in trials]
            values = np.array([100 * m.objective for m in trials])
            axes.plot(numbers, values, alpha=0.35, label=f"{run.spec.name}: best window per trial")
            best = np.maximum.accumulate(values)
            new = np.flatnonzero(np.r_[True, best[1:] > best[:-1]])
            axes.plot([numbers[i] for i in new], best[new], "v", label=f"{run.spec.name}: new best")
        axes.set(xlabel="trial", ylabel="best 1,000-episode window, %",
                 title=f"{section.published.get('source', '')}: optimisation history (cf. Figure 6.4)")

    def times(axes):
        for run in studied:
            axes.hist([m.training_seconds for m in run.trials if m.training_seconds is not None], bins=20,
                      alpha=0.5, label=run.spec.name)
        axes.set(xlabel="training seconds a trial", ylabel="trials", title="trial times (cf. Figure 6.5)")

    chosen = [(run, m) for run in studied for m in run.trials if m.chosen and m.curve is not None]

    def curves(axes):
        for run, m in chosen:
            plot_curve(axes, m, f"{run.spec.name} trial {m.number}")
        axes.set(xlabel="training episode", ylabel="moving win rate, %",
                 title="learning curves of the chosen networks (cf. Figure 6.6)")

    drawn = [figure(folder / f"{section.key}-figure-6.4-optimisation-history.png", history),
             figure(folder / f"{section.key}-figure-6.5-trial-times.png", times)]
    if chosen:
        drawn.append(figure(folder / f"{section.key}-figure-6.6-learning-curves.png", curves))
    return drawn
