"""Learning agents of every game (thesis chapter 5, made generic): Q-learning and one-step actor-critic over a
game's encoders (``Game.encoders``) and action spaces (``Game.action_spaces``), trained by ``agents.learning.train``.

An ``rl`` agent's ``algo`` is ``<rule>-<space>``: the learning rule (``q``: Q-learning; ``ac``: actor-critic;
``ppo``: masked PPO through sb3-contrib) over one of the game's action spaces (LOTR's ``macro``, a game's
``direct`` space of its legal actions), or a learner of the game's own (``Game.learning.learners``: LOTR's card-level ``ac-direct``). PyTorch is imported only when a
learner is made.
"""

from __future__ import annotations

from agents.learning.rules import RULES, algorithms
from gamecore.interface import imported


class TrainingDiverged(ValueError):
    """A training whose networks blew up (a value not finite, or far outside what the rewards allow): a property of
    its hyperparameters, which fails its trial with this one-line reason, not the study."""


def make_learner(role: str, spec, seed: int = 0):
    """The learner of ``spec`` (an ``rl`` agent) for ``role``, with its trained weights if it names them.

    A weights file that cannot be loaded raises SpecError, one line naming ``<role>.weights``, the reason and
    the fix (``checkpoint.load_weights``)."""
    from agents.learning.checkpoint import load_weights

    learner = imported(algorithms(spec.game)[spec["algo"]])(role, spec, seed)
    if spec["weights"]:
        load_weights(learner, spec["weights"])
    return learner


__all__ = ["RULES", "TrainingDiverged", "algorithms", "make_learner"]
