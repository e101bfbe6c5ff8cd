"""The actions a search considers at a decision, compiled.

A search branches on *candidate* actions: the legal actions of the pending
decision, with two cuts.

- Interchangeable cards are not told apart: copies of one card (same name,
  same damage) in the hand, among the ready characters or among the staged
  locations are chosen lowest id first, so "buy Gandalf#15" and "buy
  Gandalf#16" are one branch, not two.
- The thesis's action reduction (section 4.4), per stage when its flag is on:
  planning keeps only purchases that include an affordable Gandalf (and buying
  nothing); questing keeps commitments whose willpower exceeds the staging
  threat + 2 (when any does); defense keeps assignments that leave an attack
  undefended only once every ready character defends. (In the thesis's model
  exhausted characters could be declared as defenders and the reduction
  removed them; under docs/lotr-rules.md only ready characters defend, so the
  reduction's intent, defend with the characters you have, is what remains.)

Candidates are identified by a 128-bit *key* (two int64 words) that encodes
the stage and the action vector; equal actions have equal keys in every
determinization, so tree nodes keyed by them share statistics.
"""

import numpy as np

from gamecore.default_kernels import copy
from gamecore.jit import allocating, inline_kernel, kernel
from gamecore.rng import below
from gamecore.row import GAME_COLUMNS
from lotr_sim import layout as L
from lotr_sim.cards import CARDS, COST, ENEMY_FIRST, LOCATION_FIRST, N_CARDS, WILLPOWER
from lotr_sim.legal import MAX_OPTIONS, decision_slots, enumerate_legal, product_size
from lotr_sim.rules import (
    GANDALF_BITS,
    LOCATION_BITS,
    apply_decision,
    lowest,
    popcount,
    ready,
    staging_threat,
    total_resources,
)

N_ENEMIES = LOCATION_FIRST - ENEMY_FIRST
N_CHARACTERS = ENEMY_FIRST
LOW_WORD_BITS = 60  # digits of 5 (defense) or 4 (attack) bits fill 60 bits of the first word
PHASE_BITS = 8  # the second word: phase in the low bits, overflow digits above
SUBSET_LIMIT = 12  # planning/questing: enumerate subsets of up to 12 cards, sample beyond
ENUMERATION_LIMIT = 4096  # defense/attack: enumerate when the option product is at most this
SAMPLE_TRIES = 16
# The agent row columns of the action reductions (``Game.search.params``).
REDUCE_PLANNING, REDUCE_QUESTING, REDUCE_DEFENSE = GAME_COLUMNS, GAME_COLUMNS + 1, GAME_COLUMNS + 2

FIRST_COPY = np.array([next(d.id for d in CARDS if d.name == c.name) for c in CARDS], np.int64)
FIRST_COPY.flags.writeable = False


@inline_kernel
def chosen(act, card):
    return act[card] != L.NO_CHOICE


@kernel
def put_digit(k0, k1, position, digit):
    if position < LOW_WORD_BITS:
        return k0 | (digit << position), k1
    return k0, k1 | (digit << (position - LOW_WORD_BITS + PHASE_BITS))


@kernel
def get_digit(k0, k1, position, width):
    mask = (np.int64(1) << width) - 1
    if position < LOW_WORD_BITS:
        return (k0 >> position) & mask
    return (k1 >> (position - LOW_WORD_BITS + PHASE_BITS)) & mask


@kernel
def action_key(phase, act):
    """The key (k0, k1) of the action vector ``act`` for a decision in ``phase``."""
    k0 = np.int64(0)
    k1 = np.int64(phase)
    if phase == L.DEFENSE:  # per enemy: 1 + defender, or 19 + hero taking the damage
        for j in range(N_ENEMIES):
            target = act[ENEMY_FIRST + j]
            if target != L.NO_CHOICE:
                digit = target + 1 if target < L.UNDEFENDED else target - L.UNDEFENDED + 19
                k0, k1 = put_digit(k0, k1, 5 * j, digit)
    elif phase == L.ATTACK:  # per character: 1 + enemy index
        for c in range(N_CHARACTERS):
            if chosen(act, c):
                k0, k1 = put_digit(k0, k1, 4 * c, act[c] - ENEMY_FIRST + 1)
    else:
        for c in range(N_CARDS):
            if chosen(act, c):
                k0 |= np.int64(1) << c
    return k0, k1


@kernel
def key_phase(k1):
    return k1 & ((np.int64(1) << PHASE_BITS) - 1)


@kernel
def key_action(k0, k1, act):
    """Fill ``act`` with the action vector of a key."""
    act[:] = L.NO_CHOICE
    phase = key_phase(k1)
    if phase == L.DEFENSE:
        for j in range(N_ENEMIES):
            digit = get_digit(k0, k1, 5 * j, 5)
            if digit:
                act[ENEMY_FIRST + j] = digit - 1 if digit <= 18 else L.UNDEFENDED + digit - 19
    elif phase == L.ATTACK:
        for c in range(N_CHARACTERS):
            digit = get_digit(k0, k1, 4 * c, 4)
            if digit:
                act[c] = ENEMY_FIRST + digit - 1
    else:
        m = k0
        while m:
            act[lowest(m)] = 1
            m &= m - 1


@kernel
def eligible_cards(S):
    """The cards a planning, questing or travel action chooses among."""
    phase = S[L.PHASE]
    if phase == L.PLANNING:
        return S[L.ZONE_MASKS + L.HAND]
    if phase == L.QUESTING:
        return ready(S)
    if phase == L.TRAVEL:
        return S[L.ZONE_MASKS + L.STAGING] & LOCATION_BITS
    return np.int64(0)


@kernel
def canonicalize(S, act):
    """Replace each chosen card by its lowest-id unchosen interchangeable copy."""
    phase = S[L.PHASE]
    if phase != L.PLANNING and phase != L.QUESTING and phase != L.TRAVEL:
        return
    eligible = eligible_cards(S)
    for c in range(N_CARDS):
        if not chosen(act, c):
            continue
        for twin in range(FIRST_COPY[c], c):
            if (eligible >> twin) & 1 and not chosen(act, twin) and S[L.DAMAGE + twin] == S[L.DAMAGE + c]:
                act[twin] = act[c]
                act[c] = L.NO_CHOICE
                break


@kernel
def is_canonical(S, act):
    phase = S[L.PHASE]
    if phase != L.PLANNING and phase != L.QUESTING and phase != L.TRAVEL:
        return True
    eligible = eligible_cards(S)
    for c in range(N_CARDS):
        if chosen(act, c):
            for twin in range(FIRST_COPY[c], c):
                if (eligible >> twin) & 1 and not chosen(act, twin) and S[L.DAMAGE + twin] == S[L.DAMAGE + c]:
                    return False
    return True


@kernel
def affordable_gandalf(S):
    m = S[L.ZONE_MASKS + L.HAND] & GANDALF_BITS
    return m != 0 and COST[lowest(m)] <= total_resources(S)


@kernel
def willpower_of(mask):
    total = 0
    while mask:
        total += WILLPOWER[lowest(mask)]
        mask &= mask - 1
    return total


@kernel
def reduced_out(S, act, row):
    """True when the action reduction enabled in the agent ``row`` discards ``act``."""
    phase = S[L.PHASE]
    if phase == L.PLANNING and row[REDUCE_PLANNING] != 0 and affordable_gandalf(S):
        bought = np.int64(0)
        for c in range(N_CARDS):
            if chosen(act, c):
                bought |= np.int64(1) << c
        return bought != 0 and bought & GANDALF_BITS == 0
    if phase == L.QUESTING and row[REDUCE_QUESTING] != 0:
        needed = staging_threat(S) + 2
        if willpower_of(ready(S)) <= needed:
            return False
        committed = 0
        for c in range(N_CARDS):
            if chosen(act, c):
                committed += WILLPOWER[c]
        return committed <= needed
    if phase == L.DEFENSE and row[REDUCE_DEFENSE] != 0:
        undefended = 0
        for j in range(N_ENEMIES):
            if act[ENEMY_FIRST + j] >= L.UNDEFENDED:
                undefended += 1
        return undefended > max(0, popcount(S[L.ZONE_MASKS + L.ENGAGED]) - popcount(ready(S)))
    return False


@kernel
def is_candidate(S, act, row, scratch, err):
    """Whether ``act`` is a legal, canonical, not reduced-out action of ``S``."""
    if not is_canonical(S, act) or reduced_out(S, act, row):
        return False
    copy(scratch, S)
    return apply_decision(scratch, act, err, None) == L.OK


@kernel
def sample_action(S, rs, act, slots, options, n_options, scratch, err):
    """A uniformly drawn legal action (canonicalized); False if ``SAMPLE_TRIES`` draws were illegal."""
    n = decision_slots(S, slots, options, n_options)
    for _ in range(SAMPLE_TRIES):
        act[:] = L.NO_CHOICE
        for i in range(n):
            act[slots[i]] = options[i, below(rs, n_options[i])]
        copy(scratch, S)
        if apply_decision(scratch, act, err, None) == L.OK:
            canonicalize(S, act)
            return True
    return False


@kernel
def add_key(keys, n, k0, k1):
    """Append (k0, k1) unless present; return the new count."""
    for i in range(n):
        if keys[i, 0] == k0 and keys[i, 1] == k1:
            return n
    if n < keys.shape[0]:
        keys[n, 0] = k0
        keys[n, 1] = k1
        n += 1
    return n


@kernel
def subset_candidates(S, row, keys, act):
    """Planning, questing and travel candidates by walking the subsets of the eligible cards."""
    phase = S[L.PHASE]
    eligible = eligible_cards(S)
    if phase == L.PLANNING:
        avail = total_resources(S)
        m = eligible
        eligible = np.int64(0)
        while m:
            c = lowest(m)
            m &= m - 1
            if COST[c] <= avail:
                eligible |= np.int64(1) << c
    n = 0
    subset = eligible
    while True:  # every submask of `eligible`, the empty set last
        ok = phase != L.TRAVEL or popcount(subset) <= 1
        if ok and phase == L.PLANNING:
            cost = 0
            m = subset
            while m:
                cost += COST[lowest(m)]
                m &= m - 1
            ok = cost <= avail
        if ok:
            act[:] = L.NO_CHOICE
            m = subset
            while m:
                act[lowest(m)] = 1
                m &= m - 1
            if is_canonical(S, act) and not reduced_out(S, act, row) and n < keys.shape[0]:
                keys[n, 0], keys[n, 1] = action_key(phase, act)
                n += 1
        if subset == 0:
            return n
        subset = (subset - 1) & eligible


@allocating
def enumerated_candidates(S, row, keys, act):
    """Defense and attack candidates by enumerating the legal actions."""
    slots, options, rows = enumerate_legal(S, ENUMERATION_LIMIT)
    n = 0
    for r in range(rows.shape[0]):
        act[:] = L.NO_CHOICE
        for i in range(slots.shape[0]):
            act[slots[i]] = options[i, rows[r, i]]
        if not reduced_out(S, act, row) and n < keys.shape[0]:
            keys[n, 0], keys[n, 1] = action_key(S[L.PHASE], act)
            n += 1
    return n


@allocating
def sampled_candidates(S, row, rs, keys, act, scratch, err, attempts):
    """Up to ``attempts`` uniformly sampled distinct candidates, for decisions too large to enumerate."""
    slots = np.empty(N_CARDS, np.int64)
    options = np.empty((N_CARDS, MAX_OPTIONS), np.int64)
    n_options = np.empty(N_CARDS, np.int64)
    n = 0
    for _ in range(attempts):
        if sample_action(S, rs, act, slots, options, n_options, scratch, err) and not reduced_out(S, act, row):
            k0, k1 = action_key(S[L.PHASE], act)
            n = add_key(keys, n, k0, k1)
    return n


@allocating
def too_large_to_enumerate(S):
    phase = S[L.PHASE]
    if phase == L.PLANNING or phase == L.QUESTING or phase == L.TRAVEL:
        return popcount(eligible_cards(S)) > SUBSET_LIMIT
    slots = np.empty(N_CARDS, np.int64)
    options = np.empty((N_CARDS, MAX_OPTIONS), np.int64)
    n_options = np.empty(N_CARDS, np.int64)
    n = decision_slots(S, slots, options, n_options)
    return product_size(n_options, n, ENUMERATION_LIMIT) > ENUMERATION_LIMIT


@kernel
def collect_candidates(S, row, rs, keys, attempts, act, scratch, err):
    phase = S[L.PHASE]
    if too_large_to_enumerate(S):
        return sampled_candidates(S, row, rs, keys, act, scratch, err, attempts)
    if phase == L.DEFENSE or phase == L.ATTACK:
        return enumerated_candidates(S, row, keys, act)
    return subset_candidates(S, row, keys, act)


@allocating
def root_candidates(S, row, rs, keys, attempts, scratch, err):
    """Fill ``keys`` (rows of (k0, k1)) with the candidates of ``S``; return their number.

    All of them when they can be enumerated, else distinct ones among
    ``attempts`` uniform samples. If the reduction leaves nothing, the
    unreduced candidates are used."""
    act = np.empty(N_CARDS, np.int64)
    n = collect_candidates(S, row, rs, keys, attempts, act, scratch, err)
    if n == 0:
        unreduced = row.copy()
        unreduced[REDUCE_PLANNING] = 0
        unreduced[REDUCE_QUESTING] = 0
        unreduced[REDUCE_DEFENSE] = 0
        n = collect_candidates(S, unreduced, rs, keys, attempts, act, scratch, err)
    return n
