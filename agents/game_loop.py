"""The compiled game loop, compiled per game (``agents.search.compiled``): whole games of compiled agents
(``play_games``, the evaluation harness's inner loop), games in lockstep up to a Python agent's decision
(``advance_batch``), and the batches a Python agent reads of them (``encode_batch``, ``mask_batch``,
``decode_batch``; where the game has a learning interface).

Common random numbers in the harness: game i is dealt from ``derive_seed(seed, i)`` whatever the setup, and the
agent of role r draws from its own stream ``derive_seed(derive_seed(deal, AGENT_STREAM), r)``, so two setups face
the same deals and a role's agent is not disturbed by another role's choice of agent.
"""

from __future__ import annotations

import types

import numpy as np

from agents.ticks import ticks
from gamecore.jit import allocating, kernel
from gamecore.rng import derive_seed, mix64
from gamecore.row import KIND, PYTHON

AGENT_STREAM = 1  # the agents' random stream of a game: derive_seed(deal seed, AGENT_STREAM)


def game_loop_functions(game: types.ModuleType, this: types.ModuleType) -> tuple:
    """The compiled game loop over the game's kernels ``game``; its agents decide by ``this.decide`` (``this``:
    the game's compiled module)."""

    @kernel
    def seed_agents(deal_seed, rs):
        """The agents' streams for a game dealt from ``deal_seed``: row r of ``rs`` for role r."""
        agent_seed = derive_seed(deal_seed, AGENT_STREAM)
        for r in range(game.N_ROLES):
            rs[r, 0] = mix64(derive_seed(agent_seed, r))

    @kernel
    def play_compiled_roles(S, rows, rs, act, err, scratch, role_ticks, decisions):
        """Advance ``S`` with the compiled agents of ``rows`` until a decision of a Python agent
        (return its role) or the end of the game (return -1)."""
        while not game.is_over(S):
            r = game.role(S)
            if rows[r, KIND] == PYTHON:
                return r
            before = ticks()
            this.decide(S, rows[r], rs[r], act, scratch)
            role_ticks[r] += ticks() - before
            decisions[r] += 1
            if game.apply(S, act, err) != game.OK:
                raise RuntimeError("an agent chose an illegal action")
            game.note_turn(S)
        return -1

    @kernel
    def deal(S, rs, seed, game_index, options):
        """Deal game ``game_index`` of ``seed`` into ``S`` and seed its agents' streams ``rs``."""
        deal_seed = derive_seed(seed, game_index)
        game.deal_game(S, deal_seed, options)
        this.seed_agents(deal_seed, rs)

    @allocating
    def play_games(options, rows, seed, first, records, rewards, game_ticks, role_ticks, decisions):
        """Play games ``first .. first + len(records) - 1`` of ``seed`` with the compiled agents ``rows``
        (one per role).

        Per game: the game's record, each player's reward and ticks; per role (added to): ticks
        spent deciding and number of decisions."""
        act = np.empty(game.ACTION_SIZE, np.int64)
        err = np.zeros(4, np.int64)
        rs = np.empty((game.N_ROLES, 1), np.uint64)
        scratch = np.empty(game.STATE_SIZE, np.int64)
        S = np.empty(game.STATE_SIZE, np.int64)
        for i in range(records.shape[0]):
            start = ticks()
            this.deal(S, rs, seed, first + i, options)
            if this.play_compiled_roles(S, rows, rs, act, err, scratch, role_ticks, decisions) != -1:
                raise RuntimeError("play_games takes compiled agents only")
            game.record(S, records[i])
            for p in range(rewards.shape[1]):
                rewards[i, p] = game.reward(S, p)
            game_ticks[i] = ticks() - start

    @allocating
    def advance_batch(states, active, rows, rs, waiting, role_ticks, decisions):
        """``play_compiled_roles`` for every active game of a batch; ``waiting[i]`` gets its result."""
        act = np.empty(game.ACTION_SIZE, np.int64)
        err = np.zeros(4, np.int64)
        scratch = np.empty(states.shape[1], np.int64)
        for i in range(states.shape[0]):
            if active[i]:
                waiting[i] = this.play_compiled_roles(states[i], rows, rs[i], act, err, scratch, role_ticks, decisions)

    return seed_agents, play_compiled_roles, deal, play_games, advance_batch


def learning_batch_functions(game: types.ModuleType) -> tuple:
    """The batches of the game's learning interface (``gamecore.interface``) over its kernels ``game``:
    ``encode_batch``, ``mask_batch`` and ``decode_batch`` (row i of the output from ``states[i]``)."""

    @kernel
    def encode_batch(states, encoding, out):
        """Row i of ``out``: encoder ``encoding`` of ``states[i]``."""
        for i in range(states.shape[0]):
            game.encode(states[i], encoding, game.to_move(states[i]), out[i])

    @kernel
    def mask_batch(states, space, masks):
        """Row i of ``masks``: the legal indices of action space ``space`` at ``states[i]``."""
        for i in range(states.shape[0]):
            game.action_mask(states[i], space, masks[i])

    @allocating
    def decode_batch(states, space, indices, acts):
        """Row i of ``acts``: index ``indices[i]`` of action space ``space`` at ``states[i]``."""
        scratch = np.empty(states.shape[1], np.int64)
        work = np.empty(game.DECODE_WORK)
        for i in range(states.shape[0]):
            game.decode(states[i], space, indices[i], acts[i], scratch, work)

    return encode_batch, mask_batch, decode_batch
