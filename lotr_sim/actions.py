"""Actions: one immutable, hashable, readable type per decision stage; and the labelled enums of a game's course
(its stages, its outcome).

Actions name cards by id (docs/lotr-rules.md), so equal actions compare equal across
clones and determinizations. Constructors put their fields in canonical
(sorted) form and reject ids that do not exist.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from lotr_sim import layout as L
from lotr_sim.cards import N_CARDS, card_label
from lotr_sim.errors import IllegalActionError


class LabelledEnum(IntEnum):
    """An IntEnum that prints as its lower-case name ("lost by heroes")."""

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")

    def __str__(self) -> str:
        return self.label

    def __format__(self, spec: str) -> str:
        return format(self.label, spec)


class Outcome(LabelledEnum):
    """How a game stands: ongoing, or how it ended."""

    ONGOING = L.ONGOING
    WIN = L.WIN
    LOST_BY_THREAT = L.LOST_BY_THREAT
    LOST_BY_HEROES = L.LOST_BY_HEROES


class Stage(LabelledEnum):
    """The five decisions of a round (values are the core's phase codes)."""

    PLANNING = L.PLANNING
    QUESTING = L.QUESTING
    TRAVEL = L.TRAVEL
    DEFENSE = L.DEFENSE
    ATTACK = L.ATTACK


def _card_id(value, field: str) -> int:
    card = int(value)
    if not 0 <= card < N_CARDS or card != value:
        raise IllegalActionError(f"{field}: card id {value!r} does not exist (ids are 0-{N_CARDS - 1})")
    return card


def _card_set(values: Iterable[int], field: str) -> tuple[int, ...]:
    return tuple(sorted({_card_id(v, field) for v in values}))


def _card_pairs(pairs: Iterable[tuple[int, int]], field: str) -> tuple[tuple[int, int], ...]:
    result = []
    for pair in pairs:
        if len(pair) != 2:
            raise IllegalActionError(f"{field}: expected (card, card) pairs, got {pair!r}")
        result.append((_card_id(pair[0], field), _card_id(pair[1], field)))
    firsts = [a for a, _ in result]
    for a in firsts:
        if firsts.count(a) > 1:
            raise IllegalActionError(f"{field}: {card_label(a)} appears more than once")
    return tuple(sorted(result))


def _labels(ids: Iterable[int]) -> str:
    return ", ".join(card_label(c) for c in ids) or "nothing"


@dataclass(frozen=True, slots=True)
class Plan:
    """Planning: buy these allies from hand (card ids)."""

    buy: tuple[int, ...] = ()
    stage = Stage.PLANNING

    def __post_init__(self):
        object.__setattr__(self, "buy", _card_set(self.buy, "Plan.buy"))

    def fill(self, act: np.ndarray) -> None:
        act[list(self.buy)] = 1

    def __str__(self) -> str:
        return f"buy {_labels(self.buy)}"


@dataclass(frozen=True, slots=True)
class Quest:
    """Questing: commit these ready characters (card ids) to the quest."""

    commit: tuple[int, ...] = ()
    stage = Stage.QUESTING

    def __post_init__(self):
        object.__setattr__(self, "commit", _card_set(self.commit, "Quest.commit"))

    def fill(self, act: np.ndarray) -> None:
        act[list(self.commit)] = 1

    def __str__(self) -> str:
        return f"commit {_labels(self.commit)}"


@dataclass(frozen=True, slots=True)
class Travel:
    """Travel: make this staged location active, or None to stay."""

    location: int | None = None
    stage = Stage.TRAVEL

    def __post_init__(self):
        if self.location is not None:
            object.__setattr__(self, "location", _card_id(self.location, "Travel.location"))

    def fill(self, act: np.ndarray) -> None:
        if self.location is not None:
            act[self.location] = 1

    def __str__(self) -> str:
        return "no travel" if self.location is None else f"travel to {card_label(self.location)}"


@dataclass(frozen=True, slots=True)
class Defend:
    """Defense: for each engaged enemy, either a defender, ``(enemy, defender)``
    in ``blocks``, or the hero that takes its undefended attack,
    ``(enemy, hero)`` in ``undefended``. Attacks resolve in enemy-id order."""

    blocks: tuple[tuple[int, int], ...] = ()
    undefended: tuple[tuple[int, int], ...] = ()
    stage = Stage.DEFENSE

    def __post_init__(self):
        blocks = _card_pairs(self.blocks, "Defend.blocks")
        undefended = _card_pairs(self.undefended, "Defend.undefended")
        both = {e for e, _ in blocks} & {e for e, _ in undefended}
        if both:
            raise IllegalActionError(
                f"Defend: {_labels(sorted(both))} is both blocked and undefended; give each enemy one entry"
            )
        object.__setattr__(self, "blocks", blocks)
        object.__setattr__(self, "undefended", undefended)

    def fill(self, act: np.ndarray) -> None:
        for enemy, defender in self.blocks:
            act[enemy] = defender
        for enemy, hero in self.undefended:
            act[enemy] = L.UNDEFENDED + hero

    def __str__(self) -> str:
        parts = [f"{card_label(d)} blocks {card_label(e)}" for e, d in self.blocks]
        parts += [f"{card_label(e)} unblocked, {card_label(h)} takes the damage" for e, h in self.undefended]
        return "; ".join(parts) or "no attacks"


@dataclass(frozen=True, slots=True)
class Attack:
    """Attack: ``(character, enemy)`` pairs; characters left out do not attack.
    Attacks resolve in character-id order; a target must still be in play."""

    attacks: tuple[tuple[int, int], ...] = ()
    stage = Stage.ATTACK

    def __post_init__(self):
        object.__setattr__(self, "attacks", _card_pairs(self.attacks, "Attack.attacks"))

    def fill(self, act: np.ndarray) -> None:
        for character, enemy in self.attacks:
            act[character] = enemy

    def __str__(self) -> str:
        return "; ".join(f"{card_label(c)} attacks {card_label(e)}" for c, e in self.attacks) or "no attack"


Action = Plan | Quest | Travel | Defend | Attack
ACTION_TYPES = {Stage.PLANNING: Plan, Stage.QUESTING: Quest, Stage.TRAVEL: Travel, Stage.DEFENSE: Defend, Stage.ATTACK: Attack}


def encode(action: Action) -> np.ndarray:
    """The core's action vector of an action."""
    act = np.full(N_CARDS, L.NO_CHOICE, np.int64)
    action.fill(act)
    return act


def decode(stage: Stage, act: np.ndarray) -> Action:
    """The action of a core action vector for ``stage``."""
    return decode_choices(stage, [(card, value) for card, value in enumerate(act.tolist()) if value != L.NO_CHOICE])


def decode_choices(stage: Stage, choices: list[tuple[int, int]]) -> Action:
    """The action of (card, action-vector value) pairs, NO_CHOICE values left out."""
    if stage == Stage.PLANNING:
        return Plan([card for card, _ in choices])
    if stage == Stage.QUESTING:
        return Quest([card for card, _ in choices])
    if stage == Stage.TRAVEL:
        return Travel(choices[0][0] if choices else None)
    if stage == Stage.DEFENSE:
        blocks = [(e, v) for e, v in choices if v < L.UNDEFENDED]
        hits = [(e, v - L.UNDEFENDED) for e, v in choices if v >= L.UNDEFENDED]
        return Defend(blocks, hits)
    return Attack(choices)
