"""The 2021 journal paper's Table 2, Figure 5 and Figure 7 studies: each section plays every published mixture once, each setup
the agents its mixture names (1 random, 2 expert, 3 flat Monte Carlo, 4 MCTS at planning, questing and defense), on
the same deals as the other model's section."""

from pathlib import Path

import pytest

from lotr_sim.published_journal import JOURNAL
from tuning.study_file import load_study

PAPER = Path(__file__).resolve().parent.parent / "studies" / "lotr" / "paper"
SECTIONS = {  # section: its studies, the published experiment, seed, games a row, difficulties
    "journal-mixtures": (("journal-mixtures", "journal-mixtures-mcts"), "journal-mixtures", 8000001, 1000, ["medium"]),
    "journal-mixtures-published": (("journal-mixtures-published", "journal-mixtures-mcts-published",
                                    "journal-mixtures-mcts-published-defense"), "journal-mixtures", 8000001, 1000,
                                   ["medium"]),
    "journal-players": (("journal-players", "journal-players-mcts"), "journal-players", 8000002, 10000,
                        ["medium", "hard"]),
    "journal-players-published": (("journal-players-published", "journal-players-mcts-published",
                                   "journal-players-mcts-published-defense"), "journal-players", 8000002, 10000,
                                  ["medium", "hard"]),
    "journal-budget": (("journal-budget", "journal-budget-mcts"), None, 8000003, 1000, ["medium"]),
    "journal-budget-published": (("journal-budget-published", "journal-budget-mcts-published-defense"), None, 8000003,
                                 1000, ["medium"]),
}
AGENTS = {"1": ("random",), "2": ("expert",), "3": ("flat-mc",), "4": ("mcts", "published-mcts")}


@pytest.mark.parametrize("section", SECTIONS)
def test_each_section_plays_every_published_mixture_once_with_the_agents_it_names(section):
    studies, experiment, seed, games, difficulties = SECTIONS[section]
    mixtures = []
    for name in studies:
        spec = load_study(PAPER / f"{name}.toml")
        assert spec.report["section"] == section and spec.seed == seed and spec.games == games
        searched = spec.domain("difficulty")
        assert list(searched.choices if searched else [dict(spec.options)["difficulty"]]) == difficulties
        setups = {setup.short_name: setup for setup in spec.setups}
        assert set(spec.report["values"]) == set(setups)
        for short_name, setup in setups.items():
            mixture = spec.report["values"][short_name]["mixture"]
            for stage, number in zip(("planning", "questing", "defense"), mixture.split("-"), strict=True):
                assert getattr(setup, stage).agent in AGENTS[number], (short_name, stage)
            assert setup.travel.agent in ("expert", "published-mcts") and setup.attack.agent in ("expert", "published-mcts")
            mixtures.append(mixture)
    if experiment is None:  # Figure 5: no values published, the uniform players by budget
        assert sorted(mixtures) == ["3-3-3", "4-4-4"]
        return
    published = [p.params["mixture"] for p in JOURNAL if p.experiment == experiment]
    assert sorted(mixtures * len(difficulties)) == sorted(published)
