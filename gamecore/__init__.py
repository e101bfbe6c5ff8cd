"""The game interface and registry: every game the agents and the tuner play.

``load("lotr")`` returns a game's ``GAME``. A game is found three ways: a
package installed anywhere that declares it under the ``gametune.games``
entry point (``nim = "gametune_nim.game:GAME"`` in its ``pyproject.toml``:
``pip install`` registers it; ``examples/nim``), a package ``<name>_sim`` with
a ``game`` module beside this project's (its own games), or ``register`` (a
game made in code).
"""

from __future__ import annotations

import copyreg
import functools
import importlib
import importlib.metadata
import importlib.util
import pkgutil
import sys
from pathlib import Path
from types import ModuleType

from gamecore import _jit_cache

_jit_cache.configure()  # before any compiled function is defined


from gamecore.contract import check  # noqa: E402
from gamecore.errors import IllegalActionError, SpecError  # noqa: E402
from gamecore.interface import Game  # noqa: E402

DEFAULT_GAME = "lotr"
ENTRY_POINTS = "gametune.games"  # the entry-point group under which an installed package declares its games
_REGISTERED: dict[str, Game] = {}


def _by_name(game: Game) -> tuple:
    """How a game pickles: by its name, loaded again where it is unpickled (a worker process, a Ray task)."""
    return load, (game.name,)


copyreg.pickle(Game, _by_name)


def register(game: Game) -> Game:
    """Make ``game`` loadable by its name; SpecError (one line) if its kernels lack part of the contract
    (``gamecore.contract``)."""
    _REGISTERED[game.name] = check(game)
    return game


def names() -> list[str]:
    """The games that can be loaded: registered ones, installed plug-ins (``ENTRY_POINTS``) and every ``<name>_sim``
    package with a ``game`` module."""
    return sorted(_packaged(tuple(sys.path)) | set(_plugins()) | set(_REGISTERED))


@functools.lru_cache(maxsize=1)
def _plugins() -> dict[str, importlib.metadata.EntryPoint]:
    """The games installed packages declare under ``ENTRY_POINTS``, by name (read once per process)."""
    return {entry.name: entry for entry in importlib.metadata.entry_points(group=ENTRY_POINTS)}


def _plugin(name: str) -> Game:
    """The game the entry point ``name`` names (a ``Game``, or a module with ``GAME``), registered; SpecError
    (one line) when it cannot be loaded or is not that game."""
    entry = _plugins()[name]
    try:
        found = entry.load()
    except Exception as error:  # noqa: BLE001  (whatever the plug-in's import raises, one line naming it)
        raise SpecError(f"game {name}: its entry point {entry.value!r} does not load: {error}") from None
    game = getattr(found, "GAME", None) if isinstance(found, ModuleType) else found
    if not isinstance(game, Game) or game.name != name:
        raise SpecError(f"game {name}: its entry point {entry.value!r} is not a Game named {name!r}")
    return register(game)


@functools.lru_cache(maxsize=8)
def _packaged(search_path: tuple[str, ...]) -> frozenset[str]:
    """The games of the ``<name>_sim`` packages importable with ``sys.path`` as it is (``search_path``, the cache's
    key) and beside this project's packages: looked for once per ``sys.path`` (a scan of every installed module
    takes 30-50 ms, and building the command line asks for the names a dozen times)."""
    beside = [str(Path(__file__).parent.parent)]  # this project's own games, wherever it is installed (editable too)
    return frozenset(
        module.name.removesuffix(_jit_cache.GAME_PACKAGE_SUFFIX)
        for path in (None, beside) for module in pkgutil.iter_modules(path)
        if module.ispkg and module.name.endswith(_jit_cache.GAME_PACKAGE_SUFFIX) and _has_game_module(module.name)
    )


def _has_game_module(package: str) -> bool:
    """Whether ``package`` can be imported and has a ``game`` module (a folder beside this project's packages
    that the installed project does not know yet is not a game)."""
    try:
        return importlib.util.find_spec(f"{package}.game") is not None
    except ModuleNotFoundError:
        return False


def load(name: str | Game) -> Game:
    """The game called ``name`` (a game is returned as it is); SpecError (one line listing the games) if there
    is none. Where a name enters (the command line, a file), it is resolved here once; the game object travels."""
    if isinstance(name, Game):
        return name
    if name in _REGISTERED:
        return _REGISTERED[name]
    if isinstance(name, str) and name in _plugins():
        return _plugin(name)
    module_name = f"{name}{_jit_cache.GAME_PACKAGE_SUFFIX}.game"
    try:
        found = isinstance(name, str) and name.isidentifier() and importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        raise SpecError(f"unknown game {name!r}; valid: {', '.join(names())}")
    return register(importlib.import_module(module_name).GAME)


__all__ = ["DEFAULT_GAME", "ENTRY_POINTS", "Game", "IllegalActionError", "SpecError", "load", "names", "register"]
