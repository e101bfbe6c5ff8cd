"""MLflow logging of studies (our own; Optuna's MLflowCallback logs neither parents nor intermediate values).

One experiment per study, one parent run per ``lotr tune run`` invocation,
one child run per trial named ``trial-<n>`` (linked by ``mlflow.parentRunId``,
so workers in other processes attach their trials to the same parent). The
tracking store is created in the parent process before any worker starts.
A told trial's run gets its parameters, metrics, running win rate and
artifacts (``log_trial``); runs left RUNNING by dead processes are closed with
their trials' status (``close_stale_runs``).
The experiment is tagged a model-training one (``EXPERIMENT_KIND``), and a
trial's run ends with its state in its name (``trial-7 pruned``), as a tag and
as a parameter, so that no view shows a pruned or failed trial as a finished one.
Opening a store first checks it (``tuning.tracking_store``).
"""

from __future__ import annotations

import functools
import logging
import os
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

import optuna
from mlflow import MlflowClient
from mlflow.entities import Metric, Param, RunTag
from mlflow.exceptions import MlflowException
from optuna.trial import FrozenTrial, TrialState

import gamecore
from agents.interruption import deferred
from agents.specs import SpecError
from gamecore.atomic import atomic_path
from gamecore.redaction import redact
from tuning.study_spec import CONTEXT
from tuning.tracking_store import first_line, open_to_read, prepare_tracking_store

if TYPE_CHECKING:
    from agents.evaluation import Evaluation

# What MLflow 3's UI reads to open an experiment as model training (runs, charts, models) and not as GenAI
# (traces, "Evaluations"); its UI also keeps a global workflow type, which ``?workflowType=machine_learning`` sets.
EXPERIMENT_KIND = ("mlflow.experimentKind", "custom_model_development")


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """The git commit of the code, or "unknown"."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False,
            cwd=Path(__file__).resolve().parent,
        )
    except OSError:
        return "unknown"
    return done.stdout.strip() or "unknown"


class Tracker:
    """An MLflow experiment and the runs of one study invocation."""

    def __init__(self, tracking_uri: str | None, experiment: str):
        logging.getLogger("mlflow").setLevel(logging.WARNING)  # not its store-migration chatter
        # not MLflow's own "View run ... at: <tracking URI>" lines: the URI may carry credentials (``view`` is redacted)
        os.environ["MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT"] = "true"
        self.client = MlflowClient(prepare_tracking_store(tracking_uri))
        self.tracking_uri = self.client.tracking_uri
        found = self.client.get_experiment_by_name(experiment)
        key, kind = EXPERIMENT_KIND
        if found is None:
            try:
                self.experiment_id = self.client.create_experiment(experiment, tags={key: kind})
            except MlflowException:  # another process made it since (two studies' first runs at once): use it
                found = self.client.get_experiment_by_name(experiment)
                if found is None:
                    raise
        if found is not None:
            self.experiment_id = found.experiment_id
            if key not in found.tags:  # an experiment made by an earlier version of this code
                self.client.set_experiment_tag(self.experiment_id, key, kind)

    def view(self) -> str:
        """Where MLflow's UI shows the experiment's runs as model training (its path after ``mlflow ui``'s
        address): MLflow 3.17's UI opens any experiment as GenAI unless told so in the address or by its toggle."""
        return f"{redact(self.tracking_uri)}, at /#/experiments/{self.experiment_id}/runs?workflowType=machine_learning"

    def start_run(self, name: str, tags: dict[str, str], parent: str | None = None) -> str:
        if parent is not None:
            tags = {**tags, "mlflow.parentRunId": parent}
        tags = {key: str(value) for key, value in tags.items()}  # the REST store takes strings only
        return self.client.create_run(self.experiment_id, tags=tags, run_name=name).info.run_id

    def log(self, run_id: str, params: dict | None = None, metrics: dict | None = None, tags: dict | None = None,
            series: dict[str, list[tuple[int, float]]] | None = None) -> None:
        """Params, metrics (step 0), tags and metric series (step, value) in one batch."""
        now = int(time.time() * 1000)
        batch = [Metric(k, float(v), now, 0) for k, v in (metrics or {}).items() if v is not None]
        for key, points in (series or {}).items():
            batch += [Metric(key, float(v), now, int(step)) for step, v in points]
        for start in range(0, max(len(batch), 1), 1000):  # MLflow takes at most 1000 metrics per batch
            self.client.log_batch(
                run_id,
                metrics=batch[start : start + 1000],
                params=[Param(k, str(v)) for k, v in (params or {}).items()] if start == 0 else [],
                tags=[RunTag(k, str(v)) for k, v in (tags or {}).items()] if start == 0 else [],
            )

    def artifact(self, run_id: str, path: Path, folder: str | None = None) -> None:
        self.client.log_artifact(run_id, str(path), folder)

    def end(self, run_id: str, status: str = "FINISHED") -> None:
        self.client.set_terminated(run_id, status)

    def end_trial(self, run_id: str, number: int, state: str, status: str, tags: dict | None = None) -> None:
        """End a trial's run with its ``state`` (complete, pruned, failed, interrupted) shown three ways: the run's
        name (``trial-7 pruned``; a complete trial keeps ``trial-7``), the ``state`` tag and the ``state``
        parameter (a column and an axis of MLflow's charts); ``status`` is MLflow's (FINISHED, FAILED, KILLED)."""
        self.log(run_id, params={"state": state}, tags={"state": state, **(tags or {})})
        self.client.update_run(run_id, name=trial_run_name(number, state))
        self.end(run_id, status)


def trial_run_name(number: int, state: str = "complete") -> str:
    """``trial-7`` for a complete trial, ``trial-7 pruned`` (failed, interrupted) for the others."""
    return f"trial-{number}" if state == "complete" else f"trial-{number} {state}"


def export_run(tracking_uri: str | None, run_id: str, target: Path) -> Path:
    """The agent configuration logged by an MLflow run (a trial's ``agent.toml`` or a study's best), with its
    weights, written to ``target`` (TOML or JSON). Its metadata keeps what the logged file's held (a study's best:
    its test, validation and search figures) and adds the figures the run logged (a trial: its validation and
    test win rates, intervals and games), and the run."""
    import tempfile

    from agents.setup import Setup

    client = open_to_read(tracking_uri, "--tracking-uri")
    try:
        run = client.get_run(run_id)
        names = [a.path for a in client.list_artifacts(run_id)]
    except Exception as error:  # noqa: BLE001  unknown run, unreadable store
        raise SpecError(f"--run-id {run_id}: {redact(first_line(error))}") from None
    configs = [name for name in names if name.endswith(".toml")]
    if not configs:
        raise SpecError(f"--run-id {run_id}: the run logged no agent configuration")
    with tempfile.TemporaryDirectory() as folder:
        config = Path(client.download_artifacts(run_id, configs[0], folder))
        if "weights" in names:
            for weights in Path(client.download_artifacts(run_id, "weights", folder)).glob("*.pt"):
                weights.replace(config.parent / weights.name)
        logged = Setup.read_mapping(config).get("metadata", {})
        metadata = {**_run_figures(run.data.metrics), **logged, "mlflow_run": logged.get("mlflow_run", run_id)}
        Setup.load(config).dump_with_weights(target, metadata=metadata)
    return target


# MLflow's status of a trial's run: FINISHED is a trial that played all its games; MLflow has no "pruned", and
# its UI shows FINISHED as a green "Finished", so a pruned trial's run ends KILLED (stopped early, by the pruner).
RUN_STATUS = {TrialState.COMPLETE: ("FINISHED", "complete"), TrialState.PRUNED: ("KILLED", "pruned")}


def close_stale_runs(tracker: Tracker, study: optuna.Study, keep: str | None = None) -> None:
    """Close the study's MLflow runs left RUNNING by dead processes: a trial's run with its trial's status
    (``RUN_STATUS``; failed: FAILED on an error, else KILLED), an earlier driver's parent
    run KILLED. Runs of trials still running, and ``keep``, stay open."""
    trials = study.get_trials(deepcopy=False)
    runs = tracker.client.search_runs([tracker.experiment_id], "attributes.status = 'RUNNING'", max_results=5000)
    for run in runs:
        tags = run.data.tags
        if tags.get("study") != study.study_name or run.info.run_id == keep:
            continue
        if "mlflow.parentRunId" not in tags:
            status, state = "KILLED", None
        else:
            number = int(tags.get("trial", -1))
            trial = trials[number] if 0 <= number < len(trials) else None
            if trial is not None and trial.state in (TrialState.RUNNING, TrialState.WAITING):
                continue
            error = trial.user_attrs.get("error") if trial is not None else None
            status, state = RUN_STATUS.get(trial.state if trial else None, ("FAILED" if error else "KILLED", "failed"))
        with deferred():
            if state:
                tracker.end_trial(run.info.run_id, number, state, status)
            else:
                tracker.end(run.info.run_id, status)


def game_metrics(evaluation: Evaluation) -> dict[str, float]:
    """The metrics the evaluation's game names (LOTR's loss causes), its draws and each seat's win rate and game
    metrics (``score_first.second``: the first player's score in the games the agent played second)."""
    named = gamecore.load(evaluation.game).metric_names
    metrics = {name: float(evaluation.metrics[name]) for name in named}
    if evaluation.seats:
        metrics["draws"] = float(evaluation.draws)
        for seat, counts in evaluation.seats.items():
            metrics[f"win_rate.{seat}"] = counts["wins"] / max(1, counts["games"])
            metrics.update({f"{name}.{seat}": float(counts["metrics"][name]) for name in named})
        if "margin_first" in named:  # the evaluated agent's score margin over its seats (Carcassonne's Eq. 4)
            metrics["margin"] = evaluation.agent_measure("margin")
    return metrics


def log_trial(tracker: Tracker, run: str, trial: FrozenTrial, evaluation: Evaluation | None, training: dict,
              state: str, folder: Path | None = None) -> None:
    """The child run of a told trial (as the study records it): parameters, metrics, the running win rate,
    artifacts. A pruned trial's run ends KILLED (``RUN_STATUS``), named ``trial-<n> pruned``, with the same
    ``win_rate`` (its value: the win rate over the games it played, below the best's by the pruners' rule,
    ``tuning.pruners.BehindTheBest``) and ``games_played`` as a complete one, so that every chart of MLflow
    ranks it where it belongs."""
    metrics = dict(training)
    if evaluation is None and trial.values:  # pruned: what it played until it was stopped
        low, high = trial.user_attrs.get("wilson_95", (None, None))
        metrics.update(win_rate=trial.values[0], win_rate_low=low, win_rate_high=high,
                       games_played=trial.user_attrs.get("games", 0))
    if evaluation is not None:
        low, high = evaluation.wilson_95
        metrics.update(win_rate=evaluation.win_rate, win_rate_low=low, win_rate_high=high,
                       seconds_per_game=evaluation.mean_seconds_per_game, games_played=evaluation.games)
        metrics.update({f"ms_per_decision.{s}": v for s, v in evaluation.ms_per_decision.items() if v is not None})
        metrics.update(game_metrics(evaluation))
    tags = {key: str(trial.params[key]) for key in CONTEXT if key in trial.params}
    series = {"intermediate_win_rate": sorted(trial.intermediate_values.items())}
    tracker.log(run, params=trial.params, metrics=metrics, tags=tags, series=series)
    if folder is not None:
        tracker.artifact(run, folder / "agent.toml")
        for weights in folder.glob("*.pt"):
            tracker.artifact(run, weights, "weights")
        if (folder / "curve.csv").is_file():
            log_learning_curve(tracker, run, folder)
    tracker.end_trial(run, trial.number, state, RUN_STATUS[trial.state][0])


def log_learning_curve(tracker: Tracker, run: str, folder: Path) -> None:
    """An RL trial's moving training win rate by episode: a metric series (every 10th episode) and a plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [line.split(",") for line in (folder / "curve.csv").read_text().splitlines()[1:]]
    points = [(int(e), float(a)) for e, _, a in rows if a]
    tracker.log(run, series={"training_moving_win_rate": points[::10]})
    figure, axes = plt.subplots(figsize=(6, 3.5))
    axes.plot([e for e, _ in points], [a for _, a in points])
    axes.set(xlabel="episode", ylabel="moving win rate", title="learning curve")
    with atomic_path(folder / "learning_curve.png") as temporary:
        figure.savefig(temporary, format="png", dpi=110, bbox_inches="tight")
    plt.close(figure)
    tracker.artifact(run, folder / "learning_curve.png")
def _run_figures(metrics: dict[str, float]) -> dict:
    """``<kind>_win_rate``, ``<kind>_wilson_95`` and ``<kind>_games`` of the validation and test figures a trial's
    run logged (``tuning.selection``'s names, as in an export's metadata)."""
    figures = {}
    for kind in ("validation", "test"):
        if f"{kind}_win_rate" in metrics:
            figures[f"{kind}_win_rate"] = metrics[f"{kind}_win_rate"]
            figures[f"{kind}_wilson_95"] = [metrics.get(f"{kind}_low"), metrics.get(f"{kind}_high")]
            if f"{kind}_games" in metrics:
                figures[f"{kind}_games"] = int(metrics[f"{kind}_games"])
    return figures
