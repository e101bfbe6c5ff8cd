"""The game interface and registry: every game the agents and the tuner play.

``load("lotr")`` imports ``lotr_sim.game`` and returns its ``GAME``; a game
package is found by its name alone (``<name>_sim``), and a game defined
elsewhere (a test's) is added with ``register``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
import sys
from pathlib import Path

from gamecore import _jit_cache

_jit_cache.configure()  # before any compiled function is defined


from gamecore.errors import IllegalActionError, SpecError  # noqa: E402
from gamecore.interface import Game, check  # noqa: E402

DEFAULT_GAME = "lotr"
_REGISTERED: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Make ``game`` loadable by its name; SpecError (one line) if its kernels lack part of the interface."""
    _REGISTERED[game.name] = check(game)
    return game


def names() -> list[str]:
    """The games that can be loaded: registered ones and every ``<name>_sim`` package with a ``game`` module."""
    return sorted(_packaged(tuple(sys.path)) | set(_REGISTERED))


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
    module_name = f"{name}{_jit_cache.GAME_PACKAGE_SUFFIX}.game"
    try:
        found = isinstance(name, str) and name.isidentifier() and importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        raise SpecError(f"unknown game {name!r}; valid: {', '.join(names())}")
    return register(importlib.import_module(module_name).GAME)


__all__ = ["DEFAULT_GAME", "Game", "IllegalActionError", "SpecError", "load", "names", "register"]
