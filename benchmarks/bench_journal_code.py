"""Run the code the 2021 journal paper ran directly: the game of kondziug/LotR_simulator with the MCTS agent that
kondziug/LOTR_AI first published, written against that game's interface (docs/lotr-published-rules.md, "The 2021
journal paper").

Neither repository is part of this project and no line of them is copied here: the script imports them from two
checkouts given on the command line (``git clone https://github.com/kondziug/LotR_simulator && git -C
LotR_simulator checkout c335a8e``; ``git clone https://github.com/kondziug/LOTR_AI && git -C LOTR_AI checkout
36946d5``). The agent's modules import the game as the package ``Game_Model`` and read its module ``globals``
without importing it under that name; the script serves the simulator's modules under ``Game_Model`` and hands
the agent's modules that ``globals``, nothing else. ``MCTSAgent(mode, budget, playouts per node, level)`` plays
whole games, the mode a letter per planning, questing and defense (``e`` expert, ``r`` random, ``m`` MCTS; travel
random and attack by the game's own playout rule, as that code does). The paper's flat Monte Carlo (its agent 3)
survives only as commented-out code, so mixtures naming it are refused. Each game seeds Python's ``random`` (the
code's only source of chance) from ``--seed`` and its index.

    python benchmarks/bench_journal_code.py --simulator LotR_simulator --checkout LOTR_AI --mixture 4-2-2 \
        --difficulty medium --games 200

What it measured is in docs/lotr-published-rules.md ("The journal paper's code, run directly").
"""

from __future__ import annotations

import argparse
import importlib
import io
import random
import sys
import types
from pathlib import Path

from bench_published_code import (  # its sibling script (benchmarks/ is on the path of a script run there)
    commit_of,
    positive,
    wins_of,
)

LETTERS = {"1": "r", "2": "e", "4": "m"}  # the paper's agents: 1 random, 2 expert, 4 MCTS (3, flat MC, unpublished)
GAME_MODULES = ("globals", "card", "creature", "hero", "ally", "enemy", "land", "quest", "deck", "regular_deck",
                "quest_deck", "player_creature", "agent", "randomAgent", "expertAgent", "board", "player", "game")


def mode_of(mixture: str) -> str:
    """The agent's mode of a mixture of the paper's agents, planning-questing-defense (``"4-2-2"`` -> ``"mee"``)."""
    parts = mixture.split("-")
    if len(parts) != 3 or any(p not in "1234" for p in parts):
        raise SystemExit(f"--mixture {mixture!r}: give planning-questing-defense in the paper's agents, e.g. 4-2-2")
    if "3" in parts:
        raise SystemExit(f"--mixture {mixture!r}: the paper's flat Monte Carlo (agent 3) survives only as commented-"
                         "out code; mixtures of agents 1, 2 and 4 run")
    return "".join(LETTERS[p] for p in parts)


def start_worker(simulator: Path, checkout: Path) -> None:
    """Serve the simulator's modules as the package ``Game_Model`` and give the agent's modules its ``globals``."""
    sys.path[:0] = [str(simulator), str(checkout / "vanilla_mcts")]
    package = types.ModuleType("Game_Model")
    package.__path__ = []
    sys.modules["Game_Model"] = package
    for name in GAME_MODULES:
        module = importlib.import_module(name)
        sys.modules[f"Game_Model.{name}"] = module
        setattr(package, name, module)
    game_globals = sys.modules["globals"]
    game_globals.init()
    for name in ("node", "mcts", "mctsAgent"):
        importlib.import_module(name).globals = game_globals


def play(job) -> int:
    """One game of the agent; 1 for a win."""
    seed, index, mode, budget, ppn, level = job
    game_globals, agent = sys.modules["globals"], sys.modules["mctsAgent"]
    random.seed(seed * 1_000_003 + index)
    game_globals.init()
    outcome = io.StringIO()
    agent.MCTSAgent(mode, budget, ppn, level).simulate(outcome)
    return int(outcome.getvalue().endswith("w"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulator", type=Path, required=True, help="a checkout of kondziug/LotR_simulator (c335a8e)")
    parser.add_argument("--checkout", type=Path, required=True, help="a checkout of kondziug/LOTR_AI (36946d5)")
    parser.add_argument("--mixture", default="4-2-2", help="planning-questing-defense in the paper's agents (1, 2, 4)")
    parser.add_argument("--difficulty", default="medium", choices=["medium", "hard"],
                        help="medium: the simulator's decks; hard: with its scenario setup")
    parser.add_argument("--budget", type=positive, default=40, help="playouts a decision (playoutBudget)")
    parser.add_argument("--ppn", type=positive, default=1, help="playouts per node (playoutsPerSimulation)")
    parser.add_argument("--games", type=positive, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=positive, default=2)
    args = parser.parse_args()
    if not (args.simulator / "globals.py").is_file() or not (args.simulator / "expertAgent.py").is_file():
        raise SystemExit(f"--simulator {args.simulator}: no globals.py and expertAgent.py there; clone "
                         "kondziug/LotR_simulator")
    if not (args.checkout / "vanilla_mcts" / "mctsAgent.py").is_file():
        raise SystemExit(f"--checkout {args.checkout}: no vanilla_mcts/mctsAgent.py there; clone kondziug/LOTR_AI")
    if (args.checkout / "mainConfig.py").is_file():
        raise SystemExit(f"--checkout {args.checkout}: it has the thesis's game (mainConfig.py); check out 36946d5, "
                         "or run benchmarks/bench_published_code.py")
    mode = mode_of(args.mixture)
    jobs = [(args.seed, g, mode, args.budget, args.ppn, args.difficulty) for g in range(args.games)]
    wins, seconds, low, high = wins_of(play, jobs, args.workers, start_worker, (args.simulator, args.checkout))
    print(f"{commit_of(args.simulator)} + {commit_of(args.checkout)} {args.mixture} ({mode}) {args.difficulty} budget "
          f"{args.budget} ppn {args.ppn}: {wins} / {args.games} wins, {100 * wins / args.games:.1f}% "
          f"[{100 * low:.1f}, {100 * high:.1f}], {seconds:.0f} s")


if __name__ == "__main__":
    main()
