"""Every command the README shows runs as written.

Running them all would take hours (a million-game evaluation, the thesis's
studies), so each is checked as far as it is cheap (the choice, and the
seconds, in each test's docstring): every ``lotr`` command parses with the
command line as written (the optional ``[...]`` parts left out) and names
study files that exist, every benchmark exists, the ``--dry-run`` ones run;
the main job's command runs on a study file of its name made small
(``conftest.finished_main_job``), and the commands that read its results run
as written on them: the export here, ``mlflow ui`` and ``optuna-dashboard`` in
``tests/test_browser.py``.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAIN_JOB = "lotr tune run studies/lotr/mcts-hpo.toml"


def readme_commands() -> list[str]:
    """The README's commands as written: the lines of its ``sh`` blocks (each command of an ``&&`` chain), and the
    ``lotr`` commands quoted in its tables; comments dropped."""
    text = (ROOT / "README.md").read_text()
    lines = [line for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL) for line in block.splitlines()]
    lines += [quoted for row in text.splitlines() if row.startswith("|") for quoted in re.findall(r"`(lotr [^`]+)`", row)]
    commands = []
    for line in lines:
        code = re.split(r"\s+#\s", line)[0].strip()
        commands += [part.strip() for part in code.split("&&") if part.strip()]
    return commands


def command_starting(prefix: str) -> str:
    """The README's one command that starts with ``prefix``."""
    found = [c for c in readme_commands() if c.startswith(prefix)]
    assert len(found) == 1, f"README: {len(found)} commands start with {prefix!r}: {found}"
    return found[0]


def without_options(command: str) -> list[str]:
    """The command's words, its optional ``[...]`` parts left out."""
    return shlex.split(re.sub(r"\s*\[[^\]]*\]", "", command))


def test_every_lotr_command_of_the_readme_parses_and_names_files_that_exist():
    """Under a second: each ``lotr`` command through the command line's own parser (a flag or a choice the tool
    no longer has fails here), its ``studies/`` files and benchmarks on disk."""
    from tuning.cli import build_parser

    commands = readme_commands()
    lotr = [c for c in commands if c.startswith("lotr ")]
    assert len(lotr) > 30 and MAIN_JOB in commands
    for command in lotr:
        words = without_options(command)[1:]
        try:
            build_parser(words[0]).parse_args(words)
        except SystemExit:
            pytest.fail(f"README: {command!r} does not parse")
        for word in words:
            if word.startswith("studies/"):
                assert glob.glob(str(ROOT / word)), f"README: {command!r}: no {word}"
    for command in commands:
        if command.startswith("python benchmarks/"):
            assert (ROOT / without_options(command)[1]).is_file(), f"README: {command!r}: no such benchmark"


def test_the_readme_s_dry_run_runs_as_written(tmp_path):
    """A few seconds: ``lotr tune run studies/lotr/mcts-hpo.toml --dry-run``, from the repository, creates nothing."""
    command = command_starting("lotr tune run studies/lotr/mcts-hpo.toml --dry-run")
    env = {key: value for key, value in os.environ.items() if key != "MLFLOW_TRACKING_URI"}
    env["MLFLOW_TRACKING_URI"] = f"sqlite:///{tmp_path}/mlflow.db"  # not the repository's own mlflow.db
    before = sorted(p.name for p in ROOT.iterdir())
    done = subprocess.run([str(Path(sys.executable).with_name("lotr")), *shlex.split(command)[1:]], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and "space:" in done.stdout, done.stderr
    assert sorted(p.name for p in ROOT.iterdir()) == before and not list(tmp_path.iterdir())


@pytest.mark.slow
def test_the_main_job_and_its_export_run_as_written(finished_main_job):
    """The main job (``conftest.finished_main_job``, about 35 s, shared with the browser test), then the README's
    two ``lotr tune export mcts-hpo ...`` commands in its folder (a few seconds each): the chosen trial again."""
    assert MAIN_JOB in readme_commands()  # the install line's last command
    exports = [c for c in readme_commands() if c.startswith("lotr tune export mcts-hpo ")]
    assert len(exports) == 2  # by name here, and by its store's path
    for command in exports:
        (finished_main_job / "best.json").unlink(missing_ok=True)
        done = subprocess.run([str(Path(sys.executable).with_name("lotr")), *shlex.split(command)[1:]],
                              cwd=finished_main_job, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        exported = json.loads((finished_main_job / "best.json").read_text())["metadata"]
        assert exported["study"] == "mcts-hpo" and exported["trial"] == 0 and exported["test_games"] == 200
