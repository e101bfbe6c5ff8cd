"""What every learner shares: the network shape, the game's encoder, and the learner interface.

A learner decides one role (a LOTR stage, a seat) for a batch of games at
once and learns from one-step transitions between that role's successive
decisions in a game: reward +1 for a win, -1 for a loss, 0 for a draw and
before the end, discounted by the agent's ``gamma`` (0.99, the thesis's). Random draws come from per-game uniform
numbers (``batch.N_UNIFORMS`` per decision) so a game's choices do not depend
on which other games share its batch.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.search import compiled
from agents.specs import AgentSpec, SpecError


def hidden_layers(n_in: int, neurons: int, layers: int) -> nn.Sequential:
    """``layers`` ReLU layers of ``neurons`` units."""
    return nn.Sequential(*(module for k in range(layers)
                           for module in (nn.Linear(n_in if k == 0 else neurons, neurons), nn.ReLU())))


def mlp(n_in: int, neurons: int, n_out: int, layers: int = 1) -> nn.Sequential:
    """``layers`` hidden ReLU layers of ``neurons`` units (thesis 5.5-5.6: one), then ``n_out`` outputs."""
    return nn.Sequential(*hidden_layers(n_in, neurons, layers), nn.Linear(neurons, n_out))


class Learner:
    """Base of the algorithms: ``choose`` actions for a batch, ``learn`` from a batch of transitions.

    ``choose(states, uniforms, mode)`` returns (action vectors, choices): ``mode``
    is "train" (explore), "greedy" or "sample"; a choice is a dict of per-game
    arrays (``obs`` among them, and ``mask``, the legal indices, where the learner
    chooses among indices) that ``learn`` receives back stacked. ``learn(choices,
    reward, after, done, discount)`` takes float32 arrays; ``after`` holds the
    ``obs`` (and ``mask``) of the role's next decision (zeros, and every index, after
    the last); ``discount`` is gamma to the power of the decision's index in its game
    (the actor-critic's I)."""

    def __init__(self, role: str, spec: AgentSpec, seed: int):
        game = spec.game
        self.role, self.spec, self.encoding = role, spec, spec["encoding"]
        encoder = game.encoders[self.encoding]
        if role not in encoder.sizes:
            raise SpecError(f"{role}: rl agents of {game} decide {', '.join(encoder.sizes)}; not {role}")
        self.obs_size = encoder.sizes[role]
        self.batches = compiled(game.kernels)
        torch.manual_seed(seed)
        self.modules: dict[str, nn.Module] = {}
        self.optimizer: torch.optim.Optimizer | None = None

    def add_network(self, name: str, n_out: int) -> nn.Module:
        """A network of the learner (trained by ``step`` or, the actor-critics, ``numpy_nets``)."""
        if self.spec["net"] != "mlp":
            raise SpecError(f"{self.role}: net = {self.spec['net']!r} is ppo's; algo {self.spec['algo']} learns "
                            "an MLP (net = 'mlp')")
        net = mlp(self.obs_size, self.spec["neurons"], n_out, self.spec["layers"])
        self.modules[name] = net
        return net

    def encode(self, states: np.ndarray) -> np.ndarray:
        out = np.empty((states.shape[0], self.obs_size), np.float32)
        self.batches.encode_batch(states, self.encoding, out)
        return out

    def step(self, loss: torch.Tensor) -> None:
        """One Adam step (learning rate ``spec["lr"]``) of every network on ``loss``. The networks share no weights,
        so a sum of per-network losses updates each network by its own loss, as separate optimisers would."""
        if self.optimizer is None:
            params = [p for module in self.modules.values() for p in module.parameters()]
            self.optimizer = torch.optim.Adam(params, lr=self.spec["lr"], fused=True)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def state_dict(self) -> dict:
        return {name: net.state_dict() for name, net in self.modules.items()}

    def load_state_dict(self, state: dict) -> None:
        for name, net in self.modules.items():
            net.load_state_dict(state[name])

    def choose(self, states: np.ndarray, uniforms: np.ndarray, mode: str) -> tuple[np.ndarray, dict]:
        raise NotImplementedError

    def learn(self, choices: dict, reward, after: dict, done, discount) -> None:
        raise NotImplementedError


class IndexLearner(Learner):
    """A learner choosing an index of one of the game's action spaces (its ``algo``'s suffix), among the legal
    ones: the game's ``action_mask`` says which, its ``decode`` makes the action."""

    def __init__(self, role: str, spec: AgentSpec, seed: int):
        super().__init__(role, spec, seed)
        spaces = [space.name for space in spec.game.action_spaces]
        self.space = spaces.index(spec["algo"].partition("-")[2])
        sizes = spec.game.action_spaces[self.space].sizes
        self.n_actions, self.mask_width = sizes[role], max(sizes.values())

    def legal(self, states: np.ndarray) -> np.ndarray:
        """The legal indices of each state, a boolean row of ``n_actions``."""
        masks = np.empty((states.shape[0], self.mask_width), np.int8)
        self.batches.mask_batch(states, self.space, masks)
        return masks[:, : self.n_actions].astype(bool)

    def decode(self, states: np.ndarray, indices: np.ndarray) -> np.ndarray:
        acts = np.empty((states.shape[0], self.spec.game.kernels.ACTION_SIZE), np.int64)
        self.batches.decode_batch(states, self.space, indices.astype(np.int64), acts)
        return acts


def masked(scores: torch.Tensor, mask: np.ndarray) -> torch.Tensor:
    """``scores`` with the illegal indices at minus infinity (unchanged where every index is legal)."""
    return scores.masked_fill(~torch.from_numpy(mask), -torch.inf)


def categorical(probs: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Row-wise draws from ``probs`` by inverse CDF with one uniform number per row."""
    cdf = np.cumsum(probs, axis=1)
    return np.minimum((cdf < uniforms[:, None] * cdf[:, -1:]).sum(axis=1), probs.shape[1] - 1)
