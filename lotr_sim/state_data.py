"""A LOTR state as data (``GameState.to_dict`` / ``from_dict`` / ``from_json``): every field by name, read back with
each field's presence and type checked (``state_from_dict``), and whether the fields agree (``check_consistency``),
so that a state from outside (a served model's input) is one the compiled rules can play."""

from __future__ import annotations

import numpy as np

from lotr_sim import layout as L
from lotr_sim.actions import Outcome
from lotr_sim.cards import ALLY, CARDS, ENEMY, HERO, LOCATION, N_CARDS
from lotr_sim.defects import DEFECTS
from lotr_sim.observation import zone_of_cards

PHASE_NAMES = ("resource", "planning", "questing", "travel", "encounter", "defense", "attack", "refresh", "game over")
_SECTIONS = (
    ("damage", L.DAMAGE, N_CARDS),
    ("player_deck_order", L.PLAYER_DECK_ORDER, L.PLAYER_DECK_SIZE),
    ("encounter_deck_order", L.ENCOUNTER_DECK_ORDER, L.ENCOUNTER_DECK_SIZE),
    ("resources", L.RESOURCES, 3),
)
_SCALARS = (
    ("player_top", L.PLAYER_TOP),
    ("encounter_top", L.ENCOUNTER_TOP),
    ("encounter_length", L.ENCOUNTER_LEN),
    ("threat", L.THREAT_LEVEL),
    ("round", L.ROUND),
    ("quest_progress", L.QUEST_PROGRESS),
    ("quest_stage", L.QUEST_STAGE),
    ("quest_stages", L.QUEST_STAGE_COUNT),
    ("location_progress", L.LOCATION_PROGRESS),
)
_OPTIONAL_SCALARS = (  # 0 when absent (a state written before the published rules existed)
    ("rules", L.RULES),
    ("ally_order", L.ALLY_ORDER),
)
_NAMED = (
    ("difficulty", L.DIFFICULTY, L.DIFFICULTIES),
    ("phase", L.PHASE, PHASE_NAMES),
    ("outcome", L.OUTCOME, tuple(o.label for o in Outcome)),
)


def state_to_dict(S: np.ndarray) -> dict:
    data = {"format": "lotr_sim.state/1"}
    for name, offset, names in _NAMED:
        data[name] = names[int(S[offset])]
    for name, offset in _SCALARS + _OPTIONAL_SCALARS:
        data[name] = int(S[offset])
    for name, offset, size in _SECTIONS:
        data[name] = S[offset : offset + size].tolist()
    data["zones"] = [L.ZONE_NAMES[z] for z in zone_of_cards(S)]
    data["exhausted"] = [int(S[L.EXHAUSTED_MASK]) >> c & 1 for c in range(N_CARDS)]
    return data


def _shown(value) -> str:
    text = "null" if value is None else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _integer(value, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name}: expected an integer, got {_shown(value)}")  # noqa: TRY004
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"{name}: {value} is out of range")
    return int(value)


def state_from_dict(data: dict) -> np.ndarray:
    """Rebuild a state array from ``state_to_dict`` data, checking every field's presence and type
    (ValueError naming the field). Whether the fields agree is ``check_consistency``'s business."""
    if not isinstance(data, dict):
        raise ValueError(f"expected an object, got {'null' if data is None else type(data).__name__}")  # noqa: TRY004
    if data.get("format") != "lotr_sim.state/1":
        raise ValueError(f"format: expected 'lotr_sim.state/1', got {_shown(data.get('format'))}")
    S = np.zeros(L.STATE_SIZE, np.int64)
    try:
        for name, offset, names in _NAMED:
            if not isinstance(data[name], str) or data[name] not in names:
                raise ValueError(f"{name}: {_shown(data[name])} is not one of {', '.join(names)}")
            S[offset] = names.index(data[name])
        for name, offset in _SCALARS:
            S[offset] = _integer(data[name], name)
        for name, offset in _OPTIONAL_SCALARS:
            S[offset] = _integer(data.get(name, 0), name)
        for name, offset, size in _SECTIONS:
            values = data[name]
            if not isinstance(values, list) or len(values) != size:
                raise ValueError(f"{name}: expected a list of {size} integers, got {_shown(values)}")
            S[offset : offset + size] = [_integer(value, f"{name}[{i}]") for i, value in enumerate(values)]
        zones = data["zones"]
        if not isinstance(zones, list) or len(zones) != N_CARDS:
            raise ValueError(f"zones: expected a list of {N_CARDS} zone names, got {_shown(zones)}")
        for card, name in enumerate(zones):
            if not isinstance(name, str) or name not in L.ZONE_NAMES:
                raise ValueError(f"zones[{card}]: {_shown(name)} is not one of {', '.join(L.ZONE_NAMES)}")
            S[L.ZONE_MASKS + L.ZONE_NAMES.index(name)] |= 1 << card
        exhausted = data["exhausted"]
        if (
            not isinstance(exhausted, list)
            or len(exhausted) != N_CARDS
            or any(isinstance(flag, (bool, np.bool_)) or not isinstance(flag, (int, np.integer)) or flag not in (0, 1)
                   for flag in exhausted)
        ):
            raise ValueError(f"exhausted: expected a list of {N_CARDS} flags (0 or 1), got {_shown(exhausted)}")
        S[L.EXHAUSTED_MASK] = sum(int(flag) << card for card, flag in enumerate(exhausted))
    except KeyError as missing:
        raise ValueError(f"lacks the field {missing}") from None
    return S


# The zones each kind of card can be in (docs/lotr-rules.md): checked by check_consistency.
_KIND_ZONES = {
    HERO: ("heroes", ("in play", "destroyed heroes")),
    ALLY: ("allies", ("player deck", "hand", "in play", "player discard")),
    ENEMY: ("enemies", ("encounter deck", "staging area", "engagement area", "encounter discard")),
    LOCATION: ("locations", ("encounter deck", "staging area", "active location", "encounter discard", "out of game")),
}


def _card(card: int) -> str:
    return f"card {card} ({CARDS[card].name})"


def check_consistency(data: dict) -> None:
    """ValueError (one line) unless the fields of well-typed ``state_to_dict`` data agree: positions
    within their decks, card ids in the deck orders, no negative counts, the unread part of each deck
    order holding exactly the cards of its deck zone (no card in two zones), every card in a zone of its
    kind, at most one active location, and the phase and the outcome telling the same story."""

    def within(name: str, low: int, high: int) -> None:
        if not low <= data[name] <= high:
            raise ValueError(f"{name}: {data[name]} is not in [{low}, {high}]")

    within("player_top", 0, int(L.PLAYER_DECK_SIZE))
    within("encounter_length", 0, int(L.ENCOUNTER_DECK_SIZE))
    within("encounter_top", 0, data["encounter_length"])
    within("quest_stages", 1, 3)
    within("quest_stage", 0, data["quest_stages"] - 1)
    if not 0 <= data.get("rules", 0) < 2 ** len(DEFECTS):
        raise ValueError(f"rules: {data['rules']} is not a set of defects (0-{2 ** len(DEFECTS) - 1})")
    for name in ("threat", "round", "quest_progress", "location_progress"):
        if data[name] < 0:
            raise ValueError(f"{name}: {data[name]} is negative")
    for name in ("damage", "resources"):
        for i, value in enumerate(data[name]):
            if value < 0:
                raise ValueError(f"{name}[{i}]: {value} is negative")
    for name in ("player_deck_order", "encounter_deck_order"):
        for i, card in enumerate(data[name]):
            if not 0 <= card < N_CARDS:
                raise ValueError(f"{name}[{i}]: {card} is not a card id (0-{N_CARDS - 1})")

    zones = data["zones"]
    decks = (
        ("player deck", data["player_deck_order"][data["player_top"] :], "player_deck_order from player_top"),
        (
            "encounter deck",
            data["encounter_deck_order"][data["encounter_top"] : data["encounter_length"]],
            "encounter_deck_order from encounter_top to encounter_length",
        ),
    )
    for zone, unread, where in decks:
        seen = set()
        for card in unread:
            if card in seen:
                raise ValueError(f"{_card(card)} is twice in {where}")
            seen.add(card)
            if zones[card] != zone:
                raise ValueError(f"{_card(card)} is in two zones: {zones[card]} (zones) and the {zone} ({where})")
        for card in range(N_CARDS):
            if zones[card] == zone and card not in seen:
                raise ValueError(f"{_card(card)} is in the {zone} (zones) but not in {where}")
    for card in range(N_CARDS):
        kinds, allowed = _KIND_ZONES[CARDS[card].kind]
        if zones[card] not in allowed:
            raise ValueError(f"{_card(card)} is in {zones[card]}: {kinds} are in {', '.join(allowed)}")
    active = [card for card in range(N_CARDS) if zones[card] == "active location"]
    if len(active) > 1:
        raise ValueError(f"zones: {len(active)} active locations ({', '.join(map(str, active))}); at most one")
    if (data["phase"] == "game over") != (data["outcome"] != "ongoing"):
        raise ValueError(
            f"outcome {data['outcome']!r} with phase {data['phase']!r}: "
            "a game is over (phase 'game over') exactly when its outcome is not 'ongoing'"
        )
