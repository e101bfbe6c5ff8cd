"""The documentation site (``mkdocs.yml``, ``docs/``): it builds with warnings as errors, every link stays inside
the repository, the generated reference pages are what the code's own tables write, and every Python example
runs (its shell commands: ``tests/test_readme_commands.py``)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = "<!-- not run: "  # before a Python block: why a test does not run it (it is compiled all the same)
IN_MAIN_JOB = "<!-- run in: the main job's folder -->"  # before a Python block that reads the main job's stores


def test_mkdocs_builds_the_site_with_warnings_as_errors(tmp_path):
    """About 5 s: ``mkdocs build --strict`` (every page in the navigation, every link and anchor found, the API
    reference's modules read) into a folder of its own, with no warning printed."""
    if importlib.util.find_spec("mkdocs") is None:
        if os.environ.get("CI"):  # .ci/run installs the docs extra: the site's only build there is this test's
            pytest.fail('mkdocs is not installed in CI: .ci/run installs ".[test,docs]"')
        pytest.skip('mkdocs is not installed: pip install -e ".[docs]" (.ci/run does)')
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").is_file() and (tmp_path / "site" / "study-file.html").is_file()


def links(text: str) -> list[str]:
    """A Markdown text's link and image targets (``[text](target)``, ``![alt](target)``), code left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", text)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_link_resolves_to_a_file_of_the_repository(document):
    """Each relative link of the README and of every page names a file of this repository (its anchor aside); no
    link leaves it (no web address, no absolute path, no ``../shared``)."""
    text = document.read_text()
    assert "../shared" not in text, f"{document.name}: names ../shared, which a clone does not have"
    for target in links(text):
        path = target.split("#")[0]
        assert "://" not in target and not target.startswith(("/", "mailto:")), f"{document.name}: {target}"
        if not path:
            continue  # an anchor of the same page (mkdocs build --strict checks anchors)
        resolved = (document.parent / path).resolve()
        assert resolved.is_relative_to(ROOT), f"{document.name}: {target} leaves the repository"
        assert resolved.is_file(), f"{document.name}: {target} names no file"


def test_the_generated_reference_pages_are_what_the_code_writes():
    """docs/study-file.md and docs/agent-parameters.md, byte for byte as ``python -m tuning.reference_pages``
    writes them from the validator's and the agents' own tables."""
    from tuning.reference_pages import PAGES

    for page, written in PAGES.items():
        assert (ROOT / "docs" / page).read_text() == written() + "\n", (
            f"docs/{page} differs from the code's tables: write it again with python -m tuning.reference_pages")


def test_the_study_file_reference_lists_every_key_of_the_validator_with_its_default():
    """Every top-level key, every key of every section with the default the validator fills in, every [report]
    key and kind: each has its meaning, and the page shows it."""
    from tuning.reference_pages import KIND_MEANINGS, REPORT_MEANINGS, TOP_MEANINGS, _value
    from tuning.report_keys import REPORT_KEYS, REPORT_KINDS
    from tuning.study_file import SECTIONS, TOP_KEYS
    from tuning.study_template import MEANINGS

    assert set(TOP_MEANINGS) == set(TOP_KEYS) - set(SECTIONS)
    assert set(REPORT_MEANINGS) == set(REPORT_KEYS) and set(KIND_MEANINGS) == set(REPORT_KINDS)
    page = (ROOT / "docs" / "study-file.md").read_text()
    for section, defaults in SECTIONS.items():
        body = page[page.index(f"## `[{section}]`"):]
        body = body[:body.index("\n## ")]
        for key, default in defaults.items():
            assert f"| `{key}` | {_value(default)} | " in body and MEANINGS[section][1][key][:12].replace("|", "\\|") in body, \
                f"[{section}] {key}"
    for key in (*TOP_KEYS, *REPORT_KEYS):
        assert f"`{key}`" in page or f"`[{key}]`" in page, key


def python_blocks() -> list[tuple[str, int, str, str]]:
    """Every ```python block of the pages: (page, index, what precedes it on its line before, its code)."""
    found = []
    for document in DOCUMENTS:
        text = document.read_text()
        for index, match in enumerate(re.finditer(r"(?:^(<!--[^\n]*-->)\n)?^```python\n(.*?)^```", text,
                                                  re.DOTALL | re.MULTILINE)):
            found.append((document.relative_to(ROOT).as_posix(), index, match[1] or "", match[2]))
    return found


def test_every_python_example_compiles_and_says_why_it_is_not_run():
    """Every Python block is valid Python; one that no test runs says why, on the line before it."""
    blocks = python_blocks()
    assert len(blocks) >= 10
    for page, index, marker, code in blocks:
        compile(code, f"{page} block {index}", "exec")
        if marker.startswith(NOT_RUN):
            assert len(marker) > len(NOT_RUN) + 10, f"{page} block {index}: say why it is not run"


def _run(code: str, folder: Path) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "MLFLOW_TRACKING_URI"}
    return subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=900, check=False)


RUN = [(page, index, code) for page, index, marker, code in python_blocks() if not marker]


@pytest.mark.slow
@pytest.mark.parametrize("page, index, code", RUN, ids=[f"{page}-{index}" for page, index, _ in RUN])
def test_a_python_example_runs_as_written(page, index, code, tmp_path):
    """Seconds each once compiled: the example as written, in an empty folder, in a process of its own."""
    if "sb3_contrib" in code:
        pytest.importorskip("sb3_contrib", reason='pip install -e ".[ppo]"')
    if "pyspiel" in code:
        pytest.importorskip("pyspiel", reason='pip install -e ".[openspiel]"')
    done = _run(code, tmp_path)
    assert done.returncode == 0, f"{page} block {index}:\n{done.stderr[-3000:]}"


@pytest.mark.slow
def test_the_examples_that_read_the_main_job_run_in_its_folder(finished_main_job):
    """A few seconds: the examples marked to run in the main job's folder (MLflow's ``search_runs``,
    ``optuna.load_study``), there, after ``conftest.finished_main_job``."""
    blocks = [(page, index, code) for page, index, marker, code in python_blocks() if marker == IN_MAIN_JOB]
    assert blocks
    for page, index, code in blocks:
        done = _run(code, finished_main_job)
        assert done.returncode == 0, f"{page} block {index}:\n{done.stderr[-3000:]}"
        assert "chosen trial 0" in done.stdout
