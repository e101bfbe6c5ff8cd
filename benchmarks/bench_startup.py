"""Start-up time of `lotr play`: first start (empty compile cache) and warm start.

Run: python benchmarks/bench_startup.py
The first start compiles the core into a fresh cache folder (NUMBA_CACHE_DIR
set to a temporary directory); the warm starts reuse it.
"""

import os
import subprocess
import sys
import tempfile
import time

COMMAND = [sys.executable, "-m", "tuning.cli", "play", "--difficulty", "hard", "--seed", "7"]


def timed_run(env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(COMMAND, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        first = timed_run(env)
        warm = min(timed_run(env) for _ in range(3))
    print(f"lotr play, first start (compiling): {first:.1f} s")
    print(f"lotr play, warm start:              {warm:.2f} s")


if __name__ == "__main__":
    main()
