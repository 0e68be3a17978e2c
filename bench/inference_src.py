# Inference GEMMs as users write them, one source for both compilers:
# bench/inference.py loads it twice, once as is (tile) and once with these
# import lines switched to Triton's.
import tile as jit_module
import tile.language as tl
from tile.tools.tensor_descriptor import TensorDescriptor  # noqa: F401


@jit_module.jit
def grouped_tile(tile_id, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    """(row, column) of output tile `tile_id` in the matmul tutorial's
    grouped order: GROUP_M rows of tiles at a time, column by column."""
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((tile_id % num_pid_in_group) % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@jit_module.jit
def grouped_pids(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 GROUP_M: tl.constexpr):
    """The matmul tutorial's grouped launch order."""
    return grouped_tile(tl.program_id(axis=0), tl.cdiv(M, BLOCK_M),
                        tl.cdiv(N, BLOCK_N), GROUP_M)


@jit_module.jit
def int4_k_step(acc, a_ptrs, b_ptrs, scale_ptr, offs_bn, k, stride_ak,
                stride_sg, GROUP_SIZE: tl.constexpr, BLOCK_K: tl.constexpr):
    """One K step of the int4 kernels below: two dots, one per nibble
    plane, with group scales applied to the unpacked weights."""
    HALF: tl.constexpr = BLOCK_K // 2
    a_lo = tl.load(a_ptrs)
    a_hi = tl.load(a_ptrs + HALF * stride_ak)
    packed = tl.load(b_ptrs)
    b_lo = ((packed << 4) >> 4).to(tl.bfloat16)
    b_hi = (packed >> 4).to(tl.bfloat16)
    if GROUP_SIZE > 0:
        group = (k * BLOCK_K) // GROUP_SIZE
        scale_lo = tl.load(scale_ptr + group * stride_sg + offs_bn)
        if GROUP_SIZE >= BLOCK_K:
            scale_hi = scale_lo
        else:
            # The high nibbles' rows (the step's second half) start the
            # next group.
            scale_hi = tl.load(scale_ptr + (group + 1) * stride_sg + offs_bn)
        b_lo = b_lo * scale_lo[None, :]
        b_hi = b_hi * scale_hi[None, :]
    acc = tl.dot(a_lo, b_lo, acc)
    return tl.dot(a_hi, b_hi, acc)


@jit_module.jit
def int4_matmul_kernel(a_ptr, b_ptr, scale_ptr, c_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn,
                       stride_sg, stride_cm, stride_cn,
                       GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       GROUP_M: tl.constexpr):
    """c (bf16, MxN) = a (bf16, MxK) @ dequant(w), w (KxN) signed int4.

    b holds w two to a byte (K/2 x N int8): in the K step at k0, packed row
    k0/2 + r has w[k0 + r] in its low nibble and w[k0 + BLOCK_K/2 + r] in
    its high one, so each nibble plane feeds one dot over half the step.
    GROUP_SIZE 0: one scale per column (scale_ptr[n]), applied to the
    accumulator; otherwise one per GROUP_SIZE rows of K and column
    (scale_ptr[k // GROUP_SIZE, n]), applied to the weights as they are
    unpacked. K is a multiple of BLOCK_K; GROUP_SIZE is a multiple of
    BLOCK_K or equal to BLOCK_K / 2 (one group per nibble plane)."""
    HALF: tl.constexpr = BLOCK_K // 2
    pid_m, pid_n = grouped_pids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_h = tl.arange(0, HALF)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_h[None, :] * stride_ak
    b_ptrs = b_ptr + offs_h[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K // BLOCK_K):
        acc = int4_k_step(acc, a_ptrs, b_ptrs, scale_ptr, offs_bn, k,
                          stride_ak, stride_sg, GROUP_SIZE, BLOCK_K)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += HALF * stride_bk
    if GROUP_SIZE == 0:
        acc = acc * tl.load(scale_ptr + offs_bn)[None, :].to(tl.float32)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn,
             acc.to(tl.bfloat16),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@jit_module.jit
def int4_matmul_splitk_kernel(a_ptr, b_ptr, scale_ptr, c_ptr, M, N, K,
                              stride_am, stride_ak, stride_bk, stride_bn,
                              stride_sg, stride_cm, stride_cn,
                              GROUP_SIZE: tl.constexpr, BLOCK_M: tl.constexpr,
                              BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                              SPLIT_K: tl.constexpr):
    """int4_matmul_kernel for decode-sized M: program (pid_n, pid_k) sums
    K / SPLIT_K of the product and adds it into c (fp32, zeroed by the
    caller) atomically, so that N / BLOCK_N * SPLIT_K programs fill the GPU
    where N / BLOCK_N alone would not. K is a multiple of SPLIT_K *
    BLOCK_K."""
    HALF: tl.constexpr = BLOCK_K // 2
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    pid_k = tl.program_id(axis=2)
    steps = K // (BLOCK_K * SPLIT_K)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_h = tl.arange(0, HALF)
    first = pid_k * steps
    a_ptrs = (a_ptr + offs_am[:, None] * stride_am
              + (first * BLOCK_K + offs_h)[None, :] * stride_ak)
    b_ptrs = (b_ptr + (first * HALF + offs_h)[:, None] * stride_bk
              + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(first, first + steps):
        acc = int4_k_step(acc, a_ptrs, b_ptrs, scale_ptr, offs_bn, k,
                          stride_ak, stride_sg, GROUP_SIZE, BLOCK_K)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += HALF * stride_bk
    if GROUP_SIZE == 0:
        acc = acc * tl.load(scale_ptr + offs_bn)[None, :].to(tl.float32)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.atomic_add(c_ptr + offs_cm[:, None] * stride_cm
                  + offs_cn[None, :] * stride_cn, acc,
                  mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N),
                  sem="relaxed")


@jit_module.jit
def fp8_matmul_kernel(a_ptr, b_ptr, a_scale_ptr, b_scale_ptr, c_ptr, M, N, K,
                      stride_am, stride_bn, stride_cm,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """c (bf16) = (a (fp8, MxK) @ b^T (b: fp8, NxK, K-major)) scaled by
    a_scale[m] * b_scale[n] (row-wise scales, as torch._scaled_mm takes
    them). K is a multiple of BLOCK_K."""
    pid_m, pid_n = grouped_pids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_bn[None, :] * stride_bn + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K // BLOCK_K):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    a_scale = tl.load(a_scale_ptr + offs_am)
    b_scale = tl.load(b_scale_ptr + offs_bn)
    acc = acc * a_scale[:, None] * b_scale[None, :]
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :],
             acc.to(tl.bfloat16),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@jit_module.jit
def fp8_persistent_tma_kernel(a_desc, b_desc, c_desc, a_scale_ptr,
                              b_scale_ptr, M, N, K, NUM_SMS: tl.constexpr,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                              BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """fp8_matmul_kernel on host tensor descriptors (a: MxK, b: NxK, c: MxN
    bf16; the TMA unit fetches the tiles and zero-fills the edges), one
    program per SM walking the output tiles in grouped order, the row-wise
    scales applied in the epilogue."""
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    for tile_id in range(start_pid, num_pid_m * num_pid_n, NUM_SMS):
        pid_m, pid_n = grouped_tile(tile_id, num_pid_m, num_pid_n, GROUP_M)
        offs_am = pid_m * BLOCK_M
        offs_bn = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = a_desc.load([offs_am, k * BLOCK_K])
            b = b_desc.load([offs_bn, k * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        rows = offs_am + tl.arange(0, BLOCK_M)
        cols = offs_bn + tl.arange(0, BLOCK_N)
        a_scale = tl.load(a_scale_ptr + rows, mask=rows < M, other=0.0)
        b_scale = tl.load(b_scale_ptr + cols, mask=cols < N, other=0.0)
        acc = acc * a_scale[:, None] * b_scale[None, :]
        c_desc.store([offs_am, offs_bn], acc.to(tl.bfloat16))


@jit_module.jit
def fp8_blockwise_matmul_kernel(a_ptr, b_ptr, a_scale_ptr, b_scale_ptr, c_ptr,
                                M, N, K, stride_am, stride_bn, stride_asm,
                                stride_bsn, stride_cm, BLOCK_M: tl.constexpr,
                                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                GROUP_M: tl.constexpr):
    """c (bf16) = a (fp8, MxK) @ b^T (b: fp8, NxK) with block-wise scales,
    as DeepSeek-V3 stores them: a_scale[m, k // 128] per row and 128-wide
    K block, b_scale[n // 128, k // 128] per 128x128 block. Each K step's
    partial product is scaled before it is accumulated. BLOCK_K is 128;
    BLOCK_N divides 128; K is a multiple of 128."""
    pid_m, pid_n = grouped_pids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_bn[None, :] * stride_bn + offs_k[:, None]
    a_scale_ptrs = a_scale_ptr + offs_am * stride_asm
    b_scale_ptr += (pid_n * BLOCK_N // 128) * stride_bsn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K // BLOCK_K):
        partial = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_scale = tl.load(a_scale_ptrs + k)
        b_scale = tl.load(b_scale_ptr + k)
        acc += partial * (a_scale[:, None] * b_scale)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :],
             acc.to(tl.bfloat16),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))
