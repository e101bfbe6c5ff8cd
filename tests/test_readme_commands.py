"""Every command the README and the documentation (``docs/*.md``) show runs as written.

Running them all would take hours (a million-game evaluation, the thesis's
studies), so each is checked as far as it is cheap (the choice, and the
seconds, in each test's docstring): every ``lotr`` / ``gametune`` command
parses with the command line as written (the optional ``[...]`` parts left
out) and names study files and configurations that exist, every benchmark and
module exists, every other program is one the documents are known to use;
the cheap commands (``gametune agents``, ``--help``, ``tune init``, the
``--dry-run``) run; the main job's command runs on a study file of its name
made small (``conftest.finished_main_job``), and the commands that read its
results run as written on them: the export here, ``mlflow ui`` and
``optuna-dashboard`` in ``tests/test_browser.py``; the README's five-command
quickstart runs whole in an empty folder.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAIN_JOB = "lotr tune run studies/lotr/mcts-hpo.toml"
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
QUICKSTART = "## A study of your own in five commands"
# programs the documents run besides lotr / gametune / python: checked as far as a shell would parse them
OTHER_PROGRAMS = {"mlflow", "optuna-dashboard", "ray", "createdb", "export", "mkdocs", "git", "."}


def commands(path: Path = ROOT / "README.md") -> list[str]:
    """A document's commands as written: the lines of its ``sh`` blocks (each command of an ``&&`` chain), and the
    ``lotr`` / ``gametune`` / ``python benchmarks`` commands quoted in its tables; comments dropped."""
    text = path.read_text()
    blocks = re.findall(r"^ *```(?:sh|bash)\n(.*?)^ *```", text, re.DOTALL | re.MULTILINE)
    lines = [line for block in blocks for line in block.replace("\\\n", " ").splitlines()]
    lines += [quoted for row in text.splitlines() if row.startswith("|")
              for quoted in re.findall(r"`((?:lotr |gametune |python benchmarks/)[^`]*)`", row)]
    found = []
    for line in lines:
        code = re.split(r"\s+#\s", line)[0].strip()
        found += [part.strip() for part in code.split("&&") if part.strip()]
    return found


def readme_commands() -> list[str]:
    """The README's commands (``commands``)."""
    return commands(ROOT / "README.md")


def all_commands() -> list[tuple[str, str]]:
    """(document, command) for the README and every page of docs/."""
    return [(path.relative_to(ROOT).as_posix(), command) for path in DOCUMENTS for command in commands(path)]


def command_starting(prefix: str) -> str:
    """The README's one command that starts with ``prefix``."""
    found = [c for c in readme_commands() if c.startswith(prefix)]
    assert len(found) == 1, f"README: {len(found)} commands start with {prefix!r}: {found}"
    return found[0]


def without_options(command: str) -> list[str]:
    """The command's words, its optional ``[...]`` parts left out."""
    return shlex.split(re.sub(r"\s*\[[^\]]*\]", "", command))


def _program(words: list[str]) -> tuple[str, list[str]]:
    """The program and its arguments, leading ``NAME=value`` assignments dropped."""
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        words = words[1:]
    return (words[0], words[1:]) if words else ("", [])


def _extras() -> set[str]:
    return set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])


def _check_other(where: str, program: str, args: list[str]) -> None:
    """A command that is not the tool's: the files and modules it names exist, pip installs what the project
    offers, and any other program is one of ``OTHER_PROGRAMS``."""
    if program.endswith("python") or program.startswith("python3"):
        if args[:1] == ["-m"]:
            module = args[1]
            assert (ROOT / (module.replace(".", "/") + ".py")).is_file() or module in ("pytest", "venv", "mkdocs"), \
                f"{where}: no module {module}"
        elif args:
            assert (ROOT / args[0]).is_file(), f"{where}: no such script {args[0]}"
        return
    if program == "pip":
        assert args[0] == "install", where
        for arg in args[1:]:
            if arg == "-e" or re.fullmatch(r"[a-z0-9-]+==[0-9.]+", arg):
                continue
            if match := re.fullmatch(r"\.\[([a-z,]+)\]", arg):
                assert set(match[1].split(",")) <= _extras(), f"{where}: no such extra in {arg}"
            else:
                assert (ROOT / arg).exists(), f"{where}: nothing to install at {arg}"
        return
    assert program in OTHER_PROGRAMS, f"{where}: an unknown program {program!r}: run it in a test, or add it here"


def test_every_command_of_the_readme_and_the_docs_parses_and_names_files_that_exist():
    """Under a second: each ``lotr`` / ``gametune`` command through the command line's own parser (a flag or a
    choice the tool no longer has fails here), its ``studies/`` files and configurations on disk; benchmarks,
    modules, pip's targets and every other program checked."""
    from tuning.cli import build_parser

    found = all_commands()
    tool = [(where, c) for where, c in found if c.split()[0] in ("lotr", "gametune")]
    assert len(tool) > 60 and MAIN_JOB in readme_commands()
    for where, command in found:
        program, args = _program(without_options(command))
        place = f"{where}: {command!r}"
        if program not in ("lotr", "gametune"):
            _check_other(place, program, args)
            continue
        try:
            build_parser(args[0] if args else None).parse_args(args)
        except SystemExit as stop:
            if stop.code != 0 or "--help" not in args:
                pytest.fail(f"{place} does not parse")
        for word, after in zip(args, [*args[1:], ""]):
            if word.startswith("studies/"):
                assert glob.glob(str(ROOT / word)), f"{place}: no {word}"
            if word == "--config" and after.startswith("studies/"):
                assert (ROOT / after).is_file(), f"{place}: no {after}"


CHEAP = ("gametune --help", "gametune agents ", "gametune tune init ", "lotr tune init ")


@pytest.mark.slow  # a process for each command of the documents: 10 s in all
def test_the_cheap_commands_run_as_written(tmp_path):
    """A few seconds each: ``gametune --help``, every ``gametune agents ...`` and ``tune init ...`` of the
    documents, run as written in an empty folder (``tune init`` writes its study file there, which then parses)."""
    cheap = sorted({c for _, c in all_commands() if c.startswith(CHEAP)})
    assert any(c.startswith("gametune agents loveletter mcts") for c in cheap)
    for command in cheap:
        program, args = _program(without_options(command))
        folder = tmp_path / str(abs(hash(command)))
        folder.mkdir()
        done = subprocess.run([str(Path(sys.executable).with_name(program)), *args], cwd=folder,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, f"{command}: {done.stderr[-2000:]}"
        assert done.stdout.strip(), command
        for written in folder.glob("*.toml"):
            from tuning.study_file import load_study

            load_study(written)


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


def quickstart() -> list[str]:
    """The README's five-command quickstart: the commands of the first ``sh`` block under its heading."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index(QUICKSTART):]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)[1]
    return [re.split(r"\s+#\s", line)[0].strip() for line in block.splitlines() if line.strip()]


@pytest.mark.slow
def test_the_readme_s_quickstart_runs_as_written(tmp_path):
    """About two minutes: the README's five commands on Love Letter, one after another in an empty folder, as
    written: the agent's parameters, a study file written, run (4 trials, validation, test, export), its export
    played against the DP player from both seats, and its report."""
    steps = quickstart()
    assert len(steps) == 5 and [s.split()[1] for s in steps] == ["agents", "tune", "tune", "eval", "report"]
    env = {key: value for key, value in os.environ.items() if key != "MLFLOW_TRACKING_URI"}
    for command in steps:
        program, args = _program(shlex.split(command))
        done = subprocess.run([str(Path(sys.executable).with_name(program)), *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=900, check=False)
        assert done.returncode == 0, f"{command}: {done.stderr[-3000:]}"
    assert (tmp_path / "loveletter-mcts-random-best.toml").is_file() and (tmp_path / "report.md").is_file()
    assert "`loveletter-mcts-random`" in (tmp_path / "report.md").read_text()
