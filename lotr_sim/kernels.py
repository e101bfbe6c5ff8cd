"""LOTR's compiled game interface: what the generic search and harness (``agents.search``) call.

The functions that only forward to the rules are inlined into their callers,
so the interface costs no call of its own in the game loops.

Every game offers these names in one module (``gamecore.contract`` describes
them; ``copy`` is gamecore's). LOTR has one player, so its reward is the win; its decision kinds are
the five stages, and the agent of each stage is chosen by the stage
(``ROLES_BY_SEAT`` false).
"""

import numpy as np

from gamecore.default_kernels import copy
from gamecore.jit import allocating, inline_kernel
from lotr_sim import candidates
from lotr_sim import layout as L
from lotr_sim.candidates import (
    ENUMERATION_LIMIT,
    canonicalize,
    is_candidate,
    key_action,
    key_phase,
    reduced_out,
    root_candidates,
)
from lotr_sim.cards import N_CARDS
from lotr_sim.decoders import macro_action, macro_mask
from lotr_sim.encoding import encode as encode_decision
from lotr_sim.legal import MAX_OPTIONS
from lotr_sim.nets import NET_WORK, net_action, net_value
from lotr_sim.playout import decision_index
from lotr_sim.policies import policy_action
from lotr_sim.rules import apply_action, deal
from lotr_sim.rules import determinize as redraw_decks

STATE_SIZE = L.STATE_SIZE
ACTION_SIZE = N_CARDS
N_PLAYERS = 1
N_ROLES = 5  # planning, questing, travel, defense, attack
ROLES_BY_SEAT = False
N_RECORD = 3  # per game: outcome code, final round, the quest stage reached (0 the first)
MAX_CANDIDATES = ENUMERATION_LIMIT
OK = L.OK
DECODE_WORK = N_CARDS  # decode's float work space: a score per card

__all__ = [  # the compiled interface of gamecore.contract, some of it the search's candidates (lotr_sim.candidates)
    "ACTION_SIZE", "DECODE_WORK", "MAX_CANDIDATES", "NET_WORK", "N_PLAYERS", "N_RECORD", "N_ROLES", "OK",
    "ROLES_BY_SEAT", "STATE_SIZE", "action_key", "action_mask", "apply", "canonicalize", "copy", "deal_game", "decode",
    "determinize", "encode", "is_candidate", "is_over",
    "key_action", "key_matches", "net_action", "net_value", "playout_action", "record", "reduced_out", "reward",
    "role", "root_candidates", "sample_candidate", "to_move", "workspace",
]


@inline_kernel
def deal_game(S, seed, options):
    """Deal the game of ``seed`` into ``S``: options = (difficulty, quest stages, the defects in play)."""
    deal(S, options[0], options[1], options[2], seed, None)


@inline_kernel
def is_over(S):
    return S[L.PHASE] == L.GAME_OVER


@inline_kernel
def to_move(S):
    return 0


@inline_kernel
def role(S):
    """The index of the agent that decides ``S``'s pending decision: its stage."""
    return decision_index(S[L.PHASE])


@inline_kernel
def reward(S, player):
    return 1.0 if S[L.OUTCOME] == L.WIN else 0.0


@inline_kernel
def record(S, out):
    out[0] = S[L.OUTCOME]
    out[1] = S[L.ROUND]
    out[2] = S[L.QUEST_STAGE]


@inline_kernel
def determinize(S, player, rs):
    """Re-draw the hidden deck orders from what the (only) player sees."""
    redraw_decks(S, rs)


@inline_kernel
def apply(S, act, err):
    return apply_action(S, act, err, None)


@inline_kernel
def playout_action(S, policy, rs, act, scratch):
    policy_action(S, policy, rs, act, scratch)


@inline_kernel
def action_key(S, act):
    return candidates.action_key(S[L.PHASE], act)


@inline_kernel
def key_matches(S, k0, k1):
    """Whether the key may be a candidate of ``S`` (a cheap test before ``is_candidate``)."""
    return key_phase(k1) == S[L.PHASE]


@allocating
def workspace():
    return np.empty(N_CARDS, np.int64), np.empty((N_CARDS, MAX_OPTIONS), np.int64), np.empty(N_CARDS, np.int64)


@inline_kernel
def sample_candidate(S, rs, act, ws, scratch, err):
    slots, options, n_options = ws
    return candidates.sample_action(S, rs, act, slots, options, n_options, scratch, err)


@inline_kernel
def encode(S, encoding, player, out):
    """Encoding ``encoding`` of what the (only) player sees (``lotr_sim/encoding.py``)."""
    encode_decision(S, encoding, out)


@inline_kernel
def action_mask(S, space, mask):
    """The macro actions of the pending decision (LOTR's one action space, thesis 5.4.2): every one is legal."""
    macro_mask(S, mask)


@inline_kernel
def decode(S, space, index, act, scratch, work):
    """Macro action ``index`` of the pending decision."""
    macro_action(S, index, act, scratch, work)
