"""The folders a file's own settings are looked for in: its folder and those above it, up to (not including) the
first folder anyone may write to (such as ``/tmp``), since a file a stranger leaves there is nobody's setting."""
from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path


def own_folders(folder: Path) -> Iterator[Path]:
    """``folder``, then each folder above it, stopping before the first that anyone may write to."""
    yield folder
    for above in folder.parents:
        if _shared(above):
            return
        yield above


def _shared(folder: Path) -> bool:
    """Whether anyone may write to ``folder``: a missing folder is not (the walk goes on above it, as for an old path
    that moved), one that cannot be looked at is (nothing is ours there)."""
    try:
        return bool(folder.stat().st_mode & stat.S_IWOTH)
    except FileNotFoundError:
        return False
    except OSError:
        return True
