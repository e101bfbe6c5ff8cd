"""gametune: hyperparameter studies of game-playing agents, on any game of its interface.

The public entry points for a game's author: ``load`` and ``names`` (the games installed: this project's, and
every package that declares one under the ``gametune.games`` entry point), ``check_game`` (the conformance
check, for a game package's own tests). Importing ``gametune`` registers every game's Gymnasium environment
(``gymnasium.make("gametune/<game>-v0")``); ``gymnasium.make("gametune:gametune/<game>-v0")`` imports it first.
"""

from agents.environments import environment_id, register_environments
from gamecore import Game, load, names, register
from gametune.conformance import CHECKS, ConformanceError, check_game

__all__ = ["CHECKS", "ConformanceError", "Game", "check_game", "environment_id", "load", "names", "register",
           "register_environments"]
