"""The exported best agent as an MLflow pyfunc model, registered under the study's name.

``mlflow.pyfunc.load_model("models:/<study>@best").predict(frame)`` takes a
frame with a ``state`` column of game states (``GameState.to_json()``; honest
agents read only its visible part) and returns, per row, the action of the
agent that the setup assigns to the pending decision stage, as a dict with
its ``stage`` and fields (``Plan(buy=...)`` gives ``{"stage": "planning",
"buy": [...]}``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from pathlib import Path

import mlflow
import mlflow.pyfunc


class AgentModel(mlflow.pyfunc.PythonModel):
    _skip_type_hint_validation = True  # input: a frame of JSON states, validated by GameState.from_json

    def load_context(self, context) -> None:
        from agents.setup import Setup

        self.setup = Setup.load(context.artifacts["config"])

    def predict(self, context, model_input, params=None) -> list[dict]:
        from agents.decide import Agent
        from agents.setup import STAGES
        from lotr_sim import GameState

        seed = int((params or {}).get("seed", 0))
        actions = []
        for text in model_input["state"]:
            game = GameState.from_json(text)
            stage = game.stage.label
            action = Agent(self.setup.agents[STAGES.index(stage)], seed).act(game)
            actions.append({"stage": stage, **{k: _plain(v) for k, v in dataclasses.asdict(action).items()}})
        return actions


def _plain(value):
    return [_plain(v) for v in value] if isinstance(value, (tuple, list)) else value


def register_agent(tracking_uri: str, run_id: str, name: str, config: Path) -> str:
    """Log ``config`` (and the weights beside it) as the pyfunc model of ``run_id``, register it as
    ``name`` with the alias ``best``; return the model URI."""
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")  # no bars among the study's lines
    logging.getLogger("mlflow").setLevel(logging.ERROR)  # nor its notice on pickling the model
    from agents.setup import Setup

    artifacts = {"config": str(config)} | {w.name: str(w) for w in Setup.load(config).weights_files}
    with _tracking_uri(tracking_uri), mlflow.start_run(run_id=run_id):
        info = mlflow.pyfunc.log_model(
            name="agent", python_model=AgentModel(), artifacts=artifacts, registered_model_name=name,
            pip_requirements=["lotr-tuning"],
        )
    mlflow.MlflowClient(tracking_uri).set_registered_model_alias(name, "best", info.registered_model_version)
    return f"models:/{name}@best"


@contextlib.contextmanager
def _tracking_uri(uri: str):
    """MLflow's fluent API on ``uri`` for a while, then the process's own choice again (so that a later
    study in this process that asks for MLflow's default gets it)."""
    before = os.environ.get("MLFLOW_TRACKING_URI")  # set_tracking_uri mirrors itself there
    mlflow.set_tracking_uri(uri)
    try:
        yield
    finally:
        mlflow.set_tracking_uri(before)
