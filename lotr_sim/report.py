"""LOTR's own parts of the report (``lotr report``), declared by its ``Game``: why its rows may differ from the
thesis's, the corrected-rules reference of Table 3.2, and the perfect-information limit set before the sections."""

from __future__ import annotations

import json
from pathlib import Path

from lotr_sim.layout import DIFFICULTIES
from lotr_sim.published import RULES_RANDOM

REASONS = {  # why a row of ours may differ from the published one (a study's report.reason names one)
    "mcts": "the published search played copies of the real game, deck order included, and kept the outcomes it "
            "liked (docs/lotr-rules.md); ours is honest",
    "rl": "the published game had defects that favour the player (docs/lotr-rules.md), and its direct learner's questing "
          "of nobody revealed no card (`idle-quest`, docs/lotr-published-rules.md); its RL figures are the best "
          "training moving averages, ours evaluations on deals the training never saw. Where a published figure "
          "lies above an ORACLE search deciding the same stages (the section of upper bounds, `fidelity-bounds`), "
          "no policy can reach it on the game of docs/lotr-rules.md",
    "random": "the published code had defects that favour the player; ours follows docs/lotr-rules.md (its column)",
    "published": "a defect of the published code that `rules = \"published\"` does not play "
                 "(docs/lotr-published-rules.md)",
    "published-mcts": "our model of the published search at its last commit (2022), at budget 40 with the code's "
                      "own ppn 1; the published code itself, run directly there, gives Table 6.2's rows, and each "
                      "mechanism of our model was measured against it (docs/lotr-published-rules.md, \"The "
                      "published code, run directly\" and \"Controlled runs on the code\")",
    "journal": "the 2021 journal paper played an older game than the thesis's (heroes Eowyn, Eleanor and Thalin, "
               "threat 25, other player and encounter decks) with an earlier search (docs/lotr-published-rules.md, "
               "\"The 2021 journal paper\"); these rows play the thesis's game: a test of whether the paper's "
               "conclusions carry over, not of a model of its game (the paper's claims judged one by one: "
               "docs/lotr-published-rules.md, \"Its Table 2, Figure 7 and Figure 5 in the thesis's game\")",
    "published-rl-macro": "the published RL figures are the best training moving averages (1,000 episodes); ours "
                          "are evaluations, after training, on deals the training never saw",
    "published-rl": "the thesis's RL figures are each the best of a Hyperopt study of 100 trainings, read at its "
                    "best 1,000-episode mean; the published code trained at the thesis's settings and scale gives "
                    "random-rl-random 73.2% and 60.0% on fresh deals in two trainings where Table 6.7 has 92.9 "
                    "(docs/lotr-published-rules.md, \"The published RL, run directly\"); ours are our learners, "
                    "evaluated after training on deals the training never saw",
}
REFERENCES = {"rules_random": ("docs/lotr-rules.md", RULES_RANDOM)}  # the random agent under the corrected rules, by difficulty


def published_label(label: str) -> str:
    """The thesis's setup that a setup of ``published-mcts`` reproduces: ``random-published-mcts-published-mcts-
    published-mcts-published-mcts`` (travel and attack replaying the search's rolls) is ``random-mcts-mcts``."""
    parts = label.replace("published-mcts", "mcts").split("-")
    if len(parts) == 5 and parts[2] in ("random", "mcts") and parts[4] in ("random", "mcts"):
        parts = [parts[0], parts[1], parts[3]]
    return "-".join(parts)


def limit_markdown(folder: Path) -> list[str]:
    """LOTR's perfect-information limit per scenario and difficulty, from ``lotr lotr limit [--full-scenario]
    --out <folder>/limit-[full-]<difficulty>.json``, with the honest agent that played the same deals (``--agent``)
    set against it."""
    found = [json.loads(path.read_text()) for path in sorted(folder.glob("limit-*.json"))]
    if not found:
        return []
    found.sort(key=lambda d: (d.get("full_scenario", False), DIFFICULTIES.index(d["difficulty"])))
    lines = ["## The limit: perfect-information win rate (LOTR, deck orders known)", "",
             ("| scenario | difficulty | deals (seed) | winning lines found | losses proven | unknown | the limit lies in "
             "| 95% interval | seconds |"), "|---|---|---|---|---|---|---|---|---|"]
    for limit in found:
        (low, high), (i_low, i_high) = limit["bounds"], limit["interval"]
        lines.append(f"| {limit.get('scenario', 'first quest')} | {limit['difficulty']} | {limit['deals']:,} "
                     f"({limit['seed']}) | {limit['lines_found']:,} | {limit['losses_proven']:,} | {limit['unknown']:,} "
                     f"| [{100 * low:.1f}, {100 * high:.1f}] | [{100 * i_low:.1f}, {100 * i_high:.1f}] | "
                     f"{limit['seconds_attempts'] + limit['seconds_search']:.0f} |")
    lines += ["", ("No agent, honest or ORACLE, wins more deals than are winnable: a win rate r on a difficulty whose "
              "limit lies in [a, b] is between r / b and r / a of the limit, and where the limit is 100%, every rate "
              "below is its own fraction of it. Winning lines are found by ORACLE searches (MCTS, and nested Monte "
              "Carlo search trying every action at every decision), losses proven by an exhaustive search within the "
              "decisions the table's run allowed; a deal neither won nor proven lost is unknown (`lotr lotr limit`, "
              "`lotr_sim/limit.py`)."), ""]
    return lines + [line for limit in found if limit.get("agent") for line in _agent_against_limit(limit)]


def _agent_against_limit(limit: dict) -> list[str]:
    """The honest agent that played the limit's deals: its wins as a share of the deals and of the limit, its time
    per game, and its losses by cause and by the quest stage they reached."""
    agent, deals = limit["agent"], limit["deals"]
    (low, high), wins = limit["bounds"], agent["wins"]
    metrics = agent["metrics"]
    stages = ", ".join(f"{n:,} in {stage}" for stage, n in metrics.get("losses_by_stage", {}).items())
    losses = (f"Its {deals - wins:,} losses: {metrics['lost_by_threat']:,} by threat, {metrics['lost_by_heroes']:,} "
              f"by heroes; by the quest stage they reached: {stages}." if wins < deals else "It loses none.")
    return [f"### The honest agent against the limit: {limit.get('scenario', 'first quest')}, {limit['difficulty']}",
            "",
            f"`{agent['config']}` ({agent['setup']}) on the same {deals:,} deals: {wins:,} wins, "
            f"{100 * wins / deals:.1f}% [{100 * agent['wilson_95'][0]:.1f}, {100 * agent['wilson_95'][1]:.1f}]; "
            + ("the limit is 100%, so that is its fraction of the limit. " if low == 1.0 else
               f"each win is a winning line, so the agent wins between {100 * wins / (high * deals):.1f}% and "
               f"{100 * wins / (low * deals):.1f}% of the winnable deals (its wins over the limit's upper and lower "
               f"bounds). ")
            + f"{1000 * agent['mean_seconds_per_game']:.1f} ms a game. {losses}", ""]


def choices_markdown(folder: Path) -> list[str]:
    """How often each decision offered a choice per round (the thesis's Figure 3.4), from ``gametune lotr choices
    --difficulty <d> --out <folder>/choices-<d>.json`` (a file without the fields it writes is left out)."""
    found = []
    for path in sorted(folder.glob("choices-*.json")):
        data = json.loads(path.read_text())
        if isinstance(data, dict) and {"options", "roles", "games", "seed", "setup"} <= set(data):
            found.append(data)
    if not found:
        return []
    found.sort(key=lambda d: (d["options"].get("rules", ""), DIFFICULTIES.index(d["options"].get("difficulty"))))
    roles = list(dict.fromkeys(role for data in found for role in data["roles"]))
    lines = ["## Which decisions offer a choice (LOTR, thesis Figure 3.4)", "",
             "| difficulty | rules | setup | deals (seed) | " + " | ".join(roles) + " |",
             "|---|---|---|---|" + "---|" * len(roles)]
    for data in found:
        counts = [data["roles"].get(role) for role in roles]
        cells = [f"{100 * c['rounds_with_choice'] / max(1, c['rounds']):.1f}%" if c else "-" for c in counts]
        lines.append(f"| {data['options'].get('difficulty')} | {data['options'].get('rules', 'corrected')} | "
                     f"{data['setup']} | {data['games']:,} ({data['seed']}) | " + " | ".join(cells) + " |")
    return lines + ["", ("The share of rounds in which each decision offered two actions or more (the game asks no "
                         "decision with one action). The thesis's Figure 3.4 (random agent): \"in the planning and "
                         "questing decisions, the agent always had some choice ... the phases with the lowest decision "
                         "probability are travel and attack\" (section 3.5; its bar heights are not in the text)."), ""]


def preamble(folder: Path) -> list[str]:
    """LOTR's sections before the studies': the perfect-information limit and the decisions that offer a choice."""
    return limit_markdown(folder) + choices_markdown(folder)
