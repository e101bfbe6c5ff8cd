"""The conformance suite: every game that ``gamecore.names()`` lists (Nim, the example game, included) passes
``gametune.check_game``'s checks without a line written for it. A game's author calls ``check_game`` in their own
tests (``examples/nim/tests``); here each check runs as its own test, per game.
"""

from __future__ import annotations

import dataclasses
import types

import pytest

import gamecore
from gamecore.errors import SpecError
from gametune.conformance import CHECKS, ConformanceError, Skipped, check_game, one_line

GAMES = gamecore.names()


@pytest.fixture(params=GAMES)
def game(request) -> gamecore.Game:
    return gamecore.load(request.param)


@pytest.mark.parametrize("check", list(CHECKS))
def test_the_game_passes(game, check):
    try:
        CHECKS[check](game)
    except Skipped as reason:
        pytest.skip(str(reason))


@pytest.mark.parametrize("kernel", ["decode", "deal_game"])
def test_a_missing_kernel_fails_at_load_in_one_line_naming_it(game, kernel):
    lacking = types.ModuleType(f"{game.kernels.__name__}_without_{kernel}")
    lacking.__dict__.update({k: v for k, v in vars(game.kernels).items() if k != kernel})
    with pytest.raises(SpecError, match=rf"^game broken: .* lacks {kernel}\(S, ") as raised:
        gamecore.register(dataclasses.replace(game, name="broken", kernels=lacking))
    assert one_line(raised.value)
    lacking.__dict__[kernel] = lambda S: None
    with pytest.raises(SpecError, match=rf"lacks {kernel} with the parameters \(S, "):
        gamecore.register(dataclasses.replace(game, name="broken", kernels=lacking))
    assert "broken" not in gamecore.names()


def test_check_game_lists_every_failed_check_in_its_error():
    game = gamecore.load(GAMES[0])
    unruly = dataclasses.replace(game, name=f"{game.name}-unruly", encoders=())  # the environments need an encoder
    with pytest.raises(ConformanceError, match=r"fails 1 conformance check\(s\):\ninterface: ") as raised:
        check_game(unruly, checks=("interface", "random_games"))
    assert "random_games" not in str(raised.value)  # random games need no encoder: that check passes
