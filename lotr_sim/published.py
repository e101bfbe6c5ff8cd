"""The thesis's published results (Godlewski 2022), as plain data for "ours vs published":
win rates in percent with the thesis's 95 % binomial half-width (Eq. 6.1), copied from the text of Table 3.2 (random
agent, ``random-baseline``), Table 6.1 (vanilla MCTS vs action reduction, ``mcts-reduction``), Table 6.2 (MCTS setups
at budget 40, ``mcts-setups``), Figure 6.2 (playouts per node at budget 200, ``mcts-ppn``: only the peaks the text
states), Table 6.3 (budgets, ``mcts-budget``), Table 6.4 (Q-learning with macro actions, ``rl-q-macro``), Table 6.5
(actor-critic with macro actions, ``rl-ac-macro``), Table 6.6 (state encodings, ``rl-encodings``), Tables 6.7-6.9
(direct actor-critic after hyperparameter optimisation, ``rl-hpo-direct``) and Table 6.10 (best players,
``best-players``), plus Table 5.2's ``hp.choice`` space (``HPO_CHOICES``). Setups are in the project's short form
planning-questing-defense (travel and attack random); parameter names follow the project's agents (``budget``,
``ppn``, ``reduction``, ``algo``, ``encoding``, ``neurons``, ``lr``, with a stage prefix such as ``planning.lr`` where
the stages differ), ``parameters`` is the thesis's shared (*) vs distinct (**) parameter policy, and
``time_per_game_s``, ``training_time_s`` and ``tuning_time_h`` are its timings. Only Table 3.2 states its numbers of
games; elsewhere ``games`` is None and the note gives the count the interval implies. ``oracle = True`` marks the
MCTS rows, whose search docs/lotr-rules.md describes as not honest (it knows both deck orders and keeps the best
rolled outcomes), so they are no target for an honest agent. ``RULES_RANDOM`` is not the thesis's: it is the random
agent under the corrected rules of docs/lotr-rules.md (4,000,000 games each), the reference that replaces Table 3.2 here.
"""

from __future__ import annotations

import math

from gamecore.published import Published

# The random agent under the corrected rules (docs/lotr-rules.md, "The thesis's random agent"): 4,000,000 games each.
RULES_RANDOM = {"easy": 54.15, "medium": 52.80, "hard": 4.25}

# Table 5.2: the hp.choice lists of the direct actor-critic hyperparameter optimisation (Hyperopt TPE, 100 trials).
HPO_CHOICES: dict[str, list] = {
    "planning.lr": [3.5e-4, 4e-4, 4.5e-4, 5e-4, 5.5e-4, 6e-4, 6.5e-4, 7e-4],
    "questing.lr": [6e-4, 6.5e-4, 7e-4, 7.5e-4, 8e-4, 8.5e-4, 9e-4, 9.5e-4, 10e-4],
    "defense.lr": [3.5e-4, 4e-4, 4.5e-4, 5e-4, 5.5e-4, 6e-4],
    "planning.neurons": [50, 75, 100, 125, 150],
    "questing.neurons": [50, 75, 100, 125, 150],
    "defense.neurons": [50, 75, 100],
}

SHARING = {True: "shared", False: "distinct"}  # the thesis's rl* and rl** rows
_MCTS_N = "games not stated; the ± implies about 1,000"
_RL_N = "games not stated; the ± implies about 10,000"
_N62 = _MCTS_N + "; ppn not stated; reduction implied by the text, not the caption"
_T66 = (
    "caption: actor-critic with macro actions, 'for hard and medium levels three encoding schemes were examined', "
    "'Difficulty hard' (four encodings are shown; hard assumed)"
)
_T67 = (
    "caption says rl-rl-random, but the text calls these 'setups with one RL agent' and Table 6.10 gives 92.9 ± 0.5 "
    "for random-rl-random; label follows the text"
)
_BEST_WINDOW = "the best 1,000-episode window of one of a 100-trial study's trainings"
_HUNDRED = "the text says 'only networks containing 100 neurons in the hidden layer prove effective', contrary to this"


def _t66(label: str, shared: bool | None, encoding: int, win_rate: float, interval: float, equals: str = ""):
    """A cell of Table 6.6 (ac-macro, hard); ``equals`` names the direct actor-critic best the figure equals."""
    thesis = {None: "", True: "thesis: rl*-rl*-random; ", False: "thesis: rl**-rl**-random; "}[shared]
    also = f"; equals {equals}, so possibly direct and tuned rather than macro" if equals else ""
    params = {"algo": "ac-macro", "encoding": encoding} | ({} if shared is None else {"parameters": SHARING[shared]})
    return Published("Table 6.6", "rl-encodings", label, {"difficulty": "hard"}, win_rate, interval, None, params,
                     thesis + _T66 + also + "; " + _RL_N, maximum=_BEST_WINDOW if equals else "")


PUBLISHED: tuple[Published, ...] = (
    # Table 3.2: random agent, 1,000 / 10,000 / 100,000 episodes.
    Published("Table 3.2", "random-baseline", "random-random-random", {"difficulty": "easy"}, 55.4, 3.08, 1000),
    Published("Table 3.2", "random-baseline", "random-random-random", {"difficulty": "easy"}, 55.97, 0.97, 10000),
    Published("Table 3.2", "random-baseline", "random-random-random", {"difficulty": "easy"}, 55.71, 0.31, 100000),
    Published("Table 3.2", "random-baseline", "random-random-random", {"difficulty": "medium"}, 52.6, 3.09, 1000),
    Published("Table 3.2", "random-baseline", "random-random-random", {"difficulty": "medium"}, 53.74, 0.98, 10000),
    Published("Table 3.2", "random-baseline", "random-random-random", {"difficulty": "medium"}, 53.83, 0.31, 100000),
    Published("Table 3.2", "random-baseline", "random-random-random", {"difficulty": "hard"}, 4.7, 1.31, 1000),
    Published("Table 3.2", "random-baseline", "random-random-random", {"difficulty": "hard"}, 4.18, 0.39, 10000),
    Published("Table 3.2", "random-baseline", "random-random-random", {"difficulty": "hard"}, 4.53, 0.13, 100000),
    # Table 6.1: vanilla MCTS vs MCTS with action reduction, hard, budget 40 (ppn not stated).
    Published("Table 6.1", "mcts-reduction", "mcts-random-random", {"difficulty": "hard"}, 2.1, 0.8, None,
              {"budget": 40, "reduction": False, "oracle": True}, _MCTS_N + "; ppn not stated"),
    Published("Table 6.1", "mcts-reduction", "mcts-random-random", {"difficulty": "hard"}, 4.0, 1.2, None,
              {"budget": 40, "reduction": True, "oracle": True}, _MCTS_N + "; ppn not stated"),
    Published("Table 6.1", "mcts-reduction", "random-mcts-random", {"difficulty": "hard"}, 7.0, 1.5, None,
              {"budget": 40, "reduction": False, "oracle": True}, _MCTS_N + "; ppn not stated"),
    Published("Table 6.1", "mcts-reduction", "random-mcts-random", {"difficulty": "hard"}, 21.8, 2.5, None,
              {"budget": 40, "reduction": True, "oracle": True}, _MCTS_N + "; ppn not stated"),
    Published("Table 6.1", "mcts-reduction", "random-random-mcts", {"difficulty": "hard"}, 15.9, 2.2, None,
              {"budget": 40, "reduction": False, "oracle": True}, _MCTS_N + "; ppn not stated"),
    Published("Table 6.1", "mcts-reduction", "random-random-mcts", {"difficulty": "hard"}, 21.0, 2.5, None,
              {"budget": 40, "reduction": True, "oracle": True}, _MCTS_N + "; ppn not stated"),
    # Table 6.2: every MCTS setup at budget 40. Reduction is not in the caption; the text ("MCTS agents with action
    # reduction") and the hard column (close to Table 6.1's reduction column) imply it.
    Published("Table 6.2", "mcts-setups", "mcts-random-random", {"difficulty": "easy"}, 50.7, 3.1, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "mcts-random-random", {"difficulty": "medium"}, 50.1, 3.1, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "mcts-random-random", {"difficulty": "hard"}, 5.1, 1.4, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "random-mcts-random", {"difficulty": "easy"}, 93.1, 1.6, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "random-mcts-random", {"difficulty": "medium"}, 94.7, 1.4, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "random-mcts-random", {"difficulty": "hard"}, 19.0, 2.4, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "random-random-mcts", {"difficulty": "easy"}, 80.0, 2.4, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "random-random-mcts", {"difficulty": "medium"}, 77.6, 2.6, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "random-random-mcts", {"difficulty": "hard"}, 19.3, 2.5, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "mcts-mcts-random", {"difficulty": "easy"}, 89.3, 1.9, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "mcts-mcts-random", {"difficulty": "medium"}, 90.4, 1.8, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "mcts-mcts-random", {"difficulty": "hard"}, 14.3, 2.2, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "mcts-random-mcts", {"difficulty": "easy"}, 87.5, 2.0, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "mcts-random-mcts", {"difficulty": "medium"}, 51.3, 3.1, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "mcts-random-mcts", {"difficulty": "hard"}, 12.0, 2.0, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "random-mcts-mcts", {"difficulty": "easy"}, 94.1, 1.4, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "random-mcts-mcts", {"difficulty": "medium"}, 95.8, 1.2, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "random-mcts-mcts", {"difficulty": "hard"}, 32.7, 2.9, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "mcts-mcts-mcts", {"difficulty": "easy"}, 97.5, 1.0, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "mcts-mcts-mcts", {"difficulty": "medium"}, 88.0, 2.0, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    Published("Table 6.2", "mcts-setups", "mcts-mcts-mcts", {"difficulty": "hard"}, 24.3, 2.7, None,
              {"budget": 40, "reduction": True, "oracle": True}, _N62),
    # Figure 6.2: win rate vs ppn at budget 200, hard, "the best MCTS setup". The plotted values are not in the text;
    # only the peak positions are (20 ppn with reduction, 30 ppn vanilla).
    Published("Figure 6.2", "mcts-ppn", "random-mcts-mcts", {"difficulty": "hard"}, 73.6, 2.7, None,
              {"budget": 200, "ppn": 20, "reduction": True, "oracle": True},
              "peak with reduction at 20 ppn (text); the figure's values are not in the text, so the win rate is "
              "Table 6.3's budget-200 row (optimal ppn 20, same setup); 'best MCTS setup' taken as random-mcts-mcts "
              "(best hard setup of Table 6.2, the setup of Table 6.3 per Section 6.4); " + _MCTS_N),
    Published("Figure 6.2", "mcts-ppn", "random-mcts-mcts", {"difficulty": "hard"}, math.nan, None, None,
              {"budget": 200, "ppn": 30, "reduction": False, "oracle": True},
              "vanilla peak at 30 ppn (text); its win rate is not stated (NaN); 'best MCTS setup' taken as "
              "random-mcts-mcts; the text adds only that after 30 ppn both curves fall below their 1-ppn values"),
    # Table 6.3: budgets with their optimal ppn, hard; the setup is random-mcts-mcts with reduction (Section 6.4 and
    # the text's "MCTS with action reduction"). The text's discussion cites it as "Tab. 6.2".
    Published("Table 6.3", "mcts-budget", "random-mcts-mcts", {"difficulty": "hard"}, 73.6, 2.7, None,
              {"budget": 200, "ppn": 20, "reduction": True, "oracle": True, "time_per_game_s": 1.49},
              "setup and difficulty from Section 6.4 and the text, not the caption; " + _MCTS_N),
    Published("Table 6.3", "mcts-budget", "random-mcts-mcts", {"difficulty": "hard"}, 78.7, 2.5, None,
              {"budget": 400, "ppn": 40, "reduction": True, "oracle": True, "time_per_game_s": 2.19},
              "setup and difficulty from Section 6.4 and the text, not the caption; " + _MCTS_N),
    Published("Table 6.3", "mcts-budget", "random-mcts-mcts", {"difficulty": "hard"}, 80.3, 2.5, None,
              {"budget": 600, "ppn": 50, "reduction": True, "oracle": True, "time_per_game_s": 3.63},
              "setup and difficulty from Section 6.4 and the text, not the caption; " + _MCTS_N),
    Published("Table 6.3", "mcts-budget", "random-mcts-mcts", {"difficulty": "hard"}, 82.8, 2.3, None,
              {"budget": 800, "ppn": 80, "reduction": True, "oracle": True, "time_per_game_s": 3.77},
              "setup and difficulty from Section 6.4 and the text, not the caption; " + _MCTS_N),
    # Table 6.4: Q-learning with macro actions, encoding 0 (its first row is the random agent, no RL).
    Published("Table 6.4", "rl-q-macro", "random-random-random", {"difficulty": "easy"}, 56.0, 1.0, None,
              {}, "random baseline row of the table (no RL agent); " + _RL_N),
    Published("Table 6.4", "rl-q-macro", "random-random-random", {"difficulty": "medium"}, 53.7, 1.0, None,
              {}, "random baseline row of the table (no RL agent); " + _RL_N),
    Published("Table 6.4", "rl-q-macro", "random-random-random", {"difficulty": "hard"}, 4.2, 0.4, None,
              {}, "random baseline row of the table (no RL agent); " + _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-random-random", {"difficulty": "easy"}, 69.1, 0.9, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-random-random", {"difficulty": "medium"}, 58.1, 1.0, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-random-random", {"difficulty": "hard"}, 6.9, 0.5, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "random-rl-random", {"difficulty": "easy"}, 92.2, 0.5, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "random-rl-random", {"difficulty": "medium"}, 95.3, 0.4, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "random-rl-random", {"difficulty": "hard"}, 29.9, 0.9, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "random-random-rl", {"difficulty": "easy"}, 65.2, 0.9, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "random-random-rl", {"difficulty": "medium"}, 62.6, 1.0, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "random-random-rl", {"difficulty": "hard"}, 7.1, 0.5, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-rl-random", {"difficulty": "easy"}, 94.6, 0.4, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-rl-random", {"difficulty": "medium"}, 96.9, 0.3, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-rl-random", {"difficulty": "hard"}, 60.1, 1.0, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-random-rl", {"difficulty": "easy"}, 77.6, 0.8, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-random-rl", {"difficulty": "medium"}, 80.3, 0.8, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-random-rl", {"difficulty": "hard"}, 18.6, 0.8, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "random-rl-rl", {"difficulty": "easy"}, 91.5, 0.6, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "random-rl-rl", {"difficulty": "medium"}, 95.5, 0.4, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "random-rl-rl", {"difficulty": "hard"}, 29.4, 0.9, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-rl-rl", {"difficulty": "easy"}, 94.2, 0.5, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-rl-rl", {"difficulty": "medium"}, 97.2, 0.3, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    Published("Table 6.4", "rl-q-macro", "rl-rl-rl", {"difficulty": "hard"}, 59.6, 1.0, None,
              {"algo": 'q-macro', "encoding": 0}, _RL_N),
    # Table 6.5: actor-critic with macro actions, encoding 0.
    Published("Table 6.5", "rl-ac-macro", "rl-random-random", {"difficulty": "easy"}, 69.0, 0.9, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "rl-random-random", {"difficulty": "medium"}, 66.3, 0.9, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "rl-random-random", {"difficulty": "hard"}, 11.2, 0.6, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "random-rl-random", {"difficulty": "easy"}, 91.2, 0.6, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "random-rl-random", {"difficulty": "medium"}, 91.4, 0.6, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "random-rl-random", {"difficulty": "hard"}, 28.6, 0.9, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "random-random-rl", {"difficulty": "easy"}, 63.7, 0.9, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "random-random-rl", {"difficulty": "medium"}, 54.9, 1.0, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "random-random-rl", {"difficulty": "hard"}, 7.0, 0.5, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "rl-rl-random", {"difficulty": "easy"}, 95.0, 0.4, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "rl-rl-random", {"difficulty": "medium"}, 95.9, 0.4, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "rl-rl-random", {"difficulty": "hard"}, 66.2, 0.9, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "rl-random-rl", {"difficulty": "easy"}, 77.1, 0.8, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "rl-random-rl", {"difficulty": "medium"}, 72.1, 0.9, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "rl-random-rl", {"difficulty": "hard"}, 16.3, 0.7, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "random-rl-rl", {"difficulty": "easy"}, 91.3, 0.6, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "random-rl-rl", {"difficulty": "medium"}, 93.7, 0.5, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "random-rl-rl", {"difficulty": "hard"}, 33.6, 0.9, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "rl-rl-rl", {"difficulty": "easy"}, 94.8, 0.4, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "rl-rl-rl", {"difficulty": "medium"}, 96.5, 0.4, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    Published("Table 6.5", "rl-ac-macro", "rl-rl-rl", {"difficulty": "hard"}, 64.4, 0.9, None,
              {"algo": 'ac-macro', "encoding": 0}, _RL_N),
    # Table 6.6: state encodings 0-3, hard. Uncertain: the caption says macro actions, yet the encoding-2/3 bests
    # equal the direct actor-critic HPO results (92.9 = Table 6.7, 94.7 = Table 6.8, 95.3 = Table 6.9).
    _t66("random-rl-random", None, 0, 34.2, 0.9),
    _t66("random-rl-random", None, 1, 27.5, 0.9),
    _t66("random-rl-random", None, 2, 92.9, 0.5,
         equals="Table 6.7's direct actor-critic best (100 neurons, lr 6.5e-4)"),
    _t66("random-rl-random", None, 3, 80.7, 0.8),
    _t66("rl-rl-random", True, 0, 47.8, 1.0),
    _t66("rl-rl-random", True, 1, 61.5, 0.9),
    _t66("rl-rl-random", True, 2, 94.7, 0.4, equals="Table 6.8's direct actor-critic best"),
    _t66("rl-rl-random", True, 3, 83.2, 0.7),
    _t66("rl-rl-random", False, 0, 42.8, 1.0),
    _t66("rl-rl-random", False, 1, 40.6, 1.0),
    _t66("rl-rl-random", False, 2, 86.1, 0.7),
    _t66("rl-rl-random", False, 3, 95.3, 0.4, equals="Table 6.9's direct actor-critic best"),
    # Table 6.7: direct actor-critic after HPO, one RL agent (see _T67), hard.
    Published("Table 6.7", "rl-hpo-direct", "random-rl-random", {"difficulty": "hard"}, 92.9, 0.5, None,
              {"algo": "ac-direct", "neurons": 100, "lr": 6.5e-4, "encoding": 2}, _T67 + "; " + _RL_N, maximum=_BEST_WINDOW),
    Published("Table 6.7", "rl-hpo-direct", "random-rl-random", {"difficulty": "hard"}, 88.7, 0.6, None,
              {"algo": "ac-direct", "neurons": 100, "lr": 8e-4, "encoding": 2}, _T67 + "; " + _RL_N, maximum=_BEST_WINDOW),
    Published("Table 6.7", "rl-hpo-direct", "random-rl-random", {"difficulty": "hard"}, 83.7, 0.7, None,
              {"algo": "ac-direct", "neurons": 70, "lr": 7.5e-4, "encoding": 3},
              _T67 + "; 70 neurons is not in Table 5.2's list; " + _RL_N, maximum=_BEST_WINDOW),
    # Table 6.8: direct actor-critic after HPO, rl*-rl*-random (planning and questing share neurons and lr), hard.
    Published("Table 6.8", "rl-hpo-direct", "rl-rl-random", {"difficulty": "hard"}, 94.7, 0.4, None,
              {"algo": "ac-direct", "neurons": 130, "lr": 9e-4, "encoding": 2, "parameters": "shared"},
              "thesis: rl*-rl*-random; 130 neurons and planning lr 9e-4 are not in Table 5.2's lists; " + _HUNDRED
              + "; " + _RL_N, maximum=_BEST_WINDOW),
    Published("Table 6.8", "rl-hpo-direct", "rl-rl-random", {"difficulty": "hard"}, 87.6, 0.7, None,
              {"algo": "ac-direct", "neurons": 70, "lr": 4.5e-4, "encoding": 2, "parameters": "shared"},
              "thesis: rl*-rl*-random; 70 neurons and questing lr 4.5e-4 are not in Table 5.2's lists; " + _RL_N, maximum=_BEST_WINDOW),
    Published("Table 6.8", "rl-hpo-direct", "rl-rl-random", {"difficulty": "hard"}, 82.7, 0.7, None,
              {"algo": "ac-direct", "neurons": 80, "lr": 7e-4, "encoding": 2, "parameters": "shared"},
              "thesis: rl*-rl*-random; 80 neurons is not in Table 5.2's lists; " + _RL_N, maximum=_BEST_WINDOW),
    # Table 6.9: direct actor-critic after HPO, rl**-rl**-random (distinct parameters per stage), hard.
    Published("Table 6.9", "rl-hpo-direct", "rl-rl-random", {"difficulty": "hard"}, 95.3, 0.4, None,
              {"algo": "ac-direct", "planning.neurons": 130, "planning.lr": 3e-4, "questing.neurons": 120,
               "questing.lr": 9e-4, "encoding": 3, "parameters": "distinct"},
              "thesis: rl**-rl**-random (caption as Table 6.7's); 130 and 120 neurons and planning lr 3e-4 are not "
              "in Table 5.2's lists; " + _HUNDRED + "; " + _RL_N, maximum=_BEST_WINDOW),
    Published("Table 6.9", "rl-hpo-direct", "rl-rl-random", {"difficulty": "hard"}, 89.7, 0.6, None,
              {"algo": "ac-direct", "planning.neurons": 130, "planning.lr": 5e-4, "questing.neurons": 90,
               "questing.lr": 5.5e-4, "encoding": 3, "parameters": "distinct"},
              "thesis: rl**-rl**-random; 130 and 90 neurons and questing lr 5.5e-4 are not in Table 5.2's lists; "
              + _RL_N, maximum=_BEST_WINDOW),
    Published("Table 6.9", "rl-hpo-direct", "rl-rl-random", {"difficulty": "hard"}, 87.1, 0.7, None,
              {"algo": "ac-direct", "planning.neurons": 130, "planning.lr": 6e-4, "questing.neurons": 80,
               "questing.lr": 8e-4, "encoding": 3, "parameters": "distinct"},
              "thesis: rl**-rl**-random; 130 and 80 neurons are not in Table 5.2's lists; " + _RL_N, maximum=_BEST_WINDOW),
    Published("Table 6.9", "rl-hpo-direct", "rl-rl-random", {"difficulty": "hard"}, 85.5, 0.7, None,
              {"algo": "ac-direct", "planning.neurons": 120, "planning.lr": 5.5e-4, "questing.neurons": 90,
               "questing.lr": 9e-4, "encoding": 3, "parameters": "distinct"},
              "thesis: rl**-rl**-random; 120 and 90 neurons are not in Table 5.2's lists; " + _RL_N, maximum=_BEST_WINDOW),
    # Table 6.10: the four best players, hard, with average time per game, training time and tuning time.
    Published("Table 6.10", "best-players", "random-mcts-mcts", {"difficulty": "hard"}, 82.8, 2.3, None,
              {"budget": 800, "ppn": 80, "reduction": True, "oracle": True, "time_per_game_s": 3.77,
               "tuning_time_h": 20.9},
              "caption says MCTS budget 200, but the row is Table 6.3's budget-800 row (82.8 ± 2.3, 3.77 s) and "
              "Section 6.4 says 800; training time '-'; " + _MCTS_N),
    Published("Table 6.10", "best-players", "random-rl-random", {"difficulty": "hard"}, 92.9, 0.5, None,
              {"algo": "ac-direct", "time_per_game_s": 0.017, "training_time_s": 1595, "tuning_time_h": 44.8},
              "algo inferred: equals Table 6.7's best (100 neurons, lr 6.5e-4, encoding 2); " + _RL_N, maximum=_BEST_WINDOW),
    Published("Table 6.10", "best-players", "rl-rl-random", {"difficulty": "hard"}, 94.7, 0.4, None,
              {"algo": "ac-direct", "parameters": "shared", "time_per_game_s": 0.021, "training_time_s": 1812,
               "tuning_time_h": 50.1},
              "thesis: (blank)-rl*-random, planning cell empty in the text, taken as rl*; algo inferred: equals "
              "Table 6.8's best (130 neurons, lr 9e-4, encoding 2); " + _RL_N, maximum=_BEST_WINDOW),
    Published("Table 6.10", "best-players", "rl-rl-random", {"difficulty": "hard"}, 95.3, 0.4, None,
              {"algo": "ac-direct", "parameters": "distinct", "time_per_game_s": 0.021, "training_time_s": 1780,
               "tuning_time_h": 49.3},
              "thesis: (blank)-rl**-random, planning cell empty in the text, taken as rl**; algo inferred: equals "
              "Table 6.9's best (encoding 3); " + _RL_N, maximum=_BEST_WINDOW),
)


def published(experiment: str) -> list[Published]:
    """The rows of one experiment (e.g. ``"mcts-setups"``), in the thesis's order."""
    return [row for row in PUBLISHED if row.experiment == experiment]
