"""Agent specifications: which agent decides a role, with which parameters.

An ``AgentSpec`` is a validated, immutable value (game, agent name and
parameters with every default filled in). It is what setups, configuration
files and tuning trials hold; ``row()`` packs it into the float vector the
compiled game loop reads (``gamecore.row``); the files it names (``weights``,
``playout_nets``) are read where the agent is made (``agents.setup``). The
agents of a game are its compiled policies (``Game.policies``), flat Monte
Carlo and MCTS (with the game's search options) and the Python agents made for
it. Parameter names are the same everywhere (files, command line, tuning), so
trials compare across studies.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

import gamecore
from agents.learning.rules import algorithms
from gamecore.interface import Game, imported
from gamecore.params import Param, SpecError
from gamecore.row import (
    BUDGET,
    BUDGET_PER,
    BUDGET_UNITS,
    FINAL,
    FINAL_RULES,
    FLAT_MC,
    GAME_COLUMNS,
    KIND,
    LEAF,
    LEAVES,
    MCTS,
    ORACLE,
    PLAYOUT,
    PPN,
    PRIOR,
    PYTHON,
    RAVE,
    RAVE_BIAS,
    REWARD,
    REWARDS,
    ROW_WIDTH,
    C,
)

MAX_BUDGET = 100_000
REDUCTION = "reduction"  # sets every search option named reduction_*

_BUDGET = Param("budget", int, 200, 1, MAX_BUDGET, help="playouts per decision")
_PPN = Param("ppn", int, 20, 1, MAX_BUDGET, help="playouts per leaf evaluation (budget // ppn iterations)")
_C = Param("c", float, 1 / math.sqrt(2), 0.0, 100.0, help="UCB1 exploration constant: mean + c sqrt(2 ln N / n)")
_LEARNING_PARAMS = (  # the rl agent's, but its algo and encoding, which the game's learning interface gives
    Param("neurons", int, 100, 1, 4096, help="hidden ReLU units (of each hidden layer)"),
    Param("layers", int, 1, 1, 8, help="hidden layers (the thesis's networks: 1)"),
    Param("net", str, "mlp", choices=("mlp", "slots"),
          help="ppo: an MLP over the whole observation, or slots: one network shared by the slots of an encoder and "
               "action space laid out by slot (Carcassonne's open positions), scoring each slot's actions"),
    Param("lr", float, 6.5e-4, 1e-7, 1.0, help="Adam learning rate"),
    Param("epsilon", float, 0.1, 0.0, 1.0, help="Q-learning: exploration rate while training"),
    Param("policy", str, "greedy", choices=("greedy", "sample"), help="acting after training: best or sampled action"),
    Param("weights", str, "", help="trained weights (a .pt state_dict); empty: untrained"),
    Param("gamma", float, 0.99, 0.0, 1.0, help="discount of later rewards"),
    Param("n_steps", int, 256, 8, 1 << 16, help="ppo: steps of each environment per rollout"),
    Param("batch_size", int, 64, 2, 1 << 16, help="ppo: minibatch size"),
    Param("n_epochs", int, 4, 1, 100, help="ppo: passes over each rollout"),
    Param("gae_lambda", float, 0.95, 0.0, 1.0, help="ppo: GAE's lambda"),
    Param("ent_coef", float, 0.01, 0.0, 1.0, help="ppo: entropy bonus"),
    Param("clip_range", float, 0.2, 0.01, 1.0, help="ppo: the policy ratio's clip"),
)
_BUDGET_PER = Param("budget_per", str, "decision", choices=BUDGET_UNITS,
                    help="flat Monte Carlo: budget playouts per decision, shared by its actions, or for each action")
_FINAL = Param("final", str, "visits", choices=FINAL_RULES, help="the root action chosen: most visits or best mean")
_PLAYOUT_NETS = Param("playout_nets", str, "",
                      help="an agent configuration whose trained networks play their stages in the playouts "
                           "(greedy, compiled), the playout policy the other stages; empty: none")
_LEAF = Param("leaf", str, LEAVES[0], choices=LEAVES,
              help="value: each playout stops at the first state a network of playout_nets values (its critic; "
                   "q-macro's best Q) and backs up that value; playout: to the end")
_RAVE = Param("rave", bool, False, help="MCTS-RAVE: all-moves-as-first values blended into the tree policy")
_RAVE_BIAS = Param("rave_bias", float, 0.1, 0.0, 100.0,
                   help="MCTS-RAVE: b of the minimum-MSE schedule, beta = m / (n + m + 4 b^2 n m)")
_PRIOR = Param("prior", float, 0.0, 0.0, 1000.0,
               help="progressive bias: at each node the playout policy's choice (playout_nets' where they decide) "
                    "gains prior / (n + 1) in the tree policy; 0: off")


@dataclass(frozen=True)
class AgentKind:
    """A kind of agent: its name, compiled code and parameters."""

    name: str
    code: int
    params: tuple[Param, ...]
    oracle: bool = False
    help: str = ""
    stages: tuple[str, ...] = ()  # the roles it can decide; empty: all
    games: tuple[str, ...] = ()  # the games it is made for; empty: all
    factory: str = ""  # a Python agent's maker, "module:function" (gamecore.interface.PythonAgent)
    trained: bool = False  # a network trained before it plays (rl), not a fixed rule or table

    def param(self, name: str, where: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        valid = ", ".join(p.name for p in self.params) or "none"
        games = self.games[0] if len(self.games) == 1 else "GAME"
        raise SpecError(f"{where}: {self.name} has no parameter {name!r}; its parameters: {valid} "
                        f"(gametune agents {games} {self.name} explains each)")


def agent_kinds(game: Game | str) -> dict[str, AgentKind]:
    """The agents of a game: its compiled policies, the searches with its options, its Python agents."""
    return _agent_kinds(gamecore.load(game))


@functools.cache
def _agent_kinds(game: Game) -> dict[str, AgentKind]:
    playout = Param("playout", str, game.policies[0], choices=game.policies, help="policy of the playouts")
    rewards = REWARDS if hasattr(game.kernels, "margin") else REWARDS[:1]
    reward = Param("reward", str, REWARDS[0], choices=rewards,
                   help="what a playout backs up: the outcome (1 win, 0.5 draw, 0 loss) or, in a game with scores, "
                        "the player's score minus the opponent's")
    nets = (_PLAYOUT_NETS, _LEAF) if game.learning.playout_nets else ()
    search = (_BUDGET, _PPN, _C, playout, *nets, *game.search.params, _FINAL, _RAVE, _RAVE_BIAS, _PRIOR, reward)
    kinds = [AgentKind(name, code, (), help=f"the compiled {name} policy") for code, name in enumerate(game.policies)]
    kinds += [
        AgentKind("flat-mc", FLAT_MC, (_BUDGET, playout, *nets, *game.search.params, _BUDGET_PER, reward),
                  help="flat Monte Carlo over the root's actions"),
        AgentKind("mcts", MCTS, search, help="honest information-set MCTS"),
        AgentKind("oracle-mcts", MCTS, search, oracle=True,
                  help="MCTS on the true state, hidden information known: an upper bound, not an honest agent"),
    ]
    kinds += _learning_kinds(game, rewards)
    kinds += _openspiel_kinds(playout)
    kinds += [AgentKind(agent.name, PYTHON, agent.params, oracle=agent.oracle, help=agent.help, stages=agent.roles,
                        games=(game.name,), factory=agent.factory) for agent in game.reproduction.agents]
    by_name = {kind.name: kind for kind in kinds}
    for preset in game.reproduction.presets:  # another agent with other defaults (Love Letter's mc: flat-mc as the thesis ran it)
        base, where = by_name[preset.agent], f"{game.name} preset {preset.name}"
        defaults = {name: base.param(name, where).check(value, where) for name, value in preset.defaults.items()}
        params = tuple(dataclasses.replace(p, default=defaults.get(p.name, p.default)) for p in base.params)
        by_name[preset.name] = dataclasses.replace(base, name=preset.name, params=params, help=preset.help)
    return by_name


def _learning_kinds(game: Game, rewards: tuple[str, ...]) -> list[AgentKind]:
    """The ``rl`` agent, where the game declares encoders and something to learn over (``agents.learning``);
    ``rewards``: what the game can pay it (the margin only in a game with scores)."""
    names = tuple(algorithms(game))
    if not game.encoders or not names:
        return []
    defaults = game.learning.defaults
    encodings = ", ".join(f"{k}: {encoder.name}" for k, encoder in enumerate(game.encoders))
    params = (
        Param("algo", str, defaults.get("algo", names[0]), choices=names,
              help="the learning rule and what it chooses among: q (Q-learning) or ac (actor-critic) over an action "
                   "space of the game, or a learner of the game's own"),
        Param("encoding", int, defaults.get("encoding", 0), 0, len(game.encoders) - 1,
              help=f"the game's encoder of the observation ({encodings})"),
        *(dataclasses.replace(p, default=defaults.get(p.name, p.default)) for p in _LEARNING_PARAMS),
        Param("reward", str, defaults.get("reward", REWARDS[0]), choices=rewards,
              help="ppo: the outcome at the end (+1 win, 0 draw, -1 loss) or, in a game with scores, also the "
                   "change of the learner's score margin at every step over margin_scale"),
        Param("margin_scale", float, defaults.get("margin_scale", 100.0), 1e-3, 1e6,
              help="ppo, reward = margin: the points of margin worth one win"),
    )
    roles = tuple(role for role in game.roles if role in game.encoders[0].sizes)
    return [AgentKind("rl", PYTHON, params, help="a small PyTorch network trained by lotr train (thesis chapter 5)",
                      stages=roles, factory="agents.learning:make_learner", trained=True)]


def _openspiel_kinds(playout: Param) -> list[AgentKind]:
    """OpenSpiel's MCTS bots on the game (``agents.openspiel``; the ``openspiel`` extra)."""
    from agents.openspiel import FINAL_POLICIES, ROLLOUTS

    params = (
        Param("uct_c", float, math.sqrt(2) * _C.default, 0.0, 100.0,
              help="OpenSpiel's UCT constant: mean + uct_c sqrt(ln N / n) (sqrt(2) times our c)"),
        Param("max_simulations", int, _BUDGET.default, 1, MAX_BUDGET, help="simulations per decision"),
        dataclasses.replace(playout, help="policy of the compiled playouts (rollouts = compiled)"),
        Param("rollouts", str, ROLLOUTS[0], choices=ROLLOUTS,
              help="a leaf's playout: the compiled policy, or OpenSpiel's RandomRolloutEvaluator (slow)"),
    )
    final = Param("final_policy", str, FINAL_POLICIES[0], choices=FINAL_POLICIES,
                  help="ISMCTSBot's final choice: most visits or best mean")
    return [
        AgentKind("openspiel-ismcts", PYTHON, (*params, final), factory="agents.openspiel:make_ismcts",
                  help="OpenSpiel's ISMCTSBot (open-spiel 2.0.2), honest"),
        AgentKind("openspiel-mcts", PYTHON, params, oracle=True, factory="agents.openspiel:make_mcts",
                  help="OpenSpiel's MCTSBot on the true state: an upper bound, not an honest agent"),
    ]


def agent_names(game: Game | str) -> tuple[str, ...]:
    """The names of the agents of a game (``agent_kinds``)."""
    return tuple(agent_kinds(game))


@dataclass(frozen=True)
class AgentSpec:
    """An agent of a game with all its parameters (defaults filled in):
    ``AgentSpec.make("mcts", game="lotr", budget=40)``.

    ``game`` is the game object (a name given here is loaded once)."""

    agent: str
    game: Game
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "game", gamecore.load(self.game))

    @classmethod
    def make(cls, agent: str, where: str = "agent", *, game: Game | str, **params: Any) -> AgentSpec:
        """Validate and complete; ``reduction=True/False`` sets every ``reduction_*`` flag.

        Raises SpecError (one line naming ``where``, the field and what is valid)."""
        game = gamecore.load(game)
        kinds = agent_kinds(game)
        kind = kinds.get(agent)
        if kind is None:
            raise SpecError(f"{where}: unknown agent {agent!r}; valid: {', '.join(kinds)} (gametune agents {game} "
                            "describes them)")
        flags = [p.name for p in kind.params if p.name.startswith(f"{REDUCTION}_")]
        if REDUCTION in params and flags:
            flag = Param(REDUCTION, bool, True).check(params.pop(REDUCTION), where)
            for name in flags:
                params.setdefault(name, flag)
        values = {p.name: p.default for p in kind.params}
        for name, value in params.items():
            values[name] = kind.param(name, where).check(value, where)
        if not values.get(_PLAYOUT_NETS.name) and values.get(_LEAF.name, LEAVES[0]) != LEAVES[0]:
            raise SpecError(f"{where}: leaf = {values[_LEAF.name]!r} needs the networks that value the leaves: set "
                            "playout_nets, e.g. playout_nets = \"studies/lotr/best-rl/agent.toml\", or leaf = \"playout\"")
        return cls(agent, game, tuple(values.items()))

    @property
    def kind(self) -> AgentKind:
        return agent_kinds(self.game)[self.agent]

    @property
    def oracle(self) -> bool:
        return self.kind.oracle

    def as_dict(self) -> dict[str, Any]:
        return dict(self.params)

    def __getitem__(self, name: str) -> Any:
        return self.as_dict()[name]

    def with_params(self, where: str = "agent", **params: Any) -> AgentSpec:
        """A copy with some parameters changed (validated); ``reduction`` overrides the three current flags."""
        current = self.as_dict()
        if REDUCTION in params:
            current = {k: v for k, v in current.items() if not k.startswith(f"{REDUCTION}_")}
        return AgentSpec.make(self.agent, where, game=self.game, **{**current, **params})

    def __str__(self) -> str:
        if not self.params:
            return self.agent
        return f"{self.agent}({', '.join(f'{k}={v:g}' if isinstance(v, float) else f'{k}={v}' for k, v in self.params)})"

    def row(self) -> np.ndarray:
        """The compiled agent row (``gamecore.row``) of the parameters, with the game's search table at its end
        where it has one; the net table of ``playout_nets`` takes that place (``agents.setup.compiled_row``)."""
        p = self.as_dict()
        game = self.game
        row = np.zeros(ROW_WIDTH, np.float64)
        row[KIND] = self.kind.code
        row[BUDGET] = p.get("budget", 0)
        row[PPN] = min(p.get("ppn", 1), p.get("budget", 1))
        row[C] = p.get("c", 0.0)
        row[PLAYOUT] = game.policies.index(p.get("playout", game.policies[0]))
        row[FINAL] = FINAL_RULES.index(p.get("final", "visits"))
        row[ORACLE] = self.oracle
        row[BUDGET_PER] = BUDGET_UNITS.index(p.get("budget_per", BUDGET_UNITS[0]))
        row[RAVE] = p.get("rave", False)
        row[RAVE_BIAS] = p.get("rave_bias", 0.0)
        row[PRIOR] = p.get("prior", 0.0)
        row[LEAF] = LEAVES.index(p.get("leaf", LEAVES[0]))
        row[REWARD] = REWARDS.index(p.get("reward", REWARDS[0]))
        for column, param in enumerate(game.search.params, GAME_COLUMNS):
            value = p.get(param.name, param.default)
            row[column] = param.choices.index(value) if param.choices else value
        if game.search.table and self.kind.code in (MCTS, FLAT_MC) and not p.get(_PLAYOUT_NETS.name):
            table = imported(game.search.table)(p)
            if table is not None:
                row = np.concatenate([row, table])
        return row


def python_agent(role: str, spec: AgentSpec):
    """The Python agent ``spec`` names, for ``role``: its kind's factory called with (role, spec)."""
    return imported(spec.kind.factory)(role, spec)


def acting_mode(spec: AgentSpec) -> str:
    """How a Python agent acts after training: its ``policy`` (greedy or sample), greedy when it has none."""
    return spec.as_dict().get("policy", "greedy")
