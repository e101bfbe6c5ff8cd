"""One test per rule of docs/lotr-rules.md that an implementation can get wrong.

Most tests build a hand-made position (conftest.make_state), apply one
decision and look at what the rules did. Hero ids: 0 Dunhere (willpower 1),
1 Eowyn (willpower 4), 2 Eleanor (willpower 1, defense 2).
"""

import pytest
from conftest import make_state

from lotr_sim import Attack, Defend, GameState, Outcome, Plan, Quest, Stage, Travel
from lotr_sim.cards import ENEMY_IDS, LOCATION_IDS

ORCS = 18  # attack 2, defense 0, hitpoints 3, engagement 10, threat 2
FOREST_SPIDER = 22  # engagement 25
PATROL = 26  # East Bight Patrol: attack 3, defense 1, hitpoints 2, threat 3
BATS = 27  # attack 1, defense 0, hitpoints 2, threat 1
KING_SPIDER = 28  # attack 3, engagement 20, threat 2
SPAWN = 30  # Ungoliant's Spawn: attack 5
NECRO_PASS = 31  # threat 3, quest points 2
STREAM = 32  # threat 2, quest points 2
OLD_ROAD = 34  # threat 1, quest points 3
TRACKER = 6  # Northern Tracker: defense 2
TOOK = 9  # Wandering Took: cost 2, defense 1, hitpoints 2
GANDALF = 15


# -- encounter ---------------------------------------------------------------------------


@pytest.mark.parametrize("threat, engages", [(20, True), (21, True), (19, False)])
def test_enemy_engages_when_engagement_cost_at_most_threat(threat, engages):
    """King Spider (engagement 20) engages at threat 20, not at threat 19."""
    g = make_state(phase="questing", staging=[KING_SPIDER], encounter_deck=[], threat=threat)
    g.apply(Quest(commit=[1]))  # willpower 4 > staging threat 2: threat does not move
    obs = g.observation()
    if engages:
        assert obs.engaged == (KING_SPIDER,)
        assert obs.staging == ()
        assert g.stage == Stage.DEFENSE
    else:
        assert obs.engaged == ()
        assert obs.staging == (KING_SPIDER,)


def test_engagement_checks_each_staged_enemy():
    """Only the enemies whose cost is within the threat engage; locations never do."""
    g = make_state(
        phase="questing", staging=[ORCS, FOREST_SPIDER, KING_SPIDER, OLD_ROAD], encounter_deck=[], threat=23
    )
    g.apply(Quest(commit=[0, 1, 2]))  # willpower 6 - staging threat (2+2+2+1): threat 23 -> 24
    assert g.threat == 24
    assert g.stage == Stage.TRAVEL
    g.apply(Travel())
    obs = g.observation()
    assert obs.engaged == (ORCS, KING_SPIDER)
    assert obs.staging == (FOREST_SPIDER, OLD_ROAD)


# -- questing ----------------------------------------------------------------------------


def test_progress_overflows_from_explored_location_to_quest():
    """5 progress on Old Forest Road (3 points, 1 already): 2 explore it, 3 go to the quest."""
    g = make_state(phase="questing", active_location=OLD_ROAD, location_progress=1, encounter_deck=[])
    g.apply(Quest(commit=[0, 1]))  # willpower 5, staging threat 0
    obs = g.observation()
    assert obs.active_location is None
    assert OLD_ROAD in obs.encounter_discard
    assert obs.quest_progress == 3
    assert obs.location_progress == 0


def test_progress_stays_on_active_location_until_explored():
    g = make_state(phase="questing", active_location=OLD_ROAD, location_progress=0, encounter_deck=[])
    g.apply(Quest(commit=[0, 2]))  # willpower 2 < 3 quest points
    obs = g.observation()
    assert obs.active_location == OLD_ROAD
    assert obs.location_progress == 2
    assert obs.quest_progress == 0


def test_progress_without_active_location_goes_to_quest():
    g = make_state(phase="questing", staging=[BATS], encounter_deck=[], quest_progress=2)
    g.apply(Quest(commit=[1]))  # 4 - 1
    assert g.observation().quest_progress == 5


def test_win_at_questing_ends_the_game_at_once():
    """Quest progress reaching 8 wins: no travel, no encounter, no combat, no refresh."""
    g = make_state(
        phase="questing",
        staging=[ORCS, STREAM],
        engaged=[PATROL],
        encounter_deck=[],
        quest_progress=6,
        threat=30,
    )
    g.apply(Quest(commit=[0, 1, 2]))  # 6 - (2 + 2) = 2 -> 8
    assert g.is_over
    assert g.stage is None
    assert g.outcome == Outcome.WIN
    obs = g.observation()
    assert obs.quest_progress == 8
    assert obs.staging == (ORCS, STREAM)  # no travel to the stream, the orcs (cost 10) did not engage
    assert obs.engaged == (PATROL,)
    assert obs.damage == ()  # the patrol did not attack
    assert g.threat == 30  # no refresh
    assert g.round == 1


def test_win_counts_the_revealed_card():
    """The card revealed at questing counts towards the staging threat."""
    g = make_state(phase="questing", encounter_deck=[NECRO_PASS], quest_progress=6)
    g.apply(Quest(commit=[0, 1]))  # 5 - 3 = 2 -> 8: win
    assert g.outcome == Outcome.WIN
    g = make_state(phase="questing", encounter_deck=[NECRO_PASS], quest_progress=5)
    g.apply(Quest(commit=[0, 1]))  # 5 - 3 = 2 -> 7: not yet
    assert not g.is_over
    assert g.observation().quest_progress == 7
    assert NECRO_PASS in g.observation().staging


def test_questing_failure_raises_threat_by_the_difference():
    g = make_state(phase="questing", staging=[NECRO_PASS, PATROL], encounter_deck=[], threat=30, engaged=[])
    g.apply(Quest(commit=[2]))  # 1 - 6
    assert g.threat == 35


def test_committed_characters_are_exhausted():
    g = make_state(phase="questing", staging=[ORCS], encounter_deck=[], threat=30)  # orcs engage
    g.apply(Quest(commit=[1, 2]))
    assert g.stage == Stage.DEFENSE
    assert g.observation().exhausted == (1, 2)


@pytest.mark.parametrize("start, lost", [(47, True), (48, True), (46, False)])
def test_threat_fifty_loses_at_questing(start, lost):
    g = make_state(phase="questing", staging=[NECRO_PASS], encounter_deck=[], threat=start)
    g.apply(Quest())  # threat rises by 3
    assert g.threat >= start + 3
    if lost:
        assert g.is_over
        assert g.outcome == Outcome.LOST_BY_THREAT
        assert g.threat == start + 3
    else:
        assert not g.is_over
        assert g.outcome == Outcome.ONGOING


@pytest.mark.parametrize("start, lost", [(49, True), (48, False)])
def test_threat_fifty_loses_at_refresh(start, lost):
    g = make_state(phase="attack", threat=start, hand=[])
    g.apply(Attack())  # nothing engaged: straight to the refresh
    if lost:
        assert g.is_over
        assert g.outcome == Outcome.LOST_BY_THREAT
        assert g.threat == 50
        assert g.round == 1  # no new round started
    else:
        assert not g.is_over
        assert g.threat == 49
        assert g.round == 2


# -- staging threat ----------------------------------------------------------------------


def test_staging_threat_counts_staged_locations_not_engaged_enemies_nor_active_location():
    """Staging: Necromancer's Pass (3) + Orcs (2) = 5. Engaged Patrol (3) and the active
    Old Forest Road (1) do not count: willpower 5 gives result 0 exactly."""
    g = make_state(
        phase="questing",
        staging=[NECRO_PASS, ORCS],
        engaged=[PATROL],
        active_location=OLD_ROAD,
        encounter_deck=[],
        threat=24,
    )
    g.apply(Quest(commit=[0, 1]))
    obs = g.observation()
    assert g.threat == 24
    assert obs.location_progress == 0
    assert obs.quest_progress == 0
    assert g.stage == Stage.DEFENSE  # the orcs engaged: stopped before the refresh


def test_staging_threat_includes_staged_location_when_failing():
    g = make_state(phase="questing", staging=[NECRO_PASS], encounter_deck=[], threat=24)
    g.apply(Quest(commit=[2]))  # 1 - 3
    assert g.threat == 26


# -- travel ------------------------------------------------------------------------------


def test_travel_makes_location_active_and_stops_its_threat():
    g = make_state(phase="travel", staging=[NECRO_PASS, STREAM], encounter_deck=[], threat=24)
    g.apply(Travel(NECRO_PASS))
    obs = g.observation()
    assert obs.active_location == NECRO_PASS
    assert obs.staging == (STREAM,)
    # Next questing: only the stream (2) counts; Eowyn's 4 gives 2 progress: explores the pass.
    while g.stage != Stage.QUESTING:
        g.apply(g.legal_actions()[0])
    g.apply(Quest(commit=[1]))
    obs = g.observation()
    assert NECRO_PASS in obs.encounter_discard
    assert obs.active_location is None


def test_no_travel_decision_with_an_active_location():
    g = make_state(phase="questing", staging=[STREAM], active_location=OLD_ROAD, encounter_deck=[], threat=24)
    g.apply(Quest(commit=[1]))
    assert g.stage != Stage.TRAVEL
    assert g.observation().staging == (STREAM,)


# -- combat: defense ---------------------------------------------------------------------


def test_defender_takes_attack_minus_defense_and_undefended_hero_takes_full_attack():
    g = make_state(phase="defense", engaged=[PATROL, KING_SPIDER], encounter_deck=[])
    g.apply(Defend(blocks=[(PATROL, 2)], undefended=[(KING_SPIDER, 0)]))
    obs = g.observation()
    assert dict(obs.damage) == {2: 1, 0: 3}  # Eleanor: 3 - 2; Dunhere: the full 3
    assert 2 in obs.exhausted  # a defender is exhausted
    assert 0 not in obs.exhausted  # taking undefended damage does not exhaust
    assert g.stage == Stage.ATTACK


def test_defense_damage_is_never_negative():
    g = make_state(phase="defense", in_play=[GANDALF], engaged=[BATS], encounter_deck=[])
    g.apply(Defend(blocks=[(BATS, GANDALF)]))  # attack 1, defense 4
    assert g.observation().damage == ()


def test_defender_destroyed_when_damage_reaches_hitpoints():
    g = make_state(phase="defense", in_play=[TOOK], engaged=[SPAWN], encounter_deck=[])
    g.apply(Defend(blocks=[(SPAWN, TOOK)]))  # 5 - 1 = 4 >= 2
    obs = g.observation()
    assert TOOK not in obs.in_play
    assert TOOK in obs.player_discard


def test_hero_survives_damage_below_hitpoints():
    g = make_state(phase="defense", engaged=[PATROL], encounter_deck=[], damage={0: 0})
    g.apply(Defend(undefended=[(PATROL, 0)]))  # Dunhere: 3 < 4
    obs = g.observation()
    assert 0 in obs.in_play
    assert dict(obs.damage)[0] == 3


def test_losing_the_last_hero_during_defense_loses_at_once():
    """Eowyn and Dunhere are gone; the Patrol's undefended attack destroys Eleanor. The
    game is lost there, though a Northern Tracker is still in play."""
    g = make_state(
        phase="defense",
        destroyed_heroes=[0, 1],
        in_play=[TRACKER],
        engaged=[ORCS, PATROL],
        encounter_deck=[],
        threat=30,
    )
    g.apply(Defend(blocks=[(ORCS, TRACKER)], undefended=[(PATROL, 2)]))
    assert g.is_over
    assert g.outcome == Outcome.LOST_BY_HEROES
    obs = g.observation()
    assert obs.destroyed_heroes == (0, 1, 2)
    assert g.threat == 30  # no refresh ran
    assert g.round == 1


def test_losing_a_hero_while_others_remain_does_not_end_the_game():
    g = make_state(phase="defense", engaged=[PATROL], encounter_deck=[], damage={2: 1})
    g.apply(Defend(undefended=[(PATROL, 2)]))
    assert not g.is_over
    assert g.observation().destroyed_heroes == (2,)


def test_forced_defense_with_one_hero_left_and_nobody_ready():
    """Nothing to choose: the lone exhausted hero takes the attack, and the game goes on."""
    g = make_state(
        phase="questing",
        destroyed_heroes=[0, 2],
        staging=[BATS],
        encounter_deck=[],
        threat=24,
    )
    g.apply(Quest(commit=[1]))  # Eowyn exhausted; bats (engagement 15) engage and attack
    obs = g.observation()
    assert dict(obs.damage).get(1) == 1
    assert g.round == 2  # the round ran through to the next one


def test_destroyed_hero_loses_its_resources():
    g = make_state(phase="defense", engaged=[PATROL], encounter_deck=[], resources=(1, 2, 5), hand=[])
    g.apply(Defend(undefended=[(PATROL, 2)]))  # Eleanor (3 hitpoints) destroyed
    obs = g.observation()
    assert obs.resources == (1, 2, 0)
    # Next round: only the two heroes left gain a resource.
    while g.round == 1:
        g.apply(g.legal_actions()[0])
    assert g.observation().resources == (2, 3, 0)


# -- combat: attack ----------------------------------------------------------------------


def test_attack_damage_is_attack_minus_defense_and_destroys_at_hitpoints():
    g = make_state(phase="attack", engaged=[PATROL, SPAWN], encounter_deck=[])
    g.apply(Attack(attacks=[(0, PATROL), (1, SPAWN)]))  # 2 - 1 = 1; 1 - 2 -> 0
    obs = g.observation()
    assert dict(obs.damage).get(PATROL) == 1
    assert SPAWN not in dict(obs.damage)
    g = make_state(phase="attack", engaged=[PATROL], encounter_deck=[], damage={PATROL: 1})
    g.apply(Attack(attacks=[(0, PATROL)]))
    obs = g.observation()
    assert obs.engaged == ()
    assert PATROL in obs.encounter_discard


def test_several_attackers_add_up():
    g = make_state(phase="attack", engaged=[ORCS], encounter_deck=[])
    g.apply(Attack(attacks=[(1, ORCS), (2, ORCS)]))
    assert dict(g.observation().damage).get(ORCS) == 2
    g = make_state(phase="attack", engaged=[ORCS], encounter_deck=[])
    g.apply(Attack(attacks=[(0, ORCS), (1, ORCS)]))
    assert ORCS in g.observation().encounter_discard


# -- refresh -----------------------------------------------------------------------------


def test_gandalf_is_discarded_at_refresh():
    g = make_state(phase="attack", in_play=[GANDALF, TOOK], exhausted=[GANDALF, 0], hand=[], threat=30)
    g.apply(Attack())
    obs = g.observation()
    assert GANDALF in obs.player_discard
    assert GANDALF not in obs.in_play
    assert TOOK in obs.in_play
    assert obs.exhausted == ()  # everyone else is readied
    assert g.threat == 31


def test_gandalf_bought_this_round_is_gone_next_round():
    g = make_state(phase="planning", hand=[GANDALF], resources=(2, 2, 1), encounter_deck=[])
    g.apply(Plan(buy=[GANDALF]))
    assert GANDALF in g.observation().in_play
    assert g.observation().resources == (0, 0, 0)
    while g.round == 1:
        g.apply(g.legal_actions()[0])
    assert GANDALF in g.observation().player_discard


# -- resources and cards -----------------------------------------------------------------


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
@pytest.mark.parametrize("seed", [0, 1, 2, 12345])
def test_first_planning_has_three_resources_and_eight_cards(difficulty, seed):
    g = GameState(difficulty, seed=seed)
    obs = g.observation()
    assert g.stage == Stage.PLANNING
    assert g.round == 1
    assert obs.resources == (1, 1, 1)
    assert len(obs.hand) == 8
    assert len(obs.player_deck) == 7
    assert g.threat == 24


def test_unspent_resources_carry_over():
    g = make_state(phase="attack", resources=(2, 0, 1), hand=[])
    g.apply(Attack())
    assert g.observation().resources == (3, 1, 2)


def test_buying_pays_from_the_shared_pool():
    g = make_state(phase="planning", hand=[TOOK, 12], resources=(1, 2, 2))
    g.apply(Plan(buy=[TOOK, 12]))  # 2 + 3 = 5
    assert sum(g.observation().resources) == 0
    assert {TOOK, 12} <= set(g.observation().in_play)


def test_draw_one_card_per_round():
    g = make_state(phase="attack", hand=[3], player_deck=[TOOK, 12])
    g.apply(Attack())
    obs = g.observation()
    assert obs.hand == (3, TOOK)
    assert obs.player_deck == (12,)


def test_empty_player_deck_draws_nothing():
    g = make_state(phase="attack", hand=[3], player_deck=[])
    g.apply(Attack())
    obs = g.observation()
    assert g.round == 2
    assert obs.hand == (3,)
    assert obs.player_deck == ()


def test_empty_encounter_deck_reveals_nothing_but_staging_still_counts():
    g = make_state(phase="questing", staging=[NECRO_PASS], encounter_deck=[], threat=24)
    g.apply(Quest(commit=[2]))  # 1 - 3
    obs = g.observation()
    assert obs.staging == (NECRO_PASS,)
    assert obs.encounter_deck == ()
    assert g.threat == 26
    g = make_state(phase="questing", staging=[NECRO_PASS], encounter_deck=[], threat=24)
    g.apply(Quest(commit=[1]))  # 4 - 3
    assert g.observation().quest_progress == 1


def test_questing_reveals_the_top_encounter_card():
    g = make_state(phase="questing", next_encounter=[FOREST_SPIDER, ORCS], threat=24)
    g.apply(Quest(commit=[1]))  # 4 - 2 (the spider) = 2 progress
    obs = g.observation()
    assert obs.staging == (FOREST_SPIDER,)  # engagement 25 > threat 24: stays staged
    assert ORCS in obs.encounter_deck
    assert obs.quest_progress == 2


# -- setup -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 7, 99])
def test_hard_setup_cards_start_in_staging_not_in_deck(seed):
    g = GameState("hard", seed=seed)
    obs = g.observation()
    assert obs.staging == (FOREST_SPIDER, OLD_ROAD)
    assert FOREST_SPIDER not in obs.encounter_deck and OLD_ROAD not in obs.encounter_deck
    assert len(obs.encounter_deck) == 23
    d = g.to_dict()
    deck = d["encounter_deck_order"][d["encounter_top"] : d["encounter_length"]]
    assert sorted(deck) == sorted(set(ENEMY_IDS + LOCATION_IDS) - {FOREST_SPIDER, OLD_ROAD})


@pytest.mark.parametrize("seed", [0, 1, 7, 99])
def test_easy_has_no_locations_medium_has_them_in_the_deck(seed):
    easy = GameState("easy", seed=seed)
    obs = easy.observation()
    assert obs.staging == ()
    assert obs.encounter_deck == ENEMY_IDS
    zones = easy.to_dict()["zones"]
    assert all(zones[c] == "out of game" for c in LOCATION_IDS)
    medium = GameState("medium", seed=seed)
    obs = medium.observation()
    assert obs.staging == ()
    assert obs.encounter_deck == ENEMY_IDS + LOCATION_IDS


def test_decks_are_shuffled():
    orders = {tuple(GameState("medium", seed=s).to_dict()["encounter_deck_order"]) for s in range(20)}
    hands = {GameState("medium", seed=s).observation().hand for s in range(20)}
    assert len(orders) == 20
    assert len(hands) > 10


# -- full scenario -----------------------------------------------------------------------


def test_full_scenario_is_set_up_with_three_stages():
    assert GameState("hard", seed=0, full_scenario=True).to_dict()["quest_stages"] == 3
    assert GameState("hard", seed=0).to_dict()["quest_stages"] == 1


def test_full_scenario_needs_all_three_stages():
    # Stage 1 (8 points) completed: not a win, on to stage 2.
    g = make_state(phase="questing", quest_stages=3, quest_stage=0, quest_progress=6, encounter_deck=[])
    g.apply(Quest(commit=[1]))
    assert not g.is_over
    assert g.observation().quest_stage == 1
    # Stage 2 (2 points) completed: still not a win.
    g = make_state(phase="questing", quest_stages=3, quest_stage=1, quest_progress=0, encounter_deck=[])
    g.apply(Quest(commit=[0, 2]))
    assert not g.is_over
    assert g.observation().quest_stage == 2
    # Stage 3 (10 points) completed: the win.
    g = make_state(phase="questing", quest_stages=3, quest_stage=2, quest_progress=8, encounter_deck=[])
    g.apply(Quest(commit=[0, 2]))
    assert g.outcome == Outcome.WIN
    # Stage 3 needs 10, not 8.
    g = make_state(phase="questing", quest_stages=3, quest_stage=2, quest_progress=6, encounter_deck=[])
    g.apply(Quest(commit=[0]))
    assert not g.is_over
    assert g.observation().quest_progress == 7


def test_stage_two_needs_two_points():
    g = make_state(phase="questing", quest_stages=3, quest_stage=1, quest_progress=0, encounter_deck=[])
    g.apply(Quest(commit=[0]))
    assert g.observation().quest_stage == 1
    assert g.observation().quest_progress == 1
