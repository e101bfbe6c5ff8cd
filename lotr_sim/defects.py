"""The published simulator's defects (kondziug/LOTR_AI, the thesis's code), each a switch of the game option
``rules`` (docs/lotr-published-rules.md gives each one's source).

``rules = "corrected"`` (the default) plays docs/lotr-rules.md; ``"published"`` plays the defects of the published game
model that every agent meets (``GAME_DEFECTS``); a ``+``-separated list of defect names (``"list-skip"``,
``"published+double-resources"``) switches exactly those, so that each can be measured on its own. The others
(``SEARCH_DEFECTS``) came from the published MCTS agent, and ``LEARNER_DEFECTS`` from the published direct
actor-critic's environment, not from the game model: a study switches them where the thesis's setup searched, or
learned, that stage.
"""

from __future__ import annotations

import functools
from itertools import combinations
from pathlib import Path
from typing import NamedTuple

import numpy as np

from gamecore._jit_cache import sources_digest


class Defect(NamedTuple):
    name: str
    bit: int
    help: str


LIST_SKIP = np.int64(1)
LATE_DESTROY = np.int64(2)
DOUBLE_RESOURCES = np.int64(4)
REFRESH_AT_FIFTY = np.int64(8)
UNOPPOSED = np.int64(16)
ONE_PER_NAME = np.int64(32)
WIN_BELOW_ZERO = np.int64(64)
BY_NAME = np.int64(128)
STALE_FLAGS = np.int64(256)
SECOND_TRAVEL = np.int64(512)
ROUND_AFTER_WIN = np.int64(1024)
UNSEEN_WIN = np.int64(2048)
QUEST_BY_NAME = np.int64(4096)
IDLE_QUEST = np.int64(8192)
PLAYOUT_ROUND_AFTER_WIN = np.int64(1) << 40  # not an option: set by the published search on its playouts' copies
QUEST_WIN_UNSEEN = np.int64(1) << 41  # not an option: set by the published search while it makes a child

DEFECTS = (
    Defect("list-skip", int(LIST_SKIP),
           "the refresh removes destroyed characters and Gandalfs from the list it iterates: the one after each "
           "removed card is skipped (heroes in id order, allies in purchase order), so it stays in play, at or "
           "below zero hit points, or as a Gandalf for another round"),
    Defect("late-destroy", int(LATE_DESTROY),
           "a character destroyed while defending stays in play until the refresh: a dead hero can still take "
           "undefended damage, and losing the last hero while defending ends the game at the next questing "
           "unless that questing wins"),
    Defect("double-resources", int(DOUBLE_RESOURCES),
           "from the second round the resource phase runs twice (every hero gains 2, the player draws 2): the "
           "published MCTS ran it on the defense search's chosen copy, then the round ran it again; the "
           "search's playouts run it once a round (a defense child's first round carries the double phase)"),
    Defect("refresh-at-fifty", int(REFRESH_AT_FIFTY),
           "threat 50 reached at the refresh does not lose at once: after an MCTS defense the published code "
           "tested threat > 50, so the next questing is played, lost unless it wins"),
    Defect("unopposed", int(UNOPPOSED),
           "a defense that names no defender (the published search's choice when no defender subset exists) "
           "lets no enemy attack and skips the attack phase; the search decides every defense with an enemy "
           "engaged, a lone hero's with nothing ready too (the published agent ran it at every defense)"),
    Defect("one-per-name", int(ONE_PER_NAME),
           "between stages one card of each name stays in play and in the engagement area (the last one's damage "
           "and exhaustion), the others leave: the published code until 2022 rebuilt the game from per-name data "
           "after every stage whenever MCTS played"),
    Defect("win-below-zero", int(WIN_BELOW_ZERO),
           "a questing that leaves the last quest card at exactly zero points does not win yet; the next questing "
           "that places progress does: after an MCTS decision the published code until 2022 declared the win "
           "only below zero (Node.isTerminal), its search having reset the flag the quest set at zero"),
    Defect("by-name", int(BY_NAME),
           "the search's defense children name their defenders, and each name is the first character of that "
           "name in play (heroes, then allies in purchase order): a child naming two copies of an ally defends "
           "with the first copy twice, exhausted or not (the published subsetDefense's findCardInPlay)"),
    Defect("stale-flags", int(STALE_FLAGS),
           "the search's first playout after it expands a copy is decided by the global win and loss flags that "
           "the expansion left: a loss when one of the copy's own children (its questing, or its defense with "
           "the rolled attack) lost, else a win when one won (the published simulate tests the flags before it "
           "plays; they are reset only after a playout)"),
    Defect("second-travel", int(SECOND_TRAVEL),
           "in a round whose questing the search decided, a travel that made no location active is rolled again: "
           "the published expansion travelled on the chosen copy, and the round's travel phase (and each playout "
           "from that copy) then travelled once more when no location was active"),
    Defect("round-after-win", int(ROUND_AFTER_WIN),
           "the search's playouts play out the round of a questing that wins (travel, encounter, defense, attack) "
           "and count the win at the refresh, a loss if the defense left no hero: the published playouts test "
           "the win and loss flags after a whole round, the loss first (the real game's win ends it at once)"),
    Defect("unseen-win", int(UNSEEN_WIN),
           "a questing child that completes the quest is not seen as won by the search: the win flag its making "
           "set is reset by the playout before its own, and its playouts play on from the completed quest until a "
           "later questing places progress on it (the real game's win ends it at once)"),
    Defect("quest-by-name", int(QUEST_BY_NAME),
           "the search's questing children name their characters, each name the first character of that name in "
           "play (heroes, then allies in purchase order): a child naming two copies of an ally exhausts the first "
           "only and counts its willpower twice, the second staying ready (the published subsetQuesting's "
           "findCardInPlay)"),
    Defect("idle-quest", int(IDLE_QUEST),
           "a questing that commits nobody reveals no encounter card and raises no threat: the published direct "
           "actor-critic's questing step returned before the questing's resolution when its network chose no "
           "character (the random agent's empty questing resolved); a study switches it where the thesis's "
           "direct learner quested"),
)
GAME_DEFECTS = ("list-skip", "late-destroy")
SEARCH_DEFECTS = ("double-resources", "refresh-at-fifty", "unopposed", "one-per-name", "win-below-zero", "by-name",
                  "stale-flags", "second-travel", "round-after-win", "unseen-win", "quest-by-name")
LEARNER_DEFECTS = ("idle-quest",)
ALIASES = {"corrected": (), "published": GAME_DEFECTS}
_BITS = {d.name: d.bit for d in DEFECTS}


def canonical(names) -> str:
    """The option value of a set of defect names: ``corrected``, or the names in ``DEFECTS`` order joined by +."""
    names = set(names)
    chosen = [d.name for d in DEFECTS if d.name in names]
    return "+".join(chosen) if chosen else "corrected"


def _spellings() -> tuple[str, ...]:
    """Every accepted value: the aliases, each subset of defects, and ``published+`` each set of the agents'
    defects (the search's and the learner's)."""
    names = [d.name for d in DEFECTS]
    agents = SEARCH_DEFECTS + LEARNER_DEFECTS
    subsets = ["+".join(c) for k in range(1, len(names) + 1) for c in combinations(names, k)]
    extras = ["published+" + "+".join(c) for k in range(1, len(agents) + 1) for c in combinations(agents, k)]
    return (*ALIASES, *subsets, *extras)


RULES_CHOICES = _spellings()
RULES_DESCRIBED = ("corrected, published, or defect names joined by + in this order: "
                   + ", ".join(d.name for d in DEFECTS) + " (published+ then the agents' defects, in the same order)")


def defect_names(rules: str) -> tuple[str, ...]:
    """The defects a valid ``rules`` value switches on, in ``DEFECTS`` order."""
    names = set()
    for token in rules.split("+"):
        names.update(ALIASES.get(token, (token,)))
    return tuple(d.name for d in DEFECTS if d.name in names)


def rules_code(rules: str) -> int:
    """The state's ``RULES`` field for a valid ``rules`` value: the defects' bits."""
    return sum(_BITS[name] for name in defect_names(rules))


def played_model(options: dict, config: dict) -> dict | None:
    """The published-rules model a trial played (``Reproduction.model``, kept in its record): its ``rules``, the
    defects they switch, the flags of each stage the published search decided, and a digest of the code that plays
    them (``lotr_sim``'s sources); None under the corrected rules."""
    rules = options.get("rules", "corrected")
    if rules == "corrected":
        return None
    searches = {role: {k: v for k, v in table.items() if k != "agent"} for role, table in config.items()
                if isinstance(table, dict) and str(table.get("agent", "")).startswith("published-mcts")}
    return {"rules": rules, "defects": list(defect_names(rules)), "search": searches, "code": model_code()}


@functools.cache
def model_code() -> str:
    """The digest of ``lotr_sim``'s sources (and Numba's version): which code played a published-rules model."""
    return sources_digest((Path(__file__).resolve().parent,))
