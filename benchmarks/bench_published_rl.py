"""Run the thesis's own published reinforcement learning (kondziug/LOTR_AI) directly: train, then test.

The published code is not part of this project and no line of it is copied here: the script imports it from a
checkout (``git clone https://github.com/kondziug/LOTR_AI``) and runs its direct actor-critic pipeline
(``pipeline = 2``: ``simulators.lowLevelSimulator.LowLevelSimulator.objective``, the function its Hyperopt study
evaluated) for one setup and one point of the thesis's tables: ``--episodes`` training episodes, during which
the published code saves its networks whenever the mean reward of the last 1,000 episodes (checked every 100
after the first 1,000) beats the best so far. The thesis reports that figure ("the best average reward from 1000
episodes"). The script then loads the saved networks and plays ``--test-games`` fresh games with them, the
published ``loadAndTest`` loop driven from here (the checkout's own copy is fixed to its macro-action files),
and prints both, the test with its 95% interval. A training whose actor diverges (its probabilities turn NaN and
TensorFlow draws an action out of range: the published code stops there) is reported with its episode, and the
networks it had saved are tested; ``--saved`` tests those of an earlier run again.

It needs TensorFlow, which this project does not: run it with an interpreter that has ``tensorflow-cpu``,
``tf-keras`` and ``tensorflow-probability`` (the published code's Keras 2 API, ``TF_USE_LEGACY_KERAS=1``)::

    python3.11 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu==2.21.0 tf-keras==2.21.0 \
        tensorflow-probability==0.25.0 hyperopt matplotlib
    PYTHONPATH=. /tmp/tfvenv/bin/python benchmarks/bench_published_rl.py --checkout LOTR_AI \
        --setup random-rl-random --encoding 2 --neurons 100 --lr 0.00065 --episodes 10000 --test-games 2000

What it measured is in docs/lotr-published-rules.md ("The published RL, run directly").
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import types
from pathlib import Path

from benchmarks.bench_published_code import commit_of, mode_of
from gamecore.stats import wilson_interval

WINDOW = 1000  # the published code's moving window of episodes


def install_config(args, mode: str) -> None:
    """Stand in for the checkout's ``mainConfig`` with the command line's values (direct actor-critic)."""
    config = types.ModuleType("mainConfig")
    config.pipeline, config.num_episodes, config.encoding, config.rlMode = 2, args.episodes, args.encoding, mode
    config.default_lr, config.n_neurons = args.lr, args.neurons
    config.difficulty, config.fullGame = args.difficulty, False
    config.mctsMode, config.playoutBudget, config.playoutsPerSimulation, config.playoutType = "rrrrr", 0, 0, 0
    config.reduction_planning = config.reduction_questing = config.reduction_defense = True
    sys.modules["mainConfig"] = config


def install_numpy_alias() -> None:
    """The published envs import a private name from ``numpy.lib.histograms`` (NumPy 1), unused: alias it."""
    import numpy.lib

    if "numpy.lib.histograms" not in sys.modules:
        alias = types.ModuleType("numpy.lib.histograms")
        alias._histogram_bin_edges_dispatcher = None
        sys.modules["numpy.lib.histograms"] = alias
        numpy.lib.histograms = alias


def hyperparameters(mode: str, neurons: int, lr: float) -> dict:
    """The published objective's parameter dictionary, one learning rate and width for every RL stage."""
    params = {}
    for stage, letter in (("p", mode[0]), ("q", mode[1]), ("d", mode[3])):
        if letter == "l":
            params[f"lr{stage}"], params[f"n_neurons_{stage}"] = lr, neurons
    return params


def saved_directory(mode: str, encoding: int, params: dict) -> str:
    """Where the published objective saved its best networks (``results/<this>``), as it names it."""
    name = f"{mode}p2en{encoding}"
    for stage in ("p", "q", "d"):
        if f"n_neurons_{stage}" in params:
            name += f"nn{stage}{params[f'n_neurons_{stage}']}"
    return name


def play_saved(simulator, params: dict, mode: str, directory: str, games: int, seed: int) -> int:
    """Play ``games`` games with the networks saved in ``results/<directory>`` (new agents of ``params``, as the
    published ``loadAndTest``); the number won."""
    import Game_Model.globals as published_globals

    simulator.setAgents(params)
    agents = {"planning": (mode[0], simulator.agent_planning()), "questing": (mode[1], simulator.agent_questing()),
              "defense": (mode[3], simulator.agent_defense())}
    for stage, (letter, agent) in agents.items():
        if letter == "l":
            agent.load_models(directory, stage)
    wins = 0
    for game in range(games):
        random.seed(seed * 1_000_003 + game)
        published_globals.gameWin = published_globals.gameOver = False
        observation = simulator.env.reset()
        while not (published_globals.gameWin or published_globals.gameOver):
            simulator.simulatePlanning(observation)
            simulator.simulateQuesting()
            simulator.env.travelPhase(mode)
            simulator.simulateDefense()
            simulator.env.endRound(mode)
            observation = simulator.env.encoder.encodePlanning("critic")
        wins += int(published_globals.gameWin)
        if (game + 1) % 500 == 0:
            print(f"  test: {game + 1} / {games} games, {wins} won", flush=True)
    return wins


def rate(wins: int, games: int) -> str:
    low, high = wilson_interval(wins, games)
    return f"{wins} / {games} = {100 * wins / games:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, required=True, help="a checkout of kondziug/LOTR_AI")
    parser.add_argument("--setup", default="random-rl-random",
                        help="planning-questing-defense, each random or rl (rl-rl-random, random-rl-random)")
    parser.add_argument("--difficulty", default="hard", choices=["easy", "medium", "hard"])
    parser.add_argument("--encoding", type=int, default=2, choices=[0, 1, 2, 3])
    parser.add_argument("--neurons", type=int, default=100)
    parser.add_argument("--lr", type=float, default=0.00065)
    parser.add_argument("--episodes", type=int, default=10000)
    parser.add_argument("--test-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--saved", type=Path, help="test the networks an earlier run saved in this folder (its "
                        "printed working folder), without training")
    args = parser.parse_args()
    if not (args.checkout / "simulators" / "lowLevelSimulator.py").is_file():
        raise SystemExit(f"--checkout {args.checkout}: no simulators/lowLevelSimulator.py there; clone "
                         "kondziug/LOTR_AI at a commit with its RL pipelines")
    mode = mode_of(args.setup)
    if set(mode[0] + mode[1] + mode[3]) - {"r", "l"}:
        raise SystemExit(f"--setup {args.setup!r}: the RL pipeline takes random or rl at each stage")
    if args.episodes <= WINDOW:
        raise SystemExit(f"--episodes {args.episodes}: the published code saves nothing before {WINDOW} episodes")
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    install_config(args, mode)
    install_numpy_alias()
    sys.path.insert(0, str(args.checkout.resolve()))
    try:
        import tensorflow as tf
    except ImportError:
        raise SystemExit("this script needs TensorFlow: run it with an interpreter that has tensorflow-cpu, "
                         "tf-keras and tensorflow-probability (see its docstring)") from None
    import Game_Model.globals as published_globals
    from simulators.lowLevelSimulator import LowLevelSimulator

    random.seed(args.seed)
    tf.random.set_seed(args.seed)
    published_globals.init()
    simulator = LowLevelSimulator(args.encoding)
    params = hyperparameters(mode, args.neurons, args.lr)
    print(f"{commit_of(args.checkout)} {args.setup} ({mode}) {args.difficulty} encoding {args.encoding} "
          f"{args.neurons} neurons lr {args.lr}", flush=True)
    if args.saved is None:
        os.chdir(tempfile.mkdtemp(prefix="published-rl-"))
        print(f"training {args.episodes} episodes in {os.getcwd()} ...", flush=True)
        train_published(simulator, params, args.episodes, tf.errors.InvalidArgumentError)
    else:
        os.chdir(args.saved)
    directory = saved_directory(mode, args.encoding, params)
    if not Path("results", directory).is_dir():
        raise SystemExit(f"no networks saved in {Path('results', directory).resolve()}: the published code saves "
                         "them once its best mean reward passes its first mark")
    start = time.perf_counter()
    wins = play_saved(simulator, params, mode, directory, args.test_games, args.seed + 1_000)
    print(f"test of the saved networks on fresh games: {rate(wins, args.test_games)}, "
          f"{time.perf_counter() - start:.0f} s", flush=True)


def train_published(simulator, params: dict, episodes: int, diverged: type) -> None:
    """Run the published objective and print its best mean reward of 1,000 episodes (the networks it saved),
    or the episode where its training failed (``diverged``: the actor's probabilities turned NaN, so TensorFlow
    drew an action out of range)."""
    played = 0
    reset = simulator.env.reset

    def counted_reset():
        nonlocal played
        played += 1
        return reset()

    simulator.env.reset = counted_reset
    start = time.perf_counter()
    try:
        simulator.objective(params)
        ended = f"{episodes} episodes"
    except diverged as error:
        ended = f"failed in episode {played} ({str(error).splitlines()[0][:100]})"
    best = simulator.best_global_avg
    print(f"training: {ended}, {time.perf_counter() - start:.0f} s; best mean reward of {WINDOW} episodes "
          f"{best:.3f}, a win rate of {100 * (best + 1) / 2:.1f}% (the thesis's measure; the networks saved then)",
          flush=True)

if __name__ == "__main__":
    main()
