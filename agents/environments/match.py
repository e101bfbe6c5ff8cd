"""``Match``: one game at a time in which some roles are decided from outside, one decision at a time (an
environment's learners), and a setup's agents play the others.

It is what the Gymnasium and PettingZoo environments share: a ``GameBatch``
of one game whose learner roles are handed out; the setup's compiled agents
play inside the core, its Python agents (a table, a network) are called here
as the evaluation harness calls them (``agents.evaluation``). A learner sees
encoder ``encoder`` of the game (``Game.encoders``) and chooses an index of
its action space ``action_space`` (``Game.action_spaces``), checked against
the mask before it is decoded and played. An illegal index raises
IllegalActionError, or, with ``illegal = "lose"`` (PettingZoo's classic games
do the same), ends the game as a loss for the player who chose it (and a win
for the other player of a two-player game).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.batch import GAME_OVER, GameBatch
from agents.setup import SUFFIXES, Setup
from agents.specs import PYTHON, acting_mode, python_agent
from gamecore.errors import IllegalActionError, SpecError
from gamecore.interface import Game

ILLEGAL = ("lose", "raise")  # what an illegal index does


def setup_of(game: Game, agents: Setup | str | None) -> Setup:
    """The setup that ``agents`` names for ``game``: a Setup, an agent configuration file (.toml, .json), a short
    form ("dp", "random-mcts-mcts"), or None (the game's first policy, random, everywhere)."""
    if agents is None:
        return Setup.uniform(game.policies[0], game)
    if isinstance(agents, str):
        agents = Setup.load(agents) if Path(agents).suffix.lower() in SUFFIXES else Setup.parse(agents, game)
    if agents.game is not game:
        raise SpecError(f"the agents {agents} play {agents.game}, not {game}")
    return agents


def learned_roles(game: Game, encoder: int, action_space: int) -> list[str]:
    """The roles that encoder ``encoder`` and action space ``action_space`` both cover, in the game's order."""
    covered = set(game.encoders[encoder].sizes) & set(game.action_spaces[action_space].sizes)
    return [role for role in game.roles if role in covered]


class Match:
    """A game of ``setup``'s game with ``options`` whose ``learners`` (role names) decide from outside; the
    setup's agents play the other roles (its agents at the learners' roles are not used)."""

    def __init__(self, setup: Setup, learners: list[str], options: dict[str, Any] | None = None,
                 encoder: str | None = None, action_space: str | None = None, illegal: str = "lose"):
        game = self.game = setup.game
        if illegal not in ILLEGAL:
            raise SpecError(f"illegal = {illegal!r}: expected one of {', '.join(ILLEGAL)}")
        self.illegal = illegal
        self.forfeited: int | None = None  # the player whose illegal action ended the game
        if not game.encoders or not game.action_spaces:
            raise SpecError(f"{game} declares no encoder or no action space (Game.encoders, Game.action_spaces)")
        self.encoding = game.encoder(encoder) if encoder else 0
        self.space = game.action_space(action_space) if action_space else 0
        covered = learned_roles(game, self.encoding, self.space)
        for role in learners:
            if role not in covered:
                raise SpecError(f"role {role!r}: {game}'s encoder {game.encoders[self.encoding].name} and action "
                                f"space {game.action_spaces[self.space].name} cover {', '.join(covered) or 'none'}")
        self.learners = [game.roles.index(role) for role in learners]
        self.batch = GameBatch(setup, options or {}, 1)
        for role in self.learners:
            self.batch.hand_out(role)
        self.python_agents = {index: (acting_mode(spec), python_agent(role, spec))
                              for index, (role, spec) in enumerate(zip(game.roles, setup.agents))
                              if spec.kind.code == PYTHON and index not in self.learners}
        kernels = self.kernels = game.kernels
        encoder_sizes, space_sizes = game.encoders[self.encoding].sizes, game.action_spaces[self.space].sizes
        self.sizes = {index: encoder_sizes[game.roles[index]] for index in self.learners}
        self.n_actions = {index: space_sizes[game.roles[index]] for index in self.learners}
        self.state = self.batch.states[0]
        self.role = GAME_OVER  # the learner role whose decision is pending, GAME_OVER once the game is over
        self._slot = np.zeros(1, np.int64)
        self._mask = np.zeros(max(space_sizes.values()), np.int8)  # the pending decision's, zeros at the end
        self._act = np.empty(int(kernels.ACTION_SIZE), np.int64)
        self._scratch = np.empty(int(kernels.STATE_SIZE), np.int64)
        self._work = np.empty(int(kernels.DECODE_WORK))

    def player(self, role: int) -> int:
        """The player who decides ``role``: its seat, or the one player of a game whose roles are decisions."""
        return role if self.game.by_seat else 0

    def deal(self, rng: np.random.Generator) -> None:
        """A new game dealt from ``rng``'s next seed, played to the first learner decision (a game that ends
        before one is dealt again)."""
        self.forfeited = None
        while True:
            self.batch.deal(0, int(rng.integers(2**63)))
            self._advance()
            if self.role != GAME_OVER:
                return

    def observe(self, role: int) -> np.ndarray:
        """What ``role``'s player sees now, by the match's encoder; zeros for a decision kind (LOTR's stages) that
        is not pending, whose encoding the kernels cannot write (they encode the pending decision's, of another
        size)."""
        if not (self.game.by_seat or role == self.role):
            return np.zeros(self.sizes[role], np.float32)
        out = np.empty(self.sizes[role], np.float32)  # every step: the kernels write all of it
        self.kernels.encode(self.state, self.encoding, self.player(role), out)
        return out

    def mask(self, role: int) -> np.ndarray:
        """1 at ``role``'s legal indices when its decision is pending, else zeros."""
        n = self.n_actions[role]
        return self._mask[:n].copy() if role == self.role else np.zeros(n, np.int8)

    def play(self, role: int, index: int) -> bool:
        """Play index ``index`` of the action space for ``role``, then the other roles' agents up to the next
        learner decision or the end; whether the index was legal (``illegal = "lose"``: an illegal one ends the
        game; ``"raise"``: IllegalActionError in one line)."""
        n = self.n_actions[role]
        if role != self.role:
            raise IllegalActionError(f"{self.game.roles[role]} has no decision to make now")
        if not (0 <= index < n and self._mask[index]):
            if self.illegal == "lose":
                self.forfeited, self.role = self.player(role), GAME_OVER
                return False
            legal = np.flatnonzero(self._mask[:n])
            shown = ", ".join(map(str, legal[:10])) + (", ..." if legal.size > 10 else "")
            raise IllegalActionError(f"action {index} is illegal at this {self.game.roles[role]} decision; legal: "
                                     f"{shown}")
        self.kernels.decode(self.state, self.space, index, self._act, self._scratch, self._work)
        self.batch.apply(self._slot, self._act[None, :])
        self._advance()
        return True

    def outcome(self, role: int) -> float:
        """``role``'s player's result of a finished game: +1 win, -1 loss (an illegal action's too), 0 draw."""
        if self.forfeited is not None:
            return -1.0 if self.player(role) == self.forfeited else 1.0
        return 2.0 * self.batch.reward(0, self.player(role)) - 1.0

    def _advance(self) -> None:
        """Play the setup's agents until a learner's decision or the end; the pending decision's mask."""
        while True:
            self.batch.advance()
            role = self.role = int(self.batch.waiting[0])
            if role not in self.python_agents:
                break
            mode, agent = self.python_agents[role]
            acts, _ = agent.choose(self.batch.states[:1], self.batch.uniforms(self._slot, role), mode)
            self.batch.apply(self._slot, acts)
        if role == GAME_OVER:
            self._mask[:] = 0
        else:
            self.kernels.action_mask(self.state, self.space, self._mask)
