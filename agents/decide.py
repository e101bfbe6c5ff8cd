"""One decision by any compiled agent (``Agent``, in ``agents.agent``, is the same from Python)."""

import numpy as np

from agents.flat_mc import flat_mc_decide
from agents.mcts import mcts_decide
from agents.specs import FLAT_MC, KIND, MCTS
from lotr_sim.jit import kernel
from lotr_sim.policies import policy_action


@kernel
def decide(S, row, rs, act, scratch):
    """Fill ``act`` with the choice of the agent described by ``row`` (specs.py) for ``S``'s pending decision."""
    kind = np.int64(row[KIND])
    if kind == MCTS:
        mcts_decide(S, row, rs, act)
    elif kind == FLAT_MC:
        flat_mc_decide(S, row, rs, act)
    else:
        policy_action(S, kind, rs, act, scratch)
