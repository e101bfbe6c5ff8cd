"""The learning algorithms of a game: the generic learning rules over each of its action spaces, and its own
learners (what an ``rl`` agent's ``algo`` may name)."""

from __future__ import annotations

from gamecore.interface import Game

RULES = {  # the generic learning rules, each over any of a game's action spaces
    "q": "agents.learning.q_learning:QLearner",
    "ac": "agents.learning.actor_critic:ActorCritic",
    "ppo": "agents.learning.ppo:PPOLearner",  # sb3-contrib's MaskablePPO (the ppo extra)
}


def algorithms(game: Game) -> dict[str, str]:
    """The learning algorithms of ``game``: name -> "module:Class" (the generic rules over each of its action
    spaces, then its own learners, which take precedence over a generic one of the same name)."""
    generic = {f"{rule}-{space.name}": target for space in game.action_spaces for rule, target in RULES.items()}
    return generic | game.learning.learners
