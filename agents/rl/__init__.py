"""Reinforcement-learning agents (thesis chapter 5): three algorithms over the compiled state encodings and action
decoders of LOTR (``lotr_sim.encoding``, ``lotr_sim.decoders``)."""

from __future__ import annotations

from agents.rl.ac_direct import ACDirect
from agents.rl.ac_macro import ACMacro
from agents.rl.checkpoint import load_weights
from agents.rl.common import RL_STAGES, Learner
from agents.rl.q_macro import QMacro
from agents.specs import AgentSpec

ALGORITHMS: dict[str, type[Learner]] = {"q-macro": QMacro, "ac-macro": ACMacro, "ac-direct": ACDirect}


def make_learner(stage: str, spec: AgentSpec, seed: int = 0) -> Learner:
    """The learner of ``spec`` (an ``rl`` agent) for ``stage``, with its trained weights if it names them.

    A weights file that cannot be loaded raises SpecError, one line naming ``<stage>.weights``, the
    reason and the fix (``checkpoint.load_weights``)."""
    learner = ALGORITHMS[spec["algo"]](stage, spec, seed)
    if spec["weights"]:
        load_weights(learner, spec["weights"])
    return learner


__all__ = ["ALGORITHMS", "RL_STAGES", "Learner", "make_learner"]
