"""``lotr tune retest``: play a study's export again on the study file's (fresh) test seed.

A claim whose test seed served another claim first is tested again on a seed
of its own: the export its ``[report] config`` names is played on the study
file's test deals (its ``[test]`` games and seed, its seats and the export's
game options). The new figure replaces the export's and the record's test
figure; the earlier one stays beside it (``earlier_tests``, with why it was
replaced), and the ledger records the new use (``tuning.test_seeds``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import tomli_w

from agents.evaluation import evaluate_setup
from agents.setup import Setup
from agents.specs import SpecError
from gamecore.atomic import write_atomically
from tuning.selection import describe, exported_figures
from tuning.study_results import record_path
from tuning.study_spec import StudySpec
from tuning.test_seeds import check_test_seed, record_test


def retest_export(spec: StudySpec, why: str, docs: Path | None = None, workers: int = 1,
                  reuse_test_seed: str | None = None, export: str | None = None) -> str:
    """Test the study's export on its study file's test seed (see the module docstring); ``why`` says why the
    earlier test is replaced; the study's record under ``docs`` (the report's folder) changes with the export.
    Returns the new figure in one line; nothing is played when the export already holds a test on that seed.
    ``export``: the export to play when the study's ``[report] config`` names none."""
    config = export or spec.report.get("config")
    if not config:
        raise SpecError(f"{spec.source}: its [report] config names no export; name it with --export PATH")
    check_test_seed(spec, reuse_test_seed)
    data = Setup.read_mapping(config)
    metadata = data.get("metadata", {})
    if metadata.get("study") != spec.name:
        raise SpecError(f"{config}: the export of study {metadata.get('study')!r}, not of {spec.name}")
    tested = exported_figures(metadata)["test"]
    if tested["seed"] == spec.test_seed and tested["games"] == _games(spec, metadata):
        return f"{config}: already tested on seed {spec.test_seed}: {describe(tested)}"
    print(f"[{spec.name}] retest: {config} on {spec.test_games:,} deals of seed {spec.test_seed}"
          f"{spec.seats_label(spec.test_games)}", file=sys.stderr, flush=True)
    played = evaluate_setup(Setup.load(config), games=spec.test_games, seed=spec.test_seed,
                            options=metadata.get("options") or dict(spec.options), workers=workers, progress=True,
                            seats=spec.seat, executor_kind=spec.executor, address=spec.ray_address)
    test = {"win_rate": played.win_rate, "wilson_95": list(played.wilson_95), "games": played.games,
            "seed": spec.test_seed}
    if played.seats:
        test["seats"] = played.seats
    earlier = {**tested, "replaced_because": why}
    metadata["earlier_tests"] = [*metadata.get("earlier_tests", []), earlier]
    metadata.pop("test_seats", None)
    metadata.update({f"test_{field}": value for field, value in test.items()})
    write_atomically(config, tomli_w.dumps(data))
    if docs is not None:
        _retest_record(record_path(spec.name, docs), test, earlier)
    result = f"trial {metadata['trial']} (retest of its export): {describe(test)}"
    record_test(spec, result, reuse_test_seed, note=f"replaces a test on seed {earlier['seed']}: {why}")
    return result


def _games(spec: StudySpec, metadata: dict) -> int:
    """The games a test of the study plays: its deals in each seat the export was tested in."""
    return spec.test_games * max(1, len(metadata.get("test_seats", {})))


def _retest_record(path: Path, test: dict, earlier: dict) -> None:
    """The same change in the study's record (``docs/records/<name>.json``), when there is one."""
    if not path.is_file():
        return
    data = json.loads(path.read_text())
    for trial in data["trials"]:
        if trial.get("chosen"):
            chosen = trial["chosen"]
            chosen["earlier_tests"] = [*chosen.get("earlier_tests", []),
                                       {**chosen["test"], "replaced_because": earlier["replaced_because"]}]
            chosen["test"] = test
    write_atomically(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
