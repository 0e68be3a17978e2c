"""A rank-4 tl.dot (two batch dimensions), with an accumulator, for the
CPU and GPU tests."""

import tile
import tile.language as tl


@tile.jit
def dot4(a_ptr, b_ptr, c_ptr, out_ptr, B1: tl.constexpr, B2: tl.constexpr,
         M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    i = tl.arange(0, B1)[:, None, None, None]
    j = tl.arange(0, B2)[None, :, None, None]
    batch = i * B2 + j
    rows_m = tl.arange(0, M)[None, None, :, None]
    rows_k = tl.arange(0, K)[None, None, :, None]
    cols_k = tl.arange(0, K)[None, None, None, :]
    cols_n = tl.arange(0, N)[None, None, None, :]
    a = tl.load(a_ptr + (batch * M + rows_m) * K + cols_k)
    b = tl.load(b_ptr + (batch * K + rows_k) * N + cols_n)
    offs = (batch * M + rows_m) * N + cols_n
    tl.store(out_ptr + offs, tl.dot(a, b, acc=tl.load(c_ptr + offs)))
