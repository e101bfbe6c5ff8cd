"""A cycle counter readable from compiled code, for timing decisions without leaving it.

``ticks()`` reads the processor's time-stamp counter (LLVM's
``readcyclecounter``; 0 where the platform has none). Callers convert ticks to
seconds by timing the same span with ``time.perf_counter`` outside.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def ticks(typingctx):
    def codegen(context, builder, signature, args):
        counter = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter")
        return builder.call(counter, [])

    return types.int64(), codegen
