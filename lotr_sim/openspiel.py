"""LOTR's observation tensor for its OpenSpiel form (``gamecore.openspiel``: ``python_lotr``).

The tensor encodes ``observation()`` only, never a deck order: for every card
id, one-hot, the zone the player sees it in (a deck holds the cards not yet
drawn, unordered); whether it is exhausted and its damage; then the round,
threat, the heroes' resources, quest and location progress, the quest stage
and the pending decision, one-hot. ``python_lotr``'s information-state tensor
is the same (the observation is a sufficient statistic: what was drawn is
known, the order of the rest is uniform).
"""

from __future__ import annotations

import numpy as np

from lotr_sim.actions import Stage
from lotr_sim.cards import N_CARDS
from lotr_sim.state import GameState

ZONES = ("hand", "in_play", "staging", "engaged", "player_discard", "encounter_discard", "destroyed_heroes",
         "player_deck", "encounter_deck")
SCALARS = ("round", "threat", "location_progress", "quest_stage", "quest_progress")
STAGES = tuple(Stage)
PER_CARD = len(ZONES) + 3  # the zones, the active location, exhausted, damage
TENSOR_SIZE = N_CARDS * PER_CARD + len(SCALARS) + 3 + len(STAGES)


def observation_tensor(state: GameState, player: int, out: np.ndarray) -> None:
    """Fill ``out`` (``TENSOR_SIZE`` zeros) with what the player sees of ``state``."""
    seen = state.observation(player)
    cards = out[: N_CARDS * PER_CARD].reshape(N_CARDS, PER_CARD)
    for z, zone in enumerate(ZONES):
        cards[list(getattr(seen, zone)), z] = 1.0
    if seen.active_location is not None:
        cards[seen.active_location, len(ZONES)] = 1.0
    cards[list(seen.exhausted), len(ZONES) + 1] = 1.0
    for card, damage in seen.damage:
        cards[card, len(ZONES) + 2] = damage
    at = N_CARDS * PER_CARD
    out[at : at + len(SCALARS)] = [getattr(seen, name) for name in SCALARS]
    at += len(SCALARS)
    out[at : at + 3] = seen.resources
    at += 3
    if seen.stage is not None:
        out[at + STAGES.index(seen.stage)] = 1.0
