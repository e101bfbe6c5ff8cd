"""Nim's own tests, as a game package outside gametune writes them: the conformance check, the command line, a
small study and Gymnasium, all on the installed package (found by its entry point)."""

import json
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np

import gametune


def test_nim_is_installed_and_found_by_its_entry_point():
    assert "nim" in gametune.names()
    assert gametune.load("nim").kernels.__name__ == "gametune_nim.kernels"


def test_nim_passes_the_conformance_check():
    skipped = gametune.check_game("nim")  # raises ConformanceError naming every failed check
    assert all(name.startswith("openspiel") for name in skipped)  # only where OpenSpiel is not installed


GAMETUNE = str(Path(sys.executable).with_name("gametune"))  # the command pip installed beside this Python


def test_the_command_line_plays_nim():
    done = subprocess.run([GAMETUNE, "eval", "--game", "nim", "--policy", "random",
                           "--games", "1000", "--json"], capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["game"] == "nim" and result["games"] == 1000


def test_a_small_study_of_nim(tmp_path):
    (tmp_path / "nim.toml").write_text('name = "nim-mcts"\ngame = "nim"\nsetup = "mcts-random"\n'
                                       '[space]\nbudget = { choice = [4, 16] }\n[objective]\ngames = 20\n'
                                       '[validation]\ntop_k = 1\ngames = 20\n[test]\ngames = 20\n'
                                       '[search]\nsampler = "grid"\npruner = "none"\n')
    done = subprocess.run([GAMETUNE, "tune", "run", "nim.toml"], cwd=tmp_path,
                          capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "nim-mcts-best.toml").is_file() and 'game = "nim"' in (tmp_path / "nim-mcts-best.toml").read_text()


def test_gymnasium_makes_nim_by_its_neutral_id():
    env = gymnasium.make("gametune/nim-v0")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["action_mask"].any()
    _, reward, _, _, _ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert reward in (-1.0, 0.0, 1.0)
