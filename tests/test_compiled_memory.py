"""Compiled play frees every array it allocates.

The compiled core's kernels run without reference counting (``gamecore.jit``);
a kernel that received an array from an allocating call would never free it.
Numba's allocation counters (``NUMBA_NRT_STATS=1``, in a fresh process) must
show as many frees as allocations over games of every agent kind and every
use of the Python interface.
"""

import json
import os
import subprocess
import sys

import pytest

EXERCISE = """
import gc, json
import numpy as np
from numba.core.runtime import rtsys
from agents.evaluation import evaluate_setup
from agents.setup import Setup
from lotr_sim import GameState

def exercise():
    for setup in ("random", "expert", "random-mcts-mcts", "expert-flat-mc-oracle-mcts"):
        evaluate_setup(Setup.parse(setup, "lotr"), options={"difficulty": "hard"}, games=20, seed=3)
    for algo in ("q-macro", "ac-macro", "ac-direct"):
        evaluate_setup(Setup.parse("rl-rl-rl", "lotr").with_params({"algo": algo}),
                       options={"difficulty": "hard"}, games=10, seed=3)
    rng = np.random.default_rng(0)
    for seed in range(20):
        game = GameState("hard", seed=seed)
        while not game.is_over:
            game.legal_actions()
            game.clone().play_out("expert", rng)
            game.determinize(rng).play_out("random", rng)
            game.apply(game.sample_action(rng))

exercise()  # compiles, and allocates what stays (constants, caches)
gc.collect()
before = rtsys.get_allocation_stats()
exercise()
gc.collect()
after = rtsys.get_allocation_stats()
print(json.dumps({"allocated": after.alloc - before.alloc, "freed": after.free - before.free}))
"""


@pytest.mark.slow
def test_compiled_play_frees_what_it_allocates():
    env = dict(os.environ, NUMBA_NRT_STATS="1")
    done = subprocess.run([sys.executable, "-c", EXERCISE], env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    assert counts["allocated"] > 1000, counts  # the counters ran, and the exercise allocates
    assert counts["freed"] == counts["allocated"], f"compiled code leaked {counts['allocated'] - counts['freed']} arrays"
