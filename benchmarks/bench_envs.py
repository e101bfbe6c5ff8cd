"""The environments' speed (``agents.environments``) next to the compiled game's, per game, on one core.

Run: python benchmarks/bench_envs.py [--steps 20000] [--games 100000] [--game loveletter ...]

Per game: the compiled game's own random games per second (and its decisions per second: every decision of
both seats, or of LOTR's five stages); the Gymnasium environment's steps per second with a uniformly random
legal (masked) policy, against the game's random policy (a compiled opponent, costing next to nothing) raw and
through ``gymnasium.make``'s wrappers, and against compiled MCTS (budget 100: the opponent's own time); the
PettingZoo AEC environment's steps per second. Then where a step's microseconds go: the random policy's choice,
the compiled calls the environment makes (timed where they are made, Numba's dispatch from Python included; the
batch's advance plays the opponent) and the Python layer around them (the rest).
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np

import gamecore
from agents.environments import GameAECEnv, GameEnv, environment_id
from agents.evaluation import evaluate_setup
from agents.setup import Setup


def masked_random(rng: np.random.Generator):
    return lambda info: rng.choice(np.flatnonzero(info["action_mask"]))


def gym_steps(env, steps: int, seed: int = 0) -> tuple[float, int]:
    """Steps per second of a uniformly random legal policy over ``steps`` steps, and the episodes played."""
    policy = masked_random(np.random.default_rng(seed))
    _, info = env.reset(seed=seed)
    episodes, start = 0, time.perf_counter()
    for _ in range(steps):
        _, _, over, _, info = env.step(policy(info))
        if over:
            episodes += 1
            _, info = env.reset()
    return steps / (time.perf_counter() - start), episodes


def aec_steps(env, steps: int, seed: int = 0) -> float:
    """Steps per second of PettingZoo's loop (``agent_iter``, ``last``, ``step``) with a random legal policy."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done, start = 0, time.perf_counter()
    while done < steps:
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else rng.choice(np.flatnonzero(obs["action_mask"])))
            done += 1
        env.reset()
    return done / (time.perf_counter() - start)


class Timed:
    """Stands for a module of compiled functions, timing the calls of ``names`` (seconds and calls per name)."""

    def __init__(self, module, names: tuple[str, ...], seconds: dict[str, float], calls: dict[str, int]):
        self._module = module
        for name in names:
            setattr(self, name, self._timed(name, getattr(module, name), seconds, calls))

    @staticmethod
    def _timed(name, function, seconds, calls):
        def timed(*args):
            start = time.perf_counter()
            result = function(*args)
            seconds[name] += time.perf_counter() - start
            calls[name] += 1
            return result

        return timed

    def __getattr__(self, name):
        return getattr(self._module, name)


def compiled_microseconds(env: GameEnv, steps: int) -> dict[str, float]:
    """Microseconds per step of each compiled call the environment makes (encode, action_mask, decode, the
    game's apply, the batch's advance, which plays the opponent), timed where they are made over ``steps``
    random steps (each time includes a perf_counter call)."""
    match = env.match
    seconds, calls = dict.fromkeys(("encode", "action_mask", "decode", "apply", "advance_batch"), 0.0), {}
    calls = dict.fromkeys(seconds, 0)
    kernels = Timed(match.kernels, ("encode", "action_mask", "decode", "apply"), seconds, calls)
    match.kernels = match.batch.kernels = kernels
    match.batch.search = Timed(match.batch.search, ("advance_batch",), seconds, calls)
    gym_steps(env, steps)
    return {name: 1e6 * total / steps for name, total in seconds.items()}


def policy_microseconds(env: GameEnv, steps: int) -> float:
    """The random legal policy's microseconds per decision, on the masks of ``steps`` steps."""
    masks, (_, info) = [], env.reset(seed=5)
    policy = masked_random(np.random.default_rng(0))
    for _ in range(steps):
        masks.append(info)
        _, _, over, _, info = env.step(policy(info))
        if over:
            _, info = env.reset()
    start = time.perf_counter()
    for info in masks:
        policy(info)
    return 1e6 * (time.perf_counter() - start) / steps


def bench(name: str, steps: int, games: int) -> None:
    game = gamecore.load(name)
    random = Setup.uniform(game.policies[0], game)
    evaluate_setup(random, games=100, seed=1, seats="first")  # compile or load the cache
    result = evaluate_setup(random, games=games, seed=0, seats="first")
    decisions = sum(result.decisions.values())
    print(f"{name}: compiled random games {result.games_per_second:,.0f}/s, {decisions / result.seconds:,.0f} "
          f"decisions/s ({decisions / result.games:.1f} decisions a game; {result.games:,} games)")
    raw = GameEnv(game)
    gym_steps(raw, 200)  # compile or load the cache
    rate, episodes = gym_steps(raw, steps)
    print(f"  GameEnv, random legal policy, random opponent: {rate:,.0f} steps/s ({1e6 / rate:.1f} us a step; "
          f"{steps / max(episodes, 1):.1f} steps an episode)")
    made = gymnasium.make(environment_id(name))
    gym_steps(made, 200)
    print(f"  gymnasium.make (its checker and order wrappers):  {gym_steps(made, steps)[0]:,.0f} steps/s")
    mcts = GameEnv(game, opponent=Setup.uniform("mcts", game).with_params({"budget": 100}))
    gym_steps(mcts, 20)
    print(f"  GameEnv against mcts (budget 100):                {gym_steps(mcts, max(steps // 20, 50))[0]:,.0f} "
          "steps/s")
    aec = GameAECEnv(game)
    aec_steps(aec, 200)
    print(f"  GameAECEnv (PettingZoo's loop), every role:       {aec_steps(aec, steps):,.0f} steps/s")
    policy = policy_microseconds(GameEnv(game), min(steps, 5000))
    costs = compiled_microseconds(GameEnv(game), steps)
    step, compiled_us = 1e6 / rate - policy, sum(costs.values())
    print(f"  a step: {step:.1f} us besides the policy's {policy:.1f}: compiled calls {compiled_us:.1f} us ("
          + ", ".join(f"{k} {v:.1f}" for k, v in costs.items()) + f"), the Python layer {step - compiled_us:.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="environment steps per measurement")
    parser.add_argument("--games", type=int, default=100_000, help="compiled random games")
    parser.add_argument("--game", action="append", help="a game (default: every game of gamecore.names())")
    args = parser.parse_args()
    for name in args.game or gamecore.names():
        bench(name, args.steps, args.games)


if __name__ == "__main__":
    main()
