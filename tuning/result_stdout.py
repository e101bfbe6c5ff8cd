"""A command's result alone on stdout (``--json``): whatever else is written meanwhile goes to stderr.

Libraries and processes write to file descriptor 1 behind Python's back: Ray's
core worker logs ("Raylet is terminated ...") when a node dies, a child
process inherits it. So for the command's duration descriptor 1 points at
stderr (and ``sys.stdout`` is ``sys.stderr``); the result is written to the
real stdout through a descriptor kept aside. In a process whose stdout is
descriptor 1 the redirection stays until the process ends, so that lines
written on the way out (Ray's shutdown at exit) cannot follow the result
either; where ``sys.stdout`` is something else (a test's capture), both are
restored afterwards.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from typing import TextIO


@contextlib.contextmanager
def result_stdout(enabled: bool = True) -> Iterator[TextIO]:
    """Yield the stream the result is written to; meanwhile everything else written to stdout goes to stderr.
    Disabled: yields ``sys.stdout`` and changes nothing."""
    if not enabled:
        yield sys.stdout
        return
    original = sys.stdout
    original.flush()
    try:
        own = original.fileno() == 1
    except (io.UnsupportedOperation, AttributeError, ValueError):  # a capture object without a descriptor
        own = False
    kept = os.dup(1)
    result = os.fdopen(os.dup(kept), "w", encoding="utf-8") if own else original
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield result
    finally:
        result.flush()
        if own:
            result.close()
        else:
            os.dup2(kept, 1)
            sys.stdout = original
        os.close(kept)
