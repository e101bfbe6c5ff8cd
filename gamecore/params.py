"""Validated parameters: of agents, of games (their options) and of searches, with one-line errors.

Every number a user gives is finite and bounded. An agent's or a game's number has its range in its ``Param``
(a numeric ``Param`` cannot be declared without one). How much a command or a study runs (games, episodes,
workers, trials, seconds) is capped by ``LIMITS``, the one table of caps, which ``--no-limits`` lifts: the caps
stop a typo from allocating arrays sized by the number or forking that many processes, not a deliberate run.
"""

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

    def __post_init__(self):
        if self.type in (int, float) and not self.choices:
            bounds = (self.low, self.high)
            if not all(isinstance(b, (int, float)) and math.isfinite(b) for b in bounds) or self.low > self.high:
                raise ValueError(f"parameter {self.name}: a number needs a finite range [low, high], "
                                 f"got [{self.low}, {self.high}]")

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
        # compared before any conversion: an integer too large for a float (JSON, TOML, --set) is out of range,
        # not an OverflowError
        if not self.low <= value <= self.high or (self.type is int and value != int(value)):  # NaN: not in range
            raise SpecError(problem)
        return int(value) if self.type is int else float(value)


NO_LIMITS = "--no-limits"  # the flag that lifts the caps (gametune eval, train, tune run, worker, retest, warm-up, game commands)
LIMITS = {  # a cap on how much is run: a study file's key or a command-line flag (--n-trials: n_trials) -> its cap
    "games": 10_000_000,  # games of a trial, a validation, a test (objective, validation, test), of gametune eval
    "deals": 10_000_000,  # deals of a game's own command (lotr limit)
    "nodes": 100_000_000,  # decisions a search may visit for one deal (lotr limit)
    "episodes": 100_000_000,  # training games of a trial ([training]) or of gametune train
    "envs": 4_096,  # games stepped together in training
    "window": 100_000_000,  # episodes of gametune train's moving win rate (as many as the episodes)
    "workers": 256,  # local processes ([search], gametune eval, tune run, warm-up)
    "n_trials": 100_000,  # a study's trials
    "top_k": 100_000,  # trials re-evaluated by the validation (as many as the trials)
    "timeout": 365 * 86_400,  # seconds of a study ([search] timeout)
    "wait": 7 * 86_400,  # seconds gametune tune worker waits for the study to start
    "heartbeat_interval": 86_400,  # seconds between a running trial's heartbeats
    "grace_period": 7 * 86_400,  # seconds without one before a worker counts as dead
}


def over_cap(name: str, value: float, limits: bool = True) -> str:
    """What a value over the cap on ``name`` should be, for a one-line error ("at most 10,000,000 (the cap on
    games; --no-limits lifts it)"); empty when it is within the cap or ``limits`` is False."""
    cap = LIMITS[name]
    if not limits or value <= cap:
        return ""
    return f"at most {cap:,} (the cap on {name}; {NO_LIMITS} lifts it)"


def add_capped(command: argparse.ArgumentParser, flag: str, **kwargs) -> None:
    """A whole-number flag whose value is capped by ``LIMITS`` (its name: the flag's, ``--n-trials``: n_trials)
    unless the command's --no-limits is given; checked once every flag is read (``tuning.cli.parse_command_line``,
    which parses every command, a game's own ones too)."""
    action = command.add_argument(flag, type=positive_int, **kwargs)
    assert action.dest in LIMITS, f"no cap on {flag}"
    command.set_defaults(capped=(*(command.get_default("capped") or ()), (action.dest, flag)))


def add_no_limits(command: argparse.ArgumentParser, study: bool = False) -> None:
    """The command's --no-limits, after its capped flags (named in its help, with the study file's keys)."""
    caps = [f"{flag} {LIMITS[dest]:,}" for dest, flag in command.get_default("capped") or ()]
    caps += ["the study file's games, episodes, envs, trials, top_k, workers and seconds"] if study else []
    command.add_argument(NO_LIMITS, action="store_true",
                         help=f"lift the caps ({'; '.join(caps)}) that stop a mistyped number from allocating or "
                              "forking that much")


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
