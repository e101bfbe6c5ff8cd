"""LOTR's ac-direct: one-step episodic actor-critic choosing cards directly (thesis 5.4.1 and 5.6), a learner of
LOTR's own (``Game.learning.learners``): its choices are sets of cards, not indices of an action space.

The actor scores every card the stage chooses among:

- planning: one logit per ally; buying is a sequence of draws from the
  softmax over the allies in hand still affordable (the best one, "greedy"),
  until none is affordable;
- questing: each ready character is committed with probability
  sigmoid(logit) (more than 1/2, "greedy");
- defense: each ready character volunteers likewise; the sturdiest volunteers
  meet the strongest attackers (``actions.direct_defend``).

The log-probability of a choice is the sum of those draws' log-probabilities.
The critic and the update are ``agents.learning.numpy_nets.ActorCriticNets``'s; ``buy_score`` and
``numpy_nets.sigmoid_score`` give the gradient of a choice's log-probability.
"""

from __future__ import annotations

import numpy as np

from agents.learning.learner import Learner, categorical
from agents.learning.numpy_nets import ActorCriticNets, sigmoid_score
from lotr_sim.cards import ALLY_FIRST, COST, ENEMY_FIRST, N_CARDS
from lotr_sim.decoders import choice_context, direct_buy, direct_commit, direct_defend

N_ALLIES = ENEMY_FIRST - ALLY_FIRST
N_CHARACTERS = ENEMY_FIRST
ALLY_COST = np.asarray(COST[ALLY_FIRST:ENEMY_FIRST])
MAX_BUYS = N_ALLIES
MASKED = -1e9


def card_bits(mask: int, first: int, count: int) -> np.ndarray:
    return np.array([(mask >> (first + j)) & 1 for j in range(count)], bool)


class ACDirect(Learner):
    def __init__(self, role, spec, seed):
        super().__init__(role, spec, seed)
        actor = self.add_network("actor", N_ALLIES if role == "planning" else N_CHARACTERS)
        self.nets = ActorCriticNets(actor, self.add_network("critic", 1), spec["lr"], spec["gamma"])

    def choose(self, states, uniforms, mode):
        obs = self.encode(states)
        logits = self.nets.logits(obs).astype(np.float64)
        if self.role == "planning":
            acts, choice = self._buy(states, logits, uniforms, mode == "greedy")
        else:
            acts, choice = self._select(states, logits, uniforms, mode == "greedy")
        choice["obs"] = obs
        return acts, choice

    def _buy(self, states, logits, uniforms, greedy):
        n = states.shape[0]
        masks = np.zeros((n, MAX_BUYS, N_ALLIES), bool)
        picks = np.full((n, MAX_BUYS), -1, np.int64)
        acts = np.empty((n, N_CARDS), np.int64)
        for i in range(n):
            hand, resources, _ = choice_context(states[i])
            remaining = card_bits(hand, ALLY_FIRST, N_ALLIES)
            for k in range(MAX_BUYS):
                mask = remaining & (ALLY_COST <= resources)
                if not mask.any():
                    break
                scores = np.where(mask, logits[i], -np.inf)
                if greedy:
                    j = int(np.argmax(scores))
                else:
                    probs = np.exp(scores - scores.max())
                    j = int(categorical(probs[None, :], uniforms[i, k : k + 1])[0])
                masks[i, k], picks[i, k] = mask, j
                remaining[j] = False
                resources -= ALLY_COST[j]
            direct_buy(states[i], np.where(picks[i] >= 0, picks[i] + ALLY_FIRST, -1), acts[i])
        return acts, {"masks": masks, "picks": picks}

    def _select(self, states, logits, uniforms, greedy):
        n = states.shape[0]
        eligible = np.array([card_bits(choice_context(s)[2], 0, N_CHARACTERS) for s in states])
        with np.errstate(over="ignore"):  # exp(-logit) beyond float range: the probability is 0, as it should be
            probs = 1.0 / (1.0 + np.exp(-logits))
        chosen = eligible & ((probs > 0.5) if greedy else (uniforms[:, :N_CHARACTERS] < probs))
        acts = np.empty((n, N_CARDS), np.int64)
        scratch = np.empty(states.shape[1], np.int64)
        scores = np.empty(N_CARDS)
        for i in range(n):
            mask = int(np.sum(chosen[i].astype(np.int64) << np.arange(N_CHARACTERS)))
            if self.role == "questing":
                direct_commit(states[i], mask, acts[i])
            else:
                direct_defend(states[i], mask, acts[i], scratch, scores)
        return acts, {"eligible": eligible, "chosen": chosen}

    def learn(self, choices, reward, after, done, discount):
        if self.role == "planning":
            def score(logits):
                return buy_score(logits, choices["masks"], choices["picks"])
        else:
            def score(logits):
                return sigmoid_score(logits, choices["chosen"], choices["eligible"])
        self.nets.update(choices["obs"], score, reward, after["obs"], done, discount)


def buy_score(logits: np.ndarray, masks: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """d log P(the buys) / d logits, per row: over the buys made (``picks`` >= 0), the one-hot of the ally bought
    minus the softmax over the allies affordable then (``masks``)."""
    scores = np.where(masks, logits[:, None, :], MASKED)
    probs = np.exp(scores - scores.max(2, keepdims=True))
    probs /= probs.sum(2, keepdims=True)
    made = picks >= 0
    rows, buys = np.nonzero(made)
    probs[rows, buys, picks[rows, buys]] -= 1.0
    return -(probs * made[:, :, None]).sum(1)
