"""ac-macro: one-step episodic actor-critic over the stage's macro actions (thesis 5.6).

The actor is a softmax policy over the macro actions, the critic a state value,
each one hidden-layer network with its own Adam. Acting: a draw from the
policy (training, "sample") or its most probable action ("greedy").
Learning: ``common.actor_critic_update``.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.rl.common import Learner, actor_critic_update, categorical
from lotr_sim.cards import N_CARDS
from lotr_sim.decoders import MACRO_ACTIONS, macro_batch


class ACMacro(Learner):
    def __init__(self, stage, spec, seed):
        super().__init__(stage, spec, seed)
        self.actor = self.add_network("actor", MACRO_ACTIONS[stage])
        self.add_network("critic", 1)

    def choose(self, states, uniforms, mode):
        obs = self.encode(states)
        with torch.no_grad():
            probs = torch.softmax(self.actor(torch.from_numpy(obs)), dim=1).numpy()
        index = probs.argmax(1) if mode == "greedy" else categorical(probs, uniforms[:, 0])
        acts = np.empty((states.shape[0], N_CARDS), np.int64)
        macro_batch(states, index, acts)
        return acts, {"obs": obs, "index": index}

    def learn(self, obs, choices, reward, next_obs, done, discount):
        index = torch.from_numpy(choices["index"])[:, None]

        def log_prob(x):
            return torch.log_softmax(self.actor(x), dim=1).gather(1, index).squeeze(1)

        actor_critic_update(self, obs, log_prob, reward, next_obs, done, discount)
