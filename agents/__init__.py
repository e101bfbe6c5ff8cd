"""Game-playing agents (random, expert, flat Monte Carlo, MCTS), combined per decision stage."""

import gamecore  # noqa: F401  (configures the compiled code's cache before any compiled agent is defined)
from agents.agent import Agent
from agents.evaluation import Evaluation, evaluate_setup
from agents.setup import STAGES, Setup
from agents.specs import AGENT_KINDS, AgentSpec, SpecError, agent_kinds

__all__ = ["AGENT_KINDS", "STAGES", "Agent", "AgentSpec", "Evaluation", "Setup", "SpecError", "agent_kinds",
           "evaluate_setup"]
