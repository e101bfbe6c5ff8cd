"""The decorators of every compiled function: ``kernel``, ``inline_kernel`` and ``allocating``.

Numba counts the references to every array passed to a non-inlined compiled
call, with atomic instructions. In the game loops, where a call does little
work, that counting took 60% of the time (``perf`` on whole random games), so
functions that neither allocate an array nor receive one from a call compile
as ``kernel``, without reference counting: whole games run twice as fast.

A function that allocates (``np.empty``, ``.copy()``) or calls one that
returns an array is ``allocating``: a kernel would never free that array
(``tests/test_compiled_memory.py`` checks that compiled play frees what it
allocates). Numba refuses to compile an allocation in a kernel. The flag is
set on every function, never left out: a function without it would inherit
its first caller's setting.
"""

from numba import njit

kernel = njit(cache=True, _nrt=False)
inline_kernel = njit(cache=True, inline="always", _nrt=False)
allocating = njit(cache=True, _nrt=True)
