"""tl.standard: the module Triton keeps its library functions in (the ones
written in the language itself: reductions, softmax, sort, ...). tile
defines them in core and sorting; kernel libraries that spell them
`tl.standard.X` get the same objects here, plus the compile-time helpers
such code calls."""

from tile.language.constexpr_function import constexpr_function
from tile.language.core import (  # noqa: F401
    argmax, argmin, cdiv, cumprod, cumsum, flip, interleave, max, min, ravel,
    reduce_or, sigmoid, softmax, sum, swizzle2d, xor_sum, zeros, zeros_like)
from tile.language.sorting import bitonic_merge, sort, topk  # noqa: F401


@constexpr_function
def _is_power_of_two(i):
    return i > 0 and not i & (i - 1)


@constexpr_function
def _log2(i):
    """log2 of a power of two, at compile time (bitonic networks' depth)."""
    if not _is_power_of_two(i):
        raise ValueError("_log2: %r is not a power of two" % (i,))
    return i.bit_length() - 1
