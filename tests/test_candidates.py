"""The actions a search branches on: keys, interchangeable cards, and the thesis's action reduction."""

import numpy as np
from conftest import make_state

from agents.specs import AgentSpec
from lotr_sim import Defend, Plan, Quest
from lotr_sim.actions import encode
from lotr_sim.candidates import (
    ENUMERATION_LIMIT,
    action_key,
    is_candidate,
    key_action,
    reduced_out,
    root_candidates,
)
from lotr_sim.cards import N_CARDS

WITH_REDUCTION = AgentSpec.make("mcts", game="lotr").row()
WITHOUT_REDUCTION = AgentSpec.make("mcts", reduction=False, game="lotr").row()


def candidates(game, row):
    S = game.core_state()
    keys = np.empty((ENUMERATION_LIMIT, 2), np.int64)
    n = root_candidates(S, row, np.array([1], np.uint64), keys, 256, np.empty_like(S), np.zeros(4, np.int64))
    return {decoded(game, k0, k1) for k0, k1 in keys[:n]}


def decoded(game, k0, k1):
    from lotr_sim.actions import decode

    act = np.empty(N_CARDS, np.int64)
    key_action(k0, k1, act)
    return decode(game.stage, act)


def test_keys_round_trip_for_every_legal_action(decision_states):
    for game in decision_states[::3]:
        for action in list(game.legal_actions(limit=5000))[:200]:
            act = encode(action)
            k0, k1 = action_key(int(game.stage), act)
            back = np.empty(N_CARDS, np.int64)
            key_action(k0, k1, back)
            assert np.array_equal(back, act), action


def test_candidates_are_legal_and_cover_the_legal_actions_up_to_copies(decision_states):
    """Without reduction every legal action has a candidate with the same cards up to interchangeable copies."""
    for game in decision_states[::4]:
        legal = list(game.legal_actions(limit=ENUMERATION_LIMIT))
        found = candidates(game, WITHOUT_REDUCTION)
        assert found and all(game.is_legal(a) for a in found)
        assert len(found) <= len(legal)
        if game.stage.label in ("defense", "attack"):
            assert found == set(legal)


def test_interchangeable_copies_are_one_branch():
    """Two Northern Trackers (6, 7) in hand: buying "a Tracker" is one candidate, lowest id."""
    game = make_state(phase="planning", hand=(6, 7, 12), resources=(3, 3, 2))
    found = candidates(game, WITHOUT_REDUCTION)
    # {6, 7, 12} costs 11 > 8; {7} and {7, 12} are copies of {6} and {6, 12}.
    assert found == {Plan(()), Plan((6,)), Plan((12,)), Plan((6, 7)), Plan((6, 12))}


def test_planning_reduction_gives_an_affordable_gandalf_priority():
    game = make_state(phase="planning", hand=(15, 9, 3), resources=(3, 3, 2))
    found = candidates(game, WITH_REDUCTION)
    assert found == {Plan(()), Plan((15,)), Plan((9, 15)), Plan((3, 15))}  # 8 resources: Gandalf costs 5
    poor = make_state(phase="planning", hand=(15, 9, 3), resources=(1, 1, 1))  # Gandalf not affordable
    assert candidates(poor, WITH_REDUCTION) == candidates(poor, WITHOUT_REDUCTION)


def test_questing_reduction_keeps_willpower_above_staging_threat_plus_two():
    # Staging: one Forest Spider (threat 2); threshold 2 + 2 = 4. Eowyn has 4 willpower, Dunhere 1, Eleanor 1.
    game = make_state(phase="questing", staging=(22,))
    found = candidates(game, WITH_REDUCTION)
    assert found == {Quest((0, 1)), Quest((1, 2)), Quest((0, 1, 2))}
    S = game.core_state()
    assert reduced_out(S, encode(Quest((1,))), WITH_REDUCTION)
    assert not reduced_out(S, encode(Quest((1,))), WITHOUT_REDUCTION)


def test_questing_reduction_never_empties_the_set():
    game = make_state(phase="questing", staging=(22, 23, 24, 30))  # threat 9: no commitment exceeds 11
    assert candidates(game, WITH_REDUCTION) == candidates(game, WITHOUT_REDUCTION)


def test_defense_reduction_defends_with_every_ready_character_first():
    # Two engaged enemies, one ready character (Dunhere; the others exhausted).
    game = make_state(phase="defense", engaged=(18, 19), exhausted=(1, 2))
    found = candidates(game, WITH_REDUCTION)
    assert found
    for action in candidates(game, WITHOUT_REDUCTION):
        undefended = sum(1 for entry in encode(action)[18:31] if entry >= 64)
        assert (action in found) == (undefended <= 1)


def test_is_candidate_rejects_illegal_and_non_canonical_actions():
    game = make_state(phase="planning", hand=(6, 7), resources=(2, 1, 1))
    S = game.core_state()
    scratch, err = np.empty_like(S), np.zeros(4, np.int64)
    assert is_candidate(S, encode(Plan((6,))), WITHOUT_REDUCTION, scratch, err)
    assert not is_candidate(S, encode(Plan((7,))), WITHOUT_REDUCTION, scratch, err)  # the copy of 6
    assert not is_candidate(S, encode(Plan((6, 7))), WITHOUT_REDUCTION, scratch, err)  # costs 8 > 4


def test_defense_keys_distinguish_defenders_and_undefended_heroes():
    game = make_state(phase="defense", engaged=(18, 30))
    keys = set()
    for action in game.legal_actions():
        keys.add(action_key(int(game.stage), encode(action)))
    assert len(keys) == len(game.legal_actions())
    assert isinstance(next(iter(game.legal_actions())), Defend)
