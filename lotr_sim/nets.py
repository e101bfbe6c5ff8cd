"""Trained RL networks acting inside compiled code: the playouts of a search (``playout_nets``).

The networks of an rl agent (``agents.learning``: one hidden ReLU layer) are
packed into one float array, the *net table* (``pack`` of the blocks that
``agents.learning.playout_nets`` reads from an agent configuration's trained
stages): entry ``s`` of its first
``N_STAGES`` holds 1 + the offset of stage ``s``'s acting block, 0 when no
network decides that stage, and entry ``N_STAGES + s`` the same for the block
that values stage ``s``'s states (the critic of an actor-critic; q-macro's Q
network, whose best value is the state's); a block is (algorithm, encoding,
inputs, neurons, outputs) followed by W1 (neurons x inputs, row-major), b1,
W2 (outputs x neurons) and b2. A table of zeros (or an empty one) has no
network.

``net_action`` is the agent's greedy choice (its ``policy = "greedy"``), the
same as the PyTorch agent's up to float rounding: the best macro action
(q-macro, ac-macro); ac-direct's allies bought in the order of their logits
while affordable, characters committed or volunteering to defend where their
logit is positive (probability above 1/2).

``net_value`` is the valuing network's estimate of the game's reward from a
state, for the search's leaves (``leaf = "value"``): the networks were trained
on the reward +1 for a win and -1 for a loss (``agents.learning.train``), discounted
by 0.99 a decision, so (v + 1) / 2, clipped to [0, 1], is read as the chance
of a win (the discount pulls it towards 1/2 far from the end).
"""

import numpy as np

from gamecore.jit import kernel
from lotr_sim import layout as L
from lotr_sim.cards import ALLY_FIRST, N_CARDS
from lotr_sim.decoders import direct_commit, direct_defend, macro_action
from lotr_sim.encoding import DEFENSE_SIZE, PLANNING_SIZE, QUESTING_SIZES, encode
from lotr_sim.playout import decision_index
from lotr_sim.policies import buy_in_order

ALGORITHMS = ("q-macro", "ac-macro", "ac-direct")  # the algo codes of a block
AC_DIRECT = ALGORITHMS.index("ac-direct")
N_STAGES = 5
HEADER = 5  # a block's (algorithm, encoding, inputs, neurons, outputs)
MAX_INPUTS = max(PLANNING_SIZE, DEFENSE_SIZE, *QUESTING_SIZES)
NET_WORK = MAX_INPUTS + 2 * N_CARDS  # net_action's work array: inputs, outputs (at most one per card), card scores


def pack(blocks: dict[int, tuple[str, int, list[np.ndarray], list[np.ndarray] | None]]) -> np.ndarray:
    """The net table of ``{stage index: (algo, encoding, acting [W1, b1, W2, b2], critic's or None)}``; a stage
    without a critic is valued by its acting network's best output (q-macro's Q)."""
    table = [0.0] * (2 * N_STAGES)

    def add_block(algo: str, encoding: int, layers: list[np.ndarray]) -> float:
        offset = len(table)
        w1, _, w2, _ = layers
        table.extend([ALGORITHMS.index(algo), encoding, w1.shape[1], w1.shape[0], w2.shape[0]])
        for part in layers:
            table.extend(np.asarray(part, np.float64).ravel().tolist())
        return offset + 1

    for stage, (algo, encoding, acting, critic) in sorted(blocks.items()):
        table[stage] = add_block(algo, encoding, acting)
        table[N_STAGES + stage] = table[stage] if critic is None else add_block(algo, encoding, critic)
    return np.array(table, np.float64)


@kernel
def forward(nets, at, obs, out):
    """``out`` = W2 relu(W1 obs + b1) + b2 for the block at offset ``at``."""
    n_in, neurons, n_out = np.int64(nets[at + 2]), np.int64(nets[at + 3]), np.int64(nets[at + 4])
    w1 = at + HEADER
    b1 = w1 + neurons * n_in
    w2 = b1 + neurons
    b2 = w2 + n_out * neurons
    for k in range(n_out):
        out[k] = nets[b2 + k]
    for j in range(neurons):
        h = nets[b1 + j]
        for i in range(n_in):
            h += nets[w1 + j * n_in + i] * obs[i]
        if h > 0.0:
            for k in range(n_out):
                out[k] += nets[w2 + k * neurons + j] * h


@kernel
def net_action(S, nets, act, scratch):
    """Fill ``act`` with the greedy choice of the network that decides ``S``'s stage and return True; False
    (``act`` untouched) when none does. ``nets`` is (net table, a work array of ``NET_WORK`` floats)."""
    table, work = nets
    stage = decision_index(S[L.PHASE])
    if table.shape[0] < 2 * N_STAGES or table[stage] == 0:
        return False
    at = np.int64(table[stage]) - 1
    algo, encoding = np.int64(table[at]), np.int64(table[at + 1])
    n_in, n_out = np.int64(table[at + 2]), np.int64(table[at + 4])
    obs, out, scores = work[:n_in], work[MAX_INPUTS : MAX_INPUTS + n_out], work[MAX_INPUTS + N_CARDS :]
    encode(S, encoding, obs)
    forward(table, at, obs, out)
    if algo != AC_DIRECT:
        macro_action(S, np.argmax(out), act, scratch, scores)
    elif S[L.PHASE] == L.PLANNING:
        scores[:] = 0.0
        for j in range(n_out):
            scores[ALLY_FIRST + j] = out[j]
        act[:] = L.NO_CHOICE
        buy_in_order(S, S[L.ZONE_MASKS + L.HAND], scores, act)
    else:
        chosen = np.int64(0)
        for c in range(n_out):
            if out[c] > 0.0:
                chosen |= np.int64(1) << c
        if S[L.PHASE] == L.QUESTING:
            direct_commit(S, chosen, act)
        else:
            direct_defend(S, chosen, act, scratch, scores)
    return True


@kernel
def net_value(S, nets):
    """The valuing network's chance of a win from ``S`` (in [0, 1]), or -1 when no network values ``S``'s
    stage (or the game is over). ``nets`` as ``net_action``'s."""
    table, work = nets
    if S[L.PHASE] == L.GAME_OVER or table.shape[0] < 2 * N_STAGES:
        return -1.0
    stage = decision_index(S[L.PHASE])
    if table[N_STAGES + stage] == 0:
        return -1.0
    at = np.int64(table[N_STAGES + stage]) - 1
    encoding, n_in, n_out = np.int64(table[at + 1]), np.int64(table[at + 2]), np.int64(table[at + 4])
    obs, out = work[:n_in], work[MAX_INPUTS : MAX_INPUTS + n_out]
    encode(S, encoding, obs)
    forward(table, at, obs, out)
    best = out[0]
    for k in range(1, n_out):
        best = max(best, out[k])
    return min(1.0, max(0.0, (best + 1.0) / 2.0))
