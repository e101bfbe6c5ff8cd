"""The game option ``rules``: the published simulator's defects (lotr_sim/defects.py,
docs/lotr-published-rules.md), each on its own, on hand-made positions (conftest.make_state).
Hero ids: 0 Dunhere (4 hitpoints), 1 Eowyn (3), 2 Eleanor (defense 2, 3 hitpoints)."""

import numpy as np
import pytest
from conftest import make_state

from agents.evaluation import evaluate_setup
from agents.setup import Setup
from gamecore.errors import SpecError
from lotr_sim import Attack, Defend, GameState, IllegalActionError, Outcome, Plan, Quest, Stage
from lotr_sim.defects import RULES_CHOICES, defect_names, rules_code

ORCS = 18  # attack 2
PATROL = 26  # attack 3
SPAWN = 30  # attack 5
TOOK = 9  # 2 hitpoints, defense 1
TRACKER = 6  # 3 hitpoints, defense 2
RIDER = 12  # willpower 2
GANDALF, GANDALF_2 = 15, 16


def test_corrected_is_the_default_and_deals_the_same_game():
    for seed in range(20):
        assert np.array_equal(GameState("hard", seed).core_state(),
                              GameState("hard", seed, rules="corrected").core_state())
        assert GameState("hard", seed).rules == "corrected"


def test_rules_values_name_their_defects():
    assert defect_names("published") == ("list-skip", "late-destroy")
    assert defect_names("published+double-resources") == ("list-skip", "late-destroy", "double-resources")
    assert rules_code("corrected") == 0
    assert GameState("easy", 1, rules="published").rules == "list-skip+late-destroy"
    assert "list-skip+late-destroy" in RULES_CHOICES
    with pytest.raises(SpecError, match="rules") as refused:
        evaluate_setup(Setup.parse("random", "lotr"), options={"rules": "buggy"}, games=1)
    assert "in this order: list-skip, late-destroy" in str(refused.value) and len(str(refused.value)) < 400
    with pytest.raises(ValueError, match="unknown rules"):
        GameState("easy", 1, rules="buggy")


# -- late-destroy ------------------------------------------------------------------------


@pytest.mark.parametrize("rules, destroyed_now", [("corrected", True), ("late-destroy", False)])
def test_a_destroyed_defender_waits_for_the_refresh(rules, destroyed_now):
    g = make_state(phase="defense", in_play=[TOOK], engaged=[SPAWN], encounter_deck=[], rules=rules)
    g.apply(Defend(blocks=[(SPAWN, TOOK)]))  # 5 - 1 = 4 >= 2 hitpoints
    assert (TOOK in g.observation().player_discard) == destroyed_now
    if not destroyed_now:
        assert TOOK in g.observation().in_play
        while g.round == 1:
            g.apply(g.legal_actions()[0])
        assert TOOK in g.observation().player_discard


def test_a_dead_hero_soaks_undefended_damage_under_late_destroy():
    """Eleanor (2 damage) dies defending the Patrol (3 - 2) and still takes the Spawn's undefended 5,
    which the corrected rules refuse."""
    def make(rules):
        return make_state(phase="defense", engaged=[PATROL, SPAWN], encounter_deck=[], damage={2: 2}, rules=rules)

    with pytest.raises(IllegalActionError, match="Eleanor"):
        make("corrected").apply(Defend(blocks=[(PATROL, 2)], undefended=[(SPAWN, 2)]))
    g = make("late-destroy")
    g.apply(Defend(blocks=[(PATROL, 2)], undefended=[(SPAWN, 2)]))
    obs = g.observation()
    assert 2 in obs.destroyed_heroes
    assert dict(obs.damage).get(0) is None and dict(obs.damage).get(1) is None


@pytest.mark.parametrize("willpower_wins", [True, False])
def test_losing_the_last_hero_while_defending_ends_at_the_next_questing(willpower_wins):
    """Eleanor, the last hero, dies defending: the game goes on to the next questing, won only there."""
    g = make_state(phase="defense", destroyed_heroes=[0, 1], in_play=[RIDER if willpower_wins else TOOK],
                   engaged=[SPAWN], encounter_deck=[], quest_progress=6 if willpower_wins else 0,
                   rules="late-destroy", hand=[])
    g.apply(Defend(blocks=[(SPAWN, 2)]))
    assert not g.is_over
    while not g.is_over and g.stage != Stage.QUESTING:
        g.apply(g.legal_actions()[0])
    assert g.observation().destroyed_heroes == (0, 1, 2)
    ally = g.observation().in_play
    g.apply(Quest(commit=ally))
    assert g.is_over
    assert g.outcome == (Outcome.WIN if willpower_wins else Outcome.LOST_BY_HEROES)


# -- list-skip ---------------------------------------------------------------------------


@pytest.mark.parametrize("rules, survivor", [("corrected", None), ("list-skip", GANDALF_2)])
def test_a_second_gandalf_escapes_the_discard(rules, survivor):
    g = make_state(phase="attack", in_play=[GANDALF, GANDALF_2], ally_order=[GANDALF, GANDALF_2], hand=[],
                   exhausted=[GANDALF, GANDALF_2, 0, 1, 2], rules=rules)
    g.apply(Attack())
    in_play = set(g.observation().in_play)
    assert GANDALF not in in_play
    assert (GANDALF_2 in in_play) == (survivor is not None)


def test_list_skip_follows_the_purchase_order():
    """Bought Gandalf #16 first: removing it skips #15, which stays."""
    g = make_state(phase="attack", in_play=[GANDALF, GANDALF_2], ally_order=[GANDALF_2, GANDALF], hand=[],
                   exhausted=[GANDALF, GANDALF_2, 0, 1, 2], rules="list-skip")
    g.apply(Attack())
    assert GANDALF in g.observation().in_play and GANDALF_2 not in g.observation().in_play


def test_a_destroyed_character_after_another_stays_in_play_at_zero_hitpoints():
    """Both allies die defending; the second one in the list is skipped and plays on with 4 damage."""
    g = make_state(phase="defense", in_play=[TOOK, TRACKER], ally_order=[TOOK, TRACKER], engaged=[ORCS, SPAWN],
                   encounter_deck=[], damage={TOOK: 1}, hand=[], rules="published")
    g.apply(Defend(blocks=[(ORCS, TOOK), (SPAWN, TRACKER)]))  # Took 1 + 1 = 2; Tracker 5 - 2 = 3
    while g.round == 1:
        g.apply(g.legal_actions()[0])
    obs = g.observation()
    assert TOOK in obs.player_discard
    assert TRACKER in obs.in_play and dict(obs.damage)[TRACKER] >= 3


# -- the search's defects ------------------------------------------------------------------


def test_double_resources_from_the_second_round():
    g = make_state(phase="attack", hand=[], resources=(0, 0, 0), rules="double-resources")
    g.apply(Attack())
    assert g.round == 2 and g.observation().resources == (2, 2, 2)
    assert len(g.observation().hand) == 2


@pytest.mark.parametrize("rules, over", [("corrected", True), ("refresh-at-fifty", False)])
def test_refresh_at_fifty(rules, over):
    g = make_state(phase="attack", hand=[], threat=49, rules=rules)
    g.apply(Attack())
    assert g.is_over == over
    if not over:
        assert g.threat == 50
        while g.stage != Stage.QUESTING:
            g.apply(g.legal_actions()[0])
        g.apply(Quest(commit=[0]))
        assert g.outcome == Outcome.LOST_BY_THREAT


def test_unopposed_defense_skips_combat():
    g = make_state(phase="defense", engaged=[SPAWN], encounter_deck=[], rules="unopposed", hand=[])
    g.apply(Defend())
    assert g.round == 2 and not g.observation().damage
    with pytest.raises(IllegalActionError):
        make_state(phase="defense", engaged=[SPAWN], encounter_deck=[]).apply(Defend())


@pytest.mark.parametrize("rules", ["corrected", "published", "published+unopposed"])
def test_unopposed_offers_the_defense_of_a_lone_exhausted_hero(rules):
    """Dunhere, the last hero, quests and is exhausted; the Orcs (2) and the Patrol (3) are engaged. The game alone
    sends both attacks to him (5 damage, 4 hitpoints: lost); under unopposed the published search decides this
    defense too (its subsets of 2 from 1 character: none), so naming no one lets no enemy attack."""
    g = make_state(phase="questing", destroyed_heroes=[1, 2], engaged=[ORCS, PATROL], encounter_deck=[], rules=rules,
                   hand=[])
    g.apply(Quest(commit=[0]))
    if "unopposed" not in rules:
        assert g.outcome == Outcome.LOST_BY_HEROES
        return
    assert g.stage == Stage.DEFENSE
    g.apply(Defend())
    assert g.outcome == Outcome.ONGOING and g.round == 2 and not g.observation().damage


def test_published_random_agent_wins_more_than_corrected():
    """The defects favour the player (the published code gave 55.95 / 53.68 / 4.48 %, 40,000 games)."""
    random = Setup.parse("random", "lotr")
    corrected = evaluate_setup(random, options={"difficulty": "easy"}, games=20_000, seed=3)
    published = evaluate_setup(random, options={"difficulty": "easy", "rules": "published"}, games=20_000, seed=3)
    assert published.wins > corrected.wins


def test_one_per_name_keeps_one_card_of_each_name_between_stages():
    """Two Wandering Tooks in play and two Orcs engaged: after the planning one of each is left."""
    g = make_state(phase="planning", in_play=[TOOK, TOOK + 1, TRACKER], engaged=[ORCS, ORCS + 1], hand=[TOOK + 2],
                   resources=(2, 0, 0), damage={ORCS + 1: 1}, encounter_deck=[], rules="one-per-name")
    g.apply(Plan(buy=[]))
    obs = g.observation()
    assert [c for c in obs.in_play if c >= 3] == [TRACKER, TOOK] and TOOK + 1 in obs.player_discard
    assert obs.engaged == (ORCS,) and dict(obs.damage)[ORCS] == 1


# -- win-below-zero ----------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["corrected", "win-below-zero"])
def test_a_quest_at_exactly_zero_points_waits_for_more_progress_under_win_below_zero(rules):
    """The last quest card brought to exactly zero points wins at once, except under win-below-zero, where the next
    questing that places progress wins (more than enough at once wins in both)."""
    def questing(progress):
        return make_state(phase="questing", in_play=[RIDER], encounter_deck=[], quest_progress=progress, rules=rules,
                          hand=[])

    g = questing(6)
    g.apply(Quest(commit=[RIDER]))  # willpower 2 against no threat: the 8 points reached exactly
    assert g.is_over == (rules == "corrected")
    if not g.is_over:
        while g.stage != Stage.QUESTING:
            g.apply(g.legal_actions()[0])
        g.apply(Quest(commit=[RIDER]))
        assert g.is_over
    assert g.outcome == Outcome.WIN
    g = questing(7)
    g.apply(Quest(commit=[RIDER]))  # one point below zero
    assert g.is_over and g.outcome == Outcome.WIN


# -- idle-quest (the published direct learner's questing) ----------------------------------


@pytest.mark.parametrize("rules", ["published", "published+idle-quest"])
def test_an_empty_questing_resolves_nothing_under_idle_quest(rules):
    """A questing that commits nobody reveals the Spawn (threat 1) and raises the threat by the staging area's, except
    under idle-quest, where nothing is revealed and the threat stays; a questing that commits someone resolves."""
    def questing():
        return make_state(phase="questing", staging=[ORCS], encounter_deck=[SPAWN, PATROL], rules=rules, hand=[])

    g = questing()
    threat = g.threat
    g.apply(Quest(commit=[]))
    idle = "idle-quest" in rules
    assert (SPAWN in g.observation().staging) != idle
    assert (g.threat == threat) == idle and not g.is_over
    g = questing()
    g.apply(Quest(commit=[0]))
    assert SPAWN in g.observation().staging
