"""SplitMix64: a small, seedable generator that runs inside compiled code.

Its whole state is one ``uint64`` in a 1-element array, so a game's or an
agent's random stream is an explicit value, identical on every machine.
"""

import numpy as np

from gamecore.jit import inline_kernel, kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@kernel
def mix64(z):
    """The SplitMix64 finaliser: a bijective scramble of a uint64."""
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@inline_kernel
def next_u64(rs):
    """Advance the stream ``rs`` (uint64[1]) and return 64 random bits."""
    rs[0] += _GOLDEN
    return mix64(rs[0])


@inline_kernel
def below(rs, n):
    """A uniform integer in [0, n) for 1 <= n < 2**31 (bias below 2**-31 * n)."""
    return np.int64(((next_u64(rs) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@kernel
def derive_seed(seed, index):
    """The seed of stream ``index`` under ``seed``: e.g. game i of an evaluation."""
    return mix64(np.uint64(seed) ^ mix64(np.uint64(index) + _GOLDEN))

