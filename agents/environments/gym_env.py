"""``GameEnv``: a Gymnasium environment of one role of any game against fixed agents at the others.

``GameEnv("loveletter", opponent="dp")`` (or ``gymnasium.make("lotr_tuning/loveletter-v0", opponent="dp")``
once ``agents.environments`` is imported): the learner takes ``role`` (a seat of a two-player game, the first
by default; a decision kind of LOTR, the first its encoder and action space cover: planning), ``opponent`` plays
the other roles (any setup the command line accepts: a short form, an agent configuration file, a Setup; the
agent it names at the learner's role is not used; default: the game's random policy). An observation is the
game's encoder ``encoder`` (default: its first) of what the learner's player sees, an action an index of its
action space ``action_space`` (default: its first). The reward is 0 until the end of the game, then +1 for a
win, -1 for a loss, 0 for a draw. ``info["action_mask"]`` and ``action_masks()`` (sb3-contrib's
MaskablePPO) mark the legal indices (int8 and bool); an illegal index ends the game as a loss
(``info["illegal"]``), or with ``illegal="raise"`` raises IllegalActionError (one line). Games that end before
the learner's first decision are dealt again by ``reset``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

import gamecore
from agents.environments.match import Match, learned_roles, setup_of
from agents.setup import Setup
from gamecore.interface import Game


class GameEnv(gym.Env):
    """One role of ``game`` against ``opponent`` (the module docstring)."""

    metadata: ClassVar[dict] = {"render_modes": []}

    def __init__(self, game: Game | str = gamecore.DEFAULT_GAME, role: str | None = None,
                 opponent: Setup | str | None = None, encoder: str | None = None, action_space: str | None = None,
                 options: dict[str, Any] | None = None, illegal: str = "lose"):
        game = gamecore.load(game)
        setup = setup_of(game, opponent)
        if role is None:
            role = learned_roles(game, game.encoder(encoder) if encoder else 0,
                                 game.action_space(action_space) if action_space else 0)[0]
        self.match = Match(setup, [role], options, encoder, action_space, illegal)
        self.role = game.roles.index(role)
        described = game.encoders[self.match.encoding]
        self.observation_space = gym.spaces.Box(described.low, described.high, (self.match.sizes[self.role],),
                                                np.float32)
        self.action_space = gym.spaces.Discrete(self.match.n_actions[self.role])

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new game (``options`` unused: the game's options are the constructor's)."""
        super().reset(seed=seed)
        self.match.deal(self.np_random)
        return self.match.observe(self.role), {"action_mask": self.match.mask(self.role)}

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        legal = self.match.play(self.role, int(action))
        over = self.match.role != self.role
        reward = self.match.outcome(self.role) if over else 0.0
        info = {"action_mask": self.match.mask(self.role)} | ({} if legal else {"illegal": True})
        return self.match.observe(self.role), reward, over, False, info

    def action_masks(self) -> np.ndarray:
        """Whether each index is legal now (all False once the game is over)."""
        return self.match.mask(self.role).astype(bool)
