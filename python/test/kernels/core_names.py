"""Triton's small core names: add/sub/mul, reduce_or, to_tensor,
max_constancy, PropagateNan, pi32_t."""

import numpy as np

import tile
import tile.language as tl


@tile.jit
def int_names(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.max_constancy(tl.load(x_ptr + offs), 1)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, tl.add(x, y))
    tl.store(out_ptr + BLOCK + offs, tl.sub(x, y, sanitize_overflow=False))
    tl.store(out_ptr + 2 * BLOCK + offs, tl.mul(x, 3))
    tl.store(out_ptr + 3 * BLOCK + offs, tl.to_tensor(5) + x)
    tl.store(out_ptr + 4 * BLOCK, tl.reduce_or(x, 0))
    two = tl.reshape(y, (2, BLOCK // 2))
    tl.store(out_ptr + 4 * BLOCK + 1 + tl.arange(0, BLOCK // 2), tl.reduce_or(two, 0))


@tile.jit
def nan_max(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + BLOCK + offs, tl.minimum(x, y, propagate_nan=tl.PropagateNan.NONE))


def int_reference(x, y):
    n = len(x)
    two = y.reshape(2, n // 2)
    return np.concatenate([x + y, x - y, x * 3, x + 5,
                           [np.bitwise_or.reduce(x)], two[0] | two[1]]).astype(np.int32)


@tile.jit
def scalar_pairs(out_ptr, x, y):
    """interleave/join of two scalars is a block of two (its shape equals
    the list [2]); item() reads a one-element block back as a scalar."""
    z = tl.interleave(x, y)
    tl.static_assert(z.shape == [tl.constexpr(2)])
    tl.static_assert(tl.join(x, y).shape == (2,))
    tl.store(out_ptr + tl.arange(0, 2), z)
    one = tl.full((1,), 5, tl.int32) + x
    tl.store(out_ptr + 2, one.item() * 2)


@tile.jit
def mixed_shift(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    """A signed value shifted right by an unsigned amount: the result has the
    promoted (unsigned) type, the shift is arithmetic (the left operand's
    signedness decides, as in Triton)."""
    i = tl.arange(0, BLOCK)
    tl.store(out_ptr + i, tl.load(x_ptr + i) >> tl.load(y_ptr + i))


def mixed_shift_reference(x, y):
    wide = x.astype(np.int16) >> y.astype(np.int16)
    return wide.view(np.uint16)


@tile.jit
def cast_method(x_ptr, out_ptr, BLOCK: tl.constexpr):
    """tensor.cast, Triton's method spelling of tl.cast."""
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + i, x.cast(tl.int32, bitcast=True) + x.cast(tl.int32))
