"""A setup's trained agents as the blocks a game packs into its compiled playouts' net table
(``Game.learning.playout_nets``; LOTR's ``lotr_sim.nets.pack``), read from the configuration an agent's ``playout_nets`` names
(``agents.setup.net_table``)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from agents.learning import make_learner
from agents.specs import AgentSpec, SpecError


def trained_networks(agents: Iterable[tuple[str, AgentSpec]]
                     ) -> dict[int, tuple[str, int, list[np.ndarray], list[np.ndarray] | None]]:
    """``{role index: (algo, encoding, acting layers, critic layers or None)}`` of the trained agents of a setup's
    ``(role, agent)`` pairs in role order: the acting network (Q, or the actor) and the critic where there is one;
    SpecError (one line) if it has none or a weights file does not fit its role."""
    blocks = {}
    for index, (role, spec) in enumerate(agents):
        if not spec.kind.trained:
            continue
        if not spec["weights"]:
            raise SpecError(f"its {role} network is untrained (no weights)")
        if spec["layers"] != 1:
            raise SpecError(f"its {role} network has {spec['layers']} hidden layers; the compiled playouts take one")
        learner = make_learner(role, spec)
        acting = layers(learner.modules["q" if "q" in learner.modules else "actor"])
        critic = layers(learner.modules["critic"]) if "critic" in learner.modules else None
        blocks[index] = (spec["algo"], learner.encoding, acting, critic)
    if not blocks:
        raise SpecError("it names no rl role")
    return blocks


def layers(net) -> list[np.ndarray]:
    """[W1, b1, W2, b2] of a one-hidden-layer network (``agents.learning.learner.mlp``)."""
    return [t.detach().numpy() for t in (net[0].weight, net[0].bias, net[2].weight, net[2].bias)]
