"""``lotr report`` as a function of the repository: the committed report is what the study files, records and
exports give, on any machine and at any time, and each section's kind is declared and validated."""

import dataclasses
import difflib
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from agents.setup import Setup
from gamecore.errors import SpecError
from tuning.report import RENDERERS, header, write_report
from tuning.report_figures import curves_figure
from tuning.report_keys import REPORT_KINDS
from tuning.report_sections import percent, sections
from tuning.study_file import load_study, parse_study, study_files
from tuning.study_results import Measured, StudyRun, read_record, write_record

REPOSITORY = Path(__file__).resolve().parent.parent


def _repository_files(folder: str) -> list[Path]:
    """The files of ``folder`` a fresh clone of the working tree would hold: tracked or not ignored (no stores, no
    trial folders, no exports under a default name); every file when this is not a git work tree."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", folder],
                            cwd=REPOSITORY, capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        return [path.relative_to(REPOSITORY) for path in (REPOSITORY / folder).rglob("*") if path.is_file()]
    return [Path(name) for name in dict.fromkeys(listed.stdout.splitlines()) if (REPOSITORY / name).is_file()]


@pytest.mark.slow  # lotr report over every record and figure: 25 s
def test_the_committed_report_is_what_lotr_report_writes_from_the_repository_alone(tmp_path):
    """studies/ and docs/ copied as a fresh clone has them (no store anywhere), ``lotr report`` run there with this
    repository's code: docs/results.md, its figures and its records come out byte for byte as they are."""
    for name in _repository_files("studies") + _repository_files("docs"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPOSITORY / name, tmp_path / name)
    before = {path.relative_to(tmp_path): path.read_bytes() for path in (tmp_path / "docs").rglob("*")
              if path.is_file()}
    done = subprocess.run([sys.executable, "-m", "tuning.cli", "report"], cwd=tmp_path, capture_output=True,
                          text=True, check=False, env={"PATH": "", "PYTHONPATH": str(REPOSITORY), "HOME": str(tmp_path),
                                                       "MPLBACKEND": "Agg"})
    assert done.returncode == 0, done.stderr
    after = {path.relative_to(tmp_path): path.read_bytes() for path in (tmp_path / "docs").rglob("*")
             if path.is_file()}
    report = Path("docs/results.md")
    diff = "".join(difflib.unified_diff(before[report].decode().splitlines(keepends=True),
                                        after[report].decode().splitlines(keepends=True), "committed", "written"))
    assert after[report] == before[report], f"regenerate docs/results.md with lotr report:\n{diff[:6000]}"
    changed = sorted(str(name) for name in after if before.get(name) != after[name])
    assert changed == [], f"lotr report wrote files that differ from the repository's: {changed}"


def test_every_kind_of_section_has_its_renderer():
    assert list(RENDERERS) == list(REPORT_KINDS)


def _study(report: str) -> dict:
    return tomllib.loads('name = "s"\nsetup = "random-mcts-mcts"\n[space]\nbudget = { int = [1, 2] }\n'
                        f"[report]\n{report}\n")


@pytest.mark.parametrize("report, message", [
    ('kind = "chart"\nsection = "x"',
     "s.toml: report.kind = 'chart' is invalid; expected one of table, seats, margins, bounds, best, pareto, ablation, maxima"),
    ('kind = "best"\nsection = "x"\ncolumns = ["setup"]',
     ("s.toml: report.columns is a key of kind table, ablation, maxima, not of kind = 'best'; best takes kind, section, "
      "title, order, "
     "note, margin, config, published, exclude")),
    ('section = "x"\nbounds = { "mcts" = "rl" }', "s.toml: report.bounds is a key of kind bounds, not of kind = 'table'"),
    ('kind = "seats"\npublished = { experiment = "x" }', "s.toml: report.section is missing"),
    ('kind = 3\nsection = "x"', "s.toml: report.kind = 3 is invalid; expected a str"),
    ('section = "x"\nlengths = { difficulty = "hard" }',
     "s.toml: report.lengths names difficulty, not a column of report.columns (setup)"),
    ('kind = "ablation"\nsection = "x"\nby = "rules"',
     ("s.toml: report.by = 'rules' is invalid; expected the searched choice whose values remove an ingredient each, "
      "one of: none searched")),
    ('section = "x"\nreplicate = -1', "s.toml: report.replicate = -1 is invalid; expected a seed in [0, 2^32)"),
])
def test_a_sections_kind_is_declared_and_takes_its_own_keys(report, message):
    with pytest.raises(SpecError) as caught:
        parse_study(_study(report), "s.toml")
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_a_report_table_without_a_kind_is_a_table_and_every_shipped_one_names_its_kind():
    assert parse_study(_study('section = "x"\ncolumns = ["setup"]'), "s.toml").report["kind"] == "table"
    for path in study_files(REPOSITORY / "studies"):
        if "\n[report]" in path.read_text():
            assert "kind" in tomllib.loads(path.read_text())["report"], path.name


def test_the_studies_of_a_section_declare_the_same_kind():
    one = parse_study(_study('kind = "margins"\nsection = "x"\ntitle = "X"'), "one.toml")
    other = parse_study({**_study('section = "x"'), "name": "t"}, "other.toml")
    with pytest.raises(SpecError, match=r"^section 'x': its studies declare different kinds: 'margins' \(one.toml\), "
                                        r"'table' \(other.toml\)$"):
        sections({"s": StudyRun(one, None), "t": StudyRun(other, None)})


def test_the_report_reads_no_earlier_report(tmp_path):
    """A study with neither store, record nor export says "no record", whatever an earlier report said of it; its
    section keeps what its study file says (its note)."""
    shipped = (REPOSITORY / "studies" / "lotr" / "openspiel-check.toml").read_text()
    (tmp_path / "openspiel-check.toml").write_text(shipped)
    (tmp_path / "results.md").write_text("# Results\n\n| `openspiel-check` | 5 | 500 | - | grid |\n\n"
                                         "## An outside check\n\nrun elsewhere: 86.2%\n")
    text = write_report([tmp_path / "openspiel-check.toml"], tmp_path / "results.md", tmp_path).read_text()
    assert "| `openspiel-check` | no record | 500 | - | grid | - |" in text
    section = text[text.index("## An outside check"):]
    assert section.startswith(f"## {load_study(tmp_path / 'openspiel-check.toml').report['title']}\n\n"
                              "Studies: `openspiel-check`: no record.\n\nNot run here: `lotr tune run "
                              f"{(tmp_path / 'openspiel-check.toml').as_posix()}` runs it.\n\n500 hard deals of seed 4242")
    assert "run elsewhere" not in text and "| 5 |" not in text


def test_the_title_names_every_game_of_the_report():
    runs = {spec.name: StudyRun(spec, None) for spec in map(load_study, study_files(REPOSITORY / "studies"))}
    assert header(runs, sections(runs))[0] == ("# Results: this pipeline next to the published studies of The Lord of "
                                               "the Rings: The Card Game, Love Letter and Carcassonne")


def test_a_record_keeps_the_code_version_and_the_learning_curve_and_the_figure_is_drawn_from_it(tmp_path):
    """A trained trial's learning curve (its folder's curve.csv, read with its store) goes into its record; the
    learning curves are drawn from records alone, the same bytes each time, with nothing that changes by machine."""
    from agents.learning.train import TrainingResult
    from tuning.study_results import _curve

    wins = np.array([episode % 3 == 0 for episode in range(200)])
    setup = Setup.parse("random-mcts-mcts", "lotr")
    TrainingResult(setup, wins.astype(np.int8), 50, 1.0, 0.34, 60).write_curve(tmp_path / "curve.csv")  # as trained
    window, read = _curve(tmp_path)
    assert window == 50 and (read == wins).all() and _curve(tmp_path / "untrained") is None
    spec = parse_study({**_study('section = "x"\ncurves = true'), "name": "curved"}, "curved.toml")
    trial = Measured("curved", 0, "random-mcts-mcts", False, {}, {"budget": 1}, setup, 0.5, 0.4, 0.6, 100, 0.001,
                     code_version="abc1234", curve=(window, read))
    write_record(StudyRun(spec, [trial]), tmp_path)
    assert json.loads((tmp_path / "records" / "curved.json").read_text())["trials"][0]["curve"]["window"] == 50
    recorded = read_record(spec, tmp_path)
    [back] = recorded.trials
    assert back.code_version == "abc1234" and back.curve[0] == 50 and (back.curve[1] == wins).all()
    first = curves_figure({"curved": recorded}, tmp_path / "a").read_bytes()
    assert curves_figure({"curved": recorded}, tmp_path / "b").read_bytes() == first
    assert b"atplotlib" not in first  # no Software chunk naming its version


def test_a_record_keeps_the_published_rules_model_each_trial_played(tmp_path):
    """A trial under the published rules keeps, from the moment it runs into its record, the defects its rules
    switched, the published search's flags of the stages it decided and a digest of the code that played them; a
    corrected-rules trial keeps none."""
    from lotr_sim.defects import model_code
    from tuning.worker import played_model

    spec = load_study(REPOSITORY / "studies" / "lotr" / "paper" / "mcts-setups-published.toml")
    setup = spec.setups[0]
    model = played_model(spec, {"difficulty": "hard"}, setup)
    assert model["defects"] == ["list-skip", "late-destroy", "stale-flags", "second-travel", "round-after-win",
                                "unseen-win", "quest-by-name"]
    assert model["search"]["planning"]["budget"] == 40 and model["search"]["planning"]["ppn"] == 1
    assert model["code"] == model_code()
    corrected = load_study(REPOSITORY / "studies" / "lotr" / "paper" / "mcts-setups.toml")
    assert played_model(corrected, {"difficulty": "hard"}, corrected.setups[0]) is None
    trial = Measured(spec.name, 0, setup.short_name, True, spec.trial_options({"difficulty": "hard"}), {}, setup,
                     0.5, 0.4, 0.6, 100, 0.001, model=model)
    write_record(StudyRun(spec, [trial]), tmp_path)
    assert read_record(spec, tmp_path).trials[0].model == model


def test_a_measurement_shown_in_two_tables_is_marked_to_be_counted_once(tmp_path):
    """Table 6.3's budget-200 row under the published rules is Figure 6.2's reduced peak (the same configuration on
    the same deals): the later table says so, so that the two agreements are one."""
    (tmp_path / "docs" / "records").mkdir(parents=True)
    for name in ("mcts-ppn-published", "mcts-budget-published"):
        shutil.copy(REPOSITORY / "studies" / "lotr" / "paper" / f"{name}.toml", tmp_path)
        shutil.copy(REPOSITORY / "docs" / "records" / f"{name}.json", tmp_path / "docs" / "records")
    text = write_report([tmp_path / "mcts-ppn-published.toml", tmp_path / "mcts-budget-published.toml"],
                        tmp_path / "docs" / "results.md", tmp_path).read_text()
    [line] = [line for line in text.splitlines() if line.startswith("Counted once")]
    assert "(random-mcts-mcts / 200 is random-mcts-mcts / on / 20 of *Playouts per node at budget 200 under" in line
    assert text.index("Counted once") > text.index("Table 6.3")


def test_a_table_draws_the_rounds_by_outcome_that_its_records_keep(tmp_path):
    """A section's ``lengths`` draws, for the rows it selects, the rounds their games lasted by outcome (the
    thesis's Figures 3.5, 6.1 and 6.3), from the game's measures that each trial's record keeps."""
    from tuning.report import RENDERERS

    spec = parse_study({**_study('section = "x"\ncolumns = ["budget"]\nlengths = { budget = 2 }'), "name": "long"},
                       "long.toml")
    setup = Setup.parse("random-mcts-mcts", "lotr")
    metrics = {"rounds_by_outcome": {"won": {"3": 40, "4": 10}, "lost by threat": {"9": 50}}}
    trials = [Measured("long", n, "random-mcts-mcts", False, {}, {"budget": n + 1}, setup, 0.5, 0.4, 0.6, 100, 0.001,
                       metrics=metrics) for n in range(2)]
    write_record(StudyRun(spec, trials), tmp_path)
    [recorded] = [read_record(spec, tmp_path)]
    assert [m.metrics for m in recorded.trials] == [metrics, metrics]
    runs = {"long": recorded}
    [section] = sections(runs)
    [drawn] = RENDERERS["table"].figures(section, runs, tmp_path / "figures")
    assert drawn.name == "x-lengths.png" and drawn.stat().st_size > 1000
    again = RENDERERS["table"].figures(section, runs, tmp_path / "again")
    assert again[0].read_bytes() == drawn.read_bytes()  # the same records draw the same bytes


def test_a_seats_section_with_by_turn_draws_and_tables_the_first_agents_lead_from_each_seat(tmp_path):
    """``by_turn`` (the Carcassonne paper's Figure 4): from each seat, the first agent's lead after each round (its
    record's ``score_by_turn``, the first seat's minus the second's, turned round when the agent sat second), at
    the ends of the game's quarters with the rounds ahead and behind, and as a figure drawn the same from the same
    records."""
    from tuning.report import RENDERERS

    spec = load_study(REPOSITORY / "studies/carcassonne/paper/carcassonne-virtual-scores.toml")
    by_turn = {"first": [2.0, 6.0, 9.0, 12.0, 14.0, 15.0, 20.0, 22.0],
               "second": [1.0, 7.0, 3.0, 2.0, 20.0, 16.0, 10.0, 10.0], "lead_sd": [5.0] * 8, "games": [100] * 8}
    seats = {seat: {"wins": 6, "draws": 0, "losses": 4, "games": 10, "win_rate": 0.6, "wilson_95": [0.3, 0.8],
                    "metrics": {"score_by_turn": by_turn}} for seat in ("first", "second")}
    trial = Measured(spec.name, 0, "mcts-star25", False, {"by_turn": True}, {"setup": "mcts-star25"},
                     Setup.parse("mcts-star25", "carcassonne"), 0.6, 0.4, 0.8, 20, 1.0, seats=seats)
    write_record(StudyRun(spec, [trial]), tmp_path)
    runs = {spec.name: read_record(spec, tmp_path)}
    [section] = sections(runs)
    text = "\n".join(RENDERERS["seats"].markdown(section, runs))
    # read after each round (turns 2, 4, 6, 8): first seat's leads -1, +10, -1, +12, each +-0.98; the other seat's
    # games the other way round
    assert "| lead after turn 2 [95% CI] | lead after turn 4 [95% CI] | lead after turn 6 [95% CI] | lead after turn 8" in text
    assert "| mcts-star25 | first | -1.0 [-2.0, -0.0] | +10.0 [+9.0, +11.0] | -1.0 [-2.0, -0.0] | +12.0 [+11.0, +13.0] | 2 / 2 of 4 |" in text
    assert "| mcts-star25 | second | +1.0 [+0.0, +2.0] | -10.0 [-11.0, -9.0] | +1.0 [+0.0, +2.0] | -12.0 [-13.0, -11.0] | 2 / 2 of 4 |" in text
    [drawn] = RENDERERS["seats"].figures(section, runs, tmp_path / "figures")
    assert drawn.name == "carcassonne-virtual-scores-by-turn.png" and drawn.stat().st_size > 1000
    assert RENDERERS["seats"].figures(section, runs, tmp_path / "again")[0].read_bytes() == drawn.read_bytes()
    plain = dataclasses.replace(section, by_turn=False)
    assert RENDERERS["seats"].figures(plain, runs, tmp_path / "none") == []
    assert "lead" not in "\n".join(RENDERERS["seats"].markdown(plain, runs))


def _maximum_run(objectives: list[float], repeated: int = 0) -> StudyRun:
    """``rl-hpo-thesis-one-published`` with trials of these best windows (their networks at 90% on 2,000 deals), each
    of its own parameters, and ``repeated`` more trials with the first one's parameters and window."""
    spec = load_study(Path(__file__).resolve().parent.parent / "studies/lotr/paper/rl-hpo-thesis-one-published.toml")
    trials = [Measured(study=spec.name, number=n, label="random-rl-random", oracle=False, options={},
                       params={"questing.lr": 8e-4, "questing.neurons": 100 + n, "encoding": 2}, config=spec.setup,
                       win_rate=0.9, low=0.88, high=0.92, games=2000, seconds_per_game=0.01, training_seconds=20.0,
                       objective=value) for n, value in enumerate(objectives)]
    trials += [dataclasses.replace(trials[0], number=len(objectives) + k) for k in range(repeated)]
    return StudyRun(spec, trials)


@pytest.mark.parametrize("objectives, verdict", [
    ([0.70, 0.80, 0.90, 0.95, 0.96], "Table 6.7's best, 92.9%, is within our interval: reached"),
    ([0.60, 0.70, 0.80, 0.85, 0.88], "Table 6.7's best, 92.9%, is above our interval: not reached by our study"),
    ([0.93, 0.94, 0.95, 0.97, 0.96], "Table 6.7's best, 92.9%, is below our interval: ours is higher"),
])
def test_a_maxima_section_sets_the_thesis_s_best_window_against_a_bootstrap_of_ours(objectives, verdict):
    """Kind maxima (the thesis's RL tuning): the published rows the section selects, best first, beside our trials
    ranked by the same objective; our maximum's bootstrap interval over the trials tops at the observed maximum."""
    from tuning.report_maxima import maxima_section, maximum_interval

    run = _maximum_run(objectives)
    low, high = maximum_interval(np.array(objectives))
    assert high == max(objectives) and low < high
    (section,) = sections({run.spec.name: run})
    text = "\n".join(maxima_section(section, {run.spec.name: run}))
    assert verdict in text
    best = int(np.argmax(objectives))
    assert f"| 1 | 100 / 0.00065 / 2: 92.9% | trial {best}: {100 + best} / 0.0008 / 2 |" in text  # theirs, ours
    assert "| 3 | 70 / 0.00075 / 3: 83.7% |" in text


def test_a_maxima_section_counts_a_repeated_training_once():
    """A trial with an earlier trial's parameters repeats its training exactly (the same seed and deals): one
    training, its row saying how many trials repeated it."""
    from tuning.report_maxima import maxima_section

    run = _maximum_run([0.97, 0.90, 0.80], repeated=3)
    (section,) = sections({run.spec.name: run})
    text = "\n".join(maxima_section(section, {run.spec.name: run}))
    assert "6 complete trials, 3 distinct trainings" in text
    assert "| trial 0 (and 3 more trials): 100 / 0.0008 / 2 | 97.0% |" in text


def test_a_rate_reads_the_same_from_its_count_and_from_its_stored_rate():
    """51,165 wins of 100,000 printed 51.16 in the README's headline (from the count) and 51.17 in the section
    (from the stored rate): two binary forms of one half, rounded apart."""
    assert percent(51_165 / 100_000) == percent(0.51165) == "51.17"
    assert percent(11_069 / 20_000) == "55.35"
    assert percent(-0.0305, sign=True) == "-3.05" and percent(0.015, sign=True) == "+1.50"
    assert percent(float("nan")) == "nan"


def test_the_report_says_once_how_rows_are_judged_and_gives_a_reason_only_where_a_row_differs():
    """The paragraph on verdicts was printed under each of 34 tables; now once, each table's margin line linking to
    it; and "Where a row differs" stood under tables none of whose rows differ."""
    text = (REPOSITORY / "docs" / "results.md").read_text()
    assert text.count("(two one-sided tests at 5%)") == 1 and "\n## How rows are judged\n" in text
    margins = [line for line in text.splitlines() if line.startswith("Verdicts at a margin")]
    assert margins and all(line.endswith("([how rows are judged](#how-rows-are-judged)).") for line in margins)
    for section in text.split("\n## ")[1:]:
        if "Where a row differs" in section and "| removed |" not in section:  # an ablation counts its rows
            assert "*differs*" in section or "small difference*" in section, section.splitlines()[0]
