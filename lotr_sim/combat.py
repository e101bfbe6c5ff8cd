"""The combat planner of the ``rule-full`` policy (``lotr_sim.policies``), compiled.

It weighs what each ready character could do in this round's combat, in hero
hitpoints: defending an attack saves the damage a hero would take undefended,
less what the defender loses; joining the cheapest group of attackers that
destroys an engaged enemy this round saves ``KILL_WORTH`` per point of that
enemy's attack (the attacks of the rounds to come); at questing, keeping a
character back also costs ``WILLPOWER_WORTH`` per point of its willpower.
``plan_combat`` takes the best of these options one at a time while one gains.
``focus_attack`` then strikes with every ready character, the enemies it can
destroy first. Everything here reads what the player sees only (no deck
order); ties go to the lower card id.
"""

import numpy as np

from gamecore.default_kernels import copy
from gamecore.jit import kernel
from lotr_sim import layout as L
from lotr_sim.cards import ATTACK, DEFENSE, ENGAGEMENT, HERO, HITPOINTS, KIND, WILLPOWER
from lotr_sim.rules import ENEMY_BITS, GANDALF_BITS, heroes, in_zone, lowest, popcount, strike

WILLPOWER_WORTH = 0.25  # hero hitpoints a point of willpower committed to the quest is worth
HERO_DEATH = 4.0  # a hero destroyed costs its hitpoints left and this
ALLY_DEATH = 0.75  # an ally destroyed costs this times (1 + its willpower); Gandalf leaves anyway
KILL_WORTH = 0.75  # an enemy destroyed this round is worth this times its attack
LAST_HERO = 1000.0  # the last hero's death loses the game
KILL_SEARCH_LIMIT = 10  # cheapest_kill enumerates the subsets of at most this many useful attackers


@kernel
def hitpoints_left(S, card):
    return HITPOINTS[card] - S[L.DAMAGE + card]


@kernel
def damage_to(character, enemy):
    return max(0, ATTACK[character] - DEFENSE[enemy])


@kernel
def victim(S, damage):
    """The hero that takes an undefended attack of ``damage``: the one with the most hitpoints left if it
    survives, else the one with the least willpower (then the fewest hitpoints left)."""
    alive = heroes(S)
    best = lowest(alive)
    m = alive
    while m:
        h = lowest(m)
        m &= m - 1
        if hitpoints_left(S, h) > hitpoints_left(S, best):
            best = h
    if hitpoints_left(S, best) > damage:
        return best
    best = lowest(alive)
    while alive:
        h = lowest(alive)
        alive &= alive - 1
        if WILLPOWER[h] < WILLPOWER[best] or (
                WILLPOWER[h] == WILLPOWER[best] and hitpoints_left(S, h) < hitpoints_left(S, best)):
            best = h
    return best


@kernel
def hero_loss(S, hero, damage):
    """What ``damage`` to ``hero`` costs: the damage, or its death."""
    left = hitpoints_left(S, hero)
    if damage < left:
        return float(damage)
    if popcount(heroes(S)) == 1:
        return LAST_HERO
    return left + HERO_DEATH


@kernel
def undefended_cost(S, attack):
    return hero_loss(S, victim(S, attack), attack)


@kernel
def defense_cost(S, character, attack):
    """What defending an attack of ``attack`` costs ``character``."""
    damage = max(0, attack - DEFENSE[character])
    if KIND[character] == HERO:
        return hero_loss(S, character, damage)
    if damage < hitpoints_left(S, character):
        return 0.0
    if (GANDALF_BITS >> character) & 1:
        return 0.01  # Gandalf leaves at the refresh anyway; the 0.01 prefers an ally who survives
    return ALLY_DEATH * (1 + WILLPOWER[character])


@kernel
def attackers_this_round(S):
    """The engaged enemies and the staged ones whose engagement cost the threat already reaches."""
    m = S[L.ZONE_MASKS + L.STAGING] & ENEMY_BITS
    enemies = S[L.ZONE_MASKS + L.ENGAGED]
    while m:
        e = lowest(m)
        m &= m - 1
        if ENGAGEMENT[e] <= S[L.THREAT_LEVEL]:
            enemies |= np.int64(1) << e
    return enemies


@kernel
def cheapest_kill(S, pool, enemy, willpower_worth):
    """The group of ``pool`` that destroys ``enemy`` this round at the least cost (willpower_worth per point of
    willpower, then the least defense, then the fewest characters) and that cost; (0, inf) when none does."""
    useful = np.int64(0)
    m = pool
    while m:
        c = lowest(m)
        m &= m - 1
        if damage_to(c, enemy) > 0:
            useful |= np.int64(1) << c
    best, best_cost = np.int64(0), np.inf
    if popcount(useful) > KILL_SEARCH_LIMIT:
        return best, best_cost
    left = hitpoints_left(S, enemy)
    group = useful
    while group:
        damage, cost = 0, 0.0
        m = group
        while m:
            c = lowest(m)
            m &= m - 1
            damage += damage_to(c, enemy)
            cost += willpower_worth * WILLPOWER[c] + 0.01 * DEFENSE[c] + 0.001
        if damage >= left and cost < best_cost:
            best, best_cost = group, cost
        group = (group - 1) & useful
    return best, best_cost


@kernel
def plan_combat(S, pool, enemies, willpower_worth, scratch, defender_of):
    """Hold characters of ``pool`` back for this round's combat against ``enemies``: repeatedly the option that
    gains most, a defender for an attack or a group that destroys an enemy, while one gains. Returns the
    characters held back; ``defender_of[enemy]`` gets each planned defender (the other entries are left as
    they are). ``scratch`` (state-sized) holds the planned damage."""
    copy(scratch, S)
    undefended = enemies
    standing = enemies
    held = np.int64(0)
    while True:
        best_gain, best_enemy, best_group, defends = 0.0, -1, np.int64(0), False
        m = undefended
        while m:
            e = lowest(m)
            m &= m - 1
            saved = undefended_cost(scratch, ATTACK[e])
            p = pool
            while p:
                c = lowest(p)
                p &= p - 1
                gain = saved - defense_cost(scratch, c, ATTACK[e]) - willpower_worth * WILLPOWER[c]
                if gain > best_gain:
                    best_gain, best_enemy, best_group, defends = gain, e, np.int64(1) << c, True
        m = standing
        while m:
            e = lowest(m)
            m &= m - 1
            group, cost = cheapest_kill(scratch, pool, e, willpower_worth)
            if group and KILL_WORTH * ATTACK[e] - cost > best_gain:
                best_gain, best_enemy, best_group, defends = KILL_WORTH * ATTACK[e] - cost, e, group, False
        if best_enemy < 0:
            return held
        held |= best_group
        pool &= ~best_group
        if defends:
            c = lowest(best_group)
            defender_of[best_enemy] = c
            undefended &= ~(np.int64(1) << best_enemy)
            scratch[L.DAMAGE + c] += max(0, ATTACK[best_enemy] - DEFENSE[c])
        else:
            standing &= ~(np.int64(1) << best_enemy)


@kernel
def better_striker(candidate, current, enemy, left):
    """Whether ``candidate`` strikes ``enemy`` (``left`` hitpoints) better than ``current``: the weakest that
    destroys it alone, else the strongest."""
    d, dc = damage_to(candidate, enemy), damage_to(current, enemy)
    if d >= left:
        return dc < left or d < dc
    return dc < left and d > dc


@kernel
def focus_attack(S, act, scratch):
    """Every ready character that can damage an engaged enemy attacks: enemies the ready characters can destroy
    first (the strongest attack first, then the fewest hitpoints left), each struck until destroyed; with none
    to destroy, all that can damage the strongest one strike it (damage stays on an enemy). Resolved on
    ``scratch``."""
    copy(scratch, S)
    available = S[L.ZONE_MASKS + L.IN_PLAY] & ~S[L.EXHAUSTED_MASK]
    while available:
        target, destroyable = -1, False
        m = scratch[L.ZONE_MASKS + L.ENGAGED]
        while m:
            e = lowest(m)
            m &= m - 1
            total = 0
            a = available
            while a:
                total += damage_to(lowest(a), e)
                a &= a - 1
            if total == 0:
                continue
            k = total >= hitpoints_left(scratch, e)
            if target < 0 or (k and not destroyable) or (k == destroyable and (
                    ATTACK[e] > ATTACK[target] or (
                        ATTACK[e] == ATTACK[target] and hitpoints_left(scratch, e) < hitpoints_left(scratch, target)))):
                target, destroyable = e, k
        if target < 0:
            return
        a = available
        while a and in_zone(scratch, target, L.ENGAGED):
            if destroyable:
                pick = -1
                m = available
                while m:
                    c = lowest(m)
                    m &= m - 1
                    if damage_to(c, target) > 0 and (
                            pick < 0 or better_striker(c, pick, target, hitpoints_left(scratch, target))):
                        pick = c
            else:
                pick = lowest(a)
                a &= a - 1
                if damage_to(pick, target) == 0:
                    continue
            act[pick] = target
            available &= ~(np.int64(1) << pick)
            strike(scratch, pick, target, None)
