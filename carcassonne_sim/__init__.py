"""Carcassonne (``carcassonne_sim``): the base game for two players on the game interface (``gamecore``).

``tiles`` holds the 72 tiles as data, ``kernels`` the compiled rules,
``encoding`` the compiled learning interface (encoder and action space),
``game`` the ``GAME`` descriptor and the Python state, ``picture`` the
drawing of a board; the rules are in ``docs/carcassonne-rules.md``.
"""
