"""Trained networks inside the compiled playouts (``lotr_sim.nets``, ``playout_nets``): the PyTorch agents'
greedy choices, from a packed table."""

from pathlib import Path

import numpy as np
import pytest
from conftest import walk

from agents.agent import Agent
from agents.batch import N_UNIFORMS
from agents.rl import ALGORITHMS, make_learner
from agents.rl.compiled import net_table
from agents.setup import Setup
from agents.specs import AgentSpec, SpecError
from lotr_sim import GameState, kernels
from lotr_sim.cards import N_CARDS
from lotr_sim.nets import NET_WORK, net_action, pack

BEST_RL = Path(__file__).parent.parent / "studies" / "best-rl" / "agent.toml"
STAGE_INDEX = {"planning": 0, "questing": 1, "defense": 3}


@pytest.fixture(scope="module")
def states_by_stage():
    """Core states of every decision of random games, by stage."""
    by_stage = {}
    for difficulty in ("easy", "medium", "hard"):
        for seed in range(30):
            for g in walk(difficulty, seed, rng_seed=seed):
                by_stage.setdefault(g.stage.name.lower(), []).append(g.core_state())
    return {stage: np.array(states) for stage, states in by_stage.items()}


def compiled_choices(table, states):
    nets, act = (table, np.empty(NET_WORK)), np.empty(N_CARDS, np.int64)
    choices = []
    for S in states:
        assert net_action(S, nets, act, np.empty_like(S))
        choices.append(act.copy())
    return np.array(choices)


def layers(learner):
    net = learner.modules["q" if "q" in learner.modules else "actor"]
    return [t.detach().numpy() for t in (net[0].weight, net[0].bias, net[2].weight, net[2].bias)]


@pytest.mark.parametrize("algo", ALGORITHMS)
@pytest.mark.parametrize("stage", STAGE_INDEX)
def test_a_packed_network_chooses_as_its_pytorch_agent(states_by_stage, algo, stage):
    """Untrained networks (random weights) of every algorithm and stage: varied choices, all equal."""
    learner = make_learner(stage, AgentSpec.make("rl", algo=algo, encoding=1, neurons=40), seed=7)
    table = pack({STAGE_INDEX[stage]: (algo, learner.encoding, layers(learner))})
    states = states_by_stage[stage]
    expected, _ = learner.choose(states, np.zeros((len(states), N_UNIFORMS)), "greedy")
    got = compiled_choices(table, states)
    assert len({row.tobytes() for row in expected}) > 3  # the choices depend on the state
    assert np.array_equal(got, expected)


def test_the_shipped_rl_agents_networks_in_one_table(states_by_stage):
    setup, table = Setup.load(BEST_RL), net_table(str(BEST_RL))
    for stage in STAGE_INDEX:
        states = states_by_stage[stage]
        expected, _ = make_learner(stage, getattr(setup, stage)).choose(states, np.zeros((len(states), N_UNIFORMS)), "greedy")
        assert np.array_equal(compiled_choices(table, states), expected), stage
    for stage in ("travel", "attack"):  # no network: the playout policy decides
        S = states_by_stage[stage][0]
        assert not net_action(S, (table, np.empty(NET_WORK)), np.empty(N_CARDS, np.int64), np.empty_like(S))


def test_a_search_with_the_networks_in_its_playouts_expands_their_choice_first():
    """Budget 1 plays the playouts' first choice: at every decision of 20 games, the rl agents' choice of
    studies/best-rl (up to the search's choice among identical copies of a card), the rule's at travel and
    attack."""
    searched = Setup.parse("mcts").with_params({"budget": 1, "playout": "rule", "playout_nets": str(BEST_RL),
                                                "reduction": False})
    played = Setup.load(BEST_RL)
    played = Setup(*[spec if spec.agent == "rl" else AgentSpec.make("rule") for spec in played.agents])
    decisions = 0
    for seed in range(20):
        g = GameState("hard", seed=seed)
        search, agents = Agent(searched.questing, seed), {r: Agent(s, seed) for r, s in zip(played.roles, played.agents)}
        while not g.is_over:
            chosen = g.vector(agents[g.stage.name.lower()].act(g))
            kernels.canonicalize(g.core_state(), chosen)
            assert np.array_equal(g.vector(search.act(g)), chosen), (seed, g.stage)
            g.apply(g.action_from_vector(chosen))
            decisions += 1
    assert decisions > 100


def test_playout_nets_errors_are_one_line(tmp_path):
    with pytest.raises(SpecError, match=r"questing: playout_nets = 'nothing.toml': cannot read: No such file.*"
                                        r"studies/best-rl/agent.toml"):
        AgentSpec.make("mcts", "questing", playout_nets="nothing.toml")
    (tmp_path / "rule.toml").write_text('setup = "rule"\n')
    with pytest.raises(SpecError, match="names no rl stage"):
        AgentSpec.make("mcts", playout_nets=str(tmp_path / "rule.toml"))
    (tmp_path / "untrained.toml").write_text('setup = "rl-rl-rl"\n')
    with pytest.raises(SpecError, match="planning network is untrained"):
        AgentSpec.make("flat-mc", playout_nets=str(tmp_path / "untrained.toml"))


def test_playout_nets_in_a_configuration_file_is_relative_to_it(tmp_path):
    folder = tmp_path / "shipped"
    folder.mkdir()
    Setup.parse("rule-mcts-rule").with_params({"playout_nets": str(BEST_RL)}).dump(folder / "agent.toml")
    loaded = Setup.load(folder / "agent.toml")
    assert Path(loaded.questing["playout_nets"]).resolve() == BEST_RL.resolve()
    assert "../" in (folder / "agent.toml").read_text()
