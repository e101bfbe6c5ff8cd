"""Nim's compiled rules (``gamecore.contract``): its state, deal, moves, policies, encoder and action space.

The rest of the contract is gamecore's: the two-player kernels over the state's first two fields
(``gamecore.two_player``), the search's plumbing over ``legal_actions``, and ``determinize`` (Nim hides nothing).
"""

import numpy as np

from gamecore.jit import kernel
from gamecore.rng import below, mix64
from gamecore.two_player import HEADER, NOBODY, TO_MOVE, WINNER

PILE, MOVES, MAX_TAKE = range(HEADER, HEADER + 3)
STATE_SIZE = HEADER + 3
ACTION_SIZE = 1  # the stones taken
N_RECORD = 1  # moves played
MOST_TAKE = 100  # the largest max_take option: the most legal actions, and the direct space's size
MAX_CANDIDATES = MOST_TAKE
OK, ILLEGAL = 0, 1  # apply's codes
DEALT_PILES = (10, 30)  # a pile drawn from the seed lies in this range
RANDOM, OPTIMAL = 0, 1


@kernel
def deal_game(S, seed, options):
    """options = (pile, max_take); pile 0 draws it from the seed."""
    pile = options[0]
    if pile == 0:
        pile = DEALT_PILES[0] + np.int64(mix64(seed) % np.uint64(DEALT_PILES[1] - DEALT_PILES[0] + 1))
    S[TO_MOVE], S[WINNER], S[PILE], S[MOVES], S[MAX_TAKE] = 0, NOBODY, pile, 0, options[1]


@kernel
def record(S, out):
    out[0] = S[MOVES]


@kernel
def most(S):
    """The most stones the player to move may take."""
    return min(S[MAX_TAKE], S[PILE])


@kernel
def legal_actions(S, acts):
    for take in range(1, most(S) + 1):
        acts[take - 1, 0] = take
    return most(S)


@kernel
def apply(S, act, err):
    take = act[0]
    if S[PILE] == 0 or take < 1 or take > most(S):
        err[0] = ILLEGAL
        return ILLEGAL
    S[PILE] -= take
    S[MOVES] += 1
    if S[PILE] == 0:
        S[WINNER] = S[TO_MOVE]
    else:
        S[TO_MOVE] = 1 - S[TO_MOVE]
    return OK


@kernel
def playout_action(S, policy, rs, act, scratch):
    """random: a uniform take; optimal: leave a multiple of max_take + 1 when one can."""
    winning = S[PILE] % (S[MAX_TAKE] + 1)
    act[0] = winning if policy == OPTIMAL and winning != 0 else 1 + below(rs, most(S))


PILE_BITS, TAKE_BITS = 14, 7  # the largest pile option, 10,000, and take, 100, in binary
ENCODING_SIZE = PILE_BITS + TAKE_BITS + 1


@kernel
def encode(S, encoding, player, out):
    """The pile and max_take in binary, and whether ``player`` is to move."""
    for b in range(PILE_BITS):
        out[b] = (S[PILE] >> b) & 1
    for b in range(TAKE_BITS):
        out[PILE_BITS + b] = (S[MAX_TAKE] >> b) & 1
    out[PILE_BITS + TAKE_BITS] = S[TO_MOVE] == player and S[PILE] > 0


@kernel
def action_mask(S, space, mask):
    """Index i takes i + 1 stones."""
    for i in range(mask.shape[0]):
        mask[i] = i < most(S)


@kernel
def decode(S, space, index, act, scratch, work):
    act[0] = index + 1
