"""The evaluation harness: many games of a setup, in parallel processes, with a progress bar.

``evaluate_setup(setup, difficulty, games, seed)`` plays games 0..games-1 of
``seed``; game i is dealt from ``derive_seed(seed, i)`` in every run (common
random numbers across setups, see ``games``), so per-game outcomes are
identical for any number of workers. Games run in chunks sized to take about
``CHUNK_SECONDS``. Ctrl-C (or SIGTERM) stops after the running chunks: the
evaluation raises ``Interrupted`` carrying the games finished as its
``partial`` (never a result that looks complete).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field

import numpy as np

from agents.batch import GameBatch
from agents.games import N_STAGES, play_setup_games
from agents.interruption import Interrupted, quiet_child
from agents.setup import STAGES, Setup
from agents.specs import PYTHON
from agents.ticks import ticks
from lotr_sim import layout as L
from lotr_sim.jit import kernel
from lotr_sim.rng import derive_seed
from lotr_sim.state import parse_difficulty
from lotr_sim.stats import normal_half_width, wilson_interval

CHUNK_SECONDS = 0.5
MAX_CHUNK_GAMES = 20_000
FIRST_CHUNK_GAMES = 8
WARM_UP_SEED = 2**64 - 1  # the warm-up game is dealt from it and discarded


@kernel
def now_ticks():
    return ticks()


@dataclass
class Evaluation:
    """The result of ``evaluate_setup``; ``outcomes[k]`` is the outcome code of game ``game_ids[k]``."""

    setup: str
    oracle: bool
    config: dict
    difficulty: str
    seed: int
    games: int
    wins: int
    lost_by_threat: int
    lost_by_heroes: int
    rounds_histogram: dict[int, int]
    mean_seconds_per_game: float
    p95_seconds_per_game: float
    ms_per_decision: dict[str, float | None]
    decisions: dict[str, int]
    seconds: float
    workers: int
    interrupted: bool = False
    game_ids: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64), repr=False)
    outcomes: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64), repr=False)
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

    def wins_per_game(self) -> np.ndarray:
        """1 for a won game, 0 otherwise, in game order (for paired comparisons on common seeds)."""
        return (self.outcomes == L.WIN).astype(np.int8)

    def to_dict(self) -> dict:
        """Everything but the per-game arrays, JSON-ready."""
        data = {k: v for k, v in self.__dict__.items() if k not in ("game_ids", "outcomes")}
        data["rounds_histogram"] = {str(k): v for k, v in self.rounds_histogram.items()}
        data["mean_rounds"] = self.mean_rounds
        data["games_per_second"] = self.games_per_second
        return data

    def report(self) -> str:
        low, high = self.wilson_95
        share = lambda n: f"{100 * n / max(1, self.games):.2f}%"  # noqa: E731
        lines = []
        if self.oracle:
            lines.append("ORACLE: the search reads the true deck order; an upper bound, not an honest agent")
        lines += [
            f"setup {self.setup} on {self.difficulty}: {self.games} games from seed {self.seed}"
            + (" (interrupted)" if self.interrupted else ""),
            f"win rate {100 * self.win_rate:.2f}% (95% Wilson interval {100 * low:.2f}-{100 * high:.2f}; "
            f"normal +-{100 * self.normal_95_half_width:.2f})",
            f"losses: by threat {self.lost_by_threat} ({share(self.lost_by_threat)}), "
            f"by heroes {self.lost_by_heroes} ({share(self.lost_by_heroes)})",
            f"rounds: mean {self.mean_rounds:.2f}; histogram "
            + " ".join(f"{r}:{n}" for r, n in sorted(self.rounds_histogram.items())),
            f"time per game: mean {1000 * self.mean_seconds_per_game:.3f} ms, p95 {1000 * self.p95_seconds_per_game:.3f} ms;"
            f" {self.games_per_second:,.0f} games/s ({self.workers} worker{'s' if self.workers > 1 else ''},"
            f" {self.seconds:.2f} s)",
            "ms per decision: "
            + ", ".join(
                f"{stage} {'-' if ms is None else f'{ms:.3f}'} ({self.decisions[stage]})"
                for stage, ms in self.ms_per_decision.items()
            ),
        ]
        return "\n".join(lines)


def play_chunk(setup: Setup, difficulty: int, quest_stages: int, seed: int, first: int, count: int):
    """Games first..first+count-1: (outcomes, rounds, seconds per game, seconds per stage, decisions per stage)."""
    if setup.has_python_agents:
        return play_chunk_in_batches(setup, difficulty, quest_stages, seed, first, count)
    outcomes = np.empty(count, np.int64)
    rounds = np.empty(count, np.int64)
    game_ticks = np.empty(count, np.int64)
    stage_ticks = np.zeros(N_STAGES, np.int64)
    decisions = np.zeros(N_STAGES, np.int64)
    wall, start = time.perf_counter(), now_ticks()
    play_setup_games(
        difficulty, quest_stages, setup.rows(), np.uint64(seed), first, outcomes, rounds, game_ticks, stage_ticks, decisions
    )
    elapsed, span = time.perf_counter() - wall, now_ticks() - start
    if span > 0:
        seconds_per_tick = elapsed / span
        return outcomes, rounds, game_ticks * seconds_per_tick, stage_ticks * seconds_per_tick, decisions
    return outcomes, rounds, np.full(count, elapsed / count), np.full(N_STAGES, np.nan), decisions


@functools.lru_cache(maxsize=16)
def _learner(stage: str, spec):
    from agents.rl import make_learner

    return make_learner(stage, spec)


def play_chunk_in_batches(setup: Setup, difficulty: int, quest_stages: int, seed: int, first: int, count: int):
    """``play_chunk`` for setups with Python agents: the games in lockstep, one network call per
    stage and step. Time per game is the chunk's time shared equally among its games."""
    import torch

    torch.set_num_threads(1)  # small networks: one thread per worker process is fastest
    python_stages = {STAGES.index(stage): (spec["policy"], _learner(stage, spec))
                     for stage, spec in zip(STAGES, setup.agents) if spec.kind.code == PYTHON}
    batch = GameBatch(setup.rows(), difficulty, quest_stages, count)
    for k in range(count):
        batch.deal(k, int(derive_seed(np.uint64(seed), np.uint64(first + k))))
    outcomes = np.empty(count, np.int64)
    rounds = np.empty(count, np.int64)
    python_seconds = np.zeros(N_STAGES)
    wall, start = time.perf_counter(), now_ticks()
    while batch.active.any():
        batch.advance()
        for slot in batch.finished():
            outcomes[slot], rounds[slot] = batch.outcome(slot), batch.round(slot)
            batch.active[slot] = False
        for index, (mode, learner) in python_stages.items():
            slots = batch.at_stage(index)
            if slots.size:
                before = time.perf_counter()
                acts, _ = learner.choose(batch.states[slots], batch.uniforms(slots, index), mode)
                batch.apply(slots, acts)
                python_seconds[index] += time.perf_counter() - before
    elapsed, span = time.perf_counter() - wall, now_ticks() - start
    compiled_seconds = batch.stage_ticks * (elapsed / span) if span > 0 else np.zeros(N_STAGES)
    return outcomes, rounds, np.full(count, elapsed / count), compiled_seconds + python_seconds, batch.decisions


class _Chunks:
    """Hands out chunks of games sized to take about CHUNK_SECONDS each."""

    def __init__(self, games: int, largest: int):
        self.next, self.stop, self.largest = 0, games, largest
        self.size = min(FIRST_CHUNK_GAMES, largest)

    def take(self) -> tuple[int, int] | None:
        if self.next >= self.stop:
            return None
        first, count = self.next, min(self.size, self.stop - self.next)
        self.next += count
        return first, count

    def learn(self, seconds_per_game: np.ndarray) -> None:
        mean = float(np.mean(seconds_per_game)) if seconds_per_game.size else 0.0
        self.size = self.largest if mean <= 0 else int(np.clip(CHUNK_SECONDS / mean, 1, self.largest))


def evaluate_setup(
    setup: Setup | str,
    difficulty: str = "hard",
    games: int = 1000,
    seed: int = 0,
    workers: int = 1,
    full_scenario: bool = False,
    progress: bool = False,
    on_chunk: Callable[[np.ndarray, np.ndarray], None] | None = None,
    max_chunk: int = MAX_CHUNK_GAMES,
) -> Evaluation:
    """Play games 0..games-1 of ``seed`` with ``setup`` (a Setup or its short form) and summarise them.

    ``on_chunk(game_ids, outcomes)`` is called as chunks of games (at most ``max_chunk``) finish, in
    game order with one worker; an exception it raises stops the evaluation and propagates (a
    tuning pruner's). Ctrl-C or SIGTERM raises ``Interrupted`` whose ``partial`` is the Evaluation of
    the games finished (marked ``interrupted``)."""
    setup = Setup.parse(setup) if isinstance(setup, str) else setup
    level = parse_difficulty(difficulty)
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    quest_stages = 3 if full_scenario else 1
    args = (setup, level, quest_stages, seed)
    chunks = _Chunks(games, max_chunk)
    results: dict[int, tuple] = {}
    play_chunk(setup, level, quest_stages, WARM_UP_SEED, 0, 1)  # compile or load the code, load networks: untimed
    bar = progress_bar(games, progress)
    start = time.perf_counter()

    def record(first: int, result: tuple) -> None:
        results[first] = result
        chunks.learn(result[2])
        if on_chunk is not None:
            on_chunk(np.arange(first, first + result[0].size), result[0])
        if bar is not None:
            bar.update(result[0].size)
            wins = sum(int(np.sum(r[0] == L.WIN)) for r in results.values())
            bar.set_postfix(win=f"{100 * wins / bar.n:.1f}%")

    try:
        if workers == 1:
            while (chunk := chunks.take()) is not None:
                record(chunk[0], play_chunk(*args, *chunk))
        else:
            with ProcessPoolExecutor(workers, initializer=quiet_child) as pool:
                pending = {}

                def submit() -> None:
                    while len(pending) < 2 * workers and (chunk := chunks.take()) is not None:
                        pending[pool.submit(play_chunk, *args, *chunk)] = chunk[0]

                submit()
                try:
                    while pending:
                        done, _ = wait(pending, return_when=FIRST_COMPLETED)
                        for future in done:
                            record(pending.pop(future), future.result())
                        submit()
                except KeyboardInterrupt:
                    for future in pending:
                        future.cancel()
                    raise
    except KeyboardInterrupt as stop:
        partial = _summarise(setup, difficulty, seed, workers, True, time.perf_counter() - start, results)
        raise Interrupted.of(stop, partial) from None
    finally:
        if bar is not None:
            bar.close()
    return _summarise(setup, difficulty, seed, workers, False, time.perf_counter() - start, results)


def _summarise(setup, difficulty, seed, workers, interrupted, seconds, results) -> Evaluation:
    firsts = sorted(results)
    part = lambda k, empty: np.concatenate([results[f][k] for f in firsts]) if firsts else empty  # noqa: E731
    outcomes = part(0, np.empty(0, np.int64))
    rounds = part(1, np.empty(0, np.int64))
    game_seconds = part(2, np.empty(0))
    game_ids = np.concatenate([np.arange(f, f + results[f][0].size) for f in firsts]) if firsts else np.empty(0, np.int64)
    stage_seconds = sum((results[f][3] for f in firsts), np.zeros(N_STAGES))
    decisions = sum((results[f][4] for f in firsts), np.zeros(N_STAGES, np.int64))
    return Evaluation(
        setup=str(setup),
        oracle=setup.is_oracle,
        config=setup.to_mapping(),
        difficulty=difficulty,
        seed=seed,
        games=int(outcomes.size),
        wins=int(np.sum(outcomes == L.WIN)),
        lost_by_threat=int(np.sum(outcomes == L.LOST_BY_THREAT)),
        lost_by_heroes=int(np.sum(outcomes == L.LOST_BY_HEROES)),
        rounds_histogram={int(k): int(v) for k, v in zip(*np.unique(rounds, return_counts=True))},
        mean_seconds_per_game=float(np.mean(game_seconds)) if game_seconds.size else 0.0,
        p95_seconds_per_game=float(np.percentile(game_seconds, 95)) if game_seconds.size else 0.0,
        ms_per_decision={
            stage: (None if n == 0 or np.isnan(t) else 1000 * float(t) / int(n))
            for stage, t, n in zip(STAGES, stage_seconds, decisions)
        },
        decisions={stage: int(n) for stage, n in zip(STAGES, decisions)},
        seconds=seconds,
        workers=workers,
        interrupted=interrupted,
        game_ids=game_ids,
        outcomes=outcomes,
    )


def progress_bar(total: int, enabled: bool, unit: str = "game", smoothing: float = 0.1):
    """A tqdm bar on stderr, or None when disabled."""
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, smoothing=smoothing, dynamic_ncols=True)
