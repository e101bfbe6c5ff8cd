"""Validated parameters: of agents, of games (their options) and of searches, with one-line errors."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gamecore.errors import SpecError


@dataclass(frozen=True)
class Param:
    """One agent parameter: its type, default and valid values."""

    name: str
    type: type
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    help: str = ""
    shorthand: bool = False  # a game option: the command line also takes --<name> (LOTR's --difficulty)
    described: str = ""  # what the valid values are, where listing the choices would not help (too many)

    @property
    def flag(self) -> str:
        """The command-line flag of a shorthand option: ``--full-scenario`` for ``full_scenario``."""
        return f"--{self.name.replace('_', '-')}"

    def valid(self) -> str:
        if self.type is bool:
            return "true or false"
        if self.described:
            return self.described
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.type is str:
            return "a string"
        kind = "an integer" if self.type is int else "a number"
        return f"{kind} in [{self.low:g}, {self.high:g}]"

    def check(self, value: Any, where: str) -> Any:
        """The value converted to this parameter's type, or SpecError naming ``where``."""
        problem = f"{where}.{self.name} = {value!r} is invalid; expected {self.valid()}"
        if self.type is bool:
            if not isinstance(value, (bool, np.bool_)):
                raise SpecError(problem)
            return bool(value)
        if self.type is str:
            if not isinstance(value, str) or (self.choices and value not in self.choices):
                raise SpecError(problem)
            return value
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise SpecError(problem)
        if self.type is int:
            if not math.isfinite(value) or value != int(value):
                raise SpecError(problem)
            value = int(value)
        else:
            value = float(value)
        if not math.isfinite(value) or not self.low <= value <= self.high:
            raise SpecError(problem)
        return value


def _command_line_integer(value: str, fits: Callable[[int], bool], expected: str, outside: str) -> int:
    """``value`` as an integer that ``fits``, else argparse's one-line error."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {value!r}") from None
    if not fits(number):
        raise argparse.ArgumentTypeError(f"{outside}, got {number}")
    return number


def positive_int(value: str) -> int:
    """A command-line whole number of at least 1 (an argparse type)."""
    return _command_line_integer(value, lambda n: n >= 1, "a whole number", "must be at least 1")


def seed_int(value: str) -> int:
    """A command-line seed, an integer in [0, 2**64) (an argparse type)."""
    return _command_line_integer(value, lambda n: 0 <= n < 2**64, "an integer in [0, 2**64)",
                                 "expected an integer in [0, 2**64)")
