"""Where the evaluation harness plays its chunks of games: local processes, or a Ray cluster.

Both executors take the same chunks (``play_chunk`` with the same arguments)
and every game's result depends on its seed and index only, so the result of
an evaluation is the same on either. ``executor("ray", workers, address)``
connects with ``ray.init(address=...)`` (``None``: a local Ray instance;
``"auto"``: the cluster this machine belongs to); ``workers`` chunks run at
once (default: the cluster's CPUs).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from agents.interruption import quiet_child
from gamecore.params import SpecError
from gamecore.redaction import redact

EXECUTORS = ("local", "ray")


class LocalProcesses:
    """``workers`` local worker processes."""

    def __init__(self, workers: int):
        self.workers = workers
        self._pool = ProcessPoolExecutor(workers, initializer=quiet_child)

    def submit(self, function: Callable, *args):
        return self._pool.submit(function, *args)

    def finished(self, pending) -> list:
        """Wait until at least one of ``pending`` is done; return those done."""
        return list(wait(pending, return_when=FIRST_COMPLETED)[0])

    def result(self, handle):
        return handle.result()

    def cancel(self, handle) -> None:
        handle.cancel()

    def close(self, abort: bool = False) -> None:
        """Shut the pool down; ``abort`` (the evaluation stops on an exception: a signal, a pruner): kill the
        processes at once instead of waiting for the chunks they are playing."""
        if abort:  # ProcessPoolExecutor has no public way to stop running work before Python 3.14
            for process in list((self._pool._processes or {}).values()):
                process.kill()
        self._pool.shutdown(cancel_futures=True)


class RayCluster:
    """Tasks on a Ray cluster (``ray.init(address=...)``); the cluster's CPUs unless ``workers`` is given."""

    def __init__(self, workers: int | None, address: str | None):
        try:
            import ray
        except ImportError:
            raise SpecError("--executor ray: Ray is not installed; pip install 'gametune[ray]'") from None
        self._ray = ray
        try:
            ray.init(address=address, ignore_reinit_error=True, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise SpecError(f"--ray-address {redact(str(address))}: cannot connect to Ray: "
                            f"{redact(str(error).splitlines()[0])}") from None
        self.workers = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._remote = {}

    def submit(self, function: Callable, *args):
        if function not in self._remote:
            self._remote[function] = self._ray.remote(num_cpus=1)(function)
        return self._remote[function].remote(*args)

    def finished(self, pending) -> list:
        return self._ray.wait(list(pending), num_returns=1)[0]

    def result(self, handle):
        return self._ray.get(handle)

    def cancel(self, handle) -> None:
        self._ray.cancel(handle)

    def close(self, abort: bool = False) -> None:
        return  # the cluster (or the local instance) stays up for the next evaluation of this process


@contextlib.contextmanager
def executor(kind: str, workers: int | None, address: str | None = None) -> Iterator[LocalProcesses | RayCluster]:
    """The executor ``kind`` (local or ray), closed afterwards."""
    if kind not in EXECUTORS:
        raise SpecError(f"--executor {kind!r}: unknown executor; valid: {', '.join(EXECUTORS)}")
    pool = RayCluster(workers, address) if kind == "ray" else LocalProcesses(workers or 1)
    try:
        yield pool
    except BaseException:
        pool.close(abort=True)
        raise
    pool.close()
