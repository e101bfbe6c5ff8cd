"""MLflow logging of studies (our own; Optuna's MLflowCallback logs neither parents nor intermediate values).

One experiment per study, one parent run per ``lotr tune run`` invocation,
one child run per trial named ``trial-<n>`` (linked by ``mlflow.parentRunId``,
so workers in other processes attach their trials to the same parent). The
tracking store is created in the parent process before any worker starts.
"""

from __future__ import annotations

import functools
import logging
import subprocess
import time
from pathlib import Path

from mlflow import MlflowClient
from mlflow.entities import Metric, Param, RunTag


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
        self.client = MlflowClient(tracking_uri)
        self.tracking_uri = self.client.tracking_uri
        found = self.client.get_experiment_by_name(experiment)
        self.experiment_id = found.experiment_id if found else self.client.create_experiment(experiment)

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


def export_run(tracking_uri: str | None, run_id: str, target: Path) -> Path:
    """The agent configuration logged by an MLflow run (a trial's ``agent.toml`` or a study's best),
    with its weights, written to ``target`` (TOML or JSON)."""
    import tempfile

    from agents.setup import Setup
    from agents.specs import SpecError

    client = MlflowClient(tracking_uri)
    try:
        names = [a.path for a in client.list_artifacts(run_id)]
    except Exception as error:  # unknown run, unreachable store
        raise SpecError(f"--run-id {run_id}: {str(error).splitlines()[0] if str(error) else type(error).__name__}") from None
    configs = [name for name in names if name.endswith(".toml")]
    if not configs:
        raise SpecError(f"--run-id {run_id}: the run logged no agent configuration")
    with tempfile.TemporaryDirectory() as folder:
        config = Path(client.download_artifacts(run_id, configs[0], folder))
        if "weights" in names:
            for weights in Path(client.download_artifacts(run_id, "weights", folder)).glob("*.pt"):
                weights.replace(config.parent / weights.name)
        Setup.load(config).dump_with_weights(target, metadata={"mlflow_run": run_id})
    return target
