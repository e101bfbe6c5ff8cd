"""``FlatState``: the Python state of a game whose state is its kernels' flat array (Nim, Love Letter, Carcassonne).

A game's state class sets ``kernels``, ``decision`` and ``check_state`` and
adds what is its own (legal actions, apply with its reasons, observation); the
rest of the interface (``gamecore.interface``), determinize and the JSON form
included, is here, once.

``from_json`` reads what a client sends (a served model's input), and the
compiled kernels index arrays with the state's values unchecked: a value out
of its range, or fields that disagree, would read or write outside an array
or crash the process. So it takes a list of ``STATE_SIZE`` integers only and
hands it to the game's ``check_state``, which refuses, in one line naming the
index and what is allowed there, any state its kernels cannot safely play
(``within`` and ``field`` help word it alike in every game).
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

    @staticmethod
    def check_state(S: np.ndarray) -> None:
        """SpecError (one line naming the index and what is allowed) unless the kernels can safely play the flat
        state ``S``: every value in its range, and the fields agreeing wherever the kernels rely on it. Each game
        sets its own (``check_state = staticmethod(...)``); without one, ``from_json`` accepts nothing."""
        raise SpecError("this game checks no state given as JSON: its state class sets no check_state")

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
    def from_json(cls, text: str | bytes):
        """The state of ``to_json`` text (e.g. a served model's input); SpecError, one line naming the problem, for
        anything else: not a string, not JSON, no list ``state`` of ``STATE_SIZE`` integers (a bool, a float or a
        string is no integer), or a state the kernels cannot safely play (``check_state``)."""
        try:
            return cls.from_core(cls._checked(text))
        except SpecError as error:
            raise SpecError(f"not a {cls.__name__}: {error}") from None

    @classmethod
    def _checked(cls, text: str | bytes) -> np.ndarray:
        if not isinstance(text, (str, bytes, bytearray)):
            raise SpecError(f"expected a JSON string, got {type(text).__name__}")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as error:  # JSONDecodeError, UnicodeDecodeError; nesting too deep
            raise SpecError(f"not valid JSON: {error}") from None
        values = data.get("state") if isinstance(data, dict) else None
        size = cls.kernels.STATE_SIZE
        if not isinstance(values, list) or len(values) != size:
            if isinstance(values, list):
                got = f"a list of {len(values)} values"
            elif isinstance(data, dict) and "state" in data:
                got = f"{type(values).__name__} for state"
            else:
                got = "an object without a key state" if isinstance(data, dict) else type(data).__name__
            raise SpecError(f'expected an object {{"state": a list of {size} integers}}, got {got}')
        for i, value in enumerate(values):
            if type(value) is not int or not -(2**63) <= value < 2**63:
                shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
                raise SpecError(f"state[{i}] = {shown}: expected a 64-bit integer")
        S = np.array(values, np.int64)
        cls.check_state(S)
        return S


def field(names: dict[int, str], index: int) -> str:
    """``index`` of a flat state and the name of its field: ``state[20] (TO_MOVE)``, ``state[33] (SEEN + 3)``;
    ``names`` maps each field's first index to its name (a kernels module's layout constants)."""
    start = max((at for at in names if at <= index), default=None)
    if start is None:
        return f"state[{index}]"
    name = names[start] if index == start else f"{names[start]} + {index - start}"
    return f"state[{index}] ({name})"


def within(S: np.ndarray, names: dict[int, str], index: int, low: int, high: int, what: str = "") -> int:
    """``S[index]``, or SpecError naming it unless ``low <= S[index] <= high`` (``what``: the values' meaning)."""
    value = int(S[index])
    if low == high != value:
        raise SpecError(f"{field(names, index)} = {value}: expected {low}{f' ({what})' if what else ''}")
    if not low <= value <= high:
        raise SpecError(f"{field(names, index)} = {value}: expected {what + ' ' if what else ''}in [{low}, {high}]")
    return value
