"""State encodings (thesis section 5.3), indexed by the card ids of docs/lotr-rules.md, compiled.

Each is a float vector of card indicators followed by one integer feature:

- planning: allies in hand (15), enemies in staging (13), resources (1): 29.
- questing, by encoding type: characters in play (18), then
  0: enemies in staging (13), round: 32;
  1: locations in staging (12), enemies in staging (13), round: 44;
  2: enemies in staging (13), staging threat: 32;
  3: engaged enemies (13), staging threat: 32.
- defense: ready characters (18), engaged enemies (13), round: 32.

Encoding 4 (``OBSERVATION``) is the whole observation at every decision (the
OpenSpiel form's tensor, ``Game.observation_encoder``): for every card id the
zone the player sees it in, one-hot (a deck holds the cards not yet drawn,
unordered), whether it is the active location, whether it is exhausted and
its damage; then the round, threat, location progress, quest stage and quest
progress, the heroes' resources and the pending decision, one-hot: 529.

They read the visible state only.
"""

import numpy as np

from gamecore.jit import kernel
from lotr_sim import layout as L
from lotr_sim.cards import ALLY_FIRST, ENEMY_FIRST, LOCATION_FIRST, N_CARDS
from lotr_sim.playout import decision_index
from lotr_sim.rules import ENEMY_BITS, LOCATION_BITS, lowest, ready, staging_threat, total_resources

N_ALLIES = ENEMY_FIRST - ALLY_FIRST
N_CHARACTERS = ENEMY_FIRST
N_ENEMIES = LOCATION_FIRST - ENEMY_FIRST
N_LOCATIONS = N_CARDS - LOCATION_FIRST
PLANNING_SIZE = N_ALLIES + N_ENEMIES + 1
QUESTING_SIZES = (N_CHARACTERS + N_ENEMIES + 1, N_CHARACTERS + N_LOCATIONS + N_ENEMIES + 1) + (N_CHARACTERS + N_ENEMIES + 1,) * 2
DEFENSE_SIZE = N_CHARACTERS + N_ENEMIES + 1
OBSERVATION = 4
MAX_FEATURE = 100.0  # the integer features (round, threat, resources, damage, progress) stay below it
OBSERVED_ZONES = np.array([L.HAND, L.IN_PLAY, L.STAGING, L.ENGAGED, L.PLAYER_DISCARD, L.ENCOUNTER_DISCARD,
                           L.DESTROYED_HEROES, L.PLAYER_DECK, L.ENCOUNTER_DECK], np.int64)
ACTIVE_COLUMN, EXHAUSTED_COLUMN, DAMAGE_COLUMN = range(len(OBSERVED_ZONES), len(OBSERVED_ZONES) + 3)
PER_CARD = len(OBSERVED_ZONES) + 3
SCALARS = np.array([L.ROUND, L.THREAT_LEVEL, L.LOCATION_PROGRESS, L.QUEST_STAGE, L.QUEST_PROGRESS], np.int64)
N_DECISIONS = len(L.DECISION_PHASES)
OBSERVATION_SIZE = N_CARDS * PER_CARD + len(SCALARS) + 3 + N_DECISIONS


def encoding_size(stage: str, encoding: int) -> int:
    """Length of the state vector of ``stage`` ("planning", "questing", "defense")."""
    return {"planning": PLANNING_SIZE, "defense": DEFENSE_SIZE}.get(stage) or QUESTING_SIZES[encoding]


@kernel
def mark(out, offset, mask, first):
    """out[offset + c - first] = 1 for every card c of ``mask``."""
    while mask:
        c = lowest(mask)
        mask &= mask - 1
        out[offset + c - first] = 1.0


@kernel
def mark_cards(out, column, mask):
    """out[c * PER_CARD + column] = 1 for every card c of ``mask``."""
    while mask:
        out[lowest(mask) * PER_CARD + column] = 1.0
        mask &= mask - 1


@kernel
def observe(S, out):
    """Fill ``out`` with encoding ``OBSERVATION`` of ``S``."""
    out[:] = 0.0
    for z in range(OBSERVED_ZONES.shape[0]):
        mark_cards(out, z, S[L.ZONE_MASKS + OBSERVED_ZONES[z]])
    mark_cards(out, ACTIVE_COLUMN, S[L.ZONE_MASKS + L.ACTIVE_LOCATION])
    mark_cards(out, EXHAUSTED_COLUMN, S[L.EXHAUSTED_MASK] & S[L.ZONE_MASKS + L.IN_PLAY])
    for c in range(N_CARDS):
        out[c * PER_CARD + DAMAGE_COLUMN] = S[L.DAMAGE + c]
    at = N_CARDS * PER_CARD
    for k in range(SCALARS.shape[0]):
        out[at + k] = S[SCALARS[k]]
    at += SCALARS.shape[0]
    for hero in range(3):
        out[at + hero] = S[L.RESOURCES + hero]
    if S[L.PHASE] != L.GAME_OVER:
        out[at + 3 + decision_index(S[L.PHASE])] = 1.0


@kernel
def encode(S, encoding, out):
    """Fill ``out`` with encoding ``encoding`` of the pending decision of ``S`` (thesis 0-3: planning, questing or
    defense; ``OBSERVATION``: any)."""
    if encoding == OBSERVATION:
        observe(S, out)
        return
    out[:] = 0.0
    phase = S[L.PHASE]
    staged_enemies = S[L.ZONE_MASKS + L.STAGING] & ENEMY_BITS
    if phase == L.PLANNING:
        mark(out, 0, S[L.ZONE_MASKS + L.HAND], ALLY_FIRST)
        mark(out, N_ALLIES, staged_enemies, ENEMY_FIRST)
        out[N_ALLIES + N_ENEMIES] = total_resources(S)
    elif phase == L.QUESTING:
        mark(out, 0, S[L.ZONE_MASKS + L.IN_PLAY], 0)
        if encoding == 0:
            mark(out, N_CHARACTERS, staged_enemies, ENEMY_FIRST)
            out[N_CHARACTERS + N_ENEMIES] = S[L.ROUND]
        elif encoding == 1:
            mark(out, N_CHARACTERS, S[L.ZONE_MASKS + L.STAGING] & LOCATION_BITS, LOCATION_FIRST)
            mark(out, N_CHARACTERS + N_LOCATIONS, staged_enemies, ENEMY_FIRST)
            out[N_CHARACTERS + N_LOCATIONS + N_ENEMIES] = S[L.ROUND]
        elif encoding == 2:
            mark(out, N_CHARACTERS, staged_enemies, ENEMY_FIRST)
            out[N_CHARACTERS + N_ENEMIES] = staging_threat(S)
        else:
            mark(out, N_CHARACTERS, S[L.ZONE_MASKS + L.ENGAGED], ENEMY_FIRST)
            out[N_CHARACTERS + N_ENEMIES] = staging_threat(S)
    elif phase == L.DEFENSE:
        mark(out, 0, ready(S), 0)
        mark(out, N_CHARACTERS, S[L.ZONE_MASKS + L.ENGAGED], ENEMY_FIRST)
        out[N_CHARACTERS + N_ENEMIES] = S[L.ROUND]


@kernel
def encode_batch(states, encoding, out):
    """Row i of ``out`` = the encoding of ``states[i]``."""
    for i in range(states.shape[0]):
        encode(states[i], encoding, out[i])
