"""Whole games of a setup in compiled code: the evaluation harness's inner loop.

Common random numbers: game i is dealt from ``derive_seed(seed, i)`` whatever
the setup, and the agent of stage s draws from its own stream
``derive_seed(derive_seed(deal, AGENT_STREAM), s)``, so two setups face the
same deals and a stage's agent is not disturbed by another stage's choice of
agent.
"""

import numpy as np

from agents.decide import decide
from agents.specs import KIND, PYTHON
from agents.ticks import ticks
from lotr_sim import layout as L
from lotr_sim.cards import N_CARDS
from lotr_sim.jit import allocating, kernel
from lotr_sim.playout import AGENT_STREAM, decision_index
from lotr_sim.rng import derive_seed, mix64
from lotr_sim.rules import apply_action, deal

N_STAGES = 5


@kernel
def seed_agents(deal_seed, rs):
    """The agents' streams for a game dealt from ``deal_seed``: row s of ``rs`` for stage s."""
    agent_seed = derive_seed(deal_seed, AGENT_STREAM)
    for s in range(N_STAGES):
        rs[s, 0] = mix64(derive_seed(agent_seed, s))


@kernel
def play_compiled_stages(S, rows, rs, act, err, scratch, stage_ticks, decisions):
    """Advance ``S`` with the compiled agents of ``rows`` until a decision of a Python agent
    (return its stage index) or the end of the game (return -1)."""
    while S[L.PHASE] != L.GAME_OVER:
        s = decision_index(S[L.PHASE])
        if rows[s, KIND] == PYTHON:
            return s
        before = ticks()
        decide(S, rows[s], rs[s], act, scratch)
        stage_ticks[s] += ticks() - before
        decisions[s] += 1
        if apply_action(S, act, err, None) != L.OK:
            raise RuntimeError("an agent chose an illegal action")
    return -1


@allocating
def play_setup_games(difficulty, quest_stages, rows, seed, first, outcomes, rounds, game_ticks, stage_ticks, decisions):
    """Play games ``first .. first + len(outcomes) - 1`` of ``seed`` with the compiled agents ``rows``
    (5 x ROW_WIDTH).

    Per game: outcome, final round and ticks; per stage (added to): ticks spent
    deciding and number of decisions."""
    act = np.empty(N_CARDS, np.int64)
    err = np.zeros(4, np.int64)
    rs = np.empty((N_STAGES, 1), np.uint64)
    scratch = np.empty(L.STATE_SIZE, np.int64)
    S = np.empty(L.STATE_SIZE, np.int64)
    for i in range(outcomes.shape[0]):
        start = ticks()
        deal_seed = derive_seed(seed, first + i)
        deal(S, difficulty, quest_stages, deal_seed, None)
        seed_agents(deal_seed, rs)
        if play_compiled_stages(S, rows, rs, act, err, scratch, stage_ticks, decisions) != -1:
            raise RuntimeError("play_setup_games takes compiled agents only")
        outcomes[i] = S[L.OUTCOME]
        rounds[i] = S[L.ROUND]
        game_ticks[i] = ticks() - start


@allocating
def advance_batch(states, active, rows, rs, waiting, stage_ticks, decisions):
    """``play_compiled_stages`` for every active game of a batch; ``waiting[i]`` gets its result."""
    act = np.empty(N_CARDS, np.int64)
    err = np.zeros(4, np.int64)
    scratch = np.empty(states.shape[1], np.int64)
    for i in range(states.shape[0]):
        if active[i]:
            waiting[i] = play_compiled_stages(states[i], rows, rs[i], act, err, scratch, stage_ticks, decisions)
