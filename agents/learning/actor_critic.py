"""ac-<space>: one-step episodic actor-critic over one of the game's action spaces (thesis 5.6).

The actor is a softmax policy over the legal indices of the space, the critic
a state value, each one hidden-layer network. Acting: a draw from the policy
(training, "sample") or its most probable index ("greedy"). Learning:
``numpy_nets.ActorCriticNets.update``.
"""

from __future__ import annotations

import numpy as np

from agents.learning.learner import IndexLearner, categorical
from agents.learning.numpy_nets import ActorCriticNets, softmax_score


class ActorCritic(IndexLearner):
    def __init__(self, role, spec, seed):
        super().__init__(role, spec, seed)
        actor = self.add_network("actor", self.n_actions)
        self.nets = ActorCriticNets(actor, self.add_network("critic", 1), spec["lr"], spec["gamma"])

    def choose(self, states, uniforms, mode):
        obs, legal = self.encode(states), self.legal(states)
        scores = np.where(legal, self.nets.logits(obs), -np.inf)
        if mode == "greedy":
            index = scores.argmax(1)
        else:
            index = categorical(np.exp(scores - scores.max(1, keepdims=True)), uniforms[:, 0])
        return self.decode(states, index), {"obs": obs, "mask": legal, "index": index}

    def learn(self, choices, reward, after, done, discount):
        self.nets.update(choices["obs"], lambda logits: softmax_score(logits, choices["mask"], choices["index"]),
                         reward, after["obs"], done, discount)
