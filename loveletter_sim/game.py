"""Love Letter as a game of the interface (``gamecore``): two seats, the Python state over the compiled rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gamecore.contract import joined
from gamecore.errors import IllegalActionError
from gamecore.interface import (
    ActionSpace,
    Command,
    CommandLine,
    Encoder,
    Game,
    Preset,
    PythonAgent,
    Reproduction,
    Search,
)
from gamecore.params import Param
from gamecore.state import FlatState
from loveletter_sim import encoding
from loveletter_sim import kernels as K
from loveletter_sim.encoding import ENCODING_SIZE, N_DIRECT
from loveletter_sim.published import PUBLISHED
from loveletter_sim.state_check import check_state

CARD_NAMES = ("", "Guard", "Priest", "Baron", "Maid", "Prince", "King", "Countess", "Princess")
TARGETS = ("opponent", "self")
REASONS = {
    K.ERR_NOT_IN_HAND: "the card is not in the hand",
    K.ERR_COUNTESS: "the Countess must be played with the Prince or the King",
    K.ERR_TARGET: "the target must be the opponent (only the Prince may target oneself; a protected opponent "
                  "leaves the Prince only oneself)",
    K.ERR_GUESS: "a Guard against an unprotected opponent names a card 2-8; other plays name none",
    K.ERR_OVER: "the game is over",
}


RANDOM_OPENING = "random"
OPENINGS = (RANDOM_OPENING, *(f"{low}-{high}" for low in range(1, 9) for high in range(low, 9)
                              if low != high or K.COPIES[low] > 1))  # the 33 hands of the thesis's Table 4


def option_codes(options: dict[str, Any]) -> np.ndarray:
    """``deal_game``'s options: the first player's two opening cards (0 0: dealt at random)."""
    opening = options.get("opening", RANDOM_OPENING)
    cards = (0, 0) if opening == RANDOM_OPENING else tuple(int(card) for card in opening.split("-"))
    return np.array(cards, np.int64)


@dataclass(frozen=True)
class Play:
    """Play ``card`` (1-8); the Prince's ``target`` (opponent or self); the Guard's ``guess`` (2-8)."""

    card: int
    target: str = "opponent"
    guess: int = 0

    def vector(self) -> np.ndarray:
        if self.target not in TARGETS:
            raise IllegalActionError(f"target {self.target!r} is invalid; expected one of {', '.join(TARGETS)}")
        return np.array([self.card, TARGETS.index(self.target), self.guess], np.int64)

    def __str__(self) -> str:
        text = f"{CARD_NAMES[self.card] if 0 < self.card < 9 else self.card}"
        if self.guess:
            text += f" naming {CARD_NAMES[self.guess]}"
        return text + (" on himself" if self.target == "self" else "")


class LoveLetterState(FlatState):
    """A two-player game of classic Love Letter (``docs/loveletter-rules.md``)."""

    kernels = K
    check_state = staticmethod(check_state)  # what from_json refuses

    def __init__(self, seed: int = 0, trace: bool = False, opening: str = RANDOM_OPENING):
        super().__init__(seed, option_codes(GAME.check_options({"opening": opening})), trace)

    def hand(self, player: int) -> list[int]:
        return sorted(int(c) for c in self._s[K.HAND + 2 * player: K.HAND + 2 * player + 2] if c)

    def legal_actions(self) -> list[Play]:
        if self.is_over:
            return []
        acts = np.empty((K.MAX_CANDIDATES, K.ACTION_SIZE), np.int64)
        n = K.legal_actions(self._s, acts)
        return [Play(int(a[0]), TARGETS[int(a[1])], int(a[2])) for a in acts[:n]]

    def apply(self, action: Play) -> None:
        """Play ``action``; IllegalActionError saying why when the rules forbid it."""
        vector = action.vector()
        code = K.check(self._s, vector)
        if code != K.OK:
            raise IllegalActionError(f"{action} is illegal: {REASONS[int(code)]}; hand {self.hand(self.to_move or 0)}")
        if self._trace is not None:
            self._trace.append(f"turn {int(self._s[K.TURNS]) + 1}: player {self.to_move} {self.hand(self.to_move)} "
                               f"plays {action}")
        K.apply(self._s, vector, np.zeros(4, np.int64))

    def observation(self, player: int) -> dict[str, Any]:
        """What ``player`` sees: his hand, every card played or discarded, the protections, and what he knows
        of the other's card; never the other's card otherwise, the set-aside card or the deck order."""
        s = self._s
        return {
            "player": player, "to_move": self.to_move, "hand": self.hand(player),
            "seen": [int(s[K.SEEN + v]) for v in range(1, 9)],
            "discarded": [int(s[K.DISCARDED]), int(s[K.DISCARDED + 1])],
            "protected": [bool(s[K.PROTECTED]), bool(s[K.PROTECTED + 1])],
            "known": int(s[K.KNOWN + player]),
            "ruled_out": [v for v in range(2, 9) if (int(s[K.NOT_HELD + player]) >> v) & 1],
            "deck": int(K.N_CARDS - s[K.TOP]), "aside_taken": bool(s[K.ASIDE_TAKEN]), "turns": int(s[K.TURNS]),
            "winner": int(s[K.WINNER]),
        }

    def action_from_vector(self, act: np.ndarray) -> Play:
        return Play(int(act[0]), TARGETS[int(act[1])], int(act[2]))

    def vector(self, action: Play) -> np.ndarray:
        return action.vector()

    def trace_text(self) -> str:
        winner = int(self._s[K.WINNER])
        end = "a draw" if winner == K.DRAW else f"player {winner} wins"
        return "\n".join([*(self._trace or []), f"{end}; hands {self.hand(0)} and {self.hand(1)}"])


def summarise(records: np.ndarray) -> dict[str, Any]:
    return {"mean_turns": float(records[:, 1].mean()) if len(records) else 0.0}


GAME = Game(
    name="loveletter",
    kernels=joined(K, encoding),
    roles=("first", "second"),
    policies=("random", "strategic"),
    options=(Param("opening", str, RANDOM_OPENING, choices=OPENINGS,
                   help="the first player's two first cards, e.g. 1-8 (the thesis's Tables 9-10)"),),
    option_codes=option_codes,
    new_game=LoveLetterState,
    state_from_json=LoveLetterState.from_json,
    state_from_core=LoveLetterState.from_core,
    summarise=summarise,
    describe=lambda metrics, games: [f"turns per game: mean {metrics['mean_turns']:.2f}"],
    help="Love Letter, classic two-player rules (Huibers 2016; docs/loveletter-rules.md)",
    metric_names=("mean_turns",),
    encoders=(Encoder("cards", dict.fromkeys(("first", "second"), ENCODING_SIZE),
                      help="hand, known and ruled-out values both ways, seen and unseen copies, protections, "
                           "discard totals, deck (loveletter_sim/encoding.py)"),),
    action_spaces=(ActionSpace("direct", dict.fromkeys(("first", "second"), N_DIRECT),
                               help="card x target x guess: a Guard's 7 guesses and none, the Prince on either "
                                    "player, one index per other card (loveletter_sim/encoding.py)"),),
    invariants="loveletter_sim.invariants:broken",
    search=Search(
        params=(Param("opponent_playout", str, "playout", choices=("playout", "dp"),
                      help="the opponent's moves in the playouts: the playout policy, or the DP player's table "
                           "played from each determinized world's hands (loveletter_sim/dp_playout.py)"),
                Param("own_playout", str, "playout", choices=("playout", "dp"),
                      help="the searcher's own moves in the playouts: the playout policy, or the DP table"),
                Param("opponent_belief", str, "uniform", choices=("uniform", "dp"),
                      help="the opponent's card in the determinized worlds: drawn uniformly from the unseen "
                           "copies, or only where the DP player would have made the opponent's last move "
                           "(loveletter_sim/dp_playout.py)")),
        table="loveletter_sim.dp_playout:packed_plays",
    ),
    reproduction=Reproduction(
        agents=(PythonAgent("dp", "loveletter_sim.dp_player:make",
                            help="the thesis's dynamic-programming player (section 3.2)"),),
        presets=(Preset("mc", "flat-mc", {"budget": 1000, "budget_per": "action", "playout": "random"},
                        help="the thesis's Monte Carlo player (3.1.2): 1000 random games for each option"),),
        published=PUBLISHED,
    ),
    command_line=CommandLine(
        commands=(Command("table", "the dynamic-programming table: the thesis's Table 4, entry counts, build time",
                          "loveletter_sim.dp:table_arguments", "loveletter_sim.dp:table_command"),),
    ),
)
