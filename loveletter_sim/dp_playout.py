"""The DP player inside compiled searches: a search's model of its opponent (``opponent_playout = "dp"``).

The table's plays (``dp.table``) for what a mover can see (slot 0 or a known card; A; the
opponent's protection; which of his cards the opponent knows) are packed five to a float at the end of the
agent row (``packed_plays``, ``Game.search.table``); ``net_action`` plays them for the opponent of the player
a world was determinized for (``layout.VIEWER``), from that world's hands and knowledge, exactly as the
Python ``dp`` player would there (``tests/test_loveletter_search.py``). The searcher's own moves, and every
move of a state never determinized (the oracle's), keep the row's playout policy. The search stays honest:
it reads the opponent's card only in worlds drawn from what the searcher sees. With ``own_playout = "dp"`` the
table also plays the searcher's own moves past the tree: flat Monte Carlo then improves on the DP player by one
step of look-ahead (a rollout of the DP policy from each candidate, in worlds that honour every card ruled out).

With ``opponent_belief = "dp"`` the worlds also honour what the opponent's last move says of the card he kept,
were he the DP player (public and deterministic): ``net_plausible`` rejects a world in which the table, given
what the opponent saw then (``layout.MOVE_SEEN``, ``MOVE_VIEW``), would not have made that move, and the search
draws again (``agents.playouts``). The belief stays honest: it reads only public moves and a public policy.
"""

from __future__ import annotations

import functools

import numpy as np

from gamecore.jit import kernel
from gamecore.two_player import NOBODY, TO_MOVE
from loveletter_sim import dp
from loveletter_sim import layout as L

NET_WORK = 0  # net_action needs no work space
MARK = 1.0  # the table's first float: a DP table follows (a zero-padded row has none)
OPPONENT, OWN, BELIEF = 1, 2, 3  # then whether the table plays the searcher's opponent, the searcher himself, and
# whether it weighs the worlds by the opponent's last move
HEADER = 4
PER_FLOAT = 5  # plays packed in one float, 10 bits each (a play code is at most 882 < 1024)
BITS = 10
_KNOWN_SLOTS = 9  # 0: the opponent's card not known; 1..8: known to be that value
_HAND_INDEX = dp._HAND_INDEX
_PLACE = dp._PLACE


@functools.cache
def _packed() -> np.ndarray:
    plays = dp.table()._plays[:, [0, *range(9, 17)]].astype(np.int64).ravel()
    plays = np.concatenate([plays, np.zeros(-len(plays) % PER_FLOAT, np.int64)]).reshape(-1, PER_FLOAT)
    words = (plays << (BITS * np.arange(PER_FLOAT))).sum(axis=1)
    return words.astype(np.float64)


@functools.cache
def _with_header(opponent: bool, own: bool, belief: bool) -> np.ndarray:
    packed = np.concatenate([[MARK, opponent, own, belief], _packed()])
    packed.setflags(write=False)
    return packed


def packed_plays(params: dict) -> np.ndarray | None:
    """The table carried at the end of a search's row: the DP plays where ``opponent_playout`` or ``own_playout``
    is "dp", the belief where ``opponent_belief`` is."""
    flags = (params.get("opponent_playout") == "dp", params.get("own_playout") == "dp",
             params.get("opponent_belief") == "dp")
    return _with_header(*flags) if any(flags) else None


@kernel
def table_play(table, b1, b2, code, known, theirs, protected):
    """The table's play code for a mover holding ``b1`` and ``b2`` who has not seen the copies ``code``
    (``dp._PLACE``) besides them, knows the other's card ``known`` (0: not), whose card ``theirs`` the other
    knows (0: none) and whose opponent is ``protected``; 0 where the table holds no such configuration."""
    p = 0
    if theirs != 0 and theirs == b1:
        p = 1
    elif theirs != 0 and theirs == b2:
        p = 2
    if b1 > b2:
        b1, b2 = b2, b1
        p = 0 if p == 0 else 3 - p
    if b1 == b2 and p == 2:
        p = 1
    i = (((_HAND_INDEX[b1, b2] * _KNOWN_SLOTS + known) * dp._N_REMAINING_CODES + code) * 2 + protected) * 3 + p
    word = np.int64(table[HEADER + i // PER_FLOAT])
    return (word >> (BITS * (i % PER_FLOAT))) & ((1 << BITS) - 1)


@kernel
def net_action(S, nets, act, scratch):
    """The DP table's play for the player to move in ``S`` when the row carries the table for him: the opponent
    of the player ``S`` was determinized for, or that player himself; False (``act`` untouched) elsewhere."""
    table = nets[0]
    if table.shape[0] == 0 or table[0] != MARK or S[L.VIEWER] == NOBODY:
        return False
    if table[OWN if S[TO_MOVE] == S[L.VIEWER] else OPPONENT] == 0.0:
        return False
    me, you = S[TO_MOVE], 1 - S[TO_MOVE]
    b1, b2 = S[L.HAND + 2 * me], S[L.HAND + 2 * me + 1]
    code = 0
    for value in range(1, L.N_VALUES + 1):
        unseen = L.COPIES[value] - S[L.SEEN + value] - (b1 == value) - (b2 == value)
        code += unseen * _PLACE[value]
    play = table_play(table, b1, b2, code, S[L.KNOWN + me], S[L.KNOWN + you], S[L.PROTECTED + you])
    if play == 0:  # not a configuration of the table: the playout policy decides
        return False
    L.fill(S, act, play // 100, L.TARGET_SELF if play % 10 == dp.TARGET_SELF else L.TARGET_OPPONENT,
           (play // 10) % 10)
    return True


@kernel
def net_plausible(S, nets):
    """Whether the DP player, holding the card the determinized world ``S`` gives the searcher's opponent (his first
    slot: ``kernels.determinize``) beside the card he played last, would have made his last move; True where the
    row asks for no belief, where his hand changed since (``layout.MOVE`` 0) or the table holds no such
    configuration."""
    table = nets[0]
    if table.shape[0] == 0 or table[0] != MARK or table[BELIEF] == 0.0 or S[L.VIEWER] == NOBODY:
        return True
    you = 1 - S[L.VIEWER]
    move = S[L.MOVE + you]
    if move == 0:
        return True
    card, guess, target = move // 100, (move // 10) % 10, move % 10
    kept = S[L.HAND + 2 * you]
    code = 0
    for value in range(1, L.N_VALUES + 1):
        unseen = L.COPIES[value] - L.seen_before(S, you, value) - (card == value) - (kept == value)
        code += unseen * _PLACE[value]
    view = S[L.MOVE_VIEW + you]
    protected = view // 81
    play = table_play(table, card, kept, code, view % 9, (view // 9) % 9, protected)
    if play == 0:
        return True
    if play // 100 != card:
        return False
    if card == L.PRINCE:
        return target == (L.TARGET_SELF if protected != 0 or play % 10 == dp.TARGET_SELF else L.TARGET_OPPONENT)
    return card != L.GUARD or protected != 0 or guess == (play // 10) % 10
