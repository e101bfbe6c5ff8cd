"""The study record under faults injected into real processes: signals to a process group, kill -9,
a torn journal, a second driver, workers launched together. Every assertion is on the record itself
(Optuna storage, MLflow runs, the export), read back after the fault."""

import os
import re
import signal
import subprocess
import sys
import threading
import time

import optuna
import pytest
from mlflow import MlflowClient
from optuna.trial import TrialState

from agents.setup import Setup
from tuning.storage import storage_object

pytestmark = pytest.mark.slow
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

STUDY = """
name = "{name}"
difficulty = "hard"
setup = "random-mcts-mcts"
[fixed]
budget = {budget}
ppn = 20
[space]
c = {{ float = [0.3, 2.0], log = true }}
[objective]
games = {games}
[validation]
top_k = 2
games = {validation}
[test]
games = {validation}
[search]
n_trials = {trials}
pruner = "none"
heartbeat_interval = 1
grace_period = 3
[mlflow]
figures = false                  # Optuna's plots are not what these tests check (test_tuning.py does)
"""


# A signal stops a run within 5 s on a quiet machine (README); at load 10 on 2 cores the same stop (the driver's 2.5 s,
# then the workers killed and the record closed) took 5.8-6.7 s. 10 s still fails a stop that waits for a game of
# LONG_GAMES (about 20 s quiet) or for the rest of a trial.
PROMPT_STOP = 10

def write_study(folder, name="f", budget=200, games=300, trials=6, validation=100):
    path = folder / f"{name}.toml"
    path.write_text(STUDY.format(name=name, budget=budget, games=games, trials=trials, validation=validation))
    return path


def _read_all(fd: int, into: list) -> None:
    """Append what the pipe ``fd`` holds as it comes, to its end."""
    into.extend(iter(lambda: os.read(fd, 4096), b""))


class Lotr:
    """``lotr *args`` run in ``folder`` in its own process group (as a terminal job); its stderr is read as it
    comes (``err``), so that a test can wait for a line."""

    def __init__(self, folder, *args, env=None):
        env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"} | {"PYTHONPATH": REPO} | (env or {})
        self.process = subprocess.Popen([sys.executable, "-m", "tuning.cli", *map(str, args)], cwd=folder, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        self.pid, self.outs, self.errs = self.process.pid, [], []
        # os.read returns what the pipe holds at once (a file's read(n) would wait for n characters, one line late)
        self.readers = [threading.Thread(target=_read_all, args=(f.fileno(), into))
                        for f, into in ((self.process.stdout, self.outs), (self.process.stderr, self.errs))]
        for reader in self.readers:
            reader.start()

    @property
    def err(self) -> str:
        return b"".join(self.errs).decode(errors="replace")

    def finish(self, timeout: float) -> tuple[int, str, str]:
        """Wait for the end: (exit code, stdout, stderr)."""
        self.process.wait(timeout=timeout)
        for reader in self.readers:
            reader.join()
        return self.process.returncode, b"".join(self.outs).decode(errors="replace"), self.err

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


def lotr(folder, *args, env=None) -> Lotr:
    return Lotr(folder, *args, env=env)


def wait_for(condition, seconds, what, run: "Lotr | None" = None):
    """``condition()``'s first true value within ``seconds``; fails early if ``run`` ends meanwhile."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        if run is not None and run.process.poll() is not None:
            pytest.fail(f"lotr exited ({run.process.returncode}) before {what}: {run.err[-2000:]}")
        time.sleep(0.2)
    pytest.fail(f"timed out after {seconds} s waiting for {what}")


def trials_of(url, name):
    try:
        return optuna.load_study(study_name=name, storage=storage_object(url)).get_trials(deepcopy=False)
    except (KeyError, ValueError, OSError):
        return []


EARLY = 150  # games: a trial that has reported no more than these of its 300 is in the first half of its evaluation


def playing(url, name, worker_pid=None, within=None):
    """A running trial that has reported games (it is inside its evaluation), of ``worker_pid`` if given; with
    ``within``, one that has reported no more than these games (a kill then cuts it, half a trial before its end,
    however late the poll that found it)."""
    return next((t for t in trials_of(url, name) if t.state == TrialState.RUNNING and t.intermediate_values
                 and (within is None or max(t.intermediate_values) <= within)
                 and (worker_pid is None or t.user_attrs.get("worker", "").endswith(f":{worker_pid}"))), None)


def group_gone(pgid) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def assert_record_is_true(url, name, games):
    """No trial recorded complete from part of its games, none left running."""
    trials = trials_of(url, name)
    assert all(t.user_attrs["games"] == games for t in trials if t.state == TrialState.COMPLETE)
    assert not [t for t in trials if t.state == TrialState.RUNNING]
    return trials


@pytest.mark.parametrize("workers, signum, trials", [(2, signal.SIGINT, 6), (1, signal.SIGINT, 6),
                                                     (2, signal.SIGTERM, 6), (2, signal.SIGINT, 1)],
                         ids=["group-sigint-2-workers", "group-sigint-1-worker", "group-sigterm-2-workers",
                              "group-sigint-1-trial-on-2-workers"])
def test_a_signal_to_the_group_stops_every_worker_and_keeps_no_partial_trial(in_tmp, workers, signum, trials):
    """The last case: one trial's games on both workers (``share_workers``), the driver's evaluation pool."""
    path = write_study(in_tmp, trials=trials)
    url = f"journal:{in_tmp}/f.journal" if workers > 1 else f"sqlite:///{in_tmp}/f.db"
    run = lotr(in_tmp, "tune", "run", path, "--workers", workers)
    wait_for(lambda: playing(url, "f"), 180, "a trial in the middle of its games", run)
    sent = time.monotonic()
    os.killpg(run.pid, signum)
    code, _out, err = run.finish(30)
    stopped = time.monotonic() - sent
    assert code == 128 + signum, err
    assert stopped < PROMPT_STOP and group_gone(run.pid), f"stopped after {stopped:.1f} s"
    last = err.strip().splitlines()[-1]
    assert f"interrupted ({signal.Signals(signum).name})" in last and f"resume with: lotr tune run {path}" in last
    trials = assert_record_is_true(url, "f", 300)
    cut = [t for t in trials if t.state == TrialState.FAIL]
    assert cut and all("interrupted" in t.user_attrs for t in cut)  # the trial cut short, failed and queued again
    assert not (in_tmp / "f-best.toml").exists()
    client = MlflowClient(f"sqlite:///{in_tmp}/mlflow.db")
    runs = client.search_runs([client.get_experiment_by_name("f").experiment_id])
    assert not [r for r in runs if r.info.status == "RUNNING"]


LONG_GAMES = """
name = "long"
game = "carcassonne"
setup = "mcts-random"
[fixed]
budget = 20000
[space]
c = { float = [0.3, 2.0], log = true }
[objective]
games = 2
seat = "first"
[validation]
top_k = 1
games = 2
[test]
games = 2
[search]
n_trials = 2
pruner = "none"
heartbeat_interval = 1
grace_period = 3
[mlflow]
figures = false                  # Optuna's plots are not what these tests check (test_tuning.py does)
"""


def test_a_worker_inside_a_long_game_is_killed_and_its_trial_failed_not_left_running(in_tmp):
    """Games of about 20 s (Carcassonne at 20,000 rollouts a move) hold a worker in compiled code past the
    driver's 2.5 s: the worker is killed, and its trial is failed and queued again, its MLflow run closed."""
    path = in_tmp / "long.toml"
    path.write_text(LONG_GAMES)
    url = f"journal:{in_tmp}/long.journal"
    run = lotr(in_tmp, "tune", "run", path, "--workers", 2)
    wait_for(lambda: (in_tmp / "long.journal").is_file() and
             sum(t.state == TrialState.RUNNING for t in trials_of(url, "long")) == 2, 180, "both trials running", run)
    time.sleep(3)  # into their first games
    sent = time.monotonic()
    os.killpg(run.pid, signal.SIGINT)
    code, _, err = run.finish(30)
    stopped = time.monotonic() - sent
    assert code == 130, err
    assert stopped < PROMPT_STOP and group_gone(run.pid), f"stopped after {stopped:.1f} s"
    trials = assert_record_is_true(url, "long", 2)
    assert sum(t.state == TrialState.FAIL for t in trials) == 2
    assert "2 cut short or queued will run first" in err.strip().splitlines()[-1]
    client = MlflowClient(f"sqlite:///{in_tmp}/mlflow.db")
    runs = client.search_runs([client.get_experiment_by_name("long").experiment_id])
    assert not [r for r in runs if r.info.status == "RUNNING"]


def test_sigterm_to_the_driver_alone_stops_its_workers(in_tmp):
    path = write_study(in_tmp)
    run = lotr(in_tmp, "tune", "run", path, "--workers", 2)
    wait_for(lambda: playing(f"journal:{in_tmp}/f.journal", "f"), 180, "a trial in the middle of its games", run)
    os.kill(run.pid, signal.SIGTERM)
    code, _, _ = run.finish(30)
    assert code == 143
    wait_for(lambda: group_gone(run.pid), 5, "no orphaned worker")
    assert_record_is_true(f"journal:{in_tmp}/f.journal", "f", 300)


def test_an_interrupted_validation_exports_nothing_and_resumes_where_it_stopped(in_tmp):
    path = write_study(in_tmp, budget=40, games=20, trials=2, validation=20_000)
    run = lotr(in_tmp, "tune", "run", path)
    wait_for(lambda: (in_tmp / "f.db").is_file() and
             sum(t.state == TrialState.COMPLETE for t in trials_of(f"sqlite:///{in_tmp}/f.db", "f")) == 2,
             180, "the trials to finish", run)
    wait_for(lambda: "validation 1/2: trial" in run.err, 120, "the validation to start", run)
    time.sleep(0.3)  # into the first candidate's 20,000 validation games
    os.killpg(run.pid, signal.SIGINT)
    code, _, err = run.finish(30)
    assert code == 130, err
    assert "validation 1/2" in err and not (in_tmp / "f-best.toml").exists()
    study = optuna.load_study(study_name="f", storage=f"sqlite:///{in_tmp}/f.db")
    assert "selection" not in study.user_attrs and "validation" not in study.user_attrs  # no partial figure kept
    client = MlflowClient(f"sqlite:///{in_tmp}/mlflow.db")
    assert not client.search_registered_models()
    path.write_text(path.read_text().replace("20000", "200"))
    resumed = lotr(in_tmp, "tune", "run", path)
    code, _, err = resumed.finish(300)
    assert code == 0, err
    assert "trial 2" not in err  # no trial run again: only the validation and the test
    study = optuna.load_study(study_name="f", storage=f"sqlite:///{in_tmp}/f.db")
    chosen = study.user_attrs["selection"]
    assert chosen["validation"]["games"] == 200 and chosen["test"]["games"] == 200
    assert Setup.read_mapping(in_tmp / "f-best.toml")["metadata"]["trial"] == chosen["trial"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_lotr_eval_reports_the_games_finished_marked_interrupted(in_tmp, signum):
    run = lotr(in_tmp, "eval", "--setup", "random-mcts-mcts", "--set", "budget=800", "--games", 100_000)
    wait_for(lambda: re.search(r"games [1-9][0-9,]*/100,000", run.err), 120, "games being played", run)
    os.killpg(run.pid, signum)
    code, out, err = run.finish(30)
    assert code == 128 + signum, err
    played = int(out.split(" games from seed")[0].rsplit(" ", 1)[1])
    assert 0 < played < 100_000 and "(interrupted)" in out
    assert f"interrupted ({signal.Signals(signum).name}) after {played} of 100000 games" in err


def test_lotr_eval_stopped_before_its_first_game_says_so_in_one_line(in_tmp):
    """A Ctrl-C in the middle of a long compile (an empty compile cache; the harness's game loop, holding every
    Carcassonne agent, compiles for tens of seconds): the process ends within 5 s, in one line, no traceback."""
    cache = in_tmp / "compile-cache"
    run = lotr(in_tmp, "eval", "--game", "carcassonne", "--setup", "mcts", "--opponent", "random", "--games", 2,
               env={"NUMBA_CACHE_DIR": str(cache)})

    def inside_the_game_loop_compile() -> bool:
        """Announced, a function it calls compiled and cached, the game loop itself not yet."""
        if not ("compiling" in run.err and any("carcassonne" in str(p) for p in cache.rglob("*.nbi"))):
            return False
        if any(cache.rglob("*play_games*.nbi")):
            pytest.fail("the game loop finished compiling before the signal: nothing was tested")
        return True

    wait_for(inside_the_game_loop_compile, 180, "the game loop compiling", run)
    sent = time.monotonic()
    os.killpg(run.pid, signal.SIGINT)
    code, out, err = run.finish(60)
    stopped = time.monotonic() - sent
    assert code == 130 and stopped < 5, f"exit {code} after {stopped:.1f} s: {err[-2000:]}"
    assert err.strip().splitlines() == [
        "lotr eval: compiling the code this command uses (first run of this version; cached for the next runs) ...",
        "lotr eval: interrupted (SIGINT) while compiling"] and not out


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as file:
                    stat = file.read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def test_a_signal_stops_the_evaluation_pool_in_the_middle_of_its_chunks(in_tmp):
    """Chunks of tens of seconds (a Carcassonne deal in both seats at 20,000 rollouts a move): the pool is
    killed at once, not waited for (a one-trial study on 2 workers plays its games on such a pool)."""
    run = lotr(in_tmp, "eval", "--game", "carcassonne", "--setup", "mcts", "--opponent", "random",
               "--set", "budget=20000", "--games", 4, "--workers", 2)
    pool = wait_for(lambda: len(found := children(run.pid)) >= 2 and found, 120, "the pool playing", run)
    time.sleep(3)
    sent = time.monotonic()
    os.killpg(run.pid, signal.SIGINT)
    code, out, err = run.finish(60)
    stopped = time.monotonic() - sent
    assert code == 130, err
    assert stopped < 5 and group_gone(run.pid) and not any(os.path.exists(f"/proc/{p}") for p in pool), \
        f"stopped after {stopped:.1f} s"
    assert "interrupted (SIGINT) after 0 of 4 games" in err and "(interrupted)" in out

def test_a_torn_journal_is_repaired_and_every_finished_trial_kept(in_tmp):
    path = write_study(in_tmp, budget=20, games=20, trials=3)
    first = lotr(in_tmp, "tune", "run", path, "--workers", 2)
    assert first.finish(300)[0] == 0
    journal = in_tmp / "f.journal"
    before = [t.number for t in trials_of(f"journal:{journal}", "f") if t.state == TrialState.COMPLETE]
    data = journal.read_bytes()
    journal.write_bytes(data + b'{"op_code": 6, "worker_id": "x", "trial_id": 0, "us')  # a writer killed mid-record
    again = lotr(in_tmp, "tune", "run", path, "--workers", 2, "--n-trials", 5)
    code, out, err = again.finish(300)
    assert code == 0, err
    assert "its last record was cut" in out + err
    trials = trials_of(f"journal:{journal}", "f")
    assert sum(t.state == TrialState.COMPLETE for t in trials) == 5
    assert set(before) <= {t.number for t in trials if t.state == TrialState.COMPLETE}
    assert list(in_tmp.glob("f.journal.torn-*"))  # the cut file backed up


def test_a_record_cut_while_workers_run_is_dropped_before_their_next_write(in_tmp):
    from optuna.storages.journal import JournalFileSymlinkLock

    path = write_study(in_tmp, budget=40, games=300, trials=6)
    run = lotr(in_tmp, "tune", "run", path, "--workers", 2)
    journal = in_tmp / "f.journal"
    wait_for(lambda: any(t.state == TrialState.COMPLETE for t in trials_of(f"journal:{journal}", "f")), 180,
             "a finished trial", run)
    lock = JournalFileSymlinkLock(str(journal))  # as a writer killed in the middle of its record leaves it
    lock.acquire()
    with open(journal, "ab") as file:
        file.write(b'{"op_code": 6, "worker_id": "x", "trial_id": 0, "us')
    lock.release()
    code, _, err = run.finish(300)
    assert code == 0, err
    assert "its last record was cut" in err
    assert sum(t.state == TrialState.COMPLETE for t in trials_of(f"journal:{journal}", "f")) == 6


def test_a_second_driver_is_refused_and_the_first_finishes(in_tmp):
    path = write_study(in_tmp, trials=3)
    first = lotr(in_tmp, "tune", "run", path)
    wait_for(lambda: playing(f"sqlite:///{in_tmp}/f.db", "f"), 180, "the first driver's trial", first)
    second = lotr(in_tmp, "tune", "run", path)
    code, _, err = second.finish(60)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "is already being run by" in err and "lotr tune worker" in err
    code, _, err = first.finish(300)
    assert code == 0, err
    trials = trials_of(f"sqlite:///{in_tmp}/f.db", "f")
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 3


def test_two_drivers_started_together_with_other_worker_counts_do_not_both_run(in_tmp):
    path = write_study(in_tmp, budget=20, games=20, trials=3)
    one, two = lotr(in_tmp, "tune", "run", path, "--workers", 1), lotr(in_tmp, "tune", "run", path, "--workers", 2)
    (code_one, _, err_one), (code_two, _, err_two) = one.finish(300), two.finish(300)
    assert sorted([code_one, code_two]) == [0, 2], err_one + err_two
    refused = err_one if code_one == 2 else err_two
    assert len(refused.strip().splitlines()) == 1 and "lotr tune run: error: study f" in refused
    stores = [f"sqlite:///{in_tmp}/f.db", f"journal:{in_tmp}/f.journal"]
    assert sorted(len(trials_of(url, "f")) for url in stores) == [0, 3]  # one study, not two


def test_a_killed_driver_leaves_runs_that_the_resume_closes(in_tmp):
    path = write_study(in_tmp, trials=3)
    run = lotr(in_tmp, "tune", "run", path)
    killed = wait_for(lambda: playing(f"sqlite:///{in_tmp}/f.db", "f", within=EARLY), 180,
                      "a trial in the first half of its games", run)
    run.kill()
    resumed = lotr(in_tmp, "tune", "run", path)
    code, _, err = resumed.finish(300)
    assert code == 0, err
    trials = assert_record_is_true(f"sqlite:///{in_tmp}/f.db", "f", 300)
    assert trials[killed.number].state == TrialState.FAIL and sum(t.state == TrialState.COMPLETE for t in trials) == 3
    client = MlflowClient(f"sqlite:///{in_tmp}/mlflow.db")
    runs = client.search_runs([client.get_experiment_by_name("f").experiment_id])
    assert not [r for r in runs if r.info.status == "RUNNING"]
    by_name = {r.info.run_name: r for r in runs if "mlflow.parentRunId" in r.data.tags}
    assert by_name[f"trial-{killed.number} failed"].info.status == "KILLED"
    assert sum(r.info.status == "KILLED" for r in runs if "mlflow.parentRunId" not in r.data.tags) == 1


def test_a_driver_and_workers_launched_together_on_a_fresh_database_all_join(in_tmp, fresh_postgres):
    url = fresh_postgres
    path = write_study(in_tmp, budget=20, games=20, trials=6)
    processes = [lotr(in_tmp, "tune", "run", path, "--storage", url)]
    processes += [lotr(in_tmp, "tune", "worker", path, "--storage", url) for _ in range(2)]
    for process in processes:
        code, _, err = process.finish(300)
        assert code == 0, err
    trials = trials_of(url, "f")
    assert sum(t.state == TrialState.COMPLETE for t in trials) == 6 and len({t.number for t in trials}) == len(trials)


def test_the_survivors_take_over_a_killed_workers_trial_and_meet_the_budget(in_tmp, fresh_postgres):
    url = fresh_postgres
    path = write_study(in_tmp, trials=8)
    started = lotr(in_tmp, "tune", "run", path, "--storage", url, "--n-trials", 1)
    assert started.finish(300)[0] == 0
    victim = lotr(in_tmp, "tune", "worker", path, "--storage", url)  # alone: it plays the trials one after another
    wait_for(lambda: playing(url, "f", victim.pid, within=EARLY), 180, "the worker in the first half of a trial",
             victim)
    victim.kill()
    workers = [lotr(in_tmp, "tune", "worker", path, "--storage", url) for _ in range(2)]  # the survivors
    for worker in workers:
        code, _, err = worker.finish(300)
        assert code == 0, err
    trials = trials_of(url, "f")
    states = [t.state for t in trials]
    assert states.count(TrialState.COMPLETE) == 8 and TrialState.RUNNING not in states
    assert len({t.number for t in trials}) == len(trials)
    lost = [t for t in trials if t.state == TrialState.FAIL and t.user_attrs["worker"].endswith(f":{victim.pid}")]
    assert len(lost) == 1  # failed by the survivors' heartbeat check, and run again
    assert any(t.system_attrs.get("failed_trial") == lost[0].number for t in trials if t.state == TrialState.COMPLETE)


def test_a_dead_local_worker_is_replaced_and_the_budget_met(in_tmp):
    path = write_study(in_tmp, trials=5)
    run = lotr(in_tmp, "tune", "run", path, "--workers", 2)
    url = f"journal:{in_tmp}/f.journal"
    trial = wait_for(lambda: playing(url, "f", within=EARLY), 180, "a worker in the first half of a trial", run)
    os.kill(int(trial.user_attrs["worker"].rsplit(":", 1)[1]), signal.SIGKILL)
    code, _, err = run.finish(300)
    assert code == 0, err
    assert "died" in err
    trials = assert_record_is_true(url, "f", 300)
    assert sum(t.state == TrialState.COMPLETE for t in trials) == 5 and trials[trial.number].state == TrialState.FAIL
