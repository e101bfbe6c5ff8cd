"""What the player sees (docs/lotr-rules.md, "Information"): everything but the deck orders."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from lotr_sim import layout as L
from lotr_sim.actions import Stage
from lotr_sim.cards import N_CARDS


@dataclass(frozen=True)
class Observation:
    """The visible part of a game state. Card lists hold card ids in id order;
    the two decks are given as their contents only, never their order."""

    difficulty: str
    round: int
    stage: Stage | None  # the pending decision, None when the game is over
    outcome: int  # layout.ONGOING, WIN, LOST_BY_THREAT or LOST_BY_HEROES
    threat: int
    resources: tuple[int, int, int]  # per hero (ids 0, 1, 2)
    hand: tuple[int, ...]
    in_play: tuple[int, ...]  # heroes and allies
    exhausted: tuple[int, ...]  # the characters in play that are exhausted
    damage: tuple[tuple[int, int], ...]  # (card, damage) for damaged cards in play
    staging: tuple[int, ...]
    engaged: tuple[int, ...]
    active_location: int | None
    location_progress: int
    quest_stage: int
    quest_progress: int
    player_discard: tuple[int, ...]
    encounter_discard: tuple[int, ...]
    destroyed_heroes: tuple[int, ...]
    player_deck: tuple[int, ...]  # contents, sorted by id
    encounter_deck: tuple[int, ...]  # contents, sorted by id

    @property
    def total_resources(self) -> int:
        return sum(self.resources)

    @property
    def ready(self) -> tuple[int, ...]:
        """Characters in play that are not exhausted."""
        return tuple(c for c in self.in_play if c not in self.exhausted)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["stage"] = None if self.stage is None else self.stage.label
        return data


def cards_of(mask: int) -> tuple[int, ...]:
    """The card ids of a bitmask, in id order."""
    return tuple(c for c in range(N_CARDS) if mask >> c & 1)


def zone_of_cards(S: np.ndarray) -> list[int]:
    """The zone of every card id."""
    zones = [0] * N_CARDS
    for z in range(L.N_ZONES):
        for c in cards_of(int(S[L.ZONE_MASKS + z])):
            zones[c] = z
    return zones


def observe(S: np.ndarray) -> Observation:
    """The observation of the core state ``S``; reads no deck order."""

    def ids(zone: int) -> tuple[int, ...]:
        return cards_of(int(S[L.ZONE_MASKS + zone]))

    in_play = ids(L.IN_PLAY)
    damaged = np.flatnonzero(S[L.DAMAGE : L.DAMAGE + N_CARDS]).tolist()
    active = ids(L.ACTIVE_LOCATION)
    phase = int(S[L.PHASE])
    return Observation(
        difficulty=L.DIFFICULTIES[int(S[L.DIFFICULTY])],
        round=int(S[L.ROUND]),
        stage=None if phase == L.GAME_OVER else Stage(phase),
        outcome=int(S[L.OUTCOME]),
        threat=int(S[L.THREAT_LEVEL]),
        resources=tuple(int(r) for r in S[L.RESOURCES : L.RESOURCES + 3]),
        hand=ids(L.HAND),
        in_play=in_play,
        exhausted=cards_of(int(S[L.EXHAUSTED_MASK] & S[L.ZONE_MASKS + L.IN_PLAY])),
        damage=tuple((c, int(S[L.DAMAGE + c])) for c in damaged),
        staging=ids(L.STAGING),
        engaged=ids(L.ENGAGED),
        active_location=active[0] if active else None,
        location_progress=int(S[L.LOCATION_PROGRESS]),
        quest_stage=int(S[L.QUEST_STAGE]),
        quest_progress=int(S[L.QUEST_PROGRESS]),
        player_discard=ids(L.PLAYER_DISCARD),
        encounter_discard=ids(L.ENCOUNTER_DISCARD),
        destroyed_heroes=ids(L.DESTROYED_HEROES),
        player_deck=ids(L.PLAYER_DECK),
        encounter_deck=ids(L.ENCOUNTER_DECK),
    )
