"""Classic kernels, written for this test suite in Triton's style. Only the
imports differ from a Triton kernel."""

import tile
import tile.language as tl


@tile.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@tile.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=2):
        row_ptr = in_ptr + row_idx * in_row_stride
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        row = tl.load(row_ptr + cols, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        tl.store(out_ptr + row_idx * out_row_stride + cols, numerator / denominator,
                 mask=mask)


@tile.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@tile.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                  stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@tile.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


@tile.jit
def layer_norm_bwd_dx(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                      GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.atomic_xchg(Lock, 0)


@tile.jit
def cumsum_argmax_kernel(x_ptr, cum_ptr, arg_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=float("-inf"))
    c = tl.cumsum(tl.where(mask, x, 0.0), axis=0)
    tl.store(cum_ptr + row * n_cols + cols, c, mask=mask)
    tl.store(arg_ptr + row, tl.argmax(x, axis=0))


@tile.jit
def transpose_kernel(in_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile_in = tl.load(in_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(out_ptr + rn[None, :] * M + rm[:, None], tile_in, mask=mask)
    # The same through an explicit transposition of the block.
    t = tl.trans(tile_in)
    tl.store(out_ptr + rn[:, None] * M + rm[None, :], t, mask=tl.trans(mask))


@tile.jit
def scalar_loop_kernel(out_ptr, n, limit):
    i = 0
    total = 0
    while i < n:
        if i % 3 == 0:
            total += i
        elif i > limit:
            total -= 1
        else:
            total = total * 2
        i += 1
    tl.store(out_ptr, total)


@tile.jit
def histogram_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + x, 1, mask=mask & (x >= 0) & (x < BINS))


@tile.jit
def masked_histogram_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr,
                            BINS: tl.constexpr):
    """One program's histogram of x[:n] (a uint8 tensor, so a masked-off
    255 must not land in bin 255), added into hist."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=255)
    h = tl.histogram(x, BINS, mask=offs < n)
    tl.atomic_add(hist_ptr + tl.arange(0, BINS), h)


@tile.jit
def print_in_loop(n):
    for i in tl.range(0, n, num_stages=None, loop_unroll_factor=None):
        print("i", i)


@tile.jit
def misc_ops_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    j = tl.join(x, x + 1)
    lo, hi = tl.split(j)
    c = tl.cat(lo, hi)
    h = tl.histogram(x % 16, 16)
    u = tl.umulhi(x.to(tl.uint32), 7)
    tl.device_print("h", h)
    tl.device_assert(lo < hi, "split order")
    tl.store(out_ptr + offs, lo + hi + u.to(tl.int32) + tl.sum(c) + tl.sum(h))


@tile.jit
def dropout_kernel(x_ptr, out_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(out_ptr + offsets, output, mask=mask)


@tile.jit
def randn_kernel(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.randn(seed, offs))


@tile.jit
def attention_fwd_kernel(Q, K, V, Out, sm_scale, stride_qm, stride_kn, stride_vn,
                         stride_om, seq_len, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
                         CAUSAL: tl.constexpr):
    """One (batch, head) slice per program column; online softmax over keys."""
    start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    base = off_bh * seq_len
    q_ptrs = Q + (base + offs_m[:, None]) * stride_qm + offs_d[None, :]
    q = tl.load(q_ptrs, mask=offs_m[:, None] < seq_len, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = tl.minimum((start_m + 1) * BLOCK_M, seq_len) if CAUSAL else seq_len
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + (base + cols[None, :]) * stride_kn + offs_d[:, None],
                    mask=cols[None, :] < seq_len, other=0.0)
        qk = tl.dot(q, k)
        valid = cols[None, :] < seq_len
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + (base + cols[:, None]) * stride_vn + offs_d[None, :],
                    mask=cols[:, None] < seq_len, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_ptrs = Out + (base + offs_m[:, None]) * stride_om + offs_d[None, :]
    tl.store(o_ptrs, acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < seq_len)


@tile.jit
def max_with_index(a, ia, b, ib):
    take = (b > a) | ((b == a) & (ib < ia))
    return tl.where(take, b, a), tl.where(take, ib, ia)


@tile.jit
def add_combine(a, b):
    return a + b


@tile.jit
def user_combiner_kernel(x_ptr, out_ptr, idx_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    v, i = tl.reduce((x, offs), 0, max_with_index)
    tl.store(out_ptr, v)
    tl.store(idx_ptr, i)
    tl.store(out_ptr + offs, tl.associative_scan(x, 0, add_combine, reverse=True))


@tile.jit
def casts_math_kernel(x_ptr, out_ptr, ints_ptr, n, BLOCK: tl.constexpr):
    """fp16 in; eight float results per element and two integer casts."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    ax = tl.abs(x)
    out = out_ptr + offs * 8
    tl.store(out + 0, tl.exp(x) + tl.log(ax + 1.0), mask=mask)
    tl.store(out + 1, tl.sqrt(ax) * tl.sin(x) - tl.cos(x), mask=mask)
    tl.store(out + 2, tl.math.rsqrt(ax + 1.0) + tl.sigmoid(x), mask=mask)
    tl.store(out + 3, tl.math.erf(x) + tl.exp2(x) - tl.log2(ax + 2.0), mask=mask)
    tl.store(out + 4, tl.floor(x * 4.0) + tl.ceil(x * 3.0), mask=mask)
    tl.store(out + 5, x.to(tl.bfloat16).to(tl.float32), mask=mask)
    tl.store(out + 6, (x.to(tl.float64) * 3.0).to(tl.float32), mask=mask)
    tl.store(out + 7, tl.fma(x, x, 0.5) / (ax + 1.0), mask=mask)
    i = (x * 100.0).to(tl.int32)
    tl.store(ints_ptr + offs * 2, i, mask=mask)
    tl.store(ints_ptr + offs * 2 + 1, (i & 0xFF).to(tl.uint8).to(tl.int32) + (i >> 3),
             mask=mask)


@tile.jit
def print_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_print("x=", x)
    tl.device_print("pid-only")


@tile.jit
def assert_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x >= 0, "x must be non-negative")


@tile.jit
def fp8_roundtrip_kernel(x_ptr, y_ptr, z_ptr, t_ptr, n, BLOCK: tl.constexpr,
                         E5M2: tl.constexpr):
    """x to fp8 (y) and back to fp32 (z); x to bf16 rounding toward zero (t)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if E5M2:
        y = x.to(tl.float8e5)
    else:
        y = x.to(tl.float8e4nv)
    tl.store(y_ptr + offs, y, mask=m)
    tl.store(z_ptr + offs, y.to(tl.float32), mask=m)
    tl.store(t_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding="rtz"), mask=m)
