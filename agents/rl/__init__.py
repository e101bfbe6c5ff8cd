"""Reinforcement-learning agents (thesis chapter 5): state encodings, action decoders, three algorithms."""

from __future__ import annotations

from pathlib import Path

import torch

from agents.rl.ac_direct import ACDirect
from agents.rl.ac_macro import ACMacro
from agents.rl.common import RL_STAGES, Learner
from agents.rl.q_macro import QMacro
from agents.specs import AgentSpec

ALGORITHMS: dict[str, type[Learner]] = {"q-macro": QMacro, "ac-macro": ACMacro, "ac-direct": ACDirect}


def make_learner(stage: str, spec: AgentSpec, seed: int = 0) -> Learner:
    """The learner of ``spec`` (an ``rl`` agent) for ``stage``, with its trained weights if it names them."""
    learner = ALGORITHMS[spec["algo"]](stage, spec, seed)
    if spec["weights"]:
        path = Path(spec["weights"])
        try:
            learner.load_state_dict(torch.load(path, weights_only=True))
        except (OSError, RuntimeError, KeyError) as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise ValueError(f"{stage}.weights = {str(path)!r}: cannot load: {reason}") from None
    return learner


__all__ = ["ALGORITHMS", "RL_STAGES", "Learner", "make_learner"]
