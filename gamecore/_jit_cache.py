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
"""

import hashlib
import os
import tempfile
from pathlib import Path

import numba

_ROOT = Path(__file__).resolve().parent.parent
GAME_PACKAGE_SUFFIX = "_sim"


def compiled_packages() -> tuple[Path, ...]:
    """The folders whose sources are compiled together: ``gamecore``, ``agents`` and every ``*_sim`` game."""
    games = sorted(p for p in _ROOT.glob(f"*{GAME_PACKAGE_SUFFIX}") if (p / "__init__.py").is_file())
    return (_ROOT / "gamecore", _ROOT / "agents", *games)


def _sources_digest(sources: tuple[Path, ...]) -> str:
    digest = hashlib.sha256()
    files = [p for source in sources for p in (source.glob("*.py") if source.is_dir() else [source])]
    for path in sorted(files):
        digest.update(f"{path.parent.name}/{path.name}".encode())
        digest.update(path.read_bytes())
    digest.update(numba.__version__.encode())
    return digest.hexdigest()[:16]


def _writable_base() -> Path:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    home, temporary = Path.home() / ".cache" / "gametune", Path(tempfile.gettempdir()) / "gametune"
    for base in (_ROOT / "gamecore" / "__pycache__", home, temporary):
        try:
            base.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(base, os.W_OK):
            return base
    return Path(tempfile.gettempdir())


def folder_for(*extra: Path) -> str:
    """The cache folder of code compiled from the packages and the ``extra`` files or folders."""
    sources = compiled_packages() + tuple(p for p in extra if not any(p.is_relative_to(q) for q in compiled_packages()))
    return str(_writable_base() / f"numba-{_sources_digest(sources)}")


def configure(*extra: Path) -> None:
    """Point Numba's cache at ``folder_for(*extra)``; functions defined from now on cache there."""
    numba.config.CACHE_DIR = folder_for(*extra)
