"""The 2021 journal paper's published results (Godlewski and Sawicki 2021, ``godlewski-sawicki-2021-mcts-lotr-journal``),
as plain data for "ours vs published": Table 2, the win rate of 14 mixtures of its agents at planning, questing and
defense (medium, 1,000 games each, travel and attack by its expert rules), in percent with its ± half-width; and
Figure 7, seven of those players on medium and hard (10,000 games each), whose only value the text states is the
random player's on hard (NaN for the others, drawn but not given).

The paper names its agents by number: 1 random, 2 expert (rules), 3 flat Monte Carlo, 4 MCTS (both at a budget of 40
playouts with expert playouts, its section 5). A row's ``mixture`` is its planning-questing-defense in those numbers
(``"3-2-2"``: flat Monte Carlo plans, the expert quests and defends); the studies that play them map each of their
setups to a mixture (``[report] values``). The paper played an older game than the thesis's (other heroes and decks:
docs/lotr-published-rules.md, "The 2021 journal paper"), so these rows are a transfer test of the thesis's game.
"""

from __future__ import annotations

import math

from gamecore.published import Published

# Table 2, in the paper's order (best first): mixture, win rate, half-width.
_TABLE_2 = (
    ("3-2-2", 98.1, 0.85), ("4-2-2", 97.1, 1.04), ("4-2-4", 96.4, 1.15), ("2-2-4", 92.8, 1.60),
    ("3-3-2", 82.5, 2.36), ("2-3-2", 81.6, 2.40), ("4-4-4", 80.2, 2.47), ("4-4-2", 76.5, 2.63),
    ("2-4-4", 67.6, 2.90), ("2-4-2", 40.2, 3.04), ("3-2-3", 39.5, 3.03), ("2-2-3", 34.8, 2.95),
    ("2-3-3", 24.3, 2.66), ("3-3-3", 20.4, 2.50),
)
# Figure 7: the four uniform players and Table 2's top three, medium and hard, 10,000 games; the text states one value.
_FIGURE_7 = ("1-1-1", "2-2-2", "3-3-3", "4-4-4", "3-2-2", "4-2-2", "4-2-4")
_STATED = {("1-1-1", "hard"): 0.4}  # "Winrate of 0.4% proves that there is no reason for playing the game at the hard
# level using Random Agent"
_AGENTS = {"1": "random", "2": "expert", "3": "flat Monte Carlo", "4": "MCTS"}


def _described(mixture: str) -> str:
    planning, questing, defense = (_AGENTS[n] for n in mixture.split("-"))
    return f"agent{mixture.replace('-', ' - agent')}: {planning} plans, {questing} quests, {defense} defends"


def _row(source: str, experiment: str, mixture: str, difficulty: str, win_rate: float, half_width: float | None,
         games: int, note: str) -> Published:
    """One published row of a mixture, labelled in the paper's words (``"agent3-agent2-agent2"``)."""
    return Published(source, experiment, f"agent{mixture.replace('-', '-agent')}", {"difficulty": difficulty},
                     win_rate, half_width, games, {"mixture": mixture, "budget": 40, "playout": "expert"},
                     _described(mixture) + note)


JOURNAL: tuple[Published, ...] = tuple(
    _row("journal Table 2", "journal-mixtures", mixture, "medium", win_rate, half_width, 1000, "")
    for mixture, win_rate, half_width in _TABLE_2
) + tuple(
    _row("journal Figure 7", "journal-players", mixture, difficulty, _STATED.get((mixture, difficulty), math.nan), None,
         10000, "; read from the text" if (mixture, difficulty) in _STATED else
         "; drawn in the figure, its value not in the text")
    for difficulty in ("medium", "hard") for mixture in _FIGURE_7
)
