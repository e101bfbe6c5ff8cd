"""Legal actions of the pending decision: enumeration, counting and uniform sampling.

A decision is described as independent *slots*: slot i sets the action-vector
entry of card ``slots[i]`` to one of ``options[i, :n_options[i]]``. The legal
actions are the combinations that ``rules.apply_decision`` accepts; the
product of the option counts bounds their number. Enumeration walks that
product (cost: product size x one rule check); sampling draws from it and
rejects illegal combinations, which is uniform over the legal set.
"""

import numpy as np

from gamecore.default_kernels import copy
from gamecore.jit import allocating, kernel
from gamecore.rng import below
from lotr_sim import layout as L
from lotr_sim.cards import COST, N_CARDS
from lotr_sim.rules import LOCATION_BITS, apply_decision, heroes, lowest, ready, total_resources

MAX_OPTIONS = 24
TOO_MANY = -1


@kernel
def decision_slots(S, slots, options, n_options):
    """Fill the slots of the pending decision; return their number."""
    phase = S[L.PHASE]
    n = 0
    if phase == L.PLANNING or phase == L.QUESTING or phase == L.TRAVEL:
        if phase == L.PLANNING:
            eligible = S[L.ZONE_MASKS + L.HAND]
            avail = total_resources(S)
        elif phase == L.QUESTING:
            eligible = ready(S)
        else:
            eligible = S[L.ZONE_MASKS + L.STAGING] & LOCATION_BITS
        while eligible:
            c = lowest(eligible)
            eligible &= eligible - 1
            if phase == L.PLANNING and COST[c] > avail:
                continue
            slots[n] = c
            options[n, 0] = L.NO_CHOICE
            options[n, 1] = 1
            n_options[n] = 2
            n += 1
    elif phase == L.DEFENSE:
        enemies = S[L.ZONE_MASKS + L.ENGAGED]
        while enemies:
            e = lowest(enemies)
            enemies &= enemies - 1
            k = 0
            targets = ready(S)
            while targets:
                options[n, k] = lowest(targets)
                targets &= targets - 1
                k += 1
            targets = heroes(S)
            while targets:
                options[n, k] = L.UNDEFENDED + lowest(targets)
                targets &= targets - 1
                k += 1
            slots[n] = e
            n_options[n] = k
            n += 1
    elif phase == L.ATTACK:
        attackers = ready(S)
        while attackers:
            c = lowest(attackers)
            attackers &= attackers - 1
            options[n, 0] = L.NO_CHOICE
            k = 1
            enemies = S[L.ZONE_MASKS + L.ENGAGED]
            while enemies:
                options[n, k] = lowest(enemies)
                enemies &= enemies - 1
                k += 1
            slots[n] = c
            n_options[n] = k
            n += 1
    return n


@kernel
def product_size(n_options, n, cap):
    """The product of the option counts, or ``cap + 1`` once it exceeds ``cap``."""
    size = 1
    for i in range(n):
        size *= n_options[i]
        if size > cap:
            return cap + 1
    return size


@kernel
def is_legal_vector(S, act, scratch, err):
    copy(scratch, S)
    return apply_decision(scratch, act, err, None) == L.OK


@allocating
def enumerate_legal(S, limit):
    """All legal actions as option-index rows over the slots.

    Returns (slots, options, rows); ``rows`` has one row per legal action, or
    is None-like (shape (0, 0)) with slots[0] == TOO_MANY when the product of
    option counts exceeds ``limit``."""
    slots = np.empty(N_CARDS, np.int64)
    options = np.empty((N_CARDS, MAX_OPTIONS), np.int64)
    n_options = np.empty(N_CARDS, np.int64)
    n = decision_slots(S, slots, options, n_options)
    total = product_size(n_options, n, limit)
    if total > limit:
        slots[0] = TOO_MANY
        return slots[:1], options[:0], np.empty((0, 0), np.int8)
    rows = np.empty((total, n), np.int8)
    digits = np.zeros(n, np.int64)
    act = np.empty(N_CARDS, np.int64)
    scratch = S.copy()
    err = np.zeros(4, np.int64)
    count = 0
    for _ in range(total):
        act[:] = L.NO_CHOICE
        for i in range(n):
            act[slots[i]] = options[i, digits[i]]
        if is_legal_vector(S, act, scratch, err):
            for i in range(n):
                rows[count, i] = digits[i]
            count += 1
        for i in range(n):  # odometer step
            digits[i] += 1
            if digits[i] < n_options[i]:
                break
            digits[i] = 0
    return slots[:n], options[:n], rows[:count]


@allocating
def sample_legal(S, rs, act, max_tries, limit):
    """Fill ``act`` with a uniformly drawn legal action; return False if none was found.

    Draws from the product of the slot options and rejects illegal draws; after
    ``max_tries`` rejections it enumerates (when the product is within ``limit``)."""
    slots = np.empty(N_CARDS, np.int64)
    options = np.empty((N_CARDS, MAX_OPTIONS), np.int64)
    n_options = np.empty(N_CARDS, np.int64)
    n = decision_slots(S, slots, options, n_options)
    scratch = S.copy()
    err = np.zeros(4, np.int64)
    for _ in range(max_tries):
        act[:] = L.NO_CHOICE
        for i in range(n):
            act[slots[i]] = options[i, below(rs, n_options[i])]
        if is_legal_vector(S, act, scratch, err):
            return True
    slots, options, rows = enumerate_legal(S, limit)
    if rows.shape[0] == 0:
        return False
    pick = below(rs, rows.shape[0])
    act[:] = L.NO_CHOICE
    for i in range(slots.shape[0]):
        act[slots[i]] = options[i, rows[pick, i]]
    return True
