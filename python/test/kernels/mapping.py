"""Kernels for tl.map_elementwise and their numpy references (shared by
the CPU and GPU tests)."""

import numpy as np

import tile
import tile.language as tl


@tile.jit
def compare(x, y):
    # Per-element control flow: only the branch taken runs.
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@tile.jit
def divmod_pair(a0, a1, b0, b1):
    # pack=2: the pack of a, then of b; the pack of q, then of r.
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@tile.jit
def clipped_log(x, floor):
    result = floor
    if x > 0.0:
        result = tl.log(x)
        if result < floor:
            result = floor
    return result


@tile.jit
def compare_kernel(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offsets = tl.arange(0, N)
    x = tl.load(x_ptr + offsets)
    y = tl.load(y_ptr + offsets)
    tl.store(out_ptr + offsets, tl.map_elementwise(compare, x, y))


@tile.jit
def divmod_kernel(a_ptr, b_ptr, q_ptr, r_ptr, N: tl.constexpr,
                  PACK: tl.constexpr):
    offsets = tl.arange(0, N)
    a = tl.load(a_ptr + offsets)
    b = tl.load(b_ptr + offsets)
    if PACK == 2:
        q, r = tl.map_elementwise(divmod_pair, a, b, pack=2)
    else:
        q = a // b
        r = a % b
    tl.store(q_ptr + offsets, q)
    tl.store(r_ptr + offsets, r)


@tile.jit
def clipped_log_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # A 2-D block and a scalar argument, broadcast.
    offsets = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offsets)
    tl.store(out_ptr + offsets, tl.map_elementwise(clipped_log, x, -2.0))


def compare_reference(x, y):
    return (x > y).astype(np.int32) - (x < y).astype(np.int32)


def clipped_log_reference(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, np.maximum(np.log(np.where(x > 0, x, 1)), -2.0),
                        -2.0).astype(np.float32)
