"""Files written whole or not at all: every file the project writes (exports, agent files, checkpoints, records,
the report, figures, a journal's repair) goes to a unique temporary file in its folder, is flushed to disk and
renamed onto its name. A kill, a full disk or two writers at once never leave half a file, nor one writer's
temporary file under another's name."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

NEW_FILE_MODE = 0o644  # what open() gives a new file under the usual umask (mkstemp's own is 0o600)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A unique temporary file beside ``path`` to write; when the block ends without error it is flushed to disk
    and renamed onto ``path`` (keeping an existing file's permissions), else removed."""
    path = Path(path)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        with open(temporary, "rb+") as written:
            os.fsync(written.fileno())
        os.chmod(temporary, path.stat().st_mode & 0o777 if path.exists() else NEW_FILE_MODE)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomically(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all (``atomic_path``)."""
    with atomic_path(path) as temporary:
        temporary.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def writable_file(path: str | Path, flag: str = "--out", suffixes: tuple[str, ...] = (),
                  not_same_as: str | Path | None = None, makes_folder: bool = False) -> Path:
    """``path`` if a file can be written there, checked before any work: ValueError, one line naming ``flag``,
    where it is a folder, its folder is missing (unless the command ``makes_folder``: then its nearest existing
    folder) or read-only, its suffix is not one of ``suffixes`` (any when empty), or it is the file
    ``not_same_as`` (an input the command reads)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{flag} {path}: is a folder; give a file")
    if suffixes and path.suffix.lower() not in suffixes:
        raise ValueError(f"{flag} {path}: expected a {' or '.join(suffixes)} file")
    folder = path.resolve().parent
    while makes_folder and not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"{flag} {path}: no folder {folder}; create it first")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"{flag} {path}: cannot write in {folder}")
    if not_same_as is not None and path.exists() and path.resolve() == Path(not_same_as).resolve():
        raise ValueError(f"{flag} {path}: is the file this command reads; give another file")
    return path
