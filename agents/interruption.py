"""Stopping on SIGINT (Ctrl-C) and SIGTERM (a cluster scheduler) without tearing the record.

``stop_signals()`` makes both signals raise ``Interrupted`` in the main thread:
at once where work is running, but never inside a ``deferred()`` block (a write
to a study, a run or an export), where the signal is held and raised when the
block ends. Only the first signal raises; later ones are ignored while the
process winds down (tells its trial failed, closes its run), so that a
terminal's Ctrl-C to the process group and a driver's SIGTERM to its workers
do not interrupt each other's clean-up. ``Interrupted`` is a
``KeyboardInterrupt``: code that catches the latter keeps working.

Child processes that only compute (evaluation pools) ignore both signals and
die with their parent (``quiet_child``); their parent stops them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


class Interrupted(KeyboardInterrupt):
    """The process was asked to stop by ``signum``; ``partial`` holds what a long computation finished
    (an ``Evaluation`` or a ``TrainingResult``), ``detail`` what was kept, for the user."""

    def __init__(self, signum: int = signal.SIGINT, partial=None, detail: str = ""):
        super().__init__(signal.Signals(signum).name)
        self.signum, self.partial, self.detail = int(signum), partial, detail

    @property
    def exit_code(self) -> int:
        """130 for SIGINT, 143 for SIGTERM (the shell's 128 + signal number)."""
        return 128 + self.signum

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name

    @classmethod
    def of(cls, stop: KeyboardInterrupt, partial=None) -> Interrupted:
        """``stop`` (an ``Interrupted``, or Python's own KeyboardInterrupt) carrying ``partial``."""
        return cls(getattr(stop, "signum", signal.SIGINT), partial, getattr(stop, "detail", ""))


class _State:
    deferring = 0  # depth of deferred() blocks
    held: int | None = None  # a signal that arrived inside one
    stopping = False  # a signal has been raised: ignore the next ones


def _on_signal(signum, frame) -> None:
    if _State.stopping:
        return
    if _State.deferring:
        _State.held = _State.held or signum
        return
    _State.stopping = True
    raise Interrupted(signum)


@contextlib.contextmanager
def stop_signals():
    """SIGINT and SIGTERM raise ``Interrupted`` inside the block (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {s: signal.signal(s, _on_signal) for s in SIGNALS}
    _State.stopping, _State.held = False, None
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def deferred(release: bool = True):
    """Hold SIGINT and SIGTERM while the block writes to the record; raise ``Interrupted`` after it, or, with
    ``release=False``, keep it held for ``raise_held`` (once the caller is ready to clean up after it)."""
    _State.deferring += 1
    try:
        yield
    finally:
        _State.deferring -= 1
        if release and not _State.deferring:
            raise_held()


def raise_held() -> None:
    """Raise ``Interrupted`` for a signal held by ``deferred``, if any."""
    if _State.held is not None and not _State.stopping:
        signum, _State.held = _State.held, None
        _State.stopping = True
        raise Interrupted(signum)


def die_with_parent(signum: int = signal.SIGTERM) -> None:
    """Ask Linux to send ``signum`` to this process when its parent dies (a killed driver's workers stop)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signum))


def quiet_child() -> None:
    """For pool processes: ignore SIGINT and SIGTERM (the parent stops the pool) and die with the parent."""
    for s in SIGNALS:
        signal.signal(s, signal.SIG_IGN)
    die_with_parent(signal.SIGKILL)


def stop_processes(processes, seconds: float = 2.5) -> None:
    """SIGTERM to each live process, then SIGKILL to those still alive after ``seconds`` in all (a process inside
    a long compiled game handles no signal: killed in time for the whole to stop within 5 s)."""
    for process in processes:
        if process.is_alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + seconds
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join()
