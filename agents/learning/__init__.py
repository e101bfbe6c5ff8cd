"""Learning agents of every game (thesis chapter 5, made generic): Q-learning and one-step actor-critic over a
game's encoders (``Game.encoders``) and action spaces (``Game.action_spaces``), trained by ``agents.learning.train``.

An ``rl`` agent's ``algo`` is ``<rule>-<space>``: the learning rule (``q``: Q-learning; ``ac``: actor-critic;
``ppo``: masked PPO through sb3-contrib) over one of the game's action spaces (LOTR's ``macro``, a game's
``direct`` space of its legal actions), or a learner of the game's own (``Game.learners``: LOTR's card-level ``ac-direct``). PyTorch is imported only when a
learner is made.
"""

from __future__ import annotations

from gamecore.interface import Game, imported

RULES = {  # the generic learning rules, each over any of a game's action spaces
    "q": "agents.learning.q_learning:QLearner",
    "ac": "agents.learning.actor_critic:ActorCritic",
    "ppo": "agents.learning.ppo:PPOLearner",  # sb3-contrib's MaskablePPO (the ppo extra)
}


def algorithms(game: Game) -> dict[str, str]:
    """The learning algorithms of ``game``: name -> "module:Class" (the generic rules over each of its action
    spaces, then its own learners, which take precedence over a generic one of the same name)."""
    generic = {f"{rule}-{space.name}": target for space in game.action_spaces for rule, target in RULES.items()}
    return generic | game.learners


def make_learner(role: str, spec, seed: int = 0):
    """The learner of ``spec`` (an ``rl`` agent) for ``role``, with its trained weights if it names them.

    A weights file that cannot be loaded raises SpecError, one line naming ``<role>.weights``, the reason and
    the fix (``checkpoint.load_weights``)."""
    from agents.learning.checkpoint import load_weights

    learner = imported(algorithms(spec.game)[spec["algo"]])(role, spec, seed)
    if spec["weights"]:
        load_weights(learner, spec["weights"])
    return learner


__all__ = ["RULES", "algorithms", "make_learner"]
