"""Loops whose dots read loaded tiles only after computing on them in
registers, which the pipeliner copies ahead (session 38), and a loop that
reads one offsets vector in two layouts, which RemoveLayoutConversions
carries in both."""

import tile
import tile.language as tl


@tile.jit
def small_rows_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr,
                      BN: tl.constexpr, BK: tl.constexpr):
    """c = a @ b for a (BM, K) and a (K, BN), BM below wgmma's 64 rows: an
    mma.sync product whose operands are converted to their fragments."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@tile.jit
def scaled_operands_kernel(a_ptr, b_ptr, c_ptr, count_ptr, K,
                           BM: tl.constexpr, BN: tl.constexpr,
                           BK: tl.constexpr):
    """c = a @ (b / 2) in tf32 with both operands widened from bf16 in
    registers; count[k] += 1 for each K block on the side (a load the dots
    do not read, through the same offsets)."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        count = tl.load(count_ptr + k + rk)
        tl.store(count_ptr + k + rk, count + 1)
        acc += tl.dot(a.to(tl.float32), b.to(tl.float32) * 0.5)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@tile.jit
def offsets_two_ways_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr,
                            STEPS: tl.constexpr):
    """out[i, j] = sum over steps s of x[s*BLOCK + i] * y[s*BLOCK + j], with
    one offsets vector advanced by BLOCK each step and read as rows and as
    columns (Lightning Attention's `off_block`), masked past n."""
    off = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), tl.float32)
    for _ in range(STEPS):
        x = tl.load(x_ptr + off[:, None], mask=off[:, None] < n, other=0.0)
        y = tl.load(y_ptr + off[None, :], mask=off[None, :] < n, other=0.0)
        acc += x * y
        off += BLOCK
    rows = tl.arange(0, BLOCK)
    tl.store(out_ptr + rows[:, None] * BLOCK + rows[None, :], acc)


@tile.jit
def chained_tf32_kernel(q_ptr, k_ptr, v_ptr, o_ptr, n, D: tl.constexpr,
                        E: tl.constexpr, BLOCK: tl.constexpr):
    """Lightning Attention's forward without decay: for each block of rows,
    o = (q k^T) v + q kv, then kv += k^T v, all in tf32 from bf16 loads.
    q is the A of two dots of different widths, k^T the B of one and the A
    of another, and q k^T (an accumulator) the A of the next."""
    off = tl.arange(0, BLOCK)
    d = tl.arange(0, D)
    e = tl.arange(0, E)
    kv = tl.zeros((D, E), tl.float32)
    for start in range(0, n, BLOCK):
        rows = start + off
        q = tl.load(q_ptr + rows[:, None] * D + d[None, :],
                    mask=rows[:, None] < n, other=0.0).to(tl.float32)
        k_t = tl.load(k_ptr + rows[None, :] * D + d[:, None],
                      mask=rows[None, :] < n, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + rows[:, None] * E + e[None, :],
                    mask=rows[:, None] < n, other=0.0).to(tl.float32)
        o = tl.dot(tl.dot(q, k_t), v) + tl.dot(q, kv)
        tl.store(o_ptr + rows[:, None] * E + e[None, :], o,
                 mask=rows[:, None] < n)
        kv += tl.dot(k_t, v)


@tile.jit
def transposed_twice_kernel(a_ptr, b_ptr, c_ptr, e_ptr, y_ptr, z_ptr,
                            M: tl.constexpr, N: tl.constexpr,
                            K: tl.constexpr):
    """Attention backward's dS in miniature: x = (a b^T) as fp16 is the A
    of x c and, transposed, of x^T e. One shared copy of x^T serves both
    (the second reads it through a transposed view), so neither product
    holds x in registers."""
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    kk = tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + kk[None, :])
    b = tl.load(b_ptr + n[:, None] * K + kk[None, :])
    x = tl.dot(a, tl.trans(b)).to(tl.float16)
    c = tl.load(c_ptr + n[:, None] * K + kk[None, :])
    e = tl.load(e_ptr + m[:, None] * K + kk[None, :])
    z = tl.dot(tl.trans(x), e)
    y = tl.dot(x, c)
    tl.store(y_ptr + m[:, None] * K + kk[None, :], y)
    tl.store(z_ptr + n[:, None] * K + kk[None, :], z)
