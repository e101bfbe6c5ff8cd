"""The kernels every two-player game shares, written once over the two fields its state begins with.

A two-player game's flat state begins with ``TO_MOVE`` (the player to move)
and ``WINNER`` (``NOBODY`` while the game runs, then the winner or ``DRAW``);
its own fields start at ``HEADER``. From them ``is_over``, ``to_move``,
``role`` (the seats are the roles) and ``reward`` (1 a win, 0.5 a draw, 0 a
loss) are the same in every such game: a kernels module that uses them
imports them from here, and one that leaves them out gets them from
``gamecore.default_kernels`` when its ``Game`` is made (Nim's).
"""

from gamecore.jit import inline_kernel

TO_MOVE, WINNER = 0, 1  # the state's first two fields
HEADER = 2  # the index of a game's first field of its own
NOBODY, DRAW = -1, 2  # WINNER while the game runs, and when it ends in a draw
N_PLAYERS = 2


@inline_kernel
def is_over(S):
    return S[WINNER] != NOBODY


@inline_kernel
def to_move(S):
    return S[TO_MOVE]


@inline_kernel
def role(S):
    """The seat of the player to move: the roles of a two-player game are its seats."""
    return S[TO_MOVE]


@inline_kernel
def reward(S, player):
    """``player``'s reward of the finished game ``S``: 1 a win, 0.5 a draw, 0 a loss."""
    if S[WINNER] == DRAW:
        return 0.5
    return 1.0 if S[WINNER] == player else 0.0
