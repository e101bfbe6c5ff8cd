"""Games played to their end by the compiled policies: the playouts of searches and ``GameState.play_out``."""

from gamecore.jit import kernel
from lotr_sim import layout as L
from lotr_sim.policies import policy_action
from lotr_sim.rules import apply_action


@kernel
def decision_index(phase):
    """0..4 for planning, questing, travel, defense, attack."""
    if phase == L.PLANNING:
        return 0
    if phase == L.QUESTING:
        return 1
    if phase == L.TRAVEL:
        return 2
    if phase == L.DEFENSE:
        return 3
    return 4


@kernel
def play_out(S, policies, rs, log, act, err, scratch):
    """Play ``S`` to the end in place, ``policies[decision_index]`` deciding; return the outcome.

    ``act`` (N_CARDS), ``err`` (4) and ``scratch`` (state-sized) are work arrays."""
    while S[L.PHASE] != L.GAME_OVER:
        policy_action(S, policies[decision_index(S[L.PHASE])], rs, act, scratch)
        if apply_action(S, act, err, log) != L.OK:
            raise RuntimeError("a compiled policy chose an illegal action")
    return S[L.OUTCOME]
