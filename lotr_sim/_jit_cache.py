"""Keep Numba's on-disk cache consistent with this package's sources.

Numba revalidates a cached function against its own file only, not against
the functions it calls or the constants it reads in other modules: after an
edit to ``rules.py`` or ``layout.py``, the cached machine code of
``policies.py`` would silently run the old rules. Pointing the cache at a
folder named by the hash of every source file of the package makes any edit
recompile everything. ``configure`` runs before any compiled function of the
package is defined; a package compiled on top of this one (``agents``) calls it
again with its own folder, so its cache is keyed by both packages' sources.
"""

import hashlib
import os
import tempfile
from pathlib import Path

import numba

_PACKAGE = Path(__file__).resolve().parent


def _sources_digest(packages: tuple[Path, ...]) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for package in packages for p in package.glob("*.py")):
        digest.update(f"{path.parent.name}/{path.name}".encode())
        digest.update(path.read_bytes())
    digest.update(numba.__version__.encode())
    return digest.hexdigest()[:16]


def _writable_base() -> Path:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    for base in (_PACKAGE / "__pycache__", Path.home() / ".cache" / "lotr_sim", Path(tempfile.gettempdir()) / "lotr_sim"):
        try:
            base.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(base, os.W_OK):
            return base
    return Path(tempfile.gettempdir())


def configure(*dependents: Path) -> None:
    """Set Numba's cache folder to one keyed by the sources of this package and of ``dependents``
    (folders of packages whose compiled functions call this one's)."""
    numba.config.CACHE_DIR = str(_writable_base() / f"numba-{_sources_digest((_PACKAGE, *dependents))}")
