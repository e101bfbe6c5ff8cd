"""``published-mcts``: the thesis's MCTS as its published code ran it (lotr_sim/published_search.py), an ORACLE;
``published-mcts-2021``: the same search on redrawn deck orders, honest."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import make_state, run_cli

from agents.agent import Agent
from agents.evaluation import evaluate_setup
from agents.setup import Setup
from agents.specs import AgentSpec
from lotr_sim import GameState, Stage
from lotr_sim import layout as L
from lotr_sim.defects import PLAYOUT_ROUND_AFTER_WIN, QUEST_WIN_UNSEEN
from lotr_sim.playout import play_out
from lotr_sim.published_search import PLANS, children_of, decision_of, expansion_flag, make_child, subset_defense
from lotr_sim.report import published_label
from lotr_sim.rules import apply_action, apply_questing
from tuning.orchestrator import run_study
from tuning.study_file import load_study

P = "published-mcts"
SMALL = {name: AgentSpec.make(name, budget=40, ppn=5, game="lotr") for name in (P, "published-mcts-2021")}
GANDALF, TOOK, TOOK_2, GUIDE = 15, 9, 10, 3


def test_the_published_search_is_declared_an_oracle_and_its_2021_form_honest():
    assert SMALL[P].oracle and not SMALL["published-mcts-2021"].oracle
    result = evaluate_setup(Setup.parse(f"random-{P}-{P}-{P}-{P}", "lotr").with_params({"budget": 20, "ppn": 5}),
                            options={"difficulty": "easy", "rules": "published"}, games=20, seed=1)
    assert result.oracle and result.games == 20


def test_the_published_search_reads_the_deck_order(decision_states):
    rng = np.random.default_rng(5)
    changed = 0
    for i, game in enumerate(decision_states[::6]):
        if game.stage in (Stage.TRAVEL, Stage.ATTACK):
            continue
        other = game.determinize(rng)
        if Agent(SMALL[P], seed=i).act(game) != Agent(SMALL[P], seed=i).act(other):
            changed += 1
    assert changed > 0


def test_the_published_tree_is_the_default_and_one_level_searches_otherwise(decision_states):
    """tree = "deep" (the published tree) descends into a visited child's own children; "one-level" plays from
    the child again: on the same states and draws they choose differently somewhere (a planning decision's few
    children are visited often enough to grow below)."""
    assert SMALL[P]["tree"] == "deep"
    one_level = AgentSpec.make(P, budget=40, ppn=1, tree="one-level", game="lotr")
    deep = AgentSpec.make(P, budget=40, ppn=1, game="lotr")
    planning = [game for game in decision_states if game.stage == Stage.PLANNING][:40]
    assert sum(Agent(deep, seed=i).act(game) != Agent(one_level, seed=i).act(game)
               for i, game in enumerate(planning)) > 0


def test_the_2021_search_decides_from_what_the_player_sees(decision_states):
    rng = np.random.default_rng(5)
    for i, game in enumerate(decision_states[::6]):
        other = game.determinize(rng)
        agent = SMALL["published-mcts-2021"]
        assert Agent(agent, seed=i).act(game) == Agent(agent, seed=i).act(other), f"state {i}"


def test_planning_buys_one_card_a_name_or_gandalf_alone():
    g = make_state(phase="planning", hand=[GANDALF, TOOK, TOOK_2, GUIDE], resources=(2, 2, 2))
    picks = np.empty(64, np.int64)
    assert sorted(picks[: children_of(g.core_state(), np.array([1, 1, 1]), picks)]) == [-1, GANDALF]
    n = children_of(g.core_state(), np.array([0, 1, 1]), picks)
    assert sorted(picks[:n]) == [-1, GUIDE, TOOK, GANDALF]  # one Wandering Took for both copies


def test_questing_commits_one_to_n_minus_one_characters_above_the_threat():
    g = make_state(phase="questing", staging=[18], in_play=[TOOK])  # staging threat 2: willpower > 4 needed
    masks = np.empty(64, np.int64)
    n = children_of(g.core_state(), np.array([1, 1, 1]), masks)
    expected = [{0, 1}, {1, 2}, {1, TOOK}, {0, 1, 2}, {0, 1, TOOK}, {1, 2, TOOK}]  # Eowyn's 4 and one more
    assert sorted(masks[:n]) == sorted(sum(1 << c for c in cards) for cards in expected)
    n = children_of(g.core_state(), np.array([1, 0, 1]), masks)
    assert n == 2**4 - 2


@pytest.mark.parametrize("rules, order, exhausted, willpower", [
    ("corrected", (), {TOOK, TOOK_2}, 2),  # both copies quest
    ("quest-by-name", (), {TOOK}, 2),  # the first by id, named twice: its willpower twice, the second stays ready
    ("list-skip+quest-by-name", (TOOK_2, TOOK), {TOOK_2}, 2),  # bought first, so first in the published list
])
def test_a_questing_child_names_its_characters_by_name_under_quest_by_name(rules, order, exhausted, willpower):
    """The published subsetQuesting finds each named character with findCardInPlay and taps it: a child naming
    both Wandering Tooks taps the first twice and counts its willpower twice."""
    g = make_state(phase="questing", in_play=[TOOK, TOOK_2], rules=rules, ally_order=order, encounter_deck=[])
    S = g.core_state()
    act, scratch = np.full(L.N_CARDS, L.NO_CHOICE, np.int64), np.empty_like(S)
    decision_of(S, (np.int64(1) << TOOK) | (np.int64(1) << TOOK_2), np.array([7], np.uint64), act, scratch)
    assert apply_questing(S, act, np.zeros(4, np.int64), None) == L.OK  # the questing alone, not the round after
    assert {c for c in (TOOK, TOOK_2) if (S[L.EXHAUSTED_MASK] >> c) & 1} == exhausted
    assert S[L.QUEST_PROGRESS] == willpower  # nothing in staging: all of it is progress


@pytest.mark.parametrize("rules, order, defender", [
    ("corrected", (), TOOK_2),  # the named copy defends
    ("by-name", (), "undefended"),  # the first Wandering Took by id, exhausted: the attack goes to a hero
    ("list-skip+by-name", (TOOK_2, TOOK), TOOK_2),  # bought first, so first in the published list
    ("list-skip+by-name", (TOOK, TOOK_2), "undefended"),
])
def test_a_defense_child_names_its_defenders_by_name_under_by_name(rules, order, defender):
    """The published subsetDefense finds each named defender with findCardInPlay: the first character of that name
    in the list (heroes, then allies in purchase order)."""
    g = make_state(phase="defense", in_play=[TOOK, TOOK_2], exhausted=[TOOK], engaged=[18], rules=rules,
                   ally_order=order)
    S = g.core_state()
    act, scratch = np.full(L.N_CARDS, L.NO_CHOICE, np.int64), np.empty_like(S)
    subset_defense(S, np.int64(1) << TOOK_2, np.array([7], np.uint64), act, scratch)
    if defender == "undefended":
        assert act[18] >= L.UNDEFENDED
    else:
        assert act[18] == defender


def winning_questing(damage: int, rules: str = "published+round-after-win") -> np.ndarray:
    """Eowyn, the last hero, quests for the last point of the quest with Dol Guldur Orcs (attack 2) engaged: the
    core state after her commitment, as a published search's playout (``playout``) or the real game plays it."""
    g = make_state(phase="questing", quest_progress=7, next_encounter=[34], engaged=[18], destroyed_heroes=[0, 2],
                   damage={1: damage}, rules=rules)
    return g.core_state().copy()


@pytest.mark.parametrize("damage, outcome", [(2, L.LOST_BY_HEROES), (0, L.WIN)])
def test_a_playout_plays_out_the_round_of_its_win_under_round_after_win(damage, outcome):
    """The published playouts test the win and loss flags after the whole round, the loss first: a win whose
    round's defense then destroys the last hero counts as a loss."""
    S = winning_questing(damage)
    S[L.RULES] |= PLAYOUT_ROUND_AFTER_WIN
    act, err, scratch = np.full(L.N_CARDS, L.NO_CHOICE, np.int64), np.zeros(4, np.int64), np.empty_like(S)
    act[1] = 1
    assert apply_action(S, act, err, None) == L.OK
    assert S[L.PHASE] == L.TRAVEL and S[L.OUTCOME] == L.WIN  # the win waits for the refresh
    assert play_out(S, np.zeros(5, np.int64), np.array([3], np.uint64), None, act, err, scratch) == outcome


@pytest.mark.parametrize("rules", ["published+round-after-win", "published"])
def test_the_real_game_wins_at_once_whatever_its_playouts_do(rules):
    S = winning_questing(2, rules)
    act, err = np.full(L.N_CARDS, L.NO_CHOICE, np.int64), np.zeros(4, np.int64)
    act[1] = 1
    assert apply_action(S, act, err, None) == L.OK
    assert S[L.PHASE] == L.GAME_OVER and S[L.OUTCOME] == L.WIN


@pytest.mark.parametrize("hide_win", [True, False])
def test_a_child_that_completes_the_quest_plays_on_under_unseen_win(hide_win):
    """The published search's child that completes the quest is not seen as won: the win flag its making set is
    reset by another playout first, and its playouts find the win only at a later questing's progress."""
    S = make_state(phase="questing", quest_progress=7, next_encounter=[34],
                   rules="published+unseen-win").core_state()
    C, mid, scratch = np.empty_like(S), np.empty_like(S), np.empty_like(S)
    act, plan, err = (np.empty(L.N_CARDS, np.int64) for _ in range(3))
    make_child(S, np.int64(1) << 1, np.array([3], np.uint64), C, act, plan, mid, err, scratch, hide_win)
    if hide_win:
        assert C[L.PHASE] != L.GAME_OVER and C[L.QUEST_PROGRESS] >= 8 and not C[L.RULES] & QUEST_WIN_UNSEEN
        assert play_out(C, np.zeros(5, np.int64), np.array([3], np.uint64), None, act, err, scratch) in (
            L.WIN, L.LOST_BY_HEROES, L.LOST_BY_THREAT)
    else:
        assert C[L.PHASE] == L.GAME_OVER and C[L.OUTCOME] == L.WIN


def travel_child(rules: str, seed: int) -> tuple[bool, np.ndarray]:
    """The published questing child committing Eowyn with one location staged: (whether it kept a travel plan,
    the child's state)."""
    S = make_state(phase="questing", staging=[34], next_encounter=[18], rules=rules).core_state()
    C, mid, scratch = np.empty_like(S), np.empty_like(S), np.empty_like(S)
    act, plan, err = (np.empty(L.N_CARDS, np.int64) for _ in range(3))
    return make_child(S, np.int64(1) << 1, np.array([seed], np.uint64), C, act, plan, mid, err, scratch), C


def test_a_travel_rolled_to_nowhere_is_rolled_again_under_second_travel():
    """The published expansion travelled on the chosen copy; the round's travel, and each playout from that copy,
    travelled again when no location was active: a child's roll of no travel is not kept."""
    kept = {rules: [travel_child(rules, seed) for seed in range(40)]
            for rules in ("published", "published+second-travel")}
    assert all(planned for planned, _ in kept["published"])
    assert all(C[L.PHASE] != L.TRAVEL for _, C in kept["published"])
    again = [C for planned, C in kept["published+second-travel"] if not planned]
    assert again and all(C[L.PHASE] == L.TRAVEL for C in again)  # the playouts and the real game roll it again
    assert any(planned for planned, _ in kept["published+second-travel"])  # a travel to a location is kept


@pytest.mark.parametrize("threat, flag", [(49, L.LOST_BY_THREAT), (40, L.ONGOING)])
def test_an_expansion_that_loses_somewhere_decides_the_next_playout_under_stale_flags(threat, flag):
    """The published simulate tests the global flags before it plays: a child of the expanded copy that lost (each
    defense of the Orcs here ends the round at the refresh, which raises the threat to 50 from 49) makes the
    next playout a loss."""
    S = make_state(phase="defense", engaged=[18], threat=threat, rules="published+stale-flags").core_state()
    masks, G, mid, scratch = np.empty(64, np.int64), np.empty_like(S), np.empty_like(S), np.empty_like(S)
    act, plan, err = np.empty(L.N_CARDS, np.int64), np.empty(L.N_CARDS, np.int64), np.zeros(4, np.int64)
    assert expansion_flag(S, np.array([1, 1, 1]), np.array([5], np.uint64), masks, G, act, plan, mid, err,
                          scratch) == flag


ALL_SEARCH_DEFECTS = ("published+double-resources+refresh-at-fifty+unopposed+by-name+stale-flags+second-travel+"
                      "round-after-win+unseen-win")


@pytest.mark.parametrize("rules", ["published", "published+double-resources+refresh-at-fifty+unopposed+by-name",
                                   ALL_SEARCH_DEFECTS])
def test_published_games_run_and_the_rolled_plans_are_played(rules):
    PLANS.clear()
    setup = Setup.parse(f"{P}-{P}-{P}-{P}-{P}", "lotr").with_params({"budget": 30, "ppn": 10})
    result = evaluate_setup(setup, options={"difficulty": "hard", "rules": rules}, games=30, seed=2)
    assert result.games == 30
    assert len(PLANS) < 30  # travel and attack took their plans (a few are left by games that ended first)


def test_the_search_leaves_the_real_game_untouched():
    game = GameState("hard", 3, rules="published")
    before = game.core_state().copy()
    Agent(SMALL[P], seed=1).act(game)
    assert np.array_equal(game.core_state(), before)


def test_a_published_search_setup_reads_as_the_thesis_setup_it_reproduces():
    assert published_label(f"random-{P}-{P}-{P}-{P}") == "random-mcts-mcts"
    assert published_label(f"{P}-random-random") == "mcts-random-random"
    assert published_label(f"{P}-{P}-{P}-random-random") == "mcts-mcts-random"
    assert published_label("random-mcts-mcts") == "random-mcts-mcts"


def scaled_report(folder: Path, capsys, names: tuple[str, ...], scaled) -> str:
    """The report of the study files ``names``, each rewritten by ``scaled`` into ``folder`` and run there."""
    paths = []
    for name in names:
        path = folder / f"{name}.toml"
        path.write_text(scaled((Path(__file__).resolve().parent.parent / "studies" / "lotr" / "paper" / f"{name}.toml").read_text()))
        run_study(load_study(path))
        paths.append(str(path))
    code, _, err = run_cli(capsys, "report", *paths, "--out", "docs/results.md")
    assert code == 0, err
    return (folder / "docs" / "results.md").read_text()


@pytest.mark.slow
def test_the_published_rules_section_sets_ours_under_both_rules_beside_the_thesis(in_tmp, capsys):
    text = scaled_report(in_tmp, capsys, ("random-baseline", "random-baseline-published"),
                         lambda study: study.replace("[objective]\ngames = 100000", "[objective]\ngames = 400"))
    table = text[text.index("## Random agent under the published rules"):].split("\n\n")[2].splitlines()
    assert "`random-baseline`: win % [95% CI] (games)" in table[0] and "docs/lotr-rules.md" in table[0]
    hard = next(row for row in table if row.startswith("| hard"))
    assert hard.count("(400)") == 2 and "4.53 ± 0.13 (Table 3.2)" in hard and "| 4.25 |" in hard


@pytest.mark.slow
def test_a_published_section_sets_the_honest_corrected_row_beside_it_not_the_oracle_one(in_tmp, capsys):
    """Figure 6.2 under the published rules: each row (setup as the thesis names it, reduction, ppn) has beside it
    the corrected game's honest search of the same row (``mcts-ppn``), never its ORACLE row, whose key is the same."""
    def scaled(study: str) -> str:
        study = study.replace("games = 1000", "games = 200").replace("budget = 200", "budget = 20")
        return re.sub(r"ppn = \{ choice = \[[0-9, ]+\] \}", "ppn = { choice = [20] }", study)

    text = scaled_report(in_tmp, capsys, ("mcts-ppn", "mcts-ppn-published"), scaled)

    def rows(title: str) -> list[list[str]]:
        table = text[text.index(title):].split("\n\n")[2].splitlines()
        return [[cell.strip() for cell in row.strip("|").split("|")] for row in table[2:]]

    corrected_rows = rows("## Playouts per node at budget 200, random-mcts-mcts")
    honest = {(row[1], row[2]): row[3] for row in corrected_rows if row[0] == "honest"}
    oracle = {(row[1], row[2]): row[3] for row in corrected_rows if row[0] == "ORACLE"}
    assert all(honest[key] != oracle[key] for key in (("on", "20"), ("off", "20")))
    published_rows = [row for row in rows("## Playouts per node at budget 200 under the published rules")
                      if row[3] != "-"]  # not the thesis's peak alone
    assert sorted((row[0], row[1], row[2]) for row in published_rows) == [("random-mcts-mcts", r, "20")
                                                                          for r in ("off", "on")]
    for row in published_rows:
        assert row[5] == honest[row[1], row[2]], row  # ours, ms/game, then the corrected game's honest row


def test_the_published_code_benchmark_refuses_a_folder_that_is_not_its_checkout(tmp_path):
    """benchmarks/bench_published_code.py imports a checkout of kondziug/LOTR_AI: anything else is one line."""
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_published_code.py"
    done = subprocess.run([sys.executable, str(script), "--checkout", str(tmp_path)], capture_output=True, text=True,
                          check=False)
    assert done.returncode != 0
    assert done.stderr.strip() == f"--checkout {tmp_path}: no vanilla_mcts/mctsAgent.py there; clone kondziug/LOTR_AI"


def test_the_journal_code_benchmark_refuses_other_folders_and_the_unpublished_agent_in_one_line(tmp_path):
    """benchmarks/bench_journal_code.py imports checkouts of kondziug/LotR_simulator and kondziug/LOTR_AI from before
    the thesis's game: another folder, a later checkout or a mixture with the unpublished flat Monte Carlo is one line."""
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_journal_code.py"
    simulator, checkout = tmp_path / "LotR_simulator", tmp_path / "LOTR_AI"

    def run(*extra):
        done = subprocess.run([sys.executable, str(script), "--simulator", str(simulator), "--checkout", str(checkout),
                               *extra], capture_output=True, text=True, check=False)
        assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        return done.stderr.strip()

    assert run() == f"--simulator {simulator}: no globals.py and expertAgent.py there; clone kondziug/LotR_simulator"
    simulator.mkdir()
    for name in ("globals.py", "expertAgent.py"):
        (simulator / name).write_text("")
    assert run() == f"--checkout {checkout}: no vanilla_mcts/mctsAgent.py there; clone kondziug/LOTR_AI"
    (checkout / "vanilla_mcts").mkdir(parents=True)
    (checkout / "vanilla_mcts" / "mctsAgent.py").write_text("")
    assert run("--mixture", "3-2-2").startswith("--mixture '3-2-2': the paper's flat Monte Carlo (agent 3)")
    assert run("--mixture", "4-2").startswith("--mixture '4-2': give planning-questing-defense")
    done = subprocess.run([sys.executable, str(script), "--simulator", str(simulator), "--checkout", str(checkout),
                           "--games", "0"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stderr.strip().endswith("argument --games: 0 is below 1")  # argparse's usage first
    (checkout / "mainConfig.py").write_text("")
    assert run().startswith(f"--checkout {checkout}: it has the thesis's game (mainConfig.py)")
