"""Two checkouts of the code timed on the same evaluations, interleaved (A, B, A, B, ...) on one machine.

Run: python benchmarks/bench_versions.py OLD_CHECKOUT NEW_CHECKOUT [--rounds 5]
e.g. ``git worktree add /tmp/old 7b0aef4`` then ``python benchmarks/bench_versions.py /tmp/old .``.

Each round runs every case once in each checkout (``python -m tuning.cli eval`` with that checkout first on
PYTHONPATH, compiled beforehand by an untimed first round) and reads the games/s the evaluation itself reports
(its compiled games' wall time, not the process's start). Prints, per case, the median games/s of each checkout,
the new one's ratio to the old, the range of the round-by-round ratios, and whether the wins agree (the same games
must be played).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

# (name, eval arguments in the new checkout, eval arguments in the old one): the same games in each
CASES = [
    ("random policy, 1,000,000 hard games", ["--policy", "random", "--difficulty", "hard", "--games", "1000000",
                                            "--seed", "7"], None),
    ("random-mcts-mcts, 2,000 hard games", ["--setup", "random-mcts-mcts", "--difficulty", "hard", "--games", "2000",
                                            "--seed", "11"], None),
    ("the RL agent (best-hard's), 10,000 hard games", ["--config", "studies/lotr/best-rl/agent.toml", "--games", "10000",
                                                       "--seed", "1000003"],
     ["--config", "studies/lotr/best/agent.toml", "--games", "10000", "--seed", "1000003"]),
]
RESULT = re.compile(r"win rate ([\d.]+)%.*?([\d,]+) games/s", re.DOTALL)


def run(checkout: Path, arguments: list[str]) -> tuple[float, float]:
    """(win rate in percent, games per second) of one evaluation in ``checkout``."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-m", "tuning.cli", "eval", *arguments, "--workers", "1"], cwd=checkout,
                          env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"{checkout}: lotr eval {' '.join(arguments)} failed: {last}")
    found = RESULT.search(done.stdout)
    if found is None:
        raise SystemExit(f"{checkout}: no win rate and games/s in: {done.stdout[-500:]}")
    return float(found[1]), float(found[2].replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    checkouts = {"old": args.old.resolve(), "new": args.new.resolve()}
    for which, checkout in checkouts.items():
        if not (checkout / "tuning" / "cli.py").is_file():
            parser.error(f"{which} = {checkout} is not a checkout of this project (no tuning/cli.py)")
    speeds = {(name, which): [] for name, _, _ in CASES for which in checkouts}
    wins = {}
    for round_ in range(args.rounds + 1):  # round 0 compiles and is not counted
        for name, new_arguments, old_arguments in CASES:
            for which, checkout in checkouts.items():
                arguments = old_arguments if which == "old" and old_arguments else new_arguments
                rate, speed = run(checkout, arguments)
                wins[name, which] = rate
                if round_:
                    speeds[name, which].append(speed)
        print(f"round {round_} of {args.rounds} done" + (" (compiling, not counted)" if not round_ else ""),
              file=sys.stderr, flush=True)
    print(f"{'case':48} {'old games/s':>12} {'new games/s':>12} {'new/old':>8} {'range':>13}  wins")
    for name, _, _ in CASES:
        old, new = (statistics.median(speeds[name, which]) for which in checkouts)
        ratios = [b / a for a, b in zip(speeds[name, "old"], speeds[name, "new"])]  # round by round
        same = "same" if wins[name, "old"] == wins[name, "new"] else f"{wins[name, 'old']}% vs {wins[name, 'new']}%"
        print(f"{name:48} {old:12,.0f} {new:12,.0f} {new / old:8.3f} {min(ratios):6.3f}-{max(ratios):.3f}  {same}")


if __name__ == "__main__":
    main()
