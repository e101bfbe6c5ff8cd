"""Love Letter's compiled rules (``gamecore.contract``): two-player classic Love Letter.

The state is one ``int64`` array (``layout``). The 16 cards are dealt from
the seed into ``ORDER``: ``ORDER[0]`` is set aside unseen, ``ORDER[1]`` and
``ORDER[2]`` are the players' first cards, the rest is the deck, drawn from
``TOP`` on. The player to move holds two cards (``HAND`` slots), the other
one. An action is ``(card, target, guess)``: the value played, the Prince's
target (``TARGET_OPPONENT`` or ``TARGET_SELF``) and the Guard's guess (2-8).

What each player knows of the other's card (``docs/loveletter-rules.md``):
``KNOWN[p]`` is the value p has seen (Priest, a Baron tie, King), until that
card leaves the hand; ``NOT_HELD[p]`` the values p's failed Guard guesses
ruled out, until the other's hand changes. ``determinize`` re-draws the
opponent's card, the set-aside card and the deck order from what the player
sees: his hand, every card played or discarded, and that knowledge. Each
player's last move is kept with what he saw when he made it (``MOVE``), for
a model of him to read his card from (``dp_playout.net_plausible``).

These rules hold the game's compiled interface but its learning interface
(``encoding``, which reads them: ``game`` joins it to them) and the search
plumbing gamecore's defaults give (``gamecore.default_kernels``).
"""

import numpy as np

from gamecore.jit import allocating, kernel
from gamecore.rng import below, mix64
from gamecore.two_player import (  # noqa: F401  (reward, role, to_move: the shared kernels, these rules whole alone)
    DRAW,
    NOBODY,
    TO_MOVE,
    WINNER,
    is_over,
    reward,
    role,
    to_move,
)
from loveletter_sim.dp_playout import NET_WORK, net_action, net_plausible  # noqa: F401  (the DP player as a model)
from loveletter_sim.layout import (
    ASIDE_TAKEN,
    BARON,
    COPIES,
    COUNTESS,
    DISCARDED,
    ENDING,
    GUARD,
    HAND,
    KING,
    KNOWN,
    MAID,
    MOVE,
    N_CARDS,
    N_VALUES,
    NOT_HELD,
    ORDER,
    PRIEST,
    PRINCE,
    PRINCESS,
    PROTECTED,
    SEEN,
    STATE_SIZE,
    TARGET_OPPONENT,
    TARGET_SELF,
    TOP,
    TURNS,
    VIEWER,
    card_of,
    fill,
    held,
    remember_move,
)

ACTION_SIZE = 3  # card, target, guess
N_RECORD = 3  # winner (or DRAW), turns played, ENDING
KNOCK_OUT, HIGHER_CARD, EQUAL_CARDS = 0, 1, 2
MAX_CANDIDATES = 16
OK = 0
ERR_NOT_IN_HAND, ERR_COUNTESS, ERR_TARGET, ERR_GUESS, ERR_OVER = 1, 2, 3, 4, 5
RANDOM, STRATEGIC = 0, 1  # the compiled policies (thesis 3.1.1 and 3.1.3)
OPENING = 0  # deal_game's options: player 0's first two cards at OPENING, OPENING + 1 (0: dealt at random)


@kernel
def give(S, player, card):
    """Put ``card`` in an empty slot of ``player``'s hand."""
    slot = HAND + 2 * player
    if S[slot] != 0:
        slot += 1
    S[slot] = card


@kernel
def take(S, player, card):
    """Remove one ``card`` from ``player``'s hand; False if he does not hold it."""
    for slot in range(HAND + 2 * player, HAND + 2 * player + 2):
        if S[slot] == card:
            S[slot] = 0
            return True
    return False


@kernel
def discard(S, player, card):
    S[SEEN + card] += 1
    S[DISCARDED + player] += card


@kernel
def forget(S, player):
    """``player``'s hand changed: the other player no longer knows anything of it, nor can he read it from
    ``player``'s last move."""
    S[KNOWN + 1 - player] = 0
    S[NOT_HELD + 1 - player] = 0
    S[MOVE + player] = 0


@allocating
def deal_game(S, seed, options):
    """Shuffle the 16 cards from ``seed`` and let player 0 draw his second card. ``options``: empty, or the
    two cards player 0 starts with (``OPENING``, 0 0 for none), the other 14 shuffled around them."""
    for i in range(STATE_SIZE):
        S[i] = 0
    fixed = options.shape[0] > OPENING and options[OPENING] != 0
    counts = COPIES.copy()
    if fixed:
        counts[options[OPENING]] -= 1
        counts[options[OPENING + 1]] -= 1
    cards = np.empty(N_CARDS, np.int64)
    n = 0
    for value in range(1, N_VALUES + 1):
        for _ in range(counts[value]):
            cards[n] = value
            n += 1
    rs = np.empty(1, np.uint64)
    rs[0] = mix64(seed)
    for i in range(n - 1, 0, -1):
        j = below(rs, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    k = 0
    for position in range(N_CARDS):
        if fixed and (position == 1 or position == 3):  # player 0's first card and his first draw
            S[ORDER + position] = options[OPENING] if position == 1 else options[OPENING + 1]
        else:
            S[ORDER + position] = cards[k]
            k += 1
    S[HAND] = S[ORDER + 1]
    S[HAND + 2] = S[ORDER + 2]
    S[TOP] = 3
    S[WINNER] = NOBODY
    S[VIEWER] = NOBODY
    start_turn(S, 0)


@kernel
def start_turn(S, player):
    S[TO_MOVE] = player
    S[PROTECTED + player] = 0
    give(S, player, S[ORDER + S[TOP]])
    S[TOP] += 1


@kernel
def draw_replacement(S, player):
    """A Prince's target draws a new card: from the deck, or the set-aside card when it is empty."""
    if S[TOP] < N_CARDS:
        give(S, player, S[ORDER + S[TOP]])
        S[TOP] += 1
    else:
        give(S, player, S[ORDER])
        S[ASIDE_TAKEN] = 1


@kernel
def record(S, out):
    out[0] = S[WINNER]
    out[1] = S[TURNS]
    out[2] = S[ENDING]


@kernel
def check(S, act):
    """OK if ``act`` is legal for the player to move, else the reason's code."""
    if is_over(S):
        return ERR_OVER
    me = S[TO_MOVE]
    card, target, guess = act[0], act[1], act[2]
    a, b = card_of(S, me, 0), card_of(S, me, 1)
    if card != a and card != b:
        return ERR_NOT_IN_HAND
    other = b if card == a else a
    if card != COUNTESS and other == COUNTESS and (card == PRINCE or card == KING):
        return ERR_COUNTESS
    protected = S[PROTECTED + 1 - me] != 0
    if card == PRINCE:
        if target != TARGET_SELF and (target != TARGET_OPPONENT or protected):
            return ERR_TARGET
    elif target != TARGET_OPPONENT:
        return ERR_TARGET
    if card == GUARD and not protected:
        if guess < 2 or guess > N_VALUES:
            return ERR_GUESS
    elif guess != 0:
        return ERR_GUESS
    return OK


@kernel
def lose(S, player):
    S[WINNER] = 1 - player


@kernel
def apply(S, act, err):
    """Play ``act`` for the player to move, then end the game or start the other's turn."""
    code = check(S, act)
    err[0] = code
    if code != OK:
        return code
    me, you = S[TO_MOVE], 1 - S[TO_MOVE]
    card, target, guess = act[0], act[1], act[2]
    remember_move(S, me, card, target, guess)
    take(S, me, card)
    discard(S, me, card)
    S[TURNS] += 1
    if S[KNOWN + you] == card:  # the card the other knew may be the one played
        S[KNOWN + you] = 0
    S[NOT_HELD + you] = 0
    kept, theirs = held(S, me), held(S, you)
    protected = S[PROTECTED + you] != 0
    if card == GUARD and not protected:
        if theirs == guess:
            lose(S, you)
        else:
            S[NOT_HELD + me] |= np.int64(1) << guess
    elif card == PRIEST and not protected:
        S[KNOWN + me] = theirs
    elif card == BARON and not protected:
        if kept < theirs:
            lose(S, me)
        elif theirs < kept:
            lose(S, you)
        else:
            S[KNOWN + me], S[KNOWN + you] = theirs, kept
    elif card == MAID:
        S[PROTECTED + me] = 1
    elif card == PRINCE:
        victim = me if target == TARGET_SELF else you
        dropped = held(S, victim)
        take(S, victim, dropped)
        discard(S, victim, dropped)
        forget(S, victim)
        if dropped == PRINCESS:
            lose(S, victim)
        else:
            draw_replacement(S, victim)
    elif card == KING and not protected:
        take(S, me, kept)
        take(S, you, theirs)
        give(S, me, theirs)
        give(S, you, kept)
        S[KNOWN + me], S[KNOWN + you] = kept, theirs
        S[NOT_HELD + me], S[NOT_HELD + you] = 0, 0
        S[MOVE + me], S[MOVE + you] = 0, 0
    elif card == PRINCESS:
        lose(S, me)
    if not is_over(S):
        if S[TOP] >= N_CARDS:
            showdown(S)
        else:
            start_turn(S, you)
    return OK


@kernel
def showdown(S):
    """The deck is empty: the higher card wins, then the higher total discarded, else a draw."""
    mine, yours = held(S, 0), held(S, 1)
    S[ENDING] = HIGHER_CARD if mine != yours else EQUAL_CARDS
    if mine != yours:
        S[WINNER] = 0 if mine > yours else 1
    elif S[DISCARDED] != S[DISCARDED + 1]:
        S[WINNER] = 0 if S[DISCARDED] > S[DISCARDED + 1] else 1
    else:
        S[WINNER] = DRAW


@kernel
def unseen_counts(S, player, counts):
    """Per value, the copies ``player`` has not seen: the other's card, the set-aside card and the deck."""
    for value in range(1, N_VALUES + 1):
        counts[value] = COPIES[value] - S[SEEN + value]
    counts[0] = 0
    for slot in range(2):
        counts[card_of(S, player, slot)] -= 1
    counts[0] = 0


@kernel
def draw_from(counts, rs, ruled_out):
    """A value drawn in proportion to ``counts`` among those whose bit in ``ruled_out`` is clear."""
    allowed = 0
    for value in range(1, N_VALUES + 1):
        if not (ruled_out >> value) & 1:
            allowed += counts[value]
    pick = below(rs, allowed)
    for value in range(1, N_VALUES + 1):
        if not (ruled_out >> value) & 1:
            if pick < counts[value]:
                return value
            pick -= counts[value]
    return 0


@allocating
def determinize(S, player, rs):
    """Re-draw what ``player`` cannot see, uniformly among the deals consistent with what he knows: the
    other's card (his known card, else one not ruled out, in proportion to the unseen copies; in the other's
    first hand slot), the card the other has just drawn if it is his turn (the second slot), then the
    set-aside card and the deck order. The copy records ``player`` (``VIEWER``): a search's model of the
    opponent plays for the other one (``net_action``) and may reject the world (``net_plausible``)."""
    you = 1 - player
    S[VIEWER] = player
    counts = np.zeros(N_VALUES + 1, np.int64)
    unseen_counts(S, player, counts)
    two = card_of(S, you, 0) != 0 and card_of(S, you, 1) != 0
    S[HAND + 2 * you], S[HAND + 2 * you + 1] = 0, 0
    theirs = S[KNOWN + player] if S[KNOWN + player] != 0 else draw_from(counts, rs, S[NOT_HELD + player])
    counts[theirs] -= 1
    give(S, you, theirs)
    if two:
        drawn = draw_from(counts, rs, 0)
        counts[drawn] -= 1
        give(S, you, drawn)
    rest = np.empty(N_CARDS, np.int64)
    n = 0
    for value in range(1, N_VALUES + 1):
        for _ in range(counts[value]):
            rest[n] = value
            n += 1
    for i in range(n - 1, 0, -1):
        j = below(rs, i + 1)
        rest[i], rest[j] = rest[j], rest[i]
    k = 0
    if S[ASIDE_TAKEN] == 0:
        S[ORDER] = rest[0]
        k = 1
    for position in range(1, S[TOP]):  # cards drawn before: history, no longer in the order
        S[ORDER + position] = 0
    for position in range(S[TOP], N_CARDS):
        S[ORDER + position] = rest[k]
        k += 1


@kernel
def legal_actions(S, acts):
    """Fill ``acts`` (rows of card, target, guess) with the legal actions; return their number."""
    me = S[TO_MOVE]
    protected = S[PROTECTED + 1 - me] != 0
    n = 0
    for slot in range(2):
        card = card_of(S, me, slot)
        if slot == 1 and card == card_of(S, me, 0):
            break
        if card == GUARD and not protected:
            for guess in range(2, N_VALUES + 1):
                acts[n, 0], acts[n, 1], acts[n, 2] = card, TARGET_OPPONENT, guess
                n += check_row(S, acts, n)
        elif card == PRINCE:
            for target in (TARGET_OPPONENT, TARGET_SELF):
                acts[n, 0], acts[n, 1], acts[n, 2] = card, target, 0
                n += check_row(S, acts, n)
        else:
            acts[n, 0], acts[n, 1], acts[n, 2] = card, TARGET_OPPONENT, 0
            n += check_row(S, acts, n)
    return n


@kernel
def check_row(S, acts, n):
    """1 if row ``n`` of ``acts`` is legal, else 0."""
    return 1 if check(S, acts[n]) == OK else 0


@kernel
def random_action(S, rs, act):
    """The thesis's random player (3.1.1): the Countess when forced, never the Princess, a uniform
    guess 2-8 and a coin for the Prince's target (himself when the opponent is protected)."""
    me = S[TO_MOVE]
    a, b = card_of(S, me, 0), card_of(S, me, 1)
    if a == COUNTESS and (b == PRINCE or b == KING):
        card = a
    elif b == COUNTESS and (a == PRINCE or a == KING) or a == PRINCESS:
        card = b
    elif b == PRINCESS:
        card = a
    else:
        card = a if below(rs, 2) == 0 else b
    fill(S, act, card, TARGET_OPPONENT if below(rs, 2) == 0 else TARGET_SELF, 2 + below(rs, 7))


@kernel
def strategic_action(S, act):
    """The thesis's strategic player (3.1.3)."""
    me = S[TO_MOVE]
    a, b = card_of(S, me, 0), card_of(S, me, 1)
    low, high = min(a, b), max(a, b)
    known = S[KNOWN + me]
    protected = S[PROTECTED + 1 - me] != 0
    if high == COUNTESS and (low == PRINCE or low == KING):
        card = COUNTESS
    elif high == PRINCESS:
        card = low
    elif known != 0 and not protected and low == GUARD and known > GUARD:
        fill(S, act, GUARD, TARGET_OPPONENT, known)  # a sure hit
        return
    elif known != 0 and not protected and (a == BARON or b == BARON) and known < (b if a == BARON else a):
        card = BARON  # a sure win
    elif known == PRINCESS and not protected and (a == PRINCE or b == PRINCE):
        card = PRINCE  # she must discard the Princess
    elif low == BARON and high < KING:
        card = high  # the Baron only with a King, Countess or Princess beside it
    else:
        card = low
    fill(S, act, card, TARGET_OPPONENT, most_likely_guess(S, me))


@kernel
def most_likely_guess(S, player):
    """The value 2-8 with the most copies ``player`` has not seen (the lowest on ties), or his known card."""
    if S[KNOWN + player] > GUARD:
        return S[KNOWN + player]
    best, best_count = 2, -1
    for value in range(2, N_VALUES + 1):
        count = COPIES[value] - S[SEEN + value] - (1 if card_of(S, player, 0) == value else 0) - (
            1 if card_of(S, player, 1) == value else 0)
        if count > best_count:
            best, best_count = value, count
    return best


@kernel
def playout_action(S, policy, rs, act, scratch):
    if policy == STRATEGIC:
        strategic_action(S, act)
    else:
        random_action(S, rs, act)


@kernel
def action_key(S, act):
    return act[0] * 100 + act[1] * 10 + act[2], np.int64(0)


@kernel
def key_action(k0, k1, act):
    act[0], act[1], act[2] = k0 // 100, (k0 // 10) % 10, k0 % 10


@kernel
def is_candidate(S, act, row, scratch, err):
    return check(S, act) == OK
