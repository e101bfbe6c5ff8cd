"""An agent configuration's trained rl stages as a net table, for the compiled playouts (``lotr_sim.nets``)."""

from __future__ import annotations

import numpy as np

from agents.rl import make_learner
from agents.setup import Setup
from agents.specs import SpecError
from lotr_sim.nets import pack


def net_table(path: str) -> np.ndarray:
    """The acting networks of the trained rl stages of the configuration file ``path`` (Q for q-macro, the
    actor otherwise); SpecError (one line) if it has none or a weights file does not fit its stage."""
    setup = Setup.load(path)
    blocks = {}
    for index, (role, spec) in enumerate(zip(setup.roles, setup.agents)):
        if spec.agent != "rl":
            continue
        if not spec["weights"]:
            raise SpecError(f"its {role} network is untrained (no weights)")
        learner = make_learner(role, spec)
        net = learner.modules["q" if "q" in learner.modules else "actor"]
        layers = (net[0].weight, net[0].bias, net[2].weight, net[2].bias)
        blocks[index] = (spec["algo"], learner.encoding, [t.detach().numpy() for t in layers])
    if not blocks:
        raise SpecError("it names no rl stage")
    return pack(blocks)
