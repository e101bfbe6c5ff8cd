"""A validated study (``StudySpec``, what ``tuning.study_file`` reads from a study file): what its trials search
and play, how they are scored, chosen and reported, where they are stored; and what follows from it (a trial's setup
and game options, the games a trial plays, the study as ``--dry-run`` prints it)."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

from agents.evaluation import sides
from agents.setup import Setup
from gamecore.errors import SpecError
from gamecore.interface import Game
from gamecore.redaction import redact
from tuning.space import Domain
from tuning.storage import Liveness

METRICS = {"win_rate": "maximize", "seconds_per_game": "minimize", "margin": "maximize", "best_window": "maximize"}
# margin: two-player games whose per-seat metrics give it (Carcassonne's Eq. 4), the evaluated agent's mean score minus
# the opponent's; best_window: the thesis's objective, a trained trial's best moving win rate over 1,000 training
# episodes (tuning.objective)
CONTEXT = ("setup",)  # a searched choice that picks a trial's setup, not a parameter (game options are the others)


@dataclass(frozen=True)
class StudySpec:
    """A validated study file."""

    name: str
    game: Game
    setup: Setup  # the first searched setup (with the fixed values it has) when setup is searched
    space: tuple[Domain, ...]
    metrics: tuple[str, ...]
    games: int
    seed: int
    validation_top_k: int
    validation_games: int
    validation_seed: int
    test_games: int
    test_seed: int
    episodes: int
    envs: int
    sampler: str
    sampler_seed: int
    pruner: str
    n_trials: int
    timeout: float | None
    workers: int
    storage: str | None
    tracking_uri: str | None
    experiment: str
    figures: bool = True  # Optuna's plots of the study on its parent run
    source: str = "study"
    fixed: tuple[tuple[str, Any], ...] = ()
    liveness: Liveness = field(default_factory=Liveness)
    options: tuple[tuple[str, Any], ...] = ()  # the game's options that are not searched, defaults filled in
    report: dict = field(default_factory=dict, compare=False)  # its [report] table
    seat: str = "both"  # a two-player game: the seat(s) of the evaluated agent (first, second, both)
    searched_options: tuple[str, ...] = ()  # game options in [space], e.g. LOTR's difficulty, Love Letter's opening
    executor: str = "local"  # where a trial's, the validation's and the test's games run: local | ray
    ray_address: str | None = None  # executor ray: the cluster (None: a local Ray instance)
    training_setup: str = ""  # the setup the networks train in ("": the trial's own)

    @functools.cached_property
    def setups(self) -> tuple[Setup, ...]:
        """Every setup a trial can play (one unless the setup is searched)."""
        domain = self.domain("setup")
        return (self.setup,) if domain is None else tuple(self.trial_setup({"setup": s}) for s in domain.choices)

    @property
    def games_per_trial(self) -> int:
        """Games a complete trial plays: ``games`` deals in each seat it is evaluated in."""
        return self.games * len(sides(self.setups[0], self.seat))

    @property
    def trains(self) -> bool:
        """Whether trials may train rl stages first."""
        return any(setup.has_trained_agents for setup in self.setups)

    @property
    def setup_label(self) -> str:
        """The setup's short form, or the searched ones joined by " | "."""
        domain = self.domain("setup")
        return self.setup.short_name if domain is None else " | ".join(domain.choices)

    def domain(self, name: str) -> Domain | None:
        """The searched domain of ``name``, or None when it is not searched."""
        return next((d for d in self.space if d.name == name), None)

    @property
    def directions(self) -> list[str]:
        return [METRICS[m] for m in self.metrics]

    def trial_setup(self, params: dict[str, Any]) -> Setup:
        """The setup of a trial with these searched values."""
        params = {k: v for k, v in params.items() if k not in self.searched_options}
        if "setup" not in params:
            return self.setup.with_params(params, where=f"{self.source}: space")
        base = Setup.parse(params.pop("setup"), self.game)
        values = {k: v for k, v in {**dict(self.fixed), **params}.items() if base.has_param(k)}
        return base.with_params(values, where=f"{self.source}: setup {base.short_name}")

    def trial_training_setup(self, setup: Setup, params: dict[str, Any]) -> Setup:
        """The setup a trial's networks train in: ``[training] setup`` (e.g. ``rl-rl``, self-play) with the trial's
        values that fit it, else the trial's own ``setup``."""
        if not self.training_setup:
            return setup
        base = Setup.parse(self.training_setup, self.game)
        values = {k: v for k, v in {**dict(self.fixed), **params}.items() if base.has_param(k)}
        return base.with_params(values, where=f"{self.source}: training.setup")

    def trial_options(self, params: dict[str, Any]) -> dict[str, Any]:
        """The game options a trial with these searched values plays (a searched one it lacks: its first choice)."""
        searched = {name: params.get(name, self.domain(name).choices[0]) for name in self.searched_options}
        return dict(self.options) | searched

    @property
    def options_label(self) -> str:
        """The game options as a person reads them: ``difficulty hard``, a searched one as ``opening searched``."""
        fixed = [f"{k} {v}" for k, v in self.options if not isinstance(v, bool) or v]
        return ", ".join([*fixed, *(f"{name} searched" for name in self.searched_options)])

    def resolved(self, storage: str, tracking_uri: str) -> str:
        """The study as it will run, on these stores (``lotr tune run --dry-run``)."""
        lines = [
            f"study {self.name}: {self.game}" + (f" ({self.options_label})" if self.options_label else "")
            + f", setup {self.setup if self.domain('setup') is None else 'searched'}",
            "fixed: " + (", ".join(f"{k} = {v!r}" for k, v in self.fixed) or "nothing"),
            "space:",
            *(f"  {domain}" for domain in self.space),
            (f"objective: {', '.join(f'{m} ({METRICS[m]})' for m in self.metrics)}"
             + (" of the training; then the network plays" if self.metrics == ("best_window",) else " over")
             + f" deals 0..{self.games - 1} of seed {self.seed}{self.seats_label(self.games)}"),
            (f"validation: top {self.validation_top_k} trials on {self.validation_games:,} deals of seed "
             f"{self.validation_seed}{self.seats_label(self.validation_games)}; test: the chosen one on "
             f"{self.test_games:,} deals of seed {self.test_seed}{self.seats_label(self.test_games)}")
            if self.validation_top_k else "validation: none (validation.top_k = 0): no validation, test or export",
            f"search: {self.sampler} sampler (seed {self.sampler_seed}), {self.pruner} pruner, {self.n_trials} trials"
            + (f", timeout {self.timeout:g} s" if self.timeout else "")
            + f", {self.workers} worker{'s' if self.workers > 1 else ''}"
            + (f", each trial's games on the Ray cluster {redact(self.ray_address or '(a local instance)')}"
               if self.executor == "ray" else ""),
            (f"storage: {redact(storage)} (heartbeat every {self.liveness.heartbeat_interval} s, a worker silent for "
            f"{self.liveness.grace_period} s counts as dead)"),
            f"MLflow: {redact(tracking_uri)}, experiment {self.experiment}",
        ]
        if self.trains:
            training = f"training: {self.episodes} episodes per trial, {self.envs} games per step"
            training += f", in the setup {self.training_setup}" if self.training_setup else ""
            lines.insert(3 + len(self.space), training)
        lines.append("agents, every parameter resolved (before the space's values):")
        for setup in self.setups:
            lines += [f"  {setup.short_name} {role}: {spec}" for role, spec in zip(setup.roles, setup.agents)]
        return "\n".join(lines)

    @property
    def replicate_seed(self) -> int | None:
        """The seed of its out-of-sample replicate (``[report] replicate``, declared before that run), or None."""
        return self.report.get("replicate")

    def replicated(self) -> StudySpec:
        """The same study on its replicate seed's deals, unchanged otherwise: its own name (``<name>-seed<S>``),
        store and experiment, no section of its own (the study's section shows it beside the study), and no
        validation, test or export (what it re-measures is the study's rows)."""
        seed = self.replicate_seed
        if seed is None:
            raise SpecError(f"{self.source}: report.replicate is not set; declare the fresh seed of the replicate "
                            "there (e.g. replicate = 5000001) before running it")
        if seed in (self.seed, self.validation_seed, self.test_seed):
            raise SpecError(f"{self.source}: report.replicate = {seed} is one of the study's own seeds (its objective, "
                            "validation or test deals); an out-of-sample replicate needs deals it has never played")
        name = replicate_name(self.name, seed)
        report = {k: v for k, v in self.report.items() if k in ("margin",)}
        return dataclasses.replace(self, name=name, seed=seed, storage=None, experiment=name, report=report,
                                   validation_top_k=0)

    def seats_label(self, deals: int) -> str:
        """What ``deals`` deals are played as: nothing to add in a game without seats, else the seats that play each
        and the games that makes (`` x 2 seats (both): 400 games``)."""
        if not self.game.by_seat:
            return ""
        seats = len(sides(self.setups[0], self.seat))
        return f" x {seats} seat{'s' if seats > 1 else ''} ({self.seat}): {deals * seats:,} games"


def replicate_name(name: str, seed: int) -> str:
    """The study name of ``name``'s replicate on ``seed``."""
    return f"{name}-seed{seed}"
