"""Many games under the compiled policies, in parallel processes, with a progress bar."""

from __future__ import annotations

import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field

import numpy as np

from lotr_sim import layout as L
from lotr_sim.playout import play_games
from lotr_sim.state import parse_difficulty, parse_policy
from lotr_sim.stats import normal_half_width, wilson_interval

CHUNK_GAMES = 20_000


@dataclass
class PolicyEvaluation:
    """Outcomes of games ``0 .. games - 1`` of ``seed`` (some may be missing if interrupted)."""

    policies: list[str]
    difficulty: str
    seed: int
    games: int
    wins: int
    lost_by_threat: int
    lost_by_heroes: int
    rounds_histogram: dict[int, int]
    seconds: float
    workers: int
    interrupted: bool = False
    win_rate: float = field(init=False)
    wilson_95: tuple[float, float] = field(init=False)
    normal_95_half_width: float = field(init=False)

    def __post_init__(self):
        self.win_rate = self.wins / self.games if self.games else 0.0
        self.wilson_95 = wilson_interval(self.wins, self.games)
        self.normal_95_half_width = normal_half_width(self.wins, self.games)

    @property
    def mean_rounds(self) -> float:
        return sum(r * n for r, n in self.rounds_histogram.items()) / max(1, self.games)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict:
        data = asdict(self)
        data["mean_rounds"] = self.mean_rounds
        data["games_per_second"] = self.games_per_second
        return data

    def report(self) -> str:
        low, high = self.wilson_95
        name = self.policies[0] if len(set(self.policies)) == 1 else "-".join(self.policies)
        lines = [
            f"{name} on {self.difficulty}: {self.games} games from seed {self.seed}"
            + (" (interrupted)" if self.interrupted else ""),
            f"win rate {100 * self.win_rate:.2f}% (95% Wilson interval {100 * low:.2f}-{100 * high:.2f}; "
            f"normal +-{100 * self.normal_95_half_width:.2f})",
            f"losses: by threat {self.lost_by_threat} ({100 * self.lost_by_threat / max(1, self.games):.2f}%), "
            f"by heroes {self.lost_by_heroes} ({100 * self.lost_by_heroes / max(1, self.games):.2f}%)",
            f"mean rounds {self.mean_rounds:.2f}",
            f"{self.games_per_second:,.0f} games/s ({self.workers} worker{'s' if self.workers > 1 else ''}, "
            f"{self.seconds:.2f} s)",
        ]
        return "\n".join(lines)


def _play_chunk(difficulty: int, quest_stages: int, policies: np.ndarray, seed: int, first: int, count: int):
    outcomes = np.empty(count, np.int64)
    rounds = np.empty(count, np.int64)
    play_games(difficulty, quest_stages, policies, np.uint64(seed), first, outcomes, rounds)
    return outcomes, rounds


def evaluate_policies(
    policies: str | list[str],
    difficulty: str,
    games: int,
    seed: int = 0,
    workers: int = 1,
    full_scenario: bool = False,
    progress: bool = False,
) -> PolicyEvaluation:
    """Play games 0..games-1 of ``seed`` (game i dealt from ``derive_seed(seed, i)``).

    Results are identical for any number of workers. Ctrl-C stops early and
    returns the games finished so far, marked ``interrupted``."""
    names = [policies] * 5 if isinstance(policies, str) else list(policies)
    codes = np.array([parse_policy(n) for n in names], np.int64)
    level = parse_difficulty(difficulty)
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    chunks = [(first, min(CHUNK_GAMES, games - first)) for first in range(0, games, CHUNK_GAMES)]
    args = (level, 3 if full_scenario else 1, codes, seed)
    outcomes, rounds = [], []
    interrupted = False
    bar = _progress_bar(games, progress)
    start = time.perf_counter()
    try:
        if workers == 1:
            for first, count in chunks:
                o, r = _play_chunk(*args, first, count)
                outcomes.append(o)
                rounds.append(r)
                _update(bar, outcomes)
        else:
            with ProcessPoolExecutor(workers) as pool:
                pending = {pool.submit(_play_chunk, *args, first, count) for first, count in chunks}
                try:
                    while pending:
                        done, pending = wait(pending, return_when=FIRST_COMPLETED)
                        for future in done:
                            o, r = future.result()
                            outcomes.append(o)
                            rounds.append(r)
                            _update(bar, outcomes)
                except KeyboardInterrupt:
                    for future in pending:
                        future.cancel()
                    raise
    except KeyboardInterrupt:
        interrupted = True
    seconds = time.perf_counter() - start
    if bar is not None:
        bar.close()
    o = np.concatenate(outcomes) if outcomes else np.empty(0, np.int64)
    r = np.concatenate(rounds) if rounds else np.empty(0, np.int64)
    histogram = {int(k): int(v) for k, v in zip(*np.unique(r, return_counts=True))}
    return PolicyEvaluation(
        policies=names,
        difficulty=difficulty,
        seed=seed,
        games=int(o.size),
        wins=int(np.sum(o == L.WIN)),
        lost_by_threat=int(np.sum(o == L.LOST_BY_THREAT)),
        lost_by_heroes=int(np.sum(o == L.LOST_BY_HEROES)),
        rounds_histogram=histogram,
        seconds=seconds,
        workers=workers,
        interrupted=interrupted,
    )


def _progress_bar(total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="game", smoothing=0.1, dynamic_ncols=True)


def _update(bar, finished: list[np.ndarray]) -> None:
    if bar is not None:
        bar.update(finished[-1].size)
        wins = sum(int(np.sum(o == L.WIN)) for o in finished)
        bar.set_postfix(win=f"{100 * wins / bar.n:.2f}%")
