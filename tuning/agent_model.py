"""The exported best agent as an MLflow pyfunc model, registered under the study's name.

``mlflow.pyfunc.load_model("models:/<study>@best").predict(frame)`` takes a
frame with a ``state`` column of the game's states (``to_json()``; honest
agents read only its visible part) and returns, per row, the action of the
agent that the setup assigns to the pending decision, as a dict with its
``role`` and fields (LOTR's ``Plan(buy=...)`` gives ``{"role": "planning",
"buy": [...]}``; an action that is a plain value gives ``{"role": ...,
"action": value}``). Each state is checked before it is played (the game's
``state_from_json``): a row that is no state the game's compiled code can
safely play fails in one line naming the row.

The model carries what it needs where it is served (``mlflow models serve``
in a fresh environment): the project's packages as its code (``code/``, put
first on the path when it loads) and the third-party packages they import,
pinned at the versions it was built with (``requirements``). Loading a model
runs the code it carries (its packages and its pickled ``AgentModel``): load
only models from a trusted source.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.metadata
import logging
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import mlflow
import mlflow.pyfunc
from mlflow.models import ModelSignature
from mlflow.types import ColSpec, ParamSchema, ParamSpec, Schema
from mlflow.types.schema import Object, Property


class AgentModel(mlflow.pyfunc.PythonModel):
    _skip_type_hint_validation = True  # input: a frame of JSON states, validated by the game's from_json

    def __init__(self, game_module: str):
        self.game_module = game_module  # the module of the game's GAME, in the model's code (an installed game's
        # entry point is not where the model is served)

    def load_context(self, context) -> None:
        import gamecore
        from agents.setup import Setup

        if getattr(self, "game_module", None):  # models registered before it was recorded: a game found by name
            gamecore.register(importlib.import_module(self.game_module).GAME)
        self.setup = Setup.load(context.artifacts["config"])

    def predict(self, context, model_input, params=None) -> list[dict]:
        from agents.agent import Agent

        if "state" not in getattr(model_input, "columns", ()):
            raise ValueError("input has no column 'state'; give a frame with a column state of the game states' "
                             "to_json() strings")
        seed = int((params or {}).get("seed", 0))
        game = self.setup.game
        actions = []
        for row, text in enumerate(model_input["state"]):
            try:
                state = game.state_from_json(text)
            except ValueError as error:  # SpecError included: one line naming the field
                raise ValueError(f"row {row} of the input: {error}") from None
            role = self.setup.role_of(state)
            action = Agent(getattr(self.setup, role), seed).act(state)
            fields = dataclasses.asdict(action) if dataclasses.is_dataclass(action) else {"action": action}
            actions.append({"role": role, **{k: _plain(v) for k, v in fields.items()}})
        return actions


def _plain(value):
    return [_plain(v) for v in value] if isinstance(value, (tuple, list)) else value


SIGNATURE = ModelSignature(
    inputs=Schema([ColSpec("string", "state", required=False)]),  # checked by predict, in one line
    outputs=Schema([ColSpec(Object([Property("role", "string")]), "action")]),
    params=ParamSchema([ParamSpec("seed", "long", 0)]),
)


SERVED = ("mlflow", "pandas", "numpy", "numba", "tomli-w", "tqdm")  # load, predict and serve any agent
CODE = ("gamecore", "agents", "tuning")  # the project's packages; the game's own are found from the game


def requirements(setup) -> list[str]:
    """The distributions the model's code imports where it is served, pinned at this environment's versions:
    ``SERVED``, torch for trained networks, open-spiel for OpenSpiel's bots."""
    names = [*SERVED, *(["torch"] if setup.has_trained_agents else []),
             *(["open-spiel"] if any(s.kind.name.startswith("openspiel") for s in setup.agents) else [])]
    return [f"{name}=={importlib.metadata.version(name)}" for name in names]


def game_packages(game) -> list[str]:
    """The top-level packages of a game's code: its kernels' and those of every "module:function" it declares (its
    learners, commands, agents' factories...: LOTR's lab code, ``lotr_lab``), found from the game alone."""
    named = {game.kernels.__name__}

    def collect(value) -> None:
        if isinstance(value, str) and re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*", value):
            named.add(value.partition(":")[0])
        elif isinstance(value, dict):
            for inner in value.values():
                collect(inner)
        elif isinstance(value, (tuple, list)):
            for inner in value:
                collect(inner)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for item in dataclasses.fields(value):
                collect(getattr(value, item.name))

    collect(game)
    return sorted({name.partition(".")[0] for name in named} - set(CODE))


def _code(setup, folder: Path) -> list[str]:
    """Copies in ``folder`` of the project's packages and the game's, without their caches (compiled code is
    compiled again where the model is served); MLflow puts them in the model's ``code/``."""
    copies = []
    for name in (*CODE, *game_packages(setup.game)):
        source = Path(importlib.import_module(name).__file__).parent
        copies.append(str(shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("__pycache__"))))
    return copies


def game_module(game) -> str:
    """The name of the module whose ``GAME`` is ``game`` (``lotr_sim.game``, an installed game's own)."""
    return next(name for name, module in list(sys.modules.items()) if getattr(module, "GAME", None) is game)


def register_agent(tracking_uri: str, run_id: str, name: str, config: Path, description: str, tags: dict) -> str:
    """Log ``config`` (and the weights beside it) as the pyfunc model of ``run_id`` (the chosen trial's run: the
    version's source), register it as ``name`` with the alias ``best``, with ``description`` and ``tags`` on
    the version; return the version's URI ``models:/<name>/<version>``. The run keeps its status."""
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")  # no bars among the study's lines
    logging.getLogger("mlflow").setLevel(logging.ERROR)  # nor its notice on pickling the model
    import pandas as pd

    from agents.setup import Setup

    setup = Setup.load(config)
    game = setup.game
    options = Setup.read_mapping(config).get("metadata", {}).get("options", {})
    artifacts = {"config": str(config)} | {w.name: str(w) for w in setup.weights_files}
    example = pd.DataFrame({"state": [game.new_game(0, **options).to_json()]})
    client = mlflow.MlflowClient(tracking_uri)
    before = client.get_run(run_id).info
    with _tracking_uri(tracking_uri), mlflow.start_run(run_id=run_id), tempfile.TemporaryDirectory() as folder:
        info = mlflow.pyfunc.log_model(
            name="agent", python_model=AgentModel(game_module(game)), artifacts=artifacts, registered_model_name=name,
            code_paths=_code(setup, Path(folder)), pip_requirements=requirements(setup), signature=SIGNATURE,
            input_example=example,
        )
    if before.status == "RUNNING":  # the block above ended the run as FINISHED; its driver ends it
        client.update_run(run_id, status="RUNNING")
    else:
        client.set_terminated(run_id, before.status, end_time=before.end_time)
    version = info.registered_model_version
    client.update_model_version(name, version, description=description)
    for key, value in tags.items():
        client.set_model_version_tag(name, version, key, str(value))
    client.set_registered_model_alias(name, "best", version)
    return f"models:/{name}/{version}"


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
