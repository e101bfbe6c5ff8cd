"""Carcassonne as a game of the interface (``gamecore``): two seats, the Python state over the compiled rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from carcassonne_sim import encoding
from carcassonne_sim import kernels as K
from carcassonne_sim.encoding import (
    ENCODING_SIZE,
    GLOBAL_SIZE,
    MAX_FRONTIER,
    MAX_SCORE_FEATURE,
    N_DIRECT,
    SLOT_ACTIONS,
    SLOT_SIZE,
)
from carcassonne_sim.published import EXPLORATION, PUBLISHED, ROLLOUTS_PER_STEP
from carcassonne_sim.state_check import check_state
from carcassonne_sim.tiles import KIND_NAMES, LETTERS, MAX_SEGMENTS, N_SEGMENTS, N_STACK, segment_name
from carcassonne_sim.weighted_star import AGENT as WEIGHTED_STAR
from gamecore.contract import joined
from gamecore.errors import IllegalActionError
from gamecore.interface import ActionSpace, CommandLine, Encoder, Game, Preset, Reproduction
from gamecore.params import Param
from gamecore.state import FlatState

EDGE_NAMES = {1: "field", 2: "road", 3: "city"}
SIDE_NAMES = ("north", "east", "south", "west")


@dataclass(frozen=True)
class Play:
    """Place the drawn tile at (``x``, ``y``) (``y`` grows northwards; the start tile is at (0, 0)), turned
    ``rotation`` quarter turns clockwise, with a meeple on its feature ``meeple`` (named as in
    ``legal_actions()``: ``"city N"``, ``"road E-W"``, ``"field En+Wn"``, ``"monastery"``) or none."""

    x: int
    y: int
    rotation: int = 0
    meeple: str | None = None

    def __str__(self) -> str:
        where = f"at ({self.x}, {self.y}) turned {90 * self.rotation}"
        return where + (f", meeple on the {self.meeple}" if self.meeple else ", no meeple")


class CarcassonneState(FlatState):
    """A two-player game of base Carcassonne (``docs/carcassonne-rules.md``); the tile to place is drawn
    before the decision, in sight of both players."""

    kernels = K
    decision = "place"
    check_state = staticmethod(check_state)  # what from_json refuses

    def __init__(self, seed: int = 0, trace: bool = False, by_turn: bool = False):
        super().__init__(seed, np.array([int(by_turn)], np.int64), trace)

    @property
    def tile(self) -> str | None:
        """The letter of the drawn tile (``tiles.TILE_TYPES``), None once the game is over."""
        return None if self.is_over else LETTERS[int(self._s[K.CUR])]

    def scores(self) -> list[int]:
        return [int(self._s[K.SCORE + p]) for p in range(2)]

    def supply(self) -> list[int]:
        """Meeples in each player's hand."""
        return [int(self._s[K.SUPPLY + p]) for p in range(2)]

    def board(self) -> list[tuple[int, int, str, int]]:
        """The placed tiles in order: (x, y, letter, rotation)."""
        s = self._s
        return [(int(s[K.TILE_X + i]), int(s[K.TILE_Y + i]), LETTERS[int(s[K.TILE_TYPE + i])], int(s[K.TILE_ROT + i]))
                for i in range(int(s[K.PLACED]))]

    def meeples(self) -> list[tuple[int, int, str, int]]:
        """The meeples on the board: (x, y, feature name, player)."""
        s, found = self._s, []
        for i, (x, y, letter, rotation) in enumerate(self.board()):
            t = LETTERS.index(letter)
            for seg in range(int(N_SEGMENTS[t])):
                owner = int(s[K.OWNER + MAX_SEGMENTS * i + seg])
                if owner:
                    found.append((x, y, segment_name(t, rotation, seg), owner - 1))
        return found

    def stack(self) -> list[str]:
        """The tiles not yet drawn, top first (hidden information: the players see only their number)."""
        return [LETTERS[int(t)] for t in self._s[K.ORDER + int(self._s[K.TOP]): K.ORDER + K.N_STACK]]

    def legal_actions(self) -> list[Play]:
        """Every legal action, one per outcome (a symmetric tile's equivalent rotations once)."""
        if self.is_over:
            return []
        acts = np.empty((K.MAX_CANDIDATES, K.ACTION_SIZE), np.int64)
        n = K.legal_actions(self._s, acts)
        return [self.action_from_vector(a) for a in acts[:n]]

    def action_from_vector(self, act: np.ndarray) -> Play:
        t, rotation, seg = int(self._s[K.CUR]), int(act[2]), int(act[3])
        return Play(int(act[0]), int(act[1]), rotation, None if seg == K.NO_MEEPLE else segment_name(t, rotation, seg))

    def vector(self, action: Play) -> np.ndarray:
        """The kernels' action for ``action``; IllegalActionError when the drawn tile has no such feature."""
        if not isinstance(action, Play):
            raise IllegalActionError(f"{action!r} is not a Play")
        seg = K.NO_MEEPLE
        if action.meeple is not None:
            if self.is_over or action.rotation not in range(4):
                return np.array([action.x, action.y, action.rotation, 0], np.int64)
            t = int(self._s[K.CUR])
            names = [segment_name(t, action.rotation, s) for s in range(int(N_SEGMENTS[t]))]
            if action.meeple not in names:
                raise IllegalActionError(f"{action} is illegal: tile {self.tile} turned {90 * action.rotation} has "
                                         f"no feature {action.meeple!r}; its features: {', '.join(names)}")
            seg = names.index(action.meeple)
        return np.array([action.x, action.y, action.rotation, seg], np.int64)

    def why_illegal(self, action: Play) -> str | None:
        """The reason ``action`` is illegal, None if it is legal."""
        try:
            vector = self.vector(action)
        except IllegalActionError as error:
            return str(error)
        err = np.zeros(4, np.int64)
        code = int(K.check(self._s, vector, err))
        return None if code == K.OK else f"{action} is illegal: {self._reason(code, action, int(err[1]))}"

    def _reason(self, code: int, action: Play, side: int) -> str:
        if code == K.ERR_EDGE:
            t, r = int(self._s[K.CUR]), action.rotation
            nx, ny = action.x + int(K.DX[side]), action.y + int(K.DY[side])
            j = int(K.tile_at(self._s, nx, ny)) - 1
            theirs = K.EDGE[int(self._s[K.TILE_TYPE + j]), int(self._s[K.TILE_ROT + j]), (side + 2) % 4]
            return (f"edge mismatch on the {SIDE_NAMES[side]} side: the tile's {EDGE_NAMES[int(K.EDGE[t, r, side])]} "
                    f"meets the {EDGE_NAMES[int(theirs)]} of the tile at ({nx}, {ny})")
        player = self.to_move
        return {
            K.ERR_OVER: "the game is over",
            K.ERR_ROTATION: "the rotation is 0-3 quarter turns clockwise",
            K.ERR_OCCUPIED: f"({action.x}, {action.y}) already holds a tile",
            K.ERR_NOT_ADJACENT: f"({action.x}, {action.y}) is not next to a placed tile",
            K.ERR_FEATURE: "the tile has no such feature",
            K.ERR_NO_MEEPLE: f"player {player} has no meeple left",
            K.ERR_CLAIMED: f"the {action.meeple} is already claimed: its feature holds a meeple",
        }[code]

    def apply(self, action: Play) -> None:
        """Play ``action``; IllegalActionError saying why when the rules forbid it (the state is unchanged)."""
        reason = self.why_illegal(action)
        if reason is not None:
            raise IllegalActionError(reason)
        before, player, tile, turn = self.scores(), self.to_move, self.tile, int(self._s[K.PLACED])
        returned = int(self._s[K.RETURNED])
        K.apply(self._s, self.vector(action), np.zeros(4, np.int64))
        if self._trace is not None:
            gained = [after - b for after, b in zip(self.scores(), before)]
            points = ", ".join(f"player {p} +{g}" for p, g in enumerate(gained) if g)
            line = f"turn {turn}: player {player} places {tile} {action}"
            line += f"; scores {points}" if points else ""
            back = int(self._s[K.RETURNED]) - returned
            if back:
                line += f"; {back} tile{'s' if back > 1 else ''} that fit nowhere returned to the bottom"
            self._trace.append(line)

    def observation(self, player: int) -> dict[str, Any]:
        """What ``player`` sees: the board, the meeples, the scores and hands, the drawn tile, the number of
        tiles in the stack and those returned to its bottom in sight; never the order of the rest."""
        s = self._s
        known = int(s[K.KNOWN_BOTTOM])
        return {
            "player": player, "to_move": self.to_move, "tile": self.tile, "board": self.board(),
            "meeples": self.meeples(), "scores": self.scores(), "supply": self.supply(),
            "stack": K.N_STACK - int(s[K.TOP]), "bottom": self.stack()[len(self.stack()) - known:] if known else [],
            "returned": int(s[K.RETURNED]),
        }

    def trace_text(self) -> str:
        a, b = self.scores()
        end = f"final score {a}-{b}: " + ("a draw" if a == b else f"player {0 if a > b else 1} wins")
        left = K.N_STACK - int(self._s[K.TOP])
        if self.is_over and left:
            end += f" ({left} tiles left that fit nowhere)"
        return "\n".join([*(self._trace or []), end if self.is_over else f"score {a}-{b}, game in progress"])


def twm(records: np.ndarray, player: int) -> np.ndarray:
    """Turns with meeples (the paper's Eq. 5): T_m / (turns - 7), T_m the player's turns begun with a meeple in hand
    (his first 7 always are) over his turns that could begin without one, 29 and 28 in a full game; 1.24 at most.
    The reading whose values are the paper's (docs/carcassonne-rules.md, "Metrics")."""
    turns = records[:, K.REC_TURNS + player] - K.MEEPLES_EACH
    return np.where(turns > 0, records[:, K.REC_TWM + player] / np.maximum(turns, 1), 1.0)


SEATS = ("first", "second")
PAPER_BUDGET = 5000  # rollouts per move of the paper's agents here (section IV gives only the 100 per step)
# MCTS-RAVE's C, rollouts per step and b of Eq. 3 (in points, Eq. 4's unit), lost in the paper's text: the best
# trial of studies/carcassonne/paper/carcassonne-rave-tuning.toml (trial 22: +97.6 points against RA on the tuning sequences)
RAVE_C, RAVE_PPN, RAVE_BIAS = 4.3, 10, 0.32


PAPER_MEASURES = ("margin", "score", "mpg", "twm")  # the paper's reward (Eq. 4), final score, mpg and twm (Eq. 5)


def summarise(records: np.ndarray) -> dict[str, Any]:
    """Per seat: the mean margin (Eq. 4), final score, meeples per game (mpg, also by feature kind) and twm, with
    the standard deviations of the paper's four (``<measure>_sd_<seat>``); the games with tiles returned to the
    bottom and ended with tiles left."""
    if not len(records):
        return {name: 0.0 for name in METRICS}
    metrics: dict[str, Any] = {}
    for p, seat in enumerate(SEATS):
        score = records[:, K.REC_SCORE + p]
        per_game = {"margin": score - records[:, K.REC_SCORE + 1 - p], "score": score,
                    "mpg": records[:, K.REC_MEEPLES + p], "twm": twm(records, p)}
        for measure, values in per_game.items():
            metrics[f"{measure}_{seat}"] = float(np.mean(values))
            metrics[f"{measure}_sd_{seat}"] = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
        for k, kind in enumerate(KIND_NAMES):
            metrics[f"meeples_{kind}_{seat}"] = float(records[:, K.REC_KINDS + 4 * p + k].mean())
    metrics["games_with_returns"] = float(np.mean(records[:, K.REC_RETURNED] > 0))
    metrics["games_with_tiles_left"] = float(np.mean(records[:, K.REC_LEFT] > 0))
    if records[:, K.REC_BY_TURN].all():
        metrics["score_by_turn"] = scores_by_turn(records)  # the report's by_turn (tuning.report_by_turn)
    return metrics


def scores_by_turn(records: np.ndarray) -> dict[str, list[float]]:
    """Turn by turn (turn k: the k-th tile placed after the start tile), over the games that played it: each
    seat's mean virtual score after it, the standard deviation of the first seat's lead, and the games."""
    turns = records[:, K.REC_PLACED] - 1
    virtual = records[:, K.REC_VIRTUAL: K.REC_VIRTUAL + 2 * N_STACK].reshape(len(records), N_STACK, 2)
    by_turn: dict[str, list[float]] = {"first": [], "second": [], "lead_sd": [], "games": []}
    for k in range(int(turns.max())):
        scores = virtual[turns > k, k]
        lead = scores[:, 0] - scores[:, 1]
        by_turn["first"].append(round(float(scores[:, 0].mean()), 4))
        by_turn["second"].append(round(float(scores[:, 1].mean()), 4))
        by_turn["lead_sd"].append(round(float(lead.std(ddof=1)), 4) if len(lead) > 1 else 0.0)
        by_turn["games"].append(len(lead))
    return by_turn


METRICS = ("score_first", "score_second", "mpg_first", "mpg_second", "twm_first", "twm_second", "margin_first",
           "margin_second")


def describe(metrics: dict[str, Any], games: int) -> list[str]:
    if not games:
        return []
    lines = [(f"final score: first seat {metrics['score_first']:.2f}, second seat {metrics['score_second']:.2f} "
              f"(first minus second {metrics['margin_first']:+.2f})")]
    for seat in SEATS:
        kinds = ", ".join(f"{kind} {metrics[f'meeples_{kind}_{seat}']:.2f}" for kind in KIND_NAMES)
        lines.append(f"{seat} seat: meeples per game {metrics[f'mpg_{seat}']:.2f} ({kinds}), "
                     f"turns with meeples {metrics[f'twm_{seat}']:.3f}")
    lines.append(f"games with a tile returned to the bottom {100 * metrics['games_with_returns']:.1f}%, "
                 f"ended with tiles that fit nowhere {100 * metrics['games_with_tiles_left']:.1f}%")
    return lines


GAME = Game(
    name="carcassonne",
    kernels=joined(K, encoding),
    roles=SEATS,
    options=(Param("by_turn", bool, False, help="keep both players' virtual scores after every turn (the report's "
                                                 "figure of them, the paper's Figure 4); off, no time is spent on it"),),
    policies=("random", "star25", "star25-deep"),
    new_game=CarcassonneState,
    state_from_json=CarcassonneState.from_json,
    state_from_core=CarcassonneState.from_core,
    summarise=summarise,
    describe=describe,
    help="Carcassonne, the base game for two players (72 tiles, meeples on roads, cities, monasteries and "
         "fields; docs/carcassonne-rules.md)",
    metric_names=METRICS,
    encoders=(Encoder("slots", dict.fromkeys(SEATS, ENCODING_SIZE), low=-1.0, high=MAX_SCORE_FEATURE,
                      layout=(GLOBAL_SIZE, MAX_FRONTIER, SLOT_SIZE),
                      help="the drawn tile, the tiles to come, scores and meeples, and per open position (a slot) "
                           "its neighbours' edges and features and the drawn tile's fits and meeple choices "
                           "(carcassonne_sim/encoding.py)"),),
    action_spaces=(ActionSpace("direct", dict.fromkeys(SEATS, N_DIRECT), per_slot=SLOT_ACTIONS,
                               help="slot x rotation x meeple (none or a segment): the open positions in a canonical "
                                    "order (carcassonne_sim/encoding.py)"),),
    invariants="carcassonne_sim.invariants:broken",
    reproduction=Reproduction(
        agents=(WEIGHTED_STAR,),
        presets=(
            Preset("mcts", "mcts", {"c": EXPLORATION, "ppn": ROLLOUTS_PER_STEP, "budget": PAPER_BUDGET,
                                    "reward": "margin", "final": "visits"},
                   help="the paper's vanilla MCTS: UCT with C = 3, 100 rollouts per simulation step, Eq. 4 backed "
                        "up, most visits; the budget (rollouts per move, which the paper does not give) chosen by "
                        "studies/carcassonne/paper/carcassonne-tuning.toml"),
            Preset("mcts-rave", "mcts", {"c": RAVE_C, "ppn": RAVE_PPN, "budget": PAPER_BUDGET, "reward": "margin",
                                         "final": "visits", "rave": True, "rave_bias": RAVE_BIAS},
                   help="the paper's MCTS-RAVE (Eq. 3): MCTS with all-moves-as-first values; its C, rollouts per "
                        "step and RAVE bias, lost in the paper's text, chosen by "
                        "studies/carcassonne/paper/carcassonne-rave-tuning.toml"),
        ),
        published=PUBLISHED,
        seat_measures=PAPER_MEASURES,
    ),
    command_line=CommandLine(draw="carcassonne_sim.picture:draw_board"),
)
