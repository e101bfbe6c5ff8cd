"""Trained networks inside the compiled playouts (``lotr_sim.nets``, ``playout_nets``): the PyTorch agents'
greedy choices, from a packed table."""

from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import walk

from agents.agent import Agent
from agents.batch import N_UNIFORMS
from agents.evaluation import evaluate_setup
from agents.learning import make_learner
from agents.learning.playout_nets import layers, trained_networks
from agents.search import compiled
from agents.setup import Setup
from agents.specs import AgentSpec, SpecError
from lotr_sim import GameState, kernels
from lotr_sim import layout as L
from lotr_sim.cards import N_CARDS
from lotr_sim.nets import ALGORITHMS as NETS_ALGORITHMS
from lotr_sim.nets import NET_WORK, net_action, net_value, pack
from lotr_sim.policies import POLICY_NAMES

BEST_RL = Path(__file__).parent.parent / "studies" / "lotr" / "best-rl" / "agent.toml"
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


@pytest.mark.parametrize("algo", NETS_ALGORITHMS)
@pytest.mark.parametrize("stage", STAGE_INDEX)
def test_a_packed_network_chooses_as_its_pytorch_agent(states_by_stage, algo, stage):
    """Untrained networks (random weights) of every algorithm and stage: varied choices, all equal."""
    learner = make_learner(stage, AgentSpec.make("rl", algo=algo, encoding=1, neurons=40, game="lotr"), seed=7)
    acting = layers(learner.modules["q" if "q" in learner.modules else "actor"])
    table = pack({STAGE_INDEX[stage]: (algo, learner.encoding, acting, None)})
    states = states_by_stage[stage]
    expected, _ = learner.choose(states, np.zeros((len(states), N_UNIFORMS)), "greedy")
    got = compiled_choices(table, states)
    assert len({row.tobytes() for row in expected}) > 3  # the choices depend on the state
    assert np.array_equal(got, expected)


@pytest.mark.parametrize("algo", NETS_ALGORITHMS)
@pytest.mark.parametrize("stage", STAGE_INDEX)
def test_a_packed_critic_values_states_as_its_pytorch_network(states_by_stage, algo, stage):
    """The valuing network (the critic; q-macro: the best Q) of every algorithm and stage, read as a chance of
    a win: (v + 1) / 2 clipped to [0, 1]; no value where no network values the stage."""
    learner = make_learner(stage, AgentSpec.make("rl", algo=algo, encoding=1, neurons=40, game="lotr"), seed=7)
    valuing = learner.modules["critic" if "critic" in learner.modules else "q"]
    with torch.no_grad():
        valuing[2].bias += 0.4  # values away from 1/2, so that a wrong mapping shows
    critic = layers(valuing) if "critic" in learner.modules else None
    table = pack({STAGE_INDEX[stage]: (algo, learner.encoding, layers(learner.modules.get("actor", valuing)), critic)})
    states = states_by_stage[stage]
    with torch.no_grad():
        v = valuing(torch.from_numpy(learner.encode(states))).max(dim=1).values.numpy()
    got = np.array([net_value(S, (table, np.empty(NET_WORK))) for S in states])
    assert np.allclose(got, np.clip((v + 1) / 2, 0, 1), atol=1e-5) and got.std() > 0.005
    other = next(s for s in states_by_stage if s not in (stage, "travel", "attack"))
    assert net_value(states_by_stage[other][0], (table, np.empty(NET_WORK))) == -1.0


def test_the_shipped_rl_agents_networks_in_one_table(states_by_stage):
    setup = Setup.load(BEST_RL)
    table = pack(trained_networks(zip(setup.roles, setup.agents)))
    for stage in STAGE_INDEX:
        states = states_by_stage[stage]
        expected, _ = make_learner(stage, getattr(setup, stage)).choose(states, np.zeros((len(states), N_UNIFORMS)), "greedy")
        assert np.array_equal(compiled_choices(table, states), expected), stage
    for stage in ("travel", "attack"):  # no network: the playout policy decides
        S = states_by_stage[stage][0]
        assert not net_action(S, (table, np.empty(NET_WORK)), np.empty(N_CARDS, np.int64), np.empty_like(S))


def test_a_search_with_the_networks_in_its_playouts_expands_their_choice_first():
    """Budget 1 plays the playouts' first choice: at every decision of 20 games, the rl agents' choice of
    studies/lotr/best-rl (up to the search's choice among identical copies of a card), the rule's at travel and
    attack."""
    searched = Setup.parse("mcts", "lotr").with_params({"budget": 1, "playout": "rule", "playout_nets": str(BEST_RL),
                                                        "reduction": False})
    played = Setup.load(BEST_RL)
    played = Setup(*[spec if spec.agent == "rl" else AgentSpec.make("rule", game="lotr") for spec in played.agents])
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
    """The configuration an agent's playout_nets names is read where a setup, or an agent, is made."""
    with pytest.raises(SpecError, match=r"questing: playout_nets = 'nothing.toml': cannot read: No such file.*"
                                        r"studies/lotr/best-rl/agent.toml"):
        Setup.parse("rule-mcts-rule", "lotr").with_params({"questing.playout_nets": "nothing.toml"})
    (tmp_path / "rule.toml").write_text('setup = "rule"\n')
    with pytest.raises(SpecError, match="names no rl role"):
        Agent(AgentSpec.make("mcts", playout_nets=str(tmp_path / "rule.toml"), game="lotr"))
    (tmp_path / "untrained.toml").write_text('setup = "rl-rl-rl"\n')
    with pytest.raises(SpecError, match="planning network is untrained"):
        Setup.parse("rule-flat-mc-rule", "lotr").with_params({"playout_nets": str(tmp_path / "untrained.toml")})


def test_playout_nets_in_a_configuration_file_is_relative_to_it(tmp_path, monkeypatch):
    folder = tmp_path / "shipped"
    folder.mkdir()
    searched = Setup.parse("rule-mcts-rule", "lotr").with_params({"playout_nets": str(BEST_RL)})
    searched.dump(folder / "agent.toml")
    assert "../" in (folder / "agent.toml").read_text()
    with pytest.raises(SpecError, match=r"questing: playout_nets = '.*best-rl/agent.toml' lies outside the "
                                        r"configuration's folder .*; put the file beside .* or declare its folder "
                                        r"in GAMETUNE_MODELS$"):
        Setup.load(folder / "agent.toml")
    monkeypatch.setenv("GAMETUNE_MODELS", str(BEST_RL.parent.parent))  # a declared models folder
    loaded = Setup.load(folder / "agent.toml")
    assert Path(loaded.questing["playout_nets"]).resolve() == BEST_RL.resolve()
    monkeypatch.delenv("GAMETUNE_MODELS")
    searched.dump_with_weights(folder / "whole.toml")  # the networks and their weights copied beside it
    assert 'playout_nets = "whole.nets.toml"' in (folder / "whole.toml").read_text()
    assert sorted(p.name for p in folder.glob("whole.nets.*.pt")) == [
        "whole.nets.agent.defense.pt", "whole.nets.agent.planning.pt", "whole.nets.agent.questing.pt"]
    assert Setup.load(folder / "whole.toml").questing["playout_nets"] == str(folder / "whole.nets.toml")


def test_a_playout_nets_loop_is_one_line(tmp_path):
    (tmp_path / "a.toml").write_text('setup = "rule-mcts-rule"\n[questing]\nplayout_nets = "b.toml"\n')
    (tmp_path / "b.toml").write_text('setup = "rule-mcts-rule"\n[questing]\nplayout_nets = "a.toml"\n')
    with pytest.raises(SpecError, match=r"leads back to itself \(b.toml -> a.toml -> b.toml\)") as error:
        Setup.load(tmp_path / "a.toml")
    assert "\n" not in str(error.value)


def test_a_truncated_playout_stops_where_a_network_values_the_state(states_by_stage):
    """leaf = "value": a playout stops at the first state a network of studies/lotr/best-rl values (planning's Q,
    questing's and defense's critics) and returns that value; without truncation it plays to the end."""
    best = Setup.load(BEST_RL)
    search, table = compiled(kernels), pack(trained_networks(zip(best.roles, best.agents)))
    nets, rule, rs = (table, np.empty(NET_WORK)), POLICY_NAMES.index("rule"), np.ones(1, np.uint64)
    no_moves, act, err = np.empty((0, 3), np.int64), np.empty(N_CARDS, np.int64), np.zeros(4, np.int64)
    stopped = 0
    for S in states_by_stage["travel"][:50]:  # no network values travel: the playout goes on to the next stage
        D = S.copy()
        _, value = search.play_out(D, rule, nets, rs, act, err, np.empty_like(D), no_moves, True)
        if not kernels.is_over(D):
            stopped += 1
            assert D[L.PHASE] in (L.PLANNING, L.QUESTING, L.DEFENSE)
            assert 0.0 <= value <= 1.0 and value == net_value(D, nets)
        D = S.copy()
        assert search.play_out(D, rule, nets, rs, act, err, np.empty_like(D), no_moves, False)[1] == -1.0
        assert kernels.is_over(D)
    assert stopped > 25


def test_a_search_valued_by_the_networks_plays_and_needs_them():
    setup = Setup.parse("rule-mcts-rule-mcts-rule", "lotr").with_params(
        {"budget": 40, "ppn": 1, "playout": "rule", "playout_nets": str(BEST_RL), "leaf": "value"})
    valued = evaluate_setup(setup, options={"difficulty": "hard"}, games=40, seed=3)
    played = evaluate_setup(setup.with_params({"leaf": "playout"}), options={"difficulty": "hard"}, games=40, seed=3)
    assert valued.win_rate > 0.8 and not np.array_equal(valued.records, played.records)
    with pytest.raises(SpecError, match=r"questing: leaf = 'value' needs the networks .* set playout_nets"):
        AgentSpec.make("mcts", "questing", leaf="value", game="lotr")
    with pytest.raises(SpecError, match="leaf = 'value' needs"):
        setup.with_params({"playout_nets": ""})
