"""Kernels that call `noinline` @jit functions of numbers and pointers
(device functions: called, not inlined), and the same calls inlined."""

import tile
import tile.language as tl


@tile.jit(noinline=True)
def add_rows(a, b, o, N: tl.constexpr):
    idx = tl.arange(0, N)
    tl.store(o + idx, tl.load(a + idx) + tl.load(b + idx))


@tile.jit
def add_twice(a, b, o, N: tl.constexpr):
    """o[:N] = a + b and o[N:2N] = b + a, by two calls."""
    add_rows(a, b, o, N)
    add_rows(b, a, o + N, N)


@tile.jit
def add_rows_inline(a, b, o, N: tl.constexpr):
    idx = tl.arange(0, N)
    tl.store(o + idx, tl.load(a + idx) + tl.load(b + idx))


@tile.jit
def add_twice_inline(a, b, o, N: tl.constexpr):
    add_rows_inline(a, b, o, N)
    add_rows_inline(b, a, o + N, N)


@tile.jit(noinline=True)
def row_max(x, N: tl.constexpr):
    return tl.max(tl.load(x + tl.arange(0, N)), axis=0)


@tile.jit
def sum_and_maxes(x, y, out, N: tl.constexpr):
    """out = sum(x) + max(x) + max(y): a reduction of the kernel's own and
    one in each call (shared memory on both sides of the call)."""
    s = tl.sum(tl.load(x + tl.arange(0, N)), axis=0)
    tl.store(out, s + row_max(x, N) + row_max(y, N))


@tile.jit(noinline=True)
def scaled_row_sum(x, scale, N: tl.constexpr):
    return tl.sum(tl.load(x + tl.arange(0, N)), axis=0) * scale


@tile.jit
def sums_in_a_loop(x, out, rows, N: tl.constexpr):
    """out = sum over r of (r + 1) * sum(x[r]), one call per row."""
    total = 0.0
    for r in range(rows):
        total += scaled_row_sum(x + r * N, r + 1.0, N)
    tl.store(out, total)


@tile.jit(noinline=True)
def doubled(v):
    return v * 2


@tile.jit
def doubles_a_tensor(x, o, N: tl.constexpr):
    """A device function that takes and returns a tensor."""
    idx = tl.arange(0, N)
    tl.store(o + idx, doubled(tl.load(x + idx)))


@tile.jit(noinline=True)
def softmax_row(x):
    e = tl.exp(x - tl.max(x, axis=0))
    return e / tl.sum(e, axis=0)


@tile.jit
def softmax_twice(x_ptr, o_ptr, N: tl.constexpr):
    """o = softmax(softmax(x)): reductions inside a device function whose
    argument and result are tensors."""
    idx = tl.arange(0, N)
    tl.store(o_ptr + idx, softmax_row(softmax_row(tl.load(x_ptr + idx))))


@tile.jit(noinline=True)
def scale_rows(x, s):
    return x * s[:, None]


@tile.jit
def scaled_tile(x_ptr, s_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    """o[m, n] = x[m, n] * s[m] in fp16: 2-D and 1-D tensor arguments."""
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    y = scale_rows(x, tl.load(s_ptr + r))
    tl.store(o_ptr + r[:, None] * N + c[None, :], y.to(tl.float16))


@tile.jit(noinline=True)
def pair_sum(pair):
    return tl.load(pair[0]) + tl.load(pair[1])


@tile.jit
def sums_a_pair(a, b, o):
    """A noinline function that takes a tuple: inlined, with a warning."""
    tl.store(o, pair_sum((a, b)))
