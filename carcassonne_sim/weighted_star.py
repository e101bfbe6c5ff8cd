"""``weighted-star``: Star2.5's search (``kernels.star_search``) with a weighted evaluation, tuned by a study.

Star2.5 values a state by Eq. 4, the difference of the virtual scores (each player's score if the game ended
now). That values an unfinished city at its end-of-game point a tile, a meeple in hand at nothing, and a field
only by the cities already completed around it. Here each kind's share of the virtual scores has a weight, a
claimed field also counts the cities around it not completed yet, and a meeple in hand is worth some points
while the stack lasts (``kernels.weighted_margin``). With the default weights it is Star2.5 (a test checks it
chooses as ``star25`` does). It sees what Star2.5 sees: the board, the scores, the hands and the number of each
tile type not drawn yet, never their order.
"""

from __future__ import annotations

import numpy as np

from carcassonne_sim import kernels as K
from gamecore.interface import PythonAgent
from gamecore.params import Param

WEIGHTS = {  # the parameter of each term of kernels.weighted_margin, by its index in the weights
    "city": K.TERM_CITY, "road": K.TERM_ROAD, "field": K.TERM_FIELD, "monastery": K.TERM_MONASTERY,
    "field_open": K.TERM_FIELD_OPEN, "meeple": K.W_MEEPLE,
}
PARAMS = (
    Param("plies", int, K.STAR25_PLIES, 1, 3,
          help="decision levels searched, chance levels between (2: Star2.5's depth 3 with chance counted)"),
    Param("probing", int, K.STAR25_PROBING, 0, 20, help="Star2.5's probing factor (0: Star1)"),
    Param("city", float, 1.0, 0.0, 4.0, help="weight of an unfinished city's end points (1 a tile and pennant)"),
    Param("road", float, 1.0, 0.0, 4.0, help="weight of an unfinished road's end points (1 a tile)"),
    Param("field", float, 1.0, 0.0, 4.0, help="weight of a field's end points (3 a completed city it borders)"),
    Param("monastery", float, 1.0, 0.0, 4.0, help="weight of an unfinished monastery's end points (1 + its neighbours)"),
    Param("field_open", float, 0.0, 0.0, 4.0,
          help="weight of a claimed field's 3 points for each city it borders that is not completed yet"),
    Param("meeple", float, 0.0, 0.0, 20.0,
          help="points a meeple in hand is worth at the start, times the share of the stack left"),
)
AGENT = PythonAgent("weighted-star", "carcassonne_sim.weighted_star:make", PARAMS,
                    help="Star2.5's search with a weighted Eq. 4: each kind's virtual points, open cities around "
                         "claimed fields and meeples in hand weighted (carcassonne_sim/weighted_star.py); its "
                         "defaults are Star2.5")


def weights_of(params: dict) -> np.ndarray:
    """``kernels.star_search``'s weights for a ``weighted-star``'s parameters (Eq. 4 unweighted where they are
    Star2.5's)."""
    weights = np.zeros(K.N_WEIGHTS)
    for name, index in WEIGHTS.items():
        weights[index] = params[name]
    weights[K.W_WEIGHTED] = float(not np.array_equal(weights[:K.W_WEIGHTED], K.EQ4[:K.W_WEIGHTED]))
    return weights


class WeightedStar:
    """``choose`` searches each state with the spec's depth, probing factor and weights."""

    def __init__(self, role: str, spec):
        p = spec.as_dict()
        self.plies, self.probing, self.weights = p["plies"], p["probing"], weights_of(p)
        self.counts = np.zeros(K.N_COUNTS, np.int64)

    def choose(self, states: np.ndarray, uniforms: np.ndarray, mode: str):
        acts = np.zeros((len(states), K.ACTION_SIZE), np.int64)
        for i, state in enumerate(states):
            K.star_search(state, self.plies, self.probing, self.weights, acts[i], self.counts)
        return acts, None


def make(role: str, spec) -> WeightedStar:
    return WeightedStar(role, spec)
