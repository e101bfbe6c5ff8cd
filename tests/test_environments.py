"""The environments (``agents.environments``): one role against fixed agents (Gymnasium), the roles as agents
(PettingZoo AEC), on every game through its encoders and action spaces. The ecosystem's own checks run on every
game in ``tests/test_conformance.py``; here, what the environments promise beyond them."""

import gymnasium
import numpy as np
import pytest

import gametune  # noqa: F401  (registers gametune/<game>-v0, and the earlier lotr_tuning/<game>-v0 as aliases)
from agents.environments import GameAECEnv, GameEnv, env, parallel_env, raw_env
from agents.setup import Setup
from gamecore.errors import IllegalActionError, SpecError
from lotr_sim.decoders import MACRO_ACTIONS


def episode(env, policy, seed: int) -> tuple[list[float], list[np.ndarray]]:
    """The rewards and observations of one episode of ``policy(obs, info)``."""
    obs, info = env.reset(seed=seed)
    rewards, seen, over = [], [obs], False
    while not over:
        obs, reward, over, truncated, info = env.step(policy(obs, info))
        assert not truncated and env.observation_space.contains(obs)
        rewards.append(reward)
        seen.append(obs)
    return rewards, seen


def random_legal(rng):
    return lambda obs, info: rng.choice(np.flatnonzero(info["action_mask"]))


@pytest.mark.parametrize("env_id", ["gametune/loveletter-v0", "lotr_tuning/loveletter-v0"], ids=["id", "old-alias"])
def test_gymnasium_make_plays_love_letter_against_the_dp_player(env_id):
    env = gymnasium.make(env_id, opponent="dp")
    rng = np.random.default_rng(0)
    outcomes = []
    for seed in range(20):
        rewards, _ = episode(env, random_legal(rng), seed)
        assert not any(rewards[:-1]) and rewards[-1] in (-1.0, 0.0, 1.0)
        outcomes.append(rewards[-1])
    assert env.unwrapped.match.batch.decisions[1] > 0  # the dp player (a Python agent) decided the second seat
    assert outcomes.count(-1.0) > outcomes.count(1.0)  # random play loses to the thesis's player
    mask = env.unwrapped.action_masks()
    assert mask.dtype == bool and not mask.any()  # the game is over


def test_rewards_are_the_outcome_of_the_learners_seat():
    """Nim with a pile of 8 (a lost position for the first mover against the optimum) and of 9 (a won one)."""
    env = GameEnv("nim", opponent="optimal", options={"pile": 8})

    def take_most(obs, info):
        return np.flatnonzero(info["action_mask"])[-1]

    def optimum(obs, info):  # leave a multiple of 4; index i takes i + 1
        pile = int(sum(2**b * obs[b] for b in range(14)))  # the encoder's binary pile
        return pile % 4 - 1

    assert episode(env, take_most, 0)[0][-1] == -1.0
    env = GameEnv("nim", opponent="optimal", options={"pile": 9})
    assert episode(env, optimum, 0)[0] == [0.0, 0.0, 1.0]


@pytest.mark.parametrize("role", ["first", "second"])
def test_a_margin_reward_sums_to_the_outcome_and_the_final_margin(role):
    """Carcassonne's ``reward = "margin"``: every step is paid the change of the learner's score margin, so a
    game's rewards add up to its outcome plus its final margin over ``margin_scale``."""
    env = GameEnv("carcassonne", role=role, reward="margin", margin_scale=40.0)
    rng = np.random.default_rng(1)
    paid_along_the_way = 0
    for seed in range(4):
        rewards, _ = episode(env, random_legal(rng), seed)
        player = env.match.player(env.role)
        final = float(env.match.kernels.margin(env.match.state, player))
        assert sum(rewards) == pytest.approx(env.match.outcome(env.role) + final / 40.0)
        paid_along_the_way += sum(reward != 0.0 for reward in rewards[:-1])
    assert paid_along_the_way > 0  # features completed in play are paid when they score, not at the end


def test_the_learner_may_take_the_second_seat_and_sees_its_own_side():
    env = GameEnv("loveletter", role="second")
    obs, _ = env.reset(seed=4)
    state, K = env.match.state, env.match.kernels
    assert state[K.TO_MOVE] == 1 and obs[-1] == 1.0  # its turn, after the first seat's
    hand = {int(card) for card in state[K.HAND + 2: K.HAND + 4] if card}
    assert set(np.flatnonzero(obs[:8]) + 1) == hand


def test_a_python_agent_opponent_decides_through_the_harness():
    """OpenSpiel's ISMCTS bot is a Python agent of every game (as the Love Letter dp player is here)."""
    setup = Setup.parse("openspiel-ismcts", game="nim").with_params({"max_simulations": 20})
    env = GameEnv("nim", opponent=setup)
    rewards, _ = episode(env, random_legal(np.random.default_rng(1)), 3)
    assert rewards[-1] in (-1.0, 1.0) and env.match.batch.decisions[1] > 0


def test_an_agent_file_names_the_opponent(tmp_path):
    path = tmp_path / "opponent.toml"
    Setup.parse("random-strategic", game="loveletter").dump(path)
    env = GameEnv("loveletter", opponent=str(path))
    assert env.match.batch.rows[1, 0] == 1  # the strategic policy's code at the second seat
    with pytest.raises(SpecError, match="play lotr, not loveletter"):
        GameEnv("loveletter", opponent=Setup.parse("random", "lotr"))


def test_the_same_seed_replays_the_same_episode():
    runs = [episode(GameEnv("carcassonne"), random_legal(np.random.default_rng(2)), 7) for _ in range(2)]
    assert runs[0][0] == runs[1][0] and all(np.array_equal(a, b) for a, b in zip(runs[0][1], runs[1][1]))


@pytest.mark.parametrize("stage", ["planning", "questing", "defense"])
def test_a_lotr_stage_against_the_setup_of_the_others(stage):
    """What agents/rl/gym_env.py's StageEnv did, generated from the game: the thesis encodings, macro actions."""
    from gymnasium.utils.env_checker import check_env

    env = GameEnv("lotr", role=stage, opponent="random-random-random", encoder="thesis-1",
                  options={"difficulty": "medium"}, illegal="raise")
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs) and info["action_mask"].sum() == MACRO_ACTIONS[stage]
    rewards, _ = episode(env, lambda obs, info: env.action_space.sample(), 3)
    assert rewards[-1] in (1.0, -1.0) and not any(rewards[:-1])
    assert env.match.batch.decisions[[r for r in range(5) if r != env.role]].sum() > 0
    env.reset(seed=3)
    with pytest.raises(IllegalActionError, match=f"^action 99 is illegal at this {stage} decision; legal: 0, 1, 2"):
        env.step(99)


def test_one_line_errors_for_what_a_game_does_not_offer():
    with pytest.raises(SpecError, match="^lotr has no encoder 'pixels'; its encoders: thesis-0, .*observation$"):
        GameEnv("lotr", encoder="pixels")
    with pytest.raises(SpecError, match="^role 'travel': lotr's encoder thesis-0 and action space macro cover "
                                        "planning, questing, defense$"):
        GameEnv("lotr", role="travel")
    with pytest.raises(SpecError, match="^illegal = 'ignore': expected one of lose, raise$"):
        GameEnv("nim", illegal="ignore")
    with pytest.raises(SpecError, match="^reward = 'margin': loveletter has no scores .*reward = 'outcome'$"):
        GameEnv("loveletter", reward="margin")
    with pytest.raises(SpecError, match="^reward = 'points': expected one of outcome, margin$"):
        GameEnv("nim", reward="points")


def test_pettingzoo_lotr_agents_are_its_decision_kinds_sharing_the_outcome():
    env = GameAECEnv("lotr", options={"difficulty": "easy"})
    assert env.possible_agents == ["planning", "questing", "defense"]
    env.reset(seed=5)
    rng, final = np.random.default_rng(5), {}
    for agent in env.agent_iter():
        obs, reward, terminated, _, _ = env.last()
        if terminated:
            final[agent] = reward
        env.step(None if terminated else rng.choice(np.flatnonzero(obs["action_mask"])))
    assert sorted(final) == ["defense", "planning", "questing"] and len(set(final.values())) == 1


def test_pettingzoo_two_player_rewards_are_zero_sum():
    env = GameAECEnv("loveletter")
    env.reset(seed=1)
    rng, final = np.random.default_rng(1), {}
    for agent in env.agent_iter():
        obs, reward, terminated, _, _ = env.last()
        if terminated:
            final[agent] = reward
        env.step(None if terminated else rng.choice(np.flatnonzero(obs["action_mask"])))
    assert sorted(final) == ["first", "second"] and sum(final.values()) == 0.0


@pytest.mark.parametrize("game", ["lotr", "loveletter", "carcassonne"])
def test_pettingzoos_conventions_per_game(game):
    """env(), raw_env(), parallel_env() and metadata["name"], checked by PettingZoo's own tests."""
    import warnings

    from pettingzoo.test import api_test, parallel_api_test

    assert raw_env(game).metadata["name"] == f"{game}_v0"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice (agent names like player_0, a render method) is not a failure
        api_test(env(game), num_cycles=100)
        parallel_api_test(parallel_env(game), num_cycles=100)


def test_a_lotr_stage_not_pending_is_observed_as_zeros_of_its_own_size():
    """The kernels encode the pending decision, whose encoding has another size: observing another stage used to
    write the pending one's floats past the other's buffer (PettingZoo's parallel form observes every agent)."""
    aec = GameAECEnv("lotr", options={"difficulty": "hard"})
    aec.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if not aec.agents:
            aec.reset()
        pending = aec.agent_selection
        for agent in aec.possible_agents:
            seen = aec.observe(agent)
            assert seen["observation"].shape == aec.observation_space(agent)["observation"].shape
            assert agent == pending or not seen["observation"].any()
        mask = aec.observe(pending)["action_mask"]
        aec.step(int(rng.choice(np.flatnonzero(mask))) if not aec.terminations[pending] else None)


@pytest.mark.slow
def test_maskable_ppo_trains_on_an_environment():
    """sb3-contrib's MaskablePPO reads ``action_masks()``: the field's way to train on a masked game."""
    from sb3_contrib import MaskablePPO

    env = GameEnv("loveletter", opponent="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu").learn(128)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[action]


def test_an_off_the_shelf_algorithm_trains_on_a_lotr_stage():
    from stable_baselines3 import PPO

    env = GameEnv("lotr", role="questing", options={"difficulty": "easy"})
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=2, seed=0, device="cpu").learn(320)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, deterministic=True)
    assert env.action_space.contains(int(action))
