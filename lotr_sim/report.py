"""LOTR's own parts of the report (``lotr report``), declared by its ``Game``: why its rows may differ from the
thesis's, the corrected-rules reference of Table 3.2, and the perfect-information limit set before the sections."""

from __future__ import annotations

import json
from pathlib import Path

from lotr_sim.layout import DIFFICULTIES
from lotr_sim.published import RULES_RANDOM

REASONS = {  # why a row of ours may differ from the published one (a study's report.reason names one)
    "mcts": "the published search played copies of the real game, deck order included, and kept the outcomes it "
            "liked (RULES.md); ours is honest",
    "rl": "the published game had defects that favour the player (RULES.md) and its RL figures are the best "
          "training moving averages; ours are evaluations on deals the training never saw. Where a published "
          "figure lies above an ORACLE search deciding the same stages (the section of upper bounds, "
          "`fidelity-bounds`), no policy can reach it on the game of RULES.md",
    "random": "the published code had defects that favour the player; ours follows RULES.md (its column)",
    "published": "a defect of the published code that `rules = \"published\"` does not play "
                 "(docs/lotr-published-rules.md)",
    "published-mcts": "the published search is played from its code at its last commit (2022; "
                      "docs/lotr-published-rules.md, where each remaining difference is traced); the thesis's runs "
                      "may predate it",
}
REFERENCES = {"rules_random": ("RULES.md", RULES_RANDOM)}  # the random agent under the corrected rules, by difficulty


def published_label(label: str) -> str:
    """The thesis's setup that a setup of ``published-mcts`` reproduces: ``random-published-mcts-published-mcts-
    published-mcts-published-mcts`` (travel and attack replaying the search's rolls) is ``random-mcts-mcts``."""
    parts = label.replace("published-mcts", "mcts").split("-")
    if len(parts) == 5 and parts[2] in ("random", "mcts") and parts[4] in ("random", "mcts"):
        parts = [parts[0], parts[1], parts[3]]
    return "-".join(parts)


def limit_markdown(folder: Path) -> list[str]:
    """LOTR's perfect-information limit per difficulty, from ``lotr lotr limit --out <folder>/limit-<difficulty>.json``."""
    found = [json.loads(path.read_text()) for path in sorted(folder.glob("limit-*.json"))]
    if not found:
        return []
    lines = ["## The limit: perfect-information win rate (LOTR, deck orders known)", "",
             "| difficulty | deals (seed) | winning lines found | losses proven | unknown | the limit lies in | 95% "
             "interval | seconds |", "|---|---|---|---|---|---|---|---|"]
    for limit in sorted(found, key=lambda d: DIFFICULTIES.index(d["difficulty"])):
        (low, high), (i_low, i_high) = limit["bounds"], limit["interval"]
        lines.append(f"| {limit['difficulty']} | {limit['deals']:,} ({limit['seed']}) | {limit['lines_found']:,} | "
                     f"{limit['losses_proven']:,} | {limit['unknown']:,} | [{100 * low:.1f}, {100 * high:.1f}] | "
                     f"[{100 * i_low:.1f}, {100 * i_high:.1f}] | "
                     f"{limit['seconds_attempts'] + limit['seconds_search']:.0f} |")
    return lines + ["", "No agent, honest or ORACLE, wins more deals than are winnable: a win rate r on a difficulty "
                    "whose limit lies in [a, b] is between r / b and r / a of the limit, and where the limit is "
                    "100%, every rate below is its own fraction of it. Winning lines are found by ORACLE searches, "
                    "losses proven by an exhaustive search (`lotr lotr limit`, `lotr_sim/limit.py`).", ""]
