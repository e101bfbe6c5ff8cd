"""The thesis's random agent and expert rules (RULES.md), compiled.

Each policy fills an action vector for the pending decision from the state
and its own random stream ``rs``. They read only what the player sees (the
deck sections are never touched), and what they choose is legal by
construction: defense and attack choices are made while resolving them on a
scratch copy, so a hero destroyed by one attack is never named for the next.
"""

import numpy as np
from numba import njit

from lotr_sim.cards import (
    ATTACK as ATTACK_VALUE,
    COST,
    DEFENSE as DEFENSE_VALUE,
    GANDALF_IDS,
    HITPOINTS,
    LOCATION,
    KIND,
    N_CARDS,
    QUEST_POINTS,
    THREAT,
    WANDERING_TOOK_IDS,
    WILLPOWER,
)
from lotr_sim.layout import *  # noqa: F403  (the layout is a namespace of constants)
from lotr_sim.rng import below
from lotr_sim.rules import cards_in, defend, staging_threat, strike, total_resources

RANDOM = 0
EXPERT = 1
POLICY_NAMES = ("random", "expert")


@njit(cache=True)
def no_log():
    return np.zeros((0, EVENT_WIDTH), np.int64)


@njit(cache=True)
def ready_characters(S, out):
    n = 0
    m = cards_in(S, IN_PLAY, out)
    for i in range(m):
        if S[EXHAUSTED + out[i]] == 0:
            out[n] = out[i]
            n += 1
    return n


@njit(cache=True)
def random_planning(S, rs, act):
    hand = np.empty(N_CARDS, np.int64)
    n = cards_in(S, HAND, hand)
    avail = total_resources(S)
    for _ in range(below(rs, n + 1)):
        i = below(rs, n)
        card = hand[i]
        if COST[card] <= avail:
            act[card] = 1
            avail -= COST[card]
            n -= 1
            hand[i] = hand[n]


@njit(cache=True)
def random_subset(rs, items, n, k):
    """Move a uniform random k-subset of items[:n] to items[:k]."""
    for j in range(k):
        i = j + below(rs, n - j)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp


@njit(cache=True)
def random_questing(S, rs, act):
    ready = np.empty(N_CARDS, np.int64)
    n = ready_characters(S, ready)
    k = below(rs, n + 1)
    random_subset(rs, ready, n, k)
    for j in range(k):
        act[ready[j]] = 1


@njit(cache=True)
def staged_locations(S, out):
    staged = np.empty(N_CARDS, np.int64)
    m = cards_in(S, STAGING, staged)
    n = 0
    for i in range(m):
        if KIND[staged[i]] == LOCATION:
            out[n] = staged[i]
            n += 1
    return n


@njit(cache=True)
def random_travel(S, rs, act):
    locations = np.empty(N_CARDS, np.int64)
    n = staged_locations(S, locations)
    i = below(rs, n + 1)
    if i < n:
        act[locations[i]] = 1


@njit(cache=True)
def heroes_in_play(S, out):
    n = 0
    for h in range(3):
        if S[ZONE + h] == IN_PLAY:
            out[n] = h
            n += 1
    return n


@njit(cache=True)
def fill_after_loss(act, enemies, start, n, last_target):
    """Entries for the attacks left after the last hero fell: never resolved,
    they name that hero."""
    hero = last_target - UNDEFENDED if last_target >= UNDEFENDED else last_target
    for j in range(start, n):
        act[enemies[j]] = UNDEFENDED + hero


@njit(cache=True)
def random_defense(S, rs, act):
    scratch = S.copy()
    log = no_log()
    enemies = np.empty(N_CARDS, np.int64)
    pool = np.empty(N_CARDS, np.int64)
    n = cards_in(S, ENGAGED, enemies)
    for i in range(n):
        e = enemies[i]
        r = ready_characters(scratch, pool)
        if r > 0:
            target = pool[below(rs, r)]
        else:
            h = heroes_in_play(scratch, pool)
            target = UNDEFENDED + pool[below(rs, h)]
        act[e] = target
        if defend(scratch, e, target, log):
            fill_after_loss(act, enemies, i + 1, n, target)
            return


@njit(cache=True)
def random_attack(S, rs, act):
    ready = np.empty(N_CARDS, np.int64)
    n = ready_characters(S, ready)
    k = below(rs, n + 1)
    random_subset(rs, ready, n, k)
    attacks = np.zeros(N_CARDS, np.bool_)
    for j in range(k):
        attacks[ready[j]] = True
    scratch = S.copy()
    log = no_log()
    order = np.empty(N_CARDS, np.int64)
    enemies = np.empty(N_CARDS, np.int64)
    m = cards_in(S, IN_PLAY, order)
    for i in range(m):
        c = order[i]
        if not attacks[c]:
            continue
        alive = cards_in(scratch, ENGAGED, enemies)
        if alive == 0:
            return
        target = enemies[below(rs, alive)]
        act[c] = target
        strike(scratch, c, target, log)


@njit(cache=True)
def first_in_zone(S, ids, zone):
    for c in ids:
        if S[ZONE + c] == zone:
            return c
    return -1


@njit(cache=True)
def expert_planning(S, rs, act):
    gandalf = first_in_zone(S, GANDALF_IDS, HAND)
    if gandalf < 0:
        random_planning(S, rs, act)
        return
    avail = total_resources(S)
    if COST[gandalf] <= avail:
        act[gandalf] = 1
    elif avail > 3:
        took = first_in_zone(S, WANDERING_TOOK_IDS, HAND)
        if took >= 0:
            act[took] = 1


@njit(cache=True)
def questing_key(card):
    if DEFENSE_VALUE[card] == 0:
        return 0.0
    return WILLPOWER[card] / DEFENSE_VALUE[card]


@njit(cache=True)
def expert_questing(S, rs, act):
    ready = np.empty(N_CARDS, np.int64)
    n = ready_characters(S, ready)
    for i in range(1, n):  # stable insertion sort, highest key first
        c = ready[i]
        j = i
        while j > 0 and questing_key(ready[j - 1]) < questing_key(c):
            ready[j] = ready[j - 1]
            j -= 1
        ready[j] = c
    needed = staging_threat(S) + 2
    committed = 0
    for i in range(n):
        if committed >= needed:
            break
        act[ready[i]] = 1
        committed += WILLPOWER[ready[i]]


@njit(cache=True)
def expert_travel(S, rs, act):
    locations = np.empty(N_CARDS, np.int64)
    n = staged_locations(S, locations)
    best = locations[0]
    for i in range(1, n):
        c = locations[i]
        if QUEST_POINTS[c] * THREAT[best] < QUEST_POINTS[best] * THREAT[c]:
            best = c
    act[best] = 1


@njit(cache=True)
def sturdiest_hero(S, heroes, n):
    best = heroes[0]
    for i in range(1, n):
        h = heroes[i]
        if HITPOINTS[h] - S[DAMAGE + h] > HITPOINTS[best] - S[DAMAGE + best]:
            best = h
    return best


@njit(cache=True)
def expert_defense(S, rs, act):
    enemies = np.empty(N_CARDS, np.int64)
    n = cards_in(S, ENGAGED, enemies)
    strongest = enemies[:n].copy()
    for i in range(1, n):  # stable insertion sort by attack, strongest first
        e = strongest[i]
        j = i
        while j > 0 and ATTACK_VALUE[strongest[j - 1]] < ATTACK_VALUE[e]:
            strongest[j] = strongest[j - 1]
            j -= 1
        strongest[j] = e
    ready = np.empty(N_CARDS, np.int64)
    r = ready_characters(S, ready)
    taken = np.zeros(N_CARDS, np.bool_)
    defender = np.full(N_CARDS, -1, np.int64)
    for i in range(n):
        best = -1
        for j in range(r):
            c = ready[j]
            if not taken[c] and (best < 0 or DEFENSE_VALUE[c] > DEFENSE_VALUE[best]):
                best = c
        if best < 0:
            break
        taken[best] = True
        defender[strongest[i]] = best
    scratch = S.copy()
    log = no_log()
    heroes = np.empty(3, np.int64)
    for i in range(n):
        e = enemies[i]
        d = defender[e]
        if d >= 0 and scratch[ZONE + d] == IN_PLAY:
            target = d
        else:
            target = UNDEFENDED + sturdiest_hero(scratch, heroes, heroes_in_play(scratch, heroes))
        act[e] = target
        if defend(scratch, e, target, log):
            fill_after_loss(act, enemies, i + 1, n, target)
            return


@njit(cache=True)
def expert_attack(S, rs, act):
    enemies = np.empty(N_CARDS, np.int64)
    n = cards_in(S, ENGAGED, enemies)
    for i in range(1, n):  # stable insertion sort, weakest (defense + hitpoints left) first
        e = enemies[i]
        j = i
        while j > 0 and toughness(S, enemies[j - 1]) > toughness(S, e):
            enemies[j] = enemies[j - 1]
            j -= 1
        enemies[j] = e
    ready = np.empty(N_CARDS, np.int64)
    r = ready_characters(S, ready)
    taken = np.zeros(N_CARDS, np.bool_)
    for i in range(n):
        best = -1
        for j in range(r):
            c = ready[j]
            if not taken[c] and (best < 0 or ATTACK_VALUE[c] > ATTACK_VALUE[best]):
                best = c
        if best < 0:
            return
        taken[best] = True
        act[best] = enemies[i]


@njit(cache=True)
def toughness(S, enemy):
    return DEFENSE_VALUE[enemy] + HITPOINTS[enemy] - S[DAMAGE + enemy]


@njit(cache=True)
def policy_action(S, policy, rs, act):
    """Fill ``act`` with ``policy``'s choice (RANDOM or EXPERT) for the pending decision."""
    act[:] = NO_CHOICE
    phase = S[PHASE]
    if policy == RANDOM:
        if phase == PLANNING:
            random_planning(S, rs, act)
        elif phase == QUESTING:
            random_questing(S, rs, act)
        elif phase == TRAVEL:
            random_travel(S, rs, act)
        elif phase == DEFENSE:
            random_defense(S, rs, act)
        elif phase == ATTACK:
            random_attack(S, rs, act)
    else:
        if phase == PLANNING:
            expert_planning(S, rs, act)
        elif phase == QUESTING:
            expert_questing(S, rs, act)
        elif phase == TRAVEL:
            expert_travel(S, rs, act)
        elif phase == DEFENSE:
            expert_defense(S, rs, act)
        elif phase == ATTACK:
            expert_attack(S, rs, act)
