"""Training the RL stages of a setup (``lotr train``): episodes, learning curve, checkpoints.

Every stage whose agent is ``rl`` learns, each with its own learner; the other
stages are played by their agents. ``envs`` games run in lockstep (the
vectorised mode: one batched network call per stage and step, and one update
per stage and step on the transitions completed in it); ``envs=1`` is the
thesis's online learning, one transition at a time. Training deals are
``derive_seed(seed, TRAINING_OFFSET + episode)``: never the deals of an
evaluation (``derive_seed(seed, i)`` for game numbers below 2**62).

Checkpoints: the weights with the best ``window``-episode moving win rate (as
the thesis) in ``out/``, and the last ones in ``out/final/``; each folder holds
``agent.toml`` (the full setup, naming its weight files) so that
``lotr eval --config out/agent.toml`` plays it; ``out/curve.csv`` is the
learning curve.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from agents.batch import GameBatch
from agents.progress import progress_bar
from agents.interruption import Interrupted
from agents.rl import RL_STAGES, make_learner
from agents.rl.common import GAMMA
from agents.setup import Setup
from lotr_sim.game import STAGES
from agents.specs import SpecError
from gamecore.rng import derive_seed

TRAINING_OFFSET = 2**62


@dataclass
class TrainingResult:
    """Per-episode wins in episode order, their moving average, and where the checkpoints went."""

    setup: Setup
    wins: np.ndarray
    window: int
    seconds: float
    best_average: float
    best_episode: int
    out: Path | None = None
    interrupted: bool = False
    moving_average: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        kernel = np.ones(self.window) / self.window
        self.moving_average = np.convolve(self.wins, kernel, mode="valid") if len(self.wins) >= self.window else np.empty(0)

    @property
    def episodes_per_second(self) -> float:
        return len(self.wins) / self.seconds if self.seconds > 0 else 0.0

    def write_curve(self, path: Path) -> None:
        """The learning curve as CSV: episode, win (0/1), moving win rate (empty before a full window)."""
        average = np.full(len(self.wins), np.nan)
        average[self.window - 1 :] = self.moving_average
        rows = (f"{i},{w},{'' if np.isnan(a) else f'{a:.4f}'}" for i, (w, a) in enumerate(zip(self.wins, average)))
        path.write_text("episode,win,moving_win_rate\n" + "\n".join(rows) + "\n", encoding="utf-8")

    def report(self) -> str:
        lines = [
            f"trained {self.setup} for {len(self.wins)} episodes in {self.seconds:.1f} s "
            f"({self.episodes_per_second:.0f} episodes/s)" + (" (interrupted)" if self.interrupted else ""),
            f"best {self.window}-episode moving win rate {100 * self.best_average:.1f}% (ending at episode {self.best_episode})"
            if self.best_episode >= 0
            else f"fewer than {self.window} episodes: no moving average",
        ]
        if self.out is not None:
            lines.append(f"checkpoints: {self.out / 'agent.toml'} (best), {self.out / 'final' / 'agent.toml'} (final)")
        return "\n".join(lines)


def rl_stages(setup: Setup) -> list[str]:
    stages = [stage for stage, spec in zip(STAGES, setup.agents) if spec.agent == "rl"]
    if not stages:
        raise SpecError(f"setup {setup.short_name!r} has no rl stage to train")
    bad = [stage for stage in stages if stage not in RL_STAGES]
    if bad:
        raise SpecError(f"setup {setup.short_name!r}: rl agents decide {', '.join(RL_STAGES)}, not {', '.join(bad)}")
    return stages


class _Transitions:
    """One-step transitions of one stage, collected over a step of the batch."""

    def __init__(self):
        self.rows: list[tuple] = []

    def add(self, choice: dict, reward: float, next_obs: np.ndarray, done: bool, discount: float) -> None:
        self.rows.append((choice, reward, next_obs, done, discount))

    def flush(self, learner) -> None:
        if not self.rows:
            return
        choices = {key: np.stack([row[0][key] for row in self.rows]) for key in self.rows[0][0]}
        reward, next_obs, done, discount = (np.array(column, np.float32) for column in list(zip(*self.rows))[1:])
        learner.learn(choices["obs"], choices, reward, next_obs, done, discount)
        self.rows.clear()


def train(
    setup: Setup | str,
    options: dict | None = None,
    episodes: int = 10_000,
    seed: int = 0,
    envs: int = 1,
    out: str | Path | None = None,
    window: int = 1000,
    progress: bool = False,
    on_window: Callable[[int, float], None] | None = None,
) -> TrainingResult:
    """Train the ``rl`` stages of ``setup`` on the game ``options``; see the module docstring.

    ``on_window(episodes, moving win rate)`` is called every ``window`` finished episodes; an
    exception it raises (a tuning pruner's) stops the training and propagates. Ctrl-C or SIGTERM
    writes the checkpoints so far and raises ``Interrupted`` with the partial TrainingResult."""
    setup = Setup.parse(setup) if isinstance(setup, str) else setup
    stages = rl_stages(setup)
    options = setup.game.check_options(dict(options or {}), "options")  # a clear error before any work
    if episodes < 1 or envs < 1 or window < 1:
        raise ValueError("episodes, envs and window must be at least 1")
    torch.set_num_threads(1)
    learners = {
        stage: make_learner(stage, setup.agents[STAGES.index(stage)], int(derive_seed(np.uint64(seed), np.uint64(s))))
        for s, stage in enumerate(stages)
    }
    indices = {stage: STAGES.index(stage) for stage in stages}
    batch = GameBatch(setup, options, min(envs, episodes))
    episode_of = np.full(batch.active.size, -1)
    pending: dict[str, list] = {stage: [None] * batch.active.size for stage in stages}
    counts = {stage: np.zeros(batch.active.size, np.int64) for stage in stages}
    transitions = {stage: _Transitions() for stage in stages}
    wins = np.zeros(episodes, np.int8)
    finished_order: list[int] = []
    best = (-1.0, -1, None)
    next_episode = 0
    bar = progress_bar(episodes, progress, unit="episode", smoothing=0.05)
    start = time.perf_counter()

    def deal(slot: int) -> None:
        nonlocal next_episode
        if next_episode >= episodes:
            batch.active[slot] = False
            return
        batch.deal(slot, int(derive_seed(np.uint64(seed), np.uint64(TRAINING_OFFSET + next_episode))))
        episode_of[slot] = next_episode
        for stage in stages:
            pending[stage][slot] = None
            counts[stage][slot] = 0
        next_episode += 1

    interrupted: KeyboardInterrupt | None = None
    try:
        for slot in range(batch.active.size):
            deal(slot)
        while batch.active.any():
            batch.advance()
            for slot in batch.finished():
                won = batch.won(slot)
                for stage in stages:
                    if pending[stage][slot] is not None:
                        choice, discount = pending[stage][slot]
                        zero = np.zeros_like(choice["obs"])
                        transitions[stage].add(choice, 1.0 if won else -1.0, zero, True, discount)
                wins[episode_of[slot]] = won
                finished_order.append(won)
                best = _track_best(finished_order, window, learners, best)
                if on_window is not None and len(finished_order) % window == 0:
                    on_window(len(finished_order), float(np.mean(finished_order[-window:])))
                if bar is not None:
                    bar.update(1)
                    if len(finished_order) % 100 == 0:
                        bar.set_postfix(win=f"{100 * np.mean(finished_order[-window:]):.1f}%")
                deal(slot)
            for stage in stages:
                slots = batch.at_role(indices[stage])
                if slots.size == 0:
                    continue
                acts, choices = learners[stage].choose(batch.states[slots], batch.uniforms(slots, indices[stage]), "train")
                for k, slot in enumerate(slots):
                    if pending[stage][slot] is not None:
                        previous, discount = pending[stage][slot]
                        transitions[stage].add(previous, 0.0, choices["obs"][k], False, discount)
                    pending[stage][slot] = ({key: value[k] for key, value in choices.items()}, GAMMA ** counts[stage][slot])
                    counts[stage][slot] += 1
                batch.apply(slots, acts)
            for stage in stages:
                transitions[stage].flush(learners[stage])
    except KeyboardInterrupt as stop:
        interrupted = stop
    seconds = time.perf_counter() - start
    if bar is not None:
        bar.close()
    done = np.array(finished_order, np.int8)
    result_wins = done if interrupted else wins
    best_average, best_episode, best_state = best
    trained = setup
    if out is not None:
        out = Path(out)
        final = {stage: learner.state_dict() for stage, learner in learners.items()}
        save_checkpoint(setup, final, out / "final")
        trained = save_checkpoint(setup, best_state or final, out)
    result = TrainingResult(trained, result_wins, window, seconds, best_average, best_episode, out, bool(interrupted))
    if out is not None:
        result.write_curve(out / "curve.csv")
    if interrupted is not None:
        raise Interrupted.of(interrupted, result)
    return result


def _track_best(finished: list[int], window: int, learners: dict, best: tuple) -> tuple:
    if len(finished) < window:
        return best
    average = float(np.mean(finished[-window:]))
    if average > best[0]:
        return average, len(finished), {stage: copy.deepcopy(learner.state_dict()) for stage, learner in learners.items()}
    return best


def save_checkpoint(setup: Setup, states: dict[str, dict], folder: Path) -> Setup:
    """Write each stage's weights (``<stage>.pt``) and ``agent.toml`` naming them; return that setup."""
    folder.mkdir(parents=True, exist_ok=True)
    specs = list(setup.agents)
    for stage, state in states.items():
        path = folder / f"{stage}.pt"
        torch.save(state, path)
        i = STAGES.index(stage)
        specs[i] = specs[i].with_params(stage, weights=str(path.resolve()))
    trained = Setup(*specs)
    trained.dump(folder / "agent.toml")
    return trained

