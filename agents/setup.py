"""Setups: which agent (an ``AgentSpec``) decides each of the five stages.

Short forms name the agents only, each with its default parameters:
``"P-Q-D"`` is planning-questing-defense with a random agent at travel and
attack (the thesis's convention, e.g. ``"random-mcts-mcts"``);
``"P-Q-T-D-A"`` names all five stages; a single name puts that agent on every
stage. Agent names may contain dashes
(``"flat-mc-oracle-mcts-random"``); the longest known name wins.

Configuration files (what tuning exports and ``lotr eval --config`` loads) are
TOML or JSON, chosen by suffix (``.toml`` / ``.json``)::

    format = 1                  # optional on read (only 1 exists); always written
    setup = "random-mcts-mcts"  # optional base short form; default: random at every stage
    travel = "expert"           # optional: a stage may be a plain agent name ...

    [defaults.mcts]             # optional: parameters for every stage whose agent is mcts
    budget = 40

    [questing]                  # ... or a table: agent (optional if the base names it) and parameters
    agent = "mcts"
    c = 1.0

    [metadata]                  # optional, free-form (study, trial, win rate); ignored by Setup

Precedence: stage table > ``defaults.<agent>`` > the agent's own defaults.
``reduction = true/false`` sets the three ``reduction_*`` flags (a specific
flag given alongside it wins). Files written by ``dump`` list every parameter of
every stage, so they do not depend on defaults that may change. Every problem
raises ``SpecError`` with one line naming the file and the key.
"""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

from agents.specs import AGENT_KINDS, PYTHON, AgentKind, AgentSpec, SpecError

STAGES = ("planning", "questing", "travel", "defense", "attack")
SHORT_STAGES = ("planning", "questing", "defense")  # the three-part short form
FORMAT = 1
TOP_KEYS = ("format", "setup", "defaults", "metadata", *STAGES)
SUFFIXES = (".toml", ".json")

_VALID_AGENTS = ", ".join(AGENT_KINDS)


def _split_agents(text: str) -> list[str]:
    """Dash-separated agent names, longest known name first; an unknown part runs to the next dash."""
    parts, i = [], 0
    while i <= len(text):
        end = text.find("-", i)
        name = text[i : end if end >= 0 else len(text)]  # unknown: up to the next dash
        for known in sorted(AGENT_KINDS, key=len, reverse=True):
            if text.startswith(known, i) and text[i + len(known) : i + len(known) + 1] in ("-", ""):
                name = known
                break
        parts.append(name)
        i += len(name) + 1
    return parts


def _has_param(kind: AgentKind, name: str) -> bool:
    names = {p.name for p in kind.params}
    return name in names or (name == "reduction" and "reduction_questing" in names)


def _table(value: Any, where: str, expected: str = "a table") -> dict:
    if not isinstance(value, dict):
        raise SpecError(f"{where}: expected {expected}, got {type(value).__name__}")
    return value


@dataclass(frozen=True)
class Setup:
    """One AgentSpec per decision stage."""

    planning: AgentSpec
    questing: AgentSpec
    travel: AgentSpec
    defense: AgentSpec
    attack: AgentSpec

    def __post_init__(self):
        for stage, spec in zip(STAGES, self.agents):
            if spec.kind.stages and stage not in spec.kind.stages:
                raise SpecError(f"{stage}: agent {spec.agent} decides {', '.join(spec.kind.stages)} only")

    # ---- construction -------------------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Setup:
        """The setup of a short form with default parameters: "P-Q-D" (travel and attack random),
        "P-Q-T-D-A", or one agent name for every stage."""
        parts = _split_agents(text)
        if len(parts) == 1 and parts[0] in AGENT_KINDS:
            return cls.uniform(parts[0])
        stages = {3: SHORT_STAGES, 5: STAGES}.get(len(parts))
        for i, name in enumerate(parts):
            if name not in AGENT_KINDS:
                at = stages[i] if stages else f"part {i + 1}"
                raise SpecError(f"setup {text!r}: unknown agent {name!r} at {at}; valid: {_VALID_AGENTS}")
        if stages is None:
            forms = f"1 agent, 3 parts ({'-'.join(SHORT_STAGES)}) or 5 ({'-'.join(STAGES)})"
            raise SpecError(f"setup {text!r}: expected {forms}, got {len(parts)}")
        names = dict.fromkeys(STAGES, "random") | dict(zip(stages, parts))
        return cls(**{stage: AgentSpec.make(name) for stage, name in names.items()})

    @classmethod
    def uniform(cls, agent: str) -> Setup:
        """The same agent, with its default parameters, at every stage."""
        spec = AgentSpec.make(agent, where="agent")
        return cls(*[spec] * len(STAGES))

    def with_params(self, assignments: dict[str, Any], where: str = "--set") -> Setup:
        """A copy with parameters changed: "budget" at every stage whose agent has it, "questing.budget" at one.

        Stage-wide keys are applied first, so a per-stage key wins over a stage-wide one."""
        specs = dict(zip(STAGES, self.agents))
        for key, value in sorted(assignments.items(), key=lambda item: "." in item[0]):
            stage, dot, name = key.rpartition(".")
            if dot and stage not in STAGES:
                raise SpecError(f"{where}: unknown stage {stage!r} in {key!r}; valid stages: {', '.join(STAGES)}")
            targets = [stage] if dot else [s for s in STAGES if _has_param(specs[s].kind, name)]
            if not targets:
                valid = ", ".join(sorted({p.name for spec in self.agents for p in spec.kind.params})) or "none"
                raise SpecError(f"{where}: no stage of {self.short_name} has parameter {name!r}; valid: {valid}")
            for target in targets:
                specs[target] = specs[target].with_params(f"{where}: {target}", **{name: value})
        return Setup(**specs)

    def has_param(self, key: str) -> bool:
        """Whether ``with_params`` can set ``key`` ("budget": some stage has it; "questing.budget": that stage)."""
        stage, dot, name = key.rpartition(".")
        specs = [getattr(self, stage)] if dot and stage in STAGES else self.agents
        return any(_has_param(spec.kind, name) for spec in specs)

    # ---- views --------------------------------------------------------------------------------------------------

    @property
    def agents(self) -> tuple[AgentSpec, ...]:
        """The five specs in STAGES order."""
        return tuple(getattr(self, stage) for stage in STAGES)

    @property
    def has_python_agents(self) -> bool:
        """Whether a stage is decided outside the compiled game loop (an RL network)."""
        return any(spec.kind.code == PYTHON for spec in self.agents)

    @property
    def is_oracle(self) -> bool:
        """Whether any stage sees hidden information (an upper bound, not an honest agent)."""
        return any(spec.oracle for spec in self.agents)

    @property
    def short_name(self) -> str:
        """Agent names only: three parts when travel and attack are random, else five."""
        stages = SHORT_STAGES if self.travel.agent == self.attack.agent == "random" else STAGES
        return "-".join(getattr(self, stage).agent for stage in stages)

    def __str__(self) -> str:
        changed = []
        for stage, spec in zip(STAGES, self.agents):
            defaults = AgentSpec.make(spec.agent).as_dict()
            params = [_format(k, v) for k, v in spec.params if v != defaults[k]]
            if params:
                changed.append(f"{stage}: {' '.join(params)}")
        return f"{self.short_name} ({'; '.join(changed)})" if changed else self.short_name

    @property
    def weights_files(self) -> list[Path]:
        """The trained weights the stages load, once each."""
        return [Path(w) for w in dict.fromkeys(spec.as_dict().get("weights") for spec in self.agents) if w]

    def dump_with_weights(self, path: str | Path, metadata: dict | None = None) -> None:
        """``dump`` after copying the weights beside ``path`` as ``<path stem>.<file name>``, so that
        several exported configurations share a folder."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        moved = {}
        for weights in self.weights_files:
            moved[str(weights)] = str((path.parent / f"{path.stem}.{weights.name}").resolve())
            partial = f"{moved[str(weights)]}.partial"
            shutil.copy(weights, partial)
            os.replace(partial, moved[str(weights)])
        Setup(*[
            spec.with_params(stage, weights=moved[spec["weights"]]) if spec.as_dict().get("weights") else spec
            for stage, spec in zip(STAGES, self.agents)
        ]).dump(path, metadata)

    def rows(self) -> np.ndarray:
        """The compiled agent rows, shape (5, ROW_WIDTH), in STAGES order."""
        return np.stack([spec.row() for spec in self.agents])

    # ---- configuration files ------------------------------------------------------------------------------------

    @classmethod
    def from_mapping(cls, data: dict, source: str = "config", folder: Path | None = None) -> Setup:
        """The setup a parsed configuration (see the module docstring) describes; ``source`` prefixes
        errors; relative ``weights`` paths are taken from ``folder`` (the file's)."""
        data = _table(data, source)
        for key in data:
            if key not in TOP_KEYS:
                raise SpecError(f"{source}: unknown key {key!r}; valid: {', '.join(TOP_KEYS)}")
        version = data.get("format", FORMAT)
        if isinstance(version, bool) or version != FORMAT:
            raise SpecError(f"{source}: format = {version!r} is not supported; expected {FORMAT}")
        base = data.get("setup")
        if base is None:
            base = cls.uniform("random")
        elif not isinstance(base, str):
            raise SpecError(f"{source}: setup = {base!r} is invalid; expected a short form such as 'random-mcts-mcts'")
        else:
            try:
                base = cls.parse(base)
            except SpecError as error:
                raise SpecError(f"{source}: {error}") from None

        defaults = {}
        for agent, params in _table(data.get("defaults", {}), f"{source}: defaults").items():
            if agent not in AGENT_KINDS:
                hint = f" (parameters of one stage go in [{agent}])" if agent in STAGES else ""
                raise SpecError(f"{source}: unknown agent {agent!r} in defaults; valid: {_VALID_AGENTS}{hint}")
            where = f"{source}: defaults.{agent}"
            defaults[agent] = AgentSpec.make(agent, where, **_table(params, where))

        specs = {}
        for stage, base_spec in zip(STAGES, base.agents):
            entry = data.get(stage, {})
            plain = isinstance(entry, str)
            table = {"agent": entry} if plain else dict(_table(entry, f"{source}: {stage}", "a table or an agent name"))
            agent = table.pop("agent", base_spec.agent)
            if not isinstance(agent, str) or agent not in AGENT_KINDS:
                key = stage if plain else f"{stage}.agent"
                raise SpecError(f"{source}: {key} = {agent!r} is invalid; expected one of {_VALID_AGENTS}")
            spec = defaults[agent] if agent in defaults else AgentSpec.make(agent)
            spec = spec.with_params(f"{source}: {stage}", **table) if table else spec
            if folder is not None and spec.as_dict().get("weights"):
                spec = spec.with_params(stage, weights=str(Path(folder) / spec["weights"]))
            specs[stage] = spec
        return cls(**specs)

    def to_mapping(self, metadata: dict | None = None) -> dict:
        """A self-contained configuration: the short name and every parameter of every stage."""
        data: dict[str, Any] = {"format": FORMAT, "setup": self.short_name}
        for stage, spec in zip(STAGES, self.agents):
            data[stage] = {"agent": spec.agent, **spec.as_dict()}
        if metadata is not None:
            data["metadata"] = metadata
        return data

    @classmethod
    def load(cls, path: str | Path) -> Setup:
        """Read a .toml or .json configuration file."""
        return cls.from_mapping(cls.read_mapping(path), source=str(path), folder=Path(path).parent)

    @staticmethod
    def read_mapping(path: str | Path) -> dict:
        """The parsed contents of a .toml or .json configuration file (not yet validated)."""
        suffix = _suffix(path)
        try:
            if suffix == ".toml":
                with open(path, "rb") as file:
                    data = tomllib.load(file)
            else:
                with open(path, encoding="utf-8") as file:
                    data = json.load(file)
        except OSError as error:
            raise SpecError(f"{path}: cannot read: {error.strerror or error}") from None
        except ValueError as error:  # TOMLDecodeError, JSONDecodeError, UnicodeDecodeError
            raise SpecError(f"{path}: bad {suffix[1:].upper()}: {error}") from None
        return data

    def dump(self, path: str | Path, metadata: dict | None = None) -> None:
        """Write the configuration (``to_mapping``) as TOML or JSON, by the file's suffix; atomically (a file
        beside it moved into place), so that a kill never leaves half a configuration."""
        data = self.to_mapping(metadata)
        for stage in STAGES:  # weights relative to the file, so that the folder can move
            if data[stage].get("weights"):
                data[stage]["weights"] = os.path.relpath(Path(data[stage]["weights"]).resolve(), Path(path).resolve().parent)
        if _suffix(path) == ".toml":
            text = tomli_w.dumps(data)
        else:
            text = json.dumps(data, indent=2) + "\n"
        partial = Path(f"{path}.partial")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)


def parse_assignment(text: str) -> tuple[str, Any]:
    """A command-line "key=value" ("questing.budget=40", "c=1.5", "reduction_defense=false") as (key, typed value).

    The value is an int, else a float, else true/false, else the string itself."""
    key, eq, raw = (part.strip() for part in text.partition("="))
    names = key.split(".")
    if not eq or not raw or len(names) > 2 or not all(names):
        raise SpecError(f"--set {text!r}: expected key=value or stage.key=value, e.g. budget=40 or questing.c=1.5")
    for convert in (int, float):
        try:
            return key, convert(raw)
        except ValueError:
            pass
    return key, {"true": True, "false": False}.get(raw.lower(), raw)


def _format(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return f"{name}={str(value).lower()}"
    return f"{name}={value:g}" if isinstance(value, float) else f"{name}={value}"


def _suffix(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise SpecError(f"{path}: unknown configuration suffix {suffix or '(none)'!r}; expected .toml or .json")
    return suffix
