"""A game's descriptor, ``Game``: its core (rules, observation, encoders and actions) and its optional capabilities.

A game is one ``Game`` (``gamecore.load``). At the Python level (the model:
OpenSpiel's narrow state API), ``new_game(seed, **options)`` returns a state
with ``to_move`` (the player), ``decision_kind``, ``legal_actions()``,
``apply(action)``, ``is_over``, ``returns()`` (one value per player),
``observation(player)``, ``clone()``, ``determinize(player, rng)``,
``vector(action)`` (the action as the kernels' vector), a trace and a JSON
form (``gamecore.state.FlatState`` is most of it for a game whose state is its
kernels' flat array); ``state_from_core`` makes such a state from a flat state
array. At the compiled level, ``kernels`` is the module of its compiled
interface (``gamecore.contract``): the game writes its rules, and gets the rest
from ``gamecore.default_kernels`` when its ``Game`` is made.

Every game declares the core: its kernels, roles, policies, options, states,
metrics, encoders and action spaces. What only some games have is grouped by
capability, each group a dataclass whose fields all have defaults:
``Search`` (its own options of the generic searches), ``Learning`` (its own
learners), ``Reproduction`` (a paper's players, results and report) and
``CommandLine`` (its own subcommands and pictures). A field that names a
function as "module:function" has it imported when first used (``imported``):
its module is heavy, or it is the game's lab code.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from gamecore import default_kernels
from gamecore.params import Param, SpecError
from gamecore.published import Published

TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")  # "module:function"


def imported(target: str) -> Callable:
    """The function named by ``target``, "module:function" (a game's agent factory, command or drawing)."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class PythonAgent:
    """An agent that decides in Python, in batches (a network, a table): ``factory`` ("module:function")
    makes it from (role, AgentSpec); its ``choose(states, uniforms, mode)`` returns the actions (one row per
    state) and anything else."""

    name: str
    factory: str
    params: tuple[Param, ...] = ()
    roles: tuple[str, ...] = ()  # the roles it can take; empty: all
    help: str = ""
    oracle: bool = False  # it reads hidden information (an upper bound or a published search), never honest


@dataclass(frozen=True)
class Command:
    """A subcommand of the game on the command line, ``lotr <game> <name>``: ``arguments`` ("module:function")
    declares its options on an argparse parser; ``run`` ("module:function") is called with the parsed arguments
    and returns the exit code."""

    name: str
    help: str
    arguments: str
    run: str

    def function(self, which: str) -> Callable:
        """``arguments`` or ``run``, imported."""
        return imported(getattr(self, which))


@dataclass(frozen=True)
class Encoder:
    """A named encoding of what a player sees, as float features (a network's input, an environment's
    observation): number ``i`` of ``Game.encoders`` is ``encode(S, i, player, out)`` of the kernels. ``sizes`` gives
    its length at each role's decisions (the roles it covers); every feature lies in [``low``, ``high``].
    ``layout`` (global features, slots, features per slot), where the encoding is laid out by slot (the global
    features, then each slot's alike): a ``net = "slots"`` network reads it so; empty: not laid out so."""

    name: str
    sizes: dict[str, int]
    help: str = ""
    low: float = 0.0
    high: float = 1.0
    layout: tuple[int, int, int] = ()


@dataclass(frozen=True)
class ActionSpace:
    """A fixed, indexed action space with a mask: number ``i`` of ``Game.action_spaces`` is ``action_mask(S, i,
    mask)`` and ``decode(S, i, index, ...)`` of the kernels. ``direct``: the game's legal actions as indices; a
    game's ``macro`` space: a few rules that each make a legal action (LOTR's thesis 5.4.2). ``sizes`` gives its
    number of indices at each role's decisions (the roles it covers). ``per_slot``: where index ``k * per_slot + j``
    is action ``j`` on slot ``k`` of an encoder's ``layout``, the actions of a slot; 0: not laid out so."""

    name: str
    sizes: dict[str, int]
    help: str = ""
    per_slot: int = 0


@dataclass(frozen=True)
class Preset:
    """An agent of the game that is another agent with other defaults (``mc``: ``flat-mc`` with a budget of
    1000 playouts for each action)."""

    name: str
    agent: str
    defaults: dict[str, Any]
    help: str = ""


@dataclass(frozen=True)
class Search:
    """Search support: the game's own options of the generic searches (``params``: agent row columns from
    ``gamecore.row.GAME_COLUMNS``, which its kernels' ``reduced_out`` and ``Model`` read), and ``table``
    ("module:function"): a search's validated parameters -> a table carried at the end of the agent row for its
    kernels' ``net_action``, or None (Love Letter's DP player in the playouts)."""

    params: tuple[Param, ...] = ()
    table: str = ""


@dataclass(frozen=True)
class Learning:
    """Learning support beyond the generic rules over the encoders and action spaces: ``learners``, its own
    algorithms (name -> "module:Class"); ``defaults``, its defaults of the rl agent's parameters; ``playout_nets``
    ("module:function"): a configuration's trained networks (by role index) -> the net table its kernels'
    ``net_action`` reads (LOTR's networks in the playouts)."""

    learners: dict[str, str] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)
    playout_nets: str = ""


@dataclass(frozen=True)
class Reproduction:
    """What reproduces a paper: its players (``agents`` that decide in Python, ``presets`` of the generic agents),
    its ``published`` results, which the report's sections compare with, and the report's own comparisons:
    ``seat_measures`` (per-seat measures of the metrics, ``<name>_<seat>``), ``reasons`` (a study's report.reason
    key -> why rows may differ), ``references`` (report.reference key -> (column title, value per row key): a
    figure of ours beside the published one), ``label`` ("module:function": a setup label -> the published setup
    it reproduces), ``preamble`` ("module:function": (report folder) -> Markdown lines before the sections) and
    ``model`` ("module:function": (a trial's options, its configuration) -> the model of a paper's code it played,
    which its record keeps, or None)."""

    agents: tuple[PythonAgent, ...] = ()
    presets: tuple[Preset, ...] = ()
    published: tuple[Published, ...] = ()
    seat_measures: tuple[str, ...] = ()
    reasons: dict[str, str] = field(default_factory=dict)
    references: dict[str, tuple[str, dict]] = field(default_factory=dict)
    label: str = ""
    preamble: str = ""
    model: str = ""


@dataclass(frozen=True)
class CommandLine:
    """Command-line extras: ``commands``, its own subcommands (``gametune <game> <command>``), and ``draw``
    ("module:function"): a state drawn to a PNG file, (state, path) -> path (``gametune play --png``)."""

    commands: tuple[Command, ...] = ()
    draw: str = ""


def option_values(options: dict[str, Any]) -> np.ndarray:
    """``deal_game``'s options of a game whose options are numbers: their values, in the order they are declared."""
    return np.array(list(options.values()), np.int64)


CAPABILITIES = {"search": Search, "learning": Learning, "reproduction": Reproduction, "command_line": CommandLine}


@dataclass(frozen=True, eq=False)
class Game:
    """A game: its core and its capabilities (this module's docstring).

    One object per game (``gamecore.load``): compared by identity, pickled by name (``gamecore`` registers the
    reducer: a worker process or a Ray task loads it again), printed as its name. Making it completes its kernels
    module with the defaults it leaves out (``gamecore.default_kernels``) and checks its declarations: a
    capability of the wrong type, a "module:function" of another form or numeric codes of options that are not
    numbers fail in one line. ``gamecore.register`` checks the kernels (``gamecore.contract``)."""

    name: str
    kernels: ModuleType  # the compiled interface (gamecore.contract), its rules written by the game
    roles: tuple[str, ...]  # what a setup assigns agents to: decision kinds, or seats
    policies: tuple[str, ...]  # the compiled policies, by code (the first a random one)
    new_game: Callable[..., Any]  # the Python-level state: new_game(seed, **options)
    state_from_json: Callable[[str], Any]  # the state of its to_json() text
    state_from_core: Callable[[np.ndarray], Any]  # the state of a flat state array (a copy)
    summarise: Callable[[np.ndarray], dict[str, Any]]  # records of finished games -> the game's metrics
    describe: Callable[[dict[str, Any], int], list[str]]  # (metrics, games) -> report lines
    options: tuple[Param, ...] = ()  # game options (LOTR's difficulty), with defaults
    option_codes: Callable[[dict[str, Any]], np.ndarray] = option_values  # validated options -> deal_game's array
    encoders: tuple[Encoder, ...] = ()  # what learning agents and environments observe (the kernels' encode)
    action_spaces: tuple[ActionSpace, ...] = ()  # what they choose among (the kernels' action_mask and decode)
    perfect_information: bool = False  # nothing is hidden: determinize has nothing to re-draw (its default)
    help: str = ""
    metric_names: tuple[str, ...] = ()  # the metrics logged per evaluation
    short_roles: tuple[str, ...] = ()  # the roles named by a short setup form, the others random
    invariants: str = ""  # "module:function": (flat state) -> what it conserves that is broken (empty: all holds)
    max_legal_actions: int = 0  # a bound on len(legal_actions()) where MAX_CANDIDATES is not one (OpenSpiel's form)
    search: Search = Search()
    learning: Learning = Learning()
    reproduction: Reproduction = Reproduction()
    command_line: CommandLine = CommandLine()

    def __post_init__(self):
        problems = _declaration_problems(self)
        if problems:
            raise SpecError(f"game {self.name}: {'; '.join(problems)} (gamecore/interface.py describes each field)")
        default_kernels.complete(self.kernels, self.perfect_information)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Game({self.name!r})"

    def option(self, name: str) -> Param | None:
        """The game option ``name``, or None."""
        return next((p for p in self.options if p.name == name), None)

    @property
    def by_seat(self) -> bool:
        """Whether the roles are the players (two-player games), not decision kinds."""
        return bool(self.kernels.ROLES_BY_SEAT)

    @property
    def n_players(self) -> int:
        return int(self.kernels.N_PLAYERS)

    def check_options(self, options: dict[str, Any], where: str = "game") -> dict[str, Any]:
        """Every option with its default filled in, or SpecError naming ``where`` and the option."""
        known = {p.name: p for p in self.options}
        for name in options:
            if name not in known:
                valid = ", ".join(known) or "none"
                raise SpecError(f"{where}: {self.name} has no option {name!r}; its options: {valid}")
        return {p.name: p.check(options.get(p.name, p.default), where) for p in self.options}

    def encoder(self, name: str) -> int:
        """The number of the encoder ``name``; SpecError (one line listing them) if there is none."""
        return _index_of(self, "encoder", [e.name for e in self.encoders], name)

    def action_space(self, name: str) -> int:
        """The number of the action space ``name``; SpecError (one line listing them) if there is none."""
        return _index_of(self, "action space", [s.name for s in self.action_spaces], name)

    @property
    def observation_encoder(self) -> int | None:
        """The first encoder of one size at every role (OpenSpiel's observation tensor), or None."""
        return next((i for i, e in enumerate(self.encoders)
                     if set(e.sizes) == set(self.roles) and len(set(e.sizes.values())) == 1), None)


def _declaration_problems(game: Game) -> list[str]:
    """What is wrong with ``game``'s declarations, one phrase each with its fix."""
    problems = [f"{name} is a {type(getattr(game, name)).__name__}, not a {kind.__name__}: pass "
                f"gamecore.interface.{kind.__name__}(...)" for name, kind in CAPABILITIES.items()
                if not isinstance(getattr(game, name), kind)]
    if not isinstance(game.kernels, ModuleType):
        problems.append(f"kernels is a {type(game.kernels).__name__}, not the module of its compiled interface")
    if game.option_codes is option_values:
        problems += [f"option {p.name} is a {p.type.__name__}: give option_codes (validated options -> deal_game's "
                     "int64 array)" for p in game.options if p.type not in (int, bool)]
    if not problems:
        problems += [f"{where} = {target!r} is not \"module:function\"" for where, target in targets(game)
                     if not isinstance(target, str) or not TARGET.fullmatch(target)]
    return problems


def targets(game: Game) -> list[tuple[str, str]]:
    """Every "module:function" ``game`` declares, as (its field, the target)."""
    found = [("invariants", game.invariants), ("search.table", game.search.table),
             ("learning.playout_nets", game.learning.playout_nets), ("reproduction.label", game.reproduction.label),
             ("reproduction.preamble", game.reproduction.preamble), ("command_line.draw", game.command_line.draw)]
    found += [(f"learning.learners[{name!r}]", target) for name, target in game.learning.learners.items()]
    found += [(f"reproduction.agents[{i}].factory", agent.factory) for i, agent in enumerate(game.reproduction.agents)]
    found += [(f"command_line.commands[{i}].{which}", getattr(command, which))
              for i, command in enumerate(game.command_line.commands) for which in ("arguments", "run")]
    return [(where, target) for where, target in found if target]


def _index_of(game: Game, what: str, names: list[str], name: str) -> int:
    if name not in names:
        raise SpecError(f"{game.name} has no {what} {name!r}; its {what}s: {', '.join(names) or 'none'}")
    return names.index(name)
