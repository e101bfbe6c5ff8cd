"""The thesis's experiments as study files: grids over setups and difficulties, and the results report."""

import json
import math
import os
import re
import textwrap
import tomllib
from pathlib import Path

import optuna
import pytest
from conftest import run_cli
from optuna.trial import TrialState

import gamecore
from agents.setup import Setup
from agents.specs import SpecError
from gamecore.published import Published
from lotr_sim.published import PUBLISHED
from tuning.orchestrator import run_study
from tuning.report_figures import line_label
from tuning.report_sections import Section, sections
from tuning.report_tables import bounds_markdown, judged, pairs_markdown, theirs_cell
from tuning.storage import storage_for, storage_object
from tuning.study_file import load_study, parse_study, study_files
from tuning.study_results import Measured, StudyRun, read_study

STUDIES = study_files(Path(__file__).parent.parent / "studies")
STUDY_BY_NAME = {path.stem: path for path in STUDIES}

GRID_STUDY = """
name = "grid"
[fixed]
budget = 8
ppn = 2
[space]
setup = { choice = ["random-random-random", "random-mcts-random"] }
difficulty = { choice = ["easy", "hard"] }
[objective]
games = 30
[validation]
top_k = 0
[search]
sampler = "grid"
pruner = "none"
"""


def grid_table(**changes) -> dict:
    import tomllib

    data = tomllib.loads(GRID_STUDY)
    for key, value in changes.items():
        section, _, name = key.rpartition(".")
        (data.setdefault(section, {}) if section else data)[name] = value
    return data


@pytest.mark.parametrize("path", STUDIES, ids=[p.stem for p in STUDIES])
def test_every_study_file_validates(path):
    spec = load_study(path)
    assert spec.name == path.stem and spec.resolved("sqlite:///x.db", "sqlite:///mlflow.db")


@pytest.mark.parametrize("path", [p for p in STUDIES if load_study(p).report.get("config")],
                         ids=lambda p: p.stem)
def test_every_shipped_export_is_its_own_studys_choice(path):
    """A best-agent section reads its figures from the export its study file names: that file loads as an agent
    setup and records the same study (a later stage must not take an earlier one's file unnoticed)."""
    spec = load_study(path)
    export = Path(__file__).parent.parent / spec.report["config"]
    Setup.load(export)
    assert Setup.read_mapping(export)["metadata"]["study"] == spec.name

def test_a_two_player_trial_counts_its_games_in_every_seat_it_plays():
    """What a trial plays, and so what pruning saves, counts both seats of a two-player game."""
    both = load_study(STUDY_BY_NAME["carcassonne-search"])
    assert both.seat == "both" and both.games_per_trial == 2 * both.games
    assert load_study(STUDY_BY_NAME["carcassonne-matches"]).games_per_trial == 140  # the paper's 140 games a match
    one = load_study(STUDY_BY_NAME["search-hard"])
    assert one.games_per_trial == one.games


def all_sections():
    """The report's sections, as the study files declare them."""
    specs = [load_study(path) for path in STUDIES]
    return sections({spec.name: StudyRun(spec, None) for spec in specs})


def test_the_thesis_experiments_each_have_a_study_file_and_a_section():
    names = {p.stem for p in STUDIES}
    experiments = {p.experiment for name in gamecore.names() for p in gamecore.load(name).reproduction.published}
    assert {p.experiment for p in PUBLISHED} | {"loveletter-pairs", "loveletter-openings"} <= experiments
    assert experiments <= names
    assert experiments <= {section.key for section in all_sections()}
    keys = [s.key for s in all_sections()]
    assert [k for k in keys if not k.endswith("-published")][:3] == ["random-baseline", "mcts-reduction",
                                                                       "mcts-setups"]  # by order
    assert keys[:3] == ["random-baseline", "random-baseline-published", "mcts-reduction"]  # a reproduction follows


@pytest.mark.usefixtures("no_plots")
def test_a_grid_over_setups_and_difficulties_runs_every_combination_once_and_resumes(in_tmp, capsys):
    path = in_tmp / "grid.toml"
    path.write_text(GRID_STUDY)
    spec = load_study(path)
    assert spec.n_trials == 4  # the grid's size
    first = run_study(spec, n_trials=3)
    assert (first.complete, first.failed, first.exported) == (3, 0, None)  # top_k = 0: no export
    killed = optuna.load_study(study_name="grid", storage="sqlite:///grid.db").ask()  # a worker killed mid-trial
    lost = {domain.name: domain.suggest(killed) for domain in spec.space}  # the last grid point, lost with it
    result = run_study(spec)
    assert (result.complete, result.failed) == (4, 1)  # the lost point was queued again and run
    study = optuna.load_study(study_name="grid", storage="sqlite:///grid.db")
    done = [t for t in study.trials if t.state == TrialState.COMPLETE]
    points = sorted((t.params["setup"], t.params["difficulty"]) for t in done)
    assert points == [(s, d) for s in ("random-mcts-random", "random-random-random") for d in ("easy", "hard")]
    assert study.trials[killed.number].state == TrialState.FAIL and done[-1].params == lost
    for trial in done:
        config = trial.user_attrs["config"]
        assert trial.user_attrs["options"]["difficulty"] == trial.params["difficulty"]
        if trial.params["setup"] == "random-mcts-random":  # fixed values reach the setups that have them
            assert config["questing"]["agent"] == "mcts" and config["questing"]["budget"] == 8
        else:
            assert all(config[stage]["agent"] == "random" for stage in ("planning", "questing", "defense"))
    by_point = {(t.params["setup"], t.params["difficulty"]): t.values[0] for t in done}
    assert by_point["random-random-random", "easy"] > by_point["random-random-random", "hard"]  # difficulty changed
    assert run_study(spec).complete == 4  # nothing left to run
    code, _, err = run_cli(capsys, "tune", "export", str(path), "--out", "best.toml")
    assert code == 2 and "no trial chosen yet" in err and not (in_tmp / "best.toml").exists()  # top_k = 0
    assert len(optuna.load_study(study_name="grid", storage="sqlite:///grid.db").trials) == 5


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"setup": "random-mcts-mcts"}, "setup is given twice"),
        ({"space": {"budget": {"choice": [8]}}, "difficulty": "hard"}, "setup is missing"),
        ({"space": {"setup": {"choice": ["random-nope-mcts"]}, "difficulty": {"choice": ["hard"]}}},
         "unknown agent 'nope'"),
        ({"space": {"setup": "random-mcts-mcts", "difficulty": {"choice": ["hard"]}}}, "space.setup"),
        ({"space": {"setup": {"choice": ["random-mcts-mcts"]}, "difficulty": {"choice": ["nightmare"]}}},
         "difficulty = 'nightmare' is invalid"),
        ({"fixed": {"neurons": 10}}, "fixed: no setup has parameter 'neurons'"),
        ({"fixed": {"budget": 0}}, "budget = 0 is invalid"),
        ({"space": {"setup": {"choice": ["random-mcts-mcts"]}, "difficulty": {"choice": ["hard"]},
                    "c": {"float": [0.5, 1.0]}}}, "space.c is invalid for search.sampler = 'grid'"),
        ({"search.n_trials": 5}, "search.n_trials = 5 is invalid; the grid has 4 combinations"),
        ({"validation.top_k": -1}, "validation.top_k = -1 is invalid"),
        ({"search.executor": "slurm"}, "search.executor = 'slurm' is invalid; expected one of local, ray"),
        ({"objective.metrics": ["margin"]}, "lotr has no score margin"),
    ],
)
def test_bad_grid_studies_are_one_line_errors(changes, message):
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace(".", r"\.")) as error:
        parse_study(grid_table(**changes), "grid.toml")
    assert "\n" not in str(error.value)


CARCASSONNE_STUDY = """
name = "margin"
game = "carcassonne"
setup = "mcts-random"
[fixed]
budget = 20
ppn = 2
[space]
c = { float = [0.5, 5.0] }
[objective]
metrics = ["margin"]
games = 2
[validation]
top_k = 0
[search]
sampler = "random"
pruner = "none"
n_trials = 2
"""


@pytest.mark.parametrize("old, new, message", [
    ("top_k = 0", "top_k = 2", "needs validation.top_k = 0 and search.pruner = 'none'"),
    ('metrics = ["margin"]', 'metrics = ["margin", "win_rate"]', "margin is a study's only objective"),
])
def test_a_margin_objective_is_checked(old, new, message):
    import tomllib

    with pytest.raises(SpecError, match=re.escape(message)):
        parse_study(tomllib.loads(CARCASSONNE_STUDY.replace(old, new)), "margin.toml")


@pytest.mark.usefixtures("no_plots")
def test_a_margin_study_maximises_the_agents_score_margin(in_tmp, capsys):
    path = in_tmp / "margin.toml"
    path.write_text(CARCASSONNE_STUDY + '[report]\nkind = "margins"\nsection = "margin"\ntitle = "Tuning by margin"\n')
    result = run_study(load_study(path))
    study = optuna.load_study(study_name="margin", storage=storage_object(storage_for("margin", None, 1)))
    for trial in study.trials:
        seats = trial.user_attrs["seats"]
        margins = [seats[seat]["metrics"][f"margin_{seat}"] for seat in ("first", "second")]
        assert trial.values[0] == pytest.approx(sum(margins) / 2) and trial.values[0] > 1  # far above random play
    assert result.complete == 2
    code, _, err = run_cli(capsys, "report", str(path), "--out", "results.md")
    assert code == 0, err
    table = (in_tmp / "results.md").read_text().split("## Tuning by margin")[1].split("\n\n")[2].splitlines()
    assert table[0] == "| trial | c | margin, points (± 95%) | win % [95% CI] (games) | s/game |"
    best = max(study.trials, key=lambda t: t.values[0])
    assert table[2].startswith(f"| {best.number} | ") and f"+{best.values[0]:.2f} ± " in table[2] and len(table) == 4


@pytest.mark.usefixtures("no_plots")
def test_a_two_player_section_compares_each_seat_and_the_papers_measures(in_tmp, capsys):
    shipped = (Path(__file__).parent.parent / "studies" / "carcassonne" / "paper" / "carcassonne-random.toml").read_text()
    study = in_tmp / "carcassonne-random.toml"
    study.write_text(textwrap.dedent("""
        name = "carcassonne-random"
        game = "carcassonne"
        [fixed]
        budget = 20
        ppn = 2
        [space]
        setup = { choice = ["mcts-random"] }
        [objective]
        games = 3
        seed = 3000017
        [validation]
        top_k = 0
        [search]
        sampler = "grid"
        pruner = "none"
    """) + shipped[shipped.index("[report]"):])
    run_study(load_study(study))
    code, _, err = run_cli(capsys, "report", str(study), "--out", "docs/results.md")
    assert code == 0, err
    text = (in_tmp / "docs" / "results.md").read_text()
    section = text[text.index("## Carcassonne: each agent"):]
    rows = [line for line in section.splitlines() if line.startswith("| mcts-random |")]
    assert [row.split(" | ")[1] for row in rows] == ["first", "second"]
    assert "no published value" in rows[0]  # Table V gives the agents' second seat only
    assert "100.00 (Table V)" in rows[1] and "93.45, 107.44, 14.98, 0.57" in rows[1] and "(3)" in rows[1]
    assert "*differs* (margin, score" in rows[1]  # 20 rollouts a move score far below the paper's agent
    assert "Published, not run here: mcts-rave-random (Table V), star25-random (Table V)." in section


def test_a_row_is_judged_by_equivalence_at_its_margin_and_by_a_difference_test_with_holm():
    """45/70 against the paper's 55/70 (a 14-point gap, p = 0.06) neither differs nor is equivalent within 3 points:
    inconclusive. 100,000 games against the thesis's 4.53 +- 0.13 (98,305 implied games) at 4.55 are equivalent;
    4.0% differs, yet its 90% interval lies within 3 points: equivalent, small difference; 40% differs. Holm: of
    p-values 0.01, 0.04, 0.04 it rejects the first only, and each row's interval at Holm's level excludes 0 exactly
    where it rejects."""
    from scipy.stats import chi2_contingency, fisher_exact

    from gamecore.stats import equal_rates_test, holm
    from tuning.verdicts import Comparison, compare, holm_levels, judge, verdicts

    def measured(wins, games):
        return Measured("s", 0, "random-random-random", False, {"difficulty": "hard"}, {}, None, wins / games, 0, 1,
                        games, 0.0)

    small = Comparison(45, 70, 55, 70, False)
    assert small.test[1] == "z" and 0.055 < small.test[0] < 0.065
    assert small.test[0] == pytest.approx(chi2_contingency([[45, 25], [55, 15]], correction=False).pvalue)
    assert verdicts([small]) == ["*inconclusive*"]
    assert equal_rates_test(2, 10, 7, 10) == (pytest.approx(fisher_exact([[2, 8], [7, 3]]).pvalue), "Fisher")
    published = Published("Table 3.2", "random-baseline", "random-random-random", {"difficulty": "hard"}, 4.53, 0.13,
                          None)
    same, near, far = (compare(wins, 100_000, published) for wins in (4_550, 4_000, 40_000))
    assert same.implied and same.their_games == 98_305  # 1.96^2 0.0453 0.9547 / 0.0013^2
    assert verdicts([same, near, far, None]) == ["*equivalent*", "*equivalent, small difference*", "*differs*",
                                                 "no published count"]
    assert verdicts([near], margin=0.5) == ["*differs*"]  # the margin declared decides
    assert holm([0.01, 0.04, 0.04]) == [True, False, False] and holm([0.01, 0.04]) == [True, True]
    p_values = [0.01, 0.04, 0.04, 0.3]
    assert [p < level for p, level in zip(p_values, holm_levels(p_values))] == holm(p_values)
    for judged_row in judge([same, near, far, small]):  # a printed interval excluding 0 always reads "differs"
        low, high = judged_row.difference
        assert (low > 0 or high < 0) == ("differ" in judged_row.verdict)
    drawn = Published("Figure 7", "players", "random-random-random", {"difficulty": "hard"}, math.nan, None, 10_000)
    rows, _ = judged([(measured(4_550, 100_000), published), (None, published), (measured(10, 100), None),
                      (measured(10, 100), drawn)], 3.0)
    assert [found for _, found in rows] == ["*equivalent*", "*not run*", "no published value", "no published value"]
    assert theirs_cell(drawn) == "not in the text (Figure 7)"  # a value drawn in a figure, not stated
    assert rows[0][0][0] == "4,453 / 98,305 implied" and rows[0][0][1].startswith("+0.0 [")


def test_no_row_of_the_report_whose_difference_interval_excludes_0_reads_as_no_difference():
    """docs/results.md: in every judged row, the interval at Holm's level excludes 0 exactly where the verdict says
    the row differs ("*differs*" or "*equivalent, small difference*")."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "results.md").read_text()
    judged_rows = 0
    for line in text.splitlines():
        found = re.search(r"\| ([+-][\d.]+) \[([+-][\d.]+), ([+-][\d.]+)\] \([\d.]+%\) \| \[[^]]+\] \| [^|]+ \| "
                          r"(\*[^*]+\*) \|", line)
        if found:
            judged_rows += 1
            low, high, verdict = found[2], found[3], found[4]  # signed as printed: -0.0 is below 0
            assert (low.startswith("+") or high.startswith("-")) == ("differ" in verdict), line
    assert judged_rows > 100


def test_an_oracle_bound_counts_the_published_rows_above_it():
    """random-rl-random on hard: Table 6.6's 92.9 and 80.7, 6.7's three and 6.10's 92.9 lie above a bound of
    [55, 62]; the macro-action rows (29.9, 28.6) and encodings 0-1 (34.2, 27.5) do not."""
    bound = Measured("fidelity-bounds", 0, "random-mcts-random", True, {"difficulty": "hard"}, {"budget": 1600}, None,
                     0.585, 0.55, 0.62, 2000, 0.01)
    section = Section("fidelity-bounds", gamecore.load("lotr"), "bounds", 12, ("fidelity-bounds",), ("setup",), "", {},
                      {}, bounds={"random-mcts-random": "random-rl-random"})
    row = next(line for line in bounds_markdown(section, [bound]) if line.startswith("| random-mcts-random"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1] == "1600" and cells[4] == "random-rl-random"
    assert cells[5].startswith("6 of 10: ") and "92.9 (Table 6.6, ac-macro, encoding 2)" in cells[5]
    assert "29.9" not in cells[5] and "34.2" not in cells[5]


def test_two_setups_are_compared_game_by_game_on_the_same_deals():
    """A paired difference: 60 of 100 deals against 50, 12 deals only the first won, 2 only the second."""
    import numpy as np

    theirs = np.zeros(100, bool)
    theirs[:60] = True
    ours = np.zeros(100, bool)
    ours[:48] = True
    ours[60:62] = True

    def measured(label, outcomes):
        rate = outcomes.mean()
        return Measured("check", 0, label, False, {"difficulty": "hard"}, {}, None, rate, rate, rate, 100, 0.0,
                        outcomes=outcomes)

    section = Section("check", gamecore.load("lotr"), "check", 40, ("check",), ("setup",), "", {}, {},
                      pairs=(("a", "b"),))
    row = [line for line in pairs_markdown(section, [measured("a", theirs), measured("b", ours)]) if "| a |" in line]
    cells = [cell.strip() for cell in row[0].strip("|").split("|")]
    assert cells[2].startswith("+10.0 [") and cells[3] == "[+4.0, +16.0]" and cells[4] == "12 / 2"
    assert cells[6] == "*differs*"  # 95% interval clear of 0; the 90% one outside the ±3-point margin
    assert pairs_markdown(section, [measured("a", theirs)]) == []  # a pair needs both setups


def test_published_rows_have_one_row_per_table_cell():
    tuning_by_margin = {load_study(path).name for path in STUDIES if load_study(path).metrics == ("margin",)}
    # OpenSpiel's bots, self-play, the full scenario, win rate against time, Star2.5 beaten at its speed: no
    # published figure; the journal paper's Figure 5: its values are not in the text; the main job: the thesis's row
    # read the deck orders (its section says so, Table 6.10's sections compare it)
    ours_only = {"mcts-hpo", "openspiel-check", "loveletter-rl-selfplay", "search-full-hard", "search-full-hard-deep", "rl-full-hard",
                 "mcts-hpo-pareto", "weighted-star-vs-star25", "journal-budget", "journal-budget-mcts",
                 "journal-budget-published", "journal-budget-mcts-published-defense"}
    for section in all_sections():
        if section.bounds:  # upper bounds: every setup they bound has published rows
            assert all(any(p.label == label for p in PUBLISHED) for label in section.bounds.values()), section.key
            continue
        rows = section.published_rows()
        keys = [section.theirs(p) for p in rows]
        assert rows or set(section.studies) <= tuning_by_margin | ours_only, section.key  # the paper's tuning: none
        assert len(keys) == len(set(keys)), section.key
    assert len([p for p in PUBLISHED if p.source == "Table 6.2"]) == 21


@pytest.mark.usefixtures("no_plots")
def test_a_figure_line_is_named_by_its_studys_report_values():
    """journal-budget's lines are its players' mixtures, a constant of each study's [report] values, not a parameter."""
    section = next(s for s in all_sections() if s.key == "journal-budget")
    trial = Measured("journal-budget-mcts", 0, "mcts-mcts-expert-mcts-expert", False, {"difficulty": "medium"},
                     {"budget": 40, "playout": "expert"}, None, 0.99, 0.98, 1.0, 1000, 0.001)
    assert line_label(section, trial, ["mixture", "playout"]) == "mixture 4-4-4, playout expert"
    assert line_label(section, trial, []) == "ours"


def test_the_report_puts_our_figures_next_to_the_thesis(in_tmp, capsys):
    def report_table(name: str) -> str:
        text = STUDY_BY_NAME[name].read_text()
        return text[text.index("[report]"):]

    study = in_tmp / "random-baseline.toml"
    study.write_text(textwrap.dedent("""
        name = "random-baseline"
        setup = "random"
        [space]
        difficulty = { choice = ["easy", "medium", "hard"] }
        [objective]
        games = 400
        [validation]
        top_k = 0
        [search]
        sampler = "grid"
        pruner = "none"
    """) + report_table("random-baseline"))
    never_run = in_tmp / "mcts-setups.toml"
    never_run.write_text(GRID_STUDY.replace('name = "grid"', 'name = "mcts-setups"') + report_table("mcts-setups"))
    assert read_study(never_run).trials is None
    run_study(load_study(study))
    code, _, err = run_cli(capsys, "report", str(study), str(never_run), "--out", "docs/results.md")
    assert code == 0, err
    text = (in_tmp / "docs" / "results.md").read_text()
    assert "| `random-baseline` | 3 | 400 |" in text and "| `mcts-setups` | no record |" in text
    table = text[text.index("## Random agent"):].split("\n\n")[2].splitlines()
    assert [row.split(" | ")[0] for row in table[2:]] == ["| easy", "| medium", "| hard"]
    for row in table[2:]:
        assert "(400)" in row and "(Table 3.2)" in row and any(verdict in row for verdict in (
            "*equivalent*", "*differs*", "*equivalent, small difference*", "*inconclusive*"))
    assert "| hard | 4.25 |" not in text and "4.53 ± 0.13 (Table 3.2)" in text
    assert "MCTS setups at budget 40 (Table 6.2)" in text and text.count("*not run*") == 21  # every cell of Table 6.2
    assert not read_study(never_run).trials  # the report created no study
    assert (in_tmp / "docs" / "records" / "random-baseline.json").is_file()  # the record of the study it read
    assert not (in_tmp / "docs" / "records" / "mcts-setups.json").exists()


@pytest.mark.slow  # 14 s; test_a_lost_store_leaves_the_best_agent_section_to_its_export reports from a record too
def test_a_study_whose_store_is_gone_is_reported_again_from_its_record(in_tmp, capsys):
    """The report writes each study it reads from its store as a record beside it; with the store gone (another
    machine, a lost disk) the record stands for it: the same report, written again with today's code."""
    study = in_tmp / "grid.toml"
    study.write_text(GRID_STUDY + textwrap.dedent("""
        [report]
        kind = "table"
        section = "mcts-setups"
        title = "MCTS setups at budget 40 (Table 6.2)"
        columns = ["setup", "difficulty"]
    """))
    run_study(load_study(study))
    code, _, err = run_cli(capsys, "report", str(study), "--out", "docs/results.md")
    assert code == 0, err
    first = (in_tmp / "docs" / "results.md").read_text()
    (in_tmp / "grid.db").unlink()
    code, _, err = run_cli(capsys, "report", str(study), "--out", "docs/results.md")
    assert code == 0, err
    assert (in_tmp / "docs" / "results.md").read_text() == first and "random-mcts-random | easy |" in first


def test_report_without_study_files_is_a_one_line_error(in_tmp, capsys):
    code, _, err = run_cli(capsys, "report")
    assert code == 2 and "no study files" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_study_on_another_mlflow_store_leaves_the_default_to_the_next(in_tmp):  # in_tmp unsets it
    first = in_tmp / "first.toml"
    first.write_text(GRID_STUDY.replace('name = "grid"', 'name = "first"').replace("top_k = 0", "top_k = 1\ngames = 10\n[test]\ngames = 10")
                     + '[mlflow]\ntracking_uri = "sqlite:///elsewhere.db"\n')
    assert run_study(load_study(first)).selection["model"] == "models:/first/1"  # registered on elsewhere.db
    assert "MLFLOW_TRACKING_URI" not in os.environ
    second = in_tmp / "grid.toml"
    second.write_text(GRID_STUDY)
    run_study(load_study(second), n_trials=1)
    assert (in_tmp / "mlflow.db").is_file()  # MLflow's default in the working directory, not elsewhere.db


@pytest.mark.usefixtures("no_plots")
def test_resuming_with_other_choices_is_refused_before_anything_runs(in_tmp):
    path = in_tmp / "grid.toml"
    path.write_text(GRID_STUDY)
    run_study(load_study(path), n_trials=1)
    before = optuna.load_study(study_name="grid", storage="sqlite:///grid.db").trials
    path.write_text(GRID_STUDY.replace('"random-random-random", "random-mcts-random"', '"random-mcts-random"'))
    with pytest.raises(SpecError, match="space.setup differs from what study grid began with") as error:
        run_study(load_study(path))
    assert "\n" not in str(error.value)
    after = optuna.load_study(study_name="grid", storage="sqlite:///grid.db").trials
    assert [(t.state, t.params) for t in after] == [(t.state, t.params) for t in before]  # nothing written


def test_a_worker_whose_trials_keep_failing_stops_with_the_reason(in_tmp, monkeypatch):
    def broken(*_):
        raise RuntimeError("simulator exploded")

    monkeypatch.setattr("tuning.worker.run_trial", broken)
    path = in_tmp / "grid.toml"
    path.write_text(GRID_STUDY)
    with pytest.raises(SpecError, match="3 trials in a row failed; the last: simulator exploded"):
        run_study(load_study(path))
    trials = optuna.load_study(study_name="grid", storage="sqlite:///grid.db").trials
    assert [t.state for t in trials].count(TrialState.FAIL) == 3
    assert trials[0].user_attrs["error"] == "simulator exploded"


def test_the_best_agent_stands_beside_the_theses_best_which_is_a_maximum_and_is_not_tested():
    """The thesis's best (Table 6.10, 95.3) is the best training window of a 100-trial study: a maximum, shown beside
    our test figure, never tested as if it were a sample of games (issue 47, point 1)."""
    from agents.setup import Setup
    from tuning.report_tables import best_markdown

    spec = load_study(next(p for p in STUDIES if p.stem == "best-hard"))
    section = next(s for s in all_sections() if s.key == "best")

    def claim(low, high):
        test = {"win_rate": (low + high) / 2, "wilson_95": [low, high], "games": 10_000, "seed": 2000003}
        validation = {"win_rate": 0.97, "wilson_95": [0.965, 0.975], "games": 10_000, "seed": 1000003}
        best = Measured("best-hard", 7, "rl-rl-rl", False, {"difficulty": "hard"}, {},
                        Setup.parse("rl-rl-expert-rl-expert", "lotr"), 0.97, 0.96, 0.98, 2000, 0.0001,
                        chosen={"test": test, "validation": validation})
        return "\n".join(best_markdown(section, StudyRun(spec, [best]), best))

    for low, high in ((0.960, 0.967), (0.900, 0.910)):
        text = claim(low, high)
        assert "beside the thesis's best, 95.3 ± 0.4 (Table 6.10), which is the best 1,000-episode window" in text
        assert "shown, not tested" in text and "above the thesis" not in text
    assert "--games 10000 --seed 2000003" in claim(0.955, 0.962)
    assert best_markdown(section, StudyRun(spec, None), None) == ["`best-hard`: no record.", ""]
    assert best_markdown(section, StudyRun(spec, []), None) == ["`best-hard`: its chosen trial not tested yet.", ""]


def test_a_best_agent_section_without_a_published_figure_says_so_and_reproduces_its_options():
    """search-full-hard plays the full scenario, which the thesis never did: no claim, and the command to
    reproduce its test figure plays the same options."""
    from agents.setup import Setup
    from tuning.report_tables import best_markdown

    spec = load_study(next(p for p in STUDIES if p.stem == "search-full-hard"))
    section = next(s for s in all_sections() if s.key == "search-full-hard")
    assert section.published_rows() == []
    test = {"win_rate": 0.95, "wilson_95": [0.946, 0.954], "games": 10_000, "seed": 2000003}
    validation = {"win_rate": 0.96, "wilson_95": [0.95, 0.97], "games": 2_000, "seed": 1000003}
    best = Measured("search-full-hard", 3, "rule-full", False, dict(spec.options), {}, Setup.parse("rule-full", "lotr"),
                    0.96, 0.93, 0.98, 300, 0.001, chosen={"test": test, "validation": validation})
    text = "\n".join(best_markdown(section, StudyRun(spec, [best]), best))
    assert "no published figure to compare with" in text
    assert "--config studies/lotr/best-full/agent.toml --full-scenario --games 10000 --seed 2000003" in text


@pytest.mark.usefixtures("no_plots")
def test_a_lost_store_leaves_the_best_agent_section_to_its_export(in_tmp, capsys):
    shipped = (Path(__file__).parent.parent / "studies" / "lotr" / "search-hard.toml").read_text()
    study = in_tmp / "grid.toml"
    study.write_text(GRID_STUDY.replace("top_k = 0", "top_k = 2\ngames = 20\n[test]\ngames = 40")
                     + shipped[shipped.index("[report]"):].replace("studies/lotr/best/agent.toml", "best/agent.toml"))
    assert run_cli(capsys, "tune", "run", str(study), "--out", "best/agent.toml")[0] == 0

    def report() -> str:
        code, _, err = run_cli(capsys, "report", str(study), "--out", "results.md")
        assert code == 0, err
        text = (in_tmp / "results.md").read_text()
        return text[text.index("## Beyond the thesis"):]

    from_the_store = report()
    assert "on 40 fresh games** (chosen on validation" in from_the_store
    whole = (in_tmp / "results.md").read_text()
    assert re.search(r"\| `grid` \| \d+ \| ", whole)
    (in_tmp / "grid.db").unlink()  # the store is lost (git-ignored, a new machine); its record is committed
    from_the_record = report()
    assert (in_tmp / "results.md").read_text() == whole  # the same report, whichever of the two it read
    (in_tmp / "records" / "grid.json").unlink()  # the record lost too: the export is committed
    from_the_export = report()
    assert from_the_export == from_the_store == from_the_record
    assert "| `grid` | its chosen trial alone, from its export `best/agent.toml` |" in (in_tmp / "results.md").read_text()
    recovered = json.loads((in_tmp / "records" / "grid.json").read_text())  # the export's figures, now a record
    assert recovered["export"] == "best/agent.toml" and [t["number"] for t in recovered["trials"]] == [
        Setup.read_mapping(in_tmp / "best" / "agent.toml")["metadata"]["trial"]]
    (in_tmp / "best" / "agent.toml").unlink()  # the record stands for the export too
    assert report() == from_the_store
    (in_tmp / "records" / "grid.json").unlink()
    (in_tmp / "best" / "other.toml").write_text("")
    study.write_text(study.read_text().replace("best/agent.toml", "best/other.toml"))  # not this study's export
    assert "`grid`: no record." in report()


def test_the_default_store_is_the_one_that_already_holds_the_study(in_tmp, capsys):
    from tuning.storage import storage_for

    path = in_tmp / "grid.toml"
    path.write_text(GRID_STUDY)
    spec = load_study(path)
    code, _, err = run_cli(capsys, "tune", "export", str(path), "--out", "best.toml")
    assert code == 2 and "looked for grid.journal and grid.db" in err and not (in_tmp / "grid.db").exists()
    assert storage_for(spec.name, None, 1) == "sqlite:///grid.db" and storage_for(spec.name, None, 2) == "journal:grid.journal"
    (in_tmp / "grid.journal").touch()  # a run with 2 workers: resumed, exported and reported from its journal
    assert storage_for(spec.name, None, 1) == "journal:grid.journal"
    (in_tmp / "grid.journal").unlink()
    (in_tmp / "grid.db").touch()
    with pytest.raises(SpecError, match="SQLite, one worker at a time"):
        storage_for(spec.name, None, 2)


def test_the_shipped_rl_agent_beats_the_thesis_on_fresh_deals():
    """studies/lotr/best-rl: the export of study best-hard (test: 97.8% on 10,000 deals of seed 2000003)."""
    from agents.evaluation import evaluate_setup
    from agents.setup import Setup

    best = Setup.load(Path(__file__).parent.parent / "studies" / "lotr" / "best-rl" / "agent.toml")
    assert not best.is_oracle and best.short_name == "rl-rl-expert-rl-expert"
    result = evaluate_setup(best,
                            options={"difficulty": "hard"}, games=2000, seed=4242)  # deals training and study never saw
    assert result.wilson_95[0] > 0.953  # the thesis's best honest agent: 95.3 (Table 6.10)


@pytest.mark.slow
def test_the_shipped_search_agent_beats_the_rl_agent_with_no_trained_component():
    """studies/lotr/best: the export of study search-hard (test: 99.75% on 10,000 deals of seed 2000003), honest and
    with no network anywhere, not in a stage and not in its playouts."""
    from agents.evaluation import evaluate_setup
    from agents.setup import Setup

    best = Setup.load(Path(__file__).parent.parent / "studies" / "lotr" / "best" / "agent.toml")
    assert not best.is_oracle and not best.has_trained_agents
    assert not any(spec.as_dict().get("playout_nets") for spec in best.agents)
    result = evaluate_setup(best,
                            options={"difficulty": "hard"}, games=500, seed=4242)  # deals study, validation never saw
    assert result.wilson_95[0] > 0.978  # studies/lotr/best-rl's 97.8% on the test deals


def test_the_sampler_comparison_is_a_section_with_its_figure_when_its_result_is_there(tmp_path):
    """``benchmarks/bench_samplers.py``'s result beside the report: a table of each sampler's validated incumbent
    (mean over seeds [lowest, highest]) at a few trial counts, and its figure; without it, nothing."""
    import json

    from tuning.sampler_comparison import sampler_markdown

    assert sampler_markdown(tmp_path) == []
    runs = [{"sampler": name, "seed": seed, "search_seconds": 1.0, "validated": [0.5 + step * seed] * 12}
            for name, step in (("tpe", 0.01), ("cmaes", 0.02)) for seed in range(3)]
    (tmp_path / "samplers.json").write_text(json.dumps({
        "study": "lotr/mcts-hpo.toml", "trials": 12, "seeds": 3, "games": 20, "validation_games": 40,
        "validation_seed": 1000003, "search_seed": 0, "workers": 2, "minutes": 0.5, "runs": runs}))
    lines = sampler_markdown(tmp_path)
    assert "| tpe | 51.0 [50.0, 52.0] | 51.0 [50.0, 52.0] | 51.0 [50.0, 52.0] | 1 |" in lines
    assert "| cmaes | 52.0 [50.0, 54.0] | 52.0 [50.0, 54.0] | 52.0 [50.0, 54.0] | 1 |" in lines
    assert any("the order of the means is cmaes, tpe" in line for line in lines)
    assert (tmp_path / "figures" / "samplers.png").is_file() and "![samplers](figures/samplers.png)" in lines


def test_an_interrupted_sampler_comparison_resumes_its_finished_runs_and_refuses_another_scale(tmp_path):
    """``bench_samplers.py --resume`` keeps the runs ``--out`` holds at the same scale and plays only the others;
    a file written at another scale is refused in one line, never mixed in."""
    import json
    import subprocess
    import sys

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_samplers.py"
    out = tmp_path / "samplers.json"
    scale = {"study": "lotr/mcts-hpo.toml", "trials": 3, "games": 5, "validation_games": 7, "validation_seed": 1000003,
             "search_seed": 0}
    kept = {"sampler": "random", "seed": 0, "search_seconds": 1.0, "validated": [0.5, 0.5, 0.5]}
    out.write_text(json.dumps({**scale, "seeds": 1, "workers": 1, "minutes": 0.1, "runs": [kept]}))
    command = [sys.executable, str(script), "--trials", "3", "--games", "5", "--validation-games", "7",
               "--seeds", "1", "--samplers", "random", "--out", str(out), "--resume"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "0 of 1 runs to go" in done.stdout
    assert json.loads(out.read_text())["runs"] == [kept]
    other = subprocess.run([*command[:3], "4", *command[4:]], capture_output=True, text=True, check=False)
    assert other.returncode != 0
    assert other.stderr.strip().splitlines() == [
        f"--resume: {out} was written at another scale (trials differ); give a new --out or the same options"]
    assert json.loads(out.read_text())["runs"] == [kept]


def test_the_sampler_comparison_judges_each_sampler_against_random_search_over_its_seeds():
    """A difference of means with a Welch interval over the seeds: a sampler above random search in every seed
    is named above it, one within the seeds' spread is not; with no difference at all, the section says so."""
    import numpy as np

    from tuning.sampler_comparison import against_baseline

    curves = {"random": np.array([[0.70], [0.72], [0.71]]), "tpe": np.array([[0.78], [0.80], [0.79]]),
              "gp": np.array([[0.69], [0.73], [0.72]])}
    (_, line) = against_baseline(curves, 1)
    assert "tpe +8.0 [" in line and line.endswith("So above it: tpe.")
    (_, line) = against_baseline({"random": curves["random"], "gp": curves["gp"]}, 1)
    assert "no sampler differs from random search" in line
    assert against_baseline({"tpe": curves["tpe"]}, 1) == []


def test_studies_are_by_game_and_an_old_path_is_refused_naming_the_new_one(capsys, monkeypatch):
    """Issue 45, point 4: every study file and export lives under studies/<game>/ (a paper's tables under its
    paper/ folder), each study file's game its folder's; an old path is refused in one line that names the new."""
    root = Path(__file__).parent.parent / "studies"
    assert sorted(p.name for p in root.iterdir()) == ["carcassonne", "lotr", "loveletter", "moved.toml", "test-seeds.json"]
    for path in STUDIES:
        game_folder = path.parent.parent if path.parent.name == "paper" else path.parent
        assert load_study(path).game.name == game_folder.name, path
    moved = tomllib.loads((root / "moved.toml").read_text())["moved"]
    assert all((root / new).exists() for new in moved.values())
    monkeypatch.chdir(root.parent)
    for argv, new in ((["tune", "run", "studies/mcts-hpo.toml"], "studies/lotr/mcts-hpo.toml"),
                      (["eval", "--config", "studies/best/agent.toml"], "studies/lotr/best/agent.toml"),
                      (["report", "studies/loveletter-pairs.toml"], "studies/loveletter/paper/loveletter-pairs.toml")):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == ""
        assert err.splitlines()[-1].endswith(f"{argv[-1]} has moved to {new}: use the new path")


def test_a_moved_table_in_a_folder_anyone_may_write_to_moves_nothing_below_it(tmp_path):
    """A stranger's moved.toml in /tmp would redirect the paths of every folder under it; only the path's own
    folder is read there."""
    from gamecore.moved import moved_to

    shared = tmp_path / "shared"
    (shared / "mine").mkdir(parents=True)
    shared.chmod(0o1777)
    (shared / "moved.toml").write_text('[moved]\n"mine/old.toml" = "elsewhere.toml"\n"old.toml" = "new.toml"\n')
    assert moved_to(shared / "mine" / "old.toml") is None
    assert moved_to(shared / "old.toml") == shared / "new.toml"
    (shared / "mine" / "moved.toml").write_text('[moved]\n"gone" = "here"\n')  # missing folders below: walked through
    assert moved_to(shared / "mine" / "gone" / "deeper" / "x.toml") == shared / "mine" / "here" / "deeper" / "x.toml"
