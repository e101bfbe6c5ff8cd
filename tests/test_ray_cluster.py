"""A study on a real two-node Ray cluster on this machine that loses its worker node in the middle of a trial.

The head and the worker node are separate ``ray start`` processes with one CPU
each and their own temporary folders; the study is on PostgreSQL, MLflow
behind ``mlflow server`` on a fresh PostgreSQL database. The worker node's
raylet is killed (SIGKILL) while it plays one of a trial's chunks of games;
Ray runs the lost chunks again on the head, and the study completes its
budget with every game counted once. Then ``lotr eval --json`` on a new worker
node loses it too, and its stdout is still the JSON document alone.

Ray is stopped by process id (the processes of these two nodes), not with
``ray stop --force``, which would stop every Ray instance on the machine.
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from conftest import POSTGRES, launch_mlflow_server, wait_for_mlflow_server

ray = pytest.importorskip("ray")

DEADLINE = 600  # seconds for any one wait; a timed-out wait fails the test


def ray_environment() -> dict:
    """Token authentication off on every node and client of the test cluster (a stale ~/.ray/auth_token would
    otherwise make a joining node fail with InvalidAuthToken)."""
    return {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


def start_node(temp_dir: str, *args: str) -> None:
    """``ray start`` with one CPU and its own temporary folder; returns once the node's daemons run."""
    command = ["ray", "start", "--num-cpus", "1", "--temp-dir", temp_dir, "--disable-usage-stats", *args]
    done = subprocess.run(command, env=ray_environment(), capture_output=True, text=True, timeout=DEADLINE, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def processes() -> dict[int, tuple[int, str]]:
    """Every process of this machine: pid -> (parent pid, command line)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            parent = int(Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        table[int(entry)] = (parent, command)
    return table


def node_processes(temp_dir: str) -> set[int]:
    """The processes of the Ray node started with ``temp_dir`` (their command lines name it) and their children
    (the node's workers)."""
    table = processes()
    found = {pid for pid, (_, command) in table.items() if temp_dir in command and pid != os.getpid()}
    while more := {pid for pid, (parent, _) in table.items() if parent in found} - found:
        found |= more
    return found


def raylet(temp_dir: str) -> int:
    [pid] = [pid for pid, (_, command) in processes().items() if "raylet/raylet" in command and temp_dir in command]
    return pid


def playing(temp_dir: str) -> bool:
    """Whether a worker of the node started with ``temp_dir`` is playing a chunk of games (its process title)."""
    table = processes()
    node = raylet(temp_dir)
    return any(parent == node and command.startswith("ray::play_chunk") for parent, command in table.values())


def kill(pids: set[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def wait_for(condition, what: str, process: subprocess.Popen, log: Path | None = None) -> float:
    """Poll ``condition`` until it holds (returns the time.monotonic() then); fail after DEADLINE seconds, or when
    ``process`` ends first (with the end of its stderr, or of ``log``)."""
    start = time.monotonic()
    while not condition():
        if process.poll() is not None:
            said = log.read_text() if log is not None else process.stderr.read()
            pytest.fail(f"{what}: the process ended first ({process.returncode}): {said[-2000:]}")
        if time.monotonic() - start > DEADLINE:
            pytest.fail(f"{what}: not within {DEADLINE} s")
        time.sleep(0.05)
    return time.monotonic()


@pytest.fixture
def cluster():
    """A head and a worker node: (the head's address, the nodes' temporary folders, a list a test may add the
    folders of nodes it starts to). Every process of these nodes is killed afterwards, whatever happened."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    folders = [tempfile.mkdtemp(prefix="rayh", dir="/tmp"), tempfile.mkdtemp(prefix="rayw", dir="/tmp")]
    try:
        start_node(folders[0], "--head", "--port", str(port), "--include-dashboard=false")
        start_node(folders[1], "--address", f"127.0.0.1:{port}")
        yield f"127.0.0.1:{port}", folders
    finally:
        for folder in folders:
            kill(node_processes(folder))
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def tracking_server(in_tmp, fresh_postgres):
    """``mlflow server`` on a fresh PostgreSQL database, launched (it answers once ``wait_for_mlflow_server``
    returns; it starts while the cluster does), stopped afterwards: (process, tracking URI)."""
    server, uri = launch_mlflow_server(fresh_postgres, in_tmp)
    try:
        yield server, uri
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow
def test_a_study_on_a_two_node_ray_cluster_survives_the_loss_of_a_node(in_tmp, tracking_server, cluster):
    """The study completes its budget, every trial's games counted once (the trial cut by the loss wins the
    games a local run wins), nothing RUNNING in Optuna or MLflow; then ``lotr eval --json`` of that trial's agent
    on a new worker node that is lost too prints the JSON document alone, with the same wins."""
    import optuna
    from mlflow import MlflowClient
    from optuna.trial import TrialState

    from agents.evaluation import evaluate_setup
    from agents.setup import Setup
    from tuning.outcomes import unpack_outcomes

    address, folders = cluster
    wait_for_mlflow_server(*tracking_server)
    tracking = tracking_server[1]
    name, storage = f"ray-cluster-{uuid.uuid4().hex[:8]}", POSTGRES.replace("postgresql://", "postgresql+psycopg://")
    games, trials = 1000, 3  # about 3 s a trial on an idle machine: the worker node plays chunks for ~9 s
    (in_tmp / "study.toml").write_text(f"""
        name = "{name}"
        difficulty = "hard"
        setup = "random-mcts-mcts"
        [fixed]
        ppn = 10
        [space]
        budget = {{ int = [100, 300], step = 100 }}
        [objective]
        games = {games}
        [validation]
        top_k = 0
        [search]
        sampler = "random"
        pruner = "none"
        n_trials = {trials}
        storage = "{storage}"
        executor = "ray"
        ray_address = "{address}"
        [mlflow]
        tracking_uri = "{tracking}"
    """.replace("\n        ", "\n"))
    started, log = time.monotonic(), in_tmp / "driver.log"
    with open(log, "w") as said:  # its progress lines: a trial's end is a line there
        driver = subprocess.Popen(["lotr", "tune", "run", "study.toml"], cwd=in_tmp, env=ray_environment(),
                                  stdout=said, stderr=subprocess.STDOUT, text=True)
    evaluation = None
    try:
        cut = []  # the trial running when the node is lost: trials run one at a time, numbered in order

        def trial_on_the_worker() -> bool:  # a chunk of games on the worker node, in the trial after those complete
            cut[:] = [log.read_text().count(" complete |")]
            return " running trials" in log.read_text() and playing(folders[1])

        killed = wait_for(trial_on_the_worker, "a chunk of a trial on the worker node", driver, log)
        kill({raylet(folders[1])})
        driver.wait(timeout=DEADLINE)
        finished = time.monotonic()
        assert driver.returncode == 0, log.read_text()
        study = optuna.load_study(study_name=name, storage=storage)
        states = [t.state for t in study.trials]
        assert states == [TrialState.COMPLETE] * trials, states  # nothing failed, queued again or left RUNNING
        for trial in study.trials:  # every game counted once, in game order
            wins = unpack_outcomes(trial.user_attrs["outcomes"])
            assert trial.user_attrs["games"] == wins.size == games and trial.values[0] == wins.mean()
        lost = study.trials[cut[0]]
        agent = Path(lost.user_attrs["folder"]) / "agent.toml"
        local = evaluate_setup(Setup.load(agent), options={"difficulty": "hard"}, games=games, seed=0, workers=2)
        assert local.wins == round(lost.values[0] * games)  # the chunks Ray played again counted once
        client = MlflowClient(tracking)
        runs = client.search_runs([client.get_experiment_by_name(name).experiment_id])
        assert len(runs) == trials + 1 and {r.info.status for r in runs} == {"FINISHED"}
        assert [r.data.metrics["games_played"] for r in runs if "mlflow.parentRunId" in r.data.tags] == [games] * trials

        folders.append(tempfile.mkdtemp(prefix="rayw", dir="/tmp"))  # a new worker node, lost during lotr eval
        start_node(folders[-1], "--address", address)
        evaluation = subprocess.Popen(
            ["lotr", "eval", "--config", str(agent), "--difficulty", "hard", "--games", str(games), "--seed", "0",
             "--executor", "ray", "--ray-address", address, "--json"],
            env=ray_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: playing(folders[-1]), "a chunk of lotr eval on the new worker node", evaluation)
        kill({raylet(folders[-1])})
        out, err = evaluation.communicate(timeout=DEADLINE)
        assert evaluation.returncode == 0, err
        assert json.loads(out)["wins"] == local.wins
        print(f"study {finished - started:.1f} s, of which {finished - killed:.1f} s after the loss", file=sys.stderr)
    finally:
        for process in (driver, evaluation):
            if process is not None and process.poll() is None:
                process.kill()
        with contextlib.suppress(KeyError):  # the study's rows, from the shared database
            optuna.delete_study(study_name=name, storage=storage)
