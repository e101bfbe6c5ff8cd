"""Game-playing agents (random, expert, flat Monte Carlo, MCTS), combined per decision stage."""

from pathlib import Path

from lotr_sim import _jit_cache

_jit_cache.configure(Path(__file__).resolve().parent)  # before any compiled agent is defined


from agents.agent import Agent
from agents.evaluation import Evaluation, evaluate_setup
from agents.setup import STAGES, Setup
from agents.specs import AGENT_KINDS, AgentSpec, SpecError

__all__ = ["AGENT_KINDS", "STAGES", "Agent", "AgentSpec", "Evaluation", "Setup", "SpecError", "evaluate_setup"]
