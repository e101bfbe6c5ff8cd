"""``FlatState``: the Python state of a game whose state is its kernels' flat array (Nim, Love Letter).

A game's state class sets ``kernels`` and ``decision`` and adds what is its
own (legal actions, apply with its reasons, observation); the rest of the
interface (``gamecore.interface``), determinize included, is here, once.
"""

from __future__ import annotations

import json
from types import ModuleType

import numpy as np

from gamecore.params import SpecError


class FlatState:
    """The shared part of a state over the compiled kernels ``kernels``."""

    kernels: ModuleType
    decision: str = "play"  # the decision kind of every turn

    def __init__(self, seed: int, options: np.ndarray, trace: bool = False):
        self._s = np.empty(self.kernels.STATE_SIZE, np.int64)
        self.kernels.deal_game(self._s, np.uint64(seed), options)
        self._trace: list[str] | None = [] if trace else None

    @property
    def is_over(self) -> bool:
        return bool(self.kernels.is_over(self._s))

    @property
    def to_move(self) -> int | None:
        return None if self.is_over else int(self.kernels.to_move(self._s))

    @property
    def decision_kind(self) -> str | None:
        return None if self.is_over else self.decision

    def returns(self) -> list[float]:
        return [float(self.kernels.reward(self._s, p)) for p in range(self.kernels.N_PLAYERS)]

    def clone(self):
        copy = type(self).__new__(type(self))
        copy._s, copy._trace = self._s.copy(), None if self._trace is None else list(self._trace)
        return copy

    def determinize(self, player: int, rng: np.random.Generator | int = 0):
        """A copy whose hidden information is re-drawn from what ``player`` sees (the kernels' ``determinize``)."""
        seed = rng if isinstance(rng, int) else int(rng.integers(2**63))
        copy = self.clone()
        self.kernels.determinize(copy._s, player, np.array([np.uint64(seed)], np.uint64))
        return copy

    def core_state(self) -> np.ndarray:
        """A copy of the flat state (hidden information included: honest agents determinize it first)."""
        return self._s.copy()

    @classmethod
    def from_core(cls, array: np.ndarray):
        """The state of a flat state array (a copy)."""
        state = cls.__new__(cls)
        state._s, state._trace = np.array(array, np.int64), None
        return state

    def to_json(self) -> str:
        return json.dumps({"state": self._s.tolist()})

    @classmethod
    def from_json(cls, text: str):
        """The state of ``to_json`` text; SpecError (one line) for anything else."""
        try:
            array = np.array(json.loads(text)["state"], np.int64)
        except (ValueError, KeyError, TypeError) as error:
            raise SpecError(f"not a {cls.__name__}: {error}") from None
        if array.shape != (cls.kernels.STATE_SIZE,):
            raise SpecError(f"not a {cls.__name__}: expected {cls.kernels.STATE_SIZE} integers, got {array.size}")
        return cls.from_core(array)
