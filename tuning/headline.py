"""The headline table: a dozen figures a researcher asks for first, each beside the published one, written from the
studies' records and exports, so that none of them can go stale.

``HEADLINES`` declares the rows: which study's figure (its chosen trial's test figure, or one trial of a
comparison, picked by its setup and game options), which published row it stands beside (selected from the
game's ``Game.reproduction.published`` by its fields), and whether the two are comparable and why. ``headline_lines(runs)``
writes the table from the studies as ``lotr report`` reads them (``tuning.study_results``): a row whose study
is not among them is left out, one whose study has no record says so. ``lotr report`` puts it at the top of
``docs/results.md`` and copies it into ``README.md`` between the markers ``README_BEGIN`` and ``README_END``
(``refresh_readme``); ``tests/test_headline.py`` checks every figure against its record or export.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gamecore.atomic import write_atomically
from gamecore.published import Published
from tuning.report_maxima import maximum_verdict, study_maximum
from tuning.report_sections import column_of, percent, published_field
from tuning.report_tables import reproduction
from tuning.study_results import Measured, StudyRun

README_BEGIN = "<!-- headline: written by lotr report from docs/records and the exports; do not edit -->"
README_END = "<!-- end of headline -->"
NOT_COMPARABLE = "the thesis played a game whose defects favour the player; its figure is a training average"


@dataclass(frozen=True)
class Headline:
    """One row: ``study``'s figure (its chosen trial's test figure, or with ``setup`` the trial of that setup and
    ``options``), per seat where ``seats`` names them, beside the published row ``published`` selects."""

    game: str  # the game as the row names it
    agent: str  # what the row is, as a reader names it
    study: str
    comparable: str  # "yes", or "no: why", "partly: why"
    setup: str = ""  # a comparison's trial: its setup (short form); empty: the chosen trial's test figure
    options: dict = field(default_factory=dict)  # ... and the game options it played
    seats: tuple[str, ...] = ()  # a two-player game's seats shown one by one
    published: dict = field(default_factory=dict)  # fields of the one published row (empty: none published)
    maximum: bool = False  # the study's objective is a maximum over trainings (best_window): shown first


HEADLINES = (
    Headline("LOTR, hard", "best honest agent, first quest: `rule` and flat Monte Carlo, nothing trained", "search-hard",
             f"no: {NOT_COMPARABLE}", published={"experiment": "best-players", "win_rate": 95.3}),
    Headline("LOTR, hard", "best learning agent, first quest", "best-hard", f"no: {NOT_COMPARABLE}",
             published={"experiment": "best-players", "win_rate": 95.3}),
    Headline("LOTR, hard", "best honest agent, full scenario (three quest stages): `rule-full` and flat Monte Carlo, "
             "nothing trained", "search-full-hard-deep", "no published figure: the thesis played the first quest only"),
    Headline("LOTR, hard", "the main job: random-mcts-mcts tuned by TPE", "mcts-hpo",
             "no: the thesis's search read the deck orders",
             published={"experiment": "best-players", "label": "random-mcts-mcts"}),
    Headline("LOTR, hard", "thesis row: the random agent (Table 3.2)", "random-baseline",
             "yes: its game, the defects corrected", setup="random-random-random", options={"difficulty": "hard"},
             published={"experiment": "random-baseline", "difficulty": "hard", "games": 100_000}),
    Headline("LOTR, hard", "thesis row: its best MCTS setup (Table 6.10), honest, corrected rules", "best-players",
             "no: the thesis's search read the deck orders", setup="random-mcts-mcts",
             published={"experiment": "best-players", "label": "random-mcts-mcts"}),
    Headline("LOTR, hard", "the same, published rules and search", "best-players-published", "yes",
             setup="random-published-mcts-published-mcts-published-mcts-published-mcts",
             published={"experiment": "best-players", "label": "random-mcts-mcts"}),
    Headline("LOTR, hard", "thesis row: its best RL setup, rl-rl-random (Table 6.10), published rules",
             "best-players-rl-published", "partly: its figure is the best training average of 100 trainings",
             setup="rl-rl-random",
             published={"experiment": "best-players", "label": "rl-rl-random", "parameters": "distinct"}),
    *(Headline("LOTR, hard", f"thesis row: Table {table} at its scale, 100 trials ({setup}), published rules",
               f"rl-hpo-thesis-{kind}-published", "yes as maxima: both the best 1,000-episode window of a 100-trial study",
               maximum=True,
               published={"experiment": "rl-hpo-direct", "source": f"Table {table}", "win_rate": best})
      for table, kind, setup, best in (("6.7", "one", "random-rl-random", 92.9), ("6.8", "shared", "rl*-rl*-random", 94.7),
                                       ("6.9", "distinct", "rl**-rl**-random", 95.3))),
    Headline("Love Letter", "thesis row: DP against DP, first seat (Huibers, Tables 6, 11)", "loveletter-pairs", "yes",
             setup="dp-dp", published={"experiment": "loveletter-pairs", "label": "dp-dp"}),
    Headline("Love Letter", "best agent against the DP player: ISMCTS with the DP player as its model",
             "loveletter-dp-model", "yes: the mark is DP against DP, seat by seat", seats=("first", "second"),
             published={"experiment": "loveletter-pairs", "label": "dp-dp"}),
    Headline("Carcassonne", "learning agent (masked PPO) against the random agent", "carcassonne-rl",
             "partly: the mark is the paper's MCTS against it", seats=("first", "second"),
             published={"experiment": "carcassonne-random", "label": "mcts-random"}),
    Headline("Carcassonne", "the paper's MCTS against Star2.5 at Star2.5's time a move, as the paper played it",
             "carcassonne-matches-timed", "yes: time-matched as published; the paper's claim that MCTS beats Star2.5 "
             "does not hold here", setup="mcts-star25", seats=("first", "second"),
             published={"experiment": "carcassonne-matches", "label": "mcts-star25"}),
    Headline("Carcassonne", "Star2.5's search with a tuned evaluation (`weighted-star`) against Star2.5, at no more "
             "time a decision", "weighted-star-vs-star25", "no published figure: no agent of the paper beats Star2.5 "
             "at Star2.5's time a move here", seats=("first", "second")),
    Headline("Carcassonne", "tuned MCTS-RAVE against Star2.5, NOT time-matched (20,000 rollouts a move)",
             "carcassonne-search-budget", "no: many times Star2.5's time a move; and our Star2.5 is the shallower "
             "reading of the paper's depth 3", seats=("first", "second"),
             published={"experiment": "carcassonne-matches", "label": "mcts-rave-star25"}),
)


def published_row(run: StudyRun, row: Headline) -> Published | None:
    """The one published row ``row.published`` selects among the game's (None when it selects nothing to show);
    ValueError when it matches none or several: the declaration is wrong."""
    if not row.published:
        return None
    found = [p for p in run.spec.game.reproduction.published if all(published_field(p, k) == v for k, v in row.published.items())]
    if len(found) != 1:
        raise ValueError(f"headline {row.agent!r}: {len(found)} published rows match {row.published}")
    return found[0]


def trial_of(run: StudyRun, row: Headline) -> Measured | None:
    """The trial whose figure the row shows: the chosen one (with its test figure), or the trial of the row's setup
    and options; None when the study has no record of it."""
    for m in run.trials or []:
        if not row.setup and m.chosen and "test" in m.chosen:
            return m
        if row.setup and m.config.short_name == row.setup and all(
                column_of(m, k) == v for k, v in row.options.items()):
            return m
    return None


def figure(row: Headline, m: Measured) -> list[tuple[str, int, int, float, float]]:
    """The row's figures, each (what, wins, games, low, high): one, or one per seat of ``row.seats``."""
    counts = m.chosen["test"] if not row.setup else {"win_rate": m.win_rate, "games": m.games,
                                                      "wilson_95": [m.low, m.high], "seats": m.seats}
    if row.seats:
        seats = counts["seats"]
        return [(seat, seats[seat]["wins"], seats[seat]["games"], *seats[seat]["wilson_95"]) for seat in row.seats]
    return [("", round(counts["win_rate"] * counts["games"]), counts["games"], *counts["wilson_95"])]


def _rate(wins: int, games: int, low: float, high: float) -> str:
    return f"{percent(wins / games)} [{percent(low)}, {percent(high)}] ({games:,})"


def ours_cell(row: Headline, m: Measured) -> str:
    return "; ".join(f"{what} {_rate(*counts)}".strip() for what, *counts in figure(row, m))


def published_cell(row: Headline, p: Published | None) -> str:
    """The published figure (percent, ± its 95% half-width where given) and its source; per seat where the row
    shows seats (a seat the source does not give: -)."""
    if p is None:
        return "-"
    if not row.seats:
        half = f" ± {p.interval:.2f}" if p.interval else ""
        return f"{p.win_rate:.2f}{half} ({p.source})"
    cells = []
    for seat in row.seats:
        if "seats" in p.params:
            theirs = p.params["seats"].get(seat)
            shown = "-" if theirs is None else f"{theirs['win_rate']:.2f}" + (
                f" ± {theirs['interval']:.2f}" if theirs.get("interval") else "")
        else:  # the first mover's wins and the second's, of the same games
            wins = p.params["counts"][0 if seat == "first" else 1]
            shown = "-" if wins is None else percent(wins / p.games)
        cells.append(f"{seat} {shown}")
    return "; ".join(cells) + f" ({p.source})"


def command(run: StudyRun, row: Headline, m: Measured | None) -> str:
    """What reproduces the figure: the study's chosen trial tested again (``tuning.report_tables.reproduction``),
    or the study run (``lotr tune run``) for a row of one setup's trial or a study not yet run."""
    return reproduction(run, None if row.setup or m is None else m.chosen["test"])


def headline_lines(runs: dict[str, StudyRun], rows: tuple[Headline, ...] = HEADLINES) -> list[str]:
    """The table (``HEADLINES`` whose study is among ``runs``), with a line saying how it is made; [] when none."""
    shown = [row for row in rows if row.study in runs]
    if not shown:
        return []
    lines = ["| game | agent | ours: win % [95% CI] (games) | published win % | comparable | reproduce |",
             "|---|---|---|---|---|---|"]
    for row in shown:
        run = runs[row.study]
        m = trial_of(run, row)
        ours = "no record: run the command" if m is None else ours_cell(row, m)
        published, comparable = published_row(run, row), row.comparable
        if row.maximum and m is not None:
            trainings, low, high = study_maximum(run)
            ours = (f"best window {percent(trainings[0][0].objective)} of {len(run.trials)} trials "
                    f"({len(trainings)} distinct trainings; bootstrap 95% [{100 * low:.1f}, {100 * high:.1f}]); "
                    f"chosen network {ours}")
            comparable += f"; the thesis's is {maximum_verdict(published.win_rate, low, high)}" if published else ""
        lines.append(f"| {row.game} | {row.agent} (`{row.study}`) | {ours} | {published_cell(row, published)} "
                     f"| {comparable} | `{command(run, row, m)}` |")
    return lines + ["", ("Each figure is read from its study's record (`docs/records/<study>.json`) or its export "
                         "(the `agent.toml` its study file names) by `lotr report`, which writes this table; a "
                         "chosen agent's figure is its test on fresh deals, never the search's. A thesis-scale RL row "
                         "gives first what the thesis's figure is, its study's maximum (the best 1,000-episode "
                         "training window of any trial), then its chosen network's test. Seats: the agent's "
                         "seat in a two-player game. Every row's section in `docs/results.md` judges it."), ""]


def refresh_readme(readme: Path, lines: list[str]) -> bool:
    """Replace the block between ``README_BEGIN`` and ``README_END`` of ``readme`` with ``lines``; False (nothing
    written) when the file or its markers are missing or the block is already that."""
    if not readme.is_file():
        return False
    text = readme.read_text()
    begin, end = text.find(README_BEGIN), text.find(README_END)
    if begin < 0 or end < begin:
        return False
    block = "\n".join([README_BEGIN, "", *lines, README_END])
    new = text[:begin] + block + text[end + len(README_END):]
    if new == text:
        return False
    write_atomically(readme, new)
    return True


def readme_block(text: str) -> str:
    """The headline block of a README's text (between its markers, the markers excluded), or "" without one."""
    begin, end = text.find(README_BEGIN), text.find(README_END)
    return "" if begin < 0 or end < begin else text[begin + len(README_BEGIN):end].strip("\n")

