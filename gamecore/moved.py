"""Paths that moved: a folder may hold ``moved.toml``, a ``[moved]`` table of its entries that moved (old name =
new path, both relative to the folder), so that a command given an old path is refused in one line naming the new
one instead of "no such file"."""
from __future__ import annotations

import tomllib
from pathlib import Path, PurePath

from gamecore.folders import own_folders

MOVED_TABLE = "moved.toml"


def moved_to(path: str | Path) -> Path | None:
    """Where ``path`` moved, by the ``moved.toml`` of the nearest folder above it that lists it (not in or above a
    folder anyone may write to); None when no table lists it (or the path exists)."""
    given = Path(path)
    if given.exists():
        return None
    for folder in own_folders(given.parent):
        table = folder / MOVED_TABLE
        if not table.is_file():
            continue
        try:
            moved = tomllib.loads(table.read_text(encoding="utf-8")).get("moved", {})
        except (OSError, ValueError):
            return None
        parts = PurePath(given.relative_to(folder)).parts
        for depth in range(len(parts), 0, -1):
            new = moved.get("/".join(parts[:depth]))
            if isinstance(new, str):
                return folder.joinpath(new, *parts[depth:])
    return None


def moved_message(path: str | Path) -> str | None:
    """The one-line refusal of a path that moved, or None."""
    new = moved_to(path)
    return None if new is None else f"{path} has moved to {new}: use the new path"
