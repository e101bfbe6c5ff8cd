"""The 2021 journal paper's published results (Godlewski and Sawicki 2021, ``godlewski-sawicki-2021-mcts-lotr-journal``),
as plain data for "ours vs published": Table 2, the win rate of 14 mixtures of its agents at planning, questing and
defense (medium, 1,000 games each, travel and attack by its expert rules), in percent with its ± half-width.

The paper names its agents by number: 1 random, 2 expert (rules), 3 flat Monte Carlo, 4 MCTS (both at a budget of 40
playouts with expert playouts, its section 5). A row's ``mixture`` is its planning-questing-defense in those numbers
(``"3-2-2"``: flat Monte Carlo plans, the expert quests and defends); the studies that play them map each of their
setups to a mixture (``[report] values``). The paper played an older game than the thesis's (other heroes and decks:
docs/lotr-published-rules.md, "The 2021 journal paper"), so these rows are a transfer test of the thesis's game.
"""

from __future__ import annotations

from gamecore.published import Published

# Table 2, in the paper's order (best first): mixture, win rate, half-width.
_TABLE_2 = (
    ("3-2-2", 98.1, 0.85), ("4-2-2", 97.1, 1.04), ("4-2-4", 96.4, 1.15), ("2-2-4", 92.8, 1.60),
    ("3-3-2", 82.5, 2.36), ("2-3-2", 81.6, 2.40), ("4-4-4", 80.2, 2.47), ("4-4-2", 76.5, 2.63),
    ("2-4-4", 67.6, 2.90), ("2-4-2", 40.2, 3.04), ("3-2-3", 39.5, 3.03), ("2-2-3", 34.8, 2.95),
    ("2-3-3", 24.3, 2.66), ("3-3-3", 20.4, 2.50),
)
_AGENTS = {"2": "expert", "3": "flat Monte Carlo", "4": "MCTS"}


def _described(mixture: str) -> str:
    planning, questing, defense = (_AGENTS[n] for n in mixture.split("-"))
    return f"agent{mixture.replace('-', ' - agent')}: {planning} plans, {questing} quests, {defense} defends"


JOURNAL: tuple[Published, ...] = tuple(
    Published("journal Table 2", "journal-mixtures", f"agent{mixture.replace('-', '-agent')}", {"difficulty": "medium"},
              win_rate, half_width, 1000, {"mixture": mixture, "budget": 40, "playout": "expert"}, _described(mixture))
    for mixture, win_rate, half_width in _TABLE_2
)
