"""ppo-<space>: masked PPO over one of the game's action spaces, trained by sb3-contrib's ``MaskablePPO`` (used as
a library) on the game's Gymnasium environment (``agents.environments.GameEnv``).

The learner's role plays against the other roles of its setup; in a two-player
game it plays both seats at once (one environment per seat in one vectorised
environment), so one network learns to play first and second. Where the
setup's other seat is an untrained ``ppo`` agent too, the training is
self-play: that seat plays the learner's own policy as it was at the end of
the last rollout (``SelfPlay``). A budget is of episodes, as for the other
algorithms; the curve, the best checkpoint by moving win rate, pruning by the
curve and the interrupt behave as ``agents.learning.train`` describes. Training
deals come from the environments' own generators, seeded from the training
seed: not the evaluation's deals.

Acting (``PPOLearner``, a role of any setup): the policy's probabilities over
the legal indices, the most probable ("greedy") or a draw by the decision's
uniform number ("sample"), as the other learners act.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable

import numpy as np
import torch

from agents.learning.curve import Curve
from agents.learning.learner import IndexLearner, categorical
from agents.learning.slot_network import slot_layout, slot_policy_class
from agents.setup import Setup
from agents.specs import SpecError
from gamecore.rng import derive_seed


def _sb3_contrib():
    try:
        import sb3_contrib
    except ImportError:
        raise SpecError('algo ppo-*: sb3-contrib is not installed; pip install -e ".[ppo]" (sb3-contrib\'s '
                        "MaskablePPO)") from None
    return sb3_contrib


def policy(learner: PPOLearner) -> tuple[type, dict]:
    """The policy's class and keyword arguments: ``layers`` hidden ReLU layers of ``neurons`` units for the actor
    and the critic, over the whole observation (``net = "mlp"``) or shared by its slots (``"slots"``,
    ``agents.learning.slot_network``)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    spec = learner.spec
    if spec["net"] == "mlp":
        return MaskableActorCriticPolicy, {"net_arch": [spec["neurons"]] * spec["layers"],
                                           "activation_fn": torch.nn.ReLU}
    game = spec.game
    layout = slot_layout(spec, game.encoders[learner.encoding], game.action_spaces[learner.space])
    return slot_policy_class(), {"layout": layout, "neurons": spec["neurons"], "layers": spec["layers"]}


class PPOLearner(IndexLearner):
    """A trained MaskablePPO policy deciding a role (its weights: ``{"policy": state_dict}``)."""

    def __init__(self, role, spec, seed):
        super().__init__(role, spec, seed)
        _sb3_contrib()
        import gymnasium

        observations = gymnasium.spaces.Box(-np.inf, np.inf, (self.obs_size,), np.float32)
        policy_class, kwargs = policy(self)
        self.policy = policy_class(observations, gymnasium.spaces.Discrete(self.n_actions), lambda _: spec["lr"],
                                   **kwargs)
        self.modules = {"policy": self.policy}

    def choose(self, states, uniforms, mode):
        obs, legal = self.encode(states), self.legal(states)
        with torch.no_grad():
            probs = self.policy.get_distribution(torch.from_numpy(obs), legal).distribution.probs.numpy()
        index = probs.argmax(1) if mode == "greedy" else categorical(probs, uniforms[:, 0])
        return self.decode(states, index), {"obs": obs, "mask": legal, "index": index}

    def learn(self, choices, reward, after, done, discount):
        raise SpecError("ppo learns from whole rollouts (agents.learning.ppo.train_ppo), not one transition")


def train_ppo(setup: Setup, options: dict, roles: list[str], episodes: int, seed: int, envs: int,
              window: int, bar, on_window: Callable[[int, float, float], None] | None):
    """Train the ``ppo`` agent of ``setup``'s first trained role (see the module docstring); returns (learner,
    wins in episode order, best (moving win rate, episode, weights by role), seconds, the KeyboardInterrupt that
    stopped it or None)."""
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.environments import GameEnv

    MaskablePPO = _sb3_contrib().MaskablePPO
    game, role = setup.game, roles[0]
    index = setup.roles.index(role)
    spec = setup.agents[index]
    if len({setup.agents[setup.roles.index(r)] for r in roles}) > 1:
        raise SpecError(f"setup {setup.short_name!r}: ppo trains one policy; its roles {', '.join(roles)} must have "
                        "the same parameters (self-play)")
    learner = PPOLearner(role, spec, int(derive_seed(np.uint64(seed), np.uint64(0))))
    encoder, space = game.encoders[learner.encoding].name, game.action_spaces[learner.space].name
    seats = list(game.roles) if game.by_seat else [role]
    self_play = SelfPlay(learner) if len(roles) > 1 else None

    def environment(seat: str, k: int):
        opponents = setup if seat == role else setup.swapped()
        return lambda: GameEnv(game, seat, opponents, encoder, space, options, reward=spec["reward"],
                               margin_scale=spec["margin_scale"])

    vector = DummyVecEnv([environment(seat, k) for k in range(envs) for seat in seats])
    vector.seed(int(derive_seed(np.uint64(seed), np.uint64(1))) % 2**32)
    if self_play is not None:
        self_play.attach(vector)
    p = spec.as_dict()
    policy_class, kwargs = policy(learner)
    model = MaskablePPO(policy_class, vector, learning_rate=p["lr"], n_steps=p["n_steps"],
                        batch_size=p["batch_size"], n_epochs=p["n_epochs"], gamma=p["gamma"],
                        gae_lambda=p["gae_lambda"], ent_coef=p["ent_coef"], clip_range=p["clip_range"],
                        policy_kwargs=kwargs, seed=int(derive_seed(np.uint64(seed), np.uint64(2))) % 2**32,
                        device="cpu", verbose=0)

    def snapshot() -> dict:  # the one policy every trained role plays
        state = {"policy": copy.deepcopy(model.policy.state_dict())}
        return {role: state for role in roles}

    curve = Curve(episodes, window, snapshot, bar, on_window)

    class Progress(BaseCallback):
        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if done:
                    curve.add(info["outcome"] > 0)
            return len(curve.wins) < episodes

        def _on_rollout_end(self) -> None:
            if self_play is not None:
                self_play.refresh(model.policy)

    start, interrupted = time.perf_counter(), None
    try:
        model.learn(total_timesteps=2**62, callback=Progress())
    except KeyboardInterrupt as stop:
        interrupted = stop
    learner.policy.load_state_dict(model.policy.state_dict())
    return learner, np.array(curve.wins, np.int8), curve.best, time.perf_counter() - start, interrupted


class SelfPlay:
    """The other seat plays the learner's own policy, refreshed at the end of every rollout."""

    def __init__(self, learner: PPOLearner):
        self.learner, self.opponents = learner, []

    def attach(self, vector) -> None:
        """The opponents' ppo agents inside the environments (their Python agents at the other seat)."""
        for env in vector.envs:
            self.opponents += [agent for _, agent in env.unwrapped.match.python_agents.values()
                               if isinstance(agent, PPOLearner)]

    def refresh(self, policy) -> None:
        state = policy.state_dict()
        for opponent in self.opponents:
            opponent.policy.load_state_dict(state)


def is_ppo(spec) -> bool:
    return spec.kind.trained and spec["algo"].startswith("ppo-")


__all__ = ["PPOLearner", "is_ppo", "train_ppo"]
