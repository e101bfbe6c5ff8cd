"""The game contract (``gamecore.contract``, ``gamecore.interface``): a simple game writes only its rules, the kernels
every two-player game shares are one piece of code, and what a game lacks or declares wrongly fails in one line
naming the game, what is wrong and what to do."""

import ast
import dataclasses
import importlib.util
import inspect
import types

import numpy as np
import pytest

import gamecore
from gamecore import default_kernels, two_player
from gamecore.contract import check, joined
from gamecore.errors import SpecError
from gamecore.interface import Learning, Search
from gamecore.params import Param
from gamecore.rng import mix64

NIM_RULES = {"deal_game", "record", "most", "legal_actions", "apply", "playout_action", "encode", "action_mask",
             "decode"}


def nim_rules(without: tuple[str, ...] = ()) -> types.ModuleType:
    """A fresh copy of Nim's kernels module as its file writes it (no default added yet), less ``without``."""
    spec = importlib.util.spec_from_file_location("nim_rules", gamecore.load("nim").kernels.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in without:
        delattr(module, name)
    return module


def test_nim_writes_only_its_rules_and_gamecore_gives_the_rest():
    nim = gamecore.load("nim")
    written = {node.name for node in ast.parse(inspect.getsource(nim.kernels)).body if isinstance(node, ast.FunctionDef)}
    assert written == NIM_RULES
    K = nim.kernels
    assert (K.is_over, K.reward, K.determinize, K.copy) == (two_player.is_over, two_player.reward,
                                                            default_kernels.nothing_hidden, default_kernels.copy)
    assert K.root_candidates.py_func.__module__ == "gamecore.default_kernels"
    assert (K.N_PLAYERS, K.N_ROLES, K.ROLES_BY_SEAT) == (2, 2, True)


@pytest.mark.parametrize("name", ["nim", "loveletter", "carcassonne"])
def test_the_two_player_kernels_are_one_piece_of_code(name):
    K = gamecore.load(name).kernels
    for kernel in ("is_over", "to_move", "role", "reward"):
        assert getattr(K, kernel) is getattr(two_player, kernel), kernel
    assert (K.TO_MOVE, K.WINNER) == (two_player.TO_MOVE, two_player.WINNER)


@pytest.mark.parametrize("name", ["nim", "loveletter", "carcassonne", "lotr"])
def test_every_game_copies_its_states_with_the_one_copy(name):
    assert gamecore.load(name).kernels.copy is default_kernels.copy


def test_the_default_search_plumbing_lists_and_draws_the_legal_actions():
    K = gamecore.load("nim").kernels
    S = np.empty(K.STATE_SIZE, np.int64)
    K.deal_game(S, np.uint64(0), np.array([7, 3], np.int64))
    keys, err, rs = np.empty((K.MAX_CANDIDATES, 2), np.int64), np.zeros(4, np.int64), np.array([mix64(1)], np.uint64)
    n = K.root_candidates(S, np.zeros(1), rs, keys, 64, np.empty_like(S), err)
    assert keys[:n].tolist() == [[1, 0], [2, 0], [3, 0]]
    act = np.empty(K.ACTION_SIZE, np.int64)
    K.key_action(3, 0, act)
    assert tuple(K.action_key(S, act)) == (3, 0)
    assert [bool(K.is_candidate(S, np.array([t]), np.zeros(1), np.empty_like(S), err)) for t in range(5)] == \
        [False, True, True, True, False]
    ws, drawn = K.workspace(), set()
    for _ in range(60):
        assert K.sample_candidate(S, rs, act, ws, np.empty_like(S), err)
        drawn.add(int(act[0]))
    assert drawn == {1, 2, 3} and S[K.PILE] == 7


def test_carcassonne_ends_with_the_higher_score_s_player_as_winner():
    K = gamecore.load("carcassonne").kernels
    rs, act, err = np.array([mix64(5)], np.uint64), np.empty(K.ACTION_SIZE, np.int64), np.zeros(4, np.int64)
    for seed in range(3):
        S = np.empty(K.STATE_SIZE, np.int64)
        K.deal_game(S, np.uint64(seed), np.zeros(0, np.int64))
        assert S[K.WINNER] == two_player.NOBODY
        while not K.is_over(S):
            K.playout_action(S, K.RANDOM, rs, act, S)
            assert K.apply(S, act, err) == K.OK
        mine, theirs = S[K.SCORE], S[K.SCORE + 1]
        assert S[K.WINNER] == (two_player.DRAW if mine == theirs else int(theirs > mine))


@pytest.mark.parametrize("without, declared, says", [
    (("legal_actions",), {}, ("lacks root_candidates(S, row, rs, keys, attempts, scratch, err), workspace() and "
                             "sample_candidate(S, rs, act, ws, scratch, err) (SearchPlumbing; or legal_actions(S, acts)")),
    ((), {"perfect_information": False}, ("lacks determinize(S, player, rs) (Rules; or declare "
                                         "Game(perfect_information=True))")),
    (("TO_MOVE",), {}, ("is_over(S), to_move(S), role(S) and reward(S, player) (Rules; or begin the state with "
                       "gamecore.two_player's header)")),
    (("decode",), {}, "lacks decode(S, space, index, act, scratch, work) (Encoding, for its action spaces)"),
    (("apply",), {}, "lacks apply(S, act, err) (Rules)"),
])
def test_what_a_game_lacks_fails_at_registration_in_one_line_naming_the_game_and_the_fix(without, declared, says):
    game = dataclasses.replace(gamecore.load("nim"), name="nim-lacking", kernels=nim_rules(without), **declared)
    with pytest.raises(SpecError) as raised:
        gamecore.register(game)
    message = str(raised.value)
    assert message.startswith("game nim-lacking: nim_rules lacks ") and says in message and "\n" not in message
    assert message.endswith("define each there, as gamecore/contract.py describes it")
    assert "nim-lacking" not in gamecore.names()


def test_a_copy_of_nim_s_rules_is_a_whole_game():
    assert check(dataclasses.replace(gamecore.load("nim"), name="nim-again", kernels=nim_rules())).name == "nim-again"


@pytest.mark.parametrize("declared, says", [
    ({"search": {"params": ()}}, "game nim-wrong: search is a dict, not a Search: pass gamecore.interface.Search(...)"),
    ({"learning": Learning(playout_nets="nets.pack")}, "learning.playout_nets = 'nets.pack' is not \"module:function\""),
    ({"options": (Param("colour", str, "red", choices=("red", "blue")),)},
     "option colour is a str: give option_codes (validated options -> deal_game's int64 array)"),
])
def test_declarations_are_checked_when_the_game_is_made(declared, says):
    with pytest.raises(SpecError) as raised:
        dataclasses.replace(gamecore.load("nim"), name="nim-wrong", **declared)
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_a_capability_left_out_is_empty():
    assert gamecore.load("loveletter").search.table == "loveletter_sim.dp_playout:packed_plays"
    assert Search().params == () and Learning().learners == {}


def test_joined_refuses_a_member_two_modules_define_differently():
    rules, other = types.ModuleType("rules"), types.ModuleType("other")
    rules.encode, other.encode, other.decode = (lambda S, e, p, o: None), (lambda S, e, p, o: None), print
    with pytest.raises(SpecError, match="^rules and other both define encode: keep one$"):
        joined(rules, other)
    del rules.encode
    assert joined(rules, other) is rules and rules.decode is print and rules.encode is other.encode
