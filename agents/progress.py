"""Progress of long work (games, episodes) on stderr: a tqdm bar on a terminal, plain lines in a log file."""

import sys
import time

FIRST_LINE_SECONDS = 10.0
LINE_INTERVAL_SECONDS = 60.0


class LineProgress:
    """Progress for a log file (a job under nohup or a scheduler), where a bar's redraws would be noise: a first
    line once the work has run ``first`` seconds (it runs, and its ETA), then one at most every ``interval``
    seconds, ``episodes 2,000/10,000 (20%) | win 31.5% | 120 s elapsed, ETA 480 s``. The part of tqdm's
    interface the callers use."""

    def __init__(self, total: int, unit: str, first: float, interval: float):
        self.total, self.unit, self.first, self.interval = total, unit, first, interval
        self.n = self.shown_n = 0
        self.postfix: dict[str, str] = {}
        self.start = self.shown = time.monotonic()

    def set_postfix(self, **values) -> None:
        self.postfix = {key: str(value) for key, value in values.items()}

    def update(self, n: int = 1) -> None:
        self.n += n
        wait = self.interval if self.shown > self.start else self.first
        if time.monotonic() - self.shown >= wait:
            self.show()

    def show(self) -> None:
        now = time.monotonic()
        self.shown, self.shown_n = now, self.n
        elapsed = now - self.start
        line = f"  {self.unit}s {self.n:,}/{self.total:,} ({100 * self.n / max(self.total, 1):.0f}%)"
        line += "".join(f" | {key} {value}" for key, value in self.postfix.items())
        line += f" | {elapsed:.0f} s elapsed"
        if 0 < self.n < self.total:
            line += f", ETA {elapsed / self.n * (self.total - self.n):.0f} s"
        print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        """A last line when the work took long enough to show any and went on since."""
        if self.shown > self.start and self.shown_n != self.n:
            self.show()


def progress_bar(total: int, enabled: bool, unit: str = "game", smoothing: float = 0.1):
    """A tqdm bar on stderr when it is a terminal, else ``LineProgress``; None when disabled."""
    if not enabled:
        return None
    if not sys.stderr.isatty():
        return LineProgress(total, unit, FIRST_LINE_SECONDS, LINE_INTERVAL_SECONDS)
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, smoothing=smoothing, dynamic_ncols=True)
