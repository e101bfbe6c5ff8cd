"""OpenSpiel's MCTS bots as agents of the pipeline, on any game (through ``gamecore.openspiel``).

``openspiel-ismcts`` is OpenSpiel's ``ISMCTSBot`` (information-set MCTS: one
tree over information states, a world drawn by ``resample_from_infostate``,
that is the game's ``determinize``, for every simulation); ``openspiel-mcts``
is its ``MCTSBot`` searching the true state: it sees the hidden information,
an upper bound like ``oracle-mcts``, not an honest agent. Both evaluate a leaf
with one playout to the end: by the game's compiled policy ``playout`` (the
playouts of our own searches, so that a comparison at equal budgets sees
only the tree search), or by OpenSpiel's ``RandomRolloutEvaluator`` (uniform
over the legal actions, in Python: ``rollouts = "openspiel"``).

Their ``uct_c`` is OpenSpiel's: mean + uct_c sqrt(ln N / n), so ``uct_c`` =
sqrt(2) c of our searches (mean + c sqrt(2 ln N / n)). Each decision builds
a bot seeded from the decision's uniform, so games replay exactly.
"""

from __future__ import annotations

import numpy as np

from agents.search import compiled
from gamecore.interface import Game
from gamecore.rng import mix64

ROLLOUTS = ("compiled", "openspiel")
FINAL_POLICIES = ("visits", "value")


class CompiledRollouts:
    """An OpenSpiel evaluator (``evaluate``, ``prior``): one playout of the game's compiled ``policy``."""

    def __init__(self, game: Game, policy: str, rs: np.ndarray):
        self.kernels, self.search = game.kernels, compiled(game.kernels)
        self.policy, self.rs = game.policies.index(policy), rs
        self.act = np.empty(self.kernels.ACTION_SIZE, np.int64)
        self.err = np.zeros(4, np.int64)
        self.no_moves = np.empty((0, 3), np.int64)
        self.no_nets = (np.empty(0), np.empty(0))

    def evaluate(self, state) -> np.ndarray:
        work = state.ours.core_state()
        scratch = np.empty_like(work)
        self.search.play_out(work, self.policy, self.no_nets, self.rs, self.act, self.err, scratch, self.no_moves,
                             False)
        return np.array([self.kernels.reward(work, p) for p in range(self.kernels.N_PLAYERS)])

    def prior(self, state) -> list[tuple[int, float]]:
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]


class SpielAgent:
    """``choose`` runs an OpenSpiel bot on each state (``gamecore.interface.PythonAgent``)."""

    def __init__(self, role: str, spec, information_sets: bool):
        from gamecore import openspiel

        self.params = spec.as_dict()
        self.ours, self.information_sets = spec.game, information_sets
        self.game = openspiel.load(spec.game.name)
        self.action_size = spec.game.kernels.ACTION_SIZE

    def choose(self, states: np.ndarray, uniforms: np.ndarray, mode: str):
        acts = np.zeros((len(states), self.action_size), np.int64)
        for i, core in enumerate(states):
            state = self.game.state_from_core(core)
            seed = int(uniforms[i, 0] * 2**62)
            acts[i] = state.vector(self.bot(seed).step(state))
        return acts, None

    def bot(self, seed: int):
        """A bot for one decision, seeded by ``seed``."""
        from open_spiel.python.algorithms import ismcts, mcts

        p = self.params
        random_state = np.random.RandomState(seed % 2**32)
        if p["rollouts"] == "openspiel":
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
        else:
            rs = np.array([mix64(np.uint64(seed))], np.uint64)
            evaluator = CompiledRollouts(self.ours, p["playout"], rs)
        if not self.information_sets:
            return mcts.MCTSBot(self.game, p["uct_c"], p["max_simulations"], evaluator, solve=False,
                                random_state=random_state)
        final = {"visits": ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                 "value": ismcts.ISMCTSFinalPolicyType.MAX_VALUE}[p["final_policy"]]
        bot = ismcts.ISMCTSBot(self.game, evaluator, p["uct_c"], p["max_simulations"], random_state=random_state,
                               final_policy_type=final)
        generator = np.random.default_rng(seed)
        bot.set_resampler(lambda state, player: state.resampled(player, generator))
        return bot


def make_ismcts(role: str, spec) -> SpielAgent:
    return SpielAgent(role, spec, information_sets=True)


def make_mcts(role: str, spec) -> SpielAgent:
    return SpielAgent(role, spec, information_sets=False)
