"""An agent configuration's trained rl stages as a net table, for the compiled playouts (``lotr_sim.nets``)."""

from __future__ import annotations

import numpy as np

from agents.rl import make_learner
from agents.setup import Setup
from agents.specs import SpecError
from lotr_sim.nets import pack


def net_table(path: str) -> np.ndarray:
    """The networks of the trained rl stages of the configuration file ``path``: the acting one (Q for q-macro,
    the actor otherwise) and the critic where there is one; SpecError (one line) if it has none or a weights file
    does not fit its stage."""
    setup = Setup.load(path)
    blocks = {}
    for index, (role, spec) in enumerate(zip(setup.roles, setup.agents)):
        if spec.agent != "rl":
            continue
        if not spec["weights"]:
            raise SpecError(f"its {role} network is untrained (no weights)")
        learner = make_learner(role, spec)
        acting = layers(learner.modules["q" if "q" in learner.modules else "actor"])
        critic = layers(learner.modules["critic"]) if "critic" in learner.modules else None
        blocks[index] = (spec["algo"], learner.encoding, acting, critic)
    if not blocks:
        raise SpecError("it names no rl stage")
    return pack(blocks)


def layers(net) -> list[np.ndarray]:
    """[W1, b1, W2, b2] of a one-hidden-layer network (``agents.rl.common.mlp``)."""
    return [t.detach().numpy() for t in (net[0].weight, net[0].bias, net[2].weight, net[2].bias)]
