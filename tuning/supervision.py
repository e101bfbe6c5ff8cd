"""Process supervision: a study's local worker processes started, watched, replaced when they die, stopped.

The driver runs one worker in its own process, or ``workers`` processes that
die with it; a worker that dies (killed, out of memory) is replaced, its trial
failed and queued again, at most ``workers`` times; a worker that stops on
failing trials (exit code 2) is not. SIGINT or SIGTERM stops them within
seconds (``agents.interruption``).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import sys
import time

from agents.evaluation import warm_up
from agents.interruption import Interrupted, die_with_parent, stop_processes, stop_signals
from agents.specs import SpecError
from gamecore.redaction import redact
from tuning.study_record import close_abandoned, open_study
from tuning.study_spec import StudySpec
from tuning.worker import POLL_SECONDS, TrialContext, work


def share_workers(spec: StudySpec, workers: int, trials_left: int) -> tuple[int, int]:
    """``workers`` local processes as (trials run at once, processes playing each trial's games): fewer trials
    left than workers (a grid of one match) share the rest among their games; a Ray executor spreads the games
    itself."""
    trial_workers = max(1, min(workers, trials_left))
    return trial_workers, workers // trial_workers if spec.executor == "local" else 1


def timing_note(spec: StudySpec, workers: int) -> str | None:
    """What a study run by ``workers`` trials at once does not repeat: with several, which finished trials the
    sampler and the pruner see depends on timing, so a re-run may try other points and choose another trial (a grid
    without pruning tries the same points and repeats); None when a re-run repeats it exactly."""
    if workers == 1 or (spec.sampler == "grid" and spec.pruner == "none"):
        return None
    return (f"asynchronous: {workers} trials run at once, and which finished trials the {spec.sampler} sampler and the "
            f"{spec.pruner} pruner see depends on timing, so a re-run from scratch may choose another trial; "
            "workers = 1 repeats exactly (docs/reproducibility.md)")


def compile_agents(spec: StudySpec) -> None:
    """Compile (or load) the agents' code once here, not in every worker, saying so (``warm_up``)."""
    start = time.perf_counter()
    print(f"[{spec.name}] loading the agents' compiled code (compiling on the first run only, about a minute)...",
          file=sys.stderr, flush=True)
    for setup in spec.setups:
        warm_up(setup, spec.trial_options({}))
    print(f"[{spec.name}] ready in {time.perf_counter() - start:.1f} s; running trials", file=sys.stderr, flush=True)


def run_workers(context: TrialContext, storage: str, n_trials: int, workers: int, timeout: float | None) -> None:
    """``workers`` local worker processes (or this process for one) until the budget is met; a worker that
    dies is replaced (its trial failed and queued again), at most ``workers`` times."""
    deadline = time.time() + timeout if timeout else None
    if workers == 1:
        work(context, storage, n_trials, deadline)
        return
    spawn = lambda w: multiprocessing.Process(  # noqa: E731
        target=_work_in_process, args=(context, storage, n_trials, deadline, w), name=f"worker-{w}")
    processes = {w: spawn(w) for w in range(workers)}
    for process in processes.values():
        process.start()
    replacements, failed = workers, []
    try:
        while alive := [p.sentinel for p in processes.values() if p.is_alive()]:
            multiprocessing.connection.wait(alive, timeout=POLL_SECONDS)
            for w, process in list(processes.items()):
                if process.is_alive() or process.exitcode in (0, None) or w in failed:
                    continue
                if process.exitcode == 2 or replacements == 0:
                    failed.append(w)
                    continue
                close_abandoned(open_study(context.spec, storage))
                print(f"worker {w} died (exit code {process.exitcode}); its trial is queued again and a new worker "
                      "takes its place", file=sys.stderr, flush=True)
                replacements -= 1
                processes[w] = spawn(w)
                processes[w].start()
    except Interrupted:
        stop_processes(list(processes.values()))
        close_abandoned(open_study(context.spec, storage))  # a worker killed inside a long game left its trial running
        raise
    if failed:
        raise SpecError(f"study {context.spec.name}: workers stopped on failing trials (their messages above)")


def _work_in_process(context, storage, n_trials, deadline, worker) -> None:
    """A local worker process: stops on SIGINT/SIGTERM (and with its driver), exits non-zero on errors."""
    die_with_parent()
    with stop_signals():
        try:
            work(context, storage, n_trials, deadline, worker)
        except Interrupted as stop:
            sys.exit(stop.exit_code)
        except SpecError as error:
            print(f"worker {worker}: {redact(str(error))}", file=sys.stderr, flush=True)
            sys.exit(2)
