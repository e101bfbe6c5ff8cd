"""Search spaces: one declaration of a parameter's domain (an Optuna distribution; Hyperopt's in tuning.samplers).

A study file declares each searched parameter as a TOML inline table:

- ``{ int = [low, high] }`` with optional ``step`` (default 1) or ``log = true``;
- ``{ float = [low, high] }`` with optional ``step`` or ``log = true`` (bounds and step finite: no nan, no inf);
- ``{ choice = [a, b, ...] }``: categorical (the thesis's ``hp.choice`` lists).

Parameter names are those of the setups: ``budget`` (every stage whose agent
has it) or ``questing.budget`` (one stage).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import optuna

from agents.specs import SpecError


@dataclass(frozen=True)
class Domain:
    """The values one parameter can take."""

    name: str
    kind: str  # "int", "float" or "choice"
    low: float | None = None
    high: float | None = None
    step: float | None = None
    log: bool = False
    choices: tuple = ()

    @classmethod
    def parse(cls, name: str, value: Any, where: str) -> Domain:
        """A domain from its study-file form; SpecError (one line) naming ``where``."""
        form = "{ int = [low, high] }, { float = [low, high] } (optional step or log = true) or { choice = [...] }"
        if not isinstance(value, dict):
            raise SpecError(f"{where} = {value!r} is invalid; expected {form}")
        kinds = [k for k in ("int", "float", "choice") if k in value]
        extra = set(value) - {"int", "float", "choice", "step", "log"}
        if len(kinds) != 1 or extra:
            raise SpecError(f"{where} = {value!r} is invalid; expected {form}")
        kind = kinds[0]
        if kind == "choice":
            choices = value["choice"]
            if not isinstance(choices, list) or not choices or set(value) != {"choice"}:
                raise SpecError(f"{where}.choice = {choices!r} is invalid; expected a non-empty list of values")
            return cls(name, kind, choices=tuple(choices))
        bounds = value[kind]
        number = int if kind == "int" else (int, float)
        finite = "finite " if kind == "float" else ""  # an int always is
        if (
            not isinstance(bounds, list)
            or len(bounds) != 2
            or not all(isinstance(b, number) and not isinstance(b, bool) and -math.inf < b < math.inf for b in bounds)
            or bounds[0] > bounds[1]
        ):
            raise SpecError(f"{where}.{kind} = {bounds!r} is invalid; expected [low, high] with low <= high "
                            f"({finite}{kind}s)")
        log = value.get("log", False)
        step = value.get("step")
        if not isinstance(log, bool) or (log and (step is not None or bounds[0] <= 0)):
            raise SpecError(f"{where}.log = {log!r} is invalid; log needs low > 0 and no step")
        widest = max(bounds[1] - bounds[0], 1)  # a step wider than the range gives the low bound alone
        if step is not None and (not isinstance(step, number) or isinstance(step, bool) or not 0 < step <= widest):
            shown = f"{widest:g}" if isinstance(widest, float) else widest  # an int may be too large for a float
            raise SpecError(f"{where}.step = {step!r} is invalid; expected a positive {finite}{kind} of at most {shown}")
        if kind == "int" and step is None and not log:
            step = 1
        return cls(name, kind, bounds[0], bounds[1], step, log)

    def distribution(self) -> optuna.distributions.BaseDistribution:
        """The same domain as an Optuna distribution (to compare with a stored study's)."""
        if self.kind == "choice":
            return optuna.distributions.CategoricalDistribution(list(self.choices))
        if self.kind == "int":
            step = int(self.step or 1)
            return optuna.distributions.IntDistribution(int(self.low), int(self.high), log=self.log, step=step)
        return optuna.distributions.FloatDistribution(self.low, self.high, log=self.log, step=self.step)

    def suggest(self, trial: optuna.Trial) -> Any:
        """The trial's value for this parameter (Optuna)."""
        if self.kind == "choice":
            return trial.suggest_categorical(self.name, list(self.choices))
        if self.kind == "int":
            return trial.suggest_int(self.name, int(self.low), int(self.high), step=int(self.step or 1), log=self.log)
        return trial.suggest_float(self.name, self.low, self.high, step=self.step, log=self.log)

    def __str__(self) -> str:
        if self.kind == "choice":
            return f"{self.name}: one of {list(self.choices)}"
        detail = " (log)" if self.log else (f" step {self.step:g}" if self.step and self.step != 1 else "")
        return f"{self.name}: {self.kind} in [{self.low:g}, {self.high:g}]{detail}"
