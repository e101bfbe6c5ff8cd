"""Samplers by name, as strategy objects: the one place a study file's ``search.sampler`` is read.

A strategy checks a study file's space and objectives (and says how many
trials a file that names none runs), makes the Optuna sampler a worker asks
for each trial's parameters (from a seed), prepares the study before its
workers start, and drives a worker's trials. Most are Optuna's own samplers,
asked trial by trial (``OptunaSampler``); ``grid`` queues its points first;
``hyperopt`` drives the trials from Hyperopt's ``fmin``. Adding a sampler is a
class (or an ``OptunaSampler``) and its entry in ``SAMPLERS``, here alone.

Dependencies: ``gp`` (Optuna's ``GPSampler``) needs torch and scipy,
``cmaes`` (Optuna's ``CmaEsSampler``) the ``cmaes`` package, ``hyperopt``
Hyperopt: all three are dependencies of this project.
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import optuna
from optuna.trial import TrialState

from agents.interruption import deferred
from gamecore.errors import SpecError
from gamecore.rng import derive_seed
from tuning.space import Domain
from tuning.storage import COUNTED

if TYPE_CHECKING:
    from tuning.study_spec import StudySpec


class TrialLoop(Protocol):
    """What a worker offers the sampler that drives it (``tuning.worker.WorkerLoop``)."""

    study: optuna.Study
    n_trials: int  # the budget: complete and pruned trials over every worker

    def run(self) -> None:
        """Ask, run and tell trials until the budget is met (waiting for others' last trials)."""

    def run_next(self) -> None:
        """Ask for the next trial (a queued one first) and run it."""

    def out_of_budget(self) -> bool:
        """Whether the trials counted so far (running ones included) meet the budget, or the deadline passed."""

    def poll(self) -> None:
        """Wait a moment for other workers."""


class OptunaSampler:
    """An Optuna sampler asked for each trial's parameters, trial by trial."""

    def __init__(self, name: str, make: Callable[[int], optuna.samplers.BaseSampler], objectives: int | None = None):
        self.name, self.make = name, make
        self.objectives = objectives  # the number of objectives it takes, None: any

    def check(self, space: Sequence[Domain], metrics: Sequence[str], n_trials: int | None, source: str) -> int | None:
        """The trial budget of a study file with this space and these objectives (``n_trials``: the file's,
        None when it names none and the default applies); SpecError when the sampler cannot search them."""
        if self.objectives is not None and len(metrics) > self.objectives:
            raise SpecError(f"{source}: search.sampler = {self.name!r} takes one objective; use tpe for "
                            f"{list(metrics)}")
        return n_trials

    def optuna_sampler(self, seed: int) -> optuna.samplers.BaseSampler:
        """The sampler a worker's study asks (its seed mixes the study's, the worker's and the trials run)."""
        return self.make(seed)

    def prepare(self, study: optuna.Study, spec: StudySpec) -> None:
        """Before the study's workers start (the driver, inside ``deferred``): nothing to do."""

    def drive(self, loop: TrialLoop, spec: StudySpec, worker: int) -> None:
        """Run a worker's trials: Optuna's ask-and-tell loop."""
        loop.run()


class GridSampler(OptunaSampler):
    """Every combination of the choices once, queued before the workers start (a failed point is queued again)."""

    def __init__(self):
        super().__init__("grid", lambda seed: optuna.samplers.RandomSampler(seed=seed))  # asked for none: all queued

    def check(self, space: Sequence[Domain], metrics: Sequence[str], n_trials: int | None, source: str) -> int | None:
        """Choices only; the budget is at most (by default) the number of combinations."""
        wrong = next((d.name for d in space if d.kind != "choice"), None)
        if wrong is not None:
            raise SpecError(f"{source}: space.{wrong} is invalid for search.sampler = 'grid'; expected "
                            "{ choice = [...] }")
        size = math.prod(len(d.choices) for d in space)
        n_trials = size if n_trials is None else n_trials
        if n_trials > size:
            raise SpecError(f"{source}: search.n_trials = {n_trials} is invalid; the grid has {size} combinations")
        return n_trials

    def prepare(self, study: optuna.Study, spec: StudySpec) -> None:
        """Queue every grid point that no trial has covered or is waiting for (failed points are retried)."""
        names = [d.name for d in spec.space]
        covered = {
            tuple((t.params or t.system_attrs.get("fixed_params", {})).get(n) for n in names)  # waiting: not asked yet
            for t in study.get_trials(deepcopy=False, states=(*COUNTED, TrialState.RUNNING, TrialState.WAITING))
        }
        for point in itertools.product(*(d.choices for d in spec.space)):
            if point not in covered:
                study.enqueue_trial(dict(zip(names, point)))


class HyperoptTPE(OptunaSampler):
    """Hyperopt's TPE (``fmin`` with ``tpe.suggest``, the thesis's choice) proposes; each proposal is queued as
    an Optuna trial marked with its own key, so both TPEs write the same storage and MLflow layout. Queued trials
    of others (retries) that this worker is handed first are run too. A resumed run keeps the trials in storage
    but starts Hyperopt's own history afresh."""

    DRAW = "hyperopt_draw"  # the user attribute that marks a trial with its proposal's key

    def __init__(self):
        super().__init__("hyperopt", lambda seed: optuna.samplers.TPESampler(seed=seed), objectives=1)

    def drive(self, loop: TrialLoop, spec: StudySpec, worker: int) -> None:
        from hyperopt import STATUS_FAIL, STATUS_OK, Trials, fmin, tpe

        study = loop.study

        def evaluate(draw: dict) -> dict:
            key = os.urandom(8).hex()
            with deferred():
                study.enqueue_trial({d.name: from_hyperopt(d, draw[d.name]) for d in spec.space},
                                    user_attrs={self.DRAW: key})
            while (mine := self._draw(study, key)).state == TrialState.WAITING:
                loop.run_next()
            while mine.state == TrialState.RUNNING:  # another worker was handed it
                loop.poll()
                mine = self._draw(study, key)
            if mine.state == TrialState.COMPLETE:
                return {"loss": -mine.values[0], "status": STATUS_OK}
            if mine.state == TrialState.PRUNED and mine.intermediate_values:
                return {"loss": -mine.intermediate_values[max(mine.intermediate_values)], "status": STATUS_OK}
            return {"status": STATUS_FAIL}

        if not loop.out_of_budget():
            seed = int(derive_seed(np.uint64(spec.sampler_seed), np.uint64(len(study.trials) * 1024 + worker)))
            fmin(evaluate, {d.name: hyperopt_expression(d) for d in spec.space}, algo=tpe.suggest,
                 max_evals=loop.n_trials, trials=Trials(),
                 rstate=np.random.default_rng(seed), show_progressbar=False,
                 early_stop_fn=lambda *_: (loop.out_of_budget(), []))

    def _draw(self, study: optuna.Study, key: str):
        return next(t for t in reversed(study.get_trials(deepcopy=False)) if t.user_attrs.get(self.DRAW) == key)


def hyperopt_expression(domain: Domain):
    """A space's domain as a Hyperopt expression."""
    from hyperopt import hp

    if domain.kind == "choice":
        return hp.choice(domain.name, list(domain.choices))
    if domain.log:
        return hp.loguniform(domain.name, math.log(domain.low), math.log(domain.high))
    if domain.step is not None:
        return hp.quniform(domain.name, domain.low, domain.high, domain.step)
    return hp.uniform(domain.name, domain.low, domain.high)


def from_hyperopt(domain: Domain, value: Any) -> Any:
    """A value drawn by Hyperopt's ``fmin`` mapped onto the domain (integers rounded onto its grid)."""
    if domain.kind == "choice":
        return value
    if domain.kind == "int":
        value = round(value)
        if domain.step and not domain.log:
            value = domain.low + round((value - domain.low) / domain.step) * domain.step
        return int(min(max(value, domain.low), domain.high))
    return float(min(max(value, domain.low), domain.high))


def _cma_es(seed: int) -> optuna.samplers.BaseSampler:
    """CMA-ES over the numeric parameters (integers with its margin, so that they keep moving); a choice is drawn
    at random, which CMA-ES cannot search."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)  # with_margin's
        return optuna.samplers.CmaEsSampler(seed=seed, with_margin=True, warn_independent_sampling=False,
                                            independent_sampler=optuna.samplers.RandomSampler(seed=seed))


SAMPLERS: dict[str, OptunaSampler] = {sampler.name: sampler for sampler in (
    OptunaSampler("tpe", lambda seed: optuna.samplers.TPESampler(seed=seed)),
    HyperoptTPE(),
    OptunaSampler("random", lambda seed: optuna.samplers.RandomSampler(seed=seed)),
    GridSampler(),
    OptunaSampler("gp", lambda seed: optuna.samplers.GPSampler(seed=seed)),
    OptunaSampler("cmaes", _cma_es, objectives=1),
)}
