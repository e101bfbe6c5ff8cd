"""Whole games under the compiled policies: the fast path of playouts and evaluation."""

import numpy as np
from numba import njit

from lotr_sim.cards import N_CARDS
from lotr_sim.layout import *  # noqa: F403  (the layout is a namespace of constants)
from lotr_sim.policies import policy_action
from lotr_sim.rng import derive_seed, mix64
from lotr_sim.rules import apply_action, new_state

AGENT_STREAM = 1  # the agents' random stream of a game: derive_seed(deal seed, AGENT_STREAM)


@njit(cache=True)
def decision_index(phase):
    """0..4 for planning, questing, travel, defense, attack."""
    if phase == PLANNING:
        return 0
    if phase == QUESTING:
        return 1
    if phase == TRAVEL:
        return 2
    if phase == DEFENSE:
        return 3
    return 4


@njit(cache=True)
def play_out(S, policies, rs, log):
    """Play ``S`` to the end in place, ``policies[decision_index]`` deciding; return the outcome."""
    act = np.empty(N_CARDS, np.int64)
    err = np.zeros(4, np.int64)
    scratch = np.empty_like(S)
    while S[PHASE] != GAME_OVER:
        policy_action(S, policies[decision_index(S[PHASE])], rs, act, scratch)
        if apply_action(S, act, err, log) != OK:
            raise RuntimeError("a compiled policy chose an illegal action")
    return S[OUTCOME]


@njit(cache=True)
def play_games(difficulty, quest_stages, policies, seed, first, outcomes, rounds):
    """Play games ``first .. first + len(outcomes) - 1`` of the evaluation ``seed``.

    Game i is dealt from ``derive_seed(seed, i)``; its agents draw from
    ``derive_seed(deal seed, AGENT_STREAM)``.
    """
    rs = np.empty(1, np.uint64)
    for i in range(outcomes.shape[0]):
        deal = derive_seed(seed, first + i)
        S = new_state(difficulty, quest_stages, deal, None)
        rs[0] = mix64(derive_seed(deal, AGENT_STREAM))
        outcomes[i] = play_out(S, policies, rs, None)
        rounds[i] = S[ROUND]
