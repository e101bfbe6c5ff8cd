"""``GameEnv``: a Gymnasium environment of one role of any game against fixed agents at the others.

``GameEnv("loveletter", opponent="dp")`` (or ``gymnasium.make("gametune/loveletter-v0", opponent="dp")``
once ``agents.environments`` is imported): the learner takes ``role`` (a seat of a two-player game, the first
by default; a decision kind of LOTR, the first its encoder and action space cover: planning), ``opponent`` plays
the other roles (any setup the command line accepts: a short form, an agent configuration file, a Setup; the
agent it names at the learner's role is not used; default: the game's random policy). An observation is the
game's encoder ``encoder`` (default: its first) of what the learner's player sees, an action an index of its
action space ``action_space`` (default: its first). The reward (``reward = "outcome"``) is 0 until the end of
the game, then +1 for a win, -1 for a loss, 0 for a draw. ``reward = "margin"``, in a game with scores (its
``margin`` kernel), adds to it at every step the change of the learner's score margin over ``margin_scale``
points: shaping by a potential (the margin), whose sum over a game is the final margin over ``margin_scale``.
``info["outcome"]`` holds the outcome once the game is over. ``info["action_mask"]`` and ``action_masks()``
(sb3-contrib's MaskablePPO) mark the legal indices (int8 and bool); an illegal index ends the game as a loss
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
from agents.specs import SpecError
from gamecore.interface import Game
from gamecore.row import REWARDS


class GameEnv(gym.Env):
    """One role of ``game`` against ``opponent`` (the module docstring)."""

    metadata: ClassVar[dict] = {"render_modes": []}

    def __init__(self, game: Game | str, role: str | None = None,
                 opponent: Setup | str | None = None, encoder: str | None = None, action_space: str | None = None,
                 options: dict[str, Any] | None = None, illegal: str = "lose", reward: str = "outcome",
                 margin_scale: float = 100.0):
        game = gamecore.load(game)
        if reward not in REWARDS:
            raise SpecError(f"reward = {reward!r}: expected one of {', '.join(REWARDS)}")
        if reward == "margin" and not hasattr(game.kernels, "margin"):
            raise SpecError(f"reward = 'margin': {game} has no scores (no margin kernel); use reward = 'outcome'")
        self.margin_scale = margin_scale if reward == "margin" else None
        self.potential = 0.0
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
        self.potential = self._margin()
        return self.match.observe(self.role), {"action_mask": self.match.mask(self.role)}

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        legal = self.match.play(self.role, int(action))
        over = self.match.role != self.role
        outcome = self.match.outcome(self.role) if over else 0.0
        reward = outcome
        if self.margin_scale is not None and legal:
            potential = self._margin()
            reward += potential - self.potential
            self.potential = potential
        info = {"action_mask": self.match.mask(self.role)} | ({} if legal else {"illegal": True})
        if over:
            info["outcome"] = outcome
        return self.match.observe(self.role), reward, over, False, info

    def _margin(self) -> float:
        """The learner's score margin over ``margin_scale`` (0 under ``reward = "outcome"``)."""
        if self.margin_scale is None:
            return 0.0
        player = self.match.player(self.role)
        return float(self.match.kernels.margin(self.match.state, player)) / self.margin_scale

    def action_masks(self) -> np.ndarray:
        """Whether each index is legal now (all False once the game is over)."""
        return self.match.mask(self.role).astype(bool)
