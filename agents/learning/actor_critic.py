"""ac-<space>: one-step episodic actor-critic over one of the game's action spaces (thesis 5.6).

The actor is a softmax policy over the legal indices of the space, the critic
a state value, each one hidden-layer network. Acting: a draw from the policy
(training, "sample") or its most probable index ("greedy"). Learning:
``learner.actor_critic_update``.
"""

from __future__ import annotations

import torch

from agents.learning.learner import IndexLearner, actor_critic_update, categorical, masked


class ActorCritic(IndexLearner):
    def __init__(self, role, spec, seed):
        super().__init__(role, spec, seed)
        self.actor = self.add_network("actor", self.n_actions)
        self.add_network("critic", 1)

    def choose(self, states, uniforms, mode):
        obs, legal = self.encode(states), self.legal(states)
        with torch.no_grad():
            probs = torch.softmax(masked(self.actor(torch.from_numpy(obs)), legal), dim=1).numpy()
        index = probs.argmax(1) if mode == "greedy" else categorical(probs, uniforms[:, 0])
        return self.decode(states, index), {"obs": obs, "mask": legal, "index": index}

    def learn(self, choices, reward, after, done, discount):
        index, mask = torch.from_numpy(choices["index"])[:, None], choices["mask"]

        def log_prob(x):
            return torch.log_softmax(masked(self.actor(x), mask), dim=1).gather(1, index).squeeze(1)

        actor_critic_update(self, choices["obs"], log_prob, reward, after["obs"], done, discount)
