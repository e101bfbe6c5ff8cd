"""The evaluation harness: many games of a setup, in parallel processes, with a progress bar.

``evaluate_setup(setup, games, seed, options)`` plays games 0..games-1 of
``seed``; game i is dealt from ``derive_seed(seed, i)`` in every run (common
random numbers across setups, see ``search``), so per-game outcomes are
identical for any number of workers. Games run in chunks sized to take about
``CHUNK_SECONDS``. Ctrl-C (or SIGTERM) stops after the running chunks: the
evaluation raises ``Interrupted`` carrying the games finished as its
``partial`` (never a result that looks complete).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import gamecore
from agents.batch import GameBatch
from agents.executors import executor
from agents.interruption import Interrupted
from agents.progress import progress_bar
from agents.search import compiled
from agents.setup import Setup
from agents.specs import PYTHON, acting_mode, python_agent
from agents.ticks import ticks
from gamecore.jit import kernel
from gamecore.rng import derive_seed
from gamecore.stats import normal_half_width, wilson_interval

CHUNK_SECONDS = 0.5
MAX_CHUNK_GAMES = 20_000
FIRST_CHUNK_GAMES = 8
WARM_UP_SEED = 2**64 - 1  # the warm-up game is dealt from it and discarded


@kernel
def now_ticks():
    return ticks()


SEATS = ("first", "second", "both")


@dataclass
class Evaluation:
    """The result of ``evaluate_setup``: the evaluated agent's games (LOTR: the setup's; a two-player
    game: the setup's first agent, in the seats asked for). ``rewards[k]`` (1 win, 0.5 draw, 0 loss) and
    ``records[k]`` (the game's own integers) are those of game ``game_ids[k]``; ``metrics`` are the
    game's (LOTR: loss causes and rounds); ``seats`` holds each seat's wins, draws and games."""

    game: str
    options: dict
    setup: str
    oracle: bool
    config: dict
    seed: int
    games: int
    wins: int
    draws: int
    metrics: dict
    mean_seconds_per_game: float
    p95_seconds_per_game: float
    ms_per_decision: dict[str, float | None]
    decisions: dict[str, int]
    seconds: float
    workers: int
    interrupted: bool = False
    seats: dict[str, dict] = field(default_factory=dict)
    game_ids: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64), repr=False)
    rewards: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    records: np.ndarray = field(default_factory=lambda: np.empty((0, 0), np.int64), repr=False)
    win_rate: float = field(init=False)
    wilson_95: tuple[float, float] = field(init=False)
    normal_95_half_width: float = field(init=False)

    def __post_init__(self):
        self.win_rate = self.wins / self.games if self.games else 0.0
        self.wilson_95 = wilson_interval(self.wins, self.games)
        self.normal_95_half_width = normal_half_width(self.wins, self.games)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

    def wins_per_game(self) -> np.ndarray:
        """1 for a won game, 0 otherwise, in game order (for paired comparisons on common seeds)."""
        return (self.rewards == 1.0).astype(np.int8)

    def agent_measure(self, name: str) -> float:
        """A two-player game's per-seat measure (``<name>_<seat>`` of the game's metrics, Carcassonne's margin)
        for the evaluated agent: its mean over the seats it played, weighted by their games."""
        games = sum(counts["games"] for counts in self.seats.values())
        return sum(counts["metrics"][f"{name}_{seat}"] * counts["games"] for seat, counts in self.seats.items()) / max(
            1, games)

    def to_dict(self) -> dict:
        """Everything but the per-game arrays, JSON-ready; the game's metrics at the top level."""
        data = {k: v for k, v in self.__dict__.items() if k not in ("game_ids", "rewards", "records", "metrics")}
        data.update(json_ready(self.metrics))
        data["games_per_second"] = self.games_per_second
        return data

    def report(self) -> str:
        low, high = self.wilson_95
        lines = []
        if self.oracle:
            lines.append("ORACLE: the search sees hidden information; an upper bound, not an honest agent")
        where = ", ".join(f"{k} {v}" for k, v in self.options.items() if not isinstance(v, bool) or v)
        lines += [
            f"setup {self.setup} on {self.game}{f' ({where})' if where else ''}: "
            f"{self.games} games from seed {self.seed}"
            + (" (interrupted)" if self.interrupted else ""),
            f"win rate {100 * self.win_rate:.2f}% (95% Wilson interval {100 * low:.2f}-{100 * high:.2f}; "
            f"normal +-{100 * self.normal_95_half_width:.2f})" + (f", draws {self.draws}" if self.draws else ""),
        ]
        for seat, counts in self.seats.items():
            seat_low, seat_high = counts["wilson_95"]
            lines.append(
                f"  {seat} seat: {counts['wins']} wins, {counts['draws']} draws, {counts['losses']} losses (the "
                f"opponent's wins) of {counts['games']} ({100 * counts['win_rate']:.2f}%, 95% {100 * seat_low:.2f}-"
                f"{100 * seat_high:.2f})"
            )
        lines += gamecore.load(self.game).describe(self.metrics, self.games)
        lines += [
            (f"time per game: mean {1000 * self.mean_seconds_per_game:.3f} ms, "
             f"p95 {1000 * self.p95_seconds_per_game:.3f} ms;"
             f" {self.games_per_second:,.0f} games/s ({self.workers} worker{'s' if self.workers > 1 else ''},"
             f" {self.seconds:.2f} s)"),
            "ms per decision: "
            + ", ".join(
                f"{role} ({self.config[role]['agent']}) {'-' if ms is None else f'{ms:.3f}'} ({self.decisions[role]})"
                for role, ms in self.ms_per_decision.items()
            ),
        ]
        return "\n".join(lines)


def json_ready(value):
    """``value`` with dictionary keys as strings (JSON's)."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    return value


def sides(setup: Setup, seats: str) -> list[tuple[str, Setup, int]]:
    """The (seat name, setup as played, player of the evaluated agent) runs of an evaluation."""
    if not setup.game.by_seat:
        return [("", setup, 0)]
    chosen = {"first": ("first",), "second": ("second",), "both": ("first", "second")}[seats]
    return [(seat, setup if seat == "first" else setup.swapped(), 0 if seat == "first" else 1) for seat in chosen]


@dataclass
class Played:
    """Games played: per game, the evaluated agent's reward (1 win, 0.5 draw, 0 loss), the game's record and
    its seconds; per role of the evaluated setup, the seconds spent deciding and the decisions made."""

    rewards: np.ndarray
    records: np.ndarray
    seconds: np.ndarray
    role_seconds: np.ndarray
    decisions: np.ndarray

    @property
    def games(self) -> int:
        return int(self.rewards.size)

    @classmethod
    def joined(cls, parts: list[Played]) -> Played:
        """``parts`` one after another (per game) and added up (per role)."""
        return cls(*(np.concatenate([getattr(part, name) for part in parts]) for name in ("rewards", "records",
                                                                                          "seconds")),
                   sum(part.role_seconds for part in parts), sum(part.decisions for part in parts))

    def split(self, count: int) -> list[Played]:
        """The games in ``count`` equal runs (one seat's games after another), without the per-role figures."""
        return [Played(rewards, records, seconds, np.zeros_like(self.role_seconds), np.zeros_like(self.decisions))
                for rewards, records, seconds in
                zip(*(np.split(getattr(self, name), count) for name in ("rewards", "records", "seconds")))]


def play_chunk(setup: Setup, options: dict, seats: str, seed: int, first: int, count: int) -> Played:
    """Games first..first+count-1 in every seat asked for, one seat's games after another."""
    runs = []
    for _, played, player in sides(setup, seats):
        run = play_side(played, options, player, seed, first, count)
        if player == 1:  # played with the seats exchanged: its roles the other way round, per role of ``setup``
            run.role_seconds, run.decisions = run.role_seconds[::-1], run.decisions[::-1]
        runs.append(run)
    return Played.joined(runs)


def warm_up(setup: Setup, options: dict) -> None:
    """Compile or load the game's code and load the setup's Python agents (networks), untimed: one game of the
    game's random policy (its compiled game loop holds every compiled agent, so a slow agent, Star2.5 at
    minutes a game, costs no game here), and one game of the setup when some role decides in Python."""
    play_chunk(Setup.uniform(setup.game.policies[0], game=setup.game), options, "first", WARM_UP_SEED, 0, 1)
    if setup.has_python_agents:
        play_chunk(setup, options, "first", WARM_UP_SEED, 0, 1)


def play_side(setup: Setup, options: dict, player: int, seed: int, first: int, count: int) -> Played:
    if setup.has_python_agents:
        return play_side_in_batches(setup, options, player, seed, first, count)
    game = setup.game
    kernels = game.kernels
    n_roles = len(game.roles)
    records = np.empty((count, kernels.N_RECORD), np.int64)
    rewards = np.empty((count, kernels.N_PLAYERS))
    game_ticks = np.empty(count, np.int64)
    role_ticks = np.zeros(n_roles, np.int64)
    decisions = np.zeros(n_roles, np.int64)
    wall, start = time.perf_counter(), now_ticks()
    compiled(kernels).play_games(game.option_codes(options), setup.rows(), np.uint64(seed), first, records, rewards,
                                 game_ticks, role_ticks, decisions)
    elapsed, span = time.perf_counter() - wall, now_ticks() - start
    if span > 0:
        seconds_per_tick = elapsed / span
        return Played(rewards[:, player], records, game_ticks * seconds_per_tick, role_ticks * seconds_per_tick,
                      decisions)
    return Played(rewards[:, player], records, np.full(count, elapsed / count), np.full(n_roles, np.nan), decisions)


@functools.lru_cache(maxsize=16)
def _python_agent(role: str, spec):
    return python_agent(role, spec)


def play_side_in_batches(setup: Setup, options: dict, player: int, seed: int, first: int, count: int) -> Played:
    """``play_side`` for setups with Python agents: the games in lockstep, one network call per
    role and step. Time per game is the chunk's time shared equally among its games."""
    import torch

    torch.set_num_threads(1)  # small networks: one thread per worker process is fastest
    python_roles = {setup.roles.index(role): (acting_mode(spec), _python_agent(role, spec))
                    for role, spec in zip(setup.roles, setup.agents) if spec.kind.code == PYTHON}
    batch = GameBatch(setup, options, count)
    for k in range(count):
        batch.deal(k, int(derive_seed(np.uint64(seed), np.uint64(first + k))))
    rewards = np.empty(count)
    records = np.empty((count, batch.kernels.N_RECORD), np.int64)
    python_seconds = np.zeros(len(setup.roles))
    wall, start = time.perf_counter(), now_ticks()
    while batch.active.any():
        batch.advance()
        for slot in batch.finished():
            rewards[slot], records[slot] = batch.reward(slot, player), batch.record(slot)
            batch.active[slot] = False
        for index, (mode, agent) in python_roles.items():
            before = time.perf_counter()
            batch.decide(index, agent, mode)
            python_seconds[index] += time.perf_counter() - before
    elapsed, span = time.perf_counter() - wall, now_ticks() - start
    compiled_seconds = batch.role_ticks * (elapsed / span) if span > 0 else np.zeros(len(setup.roles))
    return Played(rewards, records, np.full(count, elapsed / count), compiled_seconds + python_seconds,
                  batch.decisions)


class _Chunks:
    """Hands out chunks of games sized to take about CHUNK_SECONDS each."""

    def __init__(self, games: int, largest: int):
        self.next, self.stop, self.largest = 0, games, largest
        self.size = min(FIRST_CHUNK_GAMES, largest)

    def spread(self, workers: int) -> None:
        """First chunks small enough that every worker has one (a few slow games, Star2.5's minutes each, spread
        over the workers rather than played in one chunk)."""
        self.size = max(1, min(self.size, -(-self.stop // workers)))

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
    setup: Setup,
    games: int = 1000,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    on_chunk: Callable[[np.ndarray, np.ndarray], None] | None = None,
    max_chunk: int = MAX_CHUNK_GAMES,
    options: dict | None = None,
    seats: str = "both",
    executor_kind: str = "local",
    address: str | None = None,
) -> Evaluation:
    """Play games 0..games-1 of ``seed`` with ``setup`` and summarise them.

    ``options`` are the game's (LOTR's difficulty: ``{"difficulty": "easy"}``). In a two-player game the
    setup's first agent is evaluated against the second, in the ``seats`` asked for
    (first, second, or both: every deal played twice, the seats exchanged). ``executor_kind = "ray"`` plays
    the chunks on the Ray cluster at ``address`` (``agents.executors``; ``workers`` chunks at once when
    more than 1, else the cluster's CPUs); the result is the local one.
    ``on_chunk(game_ids, rewards)`` is called as chunks of games (at most ``max_chunk``) finish, in
    game order with one worker; an exception it raises stops the evaluation and propagates (a
    tuning pruner's). Ctrl-C or SIGTERM raises ``Interrupted`` whose ``partial`` is the Evaluation of
    the games finished (marked ``interrupted``)."""
    options = setup.game.check_options(dict(options or {}), "options")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    ray_workers = workers if workers > 1 else None
    if seats not in SEATS:
        raise ValueError(f"seats must be one of {', '.join(SEATS)}, got {seats!r}")
    args = (setup, options, seats, seed)
    chunks = _Chunks(games, max_chunk)
    n_sides = len(sides(setup, seats))
    results: dict[int, Played] = {}
    warm_up(setup, options)
    bar = progress_bar(games, progress)
    start = time.perf_counter()

    def record(first: int, result: Played) -> None:
        results[first] = result
        chunks.learn(result.seconds)
        deals = result.games // n_sides
        if on_chunk is not None:
            on_chunk(np.tile(np.arange(first, first + deals), n_sides), result.rewards)
        if bar is not None:
            wins = sum(int(np.sum(r.rewards == 1.0)) for r in results.values()) / n_sides
            bar.set_postfix(win=f"{100 * wins / (bar.n + deals):.1f}%")
            bar.update(deals)

    try:
        if workers == 1 and executor_kind == "local":
            while (chunk := chunks.take()) is not None:
                record(chunk[0], play_chunk(*args, *chunk))
        else:
            with executor(executor_kind, workers if executor_kind == "local" else ray_workers, address) as pool:
                workers = pool.workers
                chunks.spread(workers)
                pending = {}

                def submit() -> None:
                    while len(pending) < 2 * pool.workers and (chunk := chunks.take()) is not None:
                        pending[pool.submit(play_chunk, *args, *chunk)] = chunk[0]

                submit()
                try:
                    while pending:
                        for handle in pool.finished(pending):
                            record(pending.pop(handle), pool.result(handle))
                        submit()
                except KeyboardInterrupt:
                    for handle in pending:
                        pool.cancel(handle)
                    raise
    except KeyboardInterrupt as stop:
        partial = _summarise(setup, options, seats, seed, workers, True, time.perf_counter() - start, results)
        raise Interrupted.of(stop, partial) from None
    finally:
        if bar is not None:
            bar.close()
    return _summarise(setup, options, seats, seed, workers, False, time.perf_counter() - start, results)


def _summarise(setup, options, seats, seed, workers, interrupted, seconds, results) -> Evaluation:
    game = setup.game
    names = [name for name, _, _ in sides(setup, seats)]
    firsts = sorted(results)
    nothing = Played(np.empty(0), np.empty((0, game.kernels.N_RECORD), np.int64), np.empty(0),
                     np.zeros(len(setup.roles)), np.zeros(len(setup.roles), np.int64))
    chunks = [nothing, *(results[f] for f in firsts)]
    per_side = [Played.joined([chunk.split(len(names))[i] for chunk in chunks]) for i in range(len(names))]
    ids = np.concatenate([np.arange(f, f + results[f].games // len(names)) for f in firsts] or [np.empty(0, np.int64)])
    played = Played.joined(per_side)  # per game: one seat's games after the other's
    all_rewards, all_records, all_seconds = played.rewards, played.records, played.seconds
    totals = Played.joined(chunks)
    role_seconds, decisions = totals.role_seconds, totals.decisions
    seat_counts = {name: {**seat_figures(side.rewards), "metrics": game.summarise(side.records)}
                   for name, side in zip(names, per_side) if name}
    return Evaluation(
        game=game.name,
        options=options,
        setup=str(setup),
        oracle=setup.is_oracle,
        config=setup.to_mapping(),
        seed=seed,
        games=int(all_rewards.size),
        wins=int(np.sum(all_rewards == 1.0)),
        draws=int(np.sum(all_rewards == 0.5)),
        metrics=game.summarise(all_records),
        mean_seconds_per_game=float(np.mean(all_seconds)) if all_seconds.size else 0.0,
        p95_seconds_per_game=float(np.percentile(all_seconds, 95)) if all_seconds.size else 0.0,
        ms_per_decision={
            role: (None if n == 0 or np.isnan(t) else 1000 * float(t) / int(n))
            for role, t, n in zip(setup.roles, role_seconds, decisions)
        },
        decisions={role: int(n) for role, n in zip(setup.roles, decisions)},
        seconds=seconds,
        workers=workers,
        interrupted=interrupted,
        seats=seat_counts,
        game_ids=np.tile(ids, len(names)),
        rewards=all_rewards,
        records=all_records,
    )


def seat_figures(rewards: np.ndarray) -> dict:
    """One seat's games: the evaluated agent's wins, draws and losses (the opponent's wins), its win rate and
    95% Wilson interval."""
    wins, games = int(np.sum(rewards == 1.0)), int(rewards.size)
    return {"wins": wins, "draws": int(np.sum(rewards == 0.5)), "losses": int(np.sum(rewards == 0.0)),
            "games": games, "win_rate": wins / games if games else 0.0, "wilson_95": list(wilson_interval(wins, games))}

