"""Agent specifications: which agent decides a stage, with which parameters.

An ``AgentSpec`` is a validated, immutable value (agent name + parameters with
every default filled in). It is what setups, configuration files and tuning
trials hold; ``row()`` packs it into the float vector the compiled game loop
reads (column indices below). Parameter names are the same everywhere (files,
command line, tuning), so trials compare across studies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from lotr_sim.policies import EXPERT as EXPERT_CODE
from lotr_sim.policies import POLICY_NAMES
from lotr_sim.policies import RANDOM as RANDOM_CODE

# Agent codes of the compiled dispatcher (``agents.decide``).
RANDOM = RANDOM_CODE
EXPERT = EXPERT_CODE
FLAT_MC = 2
MCTS = 3
PYTHON = -1  # decided in Python (RL networks), outside the compiled game loop

# Columns of a compiled agent row.
KIND, BUDGET, PPN, C, PLAYOUT, REDUCE_PLANNING, REDUCE_QUESTING, REDUCE_DEFENSE, FINAL, ORACLE = range(10)
ROW_WIDTH = 10
FINAL_RULES = ("visits", "mean")  # most visits | best mean
MAX_BUDGET = 100_000
REDUCTION_STAGES = ("planning", "questing", "defense")


class SpecError(ValueError):
    """A bad agent, parameter or value; the message is one line naming the field and what is valid."""


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

    def valid(self) -> str:
        if self.type is bool:
            return "true or false"
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


_BUDGET = Param("budget", int, 200, 1, MAX_BUDGET, help="playouts per decision")
_PPN = Param("ppn", int, 20, 1, MAX_BUDGET, help="playouts per leaf evaluation (budget // ppn iterations)")
_C = Param("c", float, 1 / math.sqrt(2), 0.0, 100.0, help="UCB1 exploration constant: mean + c sqrt(2 ln N / n)")
_PLAYOUT = Param("playout", str, "random", choices=POLICY_NAMES, help="policy of the playouts")
_REDUCTIONS = tuple(
    Param(f"reduction_{stage}", bool, True, help=f"thesis action reduction at {stage} decisions (section 4.4)")
    for stage in REDUCTION_STAGES
)
RL_ALGORITHMS = ("q-macro", "ac-macro", "ac-direct")
_RL_PARAMS = (
    Param("algo", str, "ac-direct", choices=RL_ALGORITHMS, help="learning algorithm and action kind"),
    Param("encoding", int, 2, 0, 3, help="questing state encoding (thesis 5.3); planning and defense have one"),
    Param("neurons", int, 100, 1, 4096, help="hidden ReLU units"),
    Param("lr", float, 6.5e-4, 1e-7, 1.0, help="Adam learning rate"),
    Param("epsilon", float, 0.1, 0.0, 1.0, help="q-macro: exploration rate while training"),
    Param("policy", str, "greedy", choices=("greedy", "sample"), help="acting after training: best or sampled action"),
    Param("weights", str, "", help="trained weights (a .pt state_dict); empty: untrained"),
)
_FINAL = Param("final", str, "visits", choices=FINAL_RULES, help="the root action chosen: most visits or best mean")


@dataclass(frozen=True)
class AgentKind:
    """A kind of agent: its name, compiled code and parameters."""

    name: str
    code: int
    params: tuple[Param, ...]
    oracle: bool = False
    help: str = ""
    stages: tuple[str, ...] = ()  # the stages it can decide; empty: all

    def param(self, name: str, where: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        valid = ", ".join(p.name for p in self.params) or "none"
        raise SpecError(f"{where}: {self.name} has no parameter {name!r}; its parameters: {valid}")


AGENT_KINDS: dict[str, AgentKind] = {
    kind.name: kind
    for kind in (
        AgentKind("random", RANDOM, (), help="the thesis's random agent"),
        AgentKind("expert", EXPERT, (), help="the thesis's expert rules"),
        AgentKind("flat-mc", FLAT_MC, (_BUDGET, _PLAYOUT, *_REDUCTIONS), help="flat Monte Carlo over the root's actions"),
        AgentKind("mcts", MCTS, (_BUDGET, _PPN, _C, _PLAYOUT, *_REDUCTIONS, _FINAL), help="honest information-set MCTS"),
        AgentKind(
            "oracle-mcts",
            MCTS,
            (_BUDGET, _PPN, _C, _PLAYOUT, *_REDUCTIONS, _FINAL),
            oracle=True,
            help="MCTS on the true state, deck order known: an upper bound, not an honest agent",
        ),
        AgentKind(
            "rl",
            PYTHON,
            _RL_PARAMS,
            help="a small PyTorch network (thesis chapter 5)",
            stages=("planning", "questing", "defense"),
        ),
    )
}


def agent_names() -> tuple[str, ...]:
    return tuple(AGENT_KINDS)


@dataclass(frozen=True)
class AgentSpec:
    """An agent with all its parameters (defaults filled in): ``AgentSpec.make("mcts", budget=40)``."""

    agent: str
    params: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def make(cls, agent: str, where: str = "agent", **params: Any) -> AgentSpec:
        """Validate and complete; ``reduction=True/False`` sets the three reduction flags.

        Raises SpecError (one line naming ``where``, the field and what is valid)."""
        kind = AGENT_KINDS.get(agent)
        if kind is None:
            raise SpecError(f"{where}: unknown agent {agent!r}; valid: {', '.join(AGENT_KINDS)}")
        if "reduction" in params and any(p.name == "reduction_questing" for p in kind.params):
            flag = Param("reduction", bool, True).check(params.pop("reduction"), where)
            for stage in REDUCTION_STAGES:
                params.setdefault(f"reduction_{stage}", flag)
        values = {p.name: p.default for p in kind.params}
        for name, value in params.items():
            values[name] = kind.param(name, where).check(value, where)
        return cls(agent, tuple(values.items()))

    @property
    def kind(self) -> AgentKind:
        return AGENT_KINDS[self.agent]

    @property
    def oracle(self) -> bool:
        return self.kind.oracle

    def as_dict(self) -> dict[str, Any]:
        return dict(self.params)

    def __getitem__(self, name: str) -> Any:
        return self.as_dict()[name]

    def with_params(self, where: str = "agent", **params: Any) -> AgentSpec:
        """A copy with some parameters changed (validated); ``reduction`` overrides the three current flags."""
        current = self.as_dict()
        if "reduction" in params:
            current = {k: v for k, v in current.items() if not k.startswith("reduction_")}
        return AgentSpec.make(self.agent, where, **{**current, **params})

    def __str__(self) -> str:
        if not self.params:
            return self.agent
        return f"{self.agent}({', '.join(f'{k}={v:g}' if isinstance(v, float) else f'{k}={v}' for k, v in self.params)})"

    def row(self) -> np.ndarray:
        """The compiled agent row (columns KIND .. ORACLE)."""
        p = self.as_dict()
        row = np.zeros(ROW_WIDTH, np.float64)
        row[KIND] = self.kind.code
        row[BUDGET] = p.get("budget", 0)
        row[PPN] = min(p.get("ppn", 1), p.get("budget", 1))
        row[C] = p.get("c", 0.0)
        row[PLAYOUT] = POLICY_NAMES.index(p.get("playout", "random"))
        row[REDUCE_PLANNING] = p.get("reduction_planning", False)
        row[REDUCE_QUESTING] = p.get("reduction_questing", False)
        row[REDUCE_DEFENSE] = p.get("reduction_defense", False)
        row[FINAL] = FINAL_RULES.index(p.get("final", "visits"))
        row[ORACLE] = self.oracle
        return row
