"""A two-player section's games turn by turn (``[report] by_turn``): the first agent's lead over its opponent after
each round, from each seat, as a figure and a table. The game's measure ``score_by_turn`` gives, per turn, each
seat's mean score (Carcassonne: the virtual score, the paper's Figure 4), the standard deviation of the first
seat's lead and the games that played the turn."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from gamecore.stats import Z95
from tuning.report_figures import figure
from tuning.report_sections import Section
from tuning.study_results import Measured, StudyRun

SCORE_BY_TURN = "score_by_turn"  # a game's measure (Game.summarise): per turn, as the module's docstring says
ROUND = 2  # turns a round, one of each player: the lead swings with whose turn it was, so it is read after rounds
QUARTERS = 4  # the rounds the table shows: the ends of the game's quarters
EXPLAINED = ("The first agent's lead in score over its opponent after each round (a turn of each player; the last "
             "reading at the game's end), the mean over the games that played it, with a normal 95% interval; a "
             "round counts as ahead (behind) when the whole interval lies above (below) 0.")


def leads(m: Measured, seat: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The turns that end a round (and the last), the first agent's mean lead after them when it sat in ``seat``,
    and the half-width of its normal 95% interval; None where the trial's record keeps no scores turn by turn."""
    by_turn = m.seats.get(seat, {}).get("metrics", {}).get(SCORE_BY_TURN)
    if not by_turn:
        return None
    lead = np.array(by_turn["first"]) - np.array(by_turn["second"])
    half = Z95 * np.array(by_turn["lead_sd"]) / np.sqrt(np.array(by_turn["games"]))
    read = np.union1d(np.arange(ROUND - 1, lead.size, ROUND), [lead.size - 1])
    return read + 1, (lead if seat == "first" else -lead)[read], half[read]


def _trials(section: Section, runs: dict[str, StudyRun]) -> list[Measured]:
    return sorted((m for name in section.studies for m in runs[name].trials or []
                   if any(leads(m, seat) for seat in m.seats)), key=lambda m: m.label)


def by_turn_markdown(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """The lead at the end of each quarter of the game and the rounds whose 95% interval lies above or below 0,
    per trial and seat of its first agent (nothing without a trial keeping them)."""
    if not section.by_turn:
        return []
    rows = [(m, seat, found) for m in _trials(section, runs) for seat in m.seats if (found := leads(m, seat))]
    if not rows:
        return []
    turns = rows[0][2][0]
    marks = [*(turns[math.ceil(len(turns) * q / QUARTERS) - 1] for q in range(1, QUARTERS)), turns[-1]]
    header = ["setup", "first agent's seat", *(f"lead after turn {t} [95% CI]" for t in marks),
              "rounds ahead / behind (95%)"]
    lines = [EXPLAINED, "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for m, seat, (read, lead, half) in rows:
        at = {int(t): k for k, t in enumerate(read)}
        cells = [f"{lead[k]:+.1f} [{lead[k] - half[k]:+.1f}, {lead[k] + half[k]:+.1f}]"
                 if (k := at.get(int(t))) is not None else "-" for t in marks]
        ahead, behind = int(np.sum(lead - half > 0)), int(np.sum(lead + half < 0))
        lines.append("| " + " | ".join([m.label, seat, *cells, f"{ahead} / {behind} of {len(lead)}"]) + " |")
    return lines + [""]


def by_turn_figure(section: Section, runs: dict[str, StudyRun], folder: Path) -> list[Path]:
    """A panel per seat of the first agent: its mean lead after each round with the 95% band, a line per trial."""
    trials = _trials(section, runs) if section.by_turn else []
    if not trials:
        return []
    seats = list(trials[0].seats)

    def draw(panels):
        panels = panels if len(seats) > 1 else [panels]
        for axes, seat in zip(panels, seats):
            for m in trials:
                found = leads(m, seat)
                if found:
                    turns, lead, half = found
                    axes.plot(turns, lead, label=m.label)
                    axes.fill_between(turns, lead - half, lead + half, alpha=0.25)
            axes.axhline(0, color="k", linewidth=0.8)
            axes.set(xlabel="turn (after each round)", ylabel="lead in score" if seat == seats[0] else None,
                     title=f"first agent in the {seat} seat")
        limits = [axes.get_ylim() for axes in panels]
        for axes in panels:  # one scale, so that the seats compare at a glance
            axes.set_ylim(min(low for low, _ in limits), max(high for _, high in limits))

    return [figure(folder / f"{section.key}-by-turn.png", draw, panels=len(seats))]
