"""Nim as a game of the interface: two seats, the Python state over the compiled kernels."""

from __future__ import annotations

import numpy as np

from gamecore.errors import IllegalActionError, SpecError
from gamecore.interface import ActionSpace, Encoder, Game
from gamecore.params import Param
from gamecore.state import FlatState, within
from gametune_nim import kernels as K

MOST_PILE = 10_000  # the largest pile option
NAMES = {K.PILE: "PILE", K.TO_MOVE: "TO_MOVE", K.WINNER: "WINNER", K.MOVES: "MOVES", K.MAX_TAKE: "MAX_TAKE"}


def check_state(S: np.ndarray) -> None:
    """SpecError (one line) unless the kernels can play ``S``: a pile and a take within the options' ranges (a take
    of 0 would never end a game), a player to move, a winner only once the pile is empty."""
    within(S, NAMES, K.PILE, 0, MOST_PILE, "stones")
    within(S, NAMES, K.MAX_TAKE, 1, K.MOST_TAKE, "stones")
    within(S, NAMES, K.TO_MOVE, 0, 1, "a player")
    within(S, NAMES, K.WINNER, -1, 1, "a player (-1: none yet)")
    within(S, NAMES, K.MOVES, 0, MOST_PILE, "moves")
    problems = broken(S)
    if problems:
        raise SpecError(f"the fields disagree: {problems[0]}")


class NimState(FlatState):
    """A game of Nim: ``legal_actions()`` are the numbers of stones that may be taken."""

    kernels = K
    decision = "take"
    check_state = staticmethod(check_state)  # what from_json refuses

    def __init__(self, seed: int = 0, pile: int = 0, max_take: int = 3, trace: bool = False):
        super().__init__(seed, np.array([pile, max_take], np.int64), trace)

    @property
    def pile(self) -> int:
        return int(self._s[K.PILE])

    def legal_actions(self) -> list[int]:
        return [] if self.is_over else list(range(1, int(K.most(self._s)) + 1))

    def apply(self, action: int) -> None:
        if action not in self.legal_actions():
            raise IllegalActionError(f"take {action!r} is illegal with {self.pile} stones left; legal: {self.legal_actions()}")
        if self._trace is not None:
            self._trace.append(f"player {self.to_move} takes {action}, {self.pile - action} left")
        K.apply(self._s, np.array([action], np.int64), np.zeros(4, np.int64))

    def observation(self, player: int) -> dict[str, int]:
        return {"pile": self.pile, "to_move": self.to_move, "max_take": int(self._s[K.MAX_TAKE])}

    def action_from_vector(self, act: np.ndarray) -> int:
        return int(act[0])

    def vector(self, action: int) -> np.ndarray:
        return np.array([action], np.int64)

    def trace_text(self) -> str:
        return "\n".join(self._trace or []) + f"\nwinner: player {int(self._s[K.WINNER])}"


ROLES = ("first", "second")


def broken(S: np.ndarray) -> list[str]:
    """What a Nim state breaks: the pile is never negative and the game has a winner exactly when it is empty."""
    problems = [f"pile {S[K.PILE]}"] if S[K.PILE] < 0 else []
    if (S[K.WINNER] >= 0) != (S[K.PILE] == 0):
        problems.append(f"winner {S[K.WINNER]} with {S[K.PILE]} stones left")
    return problems


GAME = Game(
    name="nim",
    kernels=K,
    roles=ROLES,
    policies=("random", "optimal"),
    options=(
        Param("pile", int, 0, 0, MOST_PILE, help="stones at the start; 0 draws 10-30 from the deal seed"),
        Param("max_take", int, 3, 1, K.MOST_TAKE, help="most stones taken in one move"),
    ),
    new_game=NimState,
    state_from_json=NimState.from_json,
    state_from_core=NimState.from_core,
    summarise=lambda records: {"mean_moves": float(records[:, 0].mean()) if len(records) else 0.0},
    describe=lambda metrics, games: [f"moves per game: mean {metrics['mean_moves']:.2f}"],
    metric_names=("mean_moves",),
    perfect_information=True,
    help="Nim: take 1 to max_take stones, the last stone wins (the test suite's second game)",
    encoders=(Encoder("binary", dict.fromkeys(ROLES, K.ENCODING_SIZE), help="the pile and max_take in binary, "
                      "whether the player is to move"),),
    action_spaces=(ActionSpace("direct", dict.fromkeys(ROLES, K.MOST_TAKE), help="index i takes i + 1 stones"),),
    invariants="gametune_nim.game:broken",
)
