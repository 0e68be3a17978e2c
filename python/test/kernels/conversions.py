"""Kernels whose tensors must change layout between a wide (16-byte) access
and a narrow one: a load from an aligned buffer feeding a store to one
offset by an element, in 1-D and 2-D, and the two-pass normalisation whose
gathered weight loads once forced three conversions (issue 27, item 14).
Large blocks make the conversions larger than one scratch buffer, so they
go in rounds."""

import tile
import tile.language as tl


@tile.jit
def scale_1d_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 3, mask=mask)


@tile.jit
def scale_2d_kernel(x_ptr, y_ptr, M, N, stride_y,
                    ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.program_id(1) * COLS + tl.arange(0, COLS)
    mask = (r[:, None] < M) & (c[None, :] < N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :], mask=mask)
    tl.store(y_ptr + r[:, None] * stride_y + c[None, :], x * 3, mask=mask)


@tile.jit
def channel_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, per_channel, eps,
                        BLOCK: tl.constexpr):
    """Each program normalises one row of N values over two passes, then
    scales and shifts element i by w[i // per_channel], b[i // per_channel]."""
    base = tl.program_id(0) * N
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    squares = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in tl.range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < N, other=0.0)
        total += x
        squares += x * x
    mean = tl.sum(total, axis=0) / N
    rstd = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / N - mean * mean + eps)
    for start in tl.range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < N
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        w = tl.load(w_ptr + offs // per_channel, mask=mask, other=1.0)
        b = tl.load(b_ptr + offs // per_channel, mask=mask, other=0.0)
        tl.store(y_ptr + base + offs, (x - mean) * rstd * w + b, mask=mask)


@tile.jit
def transpose_kernel(x_ptr, y_ptr, M, N,
                     ROWS: tl.constexpr, COLS: tl.constexpr):
    """y (N x M) = 3 * x (M x N) transposed: the load runs along x's rows,
    the store along y's, so the block changes from lanes along columns to
    lanes along rows."""
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.program_id(1) * COLS + tl.arange(0, COLS)
    mask = (r[:, None] < M) & (c[None, :] < N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :], mask=mask)
    tl.store(y_ptr + c[None, :] * M + r[:, None], x * 3, mask=mask)


@tile.jit
def row_sum_update_kernel(s_ptr, c_ptr, x_ptr, d_ptr, z_ptr, out_ptr,
                          N: tl.constexpr, BLOCK_M: tl.constexpr):
    """out = (sum_n s[m, n] * c[n] + x * d) * z * sigmoid(z) per row m
    (mamba's decode step after its state update): a row sum in a slice
    layout, then two elementwise ops on vectors of the 1-D layout."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, N)
    state = tl.load(s_ptr + rm[:, None] * N + rn[None, :])
    c = tl.load(c_ptr + rn)
    out = tl.sum(state * c[None, :], axis=1)
    out += tl.load(x_ptr + rm) * tl.load(d_ptr + rm)
    z = tl.load(z_ptr + rm)
    out *= z * tl.sigmoid(z)
    tl.store(out_ptr + rm, out)
