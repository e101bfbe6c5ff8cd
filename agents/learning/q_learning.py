"""q-<space>: one-step Q-learning over one of the game's action spaces (thesis 5.5, eq. 2.6).

Q(s, .) is one hidden-layer network with an output per index of the space.
Acting: the best legal index, or with probability epsilon (training and the
"sample" policy) a uniformly random legal one. Learning: Q(s, a) moves towards
r + gamma max_a' Q(s', a') over the next decision's legal indices (0 after the
last decision of a game), squared error, Adam.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.learning.learner import IndexLearner, masked


class QLearner(IndexLearner):
    def __init__(self, role, spec, seed):
        super().__init__(role, spec, seed)
        self.q = self.add_network("q", self.n_actions)

    def choose(self, states, uniforms, mode):
        obs, legal = self.encode(states), self.legal(states)
        with torch.no_grad():
            index = masked(self.q(torch.from_numpy(obs)), legal).argmax(1).numpy()
        if mode != "greedy":
            explore = uniforms[:, 0] < self.spec["epsilon"]
            index = np.where(explore, nth_legal(legal, uniforms[:, 1]), index)
        return self.decode(states, index), {"obs": obs, "mask": legal, "index": index}

    def learn(self, choices, reward, after, done, discount):
        q = self.q(torch.from_numpy(choices["obs"])).gather(1, torch.from_numpy(choices["index"])[:, None]).squeeze(1)
        with torch.no_grad():
            best_next = masked(self.q(torch.from_numpy(after["obs"])), after["mask"]).max(1).values
            target = torch.from_numpy(reward) + self.spec["gamma"] * best_next * torch.from_numpy(1.0 - done)
        self.step(((target - q) ** 2).mean())


def nth_legal(legal: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Per row, a legal index drawn uniformly by its uniform number: the k-th legal one, k = floor(u * count)."""
    counts = legal.sum(1)
    k = np.minimum((uniforms * counts).astype(np.int64), counts - 1)
    return np.argmax(np.cumsum(legal, axis=1) > k[:, None], axis=1)
