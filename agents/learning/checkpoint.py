"""Loading an rl agent's trained weights (its ``weights`` parameter), with one-line errors.

A weights file is what ``lotr train`` writes (``save_weights``): ``torch.save``
of ``{"format": 2, "game", "role", "algo", "encoding", "layers", "net", "networks"}`` (``net`` missing: an MLP),
the networks being the learner's ``state_dict()``, a dict from network name
("q"; or "actor" and "critic") to that network's own state_dict. A file of
the first format (the networks alone, as LOTR's shipped ones) loads too. ``load_weights`` reads the file with
``weights_only=True`` (nothing in it runs), then checks it against the learner
before copying it in: that it was trained for this game, encoding, algorithm
and depth (and role, where roles are not seats: a seat's network plays either
seat), the networks, their tensors, every shape (a mismatch names the agent
parameter that probably differs) and finite values. Every
problem raises ``SpecError`` (a ValueError), one line::

    questing.weights = 'x.pt': cannot load: <reason>; <what to do>

Weights of the same shapes cannot be told apart (LOTR's questing encodings
0, 2 and 3 all have 32 inputs, and its questing and defense ac-direct networks
have the same shapes).
"""

from __future__ import annotations

import io
import pickle
import re
import warnings
from collections.abc import Mapping
from pathlib import Path

import torch

from agents.learning.learner import Learner
from agents.specs import SpecError
from gamecore.atomic import atomic_path

_ZIP_MAGIC = b"PK\x03\x04"  # torch.save's format since PyTorch 1.6
_LEGACY_MAGIC = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19."  # the older format: a pickled magic number first
_LISTED = 5  # keys named in a message, at most
FORMAT = 2  # of the files save_weights writes


class _Unloadable(Exception):
    """Why a weights file cannot be loaded, and what to do (None: give a file lotr train wrote)."""

    def __init__(self, reason: str, fix: str | None = None):
        super().__init__(reason)
        self.reason, self.fix = reason, fix


def load_weights(learner: Learner, weights: str | Path) -> None:
    """Copy the weights file ``weights`` into ``learner``; SpecError (one line) if it does not fit."""
    try:
        state = _networks(learner, _unpickle(_read(Path(weights))))
        _check(learner, state)
    except _Unloadable as problem:
        fix = problem.fix or _retrain(learner)
        raise SpecError(f"{learner.role}.weights = {str(weights)!r}: cannot load: {problem.reason}; {fix}") from None
    learner.load_state_dict(state)


def save_weights(learner: Learner, state: dict, path: Path) -> None:
    """Write ``state`` (the learner's ``state_dict()``, or an earlier copy of it) with what it was trained for."""
    spec = learner.spec
    with atomic_path(path) as temporary:
        torch.save({"format": FORMAT, "game": spec.game.name, "role": learner.role, "algo": spec["algo"],
                    "encoding": learner.encoding, "layers": spec["layers"], "net": spec["net"], "networks": state},
                   temporary)


def _networks(learner: Learner, saved):
    """The networks of a file of either format, after checking what the second format says it was trained for."""
    if not isinstance(saved, Mapping) or saved.get("format") != FORMAT:
        return saved  # the first format: the networks alone, checked by _check
    spec, game = learner.spec, learner.spec.game
    trained = {"game": game.name, "algo": spec["algo"], "encoding": learner.encoding, "layers": spec["layers"],
               "net": spec["net"]}
    if not game.by_seat:
        trained["role"] = learner.role
    for key, wanted in trained.items():
        found = saved.get(key, "mlp" if key == "net" else None)  # files before net was a parameter: MLPs
        if found != wanted:
            raise _Unloadable(f"trained for {key} {found!r}, not {wanted!r}",
                              f"give a .pt trained for {key} {wanted!r}, or set {key} = {found!r}"
                              if key not in ("game", "role") else f"give a .pt trained for {game.name}'s "
                              f"{learner.role}")
    return saved.get("networks")


def _retrain(learner: Learner) -> str:
    spec = learner.spec
    encoding = f", encoding={learner.encoding}" if _encoding_matters(learner) else ""
    return (
        f"give a .pt written by lotr train for {learner.role} with algo={spec['algo']}, "
        f"neurons={spec['neurons']}{encoding}"
    )


def _read(path: Path) -> bytes:
    """The file's bytes (read first, so that a file-system error is not mistaken for a bad file)."""
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise _Unloadable("is a directory", "give the path of a .pt file, not of its folder") from None
    except FileNotFoundError:
        raise _Unloadable("no such file", "check the path (in a configuration file, relative to its folder)") from None
    except PermissionError:
        raise _Unloadable("permission denied", "make the file readable") from None
    except OSError as error:
        raise _Unloadable(error.strerror or type(error).__name__, "check the file") from None


def _unpickle(data: bytes):
    if not data:
        raise _Unloadable("empty file")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's notes on pickle protocols: not for the user
            return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as error:  # noqa: BLE001  bad bytes raise many kinds (UnpicklingError, RuntimeError, EOFError, ...)
        raise _Unloadable(_unreadable(data, error)) from None


def _unreadable(data: bytes, error: Exception) -> str:
    """A short reason for a file torch.load rejects (its own message is a paragraph)."""
    blocked = re.search(r"GLOBAL ([\w.]+)", str(error))
    if isinstance(error, pickle.UnpicklingError) and blocked:
        return f"holds a Python object ({blocked.group(1)}), not only tensors: refused, as loading it could run code"
    if data.startswith((_ZIP_MAGIC, _LEGACY_MAGIC)):
        return "truncated or corrupt PyTorch file"
    return "not a PyTorch file"


def _listing(keys) -> str:
    keys = list(keys)
    shown = ", ".join(repr(k) for k in keys[:_LISTED])
    return shown + (f" and {len(keys) - _LISTED} more" if len(keys) > _LISTED else "")


def _check(learner: Learner, state) -> None:
    """Raise _Unloadable unless ``state`` has exactly the learner's networks, tensors and shapes, all finite."""
    expected = learner.state_dict()
    networks = f"the networks {_listing(expected)}"
    if not isinstance(state, Mapping):
        raise _Unloadable(f"holds a {type(state).__name__}, not {networks}")
    if set(state) != set(expected):
        if not state:
            raise _Unloadable(f"holds an empty dict, not {networks}")
        if all(isinstance(value, Mapping) for value in state.values()):
            raise _Unloadable(f"holds the networks {_listing(state)}, not {_listing(expected)} (algo?)")
        keys = "key" if len(state) == 1 else "keys"
        raise _Unloadable(f"holds a dict with the {keys} {_listing(state)}, not {networks}")
    for name, tensors in expected.items():
        found = state[name]
        if not isinstance(found, Mapping):
            raise _Unloadable(f"network {name!r} holds a {type(found).__name__}, not its tensors")
        missing = [f"{name}.{key}" for key in tensors if key not in found]
        extra = [f"{name}.{key}" for key in found if key not in tensors]
        if missing or extra:
            parts = [f"lacks {_listing(missing)}"] * bool(missing)
            parts += [f"has the unknown {_listing(extra)}"] * bool(extra)
            raise _Unloadable(f"network {name!r} {' and '.join(parts)}")
        for key, tensor in tensors.items():
            value = found[key]
            if not isinstance(value, torch.Tensor):
                raise _Unloadable(f"{name}.{key} is a {type(value).__name__}, not a tensor")
            if not value.is_floating_point():
                raise _Unloadable(f"{name}.{key} holds {str(value.dtype).removeprefix('torch.')} numbers, not floats")
            if value.shape != tensor.shape:
                raise _Unloadable(
                    f"size mismatch for {name}.{key}: checkpoint {list(value.shape)}, agent {list(tensor.shape)}"
                    f" ({_suspect(learner, tensors, key, value.shape, tensor.shape)})"
                )
    for name, tensors in expected.items():
        for key in tensors:
            if not torch.isfinite(state[name][key]).all():
                raise _Unloadable(f"{name}.{key} holds NaN or infinite values (training diverged?)")


def _suspect(learner: Learner, tensors: Mapping, key: str, found: torch.Size, wanted: torch.Size) -> str:
    """The agent parameter that probably differs, for a shape mismatch of ``key`` ("0.weight": [out, in]).

    The networks are ``common.mlp``: inputs -> hidden (``neurons``) -> outputs, in layers numbered in order."""
    layer, _, kind = key.partition(".")
    layers = sorted({k.partition(".")[0] for k in tensors}, key=lambda k: int(k) if k.isdigit() else -1)
    out_differs = found[:1] != wanted[:1]
    if layer == layers[0]:  # inputs -> hidden
        if out_differs:
            return f"the checkpoint has neurons={found[0]}"
        return "another encoding or role?" if _encoding_matters(learner) else "another role?"
    if out_differs:  # hidden -> outputs
        return "another algo or role?"
    if kind == "weight" and len(found) == 2:
        return f"the checkpoint has neurons={found[1]}"
    return "another algo, role or neurons?"


def _encoding_matters(learner: Learner) -> bool:
    """Whether the game's encoders differ in size at the learner's role (LOTR's: at questing only)."""
    return len({encoder.sizes.get(learner.role) for encoder in learner.spec.game.encoders}) > 1
