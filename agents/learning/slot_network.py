"""``net = "slots"``: a network that reads an observation laid out by slot and scores each slot's actions alike.

A game whose encoder has a ``layout`` (global features, then ``slots`` blocks of
the same features) and whose action space has ``per_slot`` actions on each slot
(index ``k * per_slot + j``) can be learned by one small network shared by
every slot: it reads the global features and one slot's, and gives that slot's
``per_slot`` logits. What makes a placement good is then learned once for every
position, where a plain MLP over the whole observation must learn it for each.
The critic reads the same per-slot hidden units of its own trunk, averaged and
maximised over the slots.

``SlotPolicy`` is sb3-contrib's ``MaskableActorCriticPolicy`` with this network
in place of its MLP: the trunk's policy output is the logits themselves (its
``action_net`` is the identity), so MaskablePPO trains it unchanged.
"""

from __future__ import annotations

import torch
from torch import nn

from agents.learning.learner import hidden_layers
from agents.specs import SpecError


def slot_layout(spec, encoder, space) -> tuple[int, int, int, int]:
    """(global features, slots, features per slot, actions per slot) of the game's ``encoder`` and ``space``;
    SpecError (one line) where they are not laid out by the same slots."""
    where = f"rl net = 'slots' on {spec.game.name}'s encoder {encoder.name!r} and action space {space.name!r}"
    if not encoder.layout or not space.per_slot:
        raise SpecError(f"{where}: they are not laid out by slot; use net = 'mlp'")
    global_size, slots, slot_size = encoder.layout
    if global_size + slots * slot_size != max(encoder.sizes.values()) or slots * space.per_slot != max(
            space.sizes.values()):
        raise SpecError(f"{where}: the layout {encoder.layout} x {space.per_slot} does not cover them; use net = 'mlp'")
    return global_size, slots, slot_size, space.per_slot


class SlotNetwork(nn.Module):
    """The policy's and the critic's trunks over the slots: ``forward_actor`` gives the logits of every index,
    ``forward_critic`` the critic's pooled hidden units (sb3's ``mlp_extractor`` contract)."""

    def __init__(self, layout: tuple[int, int, int, int], neurons: int, layers: int):
        super().__init__()
        self.global_size, self.slots, self.slot_size, per_slot = layout
        n_in = self.global_size + self.slot_size
        self.actor, self.critic = hidden_layers(n_in, neurons, layers), hidden_layers(n_in, neurons, layers)
        self.scores = nn.Linear(neurons, per_slot)
        with torch.no_grad():  # near-uniform first policy, as sb3 starts its own
            self.scores.weight.mul_(0.01)
            self.scores.bias.zero_()
        self.latent_dim_pi, self.latent_dim_vf = self.slots * per_slot, 2 * neurons

    def per_slot(self, features: torch.Tensor) -> torch.Tensor:
        """(batch, slots, global + slot features): each slot's block beside the global features."""
        batch = features.shape[0]
        shared = features[:, : self.global_size].unsqueeze(1).expand(batch, self.slots, self.global_size)
        return torch.cat((shared, features[:, self.global_size:].reshape(batch, self.slots, self.slot_size)), 2)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.scores(self.actor(self.per_slot(features))).flatten(1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        hidden = self.critic(self.per_slot(features))
        return torch.cat((hidden.mean(1), hidden.amax(1)), 1)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


def slot_policy_class():
    """``SlotPolicy`` (sb3-contrib imported only when a slots network is made)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    class SlotPolicy(MaskableActorCriticPolicy):
        """MaskableActorCriticPolicy over a ``SlotNetwork`` (keyword arguments ``layout``, ``neurons``,
        ``layers``)."""

        def __init__(self, *args, layout, neurons, layers, **kwargs):
            self.slot_shape = (layout, neurons, layers)
            super().__init__(*args, **kwargs)

        def _build(self, lr_schedule) -> None:
            self.mlp_extractor = SlotNetwork(*self.slot_shape)
            self.action_net = nn.Identity()
            self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    return SlotPolicy


__all__ = ["SlotNetwork", "slot_layout", "slot_policy_class"]
