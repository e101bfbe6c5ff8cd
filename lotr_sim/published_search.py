"""``published-mcts``: the thesis's MCTS as its published code ran it (kondziug/LOTR_AI, ``vanilla_mcts``), an
ORACLE (docs/lotr-published-rules.md, "The published search").

Facts of the published search that it plays, at a planning, questing or defense decision:

- it branches from copies of the real game, deck orders included, and its playouts play those copies on: it
  knows both deck orders (an ORACLE, never an honest agent);
- its children: planning, buy nothing or one card (one child per card name affordable; with action reduction
  only nothing or Gandalf when he is in hand and more than 4 resources are there); questing, every subset of
  the characters of 1 to n - 1 cards (with reduction, only those whose willpower exceeds the staging threat
  + 2; none: commit nobody; under ``quest-by-name`` each character named is the first of its name in play, as
  often as named); defense, every subset of the characters (exhausted ones included; with reduction, none
  holding an exhausted ally) as large as the engaged enemies, each enemy then given a defender
  drawn from the subset (under ``by-name``, the first character of its name; one already exhausted: the attack
  goes undefended to a random hero), or, with no such subset, a defense that names no one (the ``unopposed``
  defect; without it, the random agent's defense);
- each child rolls the rest of its round once when it is made and keeps it: a questing child its random travel,
  a defense child its random attack. The real game continues from the chosen child: ``choose`` returns the
  decision, and the travel or attack that child rolled is played when that decision comes (``PLANS``; at a
  travel or attack with no plan, the random agent's choice; under ``second-travel`` a travel rolled to no
  location is not kept, so the real game and each playout roll it again, as the published code did);
- the search: the first iteration plays ``ppn`` playouts from the root itself, each further iteration from a
  node of the published tree (``tree = "deep"``): from the root, unvisited children first (in a shuffled order),
  else the child with the best UCT value, descending until an unvisited node or a leaf; a node is expanded at its
  first visit (its children made, each with the travel or attack it rolls) and its playouts then played, until
  ``budget`` playouts are spent; a node's value is its wins summed over its playouts, divided by its visits (one
  visit per ``ppn`` playouts), UCT = value + c sqrt(2 ln N / n) with c = 1 and N the parent's visits, and the
  answer is the root's visited child with the best UCT value; under ``stale-flags`` a node's first playout is
  decided by the outcome its own children reached, under ``round-after-win`` each playout plays out the round of
  a questing win, under ``unseen-win`` a questing child that completes the quest plays on (``make_child``'s
  ``hide_win``).

``tree = "one-level"`` plays a root child's further visits from the child again (the published code cut so
gives the questing and defense searches' rows as the full tree does, not the planning search's:
docs/lotr-published-rules.md). Not played: a node whose travel is still to roll (``second-travel``) or whose
game ended is a leaf, where the published code expanded it; a defense with no enemy engaged is no node of its
own (the published tree held one child there).
"""

from __future__ import annotations

import numpy as np

from gamecore.default_kernels import copy
from gamecore.jit import allocating, kernel
from gamecore.rng import below, mix64
from lotr_sim import layout as L
from lotr_sim.candidates import willpower_of
from lotr_sim.cards import ALLY_FIRST, COST, N_CARDS, NAME_FIRST, STAGE_QUEST_POINTS
from lotr_sim.defects import (
    BY_NAME,
    DOUBLE_RESOURCES,
    LIST_SKIP,
    PLAYOUT_ROUND_AFTER_WIN,
    QUEST_BY_NAME,
    QUEST_WIN_UNSEEN,
    ROUND_AFTER_WIN,
    SECOND_TRAVEL,
    STALE_FLAGS,
    UNOPPOSED,
    UNSEEN_WIN,
)
from lotr_sim.playout import play_out
from lotr_sim.policies import RANDOM, fill_after_loss, policy_action
from lotr_sim.rules import (
    ALLY_BITS,
    CHARACTER_BITS,
    GANDALF_BITS,
    HERO_BITS,
    apply_action,
    defend,
    determinize,
    heroes,
    lowest,
    names_no_one,
    nth_card,
    popcount,
    ready,
    staging_threat,
    total_resources,
)

MAX_CHARACTERS = 16  # subsets are enumerated over at most this many characters


@kernel
def planning_children(S, reduction, picks):
    """The published planning children into ``picks`` (a card id, -1 for none); returns their number."""
    picks[0] = -1
    hand, avail = S[L.ZONE_MASKS + L.HAND], total_resources(S)
    if reduction and hand & GANDALF_BITS and avail > 4:
        picks[1] = lowest(hand & GANDALF_BITS)
        return 2
    n, seen, m = 1, np.int64(0), hand
    while m:
        c = lowest(m)
        m &= m - 1
        if not (seen >> NAME_FIRST[c]) & 1 and COST[c] <= avail:
            seen |= np.int64(1) << NAME_FIRST[c]
            picks[n] = c
            n += 1
    return n


@kernel
def subset_of(cards, bits):
    """The cards of ``cards`` whose rank (in id order) is set in ``bits``."""
    chosen, rank = np.int64(0), 0
    while cards:
        c = lowest(cards)
        cards &= cards - 1
        if (bits >> rank) & 1:
            chosen |= np.int64(1) << c
        rank += 1
    return chosen


@kernel
def questing_children(S, reduction, masks):
    """The published questing children (committed characters) into ``masks``; returns their number."""
    characters = S[L.ZONE_MASKS + L.IN_PLAY] & CHARACTER_BITS
    n = min(popcount(characters), MAX_CHARACTERS)
    needed = staging_threat(S) + 2
    count = 0
    for bits in range(1, (1 << n) - 1):
        chosen = subset_of(characters, bits)
        if not reduction or willpower_of(chosen) > needed:
            masks[count] = chosen
            count += 1
    if count == 0:
        masks[0] = 0
        count = 1
    return count


@kernel
def defense_children(S, reduction, masks):
    """The published defense children (defender subsets) into ``masks``; returns their number, 0 when none."""
    characters = S[L.ZONE_MASKS + L.IN_PLAY] & CHARACTER_BITS
    exhausted_allies = characters & ~HERO_BITS & S[L.EXHAUSTED_MASK]
    n = min(popcount(characters), MAX_CHARACTERS)
    k = popcount(S[L.ZONE_MASKS + L.ENGAGED])
    count = 0
    for bits in range(1, 1 << n):
        if popcount(bits) != k:
            continue
        chosen = subset_of(characters, bits)
        if not reduction or not chosen & exhausted_allies:
            masks[count] = chosen
            count += 1
    return count


@kernel
def children_of(S, reductions, masks):
    """The root's children into ``masks`` (planning: card ids, -1 none; else character masks; a defense with
    no subset: one child, -1); returns their number."""
    phase = S[L.PHASE]
    if phase == L.PLANNING:
        return planning_children(S, reductions[0], masks)
    if phase == L.QUESTING:
        return questing_children(S, reductions[1], masks)
    count = defense_children(S, reductions[2], masks)
    if count == 0:
        masks[0] = -1
        count = 1
    return count


@kernel
def first_of_name(S, c):
    """The first character in play with ``c``'s name in the published list (heroes, then allies in purchase
    order under ``list-skip``, else in id order): whom the published code's ``findCardInPlay`` returns."""
    if c < ALLY_FIRST:
        return c
    first, first_rank = c, np.int64(1) << 62
    m = S[L.ZONE_MASKS + L.IN_PLAY] & ALLY_BITS
    while m:
        a = lowest(m)
        m &= m - 1
        if NAME_FIRST[a] != NAME_FIRST[c]:
            continue
        rank = (S[L.ALLY_ORDER] >> (4 * (a - ALLY_FIRST))) & 15 if S[L.RULES] & LIST_SKIP else np.int64(a)
        if rank < first_rank:
            first, first_rank = a, rank
    return first


@kernel
def subset_defense(S, subset, rs, act, scratch):
    """The published defense of ``subset``: each enemy (id order) a defender drawn from it (under ``by-name``,
    the first character of the drawn one's name), an exhausted one leaving the attack undefended on a random
    hero; resolved on ``scratch``."""
    copy(scratch, S)
    remaining = S[L.ZONE_MASKS + L.ENGAGED]
    while remaining:
        e = lowest(remaining)
        remaining &= remaining - 1
        d = nth_card(subset, below(rs, popcount(subset)))
        if S[L.RULES] & BY_NAME:
            d = first_of_name(S, d)
        if (ready(scratch) >> d) & 1:
            target = d
        else:
            alive = heroes(scratch)
            target = L.UNDEFENDED + nth_card(alive, below(rs, popcount(alive)))
        act[e] = target
        if defend(scratch, e, target, None):
            fill_after_loss(act, remaining, target)
            return


@kernel
def decision_of(S, child, rs, act, scratch):
    """The root decision of child ``child`` (``children_of``'s value) into ``act``."""
    act[:] = L.NO_CHOICE
    phase = S[L.PHASE]
    if phase == L.PLANNING:
        if child >= 0:
            act[child] = 1
    elif phase == L.QUESTING:
        m = child
        while m:
            c = lowest(m)
            m &= m - 1
            if S[L.RULES] & QUEST_BY_NAME:  # each name the first of its name, as often as named
                c = first_of_name(S, c)
                act[c] = 1 if act[c] == L.NO_CHOICE else act[c] + 1
            else:
                act[c] = 1
    elif child >= 0:
        subset_defense(S, child, rs, act, scratch)
    elif not S[L.RULES] & UNOPPOSED:
        policy_action(S, RANDOM, rs, act, scratch)


@kernel
def make_child(S, child, rs, C, act, plan, mid, err, scratch, hide_win=False):
    """Child ``child`` of ``S`` into ``C``: the decision, then the travel or attack it rolls, kept. ``act`` gets
    the decision; returns True when a rolled travel or attack is in ``plan``, to be played at ``mid``.
    ``hide_win`` (unseen-win): a questing that completes the quest does not end the child's game."""
    decision_of(S, child, rs, act, scratch)
    copy(C, S)
    if hide_win:
        C[L.RULES] |= QUEST_WIN_UNSEEN
    code = apply_action(C, act, err, None)
    C[L.RULES] &= ~QUEST_WIN_UNSEEN
    if code != L.OK:
        raise RuntimeError("published-mcts built an illegal decision")
    if C[L.PHASE] != L.TRAVEL and C[L.PHASE] != L.ATTACK:
        return False
    copy(mid, C)
    policy_action(C, RANDOM, rs, plan, scratch)
    if C[L.RULES] & SECOND_TRAVEL and C[L.PHASE] == L.TRAVEL and names_no_one(plan):
        return False
    if apply_action(C, plan, err, None) != L.OK:
        raise RuntimeError("the random policy chose an illegal action")
    return True


@kernel
def quest_done(G):
    """Whether ``G``'s questing completed the last quest stage, seen or not (``unseen-win``)."""
    stage = G[L.QUEST_STAGE]
    return stage + 1 >= G[L.QUEST_STAGE_COUNT] and G[L.QUEST_PROGRESS] >= STAGE_QUEST_POINTS[stage]


@kernel
def flag_of(G, questing):
    """The global flags a child ``G`` leaves: its loss, else its win (a questing child's completed quest too)."""
    if G[L.OUTCOME] == L.LOST_BY_THREAT or G[L.OUTCOME] == L.LOST_BY_HEROES:
        return G[L.OUTCOME]
    if G[L.OUTCOME] == L.WIN or (questing and quest_done(G)):
        return L.WIN
    return L.ONGOING


@kernel
def merged_flag(flag, seen):
    """The flags after one more child left ``seen``: a loss stays, else a loss or win now seen."""
    if flag == L.LOST_BY_THREAT or flag == L.LOST_BY_HEROES or seen == L.ONGOING:
        return flag
    return seen


@kernel
def expansion_flag(C, reductions, rs, masks, G, act, plan, mid, err, scratch):
    """The outcome that the published search's expansion of ``C`` leaves in the code's global win and loss flags,
    which decides the playout after it: a loss when one of ``C``'s children (its questing or defense, each with
    the travel or attack it rolls) loses, else a win when one wins, else ONGOING (a planning sets neither)."""
    if C[L.PHASE] != L.QUESTING and C[L.PHASE] != L.DEFENSE:
        return L.ONGOING
    flag = L.ONGOING
    for k in range(children_of(C, reductions, masks)):
        make_child(C, masks[k], rs, G, act, plan, mid, err, scratch)
        flag = merged_flag(flag, flag_of(G, False))
        if flag == L.LOST_BY_THREAT or flag == L.LOST_BY_HEROES:
            return flag
    return flag


@kernel
def wins_of(C, ppn, budget_left, flag, policies, rs, work, act, err, scratch):
    """Up to ``ppn`` playouts from ``C`` while the budget lasts (the published count, which may spend one
    more), the first one's outcome ``flag`` unless ONGOING (a stale flag); returns (wins, budget left)."""
    wins = 0
    for i in range(ppn):
        if budget_left < 0:
            break
        budget_left -= 1
        if i == 0 and flag != L.ONGOING:
            outcome = flag
        else:
            copy(work, C)
            work[L.RULES] &= ~DOUBLE_RESOURCES
            if work[L.RULES] & ROUND_AFTER_WIN:
                work[L.RULES] |= PLAYOUT_ROUND_AFTER_WIN
            outcome = play_out(work, policies, rs, None, act, err, scratch)
        if outcome == L.WIN:
            wins += 1
    return wins, budget_left


@kernel
def uct(utility, visits, root_visits, c):
    return utility / visits + c * np.sqrt(2.0 * np.log(root_visits) / visits)


@allocating
def grown(a, size):
    """``a`` (nodes along its first axis) with room for ``size`` nodes, its rows kept."""
    if size <= a.shape[0]:
        return a
    b = np.empty((max(size, 2 * a.shape[0]),) + a.shape[1:], a.dtype)
    b[: a.shape[0]] = a
    return b


@allocating
def published_decide(S, budget, ppn, c, playout, reductions, redraw, deep, seed, act, plan, mid):
    """The published search's decision at ``S`` (planning, questing or defense) into ``act``; returns True when
    the chosen child rolled a travel or attack, then in ``plan``, to be played at the state ``mid``. ``redraw``:
    search a copy whose deck orders are drawn again (the 2021 code), not the true state (2022). ``deep``: the
    published tree, each node expanded at its first visit and descended into at its next ones; else one level
    (a root child's further visits play from it again).

    Nodes ``0 .. n - 1`` are the root's children (made at their first visit, with the decision and the travel or
    attack they roll); a node expanded under ``deep`` holds its children at ``first[k] ..`` (``count[k]`` of them,
    -1 while unexpanded, 0 for a leaf: an ended game or a travel still to roll), in ``order`` shuffled at each
    pass as the published select shuffled them."""
    rs = np.empty(1, np.uint64)
    rs[0] = mix64(seed)
    real = S
    if redraw:
        S = S.copy()
        determinize(S, rs)
    masks = np.empty(1 << MAX_CHARACTERS, np.int64)
    n = children_of(S, reductions, masks)
    root_masks = masks[:n].copy()
    states = np.empty((n, L.STATE_SIZE), np.int64)
    parent, first, count = np.full(n, -1, np.int64), np.zeros(n, np.int64), np.full(n, -1, np.int64)
    visits, utility, order = np.zeros(n, np.int64), np.zeros(n, np.float64), np.arange(n)
    acts = np.empty((n, N_CARDS), np.int64)
    plans = np.empty((n, N_CARDS), np.int64)
    mids = np.empty((n, L.STATE_SIZE), np.int64)
    planned = np.zeros(n, np.bool_)
    used = n
    policies = np.full(5, playout, np.int64)
    work, scratch = np.empty(L.STATE_SIZE, np.int64), np.empty(L.STATE_SIZE, np.int64)
    step, err = np.empty(N_CARDS, np.int64), np.zeros(4, np.int64)
    _, budget_left = wins_of(S, ppn, budget, L.ONGOING, policies, rs, work, step, err, scratch)  # the root's own
    stale = S[L.RULES] & STALE_FLAGS != 0
    hide_win = S[L.RULES] & UNSEEN_WIN != 0
    grand_masks = np.empty(1 << MAX_CHARACTERS if stale and not deep else 1, np.int64)  # expansion_flag's
    grand, grand_mid = np.empty(L.STATE_SIZE, np.int64), np.empty(L.STATE_SIZE, np.int64)
    grand_act, grand_plan = np.empty(N_CARDS, np.int64), np.empty(N_CARDS, np.int64)
    root_visits = 1
    while budget_left > 0:
        node, lo, size, parent_visits = -1, 0, n, root_visits
        while True:  # select: unvisited children first, in a shuffled order, then the best UCT value
            for i in range(size - 1, 0, -1):
                j = below(rs, i + 1)
                order[lo + i], order[lo + j] = order[lo + j], order[lo + i]
            pick, best = -1, 0.0
            for k in order[lo: lo + size]:
                if visits[k] == 0:
                    pick = k
                    break
                score = uct(utility[k], visits[k], parent_visits, c)
                if score > best:
                    pick, best = k, score
            node = pick if pick >= 0 else order[lo]  # c = 0 and no win yet: the first in the shuffled order
            if visits[node] == 0 or not deep or count[node] <= 0:
                break
            lo, size, parent_visits = first[node], count[node], visits[node]
        flag = L.ONGOING
        if visits[node] == 0:
            if node < n:
                planned[node] = make_child(S, root_masks[node], rs, states[node], acts[node], plans[node],
                                           mids[node], err, scratch, hide_win)
            C = states[node]
            if deep:
                count[node] = 0
                phase = C[L.PHASE]
                if C[L.OUTCOME] == L.ONGOING and (phase == L.PLANNING or phase == L.QUESTING or phase == L.DEFENSE):
                    m = children_of(C, reductions, masks)
                    states, parent, first = grown(states, used + m), grown(parent, used + m), grown(first, used + m)
                    count, visits = grown(count, used + m), grown(visits, used + m)
                    utility, order = grown(utility, used + m), grown(order, used + m)
                    first[node], count[node] = used, m
                    for k in range(used, used + m):
                        make_child(C, masks[k - used], rs, states[k], grand_act, grand_plan, grand_mid, err,
                                   scratch, hide_win)
                        parent[k], count[k], visits[k], utility[k], order[k] = node, -1, 0, 0.0, k
                        if stale:
                            flag = merged_flag(flag, flag_of(states[k], phase == L.QUESTING))
                    used += m
            elif stale:
                flag = expansion_flag(C, reductions, rs, grand_masks, grand, grand_act, grand_plan, grand_mid, err,
                                      scratch)
        wins, budget_left = wins_of(states[node], ppn, budget_left, flag, policies, rs, work, step, err, scratch)
        k = node
        while k >= 0:  # backpropagate
            visits[k] += 1
            utility[k] += wins
            k = parent[k]
        root_visits += 1
    choice, best = -1, 0.0
    for k in order[:n]:
        if visits[k] > 0:
            score = uct(utility[k], visits[k], root_visits, c)
            if choice < 0 or score > best:
                choice, best = k, score
    if choice < 0:  # a budget spent at the root alone: the first child
        choice = 0
        planned[0] = make_child(S, root_masks[0], rs, states[0], acts[0], plans[0], mids[0], err, scratch)
    act[:] = acts[choice]
    plan[:] = plans[choice]
    if not redraw:
        mid[:] = mids[choice]
        return planned[choice]
    copy(mid, real)  # the real state the rolled travel or attack is played at
    if apply_action(mid, act, err, None) != L.OK:
        raise RuntimeError("published-mcts built an illegal decision")
    if not planned[choice] or (mid[L.PHASE] != L.TRAVEL and mid[L.PHASE] != L.ATTACK):
        return False
    copy(work, mid)  # a travel rolled after another reveal may name a location the real one lacks
    return apply_action(work, plan, err, None) == L.OK


@allocating
def random_choice(S, seed, act):
    """The random agent's choice at ``S`` (a travel or attack with no plan)."""
    rs = np.empty(1, np.uint64)
    rs[0] = mix64(seed)
    scratch = np.empty(L.STATE_SIZE, np.int64)
    policy_action(S, RANDOM, rs, act, scratch)


REDRAWN = "published-mcts-2021"  # the agent that searches redrawn decks, as the published code did until 2022
PLANS: dict[bytes, np.ndarray] = {}  # the travel or attack the chosen child rolled, by the state it is played at
MAX_PLANS = 100_000  # plans of games that ended first are dropped past this many


class PublishedMCTS:
    """``choose``: the published search at planning, questing and defense; at travel and attack, the choice the
    chosen child rolled (``PLANS``), or the random agent's."""

    def __init__(self, role: str, spec):
        p = spec.as_dict()
        self.budget, self.ppn, self.c = int(p["budget"]), int(p["ppn"]), float(p["c"])
        self.playout = spec.game.policies.index(p["playout"])
        self.reductions = np.array([p["reduction_planning"], p["reduction_questing"], p["reduction_defense"]],
                                   np.int64)
        self.redraw = spec.agent == REDRAWN
        self.deep = p["tree"] == "deep"

    def choose(self, states: np.ndarray, uniforms: np.ndarray, mode: str):
        acts = np.empty((len(states), N_CARDS), np.int64)
        plan, mid = np.empty(N_CARDS, np.int64), np.empty(L.STATE_SIZE, np.int64)
        for i, S in enumerate(states):
            seed = np.uint64(int(uniforms[i, 0] * 2.0**53))
            if S[L.PHASE] in (L.TRAVEL, L.ATTACK):
                rolled = PLANS.pop(S.tobytes(), None)
                if rolled is None:
                    random_choice(S, seed, acts[i])
                else:
                    acts[i] = rolled
                continue
            if published_decide(S, self.budget, self.ppn, self.c, self.playout, self.reductions, self.redraw,
                                self.deep, seed, acts[i], plan, mid):
                if len(PLANS) >= MAX_PLANS:
                    PLANS.clear()
                PLANS[mid.tobytes()] = plan.copy()
        return acts, None


def make(role: str, spec) -> PublishedMCTS:
    return PublishedMCTS(role, spec)
