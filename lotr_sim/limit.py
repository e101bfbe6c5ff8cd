"""The perfect-information limit's exhaustive search: whether some line of decisions wins a dealt game, deck
orders known (``lotr_lab.limit`` bounds the limit of many deals with it).

A dealt LOTR game has no chance left (the decks are shuffled at the deal and
never again), so a deal is winnable or not. No agent, honest or not, wins
more deals than are winnable. The limit of a set of deals is bounded:

1. **Winning lines found.** ORACLE searches (``oracle-mcts`` at every stage,
   ``ATTEMPTS``, each stronger than the last) play each deal not won yet, as
   the evaluation harness deals it; a won game is a winning line, so the deal
   is winnable.
   Where those find none (the full scenario's long games), a nested Monte Carlo search
   (``nested``) tries every action at every decision of the deal.
2. **Losses proven.** Each other deal is searched exhaustively (``search``:
   depth first over every legal action, stopping at the first winning line,
   states proven lost remembered by their hash) within ``nodes`` decisions; a
   search that ends without a win proves the deal lost, one that runs out of
   nodes leaves it unknown.

The limit lies between (lines found) / deals and (deals - losses proven) /
deals; ``lotr lotr limit`` (``lotr_lab.limit``) prints both with their 95% intervals and the cost.
"""

from __future__ import annotations

import numpy as np

from gamecore.jit import allocating, kernel
from gamecore.rng import mix64
from lotr_sim import layout as L
from lotr_sim.cards import N_CARDS, STAGE_QUEST_POINTS
from lotr_sim.legal import TOO_MANY, enumerate_legal
from lotr_sim.playout import play_out
from lotr_sim.policies import policy_action
from lotr_sim.rules import apply_action

WIN, LOSS, UNKNOWN = 1, 0, -1
ACTION_LIMIT = 1 << 16  # a decision with more legal actions is left unknown
NODES = 1_000_000  # decisions searched per deal, by default (about a minute)
WON = np.int64(1) << 40  # the nested search's score of a won game


@kernel
def state_key(S):
    """A 64-bit hash of the whole state."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for i in range(S.shape[0]):
        h = mix64(h ^ np.uint64(S[i] & 0x7FFFFFFFFFFFFFFF))
    return np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))


@allocating
def search(S, nodes, lost):
    """WIN if some line of decisions from ``S`` wins, LOSS if none does, UNKNOWN if the budget ran out first.

    ``nodes`` = [decisions searched, the budget]; ``lost`` holds the hashes of states proven lost."""
    if S[L.PHASE] == L.GAME_OVER:
        return WIN if S[L.OUTCOME] == L.WIN else LOSS
    key = state_key(S)
    if key in lost:
        return LOSS
    if nodes[0] >= nodes[1]:
        return UNKNOWN
    nodes[0] += 1
    slots, options, rows = enumerate_legal(S, ACTION_LIMIT)
    if slots.shape[0] == 1 and slots[0] == TOO_MANY:
        return UNKNOWN
    child = np.empty_like(S)
    act = np.empty(N_CARDS, np.int64)
    err = np.zeros(4, np.int64)
    result = LOSS
    for r in range(rows.shape[0]):
        child[:] = S
        act[:] = L.NO_CHOICE
        for i in range(slots.shape[0]):
            act[slots[i]] = options[i, rows[r, i]]
        apply_action(child, act, err, None)
        outcome = search(child, nodes, lost)
        if outcome == WIN:
            return WIN
        if outcome == UNKNOWN:
            result = UNKNOWN
    if result == LOSS:
        lost[key] = True
    return result


@kernel
def score(S):
    """A finished game's worth to the nested search: ``WON`` for a win, else the quest points made (completed stages
    and progress) and then the rounds survived."""
    if S[L.OUTCOME] == L.WIN:
        return WON
    points = S[L.QUEST_PROGRESS]
    for stage in range(S[L.QUEST_STAGE]):
        points += STAGE_QUEST_POINTS[stage]
    return points * 100 + S[L.ROUND]


@allocating
def nested(S, level, policies, rs):
    """Nested Monte Carlo search of the dealt game ``S`` (deck orders known; ``S`` is left unchanged): at each
    decision every legal action is tried, valued by the best score of a ``level - 1`` search from it (level 0: a
    playout of ``policies``, one per decision kind), and the best is followed. Returns ``WON`` as soon as some line
    wins, else the best score seen."""
    game = S.copy()
    act = np.empty(N_CARDS, np.int64)
    err = np.zeros(4, np.int64)
    scratch = np.empty_like(S)
    if level == 0:
        play_out(game, policies, rs, None, act, err, scratch)
        return score(game)
    child = np.empty_like(S)
    chosen = np.empty_like(S)
    best = np.int64(-1)
    while game[L.PHASE] != L.GAME_OVER:
        slots, options, rows = enumerate_legal(game, ACTION_LIMIT)
        if slots.shape[0] == 1 and slots[0] == TOO_MANY:  # too many to try: the playout policy decides
            policy_action(game, policies[0], rs, act, scratch)
            apply_action(game, act, err, None)
            continue
        step_best = np.int64(-1)
        for r in range(rows.shape[0]):
            child[:] = game
            act[:] = L.NO_CHOICE
            for i in range(slots.shape[0]):
                act[slots[i]] = options[i, rows[r, i]]
            apply_action(child, act, err, None)
            value = nested(child, level - 1, policies, rs)
            if value == WON:
                return WON
            if value > step_best:
                step_best = value
                chosen[:] = child
        best = max(best, step_best)
        game[:] = chosen
    return max(best, score(game))
