"""The thesis's random agent wins as often as docs/lotr-rules.md says (100,000 games per difficulty).

docs/lotr-rules.md: under these rules the random agent wins easy 54.15 %, medium 52.80 %,
hard 4.25 % (4,000,000 games each). With 100,000 games the standard error is about
0.16 points (easy, medium) and 0.06 points (hard); the tolerances are about three
and five standard errors. The seed is fixed, so the result is reproducible.
"""

import numpy as np
import pytest

from agents.evaluation import play_chunk
from agents.setup import Setup
from lotr_sim import layout as L

GAMES = 100_000
SEED = 0
RANDOM_EVERYWHERE = Setup.uniform("random", "lotr")


def play_games(difficulty: int, setup: Setup, seed: int, first: int, count: int, full_scenario: bool = False):
    """Per game: LOTR's outcome code and final round."""
    options = {"difficulty": L.DIFFICULTIES[difficulty], "full_scenario": full_scenario}
    records = play_chunk(setup, options, "first", seed, first, count).records
    return records[:, 0], records[:, 1]


def random_agent_games(difficulty: int, games: int = GAMES, seed: int = SEED):
    return play_games(difficulty, RANDOM_EVERYWHERE, seed, 0, games)


@pytest.mark.parametrize(
    "difficulty, expected, tolerance",
    [(L.EASY, 54.15, 0.5), (L.MEDIUM, 52.80, 0.5), (L.HARD, 4.25, 0.3)],
    ids=["easy", "medium", "hard"],
)
def test_random_agent_win_rate(difficulty, expected, tolerance):
    outcomes, rounds = random_agent_games(difficulty)
    assert set(np.unique(outcomes)) <= {L.WIN, L.LOST_BY_THREAT, L.LOST_BY_HEROES}
    assert rounds.min() >= 1
    win_rate = 100 * np.mean(outcomes == L.WIN)
    assert abs(win_rate - expected) <= tolerance, f"random agent wins {win_rate:.2f} %, expected {expected} %"
    if difficulty == L.EASY:
        # Easy has no locations: the staging threat stays low and threat never reaches 50.
        assert not np.any(outcomes == L.LOST_BY_THREAT)


def test_play_games_is_reproducible_and_chunkable():
    """Games are numbered: playing 0..999 at once or as 0..499 + 500..999 gives the same games."""
    whole, whole_rounds = random_agent_games(L.HARD, games=1000, seed=5)
    again, _ = random_agent_games(L.HARD, games=1000, seed=5)
    assert np.array_equal(whole, again)
    first, r1 = play_games(L.HARD, RANDOM_EVERYWHERE, 5, 0, 500)
    second, r2 = play_games(L.HARD, RANDOM_EVERYWHERE, 5, 500, 500)
    assert np.array_equal(np.concatenate([first, second]), whole)
    assert np.array_equal(np.concatenate([r1, r2]), whole_rounds)
    other, _ = random_agent_games(L.HARD, games=1000, seed=6)
    assert not np.array_equal(other, whole)


def test_evaluation_function_agrees_with_the_game_loop():
    from agents.evaluation import evaluate_setup

    result = evaluate_setup(Setup.parse("random-random-random-random-random", "lotr"), options={"difficulty": "medium"},
                            games=5000, seed=3)
    outcomes, _ = random_agent_games(L.MEDIUM, games=5000, seed=3)
    assert result.games == 5000
    assert np.array_equal(result.records[:, 0], outcomes)
    assert result.wins == int(np.sum(outcomes == L.WIN))
    assert result.metrics["lost_by_threat"] == int(np.sum(outcomes == L.LOST_BY_THREAT))
    assert result.metrics["lost_by_heroes"] == int(np.sum(outcomes == L.LOST_BY_HEROES))


@pytest.mark.parametrize(
    "setup",
    ["expert-expert-expert-expert-expert", "expert-random-expert-random-expert", "random-expert-random-expert-random"],
    ids=["expert", "expert-random-mix", "random-expert-mix"],
)
def test_compiled_policies_play_whole_games_legally(setup):
    """The game loop raises if an agent ever picks an illegal action."""
    for difficulty in (L.EASY, L.MEDIUM, L.HARD):
        outcomes, rounds = play_games(difficulty, Setup.parse(setup, "lotr"), 1, 0, 20_000)
        assert set(np.unique(outcomes)) <= {L.WIN, L.LOST_BY_THREAT, L.LOST_BY_HEROES}
        assert rounds.min() >= 1


def test_full_scenario_is_harder_than_one_stage():
    one, _ = play_games(L.MEDIUM, RANDOM_EVERYWHERE, 2, 0, 20_000)
    three, _ = play_games(L.MEDIUM, RANDOM_EVERYWHERE, 2, 0, 20_000, full_scenario=True)
    assert np.mean(three == L.WIN) < np.mean(one == L.WIN) - 0.05
