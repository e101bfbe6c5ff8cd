"""A game's event record and its readable, round-by-round text."""

from __future__ import annotations

from typing import NamedTuple

from lotr_sim import layout as L
from lotr_sim.cards import QUEST_STAGES, card_label

OUTCOME_NAMES = {L.ONGOING: "ongoing", L.WIN: "win", L.LOST_BY_THREAT: "lost by threat", L.LOST_BY_HEROES: "lost by heroes"}


class Event(NamedTuple):
    """One thing that happened: ``kind`` is a layout.EV_* code; a, b, c as documented there."""

    kind: int
    round: int
    a: int
    b: int
    c: int


def describe(event: Event) -> str:
    """One event as a line of text."""
    kind, _, a, b, c = event
    if kind == L.EV_SETUP_STAGING:
        return f"setup: {card_label(a)} starts in the staging area"
    if kind == L.EV_ROUND:
        return f"threat {a}"
    if kind == L.EV_RESOURCES:
        return f"resources: {a} available"
    if kind == L.EV_DRAW:
        return "draw: player deck is empty" if a < 0 else f"draw {card_label(a)}"
    if kind == L.EV_BUY:
        return f"buy {card_label(a)} for {b} ({c} left)"
    if kind == L.EV_COMMIT:
        return f"commit {card_label(a)} (willpower {b})"
    if kind == L.EV_REVEAL:
        return "reveal: encounter deck is empty" if a < 0 else f"reveal {card_label(a)}"
    if kind == L.EV_QUEST_RESULT:
        return f"quest: willpower {a} against staging threat {b}"
    if kind == L.EV_LOCATION_PROGRESS:
        return f"progress {b} on {card_label(a)} ({c} now)"
    if kind == L.EV_EXPLORED:
        return f"{card_label(a)} explored"
    if kind == L.EV_QUEST_PROGRESS:
        name, points = QUEST_STAGES[c]
        return f"progress {a} on {name} ({b}/{points})"
    if kind == L.EV_STAGE_DONE:
        return f"quest stage {QUEST_STAGES[a][0]} completed"
    if kind == L.EV_THREAT:
        return f"threat +{a} -> {b}"
    if kind == L.EV_TRAVEL:
        return f"travel to {card_label(a)}"
    if kind == L.EV_ENGAGE:
        return f"{card_label(a)} engages"
    if kind == L.EV_DEFEND:
        return f"{card_label(a)} attacks, {card_label(b)} defends: {c} damage"
    if kind == L.EV_UNDEFENDED:
        return f"{card_label(a)} attacks undefended: {c} damage to {card_label(b)}"
    if kind == L.EV_DESTROYED:
        return f"{card_label(a)} is destroyed"
    if kind == L.EV_ATTACK:
        return f"{card_label(a)} attacks {card_label(b)}: {c} damage"
    if kind == L.EV_GANDALF_LEAVES:
        return f"{card_label(a)} is discarded at refresh"
    if kind == L.EV_OUTCOME:
        return f"game over: {OUTCOME_NAMES[a]}"
    raise ValueError(f"unknown event kind {kind}")


def format_trace(events: list[Event]) -> str:
    """The events as text: a header per round, one indented line per event,
    the outcome on a line of its own."""
    lines = []
    for event in events:
        if event.kind == L.EV_ROUND:
            lines.append(f"Round {event.round} ({describe(event)})")
        elif event.round == 0 or event.kind == L.EV_OUTCOME:
            lines.append(describe(event))
        else:
            lines.append("  " + describe(event))
    return "\n".join(lines)
