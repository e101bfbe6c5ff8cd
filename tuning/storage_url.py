"""The one syntax of a study's storage, wherever it is given: ``--storage`` of ``lotr tune run``, ``worker`` and
``export``, and a study file's ``search.storage`` (which ``lotr report`` reads too).

A path to a ``.journal`` file (Optuna's journal file, process-safe without a
server) or to a ``.db`` file (SQLite, one worker), or a URL: ``journal:<path>``,
``sqlite:///<path>`` (a relative path; ``sqlite:////abs/path``), or a database
server's, ``postgresql://user@host/db``. A relative path is relative to the
working directory.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from agents.specs import SpecError
from gamecore.redaction import remember

JOURNAL = "journal:"
FILE_SUFFIXES = {".journal": JOURNAL, ".db": "sqlite:///", ".sqlite": "sqlite:///", ".sqlite3": "sqlite:///"}
STORAGE_FORMS = "a .journal or .db file, journal:PATH, sqlite:///PATH or postgresql://USER@HOST/DB"


def storage_url(given: str) -> str:
    """The storage URL of ``given``: a URL as it is, a path to a ``.journal`` or ``.db`` (``.sqlite``) file as
    ``journal:<path>`` or ``sqlite:///<path>``; a one-line SpecError for anything else."""
    if given.startswith(JOURNAL) or "://" in given:
        remember(given)
        return given
    prefix = FILE_SUFFIXES.get(Path(given).suffix.lower())
    if prefix is None:
        raise SpecError(f"storage {given!r}: not a storage; give {STORAGE_FORMS}")
    return f"{prefix}{given}"


def local_store(url: str) -> Path | None:
    """The file of a journal or SQLite storage URL (None for a server)."""
    for prefix in (JOURNAL, "sqlite:///"):
        if url.startswith(prefix):
            return Path(url[len(prefix):])
    return None


def trials_folder(name: str, url: str) -> Path:
    """The folder of the study's trial folders (``<name>-trials/<storage key>``, relative to the working directory):
    keyed by the storage, so that two studies of one name in two storages never write each other's trial files. The
    key is readable (the storage's kind) and unique (a hash of the URL without its credentials, a local store's path
    resolved)."""
    store = local_store(url)
    kind = re.match(r"[a-z]+", url.lower())
    plain = str(store.resolve()) if store is not None else re.sub(r"//[^/@]*@", "//", url)
    digest = hashlib.sha256(plain.encode()).hexdigest()[:10]
    return Path(f"{name}-trials") / f"{kind.group(0) if kind else 'storage'}-{digest}"
