"""The compiled agent row: the float vector a compiled search or policy reads its parameters from.

The first ``GAME_COLUMNS`` columns mean the same in every game; a game's own
search options (LOTR's action reductions) take the columns from
``GAME_COLUMNS`` on, named by the game (``Game.search.params``).
"""

KIND, BUDGET, PPN, C, PLAYOUT, FINAL, ORACLE, BUDGET_PER, RAVE, RAVE_BIAS, REWARD, PRIOR, LEAF = range(13)
GAME_COLUMNS = 13
ROW_WIDTH = 16
FINAL_RULES = ("visits", "mean")  # most visits | best mean
BUDGET_UNITS = ("decision", "action")  # flat Monte Carlo: the budget shared by the root's actions | for each
BUDGET_PER_ACTION = BUDGET_UNITS.index("action")
REWARDS = ("outcome", "margin")  # the search's reward: the game's (1 win, 0.5 draw, 0 loss) | score margin
REWARD_MARGIN = REWARDS.index("margin")
LEAVES = ("playout", "value")  # a leaf's value: playouts to the end | stopped where a trained network values
LEAF_VALUE = LEAVES.index("value")

# Agent codes (column KIND): a game's compiled policies are 0 .. len(Game.policies) - 1.
FLAT_MC = 100
MCTS = 101
PYTHON = -1  # decided in Python (RL networks), outside the compiled game loop
