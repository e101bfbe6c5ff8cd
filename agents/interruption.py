"""Stopping on SIGINT (Ctrl-C) and SIGTERM (a cluster scheduler) without tearing the record.

``stop_signals()`` makes both signals raise ``Interrupted`` in the main thread:
at once where work is running, but never inside a ``deferred()`` block (a write
to a study, a run or an export), where the signal is held and raised when the
block ends. Only the first signal raises; later ones are ignored while the
process winds down (tells its trial failed, closes its run), so that a
terminal's Ctrl-C to the process group and a driver's SIGTERM to its workers
do not interrupt each other's clean-up. ``Interrupted`` is a
``KeyboardInterrupt``: code that catches the latter keeps working.

Numba's compiler cannot raise: an exception raised in one of LLVM's callbacks
into Python is swallowed (the process runs on, or fails later with an unrelated
error), and while LLVM optimises a large function no handler runs at all. A
signal that lands while the main thread compiles ends the process at once, with
one line on stderr and the exit code of the signal (nothing has been played or
written then): from the handler, or from a watchdog thread that the signal wakes
through Python's wake-up file descriptor (LLVM releases the interpreter's lock).
The process's children die with it.

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

from agents.compiling import main_thread_compiling

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
    label: tuple[int, str] | None = None  # (process id, command name) of the line printed on an immediate exit


def _on_signal(signum, frame) -> None:
    if _State.stopping:
        return
    if _State.deferring:
        _State.held = _State.held or signum
        return
    if main_thread_compiling():
        _exit_now(signum, "while compiling")
    _State.stopping = True
    raise Interrupted(signum)


def _exit_now(signum: int, where: str) -> None:
    """End the process with the signal's exit code; the command's line says where it stopped."""
    _EXITING.acquire()  # the handler and the watchdog may both get here: the first one ends the process
    if _State.label and _State.label[0] == os.getpid():
        with contextlib.suppress(OSError):
            os.write(sys.stderr.fileno(),
                     f"{_State.label[1]}: interrupted ({signal.Signals(signum).name}) {where}\n".encode())
    os._exit(128 + signum)


def _watch(read_fd: int) -> None:
    """The watchdog: woken through Python's signal wake-up file descriptor, even while the main thread is in
    LLVM's native code, where the handler cannot run."""
    with os.fdopen(read_fd, "rb", buffering=0) as wakeups:
        while data := wakeups.read(64):
            for signum in (s for s in data if s in SIGNALS):
                if main_thread_compiling() and not _State.deferring and not _State.stopping:
                    _exit_now(signum, "while compiling")


_EXITING = threading.Lock()


class _Watchdog:
    pipe: tuple[int, int] | None = None  # the running watchdog's wake-up pipe (read, write)


def _start_watchdog() -> int | None:
    """Start the watchdog and point Python's signal wake-up at it; return the wake-up fd it replaced (None if one
    runs already)."""
    if _Watchdog.pipe is not None:
        return None
    read_fd, write_fd = _Watchdog.pipe = os.pipe()
    os.set_blocking(write_fd, False)
    before = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    threading.Thread(target=_watch, args=(read_fd,), name="signal watchdog", daemon=True).start()
    return before


def _stop_watchdog(before: int) -> None:
    signal.set_wakeup_fd(before)
    os.close(_Watchdog.pipe[1])  # the watchdog reads the end of its pipe and stops
    _Watchdog.pipe = None


def _forget_watchdog_in_child() -> None:
    """A forked child has no watchdog thread: its signals must not wake its parent's, nor its copy of the pipe
    keep the parent's watchdog from seeing the pipe's end."""
    if _Watchdog.pipe is not None:
        with contextlib.suppress(ValueError):  # forked from another thread than the main one
            signal.set_wakeup_fd(-1)
        for fd in _Watchdog.pipe:
            os.close(fd)
        _Watchdog.pipe = None


os.register_at_fork(after_in_child=_forget_watchdog_in_child)


@contextlib.contextmanager
def stop_signals(label: str | None = None):
    """SIGINT and SIGTERM raise ``Interrupted`` inside the block (main thread only; elsewhere a no-op); ``label``
    (the command, e.g. "lotr eval") starts the line printed when a signal ends the process at once."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {s: signal.signal(s, _on_signal) for s in SIGNALS}
    outer_label = _State.label
    _State.stopping, _State.held = False, None
    _State.label = (os.getpid(), label) if label else outer_label
    wakeup_before = _start_watchdog()
    try:
        yield
    finally:
        if wakeup_before is not None:
            _stop_watchdog(wakeup_before)
        _State.label = outer_label
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
