"""Carcassonne: is a search's decision a function of what its player sees and of its seed alone?

Pairs of positions that differ only in the hidden order of the stack (the undrawn tiles out of sight, permuted);
each agent decides both with the same seed. An honest search whose determinizations draw from a canonical order of
the hidden tiles decides the same in every pair; one that permutes the true order does not.

Run: python benchmarks/bench_carcassonne_honesty.py [--games 4] [--every 6] [--agents mcts mcts-rave flat-mc]
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.agent import Agent
from agents.specs import AgentSpec
from carcassonne_sim import kernels as K
from carcassonne_sim.game import CarcassonneState


def hidden_twin(state: CarcassonneState, rng: np.random.Generator) -> CarcassonneState:
    """``state`` with the undrawn tiles out of sight in another order (the drawn tile and the bottom's kept)."""
    s = state.core_state()
    hidden = slice(K.ORDER + int(s[K.TOP]), K.ORDER + K.N_STACK - int(s[K.KNOWN_BOTTOM]))
    s[hidden] = rng.permutation(s[hidden])
    return CarcassonneState.from_core(s)


def positions(games: int, every: int, seed: int = 0) -> list[CarcassonneState]:
    """Every ``every``-th position (from the 5th turn) of ``games`` games of uniformly random play."""
    rng = np.random.default_rng(seed)
    found = []
    for g in range(games):
        state, turn = CarcassonneState(g), 0
        while not state.is_over:
            if turn >= 5 and (turn - 5) % every == 0 and len(state.stack()) > 1:
                found.append(state.clone())
            actions = state.legal_actions()
            state.apply(actions[rng.integers(len(actions))])
            turn += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--every", type=int, default=6, help="one position every this many turns")
    parser.add_argument("--agents", nargs="+", default=["mcts", "mcts-rave", "flat-mc"],
                        help="agent kinds (the presets: 5,000 rollouts a move; flat-mc at --flat-budget)")
    parser.add_argument("--flat-budget", type=int, default=2000)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    pairs = [(state, hidden_twin(state, rng)) for state in positions(args.games, args.every)]
    for kind in args.agents:
        spec = AgentSpec.make(kind, game="carcassonne", **({"budget": args.flat_budget} if kind == "flat-mc" else {}))
        differ = sum(Agent(spec, seed=n).act(a) != Agent(spec, seed=n).act(b) for n, (a, b) in enumerate(pairs))
        print(f"{spec}: a different decision in {differ} of {len(pairs)} pairs")


if __name__ == "__main__":
    main()
