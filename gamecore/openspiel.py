"""Every game of the interface as an OpenSpiel game (``pyspiel`` Python games), for OpenSpiel's algorithms.

``load("lotr", difficulty="easy")`` returns the pyspiel game ``python_lotr``
(``python_<name>`` for every game of ``gamecore.names()``), registered on
first use. Its parameters are the game's options, ``seed`` (the first deal's
seed) and ``deals``: a game starts at a chance node whose ``deals`` equally
likely outcomes are the deals of seeds ``seed``..``seed + deals - 1``; the
rest of the chance (deck orders, the tile stack, the hidden cards) is in the
deal, hidden from the players, and ``resample_from_infostate`` (what
OpenSpiel's ``ISMCTSBot`` asks of a state) is the game's ``determinize``.

A player's action is an index into the game's ``legal_actions()`` at that
state; the information state and the observation are what
``observation(player)`` shows (a sufficient statistic: the game's hidden
information is uniform among the worlds consistent with it, which is what
``determinize`` draws). The observation and information-state tensors are
the game's encoder of one size at every role (``Game.observation_encoder``,
the kernels' ``encode``), so a game has one encoding for every library; a
game without one offers no tensors.

Requires the ``openspiel`` extra (``pip install -e ".[openspiel]"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import gamecore
from gamecore.interface import Game
from gamecore.params import SpecError

try:
    import pyspiel
except ImportError:  # pragma: no cover - the message is the point
    raise SpecError('OpenSpiel is not installed: pip install -e ".[openspiel]" (open-spiel 2.0.2)') from None

PREFIX = "python_"
DEALS = 1_000  # the deals of a game's initial chance node, by default
MAX_GAME_LENGTH = 10_000  # a bound on the actions of any game here (chance included), for pyspiel.GameInfo


def short_name(game_name: str) -> str:
    return f"{PREFIX}{game_name}"


def load(game_name: str, **params: Any) -> pyspiel.Game:
    """The pyspiel game of ``game_name`` with ``params`` (the game's options, ``seed``, ``deals``)."""
    register(game_name)
    return pyspiel.load_game(short_name(game_name), params)


def register(game_name: str) -> str:
    """Register the game ``game_name`` with pyspiel (once); its short name."""
    name = short_name(game_name)
    if name not in pyspiel.registered_names():
        game = gamecore.load(game_name)
        if game.state_from_core is None:
            raise SpecError(f"game {game_name}: no state_from_core, which its OpenSpiel form needs")
        class_name = f"{game_name.title()}SpielGame"
        spiel_class = type(class_name, (SpielGame,), {"ours": game, "__module__": __name__})
        globals()[class_name] = spiel_class  # where pickle (pyspiel's clone) finds it
        pyspiel.register_game(_game_type(game), spiel_class)
    return name


def _game_type(game: Game) -> pyspiel.GameType:
    tensors = game.observation_encoder is not None
    two = game.n_players == 2
    return pyspiel.GameType(
        short_name=short_name(game.name),
        long_name=f"{game.help or game.name} (gametune)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM if two else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.n_players,
        min_num_players=game.n_players,
        provides_information_state_string=True,
        provides_information_state_tensor=tensors,
        provides_observation_string=True,
        provides_observation_tensor=tensors,
        parameter_specification={**{p.name: p.default for p in game.options}, "seed": 0, "deals": DEALS},
    )


class SpielGame(pyspiel.Game):
    """A game of the interface (``ours``, set by ``register``) as a pyspiel game."""

    ours: Game

    def __init__(self, params: dict | None = None):
        game = self.ours
        game_type = _game_type(game)
        given = {**game_type.parameter_specification, **(params or {})}
        self.options = game.check_options({p.name: given[p.name] for p in game.options}, "OpenSpiel game")
        self.first_seed, self.deals = int(given["seed"]), int(given["deals"])
        if self.deals < 1 or self.first_seed < 0:
            raise SpecError(f"OpenSpiel game {game.name}: seed must be >= 0 and deals >= 1, got {given}")
        info = pyspiel.GameInfo(
            num_distinct_actions=game.max_legal_actions or int(game.kernels.MAX_CANDIDATES),
            max_chance_outcomes=self.deals,
            num_players=game.n_players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0 if game.n_players == 2 else None,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(game_type, info, given)

    def new_initial_state(self) -> SpielState:
        return SpielState(self)

    def state_from_core(self, core: np.ndarray) -> SpielState:
        """The state of a dealt game's flat array (a copy), as the evaluation harness hands it to an agent. Its
        OpenSpiel history is empty (the deal and the moves that led to it are not known), so it is searched
        from, not serialised."""
        state = SpielState(self)
        state.ours = self.ours.state_from_core(core)
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        return Observer(self.ours, params)


class SpielState(pyspiel.State):
    """A state of a ``SpielGame``: before the deal, a chance node; then the game's own Python state."""

    def __init__(self, game: SpielGame):
        super().__init__(game)
        self.spiel_game = game
        self.ours = None  # the game's Python state once dealt
        self._legal = None  # its legal actions, listed once per state

    def legal(self):
        """The game's legal actions at this state (action i of OpenSpiel is the i-th), a sequence decoded on
        access where the game's is (LOTR's can hold a hundred thousand)."""
        if self._legal is None:
            self._legal = self.ours.legal_actions()
            if len(self._legal) > self.spiel_game.num_distinct_actions():
                raise pyspiel.SpielError(f"{len(self._legal)} legal actions, more than the game's bound "
                                         f"{self.spiel_game.num_distinct_actions()} (Game.max_legal_actions)")
        return self._legal

    def current_player(self) -> int:
        if self.ours is None:
            return pyspiel.PlayerId.CHANCE
        if self.ours.is_over:
            return pyspiel.PlayerId.TERMINAL
        return int(self.ours.to_move)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        deals = self.spiel_game.deals
        return [(k, 1.0 / deals) for k in range(deals)]

    def _legal_actions(self, player: int) -> list[int]:
        return list(range(len(self.legal())))

    def _apply_action(self, action: int) -> None:
        game = self.spiel_game
        if self.ours is None:
            self.ours = game.ours.new_game(game.first_seed + int(action), **game.options)
        else:
            self.ours.apply(self.legal()[action])
        self._legal = None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {self.spiel_game.first_seed + action}"
        return str(self.legal()[action])

    def is_terminal(self) -> bool:
        return self.ours is not None and self.ours.is_over

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.spiel_game.ours.n_players
        return [float(r) for r in self.ours.returns()]

    def vector(self, action: int) -> np.ndarray:
        """The game's action vector of OpenSpiel action ``action`` (for the compiled harness)."""
        return self.ours.vector(self.legal()[action])

    def resample_from_infostate(self, player_id: int, probability_sampler) -> SpielState:
        """A state the player cannot tell from this one, drawn by the game's ``determinize``."""
        seed = int(probability_sampler() * 2**62)
        return self.resampled(player_id, np.random.default_rng(seed))

    def resampled(self, player: int, rng: np.random.Generator) -> SpielState:
        """``resample_from_infostate`` with a NumPy generator."""
        copy = self.clone()
        copy.ours = self.ours.determinize(player, rng)
        copy._legal = self._legal  # what the player sees fixes the legal actions
        return copy

    def __str__(self) -> str:
        if self.ours is None:
            return "chance: the deal"
        return self.ours.to_json()


class Observer:
    """What a player sees (``observation(player)``), as a string and, where the game has an encoder of one size
    at every role, a tensor (zeros before the deal)."""

    def __init__(self, game: Game, params):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.game, self.encoder = game, game.observation_encoder
        size = 0 if self.encoder is None else next(iter(game.encoders[self.encoder].sizes.values()))
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: SpielState, player: int) -> None:
        self.tensor.fill(0.0)
        if self.encoder is not None and state.ours is not None:
            self.game.kernels.encode(state.ours.core_state(), self.encoder, player, self.tensor)

    def string_from(self, state: SpielState, player: int) -> str:
        if state.ours is None:
            return "before the deal"
        return repr(state.ours.observation(player))
