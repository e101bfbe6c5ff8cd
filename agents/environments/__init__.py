"""Every game of the interface as the environments the RL ecosystem speaks, generated from its ``Game``.

- ``GameEnv`` (Gymnasium): one role against fixed agents at the others; importing this package (or ``gametune``)
  registers ``gametune/<game>-v0`` for every game of ``gamecore.names()``, so that
  ``gymnasium.make("gametune/loveletter-v0", opponent="dp")`` works (``register_environments`` again after
  ``gamecore.register`` adds a game); the ids of earlier versions, ``lotr_tuning/<game>-v0``, stay as aliases.
- ``GameAECEnv`` (PettingZoo AEC): the roles as agents, the observation a dict with the action mask; PettingZoo's
  ``env``, ``raw_env`` and ``parallel_env`` of a game.

Both read the game's encoders and action spaces (``Game.encoders``, ``Game.action_spaces``) through ``Match``.
"""

from __future__ import annotations

import gymnasium

import gamecore
from agents.environments.aec_env import GameAECEnv, env, parallel_env, raw_env
from agents.environments.gym_env import GameEnv
from agents.environments.match import Match

NAMESPACE = "gametune"
OLD_NAMESPACE = "lotr_tuning"  # the ids of earlier versions, registered as aliases


def environment_id(game_name: str, namespace: str = NAMESPACE) -> str:
    """The Gymnasium id of ``game_name``'s environment."""
    return f"{namespace}/{game_name}-v0"


def register_environments() -> list[str]:
    """Register the Gymnasium environment of every game that ``gamecore.names()`` lists (once), under its id and
    its earlier alias; the ids."""
    ids = []
    for name in gamecore.names():
        ids.append(environment_id(name))
        for env_id in (ids[-1], environment_id(name, OLD_NAMESPACE)):
            if env_id not in gymnasium.registry:
                gymnasium.register(env_id, entry_point="agents.environments.gym_env:GameEnv", kwargs={"game": name})
    return ids


register_environments()

__all__ = ["GameAECEnv", "GameEnv", "Match", "env", "environment_id", "parallel_env", "raw_env", "register_environments"]
