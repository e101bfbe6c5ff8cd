"""Invariants that hold at every decision of every game (property-based, Hypothesis).

Games are random legal action sequences: ``sample_action`` driven by seeds that
Hypothesis draws, over the three difficulties and both scenario lengths.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lotr_sim import GameState, TooManyActionsError
from lotr_sim.cards import ENEMY_FIRST, HERO_IDS, HITPOINTS, LOCATION_IDS, N_CARDS

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

games = st.tuples(
    st.sampled_from(["easy", "medium", "hard"]),
    st.integers(0, 2**32 - 1),  # deal seed
    st.integers(0, 2**32 - 1),  # action seed
    st.booleans(),  # full scenario
)


def play(difficulty, deal, action_seed, full):
    """Yield the state at every decision, then the final state."""
    rng = np.random.default_rng(action_seed)
    g = GameState(difficulty, seed=deal, full_scenario=full)
    while not g.is_over:
        yield g
        g.apply(g.sample_action(rng))
        assert g.round < 200, "a game of random play that does not end"
    yield g


def check_conservation(g: GameState) -> None:
    obs = g.observation()
    d = g.to_dict()
    visible = (
        obs.hand
        + obs.in_play
        + obs.staging
        + obs.engaged
        + ((obs.active_location,) if obs.active_location is not None else ())
        + obs.player_discard
        + obs.encounter_discard
        + obs.destroyed_heroes
        + obs.player_deck
        + obs.encounter_deck
    )
    out_of_game = tuple(c for c in range(N_CARDS) if d["zones"][c] == "out of game")
    if g.difficulty == "easy":
        assert out_of_game == LOCATION_IDS
    else:
        assert out_of_game == ()
    everything = visible + out_of_game
    assert len(everything) == N_CARDS, "a card is in two zones or in none"
    assert sorted(everything) == list(range(N_CARDS))

    # The unread deck sections hold exactly the deck zones' cards.
    player_rest = d["player_deck_order"][d["player_top"] :]
    assert sorted(player_rest) == list(obs.player_deck)
    encounter_rest = d["encounter_deck_order"][d["encounter_top"] : d["encounter_length"]]
    assert sorted(encounter_rest) == list(obs.encounter_deck)
    assert d["encounter_length"] == {"easy": 13, "medium": 25, "hard": 23}[g.difficulty]

    # Heroes are in play or destroyed.
    assert sorted(h for h in obs.in_play + obs.destroyed_heroes if h in HERO_IDS) == list(HERO_IDS)


def check_cards(g: GameState) -> None:
    obs = g.observation()
    d = g.to_dict()
    for card, dmg in obs.damage:
        assert card in obs.in_play or card in obs.engaged, f"damage {dmg} on card {card} out of play"
        assert 0 < dmg < HITPOINTS[card], f"card {card} with {dmg} damage is still in play"
    for card in range(N_CARDS):
        if d["exhausted"][card]:
            assert card < ENEMY_FIRST and d["zones"][card] == "in play", f"card {card} exhausted out of play"
    assert all(r >= 0 for r in obs.resources)
    for h in obs.destroyed_heroes:
        assert obs.resources[h] == 0


@SETTINGS
@given(games)
def test_every_card_is_in_exactly_one_zone(game):
    for g in play(*game):
        check_conservation(g)


@SETTINGS
@given(games)
def test_damage_exhaustion_and_resources_are_consistent(game):
    for g in play(*game):
        check_cards(g)


@SETTINGS
@given(games)
def test_threat_never_decreases_and_round_never_goes_back(game):
    threat, round_ = 0, 0
    for g in play(*game):
        assert g.threat >= threat
        assert g.round >= round_
        threat, round_ = g.threat, g.round
        assert g.threat >= 24


@SETTINGS
@given(games)
def test_game_ends_with_consistent_outcome(game):
    *_, final = play(*game)
    obs = final.observation()
    assert final.is_over and final.stage is None
    if final.outcome.name == "WIN":
        points = (8, 2, 10)[obs.quest_stage]
        assert obs.quest_progress >= points
        assert obs.quest_stage == final.to_dict()["quest_stages"] - 1
        assert final.threat < 50
        assert obs.in_play and any(h in obs.in_play for h in HERO_IDS)
    elif final.outcome.name == "LOST_BY_THREAT":
        assert final.threat >= 50
    elif final.outcome.name == "LOST_BY_HEROES":
        assert obs.destroyed_heroes == HERO_IDS
        assert final.threat < 50
    else:
        raise AssertionError(f"finished game with outcome {final.outcome}")


@SETTINGS
@given(games)
def test_only_decisions_with_a_choice_are_offered(game):
    """Forced decisions are applied automatically: every stop has two legal actions or more."""
    for g in play(*game):
        if g.is_over:
            break
        try:
            count = len(g.legal_actions(limit=50_000))
        except TooManyActionsError:
            continue
        assert count >= 2, f"{g.stage.label} with a single legal action: {list(g.legal_actions())}"


def test_the_conservation_check_catches_a_misplaced_card():
    """The checker above is not vacuous: a card moved out of the deck zone without
    leaving the deck order, or a card in two places, is caught."""
    import pytest

    g = GameState("medium", seed=5)
    check_conservation(g)
    d = g.to_dict()
    deck_card = d["player_deck_order"][d["player_top"]]
    d["zones"][deck_card] = "hand"
    with pytest.raises(AssertionError):
        check_conservation(GameState.from_dict(d))
    d = g.to_dict()
    d["player_top"] -= 1  # the last drawn card is counted in the hand and in the deck
    with pytest.raises(AssertionError):
        check_conservation(GameState.from_dict(d))
