"""Errors raised by the simulator's Python interface, with messages that say why."""

from gamecore.errors import IllegalActionError
from lotr_sim import layout as L
from lotr_sim.cards import CARDS, card_label

__all__ = ["IllegalActionError", "TooManyActionsError", "rule_error_message"]


class TooManyActionsError(RuntimeError):
    """Enumerating the legal actions would exceed the given limit."""


def rule_error_message(err) -> str:
    """The message for an error code and arguments written by the compiled rules."""
    code, a, b, c = (int(x) for x in err[:4])
    messages = {
        L.ERR_NOT_IN_HAND: lambda: f"{card_label(a)} is not in hand",
        L.ERR_UNAFFORDABLE: lambda: f"{CARDS[a].name} costs {b}, {c} resources available",
        L.ERR_NOT_READY: lambda: f"{card_label(a)} is not a ready character in play",
        L.ERR_NOT_STAGED_LOCATION: lambda: f"{card_label(a)} is not a location in the staging area",
        L.ERR_SEVERAL_LOCATIONS: lambda: f"travel goes to one location only, got {card_label(a)} and {card_label(b)}",
        L.ERR_NOT_ENGAGED: lambda: f"{card_label(a)} is not an engaged enemy",
        L.ERR_ENEMY_UNASSIGNED: lambda: (
            f"engaged enemy {card_label(a)} has neither a defender nor a hero to take its damage"
        ),
        L.ERR_NOT_HERO: lambda: f"{card_label(a)} is not a hero: undefended damage from {card_label(b)} goes to a hero",
        L.ERR_HERO_DESTROYED: lambda: f"{card_label(a)} is no longer in play to take {card_label(b)}'s damage",
        L.ERR_DEFENDER_DESTROYED: lambda: (
            f"{card_label(a)} is destroyed earlier in this combat and cannot defend against {card_label(b)}"
        ),
        L.ERR_DEFENDS_TWICE: lambda: (
            f"{card_label(a)} defends against both {card_label(b)} and {card_label(c)}; "
            "a character defends at most once per round"
        ),
        L.ERR_TARGET_DESTROYED: lambda: f"{card_label(a)} is destroyed before {card_label(b)}'s attack resolves",
        L.ERR_NOT_CHARACTER: lambda: f"{card_label(a)} is not a character and cannot defend against {card_label(b)}",
        L.ERR_NOTHING_TO_DECIDE: lambda: "the game is over: there is no decision to make",
    }
    return messages[code]()
