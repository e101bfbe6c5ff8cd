"""The compiled policies: the thesis's expert rules and random agent (docs/lotr-rules.md), and the macro-action rule."""

import numpy as np
import pytest
from conftest import make_state
from scipy import stats

from agents.evaluation import evaluate_setup
from agents.setup import Setup
from lotr_sim import Attack, Defend, Plan, Quest, Travel

ORCS, SPIDER, PATROL, BATS, KING_SPIDER, SPAWN = 18, 22, 26, 27, 28, 30
NECRO_PASS, OLD_ROAD, FOREST_GATE, MOUNTAINS = 31, 34, 36, 40
LORIEN, TRACKER, TOOK, TOOK2, RIDER, GANDALF = 3, 6, 9, 10, 12, 15


def expert(g, seed=0):
    return g.policy_action("expert", seed)


# -- expert: planning --------------------------------------------------------------------


def test_expert_buys_gandalf_when_affordable():
    g = make_state(phase="planning", hand=[GANDALF, TOOK, TRACKER], resources=(2, 2, 1))
    assert expert(g) == Plan(buy=[GANDALF])


def test_expert_buys_wandering_took_with_gandalf_in_hand_and_four_resources():
    g = make_state(phase="planning", hand=[GANDALF, LORIEN, TOOK, TOOK2], resources=(2, 1, 1))
    assert expert(g) == Plan(buy=[TOOK])


def test_expert_saves_for_gandalf_with_three_resources():
    g = make_state(phase="planning", hand=[GANDALF, LORIEN, TOOK], resources=(1, 1, 1))
    for seed in range(20):
        assert expert(g, seed) == Plan()


def test_expert_with_gandalf_and_no_took_buys_nothing():
    g = make_state(phase="planning", hand=[GANDALF, LORIEN], resources=(2, 1, 1))
    assert expert(g) == Plan()


def test_expert_without_gandalf_plans_like_the_random_agent():
    g = make_state(phase="planning", hand=[LORIEN, TRACKER, TOOK, RIDER], resources=(3, 2, 2))
    choices = set()
    for seed in range(50):
        choice = expert(g, seed)
        assert choice == g.policy_action("random", seed)
        choices.add(choice)
    assert len(choices) > 3


# -- expert: questing --------------------------------------------------------------------


def test_expert_commits_by_willpower_over_defense_until_threat_plus_two():
    """Keys: Eowyn 4, Dunhere 1, Eleanor 0.5, Tracker 0.5, Rider 0 (defense 0).
    Staging threat 3 -> need 5: Eowyn (4) + Dunhere (5)."""
    g = make_state(phase="questing", in_play=[TRACKER, RIDER], staging=[NECRO_PASS])
    assert expert(g) == Quest(commit=[0, 1])


def test_expert_commits_more_when_the_staging_threat_is_higher():
    """Staging threat 5 -> need 7: Eowyn 4, Dunhere 5, Eleanor and Tracker 7; not the Rider."""
    g = make_state(phase="questing", in_play=[TRACKER, RIDER], staging=[NECRO_PASS, ORCS])
    assert expert(g) == Quest(commit=[0, 1, 2, TRACKER])


def test_expert_puts_zero_defense_characters_last():
    """Rider of Rohan (willpower 2, defense 0) ranks below Eleanor (willpower 1, defense 2)."""
    g = make_state(phase="questing", destroyed_heroes=[0], in_play=[RIDER], staging=[NECRO_PASS])
    assert expert(g) == Quest(commit=[1, 2])  # 4, then 5 >= 3 + 2


def test_expert_commits_just_eowyn_against_an_empty_staging_area():
    g = make_state(phase="questing", in_play=[GANDALF])
    assert expert(g) == Quest(commit=[1])  # Eowyn's key 4 beats Gandalf's 1; 4 >= 2


def test_expert_commits_everyone_when_it_cannot_reach_the_target():
    g = make_state(phase="questing", staging=[NECRO_PASS, PATROL, SPAWN])
    assert expert(g) == Quest(commit=[0, 1, 2])


def test_expert_ignores_exhausted_characters_when_questing():
    g = make_state(phase="questing", in_play=[TRACKER], staging=[NECRO_PASS], exhausted=[1])
    assert expert(g) == Quest(commit=[0, 2, TRACKER])  # 1 + 1 + 1 = 3 < 5: all ready ones


# -- expert: travel ----------------------------------------------------------------------


def test_expert_travels_to_smallest_quest_points_over_threat():
    """Forest Gate 4/2 = 2, Necromancer's Pass 2/3, Old Forest Road 3/1 = 3: the pass."""
    g = make_state(phase="travel", staging=[NECRO_PASS, OLD_ROAD, FOREST_GATE])
    assert expert(g) == Travel(NECRO_PASS)


def test_expert_travel_compares_ratios_not_quest_points():
    """Mountains of Mirkwood 3/2 = 1.5 beats Old Forest Road 3/1 though both have 3 points."""
    g = make_state(phase="travel", staging=[OLD_ROAD, MOUNTAINS])
    assert expert(g) == Travel(MOUNTAINS)
    g = make_state(phase="travel", staging=[FOREST_GATE, OLD_ROAD])  # 2 < 3
    assert expert(g) == Travel(FOREST_GATE)


# -- expert: defense ---------------------------------------------------------------------


def test_expert_gives_the_strongest_enemy_the_best_defender():
    """Spawn (attack 5) gets Eleanor (defense 2); the Orcs (attack 2) get Dunhere (defense 1)."""
    g = make_state(phase="defense", engaged=[ORCS, SPAWN], exhausted=[1])
    assert expert(g) == Defend(blocks=[(ORCS, 0), (SPAWN, 2)])


def test_expert_defends_with_gandalf_against_the_strongest():
    g = make_state(phase="defense", in_play=[GANDALF, TOOK], engaged=[BATS, KING_SPIDER], exhausted=[0, 1, 2])
    assert expert(g) == Defend(blocks=[(BATS, TOOK), (KING_SPIDER, GANDALF)])


def test_expert_sends_unblocked_damage_to_the_hero_with_most_hitpoints_left():
    """Nobody ready. Remaining hitpoints: Dunhere 4, Eowyn 2, Eleanor 3. The Orcs (first
    by id) hit Dunhere (4 -> 2); then the Patrol hits Eleanor (3 left, now the most)."""
    g = make_state(phase="defense", engaged=[ORCS, PATROL], exhausted=[0, 1, 2], damage={1: 1})
    assert expert(g) == Defend(undefended=[(ORCS, 0), (PATROL, 2)])


def test_expert_leaves_weaker_enemies_unblocked_when_defenders_run_out():
    """One ready character (Eleanor) for two enemies: she blocks the Spawn; the Orcs'
    attack goes to the sturdiest hero (Dunhere, 4 hitpoints)."""
    g = make_state(phase="defense", engaged=[ORCS, SPAWN], exhausted=[0, 1])
    assert expert(g) == Defend(blocks=[(SPAWN, 2)], undefended=[(ORCS, 0)])


# -- expert: attack ----------------------------------------------------------------------


def test_expert_attacks_the_weakest_enemy_with_the_strongest_attacker():
    """Toughness (defense + hitpoints left): Bats 2, Patrol 3, Spawn 11. Gandalf (4) takes
    the bats, the Tracker (2) the patrol, Eowyn (1) the Spawn."""
    g = make_state(phase="attack", in_play=[TRACKER, GANDALF], engaged=[PATROL, BATS, SPAWN], exhausted=[0, 2])
    assert expert(g) == Attack(attacks=[(1, SPAWN), (TRACKER, PATROL), (GANDALF, BATS)])


def test_expert_attack_counts_damage_already_taken():
    """The Spawn has 8 damage: toughness 2 + 1 = 3 < King Spider's 1 + 3 = 4."""
    g = make_state(phase="attack", in_play=[GANDALF], engaged=[KING_SPIDER, SPAWN], exhausted=[0, 2], damage={SPAWN: 8})
    assert expert(g) == Attack(attacks=[(1, KING_SPIDER), (GANDALF, SPAWN)])


def test_expert_attacks_each_enemy_once_and_leaves_extra_attackers_idle():
    g = make_state(phase="attack", in_play=[GANDALF], engaged=[PATROL])
    assert expert(g) == Attack(attacks=[(GANDALF, PATROL)])


# -- random agent ------------------------------------------------------------------------


def test_random_questing_draws_the_number_of_committed_characters_uniformly():
    """k uniform in 0..3 then a uniform k-subset: sizes 0..3 each a quarter of the time
    (uniform over subsets would give 1:3:3:1)."""
    g = make_state(phase="questing")
    sizes = [len(g.policy_action("random", s).commit) for s in range(4000)]
    counts = np.bincount(sizes, minlength=4)
    assert stats.chisquare(counts).pvalue > 0.001
    singles = [g.policy_action("random", s).commit for s in range(4000)]
    ones = [c[0] for c in singles if len(c) == 1]
    assert stats.chisquare(np.bincount(ones, minlength=3)).pvalue > 0.001


def test_random_travel_is_uniform_over_locations_and_staying():
    g = make_state(phase="travel", staging=[NECRO_PASS, OLD_ROAD])
    choices = [g.policy_action("random", s).location for s in range(3000)]
    counts = [choices.count(c) for c in (None, NECRO_PASS, OLD_ROAD)]
    assert sum(counts) == 3000
    assert stats.chisquare(counts).pvalue > 0.001


def test_random_defense_always_blocks_while_someone_is_ready():
    g = make_state(phase="defense", engaged=[ORCS])
    defenders = []
    for s in range(3000):
        a = g.policy_action("random", s)
        assert a.undefended == ()
        defenders.append(a.blocks[0][1])
    assert stats.chisquare(np.bincount(defenders, minlength=3)).pvalue > 0.001


def test_random_defense_sends_damage_to_a_random_hero_when_nobody_is_ready():
    g = make_state(phase="defense", engaged=[BATS], exhausted=[0, 1, 2])
    heroes = [g.policy_action("random", s).undefended[0][1] for s in range(3000)]
    assert stats.chisquare(np.bincount(heroes, minlength=3)).pvalue > 0.001


def test_random_attack_targets_enemies_still_in_play():
    """Dunhere kills the bats; the random agent never sends Eowyn at them afterwards."""
    g = make_state(phase="attack", engaged=[BATS, SPAWN], exhausted=[2])
    seen = set()
    for s in range(500):
        a = g.policy_action("random", s)
        assert g.is_legal(a)
        seen.add(a)
    assert Attack(attacks=[(0, BATS), (1, SPAWN)]) in seen


def test_random_planning_buys_only_what_it_can_afford():
    g = make_state(phase="planning", hand=[GANDALF, TRACKER, TOOK, TOOK2], resources=(2, 2, 1))
    bought = set()
    for s in range(500):
        a = g.policy_action("random", s)
        assert g.is_legal(a)
        bought.add(a)
    assert Plan(buy=[GANDALF]) in bought and Plan(buy=[TOOK, TOOK2]) in bought and Plan() in bought


# -- rule: the RL macro actions' fixed rule -----------------------------------------------


def test_rule_buys_allies_by_willpower_per_cost_while_affordable():
    """Gandalf 4/5, Rider 2/3, Took 1/2, Tracker 1/4, Lorien Guide 0/3."""
    g = make_state(phase="planning", hand=[LORIEN, TRACKER, TOOK, RIDER, GANDALF], resources=(2, 2, 1))
    assert g.policy_action("rule", 0) == Plan(buy=[GANDALF])
    g = make_state(phase="planning", hand=[LORIEN, TRACKER, TOOK, RIDER], resources=(2, 2, 2))
    assert g.policy_action("rule", 0) == Plan(buy=[TOOK, RIDER])  # then 1 left: neither Tracker nor Lorien Guide
    g = make_state(phase="planning", hand=[GANDALF, RIDER], resources=(1, 1, 1))
    assert g.policy_action("rule", 0) == Plan(buy=[RIDER])  # Gandalf unaffordable: the next in order


def test_rule_commits_every_ready_character():
    g = make_state(phase="questing", in_play=[TRACKER, RIDER], staging=[NECRO_PASS], exhausted=[1])
    assert g.policy_action("rule", 0) == Quest(commit=[0, 2, TRACKER, RIDER])


def test_rule_travels_defends_and_attacks_as_the_expert(decision_states):
    later = [g for g in decision_states if g.stage.name in ("TRAVEL", "DEFENSE", "ATTACK")]
    assert {g.stage.name for g in later} == {"TRAVEL", "DEFENSE", "ATTACK"}
    for i, g in enumerate(later):
        assert g.policy_action("rule", i) == g.policy_action("expert", i)


@pytest.mark.parametrize("policy", ["random", "expert", "rule", "rule-full"])
def test_policy_actions_depend_on_the_seed_only(policy):
    g = make_state(phase="questing", in_play=[TRACKER, RIDER, TOOK], staging=[ORCS])
    assert {g.policy_action(policy, 5) for _ in range(5)} == {g.policy_action(policy, 5)}


# -- rule-full: the rule over the full scenario (lotr_sim/combat.py plans the combat) ------------


def full(g):
    return g.policy_action("rule-full", 0)


def test_rule_full_holds_back_a_defender_and_a_group_that_destroys_an_engaged_enemy():
    """Orcs (attack 2, 3 hitpoints, defense 0) engaged: Eleanor blocks them for nothing (saves 2, costs a quarter
    of her willpower), Dunhere and the Rider destroy them (1.5 for their attack to come, less 0.75 of willpower),
    Eowyn quests. The rule commits everyone."""
    g = make_state(phase="questing", in_play=[RIDER], staging=[OLD_ROAD], engaged=[ORCS], quest_stages=3,
                   quest_stage=2, quest_progress=5)
    assert full(g) == Quest(commit=[1])
    assert g.policy_action("rule", 0) == Quest(commit=[0, 1, 2, RIDER])


def test_rule_full_commits_everyone_when_the_last_stage_is_won_whatever_the_reveal():
    """Beorn's Path 6/10: 8 willpower against Old Forest Road's 1 and the strongest reveal's 3 makes 4."""
    g = make_state(phase="questing", in_play=[RIDER], staging=[OLD_ROAD], engaged=[ORCS], quest_stages=3,
                   quest_stage=2, quest_progress=6)
    assert full(g) == Quest(commit=[0, 1, 2, RIDER])
    not_last = make_state(phase="questing", in_play=[RIDER], staging=[OLD_ROAD], engaged=[ORCS], quest_stages=3,
                          quest_stage=1, quest_progress=0)  # A Fork in the Road: 2 points, the stage after it waits
    assert full(not_last) != Quest(commit=[0, 1, 2, RIDER])


def test_rule_full_keeps_back_willpower_that_only_overshoots_the_stage():
    """A Fork in the Road (2 points), nothing staged: 5 willpower completes it against any reveal (3 at most);
    of 12, Gandalf, Dunhere and Eleanor (the best fighters) stay back, Eowyn and the Rider quest."""
    g = make_state(phase="questing", in_play=[GANDALF, RIDER], quest_stages=3, quest_stage=1)
    assert full(g) == Quest(commit=[1, RIDER])


def test_rule_full_never_commits_a_character_without_willpower():
    g = make_state(phase="questing", in_play=[LORIEN], staging=[NECRO_PASS])
    assert full(g) == Quest(commit=[0, 1, 2])
    assert g.policy_action("rule", 0) == Quest(commit=[0, 1, 2, LORIEN])


def test_rule_full_defends_where_it_costs_least_and_keeps_a_group_to_destroy_an_enemy():
    """The Tracker takes the Patrol's 3 (1 damage, survives), Eleanor the Orcs' 2 (none); Dunhere and Eowyn stay
    ready to destroy the Orcs. The expert gives the strongest enemy the best defender: Eleanor the Patrol."""
    g = make_state(phase="defense", in_play=[TRACKER], engaged=[ORCS, PATROL])
    assert full(g) == Defend(blocks=[(ORCS, 2), (PATROL, TRACKER)])
    assert expert(g) == Defend(blocks=[(ORCS, TRACKER), (PATROL, 2)], undefended=[])


def test_rule_full_sends_a_fatal_attack_to_the_hero_with_the_least_willpower():
    """King Spider's 3 kills whoever takes it (2, 3 and 2 hitpoints left): Dunhere (willpower 1, the fewest
    hitpoints left, then the lower id), not Eowyn, whom the expert's most-hitpoints rule gives it."""
    g = make_state(phase="defense", engaged=[KING_SPIDER], exhausted=[0, 1, 2], damage={0: 2, 2: 1})
    assert full(g) == Defend(undefended=[(KING_SPIDER, 0)])
    assert expert(g) == Defend(undefended=[(KING_SPIDER, 1)])


def test_rule_full_strikes_with_everyone_the_enemies_it_can_destroy():
    """The Orcs (attack 2) first: Dunhere (2), then Eowyn, the weakest who finishes them; then the Rider destroys
    the Bats alone. The expert strikes each enemy once: Dunhere the Bats, the Rider the Orcs (which survive)."""
    g = make_state(phase="attack", in_play=[RIDER], engaged=[ORCS, BATS])
    assert full(g) == Attack(attacks=[(0, ORCS), (1, ORCS), (RIDER, BATS)])
    assert expert(g) == Attack(attacks=[(0, BATS), (RIDER, ORCS)])


def test_rule_full_plans_and_travels_as_the_rule(decision_states):
    earlier = [g for g in decision_states if g.stage.name in ("PLANNING", "TRAVEL")]
    assert {g.stage.name for g in earlier} == {"PLANNING", "TRAVEL"}
    for i, g in enumerate(earlier):
        assert full(g) == g.policy_action("rule", i)


def test_rule_full_beats_the_rule_over_the_full_scenario_as_an_agent_and_as_a_playout():
    """Full hard deals of seed 77: alone, rule-full wins 86.6% [84.4, 88.6] of 1,000 where the rule, which commits
    everyone and loses its heroes, wins 6.2% [4.9, 7.9]; as the playouts of flat-mc questing and defense (budget
    50, no reduction, the rule at the other stages) it wins 65.0% [58.2, 71.3] of 200 where the rule's playouts
    win 22.0% [16.8, 28.2]."""
    full_scenario = {"difficulty": "hard", "full_scenario": True}

    def interval(setup, games):
        return evaluate_setup(setup, options=full_scenario, games=games, seed=77).wilson_95

    assert interval(Setup.uniform("rule", "lotr"), 1000)[1] < interval(Setup.uniform("rule-full", "lotr"), 1000)[0]
    searched = Setup.parse("rule-flat-mc-rule-flat-mc-rule", "lotr").with_params({"budget": 50, "reduction": False})
    by_rule = interval(searched.with_params({"playout": "rule"}), 200)
    by_rule_full = interval(searched.with_params({"playout": "rule-full"}), 200)
    assert by_rule[1] < by_rule_full[0]
