"""Game-playing agents (random, expert, flat Monte Carlo, MCTS, RL), combined per decision stage."""
