"""``GameState``: the narrow interface every agent and tool speaks.

The game runs its rule-based phases and chance events by itself and stops at
each decision that has a choice (a decision with a single legal action is
applied for the player). A state is a flat integer array (``layout``) behind
this class; the compiled core does the work.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from lotr_sim import layout as L
from lotr_sim.actions import Action, Outcome, Stage, decode, decode_choices, encode
from lotr_sim.cards import N_CARDS
from lotr_sim.defects import DEFECTS, RULES_CHOICES, RULES_DESCRIBED, canonical, rules_code
from lotr_sim.errors import IllegalActionError, TooManyActionsError, rule_error_message
from lotr_sim.legal import TOO_MANY, enumerate_legal, sample_legal
from lotr_sim.observation import Observation, observe
from lotr_sim.playout import play_out
from lotr_sim.policies import POLICY_NAMES, policy_action
from lotr_sim.rules import apply_action, determinize, new_state
from lotr_sim.state_data import check_consistency, state_from_dict, state_to_dict
from lotr_sim.trace import Event, format_trace

DEFAULT_ACTION_LIMIT = 1_000_000
_STAGE_OF_PHASE = tuple(Stage(p) if p in L.DECISION_PHASES else None for p in range(L.GAME_OVER + 1))
_LOG_ROWS = 512


RandomSource = np.random.Generator | int


def _stream(rng: RandomSource) -> np.ndarray:
    """A core random stream drawn from a numpy Generator, or seeded by an int."""
    if isinstance(rng, np.random.Generator):
        return np.array([rng.bit_generator.random_raw()], dtype=np.uint64)
    if isinstance(rng, (int, np.integer)) and 0 <= rng < 2**64:
        return np.array([rng], dtype=np.uint64)
    raise TypeError(f"rng must be a numpy Generator or an int seed in [0, 2**64), got {rng!r}")


def parse_difficulty(difficulty: str | int) -> int:
    if isinstance(difficulty, str) and difficulty in L.DIFFICULTIES:
        return L.DIFFICULTIES.index(difficulty)
    raise ValueError(f"unknown difficulty {difficulty!r}; valid: {', '.join(L.DIFFICULTIES)}")


def parse_policy(policy: str) -> int:
    if policy in POLICY_NAMES:
        return POLICY_NAMES.index(policy)
    raise ValueError(f"unknown policy {policy!r}; valid: {', '.join(POLICY_NAMES)}")


class GameState:
    """One game of the model in docs/lotr-rules.md.

    ``GameState("hard", seed=7)`` deals a game; the same difficulty, seed and
    decisions give the same game on any machine. ``trace=True`` records the
    events for ``trace_text()``.
    """

    __slots__ = ("_events", "_s")

    def __init__(self, difficulty: str = "hard", seed: int = 0, *, full_scenario: bool = False,
                 rules: str = "corrected", trace: bool = False):
        if not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
            raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
        if rules not in RULES_CHOICES:
            raise ValueError(f"unknown rules {rules!r}; valid: {RULES_DESCRIBED}")
        self._events: list[Event] | None = [] if trace else None
        log = self._new_log()
        self._s = new_state(parse_difficulty(difficulty), 3 if full_scenario else 1, rules_code(rules),
                            np.uint64(seed), log)
        self._record(log)

    # -- what the game is waiting for -------------------------------------------------
    @property
    def stage(self) -> Stage | None:
        """The pending decision, or None when the game is over."""
        return _STAGE_OF_PHASE[self._s[L.PHASE]]

    @property
    def is_over(self) -> bool:
        return self._s[L.PHASE] == L.GAME_OVER

    @property
    def to_move(self) -> int | None:
        """The player to move (LOTR has one: 0), or None when the game is over."""
        return None if self.is_over else 0

    @property
    def decision_kind(self) -> str | None:
        """The pending decision's stage name (the game interface's decision kind)."""
        return None if self.is_over else self.stage.label

    def returns(self) -> list[float]:
        """One value per player: 1 for a won game, else 0 (0 while it runs)."""
        return [1.0 if self._s[L.OUTCOME] == L.WIN else 0.0]

    def action_from_vector(self, act: np.ndarray) -> Action:
        """The action a compiled agent's action vector stands for."""
        return decode(self.stage, act)

    def vector(self, action: Action) -> np.ndarray:
        """The compiled core's vector of ``action``."""
        return encode(action)

    @property
    def outcome(self) -> Outcome:
        return Outcome(int(self._s[L.OUTCOME]))

    @property
    def round(self) -> int:
        return int(self._s[L.ROUND])

    @property
    def threat(self) -> int:
        return int(self._s[L.THREAT_LEVEL])

    @property
    def difficulty(self) -> str:
        return L.DIFFICULTIES[int(self._s[L.DIFFICULTY])]

    @property
    def rules(self) -> str:
        """The ``rules`` option it was dealt with, canonical: ``corrected`` or its defects joined by +."""
        return canonical(d.name for d in DEFECTS if int(self._s[L.RULES]) & d.bit)

    def observation(self, player: int = 0) -> Observation:
        """The visible part of the state; never the order of a deck."""
        return observe(self._s)

    # -- actions ----------------------------------------------------------------------
    def legal_actions(self, limit: int = DEFAULT_ACTION_LIMIT) -> LegalActions:
        """The legal actions of the pending decision, decoded lazily.

        Cost: one rule check per combination of the decision's per-card
        options (2**hand for planning, 2**ready for questing, (ready+heroes)**engaged
        for defense, (engaged+1)**ready for attack). Raises TooManyActionsError
        when that product exceeds ``limit``; use ``sample_action`` and
        ``is_legal`` instead."""
        self._require_decision()
        slots, options, rows = enumerate_legal(self._s, limit)
        if slots.shape[0] == 1 and slots[0] == TOO_MANY:
            raise TooManyActionsError(
                f"{self.stage.label} has more than {limit} candidate actions; "
                "use sample_action() and is_legal(), or raise the limit"
            )
        return LegalActions(self.stage, slots, options, rows)

    def why_illegal(self, action: Action) -> str | None:
        """None if ``action`` is legal now, else the reason."""
        try:
            self._checked_copy(action)
        except IllegalActionError as error:
            return str(error)
        return None

    def is_legal(self, action: Action) -> bool:
        return self.why_illegal(action) is None

    def apply(self, action: Action) -> None:
        """Apply the pending decision and run the game to the next one.

        Raises IllegalActionError (saying why) and leaves the state unchanged
        if the action is not legal."""
        state, log = self._checked_copy(action)
        self._s = state
        self._record(log)

    def sample_action(self, rng: RandomSource) -> Action:
        """A legal action drawn uniformly, without enumerating them all."""
        self._require_decision()
        act = np.empty(N_CARDS, np.int64)
        if not sample_legal(self._s, _stream(rng), act, 100_000, DEFAULT_ACTION_LIMIT):
            raise TooManyActionsError(f"no legal {self.stage.label} action found by sampling")
        return decode(self.stage, act)

    def policy_action(self, policy: str, rng: RandomSource) -> Action:
        """The choice of the compiled ``random`` or ``expert`` policy (docs/lotr-rules.md)."""
        self._require_decision()
        act = np.empty(N_CARDS, np.int64)
        policy_action(self._s, parse_policy(policy), _stream(rng), act, np.empty_like(self._s))
        return decode(self.stage, act)

    def play_out(self, policies: str | Sequence[str], rng: RandomSource) -> Outcome:
        """Play this game to its end in the compiled core, in place.

        ``policies``: one policy name for every decision, or five names for
        planning, questing, travel, defense and attack."""
        names = [policies] * 5 if isinstance(policies, str) else list(policies)
        if len(names) != 5:
            raise ValueError(f"policies: give one name or five (one per decision), got {len(names)}")
        codes = np.array([parse_policy(name) for name in names], np.int64)
        log = self._new_log(rows=_LOG_ROWS * 30)
        outcome = play_out(self._s, codes, _stream(rng), log, np.empty(N_CARDS, np.int64), np.zeros(4, np.int64), np.empty_like(self._s))
        self._record(log)
        return Outcome(int(outcome))

    # -- copies -----------------------------------------------------------------------
    def core_state(self) -> np.ndarray:
        """A copy of the flat state array (``layout``) for compiled agents.

        It holds the true deck order: honest agents determinize it before any use."""
        return self._s.copy()

    def clone(self) -> GameState:
        """An independent copy (deck order included: not for honest agents' eyes)."""
        copy = GameState.__new__(GameState)
        copy._s = self._s.copy()
        copy._events = None if self._events is None else list(self._events)
        return copy

    def determinize(self, player: int | RandomSource = 0, rng: RandomSource | None = None) -> GameState:
        """A copy whose hidden deck orders are re-drawn uniformly among those consistent with the
        observation: ``determinize(player, rng)`` as every game, or ``determinize(rng)``."""
        if rng is None:
            player, rng = 0, player
        copy = self.clone()
        determinize(copy._s, _stream(rng))
        return copy

    # -- records ----------------------------------------------------------------------
    def trace(self) -> list[Event]:
        """The recorded events (requires ``trace=True``)."""
        if self._events is None:
            raise ValueError("this game was created without trace=True")
        return list(self._events)

    def trace_text(self) -> str:
        """The game so far, round by round."""
        return format_trace(self.trace())

    def to_dict(self) -> dict:
        """The full state (hidden deck order included) as JSON-ready data."""
        return state_to_dict(self._s)

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict) -> GameState:
        """The state of ``to_dict`` data; ValueError naming a missing or mistyped field. The fields need
        not agree with each other (a hand-made position may be odd on purpose): see ``from_json``."""
        try:
            return cls._from_array(state_from_dict(data))
        except ValueError as error:
            raise ValueError(f"state data: {error}") from None

    @classmethod
    def from_json(cls, text: str) -> GameState:
        """The state of ``to_json`` text (e.g. a model's input). Raises ValueError, one line naming the
        problem, for text that is not JSON, a missing or mistyped field, or fields that disagree (a card
        in two zones, a deck position beyond its deck, a hero in the staging area)."""
        try:
            if not isinstance(text, (str, bytes, bytearray)):
                raise ValueError(f"expected a string, got {type(text).__name__}")  # noqa: TRY004
            try:
                data = json.loads(text)
            except (ValueError, RecursionError) as error:  # JSONDecodeError, UnicodeDecodeError; nested too deep
                raise ValueError(f"not valid JSON: {error}") from None
            array = state_from_dict(data)
            check_consistency(data)
        except ValueError as error:
            raise ValueError(f"state JSON: {error}") from None
        return cls._from_array(array)

    @classmethod
    def from_core(cls, array: np.ndarray) -> GameState:
        """The state of a flat state array (``core_state()``; a copy)."""
        return cls._from_array(np.array(array, np.int64))

    @classmethod
    def _from_array(cls, array: np.ndarray) -> GameState:
        state = cls.__new__(cls)
        state._s = array
        state._events = None
        return state

    def __eq__(self, other) -> bool:
        return isinstance(other, GameState) and np.array_equal(self._s, other._s)

    __hash__ = None

    def __repr__(self) -> str:
        where = self.outcome.label if self.is_over else f"{self.stage.label} pending"
        return f"<GameState {self.difficulty}, round {self.round}, threat {self.threat}, {where}>"

    # -- internals --------------------------------------------------------------------
    def _require_decision(self) -> None:
        if self.is_over:
            raise IllegalActionError("the game is over: there is no decision to make")

    def _new_log(self, rows: int = _LOG_ROWS) -> np.ndarray | None:
        return None if self._events is None else np.zeros((rows, L.EVENT_WIDTH), np.int64)

    def _record(self, log: np.ndarray | None) -> None:
        if self._events is not None:
            self._events.extend(Event(*map(int, row)) for row in log[1 : log[0, 0] + 1])

    def _checked_copy(self, action: Action) -> tuple[np.ndarray, np.ndarray | None]:
        self._require_decision()
        stage = self.stage
        if getattr(action, "stage", None) != stage:
            raise IllegalActionError(
                f"the pending decision is {stage.label}: expected a {stage.label} action, got {action!r}"
            )
        state = self._s.copy()
        err = np.zeros(4, np.int64)
        log = self._new_log()
        if apply_action(state, encode(action), err, log) != L.OK:
            raise IllegalActionError(rule_error_message(err))
        return state, log


class LegalActions(Sequence):
    """The legal actions of one decision, decoded on access."""

    __slots__ = ("_options", "_rows", "_slots", "stage")

    def __init__(self, stage: Stage, slots: np.ndarray, options: np.ndarray, rows: np.ndarray):
        self.stage = stage
        self._slots = slots.tolist()
        self._options = options.tolist()
        self._rows = rows

    def __len__(self) -> int:
        return self._rows.shape[0]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        values = (options[k] for options, k in zip(self._options, self._rows[index].tolist()))
        choices = [(card, value) for card, value in zip(self._slots, values) if value != L.NO_CHOICE]
        return decode_choices(self.stage, choices)

    def __repr__(self) -> str:
        return f"<{len(self)} legal {self.stage.label} actions>"
