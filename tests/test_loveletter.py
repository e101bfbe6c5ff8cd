"""Love Letter (``loveletter_sim``): the rules, what each player sees, determinize, and the agents on it."""

import numpy as np
import pytest
from conftest import random_play
from scipy.stats import chisquare

import gamecore
from agents.agent import Agent
from agents.evaluation import evaluate_setup
from agents.setup import Setup
from agents.specs import AgentSpec
from loveletter_sim import kernels as K
from loveletter_sim.game import IllegalActionError, LoveLetterState, Play


def all_cards(state: LoveLetterState) -> list[int]:
    """Every card of the game: in hands, played or discarded, set aside, in the deck."""
    s = state.core_state()
    cards = state.hand(0) + state.hand(1) + [v for v in range(1, 9) for _ in range(s[K.SEEN + v])]
    cards += [] if s[K.ASIDE_TAKEN] else [int(s[K.ORDER])]
    return sorted(cards + [int(c) for c in s[K.ORDER + s[K.TOP]: K.ORDER + K.N_CARDS]])


def test_the_sixteen_cards_are_conserved_and_every_game_ends():
    full = sorted(v for v in range(1, 9) for _ in range(K.COPIES[v]))
    ends = []
    for state in random_play(LoveLetterState, 300):
        assert all_cards(state) == full
        if state.is_over:
            ends.append(state.returns())
    assert len(ends) == 300 and all(sum(r) == 1.0 for r in ends)
    assert {tuple(r) for r in ends} >= {(1.0, 0.0), (0.0, 1.0)}


@pytest.mark.parametrize(
    "hand, protected, action, reason",
    [
        ((5, 7), False, Play(5), "the Countess must be played with the Prince or the King"),
        ((6, 7), False, Play(6), "the Countess must be played with the Prince or the King"),
        ((1, 2), False, Play(3), "the card is not in the hand"),
        ((1, 2), False, Play(1, guess=1), "a Guard against an unprotected opponent names a card 2-8"),
        ((1, 2), True, Play(1, guess=4), "a Guard against an unprotected opponent names a card 2-8"),
        ((5, 2), True, Play(5, "opponent"), "a protected opponent leaves the Prince only oneself"),
        ((3, 2), False, Play(3, "self"), "only the Prince may target oneself"),
    ],
)
def test_every_illegal_action_is_rejected_with_its_reason(hand, protected, action, reason):
    state = LoveLetterState(3)
    s = state._s
    s[K.HAND], s[K.HAND + 1] = hand
    s[K.PROTECTED + 1] = protected
    assert action not in state.legal_actions()
    before = state.core_state()
    with pytest.raises(IllegalActionError, match=reason.replace("(", r"\(")):
        state.apply(action)
    assert np.array_equal(before, state.core_state())  # nothing changed


def test_legal_actions_follow_the_hand():
    state = LoveLetterState(3)
    s = state._s
    s[K.HAND], s[K.HAND + 1] = 1, 5
    assert state.legal_actions() == [Play(1, guess=g) for g in range(2, 9)] + [Play(5), Play(5, "self")]
    s[K.PROTECTED + 1] = 1
    assert state.legal_actions() == [Play(1), Play(5, "self")]


def test_determinize_depends_only_on_what_the_player_sees():
    checked = 0
    for state in random_play(LoveLetterState, 40, seed=1):
        if state.is_over:
            continue
        for player in (0, 1):
            other = state.determinize(player, 7)  # another deal the player cannot tell apart
            assert other.observation(player) == state.observation(player)
            assert all_cards(other) == all_cards(state)
            again, other_again = state.determinize(player, 11), other.determinize(player, 11)
            assert np.array_equal(again.core_state(), other_again.core_state())
            checked += 1
    assert checked > 250


def test_determinize_draws_the_hidden_cards_in_proportion_to_the_unseen_copies():
    state = LoveLetterState(5)  # player 0 to move, nothing played: the other's card is one of the 14 unseen
    counts = np.zeros(9)
    for seed in range(20_000):
        counts[state.determinize(0, seed).hand(1)[0]] += 1
    unseen = np.array([K.COPIES[v] for v in range(9)], float)
    for card in state.hand(0):
        unseen[card] -= 1
    values = [v for v in range(1, 9) if unseen[v]]
    assert chisquare(counts[values], unseen[values] / unseen.sum() * counts.sum()).pvalue > 1e-3


def test_what_a_player_learns_constrains_determinize():
    state = LoveLetterState(5)
    s = state._s
    s[K.KNOWN] = 6  # player 0 saw a King
    assert all(state.determinize(0, seed).hand(1) == [6] for seed in range(50))
    s[K.KNOWN] = 0
    s[K.NOT_HELD] = sum(1 << v for v in (2, 3, 4, 5, 6, 7, 8))  # failed guesses: the other holds a Guard
    assert all(state.determinize(0, seed).hand(1) == [1] for seed in range(50))


def test_the_priest_shows_the_card_and_the_king_swaps_and_shows_both():
    state = LoveLetterState(3)
    s = state._s
    s[K.HAND], s[K.HAND + 1], s[K.HAND + 2] = 2, 4, 8
    state.apply(Play(2))
    assert state.observation(0)["known"] == 8 and state.observation(1)["known"] == 0
    state = LoveLetterState(3)
    s = state._s
    s[K.HAND], s[K.HAND + 1], s[K.HAND + 2] = 6, 4, 8
    state.apply(Play(6))
    assert state.hand(0) == [8] and 4 in state.hand(1)
    assert state.observation(0)["known"] == 4 and state.observation(1)["known"] == 8


def test_the_registry_and_the_agents_play_it():
    game = gamecore.load("loveletter")
    assert game.by_seat and game.policies == ("random", "strategic")
    result = evaluate_setup(Setup.parse("strategic-random", "loveletter"), games=2000, seed=0)
    assert result.seats["first"]["wins"] > 1100 and result.seats["second"]["wins"] > 1000
    assert sum(c["wins"] + c["draws"] + c["losses"] for c in result.seats.values()) == 4000
    state = LoveLetterState(9)
    for agent in ("mcts", "flat-mc"):
        assert Agent(AgentSpec.make(agent, game="loveletter", budget=200), seed=1).act(state) in state.legal_actions()


def test_the_dp_player_plays_the_tables_best_play():
    """The player's fast lookup is the table's own query (``DPTable.best_play``) on what the mover sees."""
    from loveletter_sim import dp
    from loveletter_sim.dp_player import DPPlayer, table

    player = DPPlayer("first", None)
    targets = {0: "opponent", dp.TARGET_OPPONENT: "opponent", dp.TARGET_SELF: "self"}
    checked = 0
    for state in random_play(LoveLetterState, 150, seed=4):
        if state.is_over:
            continue
        s = state.core_state()
        me, you = int(s[K.TO_MOVE]), 1 - int(s[K.TO_MOVE])
        counts = np.zeros(9, np.int64)
        K.unseen_counts(s, me, counts)
        b1, b2 = (int(c) for c in s[K.HAND + 2 * me: K.HAND + 2 * me + 2])
        known, theirs = int(s[K.KNOWN + me]), int(s[K.KNOWN + you])
        p = 1 if theirs == b1 else 2 if theirs == b2 else 0
        best = table().best_play(b1, b2, known, counts[1:], bool(s[K.PROTECTED + you]), bool(known), p)
        act = np.zeros(3, np.int64)
        K.fill(s, act, best.card, K.TARGET_SELF if targets[best.target] == "self" else K.TARGET_OPPONENT, best.guess)
        assert np.array_equal(player.play(s), act)
        assert state.action_from_vector(act) in state.legal_actions()
        checked += 1
    assert checked > 500


def test_the_dp_player_is_an_agent_of_the_game():
    result = evaluate_setup(Setup.parse("dp-random", "loveletter"), games=3000, seed=1)
    assert result.seats["first"]["wins"] / 3000 > 0.68 and result.seats["second"]["wins"] / 3000 > 0.6
    state = LoveLetterState(2)
    assert Agent(AgentSpec.make("dp", game="loveletter")).act(state) in state.legal_actions()
