"""The one-step actor-critic's networks stepped in NumPy, on the memory of their PyTorch modules.

A learner's MLPs stay ``torch.nn.Sequential`` modules (their checkpoints, their
``state_dict``, the playout networks read them); ``NumpyMLP`` runs one forward
and backward over views of the same parameters and ``NumpyAdam`` updates them
in place, as ``torch.optim.Adam`` does (same defaults, float32). For networks
of a few hundred units, one transition at a time (the thesis's online
learner), that is several times faster than autograd: the work is a handful
of small matrix products, and PyTorch's per-call overhead dominates them.
A value far outside what the rewards allow, or not finite, raises
``TrainingDiverged``. ``tests/test_rl.py`` checks the updates against autograd's.
"""

from __future__ import annotations

import numpy as np
from torch import nn

from agents.learning import TrainingDiverged

VALUE_LIMIT = 1e3  # a critic's value estimates a return of rewards in [-1, 1]; beyond this it has diverged


class NumpyMLP:
    """A Linear/ReLU ``nn.Sequential`` run forward and backward in NumPy, on views of its parameters."""

    def __init__(self, net: nn.Sequential):
        linears = [module for module in net if isinstance(module, nn.Linear)]
        if len(linears) + sum(isinstance(module, nn.ReLU) for module in net) != len(net):
            raise TypeError("NumpyMLP runs Linear and ReLU layers only")
        self.weights = [linear.weight.data.numpy() for linear in linears]  # (out, in), sharing memory
        self.biases = [linear.bias.data.numpy() for linear in linears]

    @property
    def parameters(self) -> list[np.ndarray]:
        """Weight and bias of each layer, in layer order (the order of ``backward``'s gradients)."""
        return [p for pair in zip(self.weights, self.biases) for p in pair]

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """The outputs for the rows of ``x`` (float32), and each layer's input (for ``backward``)."""
        inputs = []
        for k, (weight, bias) in enumerate(zip(self.weights, self.biases)):
            inputs.append(x)
            x = x @ weight.T + bias
            if k < len(self.weights) - 1:
                np.maximum(x, 0.0, out=x)
        return x, inputs

    def backward(self, inputs: list[np.ndarray], grad: np.ndarray) -> list[np.ndarray]:
        """The gradients of the parameters (``parameters`` order) given the gradient of the outputs."""
        grads: list[np.ndarray] = []
        for k in range(len(self.weights) - 1, -1, -1):
            grads += [grad.sum(0), grad.T @ inputs[k]]
            if k:
                grad = (grad @ self.weights[k]) * (inputs[k] > 0)  # a layer's input is the ReLU output before it
        return grads[::-1]


class NumpyAdam:
    """Adam (``torch.optim.Adam``'s defaults: betas 0.9 and 0.999, eps 1e-8, no weight decay) over arrays, in
    place."""

    def __init__(self, parameters: list[np.ndarray], lr: float, betas=(0.9, 0.999), eps: float = 1e-8):
        self.parameters, self.lr, self.betas, self.eps = parameters, lr, betas, eps
        self.first = [np.zeros_like(p) for p in parameters]
        self.second = [np.zeros_like(p) for p in parameters]
        self.steps = 0

    def step(self, grads: list[np.ndarray]) -> None:
        beta1, beta2 = self.betas
        self.steps += 1
        step_size = self.lr / (1 - beta1**self.steps)
        root_correction = np.float32(np.sqrt(1 - beta2**self.steps))
        for p, g, m, v in zip(self.parameters, grads, self.first, self.second):
            m += (1 - beta1) * (g - m)
            v *= beta2
            v += (1 - beta2) * g * g
            p -= step_size * m / (np.sqrt(v) / root_correction + self.eps)


class ActorCriticNets:
    """A learner's actor and critic in NumPy, and the one-step actor-critic update (Sutton and Barto 13.5;
    thesis eqs. 5.4-5.7) on a batch of transitions."""

    def __init__(self, actor: nn.Sequential, critic: nn.Sequential, lr: float, gamma: float):
        self.actor, self.critic, self.gamma = NumpyMLP(actor), NumpyMLP(critic), gamma
        self.adam = NumpyAdam(self.actor.parameters + self.critic.parameters, lr)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The actor's outputs; TrainingDiverged when they are not finite."""
        out = self.actor.forward(obs)[0]
        if not np.isfinite(out).all():
            raise TrainingDiverged("training diverged: the actor's outputs are not finite (NaN or infinity)")
        return out

    def update(self, obs, score_gradient, reward, next_obs, done, discount) -> None:
        """delta = r + gamma V(s') - V(s); the critic descends delta^2 (semi-gradient), the actor ascends
        I * delta * log pi(a|s), whose gradient by the actor's outputs is ``score_gradient(outputs)``
        (rows of d log pi(a|s) / d outputs). Both by one Adam step on the mean over the batch."""
        n = obs.shape[0]
        value, critic_inputs = self.critic.forward(obs)
        next_value = self.critic.forward(next_obs)[0][:, 0] * (1.0 - done)
        delta = reward + self.gamma * next_value - value[:, 0]
        if not np.all(np.abs(value) <= VALUE_LIMIT):  # NaN fails the comparison too
            raise TrainingDiverged(f"training diverged: the critic's value reached {np.abs(value).max():.3g} where "
                                   "returns lie in [-1, 1] (a learning rate too high?)")
        logits, actor_inputs = self.actor.forward(obs)
        actor_grad = score_gradient(logits) * (-discount * delta / n)[:, None]
        critic_grad = (-2.0 * delta / n)[:, None]
        self.adam.step(self.actor.backward(actor_inputs, actor_grad.astype(np.float32))
                       + self.critic.backward(critic_inputs, critic_grad.astype(np.float32)))


def softmax_score(logits: np.ndarray, mask: np.ndarray, index: np.ndarray) -> np.ndarray:
    """d log softmax(logits over the legal ``mask``)[index] / d logits, per row."""
    probs = np.exp(np.where(mask, logits - np.where(mask, logits, -np.inf).max(1, keepdims=True), -np.inf))
    probs /= probs.sum(1, keepdims=True)
    probs[np.arange(len(index)), index] -= 1.0
    return -probs


def sigmoid_score(logits: np.ndarray, chosen: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """d sum over the ``eligible`` outputs of log Bernoulli(``chosen`` | sigmoid(logit)) / d logits, per row."""
    with np.errstate(over="ignore"):  # exp(-logit) beyond float range: the probability is 0, as it should be
        return (chosen - 1.0 / (1.0 + np.exp(-logits))) * eligible
