"""Hidden information: the deck orders are the only hidden part of a state, no honest
interface reveals them, and determinize() re-draws them uniformly."""

import numpy as np
import pytest
from scipy import stats

from lotr_sim import GameState


def reorder_decks(g: GameState, rng: np.random.Generator) -> GameState:
    """The same game with the unread part of both decks put in another order."""
    d = g.to_dict()
    for key, start, stop in (
        ("player_deck_order", d["player_top"], len(d["player_deck_order"])),
        ("encounter_deck_order", d["encounter_top"], d["encounter_length"]),
    ):
        rest = d[key][start:stop]
        if len(set(rest)) > 1:
            shuffled = list(rest)
            while shuffled == rest:
                shuffled = list(rng.permutation(rest))
            d[key][start:stop] = [int(c) for c in shuffled]
    return GameState.from_dict(d)


def has_hidden_order(g: GameState) -> bool:
    obs = g.observation()
    return len(obs.player_deck) > 1 or len(obs.encounter_deck) > 1


def test_reordered_decks_give_equal_observations(decision_states):
    rng = np.random.default_rng(0)
    compared = 0
    for g in decision_states:
        if not has_hidden_order(g):
            continue
        h = reorder_decks(g, rng)
        assert h != g  # the states differ...
        assert h.observation() == g.observation()  # ...but look the same
        assert h.observation().to_dict() == g.observation().to_dict()
        compared += 1
    assert compared > 100


def test_observation_does_not_list_deck_order():
    """The decks are given as sorted contents."""
    g = GameState("hard", seed=3)
    obs = g.observation()
    d = g.to_dict()
    order = d["encounter_deck_order"][d["encounter_top"] : d["encounter_length"]]
    assert list(obs.encounter_deck) == sorted(order)
    assert list(obs.encounter_deck) != order


def test_determinize_preserves_the_observation(decision_states):
    rng = np.random.default_rng(1)
    changed = 0
    for g in decision_states[::2]:
        before = g.to_dict()
        h = g.determinize(rng)
        assert g.to_dict() == before  # the original is untouched
        assert h.observation() == g.observation()
        assert h.stage == g.stage and h.round == g.round
        if h != g:
            changed += 1
        # Everything but the unread deck sections is the same.
        dh = h.to_dict()
        for key in before:
            if key not in ("player_deck_order", "encounter_deck_order"):
                assert dh[key] == before[key], key
        assert dh["player_deck_order"][: before["player_top"]] == before["player_deck_order"][: before["player_top"]]
        assert (
            dh["encounter_deck_order"][: before["encounter_top"]]
            == before["encounter_deck_order"][: before["encounter_top"]]
        )
    assert changed > 50


def _position_counts(g: GameState, key: str, top_key: str, stop: int, draws, rng_for):
    d = g.to_dict()
    start = d[top_key]
    cards = sorted(d[key][start:stop])
    index = {c: i for i, c in enumerate(cards)}
    counts = np.zeros((len(cards), len(cards)), np.int64)
    for i in range(draws):
        rest = g.determinize(rng_for(i)).to_dict()[key][start:stop]
        for position, card in enumerate(rest):
            counts[index[card], position] += 1
    return counts


@pytest.mark.parametrize("rng_kind", ["generator", "int seeds"])
def test_determinize_puts_every_card_at_every_position_equally_often(rng_kind):
    """Hard, round 1: 7 cards left in the player deck, 23 in the encounter deck. Over 3,000
    determinizations each card sits at each position about equally often (chi-square on the
    card x position table; the margins are fixed, so independence means uniform)."""
    g = GameState("hard", seed=11)
    if rng_kind == "generator":
        generator = np.random.default_rng(2024)
        rng_for = lambda i: generator  # noqa: E731
    else:
        rng_for = lambda i: i  # noqa: E731  consecutive int seeds
    draws = 3000
    d = g.to_dict()
    player = _position_counts(g, "player_deck_order", "player_top", 15, draws, rng_for)
    if rng_kind == "generator":
        generator = np.random.default_rng(2025)
    encounter = _position_counts(g, "encounter_deck_order", "encounter_top", d["encounter_length"], draws, rng_for)
    assert player.shape == (7, 7) and encounter.shape == (23, 23)
    for table in (player, encounter):
        assert (table.sum(axis=0) == draws).all() and (table.sum(axis=1) == draws).all()
        p = stats.chi2_contingency(table).pvalue
        assert p > 0.001, f"deck positions not uniform (p = {p:.2g})\n{table}"


def test_determinize_mixes_the_top_card():
    """The next reveal is not fixed by the real order: over many determinizations
    every card left in the encounter deck comes up first."""
    g = GameState("medium", seed=2)
    d = g.to_dict()
    rng = np.random.default_rng(8)
    tops = {g.determinize(rng).to_dict()["encounter_deck_order"][d["encounter_top"]] for _ in range(500)}
    assert tops == set(g.observation().encounter_deck)


@pytest.mark.parametrize("policy", ["random", "expert", "rule", "rule-full"])
def test_policies_do_not_see_deck_order(decision_states, full_scenario_states, policy):
    rng = np.random.default_rng(3)
    for i, g in enumerate(decision_states + full_scenario_states):
        if not has_hidden_order(g):
            continue
        h = reorder_decks(g, rng)
        for seed in (i, i + 10_000):
            assert g.policy_action(policy, seed) == h.policy_action(policy, seed)


def test_sampling_and_legal_actions_do_not_see_deck_order(decision_states):
    rng = np.random.default_rng(4)
    for i, g in enumerate(decision_states[::3]):
        if not has_hidden_order(g):
            continue
        h = reorder_decks(g, rng)
        assert g.sample_action(i) == h.sample_action(i)
        assert list(g.legal_actions()) == list(h.legal_actions())


def test_reordered_deck_changes_the_future():
    """The hidden order does matter to what happens next (so the tests above are not vacuous)."""
    g = GameState("medium", seed=6)
    rng = np.random.default_rng(0)
    futures = set()
    for _ in range(10):
        h = reorder_decks(g, rng)
        h.play_out("random", 1)
        futures.add(h.to_json())
    assert len(futures) > 1


def test_determinize_depends_on_the_observation_only(decision_states):
    """Two games that differ only in the hidden deck orders determinize identically from the same seed,
    which is what keeps an agent that searches determinizations honest."""
    rng = np.random.default_rng(3)
    for i, g in enumerate(decision_states[::5]):
        h = g.determinize(rng)
        assert g.determinize(i) == h.determinize(i)
