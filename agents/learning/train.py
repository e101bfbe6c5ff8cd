"""Training the learning roles of a setup (``lotr train``), of any game: episodes, learning curve, checkpoints.

Every role whose agent is trained (``rl``) learns, each with its own learner;
the other roles are played by their agents. A learner's reward is +1 for a
win of its player, -1 for a loss, 0 for a draw. ``envs`` games run in
lockstep (the vectorised mode: one batched network call per role and step,
and one update per role and step on the transitions completed in it);
``envs=1`` is the thesis's online learning, one transition at a time. Training deals are
``derive_seed(seed, TRAINING_OFFSET + episode)``: never the deals of an
evaluation (``derive_seed(seed, i)`` for game numbers below 2**62).

Checkpoints: the weights with the best ``window``-episode moving win rate (as
the thesis) in ``out/``, and the last ones in ``out/final/``; each folder holds
``agent.toml`` (the full setup, naming its weight files) so that
``lotr eval --config out/agent.toml`` plays it; ``out/curve.csv`` is the
learning curve. Checkpoints are ``<role>.pt``.
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
from agents.interruption import Interrupted
from agents.learning import make_learner
from agents.learning.checkpoint import save_weights
from agents.learning.curve import Curve, moving_win_rate
from agents.learning.ppo import is_ppo, train_ppo
from agents.progress import progress_bar
from agents.setup import Setup
from agents.specs import PYTHON, SpecError, acting_mode, python_agent
from gamecore.atomic import write_atomically
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
        self.moving_average = moving_win_rate(self.wins, self.window)

    @property
    def episodes_per_second(self) -> float:
        return len(self.wins) / self.seconds if self.seconds > 0 else 0.0

    def write_curve(self, path: Path) -> None:
        """The learning curve as CSV: episode, win (0/1), moving win rate (empty before a full window)."""
        average = np.full(len(self.wins), np.nan)
        average[self.window - 1 :] = self.moving_average
        rows = (f"{i},{w},{'' if np.isnan(a) else f'{a:.4f}'}" for i, (w, a) in enumerate(zip(self.wins, average)))
        write_atomically(path, "episode,win,moving_win_rate\n" + "\n".join(rows) + "\n")

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


def trained_roles(setup: Setup) -> list[str]:
    """The roles whose agent learns (``rl``), in role order; SpecError when there is none."""
    roles = [role for role, spec in zip(setup.roles, setup.agents) if spec.kind.trained]
    if not roles:
        raise SpecError(f"setup {setup.short_name!r} has no rl role to train")
    return roles


class _Transitions:
    """One-step transitions of one role, collected over a step of the batch."""

    def __init__(self):
        self.rows: list[tuple] = []

    def add(self, choice: dict, reward: float, after: dict, done: bool, discount: float) -> None:
        self.rows.append((choice, reward, after, done, discount))

    def flush(self, learner) -> None:
        if not self.rows:
            return
        choices, reward, afters, done, discount = zip(*self.rows)
        reward, done, discount = (np.array(column, np.float32) for column in (reward, done, discount))
        learner.learn(_stacked(choices), reward, _stacked(afters), done, discount)
        self.rows.clear()


def _stacked(rows: tuple[dict, ...]) -> dict:
    return {key: np.stack([row[key] for row in rows]) for key in rows[0]}


def _seen(choice: dict) -> dict:
    """What a decision shows the learner of the one before it: its features and, where there is one, its mask."""
    return {key: choice[key] for key in ("obs", "mask") if key in choice}


def _after_last(choice: dict) -> dict:
    """What follows a role's last decision of a game: zero features and every index legal."""
    return {key: (np.ones_like if key == "mask" else np.zeros_like)(value) for key, value in _seen(choice).items()}


def train(
    setup: Setup,
    options: dict | None = None,
    episodes: int = 10_000,
    seed: int = 0,
    envs: int = 1,
    out: str | Path | None = None,
    window: int = 1000,
    progress: bool = False,
    on_window: Callable[[int, float, float], None] | None = None,
) -> TrainingResult:
    """Train the ``rl`` roles of ``setup`` on the game ``options``; see the module docstring. The learning
    curve (``wins``) is the player's of the first trained role.

    ``on_window(episodes, moving win rate, best moving win rate so far)`` is called every ``window`` finished
    episodes; an exception it raises (a tuning pruner's) stops the training and propagates. A training whose
    networks blow up raises ``agents.learning.TrainingDiverged`` (one line). Ctrl-C or SIGTERM
    writes the checkpoints so far and raises ``Interrupted`` with the partial TrainingResult."""
    roles = trained_roles(setup)
    options = setup.game.check_options(dict(options or {}), "options")  # a clear error before any work
    if episodes < 1 or envs < 1 or window < 1:
        raise ValueError("episodes, envs and window must be at least 1")
    torch.set_num_threads(1)
    bar = progress_bar(episodes, progress, unit="episode", smoothing=0.05)
    ppo = any(is_ppo(setup.agents[setup.roles.index(role)]) for role in roles)
    for role in roles:
        spec = setup.agents[setup.roles.index(role)]
        if spec["reward"] != "outcome" and not is_ppo(spec):
            raise SpecError(f"{role}: reward = {spec['reward']!r} is a ppo algorithm's; {spec['algo']} learns from "
                            "the outcome (set reward = 'outcome' or a ppo-* algo)")
    run = train_ppo if ppo else _train_online
    try:
        learners, wins, best, seconds, interrupted = run(setup, options, roles, episodes, seed, envs, window, bar,
                                                         on_window)
    finally:
        if bar is not None:
            bar.close()
    if ppo:
        learners = dict.fromkeys(roles, learners)
    best_average, best_episode, best_state = best
    trained = setup
    if out is not None:
        out = Path(out)
        final = {role: learner.state_dict() for role, learner in learners.items()}
        save_checkpoint(learners, setup, final, out / "final", options)
        trained = save_checkpoint(learners, setup, best_state or final, out, options)
    result = TrainingResult(trained, wins, window, seconds, best_average, best_episode, out, interrupted is not None)
    if out is not None:
        result.write_curve(out / "curve.csv")
    if interrupted is not None:
        raise Interrupted.of(interrupted, result)
    return result


def _train_online(setup: Setup, options: dict, roles: list[str], episodes: int, seed: int, envs: int, window: int,
                  bar, on_window: Callable[[int, float, float], None] | None):
    """The thesis's learners (one-step updates, ``envs`` games in lockstep): (learners by role, wins in episode
    order (in finishing order when interrupted), best (moving win rate, episode, weights by role), seconds, the
    KeyboardInterrupt that stopped it or None)."""
    indices = {role: setup.roles.index(role) for role in roles}
    learners = {role: make_learner(role, setup.agents[indices[role]], int(derive_seed(np.uint64(seed), np.uint64(s))))
                for s, role in enumerate(roles)}
    players = {role: indices[role] if setup.game.by_seat else 0 for role in roles}
    fixed = {index: (acting_mode(spec), python_agent(role, spec))  # the setup's other Python agents (dp, a network)
             for index, (role, spec) in enumerate(zip(setup.roles, setup.agents))
             if spec.kind.code == PYTHON and role not in roles}
    batch = GameBatch(setup, options, min(envs, episodes))
    episode_of = np.full(batch.active.size, -1)
    pending: dict[str, list] = {role: [None] * batch.active.size for role in roles}
    counts = {role: np.zeros(batch.active.size, np.int64) for role in roles}
    transitions = {role: _Transitions() for role in roles}
    wins = np.zeros(episodes, np.int8)
    curve = Curve(episodes, window, lambda: {role: copy.deepcopy(learner.state_dict())
                                             for role, learner in learners.items()}, bar, on_window)
    next_episode = 0
    start = time.perf_counter()

    def deal(slot: int) -> None:
        nonlocal next_episode
        if next_episode >= episodes:
            batch.active[slot] = False
            return
        batch.deal(slot, int(derive_seed(np.uint64(seed), np.uint64(TRAINING_OFFSET + next_episode))))
        episode_of[slot] = next_episode
        for role in roles:
            pending[role][slot] = None
            counts[role][slot] = 0
        next_episode += 1

    interrupted: KeyboardInterrupt | None = None
    try:
        for slot in range(batch.active.size):
            deal(slot)
        while batch.active.any():
            batch.advance()
            for slot in batch.finished():
                for role in roles:
                    if pending[role][slot] is not None:
                        choice, discount = pending[role][slot]
                        reward = 2.0 * batch.reward(slot, players[role]) - 1.0
                        transitions[role].add(choice, reward, _after_last(choice), True, discount)
                won = batch.reward(slot, players[roles[0]]) == 1.0
                wins[episode_of[slot]] = won
                curve.add(won)
                deal(slot)
            for role in roles:
                slots = batch.at_role(indices[role])
                if slots.size == 0:
                    continue
                acts, choices = learners[role].choose(batch.states[slots], batch.uniforms(slots, indices[role]), "train")
                for k, slot in enumerate(slots):
                    choice = {key: value[k] for key, value in choices.items()}
                    if pending[role][slot] is not None:
                        previous, discount = pending[role][slot]
                        transitions[role].add(previous, 0.0, _seen(choice), False, discount)
                    pending[role][slot] = (choice, learners[role].spec["gamma"] ** counts[role][slot])
                    counts[role][slot] += 1
                batch.apply(slots, acts)
            for index, (mode, agent) in fixed.items():
                batch.decide(index, agent, mode)
            for role in roles:
                transitions[role].flush(learners[role])
    except KeyboardInterrupt as stop:
        interrupted = stop
    seconds = time.perf_counter() - start
    return learners, np.array(curve.wins, np.int8) if interrupted else wins, curve.best, seconds, interrupted


def save_checkpoint(learners: dict, setup: Setup, states: dict[str, dict], folder: Path,
                    options: dict | None = None) -> Setup:
    """Write each role's weights (``<role>.pt``, ``checkpoint.save_weights``) and ``agent.toml`` naming them,
    with the game ``options`` it was trained on as ``metadata.options`` (what ``lotr eval --config`` plays by
    default); return that setup."""
    folder.mkdir(parents=True, exist_ok=True)
    specs = list(setup.agents)
    for role, state in states.items():
        path = folder / f"{role}.pt"
        save_weights(learners[role], state, path)
        i = setup.roles.index(role)
        specs[i] = specs[i].with_params(role, weights=str(path.resolve()))
    trained = Setup(*specs, game=setup.game)
    trained.dump(folder / "agent.toml", metadata={"options": dict(options or {})})
    return trained

