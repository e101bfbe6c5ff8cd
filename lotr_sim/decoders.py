"""Action decoders (thesis section 5.4): a network's output to a legal game action, compiled.

Macro actions (5.4.2), a fixed set per stage:

- planning (7): buy, in order, each affordable ally ranked by
  (b * willpower + (1 - b) * defense) / cost for b in 1, .8, .6, .4, .2, 0;
  or cheapest first.
- questing (7): commit everything; or commit in the order of
  b * willpower + (1 - b) * defense for b in 1, .8, .6, .4, .2 until the
  committed willpower reaches the staging threat; or lowest defense first
  likewise.
- defense (4): the strongest defenders (defense + hitpoints left) against the
  strongest attackers; the same leaving the weakest attack undefended; the
  lowest-willpower characters as defenders; no defenders.

Direct actions (5.4.1) are sets of cards chosen by the network: allies to buy
(bought while affordable, in the network's order), characters to commit,
characters that volunteer to defend (the sturdiest volunteers meet the
strongest attackers). Undefended attacks go to the hero with the most
hitpoints left. Every decoder's result is legal by construction.
"""

import numpy as np

from gamecore.jit import allocating, kernel
from lotr_sim import layout as L
from lotr_sim.cards import ATTACK, COST, DEFENSE, HITPOINTS, N_CARDS, WILLPOWER
from lotr_sim.policies import buy_in_order, resolve_defense, strongest
from lotr_sim.rules import lowest, ready, staging_threat, total_resources

MACRO_ACTIONS = {"planning": 7, "questing": 7, "defense": 4}
PLANNING_MACROS, QUESTING_MACROS, DEFENSE_MACROS = MACRO_ACTIONS.values()
WEAKNESS = -ATTACK


@kernel
def commit_in_order(S, scores, act):
    """Commit ready characters from the highest score down until willpower reaches the staging threat."""
    candidates = ready(S)
    threat = staging_threat(S)
    committed = 0
    while candidates and committed < threat:
        c = strongest(candidates, scores)
        candidates &= ~(np.int64(1) << c)
        act[c] = 1
        committed += WILLPOWER[c]


@kernel
def defend_in_order(S, defenders, defender_scores, skip_weakest, act, scratch):
    """The best-scored ``defenders`` meet the strongest attackers; the rest go undefended."""
    attackers = S[L.ZONE_MASKS + L.ENGAGED]
    if skip_weakest and attackers:
        weakest = strongest(attackers, WEAKNESS)
        attackers &= ~(np.int64(1) << weakest)
    while attackers and defenders:
        e = strongest(attackers, ATTACK)
        d = strongest(defenders, defender_scores)
        act[e] = d
        attackers &= ~(np.int64(1) << e)
        defenders &= ~(np.int64(1) << d)
    resolve_defense(S, act, scratch, False)


@kernel
def sturdiness(S, scores):
    """``scores`` = each card's defense plus hitpoints left."""
    for c in range(N_CARDS):
        scores[c] = DEFENSE[c] + HITPOINTS[c] - S[L.DAMAGE + c]


@kernel
def macro_action(S, index, act, scratch, scores):
    """Fill ``act`` with macro action ``index`` of the pending planning, questing or defense decision;
    ``scores`` is a work array of N_CARDS floats."""
    act[:] = L.NO_CHOICE
    phase = S[L.PHASE]
    if phase == L.PLANNING:
        for c in range(N_CARDS):
            if index < 6:
                b = 1.0 - 0.2 * index
                scores[c] = (b * WILLPOWER[c] + (1 - b) * DEFENSE[c]) / max(COST[c], 1)
            else:
                scores[c] = -COST[c]
        buy_in_order(S, S[L.ZONE_MASKS + L.HAND], scores, act)
    elif phase == L.QUESTING:
        if index == 0:
            direct_commit(S, ready(S), act)
            return
        for c in range(N_CARDS):
            if index < 6:
                b = 1.0 - 0.2 * (index - 1)
                scores[c] = b * WILLPOWER[c] + (1 - b) * DEFENSE[c]
            else:
                scores[c] = -DEFENSE[c]
        commit_in_order(S, scores, act)
    elif phase == L.DEFENSE:
        if index == 2:
            for c in range(N_CARDS):
                scores[c] = -WILLPOWER[c]
        else:
            sturdiness(S, scores)
        defenders = ready(S) if index < 3 else np.int64(0)
        defend_in_order(S, defenders, scores, index == 1, act, scratch)


@kernel
def macro_mask(S, mask):
    """``mask[i]`` = 1 for the macro actions of the pending decision (every one is legal), 0 beyond them."""
    phase = S[L.PHASE]
    n = PLANNING_MACROS if phase == L.PLANNING else QUESTING_MACROS if phase == L.QUESTING else (
        DEFENSE_MACROS if phase == L.DEFENSE else 0)
    for i in range(mask.shape[0]):
        mask[i] = i < n


@kernel
def direct_buy(S, order, act):
    """Buy the hand cards listed in ``order`` (card ids, -1 padded), in that order, while affordable."""
    act[:] = L.NO_CHOICE
    avail = total_resources(S)
    hand = S[L.ZONE_MASKS + L.HAND]
    for c in order:
        if c >= 0 and (hand >> c) & 1 and COST[c] <= avail:
            act[c] = 1
            avail -= COST[c]


@kernel
def direct_commit(S, chosen, act):
    """Commit the ready characters of the card mask ``chosen``."""
    act[:] = L.NO_CHOICE
    m = chosen & ready(S)
    while m:
        act[lowest(m)] = 1
        m &= m - 1


@kernel
def direct_defend(S, volunteers, act, scratch, scores):
    """The ready characters of ``volunteers`` defend, the sturdiest against the strongest attackers; ``scores``
    is a work array of N_CARDS floats."""
    act[:] = L.NO_CHOICE
    sturdiness(S, scores)
    defend_in_order(S, volunteers & ready(S), scores, False, act, scratch)


@kernel
def choice_context(S):
    """(hand, resources, ready characters) of ``S``: what a direct policy chooses among."""
    return S[L.ZONE_MASKS + L.HAND], total_resources(S), ready(S)


@allocating
def macro_batch(states, indices, acts):
    """Row i of ``acts`` = macro action ``indices[i]`` of ``states[i]``."""
    scratch = np.empty(states.shape[1], np.int64)
    scores = np.empty(N_CARDS)
    for i in range(states.shape[0]):
        macro_action(states[i], indices[i], acts[i], scratch, scores)
