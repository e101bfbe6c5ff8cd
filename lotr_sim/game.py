"""LOTR as a game of the interface (``gamecore``): one player, five decision kinds (the stages)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gamecore.interface import (
    ActionSpace,
    Command,
    CommandLine,
    Encoder,
    Game,
    Learning,
    PythonAgent,
    Reproduction,
    Search,
)
from gamecore.params import Param
from lotr_sim import kernels
from lotr_sim import layout as L
from lotr_sim.cards import QUEST_STAGES
from lotr_sim.decoders import MACRO_ACTIONS
from lotr_sim.defects import RULES_CHOICES, RULES_DESCRIBED, rules_code
from lotr_sim.encoding import DEFENSE_SIZE, MAX_FEATURE, OBSERVATION_SIZE, PLANNING_SIZE, QUESTING_SIZES
from lotr_sim.policies import POLICY_NAMES
from lotr_sim.published import PUBLISHED
from lotr_sim.published_journal import JOURNAL
from lotr_sim.report import REASONS, REFERENCES
from lotr_sim.state import DEFAULT_ACTION_LIMIT, GameState

STAGES = ("planning", "questing", "travel", "defense", "attack")
SHORT_STAGES = ("planning", "questing", "defense")  # the thesis's three-part short form
REDUCTION_STAGES = ("planning", "questing", "defense")
REDUCTION_PARAMS = tuple(Param(f"reduction_{stage}", bool, True, help=f"thesis action reduction at {stage} decisions "
                               "(section 4.4)") for stage in REDUCTION_STAGES)
PUBLISHED_SEARCH_PARAMS = (
    Param("budget", int, 40, 1, 1_000_000, help="playouts per decision"),
    Param("ppn", int, 10, 1, 1_000_000, help="playouts per node visit"),
    Param("c", float, 1.0, 0.0, 100.0, help="UCT constant over summed wins (the published uctConst)"),
    Param("playout", str, POLICY_NAMES[0], choices=POLICY_NAMES[:2], help="policy of the playouts"),
    Param("tree", str, "deep", choices=("deep", "one-level"),
          help="deep: the published tree, each node expanded at its first visit and descended into at its next; "
               "one-level: a root child's further visits play from it again"),
    *REDUCTION_PARAMS,
)
PUBLISHED_AGENTS = (
    PythonAgent("published-mcts", "lotr_sim.published_search:make", PUBLISHED_SEARCH_PARAMS, oracle=True,
                help="ORACLE: the thesis's MCTS as its published code (2022) ran it, on copies of the real game, "
                     "keeping the chosen copy's rolled travel and attack (lotr_sim/published_search.py)"),
    PythonAgent("published-mcts-2021", "lotr_sim.published_search:make", PUBLISHED_SEARCH_PARAMS,
                help="the same search on a copy whose deck orders are drawn again, as the published code did until "
                     "February 2022 (each node rebuilt from card counts); honest (docs/lotr-published-rules.md)"),
)


def option_codes(options: dict[str, Any]) -> np.ndarray:
    """``deal_game``'s options: difficulty code, number of quest stages and the defects in play."""
    return np.array([L.DIFFICULTIES.index(options["difficulty"]), 3 if options["full_scenario"] else 1,
                     rules_code(options.get("rules", "corrected"))], np.int64)


def new_game(seed: int = 0, difficulty: str = "hard", full_scenario: bool = False, rules: str = "corrected",
             trace: bool = False) -> GameState:
    return GameState(difficulty, seed, full_scenario=full_scenario, rules=rules, trace=trace)


OUTCOME_NAMES = (("won", L.WIN), ("lost by threat", L.LOST_BY_THREAT), ("lost by heroes", L.LOST_BY_HEROES))


def summarise(records: np.ndarray) -> dict[str, Any]:
    """Loss causes, the quest stage each loss reached and the rounds played (all games, and per outcome), from the
    per-game (outcome, round, stage) records."""
    outcomes, rounds, stages = records[:, 0], records[:, 1], records[:, 2]
    lost = outcomes != L.WIN
    return {
        "lost_by_threat": int(np.sum(outcomes == L.LOST_BY_THREAT)),
        "lost_by_heroes": int(np.sum(outcomes == L.LOST_BY_HEROES)),
        "losses_by_stage": {QUEST_STAGES[k][0]: int(np.sum(lost & (stages == k))) for k in range(len(QUEST_STAGES))
                            if np.any(lost & (stages == k))},
        "rounds_histogram": {int(k): int(v) for k, v in zip(*np.unique(rounds, return_counts=True))},
        "rounds_by_outcome": {name: {int(k): int(v) for k, v in zip(*np.unique(rounds[outcomes == code],
                                                                            return_counts=True))}
                              for name, code in OUTCOME_NAMES if np.any(outcomes == code)},
        "mean_rounds": float(np.mean(rounds)) if rounds.size else 0.0,
    }


def describe(metrics: dict[str, Any], games: int) -> list[str]:
    share = lambda n: f"{100 * n / max(1, games):.2f}%"  # noqa: E731
    histogram = metrics["rounds_histogram"]
    return [
        f"losses: by threat {metrics['lost_by_threat']} ({share(metrics['lost_by_threat'])}), "
        f"by heroes {metrics['lost_by_heroes']} ({share(metrics['lost_by_heroes'])})"
        + "".join(f"; in {stage} {n}" for stage, n in metrics.get("losses_by_stage", {}).items()),
        f"rounds: mean {metrics['mean_rounds']:.2f}; histogram " + " ".join(f"{r}:{n}" for r, n in sorted(histogram.items())),
    ]


GAME = Game(
    name="lotr",
    kernels=kernels,
    roles=STAGES,
    policies=POLICY_NAMES,
    options=(
        Param("difficulty", str, "hard", choices=L.DIFFICULTIES, help="the encounter deck (docs/lotr-rules.md)", shorthand=True),
        Param("full_scenario", bool, False, help="all three quest stages instead of the first", shorthand=True),
        Param("rules", str, "corrected", choices=RULES_CHOICES, described=RULES_DESCRIBED,
              help="corrected: docs/lotr-rules.md; published: the published simulator's defects; or defect names joined by "
                   "+ (docs/lotr-published-rules.md)"),
    ),
    option_codes=option_codes,
    new_game=new_game,
    state_from_json=GameState.from_json,
    state_from_core=GameState.from_core,
    max_legal_actions=DEFAULT_ACTION_LIMIT,  # legal_actions() raises beyond it (a hard game had a decision of 132,346)
    summarise=summarise,
    describe=describe,
    short_roles=SHORT_STAGES,
    help="The Lord of the Rings: The Card Game, simplified (Godlewski's thesis; docs/lotr-rules.md)",
    metric_names=("lost_by_threat", "lost_by_heroes"),
    encoders=tuple(Encoder(f"thesis-{k}", {"planning": PLANNING_SIZE, "questing": size, "defense": DEFENSE_SIZE},
                           help=f"thesis 5.3: planning and defense's encodings, questing's encoding type {k} "
                                "(lotr_sim/encoding.py)", high=MAX_FEATURE) for k, size in enumerate(QUESTING_SIZES))
    + (Encoder("observation", dict.fromkeys(STAGES, OBSERVATION_SIZE), high=MAX_FEATURE,
               help="the whole observation: each card's zone, exhaustion and damage, the counters and the decision "
                    "(lotr_sim/encoding.py; OpenSpiel's tensor)"),),
    action_spaces=(ActionSpace("macro", MACRO_ACTIONS, help="the thesis's macro actions (5.4.2): planning 7, "
                               "questing 7, defense 4 (lotr_sim/decoders.py)"),),
    search=Search(params=REDUCTION_PARAMS),
    learning=Learning(learners={"ac-direct": "lotr_lab.direct:ACDirect"},
                      defaults={"algo": "ac-direct", "encoding": 2}, playout_nets="lotr_sim.nets:pack"),
    reproduction=Reproduction(
        agents=PUBLISHED_AGENTS,
        published=PUBLISHED + JOURNAL,
        reasons=REASONS,
        references=REFERENCES,
        label="lotr_sim.report:published_label",
        preamble="lotr_sim.report:preamble",
        model="lotr_sim.defects:played_model",
    ),
    command_line=CommandLine(
        commands=(Command("choices", "how often each decision offers a choice, per round of random play (the "
                          "thesis's Figure 3.4; lotr_lab/choices.py)", "lotr_lab.choices:arguments",
                          "lotr_lab.choices:run"),
                  Command("limit", "the perfect-information limit: the share of deals some line of decisions wins, "
                          "deck orders known (bounded; lotr_lab/limit.py)", "lotr_lab.limit:arguments",
                          "lotr_lab.limit:run"),),
    ),
)
