"""The kernels a game may leave out (``gamecore.contract``), and ``complete``, which adds them when its ``Game`` is made.

- The same for every game: ``copy`` (every entry), ``note_turn`` (nothing
  noted), and the search plumbing
  of a game whose candidates are its legal actions as they are
  (``canonicalize``, ``reduced_out``, ``key_matches``; ``action_key`` and
  ``key_action`` for an action of at most two integers, its own key);
  ``determinize`` of a game of perfect information (nothing to re-draw);
  the constants ``OK``, ``DECODE_WORK`` and ``NET_WORK``.
- The two-player kernels (``gamecore.two_player``), for a state that begins
  with its header, with ``N_PLAYERS``, ``N_ROLES`` and ``ROLES_BY_SEAT``.
- Made for the game, over its ``legal_actions``: ``root_candidates``,
  ``is_candidate``, ``workspace`` and ``sample_candidate``. They are closures
  over the game's kernels module, compiled and cached with the code compiled
  for that game (``agents.search`` does the same), so an edit to the game's
  rules compiles them again.

A kernels module that calls one of the shared kernels itself imports it from
here or from ``gamecore.two_player`` (Carcassonne's rules copy states).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np

from gamecore import _jit_cache, two_player
from gamecore.jit import allocating, inline_kernel, kernel
from gamecore.rng import below

TWO_PLAYER_KERNELS = ("is_over", "to_move", "reward")
PLAIN_KEY_SIZE = 2  # an action of at most this many integers is its own key


@inline_kernel
def copy(dst, src):
    for i in range(src.shape[0]):  # faster than a slice assignment for small states
        dst[i] = src[i]


@inline_kernel
def note_nothing(S):
    """``note_turn`` of a game whose record keeps nothing turn by turn."""
    return


@inline_kernel
def nothing_hidden(S, player, rs):
    """``determinize`` of a game of perfect information."""
    return


@inline_kernel
def canonicalize(S, act):
    return


@inline_kernel
def reduced_out(S, act, row):
    return False


@inline_kernel
def key_matches(S, k0, k1):
    return True


@inline_kernel
def action_key(S, act):
    """An action of one or two integers, as its key."""
    return act[0], act[1] if act.shape[0] > 1 else np.int64(0)


@inline_kernel
def key_action(k0, k1, act):
    act[0] = k0
    if act.shape[0] > 1:
        act[1] = k1


def complete(module: ModuleType, perfect_information: bool) -> None:
    """Add to the kernels ``module`` each default it leaves out and can have (``contract.missing`` names the
    others): ``perfect_information``, whether the game hides nothing (then ``determinize`` is ``nothing_hidden``)."""
    for name, value in _defaults(module, perfect_information).items():
        if not hasattr(module, name):
            setattr(module, name, value)


def _defaults(module: ModuleType, perfect_information: bool) -> dict[str, Any]:
    """Every default the kernels ``module`` can have, by name (``complete`` keeps what it defines itself)."""
    defaults: dict[str, Any] = {"OK": 0, "DECODE_WORK": 0, "NET_WORK": 0, "copy": copy, "note_turn": note_nothing,
                                "canonicalize": canonicalize, "reduced_out": reduced_out, "key_matches": key_matches}
    if perfect_information:
        defaults["determinize"] = nothing_hidden
    if _has_two_player_header(module):
        defaults |= {"N_PLAYERS": two_player.N_PLAYERS, "N_ROLES": two_player.N_PLAYERS, "ROLES_BY_SEAT": True}
        defaults |= {name: getattr(two_player, name) for name in TWO_PLAYER_KERNELS}
        if getattr(module, "ROLES_BY_SEAT", True):
            defaults["role"] = two_player.role
    if _is_its_own_key(module):
        defaults |= {"action_key": action_key, "key_action": key_action}
    wanted = _candidates_wanted(module)
    if wanted:
        defaults |= {name: function for name, function in _made_for(module).items() if name in wanted}
    return defaults


def _is_its_own_key(module: ModuleType) -> bool:
    """Whether the kernels' action is its own key: it has at most two integers, and they name neither way of keying."""
    return (not hasattr(module, "action_key") and not hasattr(module, "key_action")
            and getattr(module, "ACTION_SIZE", PLAIN_KEY_SIZE + 1) <= PLAIN_KEY_SIZE)


def _candidates_wanted(module: ModuleType) -> set[str]:
    """The candidate kernels made for the game that its kernels leave out and can have: ``is_candidate`` always;
    over their ``legal_actions``, ``root_candidates``, and ``workspace`` with ``sample_candidate`` (the one's
    work space is the other's, so both or neither)."""
    wanted = {"is_candidate"}
    if hasattr(module, "legal_actions"):
        wanted.add("root_candidates")
        if not hasattr(module, "workspace") and not hasattr(module, "sample_candidate"):
            wanted |= {"workspace", "sample_candidate"}
    return {name for name in wanted if not hasattr(module, name)}


def _has_two_player_header(module: ModuleType) -> bool:
    """Whether the kernels' state begins with ``gamecore.two_player``'s header (they import its fields)."""
    return (getattr(module, "TO_MOVE", None), getattr(module, "WINNER", None)) == (two_player.TO_MOVE,
                                                                                  two_player.WINNER)


def _made_for(module: ModuleType) -> dict[str, Any]:
    """The search plumbing over ``module``'s legal actions, defined where the code compiled for the game caches."""
    previous = numba.config.CACHE_DIR
    if getattr(module, "__file__", None):
        numba.config.CACHE_DIR = _jit_cache.folder_for(Path(module.__file__))
    try:
        return _candidates(module)
    finally:
        numba.config.CACHE_DIR = previous


def _candidates(game: ModuleType) -> dict[str, Any]:
    @allocating
    def root_candidates(S, row, rs, keys, attempts, scratch, err):
        """Every legal action, keyed."""
        acts = np.empty((game.MAX_CANDIDATES, game.ACTION_SIZE), np.int64)
        n = game.legal_actions(S, acts)
        for i in range(n):
            keys[i, 0], keys[i, 1] = game.action_key(S, acts[i])
        return n

    @kernel
    def is_candidate(S, act, row, scratch, err):
        """Whether ``act`` is legal at ``S``: it applies to a copy (``scratch``)."""
        game.copy(scratch, S)
        return game.apply(scratch, act, err) == game.OK

    @allocating
    def workspace():
        """Room for ``sample_candidate``'s legal actions."""
        return (np.empty((game.MAX_CANDIDATES, game.ACTION_SIZE), np.int64),)

    @kernel
    def sample_candidate(S, rs, act, ws, scratch, err):
        """A legal action drawn uniformly; False where there is none."""
        (acts,) = ws
        n = game.legal_actions(S, acts)
        if n == 0:
            return False
        pick = below(rs, n)
        for i in range(act.shape[0]):
            act[i] = acts[pick, i]
        return True

    return {"root_candidates": root_candidates, "is_candidate": is_candidate, "workspace": workspace,
            "sample_candidate": sample_candidate}
