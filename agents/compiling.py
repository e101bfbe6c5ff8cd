"""Knowing when Numba compiles: for the user, and for Ctrl-C.

A cold start compiles for tens of seconds before a command prints anything.
Inside ``announcing(label)``, the first compile of the process prints one line
on stderr, before it starts (a process that finds everything in the
compile cache prints nothing). ``main_thread_compiling()`` tells
``agents.interruption`` that the main thread is inside Numba's compiler, where
a signal must not raise: LLVM calls back into Python while it compiles, and an
exception raised in such a callback is swallowed (the process then runs on, or
fails later with an unrelated error).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

from numba.core import event


class _State:
    depth = 0  # nested compiles running in the main thread
    announce: tuple[int, str] | None = None  # (process id, the command's name) that announces
    announced = False


class _CompileListener(event.Listener):
    def on_start(self, _event) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        _State.depth += 1
        if _State.announce and _State.announce[0] == os.getpid() and not _State.announced:
            _State.announced = True
            print(f"{_State.announce[1]}: compiling the code this command uses (first run of this version; "
                  "cached for the next runs) ...", file=sys.stderr, flush=True)

    def on_end(self, _event) -> None:
        if threading.current_thread() is threading.main_thread():
            _State.depth -= 1


event.register("numba:compile", _CompileListener())


@contextlib.contextmanager
def announcing(label: str):
    """Inside the block, print ``<label>: compiling ...`` on stderr when this process (not its children) first
    compiles."""
    _State.announce, _State.announced = (os.getpid(), label), False
    try:
        yield
    finally:
        _State.announce = None


def main_thread_compiling() -> bool:
    """Whether the main thread is inside Numba's compiler."""
    return _State.depth > 0
