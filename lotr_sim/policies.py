"""The thesis's random agent and expert rules (docs/lotr-rules.md), and fixed rules over the RL macro actions, compiled.

The rule (``rule``) is the one the RL agents' macro actions (``lotr_sim.decoders``) make
strong on hard: buy allies by willpower per cost, commit every ready character,
the expert's travel, defense and attack. That races to the first quest's 8 points;
over the full scenario (three stages, 20 points) it leaves no one to defend, and
the enemies it never destroys kill the heroes. ``rule-full`` keeps its planning
and travel and plans each round's combat (``lotr_sim.combat``):

- questing: when the last stage's points can be won whatever card is revealed,
  commit everyone. Otherwise hold back the defenders and the groups that destroy
  an enemy that gain more than the willpower they keep from the quest (the
  attackers of this round: the engaged enemies and the staged ones the threat
  already reaches), never commit a character without willpower, and keep back
  those whose willpower would only overshoot the stage against the strongest
  possible reveal (progress past a stage is lost), the best fighters first;
- defense: the same plan without the willpower, each attack to the defender
  that costs least (or undefended when that costs least); an undefended attack
  goes to the hero with the most hitpoints left if it survives, else to the one
  with the least willpower;
- attack: every ready character that can damage an enemy strikes, the enemies
  it can destroy first, the most dangerous first.

Each policy fills an action vector for the pending decision from the state
and its own random stream ``rs``. They read only what the player sees (the
deck sections are never touched; ``rule-full`` counts the cards left in the
encounter deck, a visible multiset), and what they choose is legal by
construction: defense and attack choices are made while resolving them on
``scratch``, a copy of the state, so a hero destroyed by one attack is never
named for the next. Ties are broken by the lower card id.
"""

import numpy as np

from gamecore.default_kernels import copy
from gamecore.jit import inline_kernel, kernel
from gamecore.rng import below
from lotr_sim import layout as L
from lotr_sim.candidates import willpower_of
from lotr_sim.cards import (
    ATTACK,
    COST,
    DEFENSE,
    HITPOINTS,
    QUEST_POINTS,
    STAGE_QUEST_POINTS,
    THREAT,
    WANDERING_TOOK_IDS,
    WILLPOWER,
)
from lotr_sim.combat import WILLPOWER_WORTH, attackers_this_round, focus_attack, plan_combat, victim
from lotr_sim.rules import (
    GANDALF_BITS,
    LOCATION_BITS,
    defend,
    heroes,
    in_zone,
    lowest,
    nth_card,
    popcount,
    ready,
    staging_threat,
    strike,
    total_resources,
)

RANDOM = 0
EXPERT = 1
RULE = 2
RULE_FULL = 3
POLICY_NAMES = ("random", "expert", "rule", "rule-full")
WILLPOWER_PER_COST = WILLPOWER / np.maximum(COST, 1)
TOOK_BITS = (1 << WANDERING_TOOK_IDS[0]) | (1 << WANDERING_TOOK_IDS[1]) | (1 << WANDERING_TOOK_IDS[2])


@kernel
def bit(card):
    return np.int64(1) << card


@kernel
def random_subset(rs, mask, k):
    """A uniformly random k-card subset of ``mask`` (selection sampling)."""
    n = popcount(mask)
    chosen = np.int64(0)
    while mask and k > 0:
        c = lowest(mask)
        mask &= mask - 1
        if below(rs, n) < k:
            chosen |= bit(c)
            k -= 1
        n -= 1
    return chosen


@kernel
def mark(act, mask):
    while mask:
        act[lowest(mask)] = 1
        mask &= mask - 1


@kernel
def random_planning(S, rs, act):
    hand = S[L.ZONE_MASKS + L.HAND]
    n = popcount(hand)
    avail = total_resources(S)
    for _ in range(below(rs, n + 1)):
        card = nth_card(hand, below(rs, n))
        if COST[card] <= avail:
            act[card] = 1
            avail -= COST[card]
            hand &= ~bit(card)
            n -= 1


@kernel
def random_questing(S, rs, act):
    available = ready(S)
    mark(act, random_subset(rs, available, below(rs, popcount(available) + 1)))


@kernel
def random_travel(S, rs, act):
    locations = S[L.ZONE_MASKS + L.STAGING] & LOCATION_BITS
    n = popcount(locations)
    i = below(rs, n + 1)
    if i < n:
        act[nth_card(locations, i)] = 1


@kernel
def fill_after_loss(act, remaining, last_target):
    """Entries for the attacks left after the last hero fell: never resolved,
    they name that hero."""
    hero = last_target - L.UNDEFENDED if last_target >= L.UNDEFENDED else last_target
    while remaining:
        act[lowest(remaining)] = L.UNDEFENDED + hero
        remaining &= remaining - 1


@kernel
def random_defense(S, rs, act, scratch):
    copy(scratch, S)
    remaining = S[L.ZONE_MASKS + L.ENGAGED]
    while remaining:
        e = lowest(remaining)
        remaining &= remaining - 1
        available = ready(scratch)
        if available:
            target = nth_card(available, below(rs, popcount(available)))
        else:
            alive = heroes(scratch)
            target = L.UNDEFENDED + nth_card(alive, below(rs, popcount(alive)))
        act[e] = target
        if defend(scratch, e, target, None):
            fill_after_loss(act, remaining, target)
            return


@kernel
def random_attack(S, rs, act, scratch):
    available = ready(S)
    attackers = random_subset(rs, available, below(rs, popcount(available) + 1))
    if attackers == 0:
        return
    copy(scratch, S)
    while attackers:
        c = lowest(attackers)
        attackers &= attackers - 1
        alive = scratch[L.ZONE_MASKS + L.ENGAGED]
        if alive == 0:
            return
        target = nth_card(alive, below(rs, popcount(alive)))
        act[c] = target
        strike(scratch, c, target, None)


@kernel
def buy_in_order(S, hand, scores, act):
    """Buy the cards of ``hand`` from the highest score down, each if still affordable."""
    avail = total_resources(S)
    while hand:
        c = strongest(hand, scores)
        hand &= ~bit(c)
        if COST[c] <= avail:
            act[c] = 1
            avail -= COST[c]


@kernel
def expert_planning(S, rs, act):
    hand = S[L.ZONE_MASKS + L.HAND]
    gandalfs = hand & GANDALF_BITS
    if gandalfs == 0:
        random_planning(S, rs, act)
        return
    gandalf = lowest(gandalfs)
    avail = total_resources(S)
    if COST[gandalf] <= avail:
        act[gandalf] = 1
    elif avail > 3 and hand & TOOK_BITS:
        act[lowest(hand & TOOK_BITS)] = 1


@kernel
def questing_key(card):
    if DEFENSE[card] == 0:
        return 0.0
    return WILLPOWER[card] / DEFENSE[card]


@kernel
def expert_questing(S, rs, act):
    candidates = ready(S)
    needed = staging_threat(S) + 2
    committed = 0
    while candidates and committed < needed:
        best = lowest(candidates)
        m = candidates & (candidates - 1)
        while m:
            c = lowest(m)
            m &= m - 1
            if questing_key(c) > questing_key(best):
                best = c
        act[best] = 1
        committed += WILLPOWER[best]
        candidates &= ~bit(best)


@kernel
def expert_travel(S, rs, act):
    m = S[L.ZONE_MASKS + L.STAGING] & LOCATION_BITS
    best = lowest(m)
    while m:
        c = lowest(m)
        m &= m - 1
        if QUEST_POINTS[c] * THREAT[best] < QUEST_POINTS[best] * THREAT[c]:
            best = c
    act[best] = 1


@kernel
def strongest(mask, values):
    """The card of ``mask`` with the highest value (the lowest id among equals)."""
    best = lowest(mask)
    while mask:
        c = lowest(mask)
        mask &= mask - 1
        if values[c] > values[best]:
            best = c
    return best


@kernel
def sturdiest_hero(S):
    """The hero in play with the most hitpoints left."""
    m = heroes(S)
    best = lowest(m)
    while m:
        h = lowest(m)
        m &= m - 1
        if HITPOINTS[h] - S[L.DAMAGE + h] > HITPOINTS[best] - S[L.DAMAGE + best]:
            best = h
    return best


@kernel
def expert_defense(S, rs, act, scratch):
    remaining = S[L.ZONE_MASKS + L.ENGAGED]
    available = ready(S)
    while remaining and available:  # strongest attacker gets the best defender
        e = strongest(remaining, ATTACK)
        d = strongest(available, DEFENSE)
        act[e] = d
        remaining &= ~bit(e)
        available &= ~bit(d)
    resolve_defense(S, act, scratch, False)


@kernel
def resolve_defense(S, act, scratch, spare):
    """Complete a planned defense in ``act`` (a defender per enemy, or NO_CHOICE) into a legal
    action: attacks without a defender still in play go to the hero with the most hitpoints left
    (``spare``: ``combat.victim``'s choice, which spares the heroes it can), resolved in order on ``scratch``."""
    enemies = S[L.ZONE_MASKS + L.ENGAGED]
    copy(scratch, S)
    while enemies:
        e = lowest(enemies)
        enemies &= enemies - 1
        d = act[e]
        if d != L.NO_CHOICE and in_zone(scratch, d, L.IN_PLAY):
            target = d
        else:
            target = L.UNDEFENDED + (victim(scratch, ATTACK[e]) if spare else sturdiest_hero(scratch))
        act[e] = target
        if defend(scratch, e, target, None):
            fill_after_loss(act, enemies, target)
            return


@kernel
def expert_attack(S, rs, act):
    remaining = S[L.ZONE_MASKS + L.ENGAGED]
    available = ready(S)
    while remaining and available:  # weakest enemy (defense + hitpoints left) first
        e = lowest(remaining)
        m = remaining
        while m:
            c = lowest(m)
            m &= m - 1
            if toughness(S, c) < toughness(S, e):
                e = c
        a = strongest(available, ATTACK)
        act[a] = e
        remaining &= ~bit(e)
        available &= ~bit(a)


@kernel
def toughness(S, enemy):
    return DEFENSE[enemy] + HITPOINTS[enemy] - S[L.DAMAGE + enemy]


@kernel
def progress_to_stage_end(S):
    """The progress that completes the current quest stage: the active location's points left, then the stage's."""
    active = S[L.ZONE_MASKS + L.ACTIVE_LOCATION]
    location = QUEST_POINTS[lowest(active)] - S[L.LOCATION_PROGRESS] if active else 0
    return location + STAGE_QUEST_POINTS[S[L.QUEST_STAGE]] - S[L.QUEST_PROGRESS]


@kernel
def strongest_reveal(S):
    """The highest threat among the cards left in the encounter deck (0 when it is empty)."""
    m = S[L.ZONE_MASKS + L.ENCOUNTER_DECK]
    threat = 0
    while m:
        threat = max(threat, THREAT[lowest(m)])
        m &= m - 1
    return threat


@kernel
def fighting_value(card):
    return ATTACK[card] + DEFENSE[card] - WILLPOWER[card]


@kernel
def full_questing(S, act, scratch):
    """``rule-full``'s questing (the module's docstring)."""
    available = ready(S)
    against = staging_threat(S) + strongest_reveal(S)
    needed = progress_to_stage_end(S)
    if S[L.QUEST_STAGE] + 1 >= S[L.QUEST_STAGE_COUNT] and willpower_of(available) - against >= needed:
        mark(act, available)
        return
    held = plan_combat(S, available, attackers_this_round(S), WILLPOWER_WORTH, scratch, act)
    act[:] = L.NO_CHOICE
    committed = np.int64(0)
    m = available & ~held
    while m:
        c = lowest(m)
        m &= m - 1
        if WILLPOWER[c] > 0:
            committed |= bit(c)
    willpower = willpower_of(committed)
    while True:  # keep back whoever only overshoots the stage, the best fighter first
        spare = -1
        m = committed
        while m:
            c = lowest(m)
            m &= m - 1
            if willpower - WILLPOWER[c] - against >= needed and (spare < 0 or fighting_value(c) > fighting_value(spare)):
                spare = c
        if spare < 0:
            break
        committed &= ~bit(spare)
        willpower -= WILLPOWER[spare]
    mark(act, committed)


@kernel
def full_defense(S, act, scratch):
    """``rule-full``'s defense (the module's docstring)."""
    plan_combat(S, ready(S), S[L.ZONE_MASKS + L.ENGAGED], 0.0, scratch, act)
    resolve_defense(S, act, scratch, True)


@inline_kernel
def policy_action(S, policy, rs, act, scratch):
    """Fill ``act`` with ``policy``'s choice (RANDOM, EXPERT, RULE or RULE_FULL) for the pending decision.

    ``scratch`` is a state-sized array the policy may overwrite."""
    act[:] = L.NO_CHOICE
    phase = S[L.PHASE]
    if policy == RANDOM:
        if phase == L.PLANNING:
            random_planning(S, rs, act)
        elif phase == L.QUESTING:
            random_questing(S, rs, act)
        elif phase == L.TRAVEL:
            random_travel(S, rs, act)
        elif phase == L.DEFENSE:
            random_defense(S, rs, act, scratch)
        elif phase == L.ATTACK:
            random_attack(S, rs, act, scratch)
    else:
        if phase == L.PLANNING:
            if policy == EXPERT:
                expert_planning(S, rs, act)
            else:
                buy_in_order(S, S[L.ZONE_MASKS + L.HAND], WILLPOWER_PER_COST, act)
        elif phase == L.QUESTING:
            if policy == RULE:
                mark(act, ready(S))
            elif policy == RULE_FULL:
                full_questing(S, act, scratch)
            else:
                expert_questing(S, rs, act)
        elif phase == L.TRAVEL:
            expert_travel(S, rs, act)
        elif phase == L.DEFENSE:
            if policy == RULE_FULL:
                full_defense(S, act, scratch)
            else:
                expert_defense(S, rs, act, scratch)
        elif phase == L.ATTACK:
            if policy == RULE_FULL:
                focus_attack(S, act, scratch)
            else:
                expert_attack(S, rs, act)
