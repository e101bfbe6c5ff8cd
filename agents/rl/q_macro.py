"""q-macro: one-step Q-learning over the stage's macro actions (thesis 5.5, eq. 2.6).

Q(s, .) is one hidden-layer network. Acting: the best macro action, or with
probability epsilon (training and the "sample" policy) a uniformly random one.
Learning: Q(s, a) moves towards r + gamma max_a' Q(s', a') (0 after the last
decision of a game), squared error, Adam.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.rl.common import GAMMA, Learner
from lotr_sim.cards import N_CARDS
from lotr_sim.decoders import MACRO_ACTIONS, macro_batch


class QMacro(Learner):
    def __init__(self, stage, spec, seed):
        super().__init__(stage, spec, seed)
        self.n_actions = MACRO_ACTIONS[stage]
        self.q = self.add_network("q", self.n_actions)

    def choose(self, states, uniforms, mode):
        obs = self.encode(states)
        with torch.no_grad():
            index = self.q(torch.from_numpy(obs)).argmax(1).numpy()
        if mode != "greedy":
            explore = uniforms[:, 0] < self.spec["epsilon"]
            random_index = np.minimum((uniforms[:, 1] * self.n_actions).astype(np.int64), self.n_actions - 1)
            index = np.where(explore, random_index, index)
        acts = np.empty((states.shape[0], N_CARDS), np.int64)
        macro_batch(states, index, acts)
        return acts, {"obs": obs, "index": index}

    def learn(self, obs, choices, reward, next_obs, done, discount):
        q = self.q(torch.from_numpy(obs)).gather(1, torch.from_numpy(choices["index"])[:, None]).squeeze(1)
        with torch.no_grad():
            best_next = self.q(torch.from_numpy(next_obs)).max(1).values
            target = torch.from_numpy(reward) + GAMMA * best_next * torch.from_numpy(1.0 - done)
        self.step(((target - q) ** 2).mean())
