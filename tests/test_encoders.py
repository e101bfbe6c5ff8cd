"""What the encoders and direct action spaces of Love Letter and Carcassonne show, on positions worked out by hand
(``tests/test_conformance.py`` checks every game's for hidden information, bounds and legality)."""

import numpy as np

import gamecore
from carcassonne_sim import encoding as CE
from loveletter_sim import encoding as LE
from loveletter_sim.game import Play


def encoded(game, state, player: int) -> np.ndarray:
    out = np.empty(game.encoders[0].sizes[game.roles[player]], np.float32)
    game.kernels.encode(state.core_state(), 0, player, out)
    return out


def legal_indices(game, state) -> list[int]:
    mask = np.zeros(game.action_spaces[0].sizes[game.roles[0]], np.int8)
    game.kernels.action_mask(state.core_state(), 0, mask)
    return np.flatnonzero(mask).tolist()


def test_love_letter_shows_my_hand_and_what_each_knows_of_the_other():
    game = gamecore.load("loveletter")
    state = game.new_game(0, opening="1-2")  # the first player holds a Guard and a Priest
    mine = encoded(game, state, 0)
    assert mine[:8].tolist() == [0.5, 0.5, 0, 0, 0, 0, 0, 0] and mine[-1] == 1.0  # my hand; my turn
    assert mine[38:46].sum() == 0 and mine[46] == (5 - 1) / 5  # nothing seen yet; four Guards unseen by me
    assert legal_indices(game, state) == [0, 1, 2, 3, 4, 5, 6, 8]  # a Guard naming 2-8, or the Priest
    state.apply(Play(2))  # the Priest: the first player now knows the second's card
    known = int(state.core_state()[game.kernels.KNOWN])
    assert known > 0 and encoded(game, state, 0)[8 + known - 1] == 1.0
    assert encoded(game, state, 1)[23 + known - 1] == 1.0  # the second player knows he was seen
    assert encoded(game, state, 0)[38 + 1] == 1 / 2  # one of the two Priests played


def test_love_letter_direct_indices_decode_to_the_card_target_and_guess():
    game = gamecore.load("loveletter")
    K = game.kernels
    act = np.empty(3, np.int64)
    expected = {0: (1, 0, 2), 6: (1, 0, 8), 7: (1, 0, 0), 11: (5, 0, 0), 12: (5, 1, 0), 15: (8, 0, 0)}
    for index, vector in expected.items():
        K.decode(np.zeros(K.STATE_SIZE, np.int64), 0, index, act, np.empty(K.STATE_SIZE, np.int64), np.empty(0))
        assert tuple(act) == vector
    assert LE.N_DIRECT == 16 == game.action_spaces[0].sizes["first"]


def test_carcassonne_slots_are_the_open_positions_south_to_north_then_west_to_east():
    """The start tile (city north, road east-west, field south) at (0, 0): four open positions."""
    game = gamecore.load("carcassonne")
    state = game.new_game(0)
    obs = encoded(game, state, 0)
    slots = obs[CE.GLOBAL_SIZE:].reshape(-1, CE.SLOT_SIZE)
    coordinates = [(round(s[CE.SLOT_X] * 72), round(s[CE.SLOT_Y] * 72)) for s in slots[:4]]
    assert coordinates == [(0, -1), (-1, 0), (1, 0), (0, 1)] and not slots[4:].any()
    north, south = 0, 2
    assert slots[3, CE.SLOT_EDGES + 3 * south: CE.SLOT_EDGES + 3 * south + 3].tolist() == [0, 0, 1]  # a city below
    assert slots[0, CE.SLOT_EDGES + 3 * north: CE.SLOT_EDGES + 3 * north + 3].tolist() == [1, 0, 0]  # a field above
    assert obs[CE.TILE_AT + int(state.core_state()[game.kernels.CUR])] == 1.0
    assert abs(obs[CE.STACK_AT:CE.STACK_AT + 24].sum() - sum(
        (np.bincount(state.core_state()[game.kernels.ORDER + 1:game.kernels.ORDER + 71], minlength=24))
        / CE.COUNTS)) < 1e-4  # the 70 tiles to come, by type


def test_carcassonne_direct_indices_place_on_their_slot():
    game = gamecore.load("carcassonne")
    state = game.new_game(3)
    K = game.kernels
    act = np.empty(4, np.int64)
    slot_of = {(0, -1): 0, (-1, 0): 1, (1, 0): 2, (0, 1): 3}
    legal = {(a.x, a.y, a.rotation, a.meeple) for a in state.legal_actions()}
    placed = set()
    for index in legal_indices(game, state):
        K.decode(state.core_state(), 0, index, act, np.empty(K.STATE_SIZE, np.int64), np.empty(0))
        assert slot_of[(int(act[0]), int(act[1]))] == index // CE.SLOT_ACTIONS
        assert act[2] == index % CE.SLOT_ACTIONS // CE.MEEPLE_CHOICES and act[3] == index % CE.MEEPLE_CHOICES - 1
        placed.add(state.action_from_vector(act))
    assert {(a.x, a.y, a.rotation, a.meeple) for a in placed} == legal
