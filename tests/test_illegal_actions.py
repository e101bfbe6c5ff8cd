"""Illegal actions are rejected with a message that says why, and the state is unchanged."""

import numpy as np
import pytest
from conftest import make_state

from lotr_sim import (
    Attack,
    Defend,
    GameState,
    IllegalActionError,
    Plan,
    Quest,
    Stage,
    Travel,
)

ORCS, PATROL, BATS, SPAWN = 18, 26, 27, 30
NECRO_PASS, STREAM = 31, 32
TRACKER, TOOK, RIDER, GANDALF = 6, 9, 12, 15


def assert_rejected(g: GameState, action, message: str) -> None:
    """``action`` is illegal in ``g`` with exactly ``message``, and ``g`` does not change."""
    before = g.to_dict()
    assert not g.is_legal(action)
    assert g.why_illegal(action) == message
    with pytest.raises(IllegalActionError) as raised:
        g.apply(action)
    assert str(raised.value) == message
    assert g.to_dict() == before


class TwoLocations:
    """A travel decision naming two locations (the Travel class cannot express it)."""

    stage = Stage.TRAVEL

    def __init__(self, *locations):
        self.locations = locations

    def fill(self, act):
        for location in self.locations:
            act[location] = 1


# -- planning ----------------------------------------------------------------------------


def test_unaffordable_card():
    g = make_state(phase="planning", hand=[GANDALF, TOOK], resources=(1, 1, 1))
    assert_rejected(g, Plan(buy=[GANDALF]), "Gandalf costs 5, 3 resources available")


def test_cards_that_are_affordable_alone_but_not_together():
    g = make_state(phase="planning", hand=[TOOK, RIDER], resources=(1, 1, 1))
    assert_rejected(g, Plan(buy=[TOOK, RIDER]), "Rider of Rohan costs 3, 1 resources available")


def test_resources_of_a_destroyed_hero_cannot_pay():
    g = make_state(phase="planning", hand=[TOOK, RIDER], destroyed_heroes=[2], resources=(1, 1, 0))
    assert_rejected(g, Plan(buy=[RIDER]), "Rider of Rohan costs 3, 2 resources available")


def test_card_not_in_hand():
    g = make_state(phase="planning", hand=[TOOK], player_deck=[RIDER], resources=(1, 1, 1))
    assert_rejected(g, Plan(buy=[RIDER]), "Rider of Rohan#12 is not in hand")
    assert_rejected(g, Plan(buy=[0]), "Dunhere#0 is not in hand")


# -- questing ----------------------------------------------------------------------------


def test_committing_an_exhausted_character():
    g = make_state(phase="questing", exhausted=[1])
    assert_rejected(g, Quest(commit=[0, 1]), "Eowyn#1 is not a ready character in play")


def test_committing_a_card_not_in_play():
    g = make_state(phase="questing", hand=[TOOK], staging=[ORCS])
    assert_rejected(g, Quest(commit=[TOOK]), "Wandering Took#9 is not a ready character in play")
    assert_rejected(g, Quest(commit=[ORCS]), "Dol Guldur Orcs#18 is not a ready character in play")


def test_committing_a_destroyed_hero():
    g = make_state(phase="questing", destroyed_heroes=[0])
    assert_rejected(g, Quest(commit=[0]), "Dunhere#0 is not a ready character in play")


# -- travel ------------------------------------------------------------------------------


def test_travel_to_a_location_not_in_staging():
    g = make_state(phase="travel", staging=[NECRO_PASS, ORCS])
    assert_rejected(g, Travel(STREAM), "Enchanted Stream#32 is not a location in the staging area")
    assert_rejected(g, Travel(ORCS), "Dol Guldur Orcs#18 is not a location in the staging area")


def test_travel_to_two_locations():
    g = make_state(phase="travel", staging=[NECRO_PASS, STREAM])
    assert_rejected(
        g,
        TwoLocations(NECRO_PASS, STREAM),
        "travel goes to one location only, got Necromancer's Pass#31 and Enchanted Stream#32",
    )


# -- defense -----------------------------------------------------------------------------


def test_defense_leaving_an_engaged_enemy_unassigned():
    g = make_state(phase="defense", engaged=[ORCS, PATROL])
    assert_rejected(
        g,
        Defend(blocks=[(ORCS, 2)]),
        "engaged enemy East Bight Patrol#26 has neither a defender nor a hero to take its damage",
    )
    assert_rejected(
        g,
        Defend(),
        "engaged enemy Dol Guldur Orcs#18 has neither a defender nor a hero to take its damage",
    )


def test_defense_against_an_enemy_not_engaged():
    g = make_state(phase="defense", engaged=[ORCS], staging=[PATROL])
    assert_rejected(
        g, Defend(blocks=[(ORCS, 2), (PATROL, 1)]), "East Bight Patrol#26 is not an engaged enemy"
    )


def test_character_defending_twice():
    g = make_state(phase="defense", engaged=[ORCS, PATROL])
    assert_rejected(
        g,
        Defend(blocks=[(ORCS, 2), (PATROL, 2)]),
        "Eleanor#2 defends against both Dol Guldur Orcs#18 and East Bight Patrol#26; "
        "a character defends at most once per round",
    )


def test_exhausted_defender():
    g = make_state(phase="defense", engaged=[ORCS], exhausted=[2])
    assert_rejected(g, Defend(blocks=[(ORCS, 2)]), "Eleanor#2 is not a ready character in play")


def test_defender_that_is_not_a_character():
    g = make_state(phase="defense", engaged=[ORCS, PATROL])
    assert_rejected(
        g,
        Defend(blocks=[(ORCS, PATROL)], undefended=[(PATROL, 0)]),
        "East Bight Patrol#26 is not a character and cannot defend against Dol Guldur Orcs#18",
    )


def test_undefended_damage_to_a_non_hero():
    g = make_state(phase="defense", in_play=[TRACKER], engaged=[ORCS])
    assert_rejected(
        g,
        Defend(undefended=[(ORCS, TRACKER)]),
        "Northern Tracker#6 is not a hero: undefended damage from Dol Guldur Orcs#18 goes to a hero",
    )


def test_undefended_damage_to_a_hero_destroyed_before_this_combat():
    g = make_state(phase="defense", engaged=[ORCS], destroyed_heroes=[2])
    assert_rejected(
        g, Defend(undefended=[(ORCS, 2)]), "Eleanor#2 is no longer in play to take Dol Guldur Orcs#18's damage"
    )


def test_undefended_damage_to_a_hero_destroyed_earlier_in_the_same_combat():
    """The orcs (attack 2) finish Eleanor (3 hitpoints, 2 damage); the patrol's attack
    cannot go to her any more."""
    g = make_state(phase="defense", engaged=[ORCS, PATROL], damage={2: 2})
    assert_rejected(
        g,
        Defend(undefended=[(ORCS, 2), (PATROL, 2)]),
        "Eleanor#2 is no longer in play to take East Bight Patrol#26's damage",
    )
    assert g.is_legal(Defend(undefended=[(ORCS, 2), (PATROL, 1)]))


def test_defender_destroyed_earlier_in_the_same_combat():
    g = make_state(phase="defense", engaged=[ORCS, PATROL], damage={2: 2})
    assert_rejected(
        g,
        Defend(blocks=[(PATROL, 2)], undefended=[(ORCS, 2)]),
        "Eleanor#2 is destroyed earlier in this combat and cannot defend against East Bight Patrol#26",
    )


# -- attack ------------------------------------------------------------------------------


def test_attack_on_an_enemy_destroyed_earlier_in_the_same_attack():
    """Dunhere (attack 2) destroys the bats (2 hitpoints, defense 0) before Eowyn strikes."""
    g = make_state(phase="attack", engaged=[BATS, PATROL])
    assert_rejected(
        g,
        Attack(attacks=[(0, BATS), (1, BATS)]),
        "Black Forest Bats#27 is destroyed before Eowyn#1's attack resolves",
    )
    assert g.is_legal(Attack(attacks=[(0, BATS), (1, PATROL)]))


def test_attack_by_an_exhausted_character():
    g = make_state(phase="attack", engaged=[PATROL], exhausted=[2])
    assert_rejected(g, Attack(attacks=[(2, PATROL)]), "Eleanor#2 is not a ready character in play")


def test_attack_on_an_enemy_not_engaged():
    g = make_state(phase="attack", engaged=[PATROL], staging=[ORCS])
    assert_rejected(g, Attack(attacks=[(0, ORCS)]), "Dol Guldur Orcs#18 is not an engaged enemy")
    assert_rejected(g, Attack(attacks=[(0, 1)]), "Eowyn#1 is not an engaged enemy")


def test_attack_by_a_card_that_is_not_a_character():
    g = make_state(phase="attack", engaged=[PATROL, ORCS])
    assert_rejected(g, Attack(attacks=[(ORCS, PATROL)]), "Dol Guldur Orcs#18 is not a ready character in play")


# -- wrong stage, game over, bad ids -----------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [Quest(), Travel(), Defend(), Attack(), Quest(commit=[1])],
    ids=["quest", "travel", "defend", "attack", "quest-eowyn"],
)
def test_wrong_action_type_for_the_stage(action):
    g = GameState("hard", seed=0)
    assert g.stage == Stage.PLANNING
    assert_rejected(g, action, f"the pending decision is planning: expected a planning action, got {action!r}")


def test_plan_at_questing_is_rejected():
    g = make_state(phase="questing")
    assert_rejected(g, Plan(), "the pending decision is questing: expected a questing action, got Plan(buy=())")


def test_acting_after_the_game_is_over():
    g = GameState("hard", seed=0)
    g.play_out("random", 0)
    assert g.is_over
    message = "the game is over: there is no decision to make"
    for action in (Plan(), Quest(), Travel(), Defend(), Attack()):
        assert_rejected(g, action, message)
    for call in (g.legal_actions, lambda: g.sample_action(0), lambda: g.policy_action("expert", 0)):
        with pytest.raises(IllegalActionError, match="the game is over"):
            call()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Plan(buy=[43]), "Plan.buy: card id 43 does not exist (ids are 0-42)"),
        (lambda: Plan(buy=[-1]), "Plan.buy: card id -1 does not exist (ids are 0-42)"),
        (lambda: Quest(commit=[0, 100]), "Quest.commit: card id 100 does not exist (ids are 0-42)"),
        (lambda: Quest(commit=[1.5]), "Quest.commit: card id 1.5 does not exist (ids are 0-42)"),
        (lambda: Travel(location=50), "Travel.location: card id 50 does not exist (ids are 0-42)"),
        (lambda: Defend(blocks=[(18, 99)]), "Defend.blocks: card id 99 does not exist (ids are 0-42)"),
        (lambda: Defend(undefended=[(64, 0)]), "Defend.undefended: card id 64 does not exist (ids are 0-42)"),
        (lambda: Attack(attacks=[(0, 43)]), "Attack.attacks: card id 43 does not exist (ids are 0-42)"),
    ],
)
def test_nonexistent_card_id_in_an_action(make, message):
    with pytest.raises(IllegalActionError) as raised:
        make()
    assert str(raised.value) == message


def test_malformed_pairs_are_rejected():
    with pytest.raises(IllegalActionError, match="expected \\(card, card\\) pairs"):
        Attack(attacks=[(0, 18, 19)])
    with pytest.raises(IllegalActionError, match="appears more than once"):
        Attack(attacks=[(0, 18), (0, 19)])
    with pytest.raises(IllegalActionError, match="both blocked and undefended"):
        Defend(blocks=[(18, 2)], undefended=[(18, 0)])


def test_illegal_action_leaves_a_traced_game_unchanged():
    g = GameState("hard", seed=0, trace=True)
    events = g.trace()
    with pytest.raises(IllegalActionError):
        g.apply(Plan(buy=[GANDALF, 16, 17, 3, 4]))
    assert g.trace() == events


def test_every_rejection_in_a_real_game_leaves_the_state_unchanged():
    """Random single-card edits of sampled legal actions: whenever one is rejected the
    state is unchanged, and whenever it is accepted is_legal said so."""
    rng = np.random.default_rng(9)
    g = GameState("hard", seed=21)
    rejected = 0
    while not g.is_over:
        a = g.sample_action(rng)
        candidates = []
        if isinstance(a, Plan):
            candidates = [Plan(buy=a.buy + (int(rng.integers(3, 18)),))]
        elif isinstance(a, Quest):
            candidates = [Quest(commit=a.commit + (int(rng.integers(0, 43)),))]
        elif isinstance(a, Travel):
            candidates = [Travel(int(rng.integers(18, 43)))]
        elif isinstance(a, Defend) and a.blocks:
            (enemy, _), *rest = a.blocks
            candidates = [Defend(blocks=[(enemy, int(rng.integers(0, 43)))] + rest, undefended=a.undefended)]
        elif isinstance(a, Attack) and a.attacks:
            candidates = [Attack(attacks=a.attacks[:-1] + ((a.attacks[-1][0], int(rng.integers(0, 43))),))]
        for b in candidates:
            before = g.to_dict()
            reason = g.why_illegal(b)
            if reason is None:
                continue
            with pytest.raises(IllegalActionError):
                g.apply(b)
            assert g.to_dict() == before
            rejected += 1
        g.apply(a)
    assert rejected > 0
