"""What a game offers the agents and the tuner: its ``Game`` descriptor and its compiled interface.

A game is a package ``<name>_sim`` with a module ``game`` defining ``GAME``, a
``Game``. At the Python level (the model: OpenSpiel's narrow state API),
``GAME.new_game(seed, **options)`` returns a state with ``to_move`` (the
player), ``decision_kind``, ``legal_actions()``, ``apply(action)``,
``is_over``, ``returns()`` (one value per player), ``observation(player)``,
``clone()``, ``determinize(player, rng)``, ``vector(action)`` (the action
as the kernels' vector), a trace and a JSON form; ``Game.state_from_core``
makes such a state from a flat state array (OpenSpiel's form,
``gamecore.openspiel``, needs it).

At the compiled level, ``Game.kernels`` is a module of Numba functions over
the game's flat ``int64`` state, which the search and the harness
(``agents.search``) are compiled against:

- constants ``STATE_SIZE``, ``ACTION_SIZE`` (an action is an ``int64`` vector),
  ``N_PLAYERS``, ``N_ROLES`` (the agents of a setup), ``ROLES_BY_SEAT`` (roles
  are players, else decision kinds), ``N_RECORD`` (integers kept per game),
  ``MAX_CANDIDATES`` and ``OK`` (the code of a legal action);
- ``deal_game(S, seed, options)``, ``is_over(S)``, ``to_move(S)``,
  ``role(S)``, ``reward(S, player)`` (in [0, 1]: 1 win, 0.5 draw),
  ``record(S, out)`` (the game's metrics of a finished game), ``copy(dst,
  src)``, ``determinize(S, player, rs)`` (re-draw what ``player`` cannot
  see), ``apply(S, act, err)`` (the action, then the game to its next
  decision; returns OK or an error code) and ``playout_action(S, policy, rs,
  act, scratch)`` (the compiled policy ``policy``'s choice);
- the search's candidate actions, identified by a key of two ``int64``:
  ``root_candidates(S, row, rs, keys, attempts, scratch, err)``,
  ``action_key(S, act)``, ``key_action(k0, k1, act)``, ``key_matches(S, k0,
  k1)`` (a cheap filter), ``is_candidate(S, act, row, scratch, err)``,
  ``canonicalize(S, act)`` (one action per set of equivalent ones),
  ``reduced_out(S, act, row)`` (the game's search options, read from the
  agent row's game columns), ``workspace()`` and ``sample_candidate(S, rs,
  act, ws, scratch, err)``;
- optionally ``margin(S, player)``: a finished game's score difference for
  ``player``, which a search with ``reward = "margin"`` backs up instead of
  ``reward``;
- optionally ``net_action(S, nets, act, scratch)`` and ``NET_WORK``: the
  choice of a trained network (or of a table) for ``S``'s pending decision,
  returning False where none decides; ``nets`` is (net table, ``NET_WORK``
  floats of work space), the table packed by ``Game.playout_nets`` (or
  ``Game.search_table``) and carried at the end of the agent row. A search
  whose ``playout_nets`` names networks plays its playouts with them (and
  expands their choice first);
- optionally, with those, ``net_value(S, nets)``: a trained network's chance
  of a win from ``S`` for the player to move, -1 where none values ``S``; a
  search with ``leaf = "value"`` stops its playouts there;
- optionally, with those, ``net_plausible(S, nets)``: whether the table's
  model of the opponent (Love Letter's DP player) would have made his moves
  in the determinized world ``S``; an honest search draws a world it
  rejects again (``agents.search.REDRAWS``);
- for learning agents and the environments (``Game.encoders``,
  ``Game.action_spaces``): ``encode(S, encoding, player, out)`` fills the
  float vector ``out`` with encoder number ``encoding`` of what ``player``
  sees of ``S`` (the player to move at a decision; any player for OpenSpiel's
  tensors and PettingZoo's observations; never hidden information: two states
  that differ only in what ``player`` cannot see encode the same);
  ``action_mask(S, space, mask)`` sets ``mask[i]`` to 1 for each legal index
  of action space number ``space`` at ``S`` and to 0 for the others (the
  whole row: it is as wide as the widest role's space); ``decode(S, space,
  index, act, scratch, work)`` fills ``act`` with the legal action of that
  index (``scratch`` a state-sized int64 array, ``work`` ``DECODE_WORK``
  floats). A space named ``direct`` lists every legal action once.

``gamecore.load`` checks that the kernels offer all this (``missing``): a
game without one of them fails there in one line naming it.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from gamecore.params import Param, SpecError
from gamecore.published import Published


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


@dataclass(frozen=True, eq=False)
class Game:
    """A game: its compiled interface, its roles, policies and options, and its own metrics.

    One object per game (``gamecore.load``): compared by identity, pickled by name (``gamecore`` registers the
    reducer: a worker process or a Ray task loads it again), printed as its name."""

    name: str
    kernels: ModuleType
    roles: tuple[str, ...]  # what a setup assigns agents to: decision kinds, or seats
    policies: tuple[str, ...]  # the compiled policies, by code
    options: tuple[Param, ...]  # game options (LOTR's difficulty), with defaults
    option_codes: Callable[[dict[str, Any]], np.ndarray]  # validated options -> deal_game's int64 array
    new_game: Callable[..., Any]  # the Python-level state: new_game(seed, **options)
    state_from_json: Callable[[str], Any]  # the state of its to_json() text
    summarise: Callable[[np.ndarray], dict[str, Any]]  # records of finished games -> the game's metrics
    describe: Callable[[dict[str, Any], int], list[str]]  # (metrics, games) -> report lines
    search_params: tuple[Param, ...] = ()  # the search's game options, agent row columns GAME_COLUMNS..
    short_roles: tuple[str, ...] = ()  # the roles named by a short setup form, the others random
    help: str = ""
    metric_names: tuple[str, ...] = field(default=())  # the metrics logged per evaluation
    python_agents: tuple[PythonAgent, ...] = ()  # agents made for this game that decide in Python
    presets: tuple[Preset, ...] = ()  # agents named by the game: another agent with other defaults
    published: tuple[Published, ...] = ()  # the published results its report sections are compared with
    commands: tuple[Command, ...] = ()  # its own subcommands of the command line (lotr <game> <command>)
    draw: str = ""  # "module:function" drawing a state to a PNG file, (state, path) -> path (lotr play --png)
    state_from_core: Callable[[np.ndarray], Any] | None = None  # the Python state of a flat state array (a copy)
    max_legal_actions: int = 0  # a bound on len(legal_actions()) where MAX_CANDIDATES is not one (OpenSpiel's form)
    search_table: str = ""  # "module:function": a search's validated parameters -> a table its kernels' net_action
    # reads at the end of the agent row, or None (Love Letter's DP plays for opponent_playout = "dp")
    playout_nets: str = ""  # "module:function": a configuration's trained networks (by role index: algo, encoding,
    # acting and critic layers; agents.learning.playout_nets) -> the net table its kernels' net_action reads
    seat_measures: tuple[str, ...] = ()  # per-seat measures of its metrics (<name>_<seat>) the report compares
    report_reasons: dict[str, str] = field(default_factory=dict)  # a study's report.reason key -> why rows may differ
    report_references: dict[str, tuple[str, dict]] = field(default_factory=dict)  # report.reference key -> (column
    # title, value per row key): a reference figure of ours set beside the published one (LOTR's corrected-rules rate)
    report_label: str = ""  # "module:function": a setup label -> the published setup it reproduces (report.as_published)
    report_preamble: str = ""  # "module:function": (report folder) -> Markdown lines set before the studies' sections
    encoders: tuple[Encoder, ...] = ()  # what learning agents and environments observe (the kernels' encode)
    action_spaces: tuple[ActionSpace, ...] = ()  # what they choose among (the kernels' action_mask and decode)
    learners: dict[str, str] = field(default_factory=dict)  # its own learning algorithms: name -> "module:Class"
    learning_defaults: dict[str, Any] = field(default_factory=dict)  # its defaults of the rl agent's parameters
    invariants: str = ""  # "module:function": (flat state) -> what it conserves that is broken (empty: all holds)

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


def _index_of(game: Game, what: str, names: list[str], name: str) -> int:
    if name not in names:
        raise SpecError(f"{game.name} has no {what} {name!r}; its {what}s: {', '.join(names) or 'none'}")
    return names.index(name)


CONSTANTS = ("STATE_SIZE", "ACTION_SIZE", "N_PLAYERS", "N_ROLES", "ROLES_BY_SEAT", "N_RECORD", "MAX_CANDIDATES", "OK")
KERNELS = {  # name -> parameters, as the module docstring describes them
    "deal_game": "S, seed, options", "is_over": "S", "to_move": "S", "role": "S", "reward": "S, player",
    "record": "S, out", "copy": "dst, src", "determinize": "S, player, rs", "apply": "S, act, err",
    "playout_action": "S, policy, rs, act, scratch", "root_candidates": "S, row, rs, keys, attempts, scratch, err",
    "action_key": "S, act", "key_action": "k0, k1, act", "key_matches": "S, k0, k1",
    "is_candidate": "S, act, row, scratch, err", "canonicalize": "S, act", "reduced_out": "S, act, row",
    "workspace": "", "sample_candidate": "S, rs, act, ws, scratch, err",
}
OPTIONAL_KERNELS = {"margin": "S, player", "net_action": "S, nets, act, scratch", "net_value": "S, nets",
                    "net_plausible": "S, nets"}
ENCODING_KERNELS = {"encode": "S, encoding, player, out"}
ACTION_SPACE_KERNELS = {"action_mask": "S, space, mask", "decode": "S, space, index, act, scratch, work"}


def missing(game: Game) -> list[str]:
    """What ``game``'s kernels and declarations lack of the interface (this module's docstring), one phrase each."""
    kernels = game.kernels
    problems = [f"the constant {name}" for name in CONSTANTS if not hasattr(kernels, name)]
    required = dict(KERNELS)
    required |= ENCODING_KERNELS if game.encoders else {}
    required |= ACTION_SPACE_KERNELS if game.action_spaces else {}
    if game.action_spaces and not hasattr(kernels, "DECODE_WORK"):
        problems.append("the constant DECODE_WORK")
    for name, params in (required | {k: v for k, v in OPTIONAL_KERNELS.items() if hasattr(kernels, k)}).items():
        function = getattr(kernels, name, None)
        arity = _arity(function)
        if function is None:
            problems.append(f"{name}({params})")
        elif arity is not None and arity != len(params.split(", ") if params else ()):
            problems.append(f"{name} with the parameters ({params})")
    if hasattr(kernels, "net_action") and not hasattr(kernels, "NET_WORK"):
        problems.append("the constant NET_WORK (net_action's work space)")
    for what, declared in (("encoder", game.encoders), ("action space", game.action_spaces)):
        for item in declared:
            unknown = set(item.sizes) - set(game.roles)
            if unknown or not item.sizes:
                problems.append(f"{what} {item.name}'s sizes by role (one of {', '.join(game.roles)}), not "
                                f"{', '.join(sorted(unknown)) or 'none'}")
    return problems


def _arity(function: Callable) -> int | None:
    """The number of parameters of a kernel (a Numba dispatcher's Python function), None if unknown."""
    try:
        return len(inspect.signature(getattr(function, "py_func", function)).parameters)
    except (TypeError, ValueError):
        return None


def check(game: Game) -> Game:
    """``game``, or SpecError in one line naming what its kernels or declarations lack."""
    problems = missing(game)
    if problems:
        raise SpecError(f"game {game.name}: {getattr(game.kernels, '__name__', 'its kernels')} lacks "
                        f"{'; '.join(problems)} (gamecore/interface.py describes each)")
    return game
