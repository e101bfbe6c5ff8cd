"""The study orchestrator and the ``lotr`` command line."""
