"""Nim, the test suite's second game: proof that a game plugs in by writing its package alone.

A pile of stones (dealt from the seed unless the ``pile`` option fixes it);
the two players take 1 to ``max_take`` stones in turn and whoever takes the
last stone wins. The optimum is known: leave the opponent a multiple of
``max_take + 1``. Perfect information: ``determinize`` changes nothing.
"""
