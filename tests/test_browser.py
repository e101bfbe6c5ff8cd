"""What a researcher sees after the main job, in a real headless browser: MLflow's UI and optuna-dashboard.

The README's ``mlflow ui`` and ``optuna-dashboard`` commands are started as
written (plus a free ``--port``, and one MLflow worker) in the folder of a
small finished main job (``conftest.finished_main_job``: two trials complete,
two pruned), and Chromium (Playwright, ``pip install -e ".[views]"`` and
Debian's ``chromium``) reads the pages. ``SCREENSHOTS=docs/figures`` writes
the README's pictures of each view there (default: the test's folder).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from test_readme_commands import ROOT, command_starting

CHROMIUM = Path("/usr/bin/chromium")
DEADLINE = 120  # seconds a server may take to answer (MLflow's UI takes 10-40 s on a busy 2-core machine)
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def server(command: str, folder: Path, *extra: str):
    """The README's ``command`` run as written in ``folder`` with ``extra`` options (a port), its URL once it
    answers; stopped with its process group afterwards."""
    port = free_port()
    words = [*shlex.split(command), "--port", str(port), *extra]
    executable = Path(sys.executable).with_name(words[0])
    with open(folder / f"{words[0]}.log", "w") as log:
        process = subprocess.Popen([str(executable), *words[1:]], cwd=folder, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + DEADLINE
        while True:
            assert process.poll() is None, f"{command} stopped: {(folder / f'{words[0]}.log').read_text()[-2000:]}"
            with contextlib.suppress(OSError):
                urllib.request.urlopen(url, timeout=5).close()
                break
            assert time.monotonic() < deadline, f"{command}: no answer within {DEADLINE} s"
            time.sleep(0.5)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does)")
    playwright = pytest.importorskip("playwright.sync_api", reason='pip install -e ".[views]"')
    with playwright.sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield chromium
        chromium.close()


def screenshots() -> Path | None:
    folder = os.environ.get("SCREENSHOTS")
    return Path(folder) if folder else None


def shoot(page, name: str, folder: Path) -> None:
    target = screenshots() or folder
    target.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target / f"{name}.png"))


COLUMNS = (("metrics", "win_rate"), ("metrics", "games_played"), ("params", "state"))
TABLE = """() => {
    const rows = {};  // the run table's cells by row and column; a row spans the pinned and the scrolled panes
    document.querySelectorAll('[role=row][row-index]').forEach(row => {
        const cells = rows[row.getAttribute('row-index')] ??= {};
        row.querySelectorAll('[col-id]').forEach(cell => { cells[cell.getAttribute('col-id')] = cell.innerText.trim(); });
    });
    return Object.values(rows);
}"""


STATUS_ICONS = """() => {
    const icons = {};  // each run's status icon in the run list (MLflow draws it before the created time), by run name
    document.querySelectorAll('[role=row][row-index]').forEach(row => {
        const name = row.querySelector('[col-id="attributes.`Run Name`"]');
        const icon = row.querySelector('[col-id=runDateAndNestInfo] [role=img]');
        if (name && icon) icons[name.innerText.trim().split('\\n').pop()] = icon.innerHTML;
    });
    return icons;
}"""


def trial_runs(folder: Path) -> dict[str, dict]:
    """The trials' runs as the store holds them (name -> id, win rate, state), to compare with what is shown."""
    from mlflow import MlflowClient

    client = MlflowClient(f"sqlite:///{folder}/mlflow.db")
    experiment = client.get_experiment_by_name("mcts-hpo")
    runs = client.search_runs([experiment.experiment_id], "tags.state != ''")
    return {r.info.run_name: {"id": r.info.run_id, "win_rate": r.data.metrics["win_rate"],
                              "state": r.data.params["state"], "status": r.info.status} for r in runs}


def test_mlflow_shows_the_trials_truly(finished_main_job, browser):
    """The run list: the trials nested under the study's run, each with its win rate, games and state; no
    pruned trial above the best, in the list or in the parallel-coordinates chart; the model version's source
    is the chosen trial's run, whose page shows the model."""
    folder, runs = finished_main_job, trial_runs(finished_main_job)
    command = command_starting("mlflow ui ")
    page = browser.new_page(viewport={"width": 1800, "height": 560})
    with server(command, folder, "--workers", "1") as url:
        address = re.search(r"then open http://127.0.0.1:5000(\S+)", (ROOT / "README.md").read_text())[1]
        page.goto(url + address)  # the README's address (experiment 1: the first study of a store) on this port
        page.get_by_text("mcts-hpo 20").first.wait_for(timeout=60_000)
        assert page.get_by_role("heading", name="Runs").is_visible()  # a model-training experiment, not GenAI's
        assert not page.get_by_text("Evaluations", exact=True).count()
        with contextlib.suppress(Exception):
            page.get_by_role("button", name="Close").click(timeout=2000)  # MLflow's assistant panel
        assert not page.get_by_text("trial-0", exact=True).count()  # nested: shown when the study's run opens
        page.locator("button[data-component-id*='runnamecellrenderer']").first.click()
        page.get_by_text("trial-3 pruned").wait_for(timeout=30_000)
        page.get_by_role("button", name="Columns", exact=True).click()
        for column in ("win_rate", "games_played", "state"):
            page.get_by_role("dialog").get_by_text(column, exact=True).first.click()
        page.keyboard.press("Escape")
        page.get_by_role("columnheader", name="win_rate").first.wait_for(timeout=30_000)
        shown = {row["attributes.`Run Name`"].split("\n")[-1]: [row[f"{kind}.`{name}`"] for kind, name in COLUMNS]
                 for row in page.evaluate(TABLE) if row.get("params.`state`") in ("complete", "pruned")}
        assert set(shown) == set(runs) and {"trial-0", "trial-2 pruned", "trial-3 pruned"} <= set(shown)
        for name, (win_rate, games, state) in shown.items():
            assert float(win_rate) == pytest.approx(runs[name]["win_rate"], abs=1e-6) and state == runs[name]["state"]
            assert int(games) == 60 if state == "complete" else 0 < int(games) <= 60  # pruned at its last report too
        best = max(float(v[0]) for v in shown.values() if v[2] == "complete")
        assert max(float(v[0]) for v in shown.values() if v[2] == "pruned") < best
        icons = page.evaluate(STATUS_ICONS)  # FINISHED: a green tick; a pruned trial's run, KILLED: a red cross
        finished = {icons[name] for name, run in runs.items() if run["state"] == "complete"}
        assert len(finished) == 1 and {run["status"] for run in runs.values() if run["state"] == "complete"} == {"FINISHED"}
        for name in (name for name, run in runs.items() if run["state"] == "pruned"):
            assert runs[name]["status"] == "KILLED" and icons[name] not in finished, name  # not shown as finished
        shoot(page, "mlflow-runs", folder)

        ids = json.dumps([run["id"] for run in runs.values()])
        page.goto(f"{url}/#/compare-runs?runs={ids}&experiments=[\"1\"]&workflowType=machine_learning")
        page.get_by_text("Parallel Coordinates Plot").wait_for(timeout=60_000)
        page.locator(".parcoords").first.wait_for(timeout=60_000)
        axis_top = page.locator(".axis-extent-top-text").all_text_contents()
        assert f"{best:.5f}" in axis_top  # the win_rate axis ends at the best complete trial, no pruned one above
        shoot(page, "mlflow-parallel-coordinates", folder)

        page.goto(f"{url}/#/models/mcts-hpo/versions/1?workflowType=machine_learning")
        source = page.get_by_role("link", name="trial-0")
        source.wait_for(timeout=60_000)
        assert runs["trial-0"]["id"] in source.get_attribute("href")  # the version's source: the chosen trial
        page.get_by_role("link", name="agent").first.wait_for(timeout=60_000)  # its source model, the trial's
        shoot(page, "mlflow-model-version", folder)
        source.click()
        page.get_by_text("Registered models").first.wait_for(timeout=60_000)
        registered = page.locator("a[href*='models/mcts-hpo/versions/1']")  # the trial's page shows the model
        registered.first.wait_for(timeout=60_000)
        assert "trial-0" in page.inner_text("body") and "Parent run" in page.inner_text("body")
        assert re.search(r"Status\s+Finished", page.inner_text("body"))
        page.goto(f"{url}/#/experiments/1/runs/{runs['trial-3 pruned']['id']}?workflowType=machine_learning")
        page.get_by_text("Parent run").first.wait_for(timeout=60_000)  # a pruned trial's page: "Killed"
        assert re.search(r"Status\s+Killed", page.inner_text("body"))
    page.close()


def test_optuna_dashboard_shows_the_study(finished_main_job, browser):
    """The README's ``optuna-dashboard`` command on the main job's journal: the study listed, its trials."""
    page = browser.new_page(viewport={"width": 1500, "height": 800})
    with server(command_starting("optuna-dashboard "), finished_main_job) as url:
        page.goto(f"{url}/dashboard/")
        page.get_by_text("mcts-hpo").first.click(timeout=60_000)
        page.get_by_text("Best Trial").first.wait_for(timeout=60_000)
        page.wait_for_timeout(1000)  # the history plot's drawing (nothing is asserted on it)
        assert "win_rate" in page.inner_text("body")
        shoot(page, "optuna-dashboard", finished_main_job)
    page.close()
