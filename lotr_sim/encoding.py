"""State encodings (thesis section 5.3), indexed by the card ids of RULES.md, compiled.

Each is a float vector of card indicators followed by one integer feature:

- planning: allies in hand (15), enemies in staging (13), resources (1): 29.
- questing, by encoding type: characters in play (18), then
  0: enemies in staging (13), round: 32;
  1: locations in staging (12), enemies in staging (13), round: 44;
  2: enemies in staging (13), staging threat: 32;
  3: engaged enemies (13), staging threat: 32.
- defense: ready characters (18), engaged enemies (13), round: 32.

They read the visible state only.
"""

from gamecore.jit import kernel
from lotr_sim import layout as L
from lotr_sim.cards import ALLY_FIRST, ENEMY_FIRST, LOCATION_FIRST, N_CARDS
from lotr_sim.rules import ENEMY_BITS, LOCATION_BITS, lowest, ready, staging_threat, total_resources

N_ALLIES = ENEMY_FIRST - ALLY_FIRST
N_CHARACTERS = ENEMY_FIRST
N_ENEMIES = LOCATION_FIRST - ENEMY_FIRST
N_LOCATIONS = N_CARDS - LOCATION_FIRST
PLANNING_SIZE = N_ALLIES + N_ENEMIES + 1
QUESTING_SIZES = (N_CHARACTERS + N_ENEMIES + 1, N_CHARACTERS + N_LOCATIONS + N_ENEMIES + 1) + (N_CHARACTERS + N_ENEMIES + 1,) * 2
DEFENSE_SIZE = N_CHARACTERS + N_ENEMIES + 1


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
def encode(S, encoding, out):
    """Fill ``out`` with the encoding of the pending decision of ``S`` (planning, questing or defense)."""
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
