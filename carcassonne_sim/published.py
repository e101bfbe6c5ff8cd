"""The paper's published results (the Carcassonne MCTS / MCTS-RAVE / Star2.5 paper) as plain data: Table III
(the experiments, their games and minutes), Table V (each agent against the random agent, RA) and the three
head-to-head tables (MCTS vs Star2.5, MCTS-RAVE vs Star2.5, MCTS-RAVE vs MCTS).

Reading of the extracted text: a head-to-head table's four columns are the first-named agent as player 1, the
other as player 1, the first-named as player 2, the other as player 2 (the win rates of a game's two players
then sum to 100 % less the draws, and each reward is the difference of the two scores of the same games). The
extraction lost the minus signs of the rewards; they are restored from the scores. Table V's sentence has every
agent "playing as second against the random agent", who "was always beaten": a win rate of 100 %.

As report rows (``PUBLISHED``): the first-named agent's win rate as player 1 (percent, with the 95 % normal
half-width of its games) and, in ``params["seats"]``, per seat of the first-named agent its win rate, games, that
half-width and
the paper's four measures (reward ``margin``, final ``score``, ``mpg``, ``twm``) for it and for its opponent.
"""

from __future__ import annotations

import math

from gamecore.published import Published

# Table III: experiment -> (total games, minutes per game, total minutes)
TABLE3 = {
    "MCTS vs RA (parameter tuning)": (300, 36, 10_800),
    "MCTS-RAVE vs RA (parameter tuning)": (900, 31, 32_400),
    "Star2.5 vs RA": (100, 20.58, 2_058),
    "MCTS vs Star2.5": (140, 55.79, 7_811),
    "MCTS-RAVE vs Star2.5": (140, 55.79, 7_811),
    "MCTS-RAVE vs MCTS": (200, 71, 14_200),
}
TABLE3_MINUTES = 75_080
ROLLOUTS_PER_STEP = 100  # section IV: the vanilla MCTS's simulations per simulation step
EXPLORATION = 3.0  # section IV: C, as in Heyden (2009)

MEASURES = ("margin", "score", "mpg", "twm")
# Table V, agents in the second seat against RA: agent -> (reward, score, mpg, twm); RA lost every game
TABLE5 = {
    "mcts": (93.45, 107.44, 14.98, 0.57),
    "mcts-rave": (95.74, 109.42, 15.47, 0.59),
    "star25": (69.93, 85.41, 12.91, 0.47),
}
TABLE5_GAMES = {"star25": 100}  # Table III; the MCTS agents' Table V games are not stated

# (first-named, other) -> (table, games per seat, {seat of the first-named: (its win %, the other's win %,
# its (reward, score, mpg, twm), the other's (score, mpg, twm))})
MATCHES = {
    ("mcts", "star25"): ("Table V, MCTS vs Star2.5", 70, {
        "first": (88.57, 2.86, (20.29, 80.54, 13.10, 0.48), (60.26, 11.03, 0.41)),
        "second": (77.14, 22.86, (16.82, 77.11, 12.72, 0.49), (60.29, 11.63, 0.41)),
    }),
    ("mcts-rave", "star25"): ("Table VI, MCTS-RAVE vs Star2.5", 70, {
        "first": (84.29, 14.29, (18.30, 80.66, 13.33, 0.50), (62.36, 11.11, 0.40)),
        "second": (78.57, 20.00, (17.54, 80.00, 13.17, 0.52), (62.46, 11.48, 0.41)),
    }),
    ("mcts-rave", "mcts"): ("Table VII, MCTS-RAVE vs MCTS", 100, {
        "first": (51.0, 49.0, (0.11, 80.05, 13.49, 0.50), (79.94, 13.32, 0.51)),
        "second": (36.0, 64.0, (-2.67, 78.08, 12.61, 0.48), (80.75, 13.71, 0.51)),
    }),
}
BEST_MATCHUP = ("mcts-rave", "star25")  # the paper's best: 84.29 % first, 78.57 % second


def _half_width(percent: float, games: int | None) -> float | None:
    if not games:
        return None
    rate = percent / 100
    return 196 * math.sqrt(rate * (1 - rate) / games)


def _seat(win: float, other_win: float, games: int | None, mine: tuple, theirs: tuple) -> dict:
    margin, score, mpg, twm = mine
    return {"win_rate": win, "games": games, "interval": _half_width(win, games), "margin": margin, "score": score,
            "mpg": mpg, "twm": twm,
            "opponent": {"win_rate": other_win, "margin": -margin, "score": theirs[0], "mpg": theirs[1],
                         "twm": theirs[2]}}


def _table5_row(agent: str, values: tuple) -> Published:
    games = TABLE5_GAMES.get(agent)
    margin, score, _, _ = values
    seat = _seat(100.0, 0.0, games, values, (score - margin, math.nan, math.nan))
    return Published("Table V", "carcassonne-random", f"{agent}-random", {}, 100.0, _half_width(100.0, games),
                     games, {"seats": {"second": seat}}, "the agent in the second seat; RA never won")


def _match_row(first: str, other: str, table: str, games: int, seats: dict) -> Published:
    rows = {seat: _seat(win, other_win, games, mine, theirs) for seat, (win, other_win, mine, theirs) in seats.items()}
    return Published(table, "carcassonne-matches", f"{first}-{other}", {}, rows["first"]["win_rate"],
                     _half_width(rows["first"]["win_rate"], games), 2 * games, {"seats": rows},
                     "the same tile sequences in both halves, the seats exchanged")


PUBLISHED: tuple[Published, ...] = (
    *(_table5_row(agent, values) for agent, values in TABLE5.items()),
    *(_match_row(first, other, *spec) for (first, other), spec in MATCHES.items()),
)
