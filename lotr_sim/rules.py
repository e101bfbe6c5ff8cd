"""The rules of RULES.md as compiled functions over the flat state array.

``new_state`` deals a game and runs it to its first decision; ``apply_action``
applies the decision encoded as an action vector (see ``layout``) and runs the
rule-based phases and chance events up to the next decision with at least two
legal actions (forced decisions are applied here). Every rule function takes
a ``log`` array: row 0 counts events, rows 1.. hold (kind, round, a, b, c);
a log with zero rows records nothing.
"""

import numpy as np
from numba import njit

from lotr_sim.cards import (
    ALLY,
    ALLY_FIRST,
    ENEMY_FIRST,
    LOCATION_FIRST,
    ATTACK as ATTACK_VALUE,
    COST,
    DEFENSE as DEFENSE_VALUE,
    ENEMY,
    ENGAGEMENT,
    GANDALF_IDS,
    HARD_SETUP_IDS,
    HERO,
    HITPOINTS,
    KIND,
    LOCATION,
    LOSING_THREAT,
    N_CARDS,
    OPENING_HAND,
    QUEST_POINTS,
    STAGE_QUEST_POINTS,
    STARTING_THREAT,
    THREAT,
    WILLPOWER,
)
from lotr_sim.layout import *  # noqa: F403  (the layout is a namespace of constants)
from lotr_sim.rng import below, mix64


@njit(cache=True)
def log_event(S, log, kind, a, b, c):
    if log.shape[0] == 0:
        return
    n = log[0, 0] + 1
    if n < log.shape[0]:
        log[n, 0] = kind
        log[n, 1] = S[ROUND]
        log[n, 2] = a
        log[n, 3] = b
        log[n, 4] = c
        log[0, 0] = n


@njit(cache=True)
def fail(err, code, a, b, c):
    err[0] = code
    err[1] = a
    err[2] = b
    err[3] = c
    return code


@njit(cache=True)
def move(S, card, zone):
    S[ZONE + card] = zone


@njit(cache=True)
def cards_in(S, zone, out):
    """Write the ids of the cards in ``zone`` to ``out`` in id order; return the count."""
    n = 0
    for c in range(N_CARDS):
        if S[ZONE + c] == zone:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def is_character(card):
    return KIND[card] == HERO or KIND[card] == ALLY


@njit(cache=True)
def is_ready(S, card):
    return S[ZONE + card] == IN_PLAY and S[EXHAUSTED + card] == 0


@njit(cache=True)
def count_ready(S):
    n = 0
    for c in range(ENEMY_FIRST):
        if is_ready(S, c):
            n += 1
    return n


@njit(cache=True)
def count_heroes(S):
    n = 0
    for h in range(3):
        if S[ZONE + h] == IN_PLAY:
            n += 1
    return n


@njit(cache=True)
def count_in(S, zone):
    n = 0
    for c in range(N_CARDS):
        if S[ZONE + c] == zone:
            n += 1
    return n


@njit(cache=True)
def total_resources(S):
    return S[RESOURCES] + S[RESOURCES + 1] + S[RESOURCES + 2]


@njit(cache=True)
def staging_threat(S):
    t = 0
    for c in range(ENEMY_FIRST, N_CARDS):
        if S[ZONE + c] == STAGING:
            t += THREAT[c]
    return t


@njit(cache=True)
def active_location(S):
    for c in range(LOCATION_FIRST, N_CARDS):
        if S[ZONE + c] == ACTIVE_LOCATION:
            return c
    return -1


@njit(cache=True)
def end_game(S, outcome, log):
    S[OUTCOME] = outcome
    S[PHASE] = GAME_OVER
    log_event(S, log, EV_OUTCOME, outcome, 0, 0)


@njit(cache=True)
def raise_threat(S, amount, log):
    """Raise the threat; return True when it reaches the losing level."""
    S[THREAT_LEVEL] += amount
    log_event(S, log, EV_THREAT, amount, S[THREAT_LEVEL], 0)
    if S[THREAT_LEVEL] >= LOSING_THREAT:
        end_game(S, LOST_BY_THREAT, log)
        return True
    return False


@njit(cache=True)
def draw_card(S, log):
    top = S[PLAYER_TOP]
    if top >= PLAYER_DECK_SIZE:
        log_event(S, log, EV_DRAW, -1, 0, 0)
        return
    card = S[PLAYER_DECK_ORDER + top]
    S[PLAYER_TOP] = top + 1
    move(S, card, HAND)
    log_event(S, log, EV_DRAW, card, 0, 0)


@njit(cache=True)
def shuffle_section(S, start, stop, rs):
    for i in range(stop - 1, start, -1):
        j = start + below(rs, i - start + 1)
        tmp = S[i]
        S[i] = S[j]
        S[j] = tmp


@njit(cache=True)
def new_state(difficulty, quest_stages, seed, log):
    """Deal a game from ``seed`` and run it to its first decision."""
    S = np.zeros(STATE_SIZE, np.int64)
    for c in range(N_CARDS):
        S[ZONE + c] = OUT_OF_GAME
    S[DIFFICULTY] = difficulty
    S[QUEST_STAGE_COUNT] = quest_stages
    S[THREAT_LEVEL] = STARTING_THREAT
    for h in range(3):
        move(S, h, IN_PLAY)
    for i in range(PLAYER_DECK_SIZE):
        S[PLAYER_DECK_ORDER + i] = ALLY_FIRST + i
        move(S, ALLY_FIRST + i, PLAYER_DECK)
    n = 0
    last = LOCATION_FIRST if difficulty == EASY else N_CARDS
    for c in range(ENEMY_FIRST, last):
        if difficulty == HARD and (c == HARD_SETUP_IDS[0] or c == HARD_SETUP_IDS[1]):
            continue
        S[ENCOUNTER_DECK_ORDER + n] = c
        move(S, c, ENCOUNTER_DECK)
        n += 1
    S[ENCOUNTER_LEN] = n
    if difficulty == HARD:
        for c in HARD_SETUP_IDS:
            move(S, c, STAGING)
            log_event(S, log, EV_SETUP_STAGING, c, 0, 0)
    rs = np.empty(1, np.uint64)
    rs[0] = mix64(seed)
    shuffle_section(S, PLAYER_DECK_ORDER, PLAYER_DECK_ORDER + PLAYER_DECK_SIZE, rs)
    shuffle_section(S, ENCOUNTER_DECK_ORDER, ENCOUNTER_DECK_ORDER + n, rs)
    for _ in range(OPENING_HAND):
        draw_card(S, log)
    S[PHASE] = RESOURCE_PHASE
    advance(S, log)
    return S


@njit(cache=True)
def determinize(S, rs):
    """Re-draw the hidden order of both decks uniformly, in place."""
    shuffle_section(S, PLAYER_DECK_ORDER + S[PLAYER_TOP], PLAYER_DECK_ORDER + PLAYER_DECK_SIZE, rs)
    shuffle_section(S, ENCOUNTER_DECK_ORDER + S[ENCOUNTER_TOP], ENCOUNTER_DECK_ORDER + S[ENCOUNTER_LEN], rs)


@njit(cache=True)
def can_buy_any(S):
    avail = total_resources(S)
    for c in range(ALLY_FIRST, ENEMY_FIRST):
        if S[ZONE + c] == HAND and COST[c] <= avail:
            return True
    return False


@njit(cache=True)
def can_travel(S):
    if active_location(S) >= 0:
        return False
    for c in range(LOCATION_FIRST, N_CARDS):
        if S[ZONE + c] == STAGING:
            return True
    return False


@njit(cache=True)
def destroy_if_dead(S, card, log):
    """Destroy a character or enemy whose damage reached its hitpoints."""
    if S[DAMAGE + card] < HITPOINTS[card]:
        return
    S[DAMAGE + card] = 0
    S[EXHAUSTED + card] = 0
    if KIND[card] == HERO:
        S[RESOURCES + card] = 0
        move(S, card, DESTROYED_HEROES)
    elif KIND[card] == ALLY:
        move(S, card, PLAYER_DISCARD)
    else:
        move(S, card, ENCOUNTER_DISCARD)
    log_event(S, log, EV_DESTROYED, card, 0, 0)


@njit(cache=True)
def defend(S, enemy, target, log):
    """Resolve one enemy attack: ``target`` is a defender, or UNDEFENDED + hero.

    Returns True when the game is lost (no hero left)."""
    if target >= UNDEFENDED:
        hero = target - UNDEFENDED
        damage = ATTACK_VALUE[enemy]
        log_event(S, log, EV_UNDEFENDED, enemy, hero, damage)
        victim = hero
    else:
        victim = target
        S[EXHAUSTED + victim] = 1
        damage = max(0, ATTACK_VALUE[enemy] - DEFENSE_VALUE[victim])
        log_event(S, log, EV_DEFEND, enemy, victim, damage)
    S[DAMAGE + victim] += damage
    destroy_if_dead(S, victim, log)
    if KIND[victim] == HERO and S[ZONE + victim] != IN_PLAY and count_heroes(S) == 0:
        end_game(S, LOST_BY_HEROES, log)
        return True
    return False


@njit(cache=True)
def strike(S, character, enemy, log):
    """Resolve one character's attack on an engaged enemy."""
    S[EXHAUSTED + character] = 1
    damage = max(0, ATTACK_VALUE[character] - DEFENSE_VALUE[enemy])
    log_event(S, log, EV_ATTACK, character, enemy, damage)
    S[DAMAGE + enemy] += damage
    destroy_if_dead(S, enemy, log)


@njit(cache=True)
def apply_planning(S, act, err, log):
    avail = total_resources(S)
    for c in range(N_CARDS):
        if act[c] == NO_CHOICE:
            continue
        if S[ZONE + c] != HAND:
            return fail(err, ERR_NOT_IN_HAND, c, 0, 0)
        cost = COST[c]
        if cost > avail:
            return fail(err, ERR_UNAFFORDABLE, c, cost, avail)
        avail -= cost
        for h in range(3):
            paid = min(cost, S[RESOURCES + h])
            S[RESOURCES + h] -= paid
            cost -= paid
        move(S, c, IN_PLAY)
        log_event(S, log, EV_BUY, c, COST[c], avail)
    S[PHASE] = QUESTING
    return OK


@njit(cache=True)
def add_progress(S, progress, log):
    """Place questing progress; return True when the last quest stage is completed."""
    location = active_location(S)
    if location >= 0:
        placed = min(progress, QUEST_POINTS[location] - S[LOCATION_PROGRESS])
        S[LOCATION_PROGRESS] += placed
        progress -= placed
        log_event(S, log, EV_LOCATION_PROGRESS, location, placed, S[LOCATION_PROGRESS])
        if S[LOCATION_PROGRESS] >= QUEST_POINTS[location]:
            S[LOCATION_PROGRESS] = 0
            move(S, location, ENCOUNTER_DISCARD)
            log_event(S, log, EV_EXPLORED, location, 0, 0)
    if progress <= 0:
        return False
    stage = S[QUEST_STAGE]
    S[QUEST_PROGRESS] += progress
    log_event(S, log, EV_QUEST_PROGRESS, progress, S[QUEST_PROGRESS], stage)
    if S[QUEST_PROGRESS] < STAGE_QUEST_POINTS[stage]:
        return False
    log_event(S, log, EV_STAGE_DONE, stage, 0, 0)
    if stage + 1 >= S[QUEST_STAGE_COUNT]:
        return True
    S[QUEST_STAGE] = stage + 1
    S[QUEST_PROGRESS] = 0
    return False


@njit(cache=True)
def apply_questing(S, act, err, log):
    willpower = 0
    for c in range(N_CARDS):
        if act[c] == NO_CHOICE:
            continue
        if not (is_character(c) and is_ready(S, c)):
            return fail(err, ERR_NOT_READY, c, 0, 0)
        S[EXHAUSTED + c] = 1
        willpower += WILLPOWER[c]
        log_event(S, log, EV_COMMIT, c, WILLPOWER[c], 0)
    top = S[ENCOUNTER_TOP]
    if top < S[ENCOUNTER_LEN]:
        card = S[ENCOUNTER_DECK_ORDER + top]
        S[ENCOUNTER_TOP] = top + 1
        move(S, card, STAGING)
        log_event(S, log, EV_REVEAL, card, 0, 0)
    else:
        log_event(S, log, EV_REVEAL, -1, 0, 0)
    threat = staging_threat(S)
    log_event(S, log, EV_QUEST_RESULT, willpower, threat, 0)
    result = willpower - threat
    if result > 0:
        if add_progress(S, result, log):
            end_game(S, WIN, log)
            return OK
    elif result < 0:
        if raise_threat(S, -result, log):
            return OK
    S[PHASE] = TRAVEL
    return OK


@njit(cache=True)
def apply_travel(S, act, err, log):
    chosen = -1
    for c in range(N_CARDS):
        if act[c] == NO_CHOICE:
            continue
        if not (KIND[c] == LOCATION and S[ZONE + c] == STAGING):
            return fail(err, ERR_NOT_STAGED_LOCATION, c, 0, 0)
        if chosen >= 0:
            return fail(err, ERR_SEVERAL_LOCATIONS, chosen, c, 0)
        chosen = c
    if chosen >= 0:
        move(S, chosen, ACTIVE_LOCATION)
        S[LOCATION_PROGRESS] = 0
        log_event(S, log, EV_TRAVEL, chosen, 0, 0)
    S[PHASE] = ENCOUNTER_PHASE
    return OK


@njit(cache=True)
def apply_defense(S, act, err, log):
    first_enemy = np.full(ENEMY_FIRST, -1, np.int64)
    enemies = np.empty(N_CARDS, np.int64)
    n = cards_in(S, ENGAGED, enemies)
    for c in range(N_CARDS):
        if act[c] != NO_CHOICE and S[ZONE + c] != ENGAGED:
            return fail(err, ERR_NOT_ENGAGED, c, 0, 0)
    for i in range(n):
        e = enemies[i]
        target = act[e]
        if target == NO_CHOICE:
            return fail(err, ERR_ENEMY_UNASSIGNED, e, 0, 0)
        if target >= UNDEFENDED:
            if target - UNDEFENDED >= N_CARDS or KIND[target - UNDEFENDED] != HERO:
                return fail(err, ERR_NOT_HERO, target - UNDEFENDED, e, 0)
        else:
            if target >= N_CARDS or not is_character(target):
                return fail(err, ERR_NOT_CHARACTER, target, e, 0)
            if not is_ready(S, target):
                return fail(err, ERR_NOT_READY, target, 0, 0)
            if first_enemy[target] >= 0:
                return fail(err, ERR_DEFENDS_TWICE, target, first_enemy[target], e)
            first_enemy[target] = e
    for i in range(n):
        e = enemies[i]
        target = act[e]
        if target >= UNDEFENDED:
            if S[ZONE + target - UNDEFENDED] != IN_PLAY:
                return fail(err, ERR_HERO_DESTROYED, target - UNDEFENDED, e, 0)
        elif S[ZONE + target] != IN_PLAY:
            return fail(err, ERR_DEFENDER_DESTROYED, target, e, 0)
        if defend(S, e, target, log):
            return OK
    S[PHASE] = ATTACK
    return OK


@njit(cache=True)
def apply_attack(S, act, err, log):
    for c in range(N_CARDS):
        target = act[c]
        if target == NO_CHOICE:
            continue
        if not (is_character(c) and is_ready(S, c)):
            return fail(err, ERR_NOT_READY, c, 0, 0)
        if target < 0 or target >= N_CARDS or S[ZONE + target] != ENGAGED:
            return fail(err, ERR_NOT_ENGAGED, target, 0, 0)
    attackers = np.empty(N_CARDS, np.int64)
    n = cards_in(S, IN_PLAY, attackers)
    for i in range(n):
        c = attackers[i]
        target = act[c]
        if target == NO_CHOICE:
            continue
        if S[ZONE + target] != ENGAGED:
            return fail(err, ERR_TARGET_DESTROYED, target, c, 0)
        strike(S, c, target, log)
    S[PHASE] = REFRESH_PHASE
    return OK


@njit(cache=True)
def apply_decision(S, act, err, log):
    """Apply the pending decision's action vector without advancing the game."""
    err[0] = OK
    phase = S[PHASE]
    if phase == PLANNING:
        return apply_planning(S, act, err, log)
    if phase == QUESTING:
        return apply_questing(S, act, err, log)
    if phase == TRAVEL:
        return apply_travel(S, act, err, log)
    if phase == DEFENSE:
        return apply_defense(S, act, err, log)
    if phase == ATTACK:
        return apply_attack(S, act, err, log)
    return fail(err, ERR_NOTHING_TO_DECIDE, phase, 0, 0)


@njit(cache=True)
def apply_action(S, act, err, log):
    """Apply the pending decision, then run the game to its next decision."""
    code = apply_decision(S, act, err, log)
    if code == OK:
        advance(S, log)
    return code


@njit(cache=True)
def resource_phase(S, log):
    S[ROUND] += 1
    log_event(S, log, EV_ROUND, S[THREAT_LEVEL], 0, 0)
    for h in range(3):
        if S[ZONE + h] == IN_PLAY:
            S[RESOURCES + h] += 1
    log_event(S, log, EV_RESOURCES, total_resources(S), 0, 0)
    draw_card(S, log)


@njit(cache=True)
def encounter_phase(S, log):
    staged = np.empty(N_CARDS, np.int64)
    n = cards_in(S, STAGING, staged)
    for i in range(n):
        c = staged[i]
        if KIND[c] == ENEMY and ENGAGEMENT[c] <= S[THREAT_LEVEL]:
            move(S, c, ENGAGED)
            log_event(S, log, EV_ENGAGE, c, 0, 0)


@njit(cache=True)
def refresh_phase(S, log):
    if raise_threat(S, 1, log):
        return
    for g in GANDALF_IDS:
        if S[ZONE + g] == IN_PLAY:
            S[DAMAGE + g] = 0
            S[EXHAUSTED + g] = 0
            move(S, g, PLAYER_DISCARD)
            log_event(S, log, EV_GANDALF_LEAVES, g, 0, 0)
    for c in range(ENEMY_FIRST):
        S[EXHAUSTED + c] = 0


@njit(cache=True)
def forced_defense(S, log):
    """The only legal defense when no character is ready and one hero is left."""
    act = np.full(N_CARDS, NO_CHOICE, np.int64)
    hero = 0
    for h in range(3):
        if S[ZONE + h] == IN_PLAY:
            hero = h
    for e in range(ENEMY_FIRST, LOCATION_FIRST):
        if S[ZONE + e] == ENGAGED:
            act[e] = UNDEFENDED + hero
    err = np.zeros(4, np.int64)
    apply_defense(S, act, err, log)


@njit(cache=True)
def advance(S, log):
    """Run rule-based phases until a decision with a choice, or the game's end."""
    while True:
        phase = S[PHASE]
        if phase == RESOURCE_PHASE:
            resource_phase(S, log)
            S[PHASE] = PLANNING
        elif phase == PLANNING:
            if can_buy_any(S):
                return
            S[PHASE] = QUESTING
        elif phase == QUESTING:
            return
        elif phase == TRAVEL:
            if can_travel(S):
                return
            S[PHASE] = ENCOUNTER_PHASE
        elif phase == ENCOUNTER_PHASE:
            encounter_phase(S, log)
            S[PHASE] = DEFENSE
        elif phase == DEFENSE:
            if count_in(S, ENGAGED) == 0:
                S[PHASE] = ATTACK
            elif count_ready(S) > 0 or count_heroes(S) > 1:
                return
            else:
                forced_defense(S, log)
        elif phase == ATTACK:
            if count_in(S, ENGAGED) > 0 and count_ready(S) > 0:
                return
            S[PHASE] = REFRESH_PHASE
        elif phase == REFRESH_PHASE:
            refresh_phase(S, log)
            if S[PHASE] != GAME_OVER:
                S[PHASE] = RESOURCE_PHASE
        else:
            return
