"""Keep Numba's on-disk cache consistent with the sources it was compiled from.

Numba revalidates a cached function against its own file only, not against
the functions it calls or the constants it reads in other modules: after an
edit to ``rules.py`` or ``layout.py``, the cached machine code of
``policies.py`` would silently run the old rules. Pointing the cache at a
folder named by the hash of every compiled source (this package, the agents
and every game package beside them) makes any edit recompile everything.
``configure`` runs when ``gamecore`` is imported, before any compiled function
is defined. The search compiled for a game defined elsewhere (a test's game)
adds that game's file to the digest (``folder_for``).

Numba's cache is not safe for two processes compiling at once
(numba/numba#4807): saving a function's machine code reads the function's
index, picks the first free data-file number for a new signature and writes
the index back. Two processes saving two signatures of one function from the
same index pick the same number, and the index can end up naming the other
signature's code, which a later load runs on the wrong types (a crash, or a
wrong action). ``configure`` makes every save and load of an index hold a
lock on its folder (``serialise_cache_access``), so compiling on several
processes at once (``gametune warm-up``, test workers) is safe.

Numba also names each compiled function's machine code by its qualified name
and a per-process counter (numba/numba#10486). Processes forked from one
parent continue the same count, so two of them compiling a closure of
``agents.search`` for two different games give both the same symbol; a later
process that loads both from the cache links one game's calls to the other
game's code (seen here: Love Letter's search playing LOTR's playouts after a
parallel ``gametune warm-up``, "a compiled policy chose an illegal action").
``configure`` makes the counter draw random 62-bit numbers instead
(``unique_function_ids``), so no two compiles name their code alike, in any
process, on any day.
"""

import fcntl
import functools
import hashlib
import os
import secrets
from pathlib import Path

import numba
from numba.core.bytecode import FunctionIdentity
from numba.core.caching import IndexDataCacheFile

from gamecore.cache_folder import cache_folder

_ROOT = Path(__file__).resolve().parent.parent
GAME_PACKAGE_SUFFIX = "_sim"


def compiled_packages() -> tuple[Path, ...]:
    """The folders whose sources are compiled together: ``gamecore``, ``agents`` and every ``*_sim`` game."""
    games = sorted(p for p in _ROOT.glob(f"*{GAME_PACKAGE_SUFFIX}") if (p / "__init__.py").is_file())
    return (_ROOT / "gamecore", _ROOT / "agents", *games)


def sources_digest(sources: tuple[Path, ...]) -> str:
    """A digest of the Python files of ``sources`` (folders or files), their names and Numba's version: what the
    compiled code is made of."""
    digest = hashlib.sha256()
    files = [p for source in sources for p in (source.glob("*.py") if source.is_dir() else [source])]
    for path in sorted(files):
        digest.update(f"{path.parent.name}/{path.name}".encode())
        digest.update(path.read_bytes())
    digest.update(numba.__version__.encode())
    return digest.hexdigest()[:16]


def folder_for(*extra: Path) -> str:
    """The cache folder of code compiled from the packages and the ``extra`` files or folders."""
    sources = compiled_packages() + tuple(p for p in extra if not any(p.is_relative_to(q) for q in compiled_packages()))
    return str(cache_folder() / f"numba-{sources_digest(sources)}")


_HELD: set[str] = set()  # the cache folders whose lock this process holds now (Numba's compiler lock serialises
# its threads' compiles)


def _holding_folder_lock(method, mode: int):
    """``method`` of an ``IndexDataCacheFile``, run while holding its folder's lock (``mode``: shared or exclusive).
    Unlocked where the lock cannot be had: a lock file that cannot be made (a read-only cache, which nobody writes),
    a file system without locks (as Numba alone), or a lock this process already holds further up its stack (a
    load whose unpickling imports a module that compiles and saves: taking the lock again would wait on itself)."""

    @functools.wraps(method)
    def locked(cache_file, *args):
        folder = cache_file._cache_path
        if folder in _HELD:
            return method(cache_file, *args)
        try:
            handle = os.open(os.path.join(folder, ".lock"), os.O_RDONLY | os.O_CREAT, 0o644)
        except OSError:
            return method(cache_file, *args)
        try:
            try:
                fcntl.flock(handle, mode)
            except OSError:
                return method(cache_file, *args)
            _HELD.add(folder)
            try:
                return method(cache_file, *args)
            finally:
                _HELD.discard(folder)
        finally:
            os.close(handle)  # releases the lock

    return locked


def serialise_cache_access() -> None:
    """Make Numba's cache index read-modify-write atomic across processes (once per process)."""
    if getattr(IndexDataCacheFile, "_saves_locked", False):
        return
    IndexDataCacheFile.save = _holding_folder_lock(IndexDataCacheFile.save, fcntl.LOCK_EX)
    IndexDataCacheFile.load = _holding_folder_lock(IndexDataCacheFile.load, fcntl.LOCK_SH)
    IndexDataCacheFile._saves_locked = True


class _RandomIds:
    """An endless iterator of random 62-bit numbers: the same in no two processes, forked or not."""

    def __iter__(self):
        return self

    def __next__(self) -> int:
        return secrets.randbits(62)


def unique_function_ids() -> None:
    """Give every function Numba compiles from now on, in this process and the processes it forks, an id no other
    compile has (``FunctionIdentity._unique_ids``, read by ``next`` alone, names the machine code's symbols)."""
    FunctionIdentity._unique_ids = _RandomIds()


def configure(*extra: Path) -> None:
    """Point Numba's cache at ``folder_for(*extra)``, saved and loaded under a lock, with symbols no other compile
    shares; functions defined from now on cache there."""
    serialise_cache_access()
    unique_function_ids()
    numba.config.CACHE_DIR = folder_for(*extra)
