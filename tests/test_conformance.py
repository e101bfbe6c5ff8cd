"""The conformance suite: every game that ``gamecore.names()`` lists (Nim, the test game, included) passes it
without a line written for it. A new game's author runs ``pytest tests/test_conformance.py`` to know it works.

What it checks, per game: the kernels and ``Game`` fields the interface asks for (a missing kernel fails at
``gamecore.load`` in one line); random games end and keep what the game says it conserves (``Game.invariants``);
the action spaces' masks mark exactly the legal actions (a ``direct`` space each legal action once) and decode
to them; the encoders read no hidden information and stay in their bounds; ``determinize`` keeps what the
player sees and the legal actions; a search with one seed decides the same on two states that differ only in
hidden information (honesty); OpenSpiel's ``random_sim_test``; PettingZoo's ``api_test``; Gymnasium's
``check_env``; illegal actions fail in one line and change nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import warnings

import numpy as np
import pytest

import gamecore
from agents.environments import GameAECEnv, GameEnv, environment_id
from agents.search import compiled
from agents.specs import AgentSpec
from gamecore.errors import IllegalActionError, SpecError
from gamecore.interface import imported, missing
from gamecore.rng import mix64

GAMES = gamecore.names()
RANDOM_GAMES = 3  # random games walked per game
MAX_DECISIONS = 5_000  # a random game longer than this does not end
STATES = 40  # decision states checked per game by the slower checks
SEARCH_BUDGET = 64  # the honesty check's MCTS playouts per decision
SENTINEL = 7.5  # written past an encoding's end: an encoder that writes beyond its size changes it



@pytest.fixture(params=GAMES)
def game(request) -> gamecore.Game:
    return gamecore.load(request.param)


def options_of(game) -> np.ndarray:
    return game.option_codes(game.check_options({}))


@functools.cache
def walk(name: str) -> tuple[np.ndarray, ...]:
    """The flat states at every decision of ``RANDOM_GAMES`` games of the game's first (random) policy, each
    finished game's last state included."""
    game = gamecore.load(name)
    K = game.kernels
    rs = np.array([mix64(np.uint64(11))], np.uint64)
    act, err = np.empty(K.ACTION_SIZE, np.int64), np.zeros(4, np.int64)
    S, scratch = np.empty(K.STATE_SIZE, np.int64), np.empty(K.STATE_SIZE, np.int64)
    states = []
    for deal in range(RANDOM_GAMES):
        K.deal_game(S, np.uint64(deal), options_of(game))
        for _ in range(MAX_DECISIONS):
            states.append(S.copy())
            if K.is_over(S):
                break
            K.playout_action(S, 0, rs, act, scratch)
            assert K.apply(S, act, err) == K.OK, f"the random policy chose an illegal action: {act}"
        else:
            pytest.fail(f"a random game of {name} did not end in {MAX_DECISIONS} decisions")
    return tuple(states)


def decisions(name: str, count: int = STATES) -> list[np.ndarray]:
    """Up to ``count`` decision states of ``walk``, spread over its games."""
    states = [S for S in walk(name) if not gamecore.load(name).kernels.is_over(S)]
    return states[:: max(1, len(states) // count)][:count]


def players(game) -> range:
    """The players whose views the checks compare: both seats, or the one player."""
    return range(game.n_players)


def encoding(game, S: np.ndarray, number: int, player: int) -> np.ndarray | None:
    """Encoder ``number`` of what ``player`` sees of ``S``, None where it covers no role of that player."""
    encoder = game.encoders[number]
    role = game.roles[player] if game.by_seat else game.roles[game.kernels.role(S)]
    if role not in encoder.sizes:
        return None
    out = np.full(encoder.sizes[role] + 3, SENTINEL, np.float32)
    game.kernels.encode(S, number, player, out[:-3])
    assert (out[-3:] == SENTINEL).all(), f"encoder {encoder.name} writes past its size {encoder.sizes[role]}"
    return out[:-3]


def redrawn(game, S: np.ndarray, player: int, seed: int) -> np.ndarray:
    D = S.copy()
    game.kernels.determinize(D, player, np.array([mix64(np.uint64(seed))], np.uint64))
    return D


def one_line(error: Exception) -> bool:
    return "\n" not in str(error) and bool(str(error))


# ---- the interface ---------------------------------------------------------------------------------------------


def test_the_kernels_and_the_game_fields_are_all_there(game):
    assert missing(game) == []
    K = game.kernels
    assert len(game.roles) == K.N_ROLES and game.policies and game.n_players in (1, 2)
    assert game.by_seat == (len(game.roles) == game.n_players)
    assert game.state_from_core is not None, "state_from_core: the OpenSpiel form and these checks need it"
    assert game.encoders and game.action_spaces, "the environments need an encoder and an action space"
    for described in (*game.encoders, *game.action_spaces):
        assert set(described.sizes) <= set(game.roles) and min(described.sizes.values()) > 0
    for encoder in game.encoders:  # a layout by slot (net = "slots") covers the encoding exactly
        if encoder.layout:
            global_size, slots, slot_size = encoder.layout
            assert global_size + slots * slot_size == max(encoder.sizes.values()), f"{encoder.name}'s layout"
            for space in game.action_spaces:
                assert not space.per_slot or slots * space.per_slot == max(space.sizes.values()), space.name
    if game.invariants:
        imported(game.invariants)


@pytest.mark.parametrize("kernel", ["decode", "deal_game"])
def test_a_missing_kernel_fails_at_load_in_one_line_naming_it(game, kernel):
    lacking = types.ModuleType(f"{game.kernels.__name__}_without_{kernel}")
    lacking.__dict__.update({k: v for k, v in vars(game.kernels).items() if k != kernel})
    with pytest.raises(SpecError, match=rf"^game broken: .* lacks {kernel}\(S, ") as raised:
        gamecore.register(dataclasses.replace(game, name="broken", kernels=lacking))
    assert one_line(raised.value)
    lacking.__dict__[kernel] = lambda S: None
    with pytest.raises(SpecError, match=rf"lacks {kernel} with the parameters \(S, "):
        gamecore.register(dataclasses.replace(game, name="broken", kernels=lacking))
    assert "broken" not in gamecore.names()


# ---- random games ----------------------------------------------------------------------------------------------


def test_random_games_end_and_keep_what_the_game_conserves(game):
    K = game.kernels
    broken = imported(game.invariants) if game.invariants else (lambda S: [])
    ends = 0
    for S in walk(game.name):
        assert broken(S) == [], f"{game.name}: {broken(S)}"
        if K.is_over(S):
            ends += 1
            rewards = [K.reward(S, p) for p in range(game.n_players)]
            assert all(0.0 <= r <= 1.0 for r in rewards)
            assert game.n_players == 1 or sum(rewards) == 1.0
            assert game.state_from_core(S).is_over
    assert ends == RANDOM_GAMES


def test_random_play_through_every_action_space_ends(game):
    """Uniform choices among the mask's indices, decoded and applied, at every role a space covers."""
    K = game.kernels
    rng = np.random.default_rng(5)
    act, err = np.empty(K.ACTION_SIZE, np.int64), np.zeros(4, np.int64)
    S, scratch, work = np.empty(K.STATE_SIZE, np.int64), np.empty(K.STATE_SIZE, np.int64), np.empty(K.DECODE_WORK)
    rs = np.array([mix64(np.uint64(3))], np.uint64)
    for number, space in enumerate(game.action_spaces):
        mask = np.zeros(max(space.sizes.values()), np.int8)
        K.deal_game(S, np.uint64(number), options_of(game))
        for _ in range(MAX_DECISIONS):
            if K.is_over(S):
                break
            if game.roles[K.role(S)] in space.sizes:
                K.action_mask(S, number, mask)
                K.decode(S, number, rng.choice(np.flatnonzero(mask)), act, scratch, work)
            else:
                K.playout_action(S, 0, rs, act, scratch)
            assert K.apply(S, act, err) == K.OK
        assert K.is_over(S), f"action space {space.name}: a random game did not end"


# ---- action spaces ---------------------------------------------------------------------------------------------


def test_the_mask_marks_exactly_the_legal_actions_and_decodes_to_them(game):
    K = game.kernels
    act, err = np.empty(K.ACTION_SIZE, np.int64), np.zeros(4, np.int64)
    scratch, work = np.empty(K.STATE_SIZE, np.int64), np.empty(K.DECODE_WORK)
    checked = 0
    for number, space in enumerate(game.action_spaces):
        mask = np.zeros(max(space.sizes.values()) + 2, np.int8)
        for S in walk(game.name):
            role = None if K.is_over(S) else game.roles[K.role(S)]
            mask[:] = 1
            K.action_mask(S, number, mask[:-2])
            assert (mask[-2:] == 1).all(), f"action_mask writes past the widest role's {len(mask) - 2}"
            if role not in space.sizes:
                assert role is not None or not mask[:-2].any(), "a finished game has legal indices"
                continue
            indices = np.flatnonzero(mask[:-2])
            assert indices.size and indices.max() < space.sizes[role], f"{space.name} at {role}: {indices}"
            state = game.state_from_core(S)
            decoded = []
            for index in indices:
                K.decode(S, number, index, act, scratch, work)
                copy = S.copy()
                assert K.apply(copy, act, err) == K.OK, f"{space.name} index {index} decodes to an illegal {act}"
                decoded.append(state.action_from_vector(act))
            if space.name == "direct":
                legal = state.legal_actions()
                assert len(set(decoded)) == len(decoded) == len(legal) and set(decoded) == set(legal)
            checked += 1
    assert checked


# ---- hidden information ----------------------------------------------------------------------------------------


def test_encoders_read_no_hidden_information_and_stay_in_their_bounds(game):
    for S in walk(game.name):
        for player in players(game):
            worlds = [redrawn(game, S, player, seed) for seed in range(3)]
            for number, encoder in enumerate(game.encoders):
                seen = encoding(game, S, number, player)
                if seen is None:
                    continue
                assert encoder.low <= seen.min() and seen.max() <= encoder.high, f"{encoder.name} out of bounds"
                for world in worlds:
                    assert np.array_equal(encoding(game, world, number, player), seen), \
                        f"{encoder.name} shows player {player} something determinize changed"


def test_determinize_keeps_what_the_player_sees_and_the_legal_actions(game):
    K = game.kernels
    changed = 0
    for S in decisions(game.name):
        state = game.state_from_core(S)
        for player in players(game):
            world = game.state_from_core(redrawn(game, S, player, 1))
            assert world.observation(player) == state.observation(player)
            assert (world.is_over, world.to_move, world.decision_kind) == (state.is_over, state.to_move,
                                                                          state.decision_kind)
            if player == K.to_move(S):
                legal, again = state.legal_actions(), world.legal_actions()
                assert len(legal) == len(again) and (len(legal) > 1000 or list(legal) == list(again))
            changed += not np.array_equal(world.core_state(), S)
    assert changed or game.name == "nim", "determinize never redrew anything"


def test_a_search_decides_from_what_the_player_sees_only(game):
    """Honesty: the same seed on two states that differ only in what the mover cannot see gives the same choice
    (determinize draws from a canonical order of the hidden items, never from the true one)."""
    K = game.kernels
    search = compiled(K)
    row = AgentSpec.make("mcts", game=game, budget=SEARCH_BUDGET, ppn=4).row()
    differ = []
    for k, S in enumerate(decisions(game.name, 12)):
        choices = []
        for T in (S, redrawn(game, S, K.to_move(S), 100 + k)):
            act, rs = np.empty(K.ACTION_SIZE, np.int64), np.array([mix64(np.uint64(k))], np.uint64)
            search.decide(T.copy(), row, rs, act, np.empty_like(T))
            choices.append(act)
        if not np.array_equal(*choices):
            differ.append(k)
    assert not differ, f"states {differ} of 12: another decision on a state differing only in hidden information"


# ---- illegal actions -------------------------------------------------------------------------------------------


def an_illegal_action(game):
    """A decision state, and a legal action of another state that is illegal at it, as an action and as the
    kernels' vector (LOTR's vectors do not name their stage: a questing action's may be a legal planning one)."""
    states = [game.state_from_core(S) for S in decisions(game.name)]
    small = [(state, list(state.legal_actions())) for state in states if len(state.legal_actions()) <= 1000]
    for state, legal in small:
        vectors = {vector_at(state, action) for action in legal}
        for _, others in small:
            for action in others:
                if action not in legal and vector_at(state, action) not in vectors | {None}:
                    return state, action
    pytest.fail("no legal action of one state was illegal at another")


def vector_at(state, action) -> bytes | None:
    """``action`` as the kernels' vector at ``state``, None where it has none (a meeple on a feature that
    Carcassonne's drawn tile lacks)."""
    try:
        return state.vector(action).tobytes()
    except IllegalActionError:
        return None


def test_illegal_actions_fail_in_one_line_and_change_nothing(game):
    state, action = an_illegal_action(game)
    before = state.core_state()
    with pytest.raises(IllegalActionError) as raised:
        state.apply(action)
    assert one_line(raised.value) and np.array_equal(state.core_state(), before)
    K = game.kernels
    S, err = state.core_state(), np.zeros(4, np.int64)
    assert K.apply(S, state.vector(action), err) != K.OK and np.array_equal(S, before)
    over = game.state_from_core(walk(game.name)[-1])
    with pytest.raises(IllegalActionError) as raised:
        over.apply(action)
    assert one_line(raised.value)


def test_an_environment_refuses_an_illegal_index_in_one_line_or_scores_it_a_loss(game):
    env = GameEnv(game, illegal="raise")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0]) if not info["action_mask"].all() else env.action_space.n
    with pytest.raises(IllegalActionError) as raised:
        env.step(illegal)
    assert one_line(raised.value)
    env = GameEnv(game)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal"], info["action_mask"].any()) == (-1.0, True, True, False)


# ---- the ecosystem's own checks --------------------------------------------------------------------------------


def test_gymnasiums_check_env(game):
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(environment_id(game.name))
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs) and info["action_mask"].any()
    assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))


def test_pettingzoos_api_test(game):
    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice (agent names like player_0, a render method) is not a failure
        api_test(GameAECEnv(game), num_cycles=200)


def test_openspiels_random_simulation_test(game):
    pyspiel = pytest.importorskip("pyspiel")
    from gamecore import openspiel

    spiel = openspiel.load(game.name)
    pyspiel.random_sim_test(spiel, num_sims=2, serialize=True, verbose=False)
    assert spiel.get_type().provides_observation_tensor == (game.observation_encoder is not None)


def test_openspiels_resampling_keeps_the_information_state(game):
    """What OpenSpiel's ISMCTSBot asks of a state: the same information state and tensor, other hidden
    information."""
    pyspiel = pytest.importorskip("pyspiel")
    from gamecore import openspiel

    state = openspiel.load(game.name, deals=1, seed=3).new_initial_state()
    state.apply_action(0)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for world in (state.resample_from_infostate(player, sampler) for _ in range(4)):
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.observation_tensor(player) == state.observation_tensor(player)
        assert [str(a) for a in world.ours.legal_actions()] == [str(a) for a in state.ours.legal_actions()]
