"""A fast, exact, seeded simulator of the simplified Lord of the Rings card game (docs/lotr-rules.md)."""

import gamecore  # noqa: F401  (configures the compiled code's cache before any compiled function is defined)
from lotr_sim.actions import Action, Attack, Defend, Outcome, Plan, Quest, Stage, Travel
from lotr_sim.cards import CARDS, card_label
from lotr_sim.errors import IllegalActionError, TooManyActionsError
from lotr_sim.observation import Observation
from lotr_sim.state import GameState, LegalActions

__all__ = [
    "CARDS",
    "Action",
    "Attack",
    "Defend",
    "GameState",
    "IllegalActionError",
    "LegalActions",
    "Observation",
    "Outcome",
    "Plan",
    "Quest",
    "Stage",
    "TooManyActionsError",
    "Travel",
    "card_label",
]
