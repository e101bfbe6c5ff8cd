"""Nim's compiled interface (``gamecore.interface``)."""

import numpy as np

from gamecore.jit import allocating, kernel
from gamecore.rng import below, mix64

PILE, TO_MOVE, WINNER, MOVES, MAX_TAKE = range(5)
STATE_SIZE = 5
ACTION_SIZE = 1
N_PLAYERS = 2
N_ROLES = 2
ROLES_BY_SEAT = True
N_RECORD = 1  # moves played
MAX_CANDIDATES = 64
OK = 0
ILLEGAL = 1
DEALT_PILES = (10, 30)  # a pile drawn from the seed lies in this range
RANDOM, OPTIMAL = 0, 1


@kernel
def deal_game(S, seed, options):
    """options = (pile, max_take); pile 0 draws it from the seed."""
    pile = options[0]
    if pile == 0:
        pile = DEALT_PILES[0] + np.int64(mix64(seed) % np.uint64(DEALT_PILES[1] - DEALT_PILES[0] + 1))
    S[PILE], S[TO_MOVE], S[WINNER], S[MOVES], S[MAX_TAKE] = pile, 0, -1, 0, options[1]


@kernel
def is_over(S):
    return S[PILE] == 0


@kernel
def to_move(S):
    return S[TO_MOVE]


@kernel
def role(S):
    return S[TO_MOVE]


@kernel
def reward(S, player):
    return 1.0 if S[WINNER] == player else 0.0


@kernel
def record(S, out):
    out[0] = S[MOVES]


@kernel
def copy(dst, src):
    for i in range(STATE_SIZE):
        dst[i] = src[i]


@kernel
def determinize(S, player, rs):
    return


@kernel
def most(S):
    return min(S[MAX_TAKE], S[PILE])


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


@kernel
def root_candidates(S, row, rs, keys, attempts, scratch, err):
    n = min(most(S), keys.shape[0])
    for i in range(n):
        keys[i, 0], keys[i, 1] = i + 1, 0
    return n


@kernel
def action_key(S, act):
    return act[0], np.int64(0)


@kernel
def key_action(k0, k1, act):
    act[0] = k0


@kernel
def key_matches(S, k0, k1):
    return True


@kernel
def is_candidate(S, act, row, scratch, err):
    return 1 <= act[0] <= most(S)


@kernel
def canonicalize(S, act):
    return


@kernel
def reduced_out(S, act, row):
    return False


@allocating
def workspace():
    return (np.empty(1, np.int64),)


@kernel
def sample_candidate(S, rs, act, ws, scratch, err):
    act[0] = 1 + below(rs, most(S))
    return True


PILE_BITS, TAKE_BITS = 14, 7  # the largest pile option, 10,000, and take, 100, in binary
ENCODING_SIZE = PILE_BITS + TAKE_BITS + 1
MOST_TAKE = 100  # the largest max_take option: the direct space's size
DECODE_WORK = 0


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
