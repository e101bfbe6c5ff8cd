"""The 43 card instances of the game model (docs/lotr-rules.md, "Cards").

Card ids are fixed; copies of one card have consecutive ids. The tables below
are read-only numpy arrays indexed by card id, used both by the compiled core
and by the Python interface.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

N_CARDS = 43

HERO, ALLY, ENEMY, LOCATION = 0, 1, 2, 3


class Card(NamedTuple):
    """One card's printed values; fields that do not apply to its kind are 0."""

    id: int
    name: str
    kind: int
    attack: int = 0
    defense: int = 0
    hitpoints: int = 0
    willpower: int = 0
    cost: int = 0
    engagement: int = 0
    threat: int = 0
    quest_points: int = 0
    sphere: str = ""


def _copies(first_id: int, count: int, **values) -> list[Card]:
    return [Card(first_id + i, **values) for i in range(count)]


CARDS: tuple[Card, ...] = tuple(
    # Heroes: `cost` holds the hero's threat cost.
    _copies(0, 1, name="Dunhere", kind=HERO, attack=2, defense=1, hitpoints=4, willpower=1, cost=8, sphere="Spirit")
    + _copies(1, 1, name="Eowyn", kind=HERO, attack=1, defense=1, hitpoints=3, willpower=4, cost=9, sphere="Spirit")
    + _copies(2, 1, name="Eleanor", kind=HERO, attack=1, defense=2, hitpoints=3, willpower=1, cost=7, sphere="Spirit")
    # Allies: the player deck.
    + _copies(3, 3, name="Lorien Guide", kind=ALLY, attack=1, defense=1, hitpoints=2, willpower=0, cost=3, sphere="Spirit")
    + _copies(6, 3, name="Northern Tracker", kind=ALLY, attack=2, defense=2, hitpoints=3, willpower=1, cost=4, sphere="Spirit")
    + _copies(9, 3, name="Wandering Took", kind=ALLY, attack=1, defense=1, hitpoints=2, willpower=1, cost=2, sphere="Spirit")
    + _copies(12, 3, name="Rider of Rohan", kind=ALLY, attack=2, defense=0, hitpoints=2, willpower=2, cost=3, sphere="Spirit")
    + _copies(15, 3, name="Gandalf", kind=ALLY, attack=4, defense=4, hitpoints=4, willpower=4, cost=5, sphere="Neutral")
    # Enemies.
    + _copies(18, 3, name="Dol Guldur Orcs", kind=ENEMY, attack=2, defense=0, hitpoints=3, engagement=10, threat=2)
    + _copies(21, 1, name="Dol Guldur Beastmaster", kind=ENEMY, attack=3, defense=1, hitpoints=5, engagement=35, threat=2)
    + _copies(22, 4, name="Forest Spider", kind=ENEMY, attack=2, defense=1, hitpoints=4, engagement=25, threat=2)
    + _copies(26, 1, name="East Bight Patrol", kind=ENEMY, attack=3, defense=1, hitpoints=2, engagement=5, threat=3)
    + _copies(27, 1, name="Black Forest Bats", kind=ENEMY, attack=1, defense=0, hitpoints=2, engagement=15, threat=1)
    + _copies(28, 2, name="King Spider", kind=ENEMY, attack=3, defense=1, hitpoints=3, engagement=20, threat=2)
    + _copies(30, 1, name="Ungoliant's Spawn", kind=ENEMY, attack=5, defense=2, hitpoints=9, engagement=32, threat=3)
    # Locations.
    + _copies(31, 1, name="Necromancer's Pass", kind=LOCATION, threat=3, quest_points=2)
    + _copies(32, 2, name="Enchanted Stream", kind=LOCATION, threat=2, quest_points=2)
    + _copies(34, 2, name="Old Forest Road", kind=LOCATION, threat=1, quest_points=3)
    + _copies(36, 2, name="Forest Gate", kind=LOCATION, threat=2, quest_points=4)
    + _copies(38, 2, name="Great Forest Web", kind=LOCATION, threat=2, quest_points=2)
    + _copies(40, 3, name="Mountains of Mirkwood", kind=LOCATION, threat=2, quest_points=3)
)
assert [c.id for c in CARDS] == list(range(N_CARDS))

ALLY_FIRST, ENEMY_FIRST, LOCATION_FIRST = 3, 18, 31
HERO_IDS = tuple(range(ALLY_FIRST))
ALLY_IDS = tuple(range(ALLY_FIRST, ENEMY_FIRST))
ENEMY_IDS = tuple(range(ENEMY_FIRST, LOCATION_FIRST))
LOCATION_IDS = tuple(range(LOCATION_FIRST, N_CARDS))
GANDALF_IDS = (15, 16, 17)
WANDERING_TOOK_IDS = (9, 10, 11)
# Hard setup: the lowest-id Forest Spider and Old Forest Road start in staging.
HARD_SETUP_IDS = (22, 34)

STARTING_THREAT = sum(CARDS[h].cost for h in HERO_IDS)
LOSING_THREAT = 50
OPENING_HAND = 7

# Quest stages of "Passage through Mirkwood": the thesis plays only the first.
QUEST_STAGES = (("Flies and Spiders", 8), ("A Fork in the Road", 2), ("Beorn's Path", 10))


def _column(field: str) -> np.ndarray:
    values = np.array([getattr(c, field) for c in CARDS], dtype=np.int64)
    values.flags.writeable = False
    return values


KIND = _column("kind")
ATTACK = _column("attack")
DEFENSE = _column("defense")
HITPOINTS = _column("hitpoints")
WILLPOWER = _column("willpower")
COST = _column("cost")
ENGAGEMENT = _column("engagement")
THREAT = _column("threat")
QUEST_POINTS = _column("quest_points")
STAGE_QUEST_POINTS = np.array([points for _, points in QUEST_STAGES], dtype=np.int64)
STAGE_QUEST_POINTS.flags.writeable = False
NAME_FIRST = np.array([min(d.id for d in CARDS if d.name == c.name) for c in CARDS], np.int64)  # a card's name
NAME_FIRST.flags.writeable = False


def card_label(card_id: int) -> str:
    """A readable label such as 'Gandalf#15'."""
    return f"{CARDS[card_id].name}#{card_id}"
