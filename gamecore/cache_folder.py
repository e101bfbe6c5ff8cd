"""The folder where gametune keeps what it builds once and reuses: compiled code (``_jit_cache``) and an empty
MLflow store to copy (``tuning.tracking_store``).

``NUMBA_CACHE_DIR`` where it is set, else the first writable of the package's own ``__pycache__``,
``~/.cache/gametune`` and the temporary folder's ``gametune``.
"""

import os
import tempfile
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def cache_folder() -> Path:
    """The folder of gametune's caches (made if missing)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    home, temporary = Path.home() / ".cache" / "gametune", Path(tempfile.gettempdir()) / "gametune"
    for base in (_PACKAGE / "__pycache__", home, temporary):
        try:
            base.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(base, os.W_OK):
            return base
    return Path(tempfile.gettempdir())
