"""Layout of the flat integer state array that the compiled core works on.

A game state is one ``int64`` array of ``STATE_SIZE`` entries. Per-card
sections are indexed by card id; the two deck sections hold card ids in deck
order, the next card to draw at the ``*_TOP`` index. Within a zone, cards are
taken in card-id order (engaged enemies attack, and characters strike, in
that order). Everything here is a
constant: the compiled functions read these names as literals.
"""

from lotr_sim.cards import N_CARDS

# Zones: every card instance is in exactly one.
PLAYER_DECK = 0
HAND = 1
IN_PLAY = 2
PLAYER_DISCARD = 3
ENCOUNTER_DECK = 4
STAGING = 5
ENGAGED = 6
ACTIVE_LOCATION = 7
ENCOUNTER_DISCARD = 8
DESTROYED_HEROES = 9
OUT_OF_GAME = 10
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

# Per-card sections.
ZONE = 0
DAMAGE = ZONE + N_CARDS
EXHAUSTED = DAMAGE + N_CARDS
PLAYER_DECK_ORDER = EXHAUSTED + N_CARDS
PLAYER_DECK_SIZE = 15
ENCOUNTER_DECK_ORDER = PLAYER_DECK_ORDER + PLAYER_DECK_SIZE
ENCOUNTER_DECK_SIZE = 25
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
STATE_SIZE = DIFFICULTY + 1

# Phases of a round; the five decision phases are where the game waits.
RESOURCE_PHASE = 0
PLANNING = 1
QUESTING = 2
TRAVEL = 3
ENCOUNTER_PHASE = 4
DEFENSE = 5
ATTACK = 6
REFRESH_PHASE = 7
GAME_OVER = 8
DECISION_PHASES = (PLANNING, QUESTING, TRAVEL, DEFENSE, ATTACK)

# Outcomes.
ONGOING = 0
WIN = 1
LOST_BY_THREAT = 2
LOST_BY_HEROES = 3

EASY, MEDIUM, HARD = 0, 1, 2
DIFFICULTIES = ("easy", "medium", "hard")

# Action vectors: one int64 entry per card id.
#   planning, questing, travel: 1 marks a card bought / committed / travelled to.
#   defense: per engaged enemy, a defender's id, or UNDEFENDED + the id of the
#            hero that takes the damage; NO_CHOICE elsewhere.
#   attack: per attacking character, the enemy it attacks; NO_CHOICE elsewhere.
NO_CHOICE = -1
UNDEFENDED = 64

# Error codes written by the rule functions (argument meanings in errors.py).
OK = 0
ERR_NOT_IN_HAND = 1
ERR_UNAFFORDABLE = 2
ERR_NOT_READY = 3
ERR_NOT_STAGED_LOCATION = 4
ERR_SEVERAL_LOCATIONS = 5
ERR_NOT_ENGAGED = 6
ERR_ENEMY_UNASSIGNED = 7
ERR_NOT_HERO = 8
ERR_HERO_DESTROYED = 9
ERR_DEFENDER_DESTROYED = 10
ERR_DEFENDS_TWICE = 11
ERR_TARGET_DESTROYED = 12
ERR_NOT_CHARACTER = 13
ERR_NOTHING_TO_DECIDE = 14

# Trace events: (kind, round, a, b, c) rows.
EV_SETUP_STAGING = 1  # a=card
EV_ROUND = 2  # a=threat
EV_RESOURCES = 3  # a=total resources after gain
EV_DRAW = 4  # a=card (-1: deck empty)
EV_BUY = 5  # a=card, b=cost, c=resources left
EV_COMMIT = 6  # a=card, b=willpower
EV_REVEAL = 7  # a=card (-1: deck empty)
EV_QUEST_RESULT = 8  # a=willpower, b=staging threat
EV_LOCATION_PROGRESS = 9  # a=location, b=progress added, c=progress now
EV_EXPLORED = 10  # a=location
EV_QUEST_PROGRESS = 11  # a=progress added, b=progress now, c=stage
EV_STAGE_DONE = 12  # a=stage completed
EV_THREAT = 13  # a=increase, b=threat now
EV_TRAVEL = 14  # a=location
EV_ENGAGE = 15  # a=enemy
EV_DEFEND = 16  # a=enemy, b=defender, c=damage
EV_UNDEFENDED = 17  # a=enemy, b=hero, c=damage
EV_DESTROYED = 18  # a=card
EV_ATTACK = 19  # a=character, b=enemy, c=damage
EV_GANDALF_LEAVES = 20  # a=card
EV_OUTCOME = 21  # a=outcome
EVENT_WIDTH = 5
