"""Game-playing agents (compiled policies, flat Monte Carlo, MCTS, Python agents) of any game, combined per role."""

import gamecore  # noqa: F401  (configures the compiled code's cache before any compiled agent is defined)
from agents.agent import Agent
from agents.evaluation import Evaluation, evaluate_setup
from agents.setup import Setup
from agents.specs import AgentSpec, SpecError, agent_kinds

__all__ = ["Agent", "AgentSpec", "Evaluation", "Setup", "SpecError", "agent_kinds", "evaluate_setup"]
