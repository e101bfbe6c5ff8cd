"""The registered model installs where it is served: its requirements resolve, and they and its own code are all
it needs to load and predict (``tuning.agent_model``)."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from agents.setup import Setup

LOAD_AND_PREDICT = textwrap.dedent("""
    import json, sys
    sys.path.append({site!r})  # -S: no site-packages, no .pth files (the project's own install among them)
    import mlflow.pyfunc, pandas
    model = mlflow.pyfunc.load_model({model!r})
    actions = model.predict(pandas.read_json({model!r} + "/input_example.json", orient="split"))
    import agents
    print(json.dumps({{"actions": actions, "agents": agents.__file__}}))
""")


def fresh_site(distributions: list[str], folder: Path) -> Path:
    """A site-packages folder holding only ``distributions`` (links to this environment's copies): what a fresh
    environment would have after installing them, without the minutes and megabytes of installing them."""
    site, installed = folder / "site-packages", Path(sysconfig.get_paths()["purelib"])
    site.mkdir()
    for name in distributions:
        try:
            files = importlib.metadata.distribution(name).files or []
        except importlib.metadata.PackageNotFoundError:  # resolved, not installed here (tzdata): not linked
            continue
        for top in {f.parts[0] for f in files if f.parts[0] != ".."}:
            if (installed / top).exists() and not (site / top).exists():
                (site / top).symlink_to(installed / top)
    return site


@pytest.mark.slow
def test_the_registered_model_s_requirements_install_and_serve_it(tmp_path, monkeypatch):
    """About 70 s on a busy 2-core machine, where installing them takes 80 s more and 500 MB: pip resolves the
    model's requirements.txt as in a fresh environment (``--dry-run --ignore-installed``), and a Python that sees
    only the distributions resolved (not the project's install, nor anything else of this environment) loads the
    model from its folder and predicts its input example with the model's own copy of the code. The agent is the
    test game Nim's random policy: its kernels compile in seconds, and LOTR's agents, searches included, import
    the same packages (numba, numpy, tomli-w, tqdm)."""
    import mlflow

    from tuning.agent_model import register_agent
    from tuning.tracking import Tracker

    monkeypatch.chdir(tmp_path)  # MLflow's default artifact root, ./mlruns, is here, not in the repository
    config = tmp_path / "agent.toml"
    Setup.uniform("random", "nim").dump(config)
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    register_agent(uri, Tracker(uri, "serve").start_run("trial-0", {}), "serve", config, "the random policy", {})
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)  # the registry's too
    model = mlflow.artifacts.download_artifacts("models:/serve/1", dst_path=str(tmp_path / "model"))
    report = tmp_path / "report.json"
    resolved = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                               "--report", str(report), "-r", f"{model}/requirements.txt"],
                              capture_output=True, text=True, timeout=600, check=False)
    assert resolved.returncode == 0, resolved.stderr
    site = fresh_site([p["metadata"]["name"] for p in json.loads(report.read_text())["install"]], tmp_path)
    done = subprocess.run([sys.executable, "-S", "-c", LOAD_AND_PREDICT.format(site=str(site), model=model)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{model}/requirements.txt: {done.stderr.strip().splitlines()[-1]}"
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded["actions"][0]["role"] == "first" and loaded["agents"].startswith(model)  # the model's own code
