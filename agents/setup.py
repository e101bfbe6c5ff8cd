"""Setups: which agent (an ``AgentSpec``) takes each role of a game: LOTR's five decision stages, or
the seats of a two-player game (the first mover first).

Short forms name the agents only, each with its default parameters:
``"P-Q-D"`` is planning-questing-defense with a random agent at travel and
attack (the thesis's convention, e.g. ``"random-mcts-mcts"``);
``"P-Q-T-D-A"`` names all five stages; a single name puts that agent on every
stage. Agent names may contain dashes
(``"flat-mc-oracle-mcts-random"``); the longest known name wins.

Configuration files (what tuning exports and ``lotr eval --config`` loads) are
TOML or JSON, chosen by suffix (``.toml`` / ``.json``)::

    format = 1                  # optional on read (only 1 exists); always written
    game = "lotr"               # optional on read (default FILE_DEFAULT_GAME, lotr); always written
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

The files a configuration names (``weights``, ``playout_nets``) are relative to
its folder and must lie inside it, or inside a folder the user declares in the
environment variable ``GAMETUNE_MODELS`` (folders separated by ``:``): a
configuration from elsewhere (an MLflow run's) cannot make an export copy, or
an agent read, any other file. ``dump_with_weights`` writes a configuration
with everything it names beside it. A ``playout_nets`` configuration is read
when a setup is made (``net_table``): its trained networks are packed into the
table at the end of the agent's row (``compiled_row``).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

import gamecore
from agents.learning.playout_nets import trained_networks
from agents.specs import PYTHON, AgentKind, AgentSpec, SpecError, agent_kinds
from gamecore.atomic import atomic_path, write_atomically
from gamecore.interface import Game, imported
from gamecore.moved import moved_message

FORMAT = 1
FILE_DEFAULT_GAME = "lotr"  # the game of a configuration or study file without a game key (both formats' rule)
FILE_PARAMS = ("weights", "playout_nets")  # paths; in a configuration file, relative to the file's folder
COMMON_KEYS = ("format", "game", "setup", "defaults", "metadata")
SUFFIXES = (".toml", ".json")


def _split_agents(text: str, known_names) -> list[str]:
    """Dash-separated agent names, longest known name first; an unknown part runs to the next dash."""
    parts, i = [], 0
    while i <= len(text):
        end = text.find("-", i)
        name = text[i : end if end >= 0 else len(text)]  # unknown: up to the next dash
        for known in sorted(known_names, key=len, reverse=True):
            if text.startswith(known, i) and text[i + len(known) : i + len(known) + 1] in ("-", ""):
                name = known
                break
        parts.append(name)
        i += len(name) + 1
    return parts


def _has_param(kind: AgentKind, name: str) -> bool:
    names = {p.name for p in kind.params}
    return name in names or (name == "reduction" and any(n.startswith("reduction_") for n in names))


MODELS_VARIABLE = "GAMETUNE_MODELS"  # folders, besides a configuration's own, that its files may lie in


def _in_folder(params: dict, folder: Path | None, where: str) -> dict:
    """``params`` with the relative paths of its file parameters (``FILE_PARAMS``) taken from ``folder``; SpecError
    (one line) for a path that leads out of it (``inside_allowed``)."""
    if folder is None:
        return params
    found = {}
    for key, value in params.items():
        if key in FILE_PARAMS and isinstance(value, str) and value:
            path = os.path.normpath(Path(folder) / value)
            if not inside_allowed(Path(path), Path(folder)):
                raise SpecError(f"{where}: {key} = {value!r} lies outside the configuration's folder {folder}; put "
                                f"the file beside the configuration, or declare its folder in {MODELS_VARIABLE}")
            value = path
        found[key] = value
    return found


def inside_allowed(path: Path, folder: Path) -> bool:
    """Whether ``path``, links resolved, lies in ``folder`` or in a folder of ``GAMETUNE_MODELS``."""
    declared = [Path(entry) for entry in os.environ.get(MODELS_VARIABLE, "").split(os.pathsep) if entry]
    resolved = path.resolve()
    return any(resolved.is_relative_to(allowed.resolve()) for allowed in (folder, *declared))


def _table(value: Any, where: str, expected: str = "a table") -> dict:
    if not isinstance(value, dict):
        raise SpecError(f"{where}: expected {expected}, got {type(value).__name__}")
    return value


class Setup:
    """One AgentSpec per role of a game: ``Setup(planning, questing, travel, defense, attack)`` (LOTR),
    ``Setup(first, second, game="nim")``, or by role name; ``setup.questing`` is a role's agent. ``game`` is
    the game object (a name given here is loaded once); a setup of agents alone takes their game. The
    ``playout_nets`` configurations its agents name are read here (``net_table``): SpecError, naming the role,
    if one cannot play out."""

    def __init__(self, *agents: AgentSpec, game: Game | str | None = None, **by_role: AgentSpec):
        given = [*agents, *by_role.values()]
        if not given:
            raise SpecError("a setup needs an agent for each role of its game")
        game = gamecore.load(game or given[0].game)
        roles = game.roles
        if by_role:
            unknown = set(by_role) - set(roles)
            if unknown or agents:
                raise SpecError(f"{game} roles: {', '.join(roles)}; got {', '.join(sorted(unknown)) or 'both forms'}")
            agents = tuple(by_role[role] for role in roles)
        if len(agents) != len(roles):
            raise SpecError(f"a {game} setup has {len(roles)} agents ({', '.join(roles)}), got {len(agents)}")
        for role, spec in zip(roles, agents):
            if spec.game != game:
                raise SpecError(f"{role}: agent {spec.agent} is a {spec.game} agent, not a {game} one")
            if spec.kind.stages and role not in spec.kind.stages:
                raise SpecError(f"{role}: agent {spec.agent} decides {', '.join(spec.kind.stages)} only")
            if spec.as_dict().get("playout_nets"):
                net_table(game, spec["playout_nets"], role)
        object.__setattr__(self, "agents", tuple(agents))
        object.__setattr__(self, "game", game)

    def __getattr__(self, role: str) -> AgentSpec:
        roles = self.__dict__["game"].roles if "game" in self.__dict__ else ()
        if role in roles:
            return self.__dict__["agents"][roles.index(role)]
        raise AttributeError(role)

    def __setattr__(self, name, value):
        raise AttributeError("a Setup is immutable: with_params makes a changed copy")

    def __eq__(self, other) -> bool:
        return isinstance(other, Setup) and (self.game, self.agents) == (other.game, other.agents)

    def __hash__(self) -> int:
        return hash((self.game, self.agents))

    def __repr__(self) -> str:
        return f"Setup({', '.join(map(repr, self.agents))}, game={self.game.name!r})"

    @property
    def roles(self) -> tuple[str, ...]:
        return self.game.roles

    def role_of(self, state) -> str:
        """The role that decides ``state``'s pending decision: its seat, or its decision kind."""
        return self.roles[state.to_move] if self.game.by_seat else state.decision_kind

    def with_trained(self, trained: Setup) -> Setup:
        """This setup with each of its trained roles (rl) taken from ``trained``: the networks trained in another
        setup (self-play, another opponent) playing this one."""
        return Setup(*(new if spec.kind.trained else spec for spec, new in zip(self.agents, trained.agents)),
                     game=self.game)

    def swapped(self) -> Setup:
        """A two-player setup with the seats exchanged (the second mover's agent first)."""
        return Setup(*reversed(self.agents), game=self.game)

    # ---- construction -------------------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, game: Game | str) -> Setup:
        """The setup of a short form with default parameters: one agent name per role ("A-B" for a
        two-player game; LOTR: "P-Q-T-D-A", or "P-Q-D" with travel and attack random), or one agent
        name for every role."""
        described = gamecore.load(game)
        kinds = agent_kinds(described)
        roles, short = described.roles, described.short_roles
        parts = _split_agents(text, kinds)
        if len(parts) == 1 and parts[0] in kinds:
            return cls.uniform(parts[0], game)
        named = {len(roles): roles, len(short): short}.get(len(parts)) if short else {len(roles): roles}.get(len(parts))
        for i, name in enumerate(parts):
            if name not in kinds:
                at = named[i] if named else f"part {i + 1}"
                raise SpecError(f"setup {text!r}: unknown agent {name!r} at {at}; valid: {', '.join(kinds)}")
        if named is None:
            forms = " or ".join(f"{len(r)}{' parts' if i == 0 else ''} ({'-'.join(r)})"
                                for i, r in enumerate((short, roles) if short else (roles,)))
            raise SpecError(f"setup {text!r}: expected 1 agent, {forms}, got {len(parts)}")
        names = dict.fromkeys(roles, described.policies[0]) | dict(zip(named, parts))
        return cls(*[AgentSpec.make(names[role], game=described) for role in roles], game=described)

    @classmethod
    def uniform(cls, agent: str, game: Game | str) -> Setup:
        """The same agent, with its default parameters, at every role."""
        spec = AgentSpec.make(agent, game=game)
        return cls(*[spec] * len(spec.game.roles), game=spec.game)

    def with_params(self, assignments: dict[str, Any], where: str = "--set") -> Setup:
        """A copy with parameters changed: "budget" at every role whose agent has it, "questing.budget" at one.

        Role-wide keys are applied first, so a per-role key wins over a role-wide one."""
        roles = self.roles
        specs = dict(zip(roles, self.agents))
        for key, value in sorted(assignments.items(), key=lambda item: "." in item[0]):
            role, dot, name = key.rpartition(".")
            if dot and role not in roles:
                raise SpecError(f"{where}: unknown role {role!r} in {key!r}; valid roles: {', '.join(roles)}")
            targets = [role] if dot else [r for r in roles if _has_param(specs[r].kind, name)]
            if not targets:
                valid = ", ".join(sorted({p.name for spec in self.agents for p in spec.kind.params})) or "none"
                raise SpecError(f"{where}: no role of {self.short_name} has parameter {name!r}; valid: {valid} "
                                f"(gametune agents {self.game} AGENT explains each)")
            for target in targets:
                specs[target] = specs[target].with_params(f"{where}: {target}", **{name: value})
        try:
            return Setup(*specs.values(), game=self.game)
        except SpecError as error:  # a playout_nets configuration that cannot play out
            raise SpecError(f"{where}: {error}") from None

    def has_param(self, key: str) -> bool:
        """Whether ``with_params`` can set ``key`` ("budget": some role has it; "questing.budget": that role)."""
        role, dot, name = key.rpartition(".")
        specs = [getattr(self, role)] if dot and role in self.roles else self.agents
        return any(_has_param(spec.kind, name) for spec in specs)

    # ---- views --------------------------------------------------------------------------------------------------

    @property
    def has_python_agents(self) -> bool:
        """Whether a role is decided outside the compiled game loop (an RL network)."""
        return any(spec.kind.code == PYTHON for spec in self.agents)

    @property
    def has_trained_agents(self) -> bool:
        """Whether a role is a network that is trained before it plays (rl)."""
        return any(spec.kind.trained for spec in self.agents)

    @property
    def is_oracle(self) -> bool:
        """Whether any role sees hidden information (an upper bound, not an honest agent)."""
        return any(spec.oracle for spec in self.agents)

    @property
    def short_name(self) -> str:
        """Agent names only; LOTR: three parts when travel and attack are random, else five."""
        short, default = self.game.short_roles, self.game.policies[0]
        others = [spec.agent for role, spec in zip(self.roles, self.agents) if role not in short]
        roles = short if short and all(agent == default for agent in others) else self.roles
        return "-".join(getattr(self, role).agent for role in roles)

    def __str__(self) -> str:
        changed = []
        for role, spec in zip(self.roles, self.agents):
            defaults = AgentSpec.make(spec.agent, game=self.game).as_dict()
            params = [_format(k, v) for k, v in spec.params if v != defaults[k]]
            if params:
                changed.append(f"{role}: {' '.join(params)}")
        return f"{self.short_name} ({'; '.join(changed)})" if changed else self.short_name

    @property
    def weights_files(self) -> list[Path]:
        """The trained weights the stages load, once each."""
        return [Path(w) for w in dict.fromkeys(spec.as_dict().get("weights") for spec in self.agents) if w]

    def dump_with_weights(self, path: str | Path, metadata: dict | None = None) -> None:
        """``dump`` after copying what the configuration names beside ``path``: its weights as
        ``<path stem>.<file name>`` and a ``playout_nets`` configuration as ``<path stem>.nets.toml`` (with its
        own weights), so that several exported configurations share a folder and each is whole."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        moved = {}
        for weights in self.weights_files:
            moved[str(weights)] = str((path.parent / f"{path.stem}.{weights.name}").resolve())
            with atomic_path(moved[str(weights)]) as temporary:
                shutil.copyfile(weights, temporary)
        for nets in dict.fromkeys(spec.as_dict().get("playout_nets") for spec in self.agents):
            if nets:
                moved[nets] = str((path.parent / f"{path.stem}.nets.toml").resolve())
                Setup.load(nets).dump_with_weights(moved[nets])
        Setup(*[
            spec.with_params(role, **{name: moved[spec[name]] for name in FILE_PARAMS if spec.as_dict().get(name)})
            for role, spec in zip(self.roles, self.agents)
        ], game=self.game).dump(path, metadata)

    def rows(self) -> np.ndarray:
        """The compiled agent rows in role order, shape (roles, ROW_WIDTH + the longest net table; zeros pad the
        others: no network)."""
        rows = [compiled_row(spec) for spec in self.agents]
        out = np.zeros((len(rows), max(len(row) for row in rows)))
        for out_row, row in zip(out, rows):
            out_row[: len(row)] = row
        return out

    # ---- configuration files ------------------------------------------------------------------------------------

    @classmethod
    def from_mapping(cls, data: dict, source: str = "config", folder: Path | None = None) -> Setup:
        """The setup a parsed configuration (see the module docstring) describes; ``source`` prefixes
        errors; relative ``weights`` paths are taken from ``folder`` (the file's)."""
        data = _table(data, source)
        try:
            game = gamecore.load(data.get("game", FILE_DEFAULT_GAME))
        except SpecError as error:
            raise SpecError(f"{source}: game: {error}") from None
        roles = game.roles
        kinds = agent_kinds(game)
        valid_agents = ", ".join(kinds)
        top_keys = (*COMMON_KEYS, *roles)
        for key in data:
            if key not in top_keys:
                raise SpecError(f"{source}: unknown key {key!r}; valid: {', '.join(top_keys)}")
        version = data.get("format", FORMAT)
        if isinstance(version, bool) or version != FORMAT:
            raise SpecError(f"{source}: format = {version!r} is not supported; expected {FORMAT}")
        base = data.get("setup")
        if base is None:
            base = cls.uniform(game.policies[0], game)
        elif not isinstance(base, str):
            raise SpecError(f"{source}: setup = {base!r} is invalid; expected a short form such as 'random-mcts-mcts'")
        else:
            try:
                base = cls.parse(base, game)
            except SpecError as error:
                raise SpecError(f"{source}: {error}") from None

        defaults = {}
        for agent, params in _table(data.get("defaults", {}), f"{source}: defaults").items():
            if agent not in kinds:
                hint = f" (parameters of one role go in [{agent}])" if agent in roles else ""
                raise SpecError(f"{source}: unknown agent {agent!r} in defaults; valid: {valid_agents}{hint}")
            where = f"{source}: defaults.{agent}"
            defaults[agent] = AgentSpec.make(agent, where, game=game,
                                             **_in_folder(_table(params, where), folder, where))

        specs = []
        for role, base_spec in zip(roles, base.agents):
            entry = data.get(role, {})
            plain = isinstance(entry, str)
            table = {"agent": entry} if plain else dict(_table(entry, f"{source}: {role}", "a table or an agent name"))
            agent = table.pop("agent", base_spec.agent)
            if not isinstance(agent, str) or agent not in kinds:
                key = role if plain else f"{role}.agent"
                raise SpecError(f"{source}: {key} = {agent!r} is invalid; expected one of {valid_agents}")
            spec = defaults[agent] if agent in defaults else AgentSpec.make(agent, game=game)
            where = f"{source}: {role}"
            spec = spec.with_params(where, **_in_folder(table, folder, where)) if table else spec
            specs.append(spec)
        try:
            return cls(*specs, game=game)
        except SpecError as error:  # a playout_nets configuration that cannot play out
            raise SpecError(f"{source}: {error}") from None

    def to_mapping(self, metadata: dict | None = None) -> dict:
        """A self-contained configuration: the game, the short name and every parameter of every role."""
        data: dict[str, Any] = {"format": FORMAT, "game": self.game.name, "setup": self.short_name}
        for role, spec in zip(self.roles, self.agents):
            data[role] = {"agent": spec.agent, **spec.as_dict()}
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
            raise SpecError(moved_message(path) or f"{path}: cannot read: {error.strerror or error}") from None
        except ValueError as error:  # TOMLDecodeError, JSONDecodeError, UnicodeDecodeError
            raise SpecError(f"{path}: bad {suffix[1:].upper()}: {error}") from None
        return data

    def dump(self, path: str | Path, metadata: dict | None = None) -> None:
        """Write the configuration (``to_mapping``) as TOML or JSON, by the file's suffix; atomically (a file
        beside it moved into place), so that a kill never leaves half a configuration."""
        data = self.to_mapping(metadata)
        for role in self.roles:  # files relative to the configuration, so that the folder can move
            for name in FILE_PARAMS:
                if data[role].get(name):
                    data[role][name] = os.path.relpath(Path(data[role][name]).resolve(), Path(path).resolve().parent)
        if _suffix(path) == ".toml":
            text = tomli_w.dumps(data)
        else:
            text = json.dumps(data, indent=2) + "\n"
        write_atomically(path, text)


_LOADING: list[str] = []  # the playout_nets configurations being read, outermost first (a loop is refused)


def net_table(game: Game, path: str, where: str = "agent") -> np.ndarray:
    """The net table (``gamecore.interface``) of the trained networks the agent configuration ``path`` names (an
    agent's ``playout_nets``), read once per version of the file; SpecError (one line naming ``where``) if it names
    none, or if it leads back to a configuration being read (a loop)."""
    resolved = str(Path(path).resolve())
    if resolved in _LOADING:
        chain = " -> ".join(Path(p).name for p in (*_LOADING[_LOADING.index(resolved):], resolved))
        raise SpecError(f"{where}: playout_nets = {path!r} leads back to itself ({chain}); name a configuration "
                        "of trained rl roles that names no playout_nets")
    _LOADING.append(resolved)
    try:
        return _net_table(game, resolved, os.stat(path).st_mtime_ns)
    except OSError as error:
        problem = f"cannot read: {error.strerror}"
    except SpecError as error:
        if "leads back to itself" in str(error):
            raise
        problem = str(error)
    finally:
        _LOADING.pop()
    raise SpecError(f"{where}: playout_nets = {path!r}: {problem}; give an agent configuration with trained "
                    "rl roles, e.g. studies/lotr/best-rl/agent.toml")


@functools.lru_cache(maxsize=8)
def _net_table(game: Game, path: str, version: int) -> np.ndarray:
    loaded = Setup.load(path)
    table = imported(game.learning.playout_nets)(trained_networks(zip(loaded.roles, loaded.agents)))
    table.setflags(write=False)
    return table


def compiled_row(spec: AgentSpec) -> np.ndarray:
    """The row the compiled agents read for ``spec``: ``AgentSpec.row``, followed by the net table of the
    configuration its ``playout_nets`` names (``net_table``) if it names one."""
    nets = spec.as_dict().get("playout_nets")
    return np.concatenate([spec.row(), net_table(spec.game, nets)]) if nets else spec.row()


def parse_assignment(text: str, flag: str = "--set") -> tuple[str, Any]:
    """A command-line "key=value" ("questing.budget=40", "c=1.5", "reduction_defense=false") as (key, typed value);
    ``flag`` names the option it came from: ``--set`` takes a stage's key too, any other (``--option``) a name.

    The value is an int, else a float, else true/false, else the string itself (empty: "playout_nets=" clears
    a file parameter)."""
    key, eq, raw = (part.strip() for part in text.partition("="))
    names = key.split(".")
    staged = flag == "--set"
    if not eq or len(names) > (2 if staged else 1) or not all(names):
        expected = ("key=value or stage.key=value, e.g. budget=40 or questing.c=1.5" if staged
                    else "name=value, e.g. difficulty=easy")
        raise SpecError(f"{flag} {text!r}: expected {expected}")
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
