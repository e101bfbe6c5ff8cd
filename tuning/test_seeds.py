"""The test-seed ledger: one test seed serves one claim.

A study's test figure is only honest if its test deals were never seen while
choosing: not by this study before a change, not by another study. The same
holds for the seed of a study's out-of-sample replicate (``[report]
replicate``, ``lotr tune run --replicate``). The
ledger (``test-seeds.json``) lists every test seed a study has been tested
on: the study, a fingerprint of its study file, the date and the result.
``lotr tune run`` and ``lotr tune retest`` refuse a test seed the ledger gives
to another claim, in one line; ``--reuse-test-seed REASON`` overrides and the
reason is recorded. Re-running the same study file unchanged replays its own
claim and is allowed (it adds nothing to the ledger).

Where the ledger is: ``test-seeds.json`` in the study file's folder or the
nearest folder above it that holds one (not above the repository the file is
in, nor in or above a folder anyone may write to, such as ``/tmp``); none
found, it is created beside the study file. Where the command runs
does not matter: a study file is governed by its own ledger.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import hashlib
import json
import os
import tomllib
from collections.abc import Iterator
from pathlib import Path

from agents.specs import SpecError
from gamecore.atomic import write_atomically
from gamecore.folders import own_folders
from tuning.study_spec import StudySpec

LEDGER = "test-seeds.json"
NOT_THE_CLAIM = {"report": None, "mlflow": None,  # what a study file may change without changing its claim
                 "search": ("workers", "storage", "executor", "ray_address", "heartbeat_interval", "grace_period",
                            "timeout")}


def ledger_path(study_file: str | Path) -> Path:
    """The ledger that governs ``study_file`` (see the module docstring)."""
    folder = Path(study_file).resolve().parent
    for candidate in own_folders(folder):
        if (candidate / LEDGER).is_file():
            return candidate / LEDGER
        if (candidate / ".git").exists():  # a repository's ledger is inside it
            break
    return folder / LEDGER


def fingerprint(study_file: str | Path) -> str:
    """A hash of what a study file claims: its contents without comments, [report], [mlflow] and the [search]
    keys that say where and how fast it runs."""
    with open(study_file, "rb") as file:
        data = tomllib.load(file)
    for table, keys in NOT_THE_CLAIM.items():
        if keys is None:
            data.pop(table, None)
        else:
            for key in keys:
                data.get(table, {}).pop(key, None)
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def read_ledger(path: Path) -> list[dict]:
    """The ledger's entries (none when it does not exist); SpecError when it is not a ledger."""
    if not path.is_file():
        return []
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))["uses"]
    except (ValueError, KeyError, TypeError) as error:
        raise SpecError(f"{path}: not a test-seed ledger ({error}); restore it from version control") from None
    return entries


def check_test_seed(spec: StudySpec, reuse_reason: str | None = None) -> None:
    """Refuse (SpecError, one line) a study whose test seed the ledger gives to another claim, unless
    ``reuse_reason`` says why it may be reused."""
    if _tests(spec):
        check_seed(spec, spec.test_seed, "[test] seed", reuse_reason)


def check_seed(spec: StudySpec, seed: int, key: str, reuse_reason: str | None = None) -> None:
    """Refuse (SpecError, one line) ``seed``, the study file's ``key``, when the ledger gives it to another claim
    (another study, or this study before its file changed), unless ``reuse_reason`` says why."""
    path = ledger_path(spec.source)
    entries = read_ledger(path)
    uses = [e for e in entries if e["seed"] == seed]
    mine = fingerprint(spec.source)
    if not uses or reuse_reason or any(e["study"] == spec.name and e["fingerprint"] == mine for e in uses):
        return
    first = uses[0]
    fresh = fresh_test_seed(spec.source, seed)
    whose = "this study before its file changed" if first["study"] == spec.name else f"study {first['study']}"
    raise SpecError(f"{spec.source}: {key} = {seed} was used by {whose} ({first['date']}: "
                    f"{first['result']}); a test seed serves one claim: choose one not in {path} (e.g. {fresh}), or "
                    "give --reuse-test-seed REASON")


def check_one_replicate(replica: StudySpec, reuse_reason: str | None = None) -> None:
    """Refuse (SpecError, one line) a second out-of-sample replicate of a study on another seed than its first one
    (its ``[report] replicate`` changed after a run: a second chance at the same claim), unless ``reuse_reason``."""
    study = replica.name.rpartition("-seed")[0]
    earlier = [e for e in read_ledger(ledger_path(replica.source))
               if e["study"].rpartition("-seed")[0] == study and e["seed"] != replica.seed]
    if earlier and not reuse_reason:
        raise SpecError(f"{replica.source}: study {study} already has an out-of-sample replicate on seed "
                        f"{earlier[0]['seed']} ({earlier[0]['date']}); a second one on {replica.seed} would be another "
                        "chance at the same claim: give --reuse-test-seed REASON to run it anyway")


def fresh_test_seed(study_file: str | Path, wanted: int) -> int:
    """``wanted``, or the first seed after it that the ledger governing ``study_file`` has not used."""
    used = {entry["seed"] for entry in read_ledger(ledger_path(study_file))}
    return next(seed for seed in range(wanted, wanted + len(used) + 1) if seed not in used)


def record_test(spec: StudySpec, result: str, reuse_reason: str | None = None, note: str | None = None) -> None:
    """Add the study's test (``result``, one line) to its ledger, unless the same study file was already
    tested on that seed."""
    if _tests(spec):
        record_seed(spec, spec.test_seed, result, reuse_reason, note)


def record_seed(spec: StudySpec, seed: int, result: str, reuse_reason: str | None = None,
                note: str | None = None) -> None:
    """Add the study's claim on ``seed`` (``result``, one line) to its ledger, unless the same study file already
    holds it."""
    path = ledger_path(spec.source)
    with _locked(path.parent):  # two studies told at once both land
        entries = read_ledger(path)
        mine = fingerprint(spec.source)
        if any(e["seed"] == seed and e["study"] == spec.name and e["fingerprint"] == mine for e in entries):
            return
        entry = {"seed": seed, "study": spec.name, "file": _shown(spec.source, path), "fingerprint": mine,
                 "date": datetime.date.today().isoformat(), "result": result}
        if reuse_reason:
            entry["reused_because"] = reuse_reason
        if note:
            entry["note"] = note
        write_ledger(path, [*entries, entry])


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on ``folder`` (flock on the folder itself: no lock file is left behind)."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def write_ledger(path: Path, entries: list[dict]) -> None:
    """Write the ledger whole (one entry a line, so that a diff shows each use)."""
    lines = ",\n".join("  " + json.dumps(entry, ensure_ascii=False) for entry in entries)
    write_atomically(path, f'{{"uses": [\n{lines}\n]}}\n')


def _tests(spec: StudySpec) -> bool:
    """Whether the study plays test deals from a study file on disk (an in-memory spec has no ledger)."""
    return spec.validation_top_k > 0 and spec.test_games > 0 and Path(spec.source).is_file()


def _shown(study_file: str, ledger: Path) -> str:
    """The study file's path relative to the ledger's folder's parent (``studies/lotr/x.toml``), else as given."""
    try:
        return Path(study_file).resolve().relative_to(ledger.resolve().parent.parent).as_posix()
    except ValueError:
        return str(study_file)
