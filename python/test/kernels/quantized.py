"""Weight-only quantised matmuls: the weight is stored as integers and
converted to bf16 in registers each K step, so the dot's B operand is stored
to shared memory by the loop body itself, not copied ahead by the pipeline.
"""

import tile
import tile.language as tl


@tile.jit
def int8_weight_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                              stride_am, stride_bk, stride_cm,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                              BLOCK_K: tl.constexpr):
    """c (fp32) = a (bf16 or fp16, MxK) @ b (int8 or fp8, KxN) widened to
    a's type."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :],
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :],
                    mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0)
        acc = tl.dot(a, b.to(a.dtype), acc)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@tile.jit
def int4_weight_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                              stride_am, stride_bk, stride_cm,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                              BLOCK_K: tl.constexpr):
    """c (fp32) = a (bf16, MxK) @ w, w (KxN) packed two int4 per byte in b
    (K/2 x N, int8): for the K step at k0, packed row k0/2 + r holds
    w[k0 + r] in its low nibble and w[k0 + BLOCK_K/2 + r] in its high one.
    K is a multiple of BLOCK_K."""
    HALF: tl.constexpr = BLOCK_K // 2
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_h = tl.arange(0, HALF)
    rows_ok = offs_m[:, None] < M
    cols_ok = offs_n[None, :] < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a_row = a_ptr + offs_m[:, None] * stride_am
        a_lo = tl.load(a_row + (k0 + offs_h)[None, :], mask=rows_ok, other=0.0)
        a_hi = tl.load(a_row + (k0 + HALF + offs_h)[None, :], mask=rows_ok,
                       other=0.0)
        packed = tl.load(b_ptr + (k0 // 2 + offs_h)[:, None] * stride_bk
                         + offs_n[None, :], mask=cols_ok, other=0)
        b_lo = ((packed << 4) >> 4).to(tl.bfloat16)
        b_hi = (packed >> 4).to(tl.bfloat16)
        acc = tl.dot(a_lo, b_lo, acc)
        acc = tl.dot(a_hi, b_hi, acc)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc,
             mask=rows_ok & cols_ok)


@tile.jit
def int4_weight_matmul_pointers_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                                       stride_am, stride_ak, stride_bk,
                                       stride_bn, stride_cm, stride_cn,
                                       BLOCK_M: tl.constexpr,
                                       BLOCK_N: tl.constexpr,
                                       BLOCK_K: tl.constexpr,
                                       SUM: tl.constexpr):
    """The same product in the Triton tutorial's form: pointers carried and
    advanced, the K tail masked, a bf16 output; with SUM the two dots start
    from zero and are added to the accumulator."""
    HALF: tl.constexpr = BLOCK_K // 2
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, HALF)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        a_lo = tl.load(a_ptrs, mask=offs_k[None, :] < left, other=0.0)
        a_hi = tl.load(a_ptrs + HALF * stride_ak,
                       mask=offs_k[None, :] + HALF < left, other=0.0)
        packed = tl.load(b_ptrs, mask=offs_k[:, None] < left // 2, other=0)
        b_lo = ((packed << 4) >> 4).to(tl.bfloat16)
        b_hi = (packed >> 4).to(tl.bfloat16)
        if SUM:
            acc += tl.dot(a_lo, b_lo) + tl.dot(a_hi, b_hi)
        else:
            acc = tl.dot(a_lo, b_lo, acc)
            acc = tl.dot(a_hi, b_hi, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += HALF * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :],
             acc.to(tl.bfloat16),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@tile.jit
def grouped_uint4_matmul_kernel(a_ptr, b_ptr, scale_ptr, zero_ptr, c_ptr, M,
                                N, K, stride_am, stride_bk, stride_sg,
                                stride_cm, GROUP: tl.constexpr,
                                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                BLOCK_K: tl.constexpr):
    """c (fp32) = a (bf16, MxK) @ ((w - zero) * scale), w (KxN) unsigned
    int4 packed as in int4_weight_matmul_kernel; zero and scale (bf16) per
    GROUP rows of K and column. K is a multiple of BLOCK_K and GROUP of
    BLOCK_K; M and N need not be multiples of their blocks."""
    HALF: tl.constexpr = BLOCK_K // 2
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_h = tl.arange(0, HALF)
    rows_ok = offs_m[:, None] < M
    cols_ok = offs_n < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a_row = a_ptr + offs_m[:, None] * stride_am
        a_lo = tl.load(a_row + (k0 + offs_h)[None, :], mask=rows_ok, other=0.0)
        a_hi = tl.load(a_row + (k0 + HALF + offs_h)[None, :], mask=rows_ok,
                       other=0.0)
        packed = tl.load(b_ptr + (k0 // 2 + offs_h)[:, None] * stride_bk
                         + offs_n[None, :], mask=cols_ok[None, :], other=0)
        group = k0 // GROUP
        scale = tl.load(scale_ptr + group * stride_sg + offs_n, mask=cols_ok,
                        other=0.0)
        zero = tl.load(zero_ptr + group * stride_sg + offs_n, mask=cols_ok,
                       other=0.0)
        w_lo = ((packed & 15).to(tl.bfloat16) - zero[None, :]) * scale[None, :]
        w_hi = (((packed >> 4) & 15).to(tl.bfloat16) - zero[None, :]) * \
            scale[None, :]
        acc = tl.dot(a_lo, w_lo, acc)
        acc = tl.dot(a_hi, w_hi, acc)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc,
             mask=rows_ok & cols_ok[None, :])
