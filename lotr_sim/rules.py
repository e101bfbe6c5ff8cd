"""The rules of docs/lotr-rules.md as compiled functions over the flat state array.

``new_state`` (``deal`` in place) deals a game and runs it to its first decision; ``apply_action``
applies the decision encoded as an action vector (see ``layout``) and runs the
rule-based phases and chance events up to the next decision with at least two
legal actions (forced decisions are applied here). Every rule function takes
a ``log``: None records nothing (and compiles to nothing); an array records
events, row 0 counting them and rows 1.. holding (kind, round, a, b, c).

Sets of cards are 64-bit masks over card ids; iterating a mask takes the
lowest set bit first, so cards are visited in id order.
"""

import numpy as np

from gamecore.jit import allocating, inline_kernel, kernel
from gamecore.rng import below, mix64
from lotr_sim import layout as L
from lotr_sim.cards import (
    ALLY,
    ALLY_FIRST,
    ATTACK,
    COST,
    DEFENSE,
    ENEMY_FIRST,
    ENGAGEMENT,
    GANDALF_IDS,
    HARD_SETUP_IDS,
    HERO,
    HITPOINTS,
    KIND,
    LOCATION_FIRST,
    LOSING_THREAT,
    N_CARDS,
    NAME_FIRST,
    OPENING_HAND,
    QUEST_POINTS,
    STAGE_QUEST_POINTS,
    STARTING_THREAT,
    THREAT,
    WILLPOWER,
)
from lotr_sim.defects import (
    DOUBLE_RESOURCES,
    IDLE_QUEST,
    LATE_DESTROY,
    LIST_SKIP,
    ONE_PER_NAME,
    PLAYOUT_ROUND_AFTER_WIN,
    QUEST_BY_NAME,
    QUEST_WIN_UNSEEN,
    REFRESH_AT_FIFTY,
    UNOPPOSED,
    WIN_BELOW_ZERO,
)

HERO_BITS = (1 << ALLY_FIRST) - 1
CHARACTER_BITS = (1 << ENEMY_FIRST) - 1
ENEMY_BITS = ((1 << LOCATION_FIRST) - 1) & ~CHARACTER_BITS
LOCATION_BITS = ((1 << N_CARDS) - 1) & ~((1 << LOCATION_FIRST) - 1)
ALLY_BITS = CHARACTER_BITS & ~HERO_BITS
GANDALF_BITS = (1 << GANDALF_IDS[0]) | (1 << GANDALF_IDS[1]) | (1 << GANDALF_IDS[2])
# De Bruijn sequence and table: the index of a 64-bit word's single set bit.
_DEBRUIJN = np.uint64(0x03F79D71B4CA8B09)
_DEBRUIJN_INDEX = np.zeros(64, np.int64)
_DEBRUIJN_INDEX[((np.uint64(1) << np.arange(64, dtype=np.uint64)) * _DEBRUIJN) >> np.uint64(58)] = np.arange(64)
_DEBRUIJN_INDEX.flags.writeable = False


@kernel
def lowest(mask):
    """The index of the lowest set bit of a non-zero mask."""
    return _DEBRUIJN_INDEX[(np.uint64(mask & -mask) * _DEBRUIJN) >> np.uint64(58)]


@kernel
def popcount(mask):
    m = np.uint64(mask)
    m = m - ((m >> np.uint64(1)) & np.uint64(0x5555555555555555))
    m = (m & np.uint64(0x3333333333333333)) + ((m >> np.uint64(2)) & np.uint64(0x3333333333333333))
    m = (m + (m >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((m * np.uint64(0x0101010101010101)) >> np.uint64(56))


@kernel
def nth_card(mask, n):
    """The id of the n-th (from 0, in id order) card of a mask with more than n cards."""
    for _ in range(n):
        mask &= mask - 1
    return lowest(mask)


# Inlining (``inline_kernel``): a call costs more than a tiny helper's own
# work, and every separately compiled function pays a fixed compile cost. So
# tiny helpers, and functions called from one or two places, are inlined;
# functions called from many places stay separate, since an inlined body is
# typed again at every call site.


@inline_kernel
def in_zone(S, card, z):
    return (S[L.ZONE_MASKS + z] >> card) & 1 == 1


@inline_kernel
def ready(S):
    """The characters in play that are not exhausted."""
    return S[L.ZONE_MASKS + L.IN_PLAY] & ~S[L.EXHAUSTED_MASK]


@inline_kernel
def heroes(S):
    return S[L.ZONE_MASKS + L.IN_PLAY] & HERO_BITS


@inline_kernel
def move(S, card, to):
    bit = np.int64(1) << card
    for z in range(L.N_ZONES):
        S[L.ZONE_MASKS + z] &= ~bit
    S[L.ZONE_MASKS + to] |= bit


@inline_kernel
def exhaust(S, card):
    S[L.EXHAUSTED_MASK] |= np.int64(1) << card


@inline_kernel
def total_resources(S):
    return S[L.RESOURCES] + S[L.RESOURCES + 1] + S[L.RESOURCES + 2]


@kernel
def staging_threat(S):
    total = 0
    m = S[L.ZONE_MASKS + L.STAGING]
    while m:
        total += THREAT[lowest(m)]
        m &= m - 1
    return total


@kernel
def log_event(S, log, kind, a, b, c):
    if log is None:
        return
    n = log[0, 0] + 1
    if n < log.shape[0]:
        log[n, 0] = kind
        log[n, 1] = S[L.ROUND]
        log[n, 2] = a
        log[n, 3] = b
        log[n, 4] = c
        log[0, 0] = n


@kernel
def fail(err, code, a, b, c):
    err[0] = code
    err[1] = a
    err[2] = b
    err[3] = c
    return code


@kernel
def end_game(S, outcome, log):
    S[L.OUTCOME] = outcome
    S[L.PHASE] = L.GAME_OVER
    log_event(S, log, L.EV_OUTCOME, outcome, 0, 0)


@inline_kernel
def raise_threat(S, amount, log):
    """Raise the threat; return True when it reaches the losing level."""
    S[L.THREAT_LEVEL] += amount
    log_event(S, log, L.EV_THREAT, amount, S[L.THREAT_LEVEL], 0)
    if S[L.THREAT_LEVEL] >= LOSING_THREAT:
        end_game(S, L.LOST_BY_THREAT, log)
        return True
    return False


@inline_kernel
def draw_card(S, log):
    top = S[L.PLAYER_TOP]
    if top >= L.PLAYER_DECK_SIZE:
        log_event(S, log, L.EV_DRAW, -1, 0, 0)
        return
    card = S[L.PLAYER_DECK_ORDER + top]
    S[L.PLAYER_TOP] = top + 1
    move(S, card, L.HAND)
    log_event(S, log, L.EV_DRAW, card, 0, 0)


@kernel
def shuffle_section(S, start, stop, rs):
    for i in range(stop - 1, start, -1):
        j = start + below(rs, i - start + 1)
        tmp = S[i]
        S[i] = S[j]
        S[j] = tmp


@allocating
def new_state(difficulty, quest_stages, rules, seed, log):
    """Deal a game from ``seed`` and run it to its first decision; ``rules``: the published code's defects in
    play (``lotr_sim.defects``), 0 for docs/lotr-rules.md."""
    S = np.empty(L.STATE_SIZE, np.int64)
    deal(S, difficulty, quest_stages, rules, seed, log)
    return S


@allocating
def deal(S, difficulty, quest_stages, rules, seed, log):
    """``new_state`` into the state-sized array ``S``."""
    for i in range(L.STATE_SIZE):
        S[i] = 0
    S[L.DIFFICULTY] = difficulty
    S[L.RULES] = rules
    S[L.QUEST_STAGE_COUNT] = quest_stages
    S[L.THREAT_LEVEL] = STARTING_THREAT
    S[L.ZONE_MASKS + L.IN_PLAY] = HERO_BITS
    S[L.ZONE_MASKS + L.PLAYER_DECK] = CHARACTER_BITS & ~HERO_BITS
    encounter = ENEMY_BITS if difficulty == L.EASY else ENEMY_BITS | LOCATION_BITS
    S[L.ZONE_MASKS + L.OUT_OF_GAME] = LOCATION_BITS & ~encounter
    if difficulty == L.HARD:
        for c in HARD_SETUP_IDS:
            encounter &= ~(np.int64(1) << c)
            S[L.ZONE_MASKS + L.STAGING] |= np.int64(1) << c
            log_event(S, log, L.EV_SETUP_STAGING, c, 0, 0)
    S[L.ZONE_MASKS + L.ENCOUNTER_DECK] = encounter
    for i in range(L.PLAYER_DECK_SIZE):
        S[L.PLAYER_DECK_ORDER + i] = ALLY_FIRST + i
    n = 0
    while encounter:
        S[L.ENCOUNTER_DECK_ORDER + n] = lowest(encounter)
        encounter &= encounter - 1
        n += 1
    S[L.ENCOUNTER_LEN] = n
    rs = np.empty(1, np.uint64)
    rs[0] = mix64(seed)
    shuffle_section(S, L.PLAYER_DECK_ORDER, L.PLAYER_DECK_ORDER + L.PLAYER_DECK_SIZE, rs)
    shuffle_section(S, L.ENCOUNTER_DECK_ORDER, L.ENCOUNTER_DECK_ORDER + n, rs)
    for _ in range(OPENING_HAND):
        draw_card(S, log)
    S[L.PHASE] = L.RESOURCE_PHASE
    advance(S, log)


@inline_kernel
def lay_out(S, start, mask):
    """Write the cards of ``mask`` in id order from index ``start``."""
    while mask:
        S[start] = lowest(mask)
        mask &= mask - 1
        start += 1


@kernel
def determinize(S, rs):
    """Re-draw the hidden order of both decks uniformly, in place.

    The result depends on the visible state and ``rs`` only: the cards left in
    each deck (a visible multiset) are first laid out in id order, then shuffled."""
    lay_out(S, L.PLAYER_DECK_ORDER + S[L.PLAYER_TOP], S[L.ZONE_MASKS + L.PLAYER_DECK])
    lay_out(S, L.ENCOUNTER_DECK_ORDER + S[L.ENCOUNTER_TOP], S[L.ZONE_MASKS + L.ENCOUNTER_DECK])
    shuffle_section(S, L.PLAYER_DECK_ORDER + S[L.PLAYER_TOP], L.PLAYER_DECK_ORDER + L.PLAYER_DECK_SIZE, rs)
    shuffle_section(S, L.ENCOUNTER_DECK_ORDER + S[L.ENCOUNTER_TOP], L.ENCOUNTER_DECK_ORDER + S[L.ENCOUNTER_LEN], rs)


@inline_kernel
def can_buy_any(S):
    avail = total_resources(S)
    m = S[L.ZONE_MASKS + L.HAND]
    while m:
        if COST[lowest(m)] <= avail:
            return True
        m &= m - 1
    return False


@inline_kernel
def destroy_if_dead(S, card, log):
    """Destroy a character or enemy whose damage reached its hitpoints."""
    if S[L.DAMAGE + card] < HITPOINTS[card]:
        return
    S[L.DAMAGE + card] = 0
    S[L.EXHAUSTED_MASK] &= ~(np.int64(1) << card)
    if KIND[card] == HERO:
        S[L.RESOURCES + card] = 0
        move(S, card, L.DESTROYED_HEROES)
    elif KIND[card] == ALLY:
        move(S, card, L.PLAYER_DISCARD)
    else:
        move(S, card, L.ENCOUNTER_DISCARD)
    log_event(S, log, L.EV_DESTROYED, card, 0, 0)


@kernel
def defend(S, enemy, target, log):
    """Resolve one enemy attack: ``target`` is a defender, or UNDEFENDED + hero.

    Returns True when the game is lost (no hero left)."""
    if target >= L.UNDEFENDED:
        victim = target - L.UNDEFENDED
        damage = ATTACK[enemy]
        log_event(S, log, L.EV_UNDEFENDED, enemy, victim, damage)
    else:
        victim = target
        exhaust(S, victim)
        damage = max(0, ATTACK[enemy] - DEFENSE[victim])
        log_event(S, log, L.EV_DEFEND, enemy, victim, damage)
    S[L.DAMAGE + victim] += damage
    if target >= L.UNDEFENDED or not S[L.RULES] & LATE_DESTROY:  # late-destroy: a defender waits for the refresh
        destroy_if_dead(S, victim, log)
    if heroes(S) == 0:
        end_game(S, L.LOST_BY_HEROES, log)
        return True
    return False


@kernel
def strike(S, character, enemy, log):
    """Resolve one character's attack on an engaged enemy."""
    exhaust(S, character)
    damage = max(0, ATTACK[character] - DEFENSE[enemy])
    log_event(S, log, L.EV_ATTACK, character, enemy, damage)
    S[L.DAMAGE + enemy] += damage
    destroy_if_dead(S, enemy, log)


@kernel
def apply_planning(S, act, err, log):
    avail = total_resources(S)
    for c in range(N_CARDS):
        if act[c] == L.NO_CHOICE:
            continue
        if not in_zone(S, c, L.HAND):
            return fail(err, L.ERR_NOT_IN_HAND, c, 0, 0)
        cost = COST[c]
        if cost > avail:
            return fail(err, L.ERR_UNAFFORDABLE, c, cost, avail)
        avail -= cost
        if S[L.RULES] & LIST_SKIP:  # the published allies list is in purchase order
            rank = popcount((S[L.ZONE_MASKS + L.IN_PLAY] | S[L.ZONE_MASKS + L.PLAYER_DISCARD]) & ALLY_BITS)
            S[L.ALLY_ORDER] |= rank << (4 * (c - ALLY_FIRST))
        for h in range(ALLY_FIRST):
            paid = min(cost, S[L.RESOURCES + h])
            S[L.RESOURCES + h] -= paid
            cost -= paid
        move(S, c, L.IN_PLAY)
        log_event(S, log, L.EV_BUY, c, COST[c], avail)
    S[L.PHASE] = L.QUESTING
    return L.OK


@inline_kernel
def add_progress(S, progress, log):
    """Place questing progress; return True when the last quest stage is completed."""
    active = S[L.ZONE_MASKS + L.ACTIVE_LOCATION]
    if active:
        location = lowest(active)
        placed = min(progress, QUEST_POINTS[location] - S[L.LOCATION_PROGRESS])
        S[L.LOCATION_PROGRESS] += placed
        progress -= placed
        log_event(S, log, L.EV_LOCATION_PROGRESS, location, placed, S[L.LOCATION_PROGRESS])
        if S[L.LOCATION_PROGRESS] >= QUEST_POINTS[location]:
            S[L.LOCATION_PROGRESS] = 0
            move(S, location, L.ENCOUNTER_DISCARD)
            log_event(S, log, L.EV_EXPLORED, location, 0, 0)
    if progress <= 0:
        return False
    stage = S[L.QUEST_STAGE]
    S[L.QUEST_PROGRESS] += progress
    log_event(S, log, L.EV_QUEST_PROGRESS, progress, S[L.QUEST_PROGRESS], stage)
    if S[L.QUEST_PROGRESS] < STAGE_QUEST_POINTS[stage]:
        return False
    last = stage + 1 >= S[L.QUEST_STAGE_COUNT]
    if last and S[L.RULES] & WIN_BELOW_ZERO and S[L.QUEST_PROGRESS] == STAGE_QUEST_POINTS[stage]:
        return False  # win-below-zero: the last card at exactly zero points waits for more progress
    log_event(S, log, L.EV_STAGE_DONE, stage, 0, 0)
    if last:
        return True
    S[L.QUEST_STAGE] = stage + 1
    S[L.QUEST_PROGRESS] = 0
    return False


@kernel
def apply_questing(S, act, err, log):
    willpower = 0
    committed = 0
    available = ready(S)
    for c in range(N_CARDS):
        if act[c] == L.NO_CHOICE:
            continue
        if not (available >> c) & 1:
            return fail(err, L.ERR_NOT_READY, c, 0, 0)
        exhaust(S, c)
        committed += 1
        named = act[c] if S[L.RULES] & QUEST_BY_NAME and act[c] > 1 else 1  # quest-by-name: named act[c] times
        willpower += named * WILLPOWER[c]
        log_event(S, log, L.EV_COMMIT, c, named * WILLPOWER[c], 0)
    if committed or not S[L.RULES] & IDLE_QUEST:  # idle-quest: the published learner's empty questing resolved nothing
        top = S[L.ENCOUNTER_TOP]
        if top < S[L.ENCOUNTER_LEN]:
            card = S[L.ENCOUNTER_DECK_ORDER + top]
            S[L.ENCOUNTER_TOP] = top + 1
            move(S, card, L.STAGING)
            log_event(S, log, L.EV_REVEAL, card, 0, 0)
        else:
            log_event(S, log, L.EV_REVEAL, -1, 0, 0)
        threat = staging_threat(S)
        log_event(S, log, L.EV_QUEST_RESULT, willpower, threat, 0)
        result = willpower - threat
        if result > 0:
            if add_progress(S, result, log) and not S[L.RULES] & QUEST_WIN_UNSEEN:  # unseen-win: the copy plays on
                if not S[L.RULES] & PLAYOUT_ROUND_AFTER_WIN:
                    end_game(S, L.WIN, log)
                elif heroes(S) == 0:  # round-after-win: no hero is left for the refresh, which tests the loss first
                    end_game(S, L.LOST_BY_HEROES, log)
                else:  # round-after-win: the win waits for the refresh
                    S[L.OUTCOME] = L.WIN
                    S[L.PHASE] = L.TRAVEL
                return L.OK
        elif result < 0:  # noqa: SIM102  (the rulebook's steps, one condition each)
            if raise_threat(S, -result, log):
                return L.OK
    if S[L.RULES]:  # late-destroy and refresh-at-fifty: a game kept past its loss ends at this questing
        if heroes(S) == 0:
            end_game(S, L.LOST_BY_HEROES, log)
            return L.OK
        if S[L.THREAT_LEVEL] >= LOSING_THREAT:
            end_game(S, L.LOST_BY_THREAT, log)
            return L.OK
    S[L.PHASE] = L.TRAVEL
    return L.OK


@kernel
def apply_travel(S, act, err, log):
    chosen = -1
    staged = S[L.ZONE_MASKS + L.STAGING] & LOCATION_BITS
    for c in range(N_CARDS):
        if act[c] == L.NO_CHOICE:
            continue
        if not (staged >> c) & 1:
            return fail(err, L.ERR_NOT_STAGED_LOCATION, c, 0, 0)
        if chosen >= 0:
            return fail(err, L.ERR_SEVERAL_LOCATIONS, chosen, c, 0)
        chosen = c
    if chosen >= 0:
        move(S, chosen, L.ACTIVE_LOCATION)
        S[L.LOCATION_PROGRESS] = 0
        log_event(S, log, L.EV_TRAVEL, chosen, 0, 0)
    S[L.PHASE] = L.ENCOUNTER_PHASE
    return L.OK


@inline_kernel
def check_defense(S, act, err):
    """The checks of a defense action that do not depend on the order of resolution."""
    engaged = S[L.ZONE_MASKS + L.ENGAGED]
    available = ready(S)
    defending = np.int64(0)
    for c in range(N_CARDS):
        if act[c] != L.NO_CHOICE and not (engaged >> c) & 1:
            return fail(err, L.ERR_NOT_ENGAGED, c, 0, 0)
    m = engaged
    while m:
        e = lowest(m)
        m &= m - 1
        target = act[e]
        if target == L.NO_CHOICE:
            return fail(err, L.ERR_ENEMY_UNASSIGNED, e, 0, 0)
        if target >= L.UNDEFENDED:
            hero = target - L.UNDEFENDED
            if hero >= N_CARDS or KIND[hero] != HERO:
                return fail(err, L.ERR_NOT_HERO, hero, e, 0)
            continue
        if target < 0 or target >= ENEMY_FIRST:
            return fail(err, L.ERR_NOT_CHARACTER, target, e, 0)
        if not (available >> target) & 1:
            return fail(err, L.ERR_NOT_READY, target, 0, 0)
        if (defending >> target) & 1:
            first = engaged
            while act[lowest(first)] != target:
                first &= first - 1
            return fail(err, L.ERR_DEFENDS_TWICE, target, lowest(first), e)
        defending |= np.int64(1) << target
    return L.OK


@inline_kernel
def names_no_one(act):
    for c in range(N_CARDS):
        if act[c] != L.NO_CHOICE:
            return False
    return True


@kernel
def apply_defense(S, act, err, log):
    if S[L.RULES] & UNOPPOSED and names_no_one(act):
        S[L.PHASE] = L.REFRESH_PHASE
        return L.OK
    if check_defense(S, act, err) != L.OK:
        return err[0]
    m = S[L.ZONE_MASKS + L.ENGAGED]
    while m:
        e = lowest(m)
        m &= m - 1
        target = act[e]
        if target >= L.UNDEFENDED:
            if not in_zone(S, target - L.UNDEFENDED, L.IN_PLAY):
                return fail(err, L.ERR_HERO_DESTROYED, target - L.UNDEFENDED, e, 0)
        elif not in_zone(S, target, L.IN_PLAY):
            return fail(err, L.ERR_DEFENDER_DESTROYED, target, e, 0)
        if defend(S, e, target, log):
            return L.OK
    S[L.PHASE] = L.ATTACK
    return L.OK


@kernel
def apply_attack(S, act, err, log):
    available = ready(S)
    engaged = S[L.ZONE_MASKS + L.ENGAGED]
    for c in range(N_CARDS):
        target = act[c]
        if target == L.NO_CHOICE:
            continue
        if not (available >> c) & 1:
            return fail(err, L.ERR_NOT_READY, c, 0, 0)
        if target < 0 or target >= N_CARDS or not (engaged >> target) & 1:
            return fail(err, L.ERR_NOT_ENGAGED, target, 0, 0)
    for c in range(ENEMY_FIRST):
        target = act[c]
        if target == L.NO_CHOICE:
            continue
        if not in_zone(S, target, L.ENGAGED):
            return fail(err, L.ERR_TARGET_DESTROYED, target, c, 0)
        strike(S, c, target, log)
    S[L.PHASE] = L.REFRESH_PHASE
    return L.OK


@inline_kernel
def apply_decision(S, act, err, log):
    """Apply the pending decision's action vector without advancing the game."""
    err[0] = L.OK
    phase = S[L.PHASE]
    if phase == L.PLANNING:
        return apply_planning(S, act, err, log)
    if phase == L.QUESTING:
        return apply_questing(S, act, err, log)
    if phase == L.TRAVEL:
        return apply_travel(S, act, err, log)
    if phase == L.DEFENSE:
        return apply_defense(S, act, err, log)
    if phase == L.ATTACK:
        return apply_attack(S, act, err, log)
    return fail(err, L.ERR_NOTHING_TO_DECIDE, phase, 0, 0)


@kernel
def apply_action(S, act, err, log):
    """Apply the pending decision, then run the game to its next decision."""
    code = apply_decision(S, act, err, log)
    if code == L.OK:
        advance(S, log)
    return code


@inline_kernel
def forced_defense(S, log):
    """The only legal defense when no character is ready and one hero is left:
    every attack goes undefended to that hero."""
    hero = lowest(heroes(S))
    m = S[L.ZONE_MASKS + L.ENGAGED]
    while m:
        e = lowest(m)
        m &= m - 1
        if defend(S, e, L.UNDEFENDED + hero, log):
            return
    S[L.PHASE] = L.ATTACK


@inline_kernel
def is_dead(S, card):
    return S[L.DAMAGE + card] >= HITPOINTS[card]


@inline_kernel
def leaves_play(S, card, log):
    """A card the published refresh removes: destroyed, or a Gandalf whose round is over."""
    if is_dead(S, card):
        destroy_if_dead(S, card, log)
    else:
        S[L.DAMAGE + card] = 0
        move(S, card, L.PLAYER_DISCARD)
        log_event(S, log, L.EV_GANDALF_LEAVES, card, 0, 0)


@kernel
def published_refresh(S, log):
    """The refresh under the published code's defects (``lotr_sim.defects``): threat +1 (refresh-at-fifty: lost
    above 50 only), then destroyed heroes, then destroyed allies and Gandalfs leave; under list-skip each list is
    iterated while removing from it, so the card after each removed one is not looked at; a win that waited for
    the refresh (round-after-win) counts first. Returns True when the game is over."""
    if S[L.OUTCOME] == L.WIN:
        end_game(S, L.WIN, log)
        return True
    if S[L.RULES] & REFRESH_AT_FIFTY and S[L.THREAT_LEVEL] + 1 == LOSING_THREAT:
        S[L.THREAT_LEVEL] += 1
        log_event(S, log, L.EV_THREAT, 1, S[L.THREAT_LEVEL], 0)
    elif raise_threat(S, 1, log):
        return True
    skip = S[L.RULES] & LIST_SKIP != 0
    skipping = False
    for h in range(ALLY_FIRST):
        if not in_zone(S, h, L.IN_PLAY):
            continue
        if skipping:
            skipping = False
        elif is_dead(S, h):
            leaves_play(S, h, log)
            skipping = skip
    allies = S[L.ZONE_MASKS + L.IN_PLAY] & ALLY_BITS
    skipping = False
    for rank in range(L.PLAYER_DECK_SIZE):
        m = allies
        while m:
            a = lowest(m)
            m &= m - 1
            if skip and (S[L.ALLY_ORDER] >> (4 * (a - ALLY_FIRST))) & 15 != rank:
                continue
            allies &= ~(np.int64(1) << a)
            if skipping:
                skipping = False
            elif is_dead(S, a) or (GANDALF_BITS >> a) & 1:
                leaves_play(S, a, log)
                skipping = skip
            if skip:
                break
    return False


@kernel
def keep_one_per_name(S, zone, to):
    """one-per-name: of the cards of one name in ``zone``, the lowest id stays with the damage and exhaustion of
    the highest; the others go to ``to``."""
    m = S[L.ZONE_MASKS + zone]
    keep, name = -1, -1
    while m:
        c = lowest(m)
        m &= m - 1
        if NAME_FIRST[c] != name:
            keep, name = c, NAME_FIRST[c]
            continue
        S[L.DAMAGE + keep] = S[L.DAMAGE + c]
        S[L.EXHAUSTED_MASK] = (S[L.EXHAUSTED_MASK] & ~(np.int64(1) << keep)) | (
            ((S[L.EXHAUSTED_MASK] >> c) & 1) << keep)
        S[L.DAMAGE + c] = 0
        S[L.EXHAUSTED_MASK] &= ~(np.int64(1) << c)
        move(S, c, to)


@inline_kernel
def between_stages(S):
    if S[L.RULES] & ONE_PER_NAME:
        keep_one_per_name(S, L.IN_PLAY, L.PLAYER_DISCARD)
        keep_one_per_name(S, L.ENGAGED, L.ENCOUNTER_DISCARD)


@kernel
def advance(S, log):
    """Run rule-based phases until a decision with a choice, or the game's end."""
    while True:
        phase = S[L.PHASE]
        if phase == L.RESOURCE_PHASE:
            S[L.ROUND] += 1
            log_event(S, log, L.EV_ROUND, S[L.THREAT_LEVEL], 0, 0)
            gain = 2 if S[L.RULES] & DOUBLE_RESOURCES and S[L.ROUND] > 1 else 1
            for h in range(ALLY_FIRST):
                if in_zone(S, h, L.IN_PLAY):
                    S[L.RESOURCES + h] += gain
            log_event(S, log, L.EV_RESOURCES, total_resources(S), 0, 0)
            for _ in range(gain):
                draw_card(S, log)
            S[L.PHASE] = L.PLANNING
        elif phase == L.PLANNING:
            between_stages(S)
            if can_buy_any(S):
                return
            S[L.PHASE] = L.QUESTING
        elif phase == L.QUESTING:
            between_stages(S)
            return
        elif phase == L.TRAVEL:
            between_stages(S)
            if S[L.ZONE_MASKS + L.ACTIVE_LOCATION] == 0 and S[L.ZONE_MASKS + L.STAGING] & LOCATION_BITS:
                return
            S[L.PHASE] = L.ENCOUNTER_PHASE
        elif phase == L.ENCOUNTER_PHASE:
            m = S[L.ZONE_MASKS + L.STAGING] & ENEMY_BITS
            while m:
                c = lowest(m)
                m &= m - 1
                if ENGAGEMENT[c] <= S[L.THREAT_LEVEL]:
                    move(S, c, L.ENGAGED)
                    log_event(S, log, L.EV_ENGAGE, c, 0, 0)
            S[L.PHASE] = L.DEFENSE
        elif phase == L.DEFENSE:
            if S[L.ZONE_MASKS + L.ENGAGED] == 0:
                S[L.PHASE] = L.ATTACK
            elif ready(S) or popcount(heroes(S)) > 1 or S[L.RULES] & UNOPPOSED:
                return  # under unopposed the published search decides even a defense with nothing ready
            else:
                forced_defense(S, log)
        elif phase == L.ATTACK:
            if S[L.ZONE_MASKS + L.ENGAGED] and ready(S):
                return
            S[L.PHASE] = L.REFRESH_PHASE
        elif phase == L.REFRESH_PHASE:
            if S[L.RULES]:
                if published_refresh(S, log):
                    continue
            else:
                if raise_threat(S, 1, log):
                    continue
                m = S[L.ZONE_MASKS + L.IN_PLAY] & GANDALF_BITS
                while m:
                    g = lowest(m)
                    m &= m - 1
                    S[L.DAMAGE + g] = 0
                    move(S, g, L.PLAYER_DISCARD)
                    log_event(S, log, L.EV_GANDALF_LEAVES, g, 0, 0)
            S[L.EXHAUSTED_MASK] = 0
            S[L.PHASE] = L.RESOURCE_PHASE
        else:
            return
