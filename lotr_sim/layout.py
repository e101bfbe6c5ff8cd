"""Layout of the flat integer state array that the compiled core works on.

A game state is one ``int64`` array of ``STATE_SIZE`` entries. Zones and the
exhausted set are 43-bit masks over card ids; damage is indexed by card id;
the two deck sections hold card ids in deck order, the next card to draw at
the ``*_TOP`` index. Within a zone, cards are taken in card-id order (engaged
enemies attack, and characters strike, in that order).

Everything here is a constant. The integer codes are ``np.int64`` rather than
Python ints: Numba specialises a compiled function on every distinct
Python-int literal it is called with (``move(S, card, HAND)``,
``move(S, card, STAGING)``, ...), which multiplies compile time, whereas a
numpy integer is typed ``int64`` and the function compiles once.
"""

import numpy as np

from lotr_sim.cards import N_CARDS

# Zones: every card instance is in exactly one.
PLAYER_DECK = np.int64(0)
HAND = np.int64(1)
IN_PLAY = np.int64(2)
PLAYER_DISCARD = np.int64(3)
ENCOUNTER_DECK = np.int64(4)
STAGING = np.int64(5)
ENGAGED = np.int64(6)
ACTIVE_LOCATION = np.int64(7)
ENCOUNTER_DISCARD = np.int64(8)
DESTROYED_HEROES = np.int64(9)
OUT_OF_GAME = np.int64(10)
ZONE_NAMES = (
    "player deck",
    "hand",
    "in play",
    "player discard",
    "encounter deck",
    "staging area",
    "engagement area",
    "active location",
    "encounter discard",
    "destroyed heroes",
    "out of game",
)

# Zones as bitmasks: bit c of ZONE_MASKS + z is set iff card c is in zone z.
N_ZONES = np.int64(11)
ZONE_MASKS = np.int64(0)
EXHAUSTED_MASK = ZONE_MASKS + N_ZONES  # bit c set iff character c is exhausted
DAMAGE = EXHAUSTED_MASK + 1  # per card id
PLAYER_DECK_ORDER = DAMAGE + N_CARDS
PLAYER_DECK_SIZE = np.int64(15)
ENCOUNTER_DECK_ORDER = PLAYER_DECK_ORDER + PLAYER_DECK_SIZE
ENCOUNTER_DECK_SIZE = np.int64(25)
RESOURCES = ENCOUNTER_DECK_ORDER + ENCOUNTER_DECK_SIZE  # one pool per hero
# Scalars.
PLAYER_TOP = RESOURCES + 3
ENCOUNTER_TOP = PLAYER_TOP + 1
ENCOUNTER_LEN = ENCOUNTER_TOP + 1
THREAT_LEVEL = ENCOUNTER_LEN + 1
ROUND = THREAT_LEVEL + 1
PHASE = ROUND + 1
OUTCOME = PHASE + 1
QUEST_PROGRESS = OUTCOME + 1
QUEST_STAGE = QUEST_PROGRESS + 1
QUEST_STAGE_COUNT = QUEST_STAGE + 1
LOCATION_PROGRESS = QUEST_STAGE_COUNT + 1
DIFFICULTY = LOCATION_PROGRESS + 1
RULES = DIFFICULTY + 1  # the published code's defects in play, a bit each (lotr_sim/defects.py); 0: docs/lotr-rules.md
ALLY_ORDER = RULES + 1  # under the list-skip defect: each ally's purchase rank, 4 bits per ally
STATE_SIZE = ALLY_ORDER + 1

# Phases of a round; the five decision phases are where the game waits.
RESOURCE_PHASE = np.int64(0)
PLANNING = np.int64(1)
QUESTING = np.int64(2)
TRAVEL = np.int64(3)
ENCOUNTER_PHASE = np.int64(4)
DEFENSE = np.int64(5)
ATTACK = np.int64(6)
REFRESH_PHASE = np.int64(7)
GAME_OVER = np.int64(8)
DECISION_PHASES = (PLANNING, QUESTING, TRAVEL, DEFENSE, ATTACK)

# Outcomes.
ONGOING = np.int64(0)
WIN = np.int64(1)
LOST_BY_THREAT = np.int64(2)
LOST_BY_HEROES = np.int64(3)

EASY, MEDIUM, HARD = np.int64(0), np.int64(1), np.int64(2)
DIFFICULTIES = ("easy", "medium", "hard")

# Action vectors: one int64 entry per card id.
#   planning, questing, travel: 1 marks a card bought / committed / travelled to.
#   defense: per engaged enemy, a defender's id, or UNDEFENDED + the id of the
#            hero that takes the damage; NO_CHOICE elsewhere.
#   attack: per attacking character, the enemy it attacks; NO_CHOICE elsewhere.
NO_CHOICE = np.int64(-1)
UNDEFENDED = np.int64(64)

# Error codes written by the rule functions (argument meanings in errors.py).
OK = np.int64(0)
ERR_NOT_IN_HAND = np.int64(1)
ERR_UNAFFORDABLE = np.int64(2)
ERR_NOT_READY = np.int64(3)
ERR_NOT_STAGED_LOCATION = np.int64(4)
ERR_SEVERAL_LOCATIONS = np.int64(5)
ERR_NOT_ENGAGED = np.int64(6)
ERR_ENEMY_UNASSIGNED = np.int64(7)
ERR_NOT_HERO = np.int64(8)
ERR_HERO_DESTROYED = np.int64(9)
ERR_DEFENDER_DESTROYED = np.int64(10)
ERR_DEFENDS_TWICE = np.int64(11)
ERR_TARGET_DESTROYED = np.int64(12)
ERR_NOT_CHARACTER = np.int64(13)
ERR_NOTHING_TO_DECIDE = np.int64(14)

# Trace events: (kind, round, a, b, c) rows.
EV_SETUP_STAGING = np.int64(1)  # a=card
EV_ROUND = np.int64(2)  # a=threat
EV_RESOURCES = np.int64(3)  # a=total resources after gain
EV_DRAW = np.int64(4)  # a=card (-1: deck empty)
EV_BUY = np.int64(5)  # a=card, b=cost, c=resources left
EV_COMMIT = np.int64(6)  # a=card, b=willpower
EV_REVEAL = np.int64(7)  # a=card (-1: deck empty)
EV_QUEST_RESULT = np.int64(8)  # a=willpower, b=staging threat
EV_LOCATION_PROGRESS = np.int64(9)  # a=location, b=progress added, c=progress now
EV_EXPLORED = np.int64(10)  # a=location
EV_QUEST_PROGRESS = np.int64(11)  # a=progress added, b=progress now, c=stage
EV_STAGE_DONE = np.int64(12)  # a=stage completed
EV_THREAT = np.int64(13)  # a=increase, b=threat now
EV_TRAVEL = np.int64(14)  # a=location
EV_ENGAGE = np.int64(15)  # a=enemy
EV_DEFEND = np.int64(16)  # a=enemy, b=defender, c=damage
EV_UNDEFENDED = np.int64(17)  # a=enemy, b=hero, c=damage
EV_DESTROYED = np.int64(18)  # a=card
EV_ATTACK = np.int64(19)  # a=character, b=enemy, c=damage
EV_GANDALF_LEAVES = np.int64(20)  # a=card
EV_OUTCOME = np.int64(21)  # a=outcome
EVENT_WIDTH = np.int64(5)
