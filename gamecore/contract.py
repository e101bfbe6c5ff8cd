"""The game contract at the compiled level: what a game's kernels offer, as typed protocols, checked at registration.

``Game.kernels`` is one module of Numba functions over the game's flat
``int64`` state, against which ``agents`` compile the searches and the game
loop per game. Its members, by capability:

- ``Rules``: what every game writes (its deal, moves, policies and metrics);
  the two-player members, ``copy`` and ``note_turn`` have defaults;
- ``Encoding``: what learning agents and the environments observe and choose
  among, for a game that declares encoders and action spaces;
- ``SearchPlumbing``: how the search names, finds and draws candidate
  actions; every member has a default, for a game whose candidates are its
  legal actions and whose action is its own key;
- ``Model`` (search support, optional): a finished game's score margin, and a
  trained network's or a table's choices, values and beliefs inside playouts.

A game whose learning interface reads its rules writes it in a module of its
own, which the rules cannot import back: ``joined`` adds its members to the
rules' module, which is then the game's one compiled interface.
``gamecore.default_kernels`` adds the defaults a game's kernels leave out when
its ``Game`` is made. ``check`` (run by ``gamecore.register``) raises
``SpecError``, one line naming the game, each member it still lacks or
declares with other parameters, and what to do.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Protocol

from gamecore.errors import SpecError

if TYPE_CHECKING:
    from gamecore.interface import Game


class Rules(Protocol):
    """The compiled rules: what every game writes. ``S`` is a state (``STATE_SIZE`` int64), ``act`` an action
    (``ACTION_SIZE`` int64), ``rs`` a random stream (``gamecore.rng``), ``err`` four int64 of error detail."""

    STATE_SIZE: int
    ACTION_SIZE: int
    N_PLAYERS: int  # default 2 with the two-player header (gamecore.two_player)
    N_ROLES: int  # the agents of a setup; default 2 with the two-player header
    ROLES_BY_SEAT: bool  # whether the roles are the players, else decision kinds; default True with the header
    N_RECORD: int  # the integers ``record`` keeps of a finished game
    MAX_CANDIDATES: int  # the most legal actions ``legal_actions`` lists (the search's root holds as many)
    OK: int  # the code of a legal action; default 0

    def deal_game(self, S, seed, options) -> None:
        """Deal the game of ``seed`` (uint64) into ``S``, with the options ``Game.option_codes`` made."""

    def apply(self, S, act, err) -> int:
        """Play ``act`` for the player to move and take the game to its next decision; OK, or an error code
        (in ``err[0]`` too) with ``S`` unchanged."""

    def playout_action(self, S, policy, rs, act, scratch) -> None:
        """Fill ``act`` with compiled policy ``policy``'s choice (its index in ``Game.policies``; 0 a random
        policy); ``scratch`` is a state-sized int64 array to use."""

    def record(self, S, out) -> None:
        """The finished game ``S``'s metrics into ``out`` (``N_RECORD`` int64; ``Game.summarise`` reads them)."""

    def determinize(self, S, player, rs) -> None:
        """Re-draw in ``S`` what ``player`` cannot see. Default: nothing, for a game declared
        ``Game(perfect_information=True)``."""

    def is_over(self, S) -> bool:
        """Whether the game is over. Default with the two-player header (``gamecore.two_player``)."""

    def to_move(self, S) -> int:
        """The player to move. Default with the two-player header."""

    def role(self, S) -> int:
        """The index in ``Game.roles`` of the agent that decides ``S``'s pending decision. Default with the
        two-player header: the seat to move."""

    def reward(self, S, player) -> float:
        """``player``'s reward of the finished game, in [0, 1] (1 win, 0.5 draw). Default with the header."""

    def copy(self, dst, src) -> None:
        """Copy the state ``src`` into ``dst``. Default: every entry."""

    def note_turn(self, S) -> None:
        """After each turn of a played game (the game loop's, never a search's), note in ``S`` what its record
        keeps turn by turn (Carcassonne: both virtual scores, when dealt with its option ``by_turn``). Default:
        nothing."""

    def legal_actions(self, S, acts) -> int:
        """Fill the rows of ``acts`` (``MAX_CANDIDATES`` x ``ACTION_SIZE``) with the legal actions; return their
        number. What the default search plumbing enumerates (a game that writes its own ``root_candidates``,
        ``workspace`` and ``sample_candidate`` may leave it out)."""


class Encoding(Protocol):
    """What learning agents and the environments observe and choose among (``Game.encoders``,
    ``Game.action_spaces``): encoder ``i`` is ``encode(S, i, ...)``, action space ``i`` is ``action_mask(S, i,
    ...)`` and ``decode(S, i, ...)``."""

    DECODE_WORK: int  # the floats of decode's work space; default 0

    def encode(self, S, encoding, player, out) -> None:
        """Fill the float vector ``out`` with encoder ``encoding`` of what ``player`` sees of ``S`` (any player;
        never hidden information: two states that differ only in what ``player`` cannot see encode the same)."""

    def action_mask(self, S, space, mask) -> None:
        """Set ``mask[i]`` to 1 for each legal index of action space ``space`` at ``S``, 0 for the others (the
        whole row: it is as wide as the widest role's space)."""

    def decode(self, S, space, index, act, scratch, work) -> None:
        """Fill ``act`` with the legal action of ``index`` (``scratch``: a state-sized int64 array, ``work``:
        ``DECODE_WORK`` floats). A space named ``direct`` lists every legal action once."""


class SearchPlumbing(Protocol):
    """How the search names, finds and draws candidate actions, each identified by a key of two int64; ``row`` is
    the agent's row (its game columns: ``Game.search.params``). Every member has a default
    (``gamecore.default_kernels``): the candidates are the legal actions (``Rules.legal_actions``), an action of
    at most two integers is its own key."""

    def root_candidates(self, S, row, rs, keys, attempts, scratch, err) -> int:
        """Fill ``keys`` with the root's candidates (``attempts`` draws where too many to enumerate); their
        number."""

    def action_key(self, S, act) -> tuple[int, int]:
        """The key of ``act`` at ``S``."""

    def key_action(self, k0, k1, act) -> None:
        """Fill ``act`` with the action of the key (k0, k1)."""

    def key_matches(self, S, k0, k1) -> bool:
        """A cheap filter before ``is_candidate``: whether the key may be a candidate of ``S``. Default: True."""

    def is_candidate(self, S, act, row, scratch, err) -> bool:
        """Whether ``act`` is a candidate of ``S``. Default: it is legal (applied to ``scratch``, a copy)."""

    def canonicalize(self, S, act) -> None:
        """Turn ``act`` into the one action of its set of equivalent ones. Default: every action is its own."""

    def reduced_out(self, S, act, row) -> bool:
        """Whether the game's search options of ``row`` leave ``act`` out. Default: False."""

    def workspace(self) -> tuple:
        """What ``sample_candidate`` works in, allocated once per search."""

    def sample_candidate(self, S, rs, act, ws, scratch, err) -> bool:
        """Fill ``act`` with a candidate drawn uniformly; False where none is found."""


class Model(Protocol):
    """Search support, each member optional: what a search with ``reward = "margin"``, ``playout_nets``,
    ``leaf = "value"`` or a table of the game's (``Game.search.table``) reads. ``nets`` is (the net table at the
    end of the agent row, ``NET_WORK`` floats of work space)."""

    NET_WORK: int  # the floats of net_action's work space; default 0

    def margin(self, S, player) -> float:
        """A finished game's score difference for ``player`` (backed up instead of ``reward``)."""

    def net_action(self, S, nets, act, scratch) -> bool:
        """The choice of a trained network (or of a table) for ``S``'s pending decision; False where none
        decides."""

    def net_value(self, S, nets) -> float:
        """A trained network's chance of a win from ``S`` for the player to move, -1 where none values ``S``."""

    def net_plausible(self, S, nets) -> bool:
        """Whether the table's model of the opponent would have made his moves in the determinized world ``S``
        (an honest search draws a world it rejects again)."""


def constants(protocol: type) -> tuple[str, ...]:
    """The constants ``protocol`` declares."""
    return tuple(protocol.__annotations__)


def kernels(protocol: type) -> dict[str, str]:
    """The kernels ``protocol`` declares: name -> their parameters, as "S, player"."""
    return {name: ", ".join(list(inspect.signature(member).parameters)[1:])
            for name, member in vars(protocol).items() if inspect.isfunction(member) and not name.startswith("_")}


PROTOCOLS = (Rules, Encoding, SearchPlumbing, Model)


def joined(module: ModuleType, *beside: ModuleType) -> ModuleType:
    """``module``, with the members of the contract (``PROTOCOLS``) that the modules ``beside`` it define added:
    a game's compiled interface written in several modules (its rules, and an encoding that reads them), as one.
    SpecError (one line) where two of them define a member differently."""
    for other in beside:
        for name in (name for protocol in PROTOCOLS for name in (*constants(protocol), *kernels(protocol))):
            if not hasattr(other, name):
                continue
            if hasattr(module, name) and getattr(module, name) != getattr(other, name):
                raise SpecError(f"{module.__name__} and {other.__name__} both define {name}: keep one")
            setattr(module, name, getattr(other, name))
    return module


def missing(game: Game) -> list[str]:
    """What ``game``'s kernels lack of the contract, one phrase each with what to do (empty: nothing)."""
    module = game.kernels
    expected = {name: (params, Rules) for name, params in kernels(Rules).items()
                if name != "legal_actions" or hasattr(module, name)}
    expected |= {name: (params, SearchPlumbing) for name, params in kernels(SearchPlumbing).items()}
    learning = ["encode"] * bool(game.encoders) + ["action_mask", "decode"] * bool(game.action_spaces)
    expected |= {name: (kernels(Encoding)[name], Encoding) for name in learning}
    expected |= {name: (params, Model) for name, params in kernels(Model).items() if hasattr(module, name)}
    lacking: dict[str, list[str]] = {}  # what to do -> the members it would give
    for name in constants(Rules):
        if not hasattr(module, name):
            lacking.setdefault(_remedy(name, Rules, game), []).append(f"the constant {name}")
    problems = []
    for name, (params, protocol) in expected.items():
        function = getattr(module, name, None)
        if function is None:
            lacking.setdefault(_remedy(name, protocol, game), []).append(f"{name}({params})")
        elif _arity(function) not in (None, len(params.split(", ")) if params else 0):
            problems.append(f"{name} with the parameters ({params})")
    problems = [f"{_listed(members)} ({remedy})" for remedy, members in lacking.items()] + problems
    for what, declared in (("encoder", game.encoders), ("action space", game.action_spaces)):
        for item in declared:
            unknown = set(item.sizes) - set(game.roles)
            if unknown or not item.sizes:
                problems.append(f"{what} {item.name}'s sizes by role (one of {', '.join(game.roles)}), not "
                                f"{', '.join(sorted(unknown)) or 'none'}")
    return problems


def _remedy(name: str, protocol: type, game: Game) -> str:
    """What gives ``game`` the member ``name`` of ``protocol`` besides defining it: the protocol, and the
    condition of its default where it has one."""
    if name in ("N_PLAYERS", "N_ROLES", "ROLES_BY_SEAT", "is_over", "to_move", "role", "reward"):
        return f"{protocol.__name__}; or begin the state with gamecore.two_player's header"
    if name == "determinize":
        return f"{protocol.__name__}; or declare Game(perfect_information=True)"
    if name in ("root_candidates", "workspace", "sample_candidate"):
        return f"{protocol.__name__}; or legal_actions(S, acts), which their defaults enumerate"
    if name in ("action_key", "key_action") and hasattr(game.kernels, "ACTION_SIZE"):
        return f"{protocol.__name__}; an action of {game.kernels.ACTION_SIZE} integers is no key of two"
    if protocol is Encoding:
        return f"{protocol.__name__}, for its {'encoders' if name == 'encode' else 'action spaces'}"
    return protocol.__name__


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _arity(function: Callable) -> int | None:
    """The number of parameters of a kernel (a Numba dispatcher's Python function), None if unknown."""
    try:
        return len(inspect.signature(getattr(function, "py_func", function)).parameters)
    except (TypeError, ValueError):
        return None


def check(game: Game) -> Game:
    """``game``, or SpecError in one line naming the game, what its kernels or declarations lack, and the fix."""
    problems = missing(game)
    if problems:
        module = getattr(game.kernels, "__name__", "its kernels")
        raise SpecError(f"game {game.name}: {module} lacks {'; '.join(problems)}: define each there, as "
                        f"gamecore/contract.py describes it")
    return game
