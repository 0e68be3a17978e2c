# One kernel source for both compilers: bench.py loads it twice, once as is
# (tile) and once with these two import lines switched to Triton's.
import tile as jit_module
import tile.language as tl
from tile.tools.tensor_descriptor import TensorDescriptor


@jit_module.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@jit_module.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows,
                   n_cols, BLOCK_SIZE: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step):
        row_ptr = in_ptr + row_idx * in_row_stride
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        row = tl.load(row_ptr + cols, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        tl.store(out_ptr + row_idx * out_row_stride + cols,
                 numerator / denominator, mask=mask)


@jit_module.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                  stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
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
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# The matmul tutorial's fp16 configurations for CUDA GPUs: (BLOCK_M,
# BLOCK_N, BLOCK_K, stages, warps), GROUP_M 8. Each compiler tunes the
# same kernel over them per (M, N, K).
TUTORIAL_MATMUL_CONFIGS = [
    jit_module.Config({"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k, "GROUP_M": 8},
                      num_stages=stages, num_warps=warps)
    for m, n, k, stages, warps in [
        (128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4),
        (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 32, 32, 4, 4),
        (64, 32, 32, 5, 2), (32, 64, 32, 5, 2)]]

matmul_autotuned = jit_module.autotune(
    configs=TUTORIAL_MATMUL_CONFIGS, key=["M", "N", "K"])(matmul_kernel)


@jit_module.jit
def matmul_tma_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr,
                      WARP_SPECIALIZE: tl.constexpr = False):
    # Host tensor descriptors: A is MxK, B is KxN, C is MxN, all row-major;
    # the TMA unit fetches the tiles and zero-fills the edges.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = pid_m * BLOCK_M
    offs_bn = pid_n * BLOCK_N
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K),
                      warp_specialize=WARP_SPECIALIZE):
        a = a_desc.load([offs_am, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, offs_bn])
        accumulator = tl.dot(a, b, accumulator)
    c_desc.store([offs_am, offs_bn], accumulator.to(tl.float16))


@jit_module.jit
def matmul_make_desc_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                            BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                            GROUP_M: tl.constexpr):
    # The TMA matmul with its descriptors made in the kernel from the
    # (row-major, contiguous) operands' pointers and sizes.
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = pid_m * BLOCK_M
    offs_bn = pid_n * BLOCK_N
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([offs_am, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, offs_bn])
        accumulator = tl.dot(a, b, accumulator)
    c_desc.store([offs_am, offs_bn], accumulator.to(c_ptr.dtype.element_ty))


@jit_module.jit
def matmul_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak,
                             stride_bk, stride_bn, stride_cm, stride_cn,
                             NUM_SMS: tl.constexpr, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             GROUP_M: tl.constexpr):
    # One program per SM walks the output tiles (grouped order), so the
    # last wave is never partly idle.
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_M * num_pid_n
    offs_k = tl.arange(0, BLOCK_K)
    for tile_id in range(start_pid, num_tiles, NUM_SMS):
        group_id = tile_id // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((tile_id % num_pid_in_group) % group_size_m)
        pid_n = (tile_id % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c = accumulator.to(tl.float16)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)


@jit_module.jit
def attention_fwd_kernel(Q, K, V, Out, sm_scale, stride_qm, stride_kn, stride_vn,
                         stride_om, seq_len, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    # Fused attention forward, one (batch, head) per program column, online
    # softmax over key blocks (the FlashAttention-2 loop, non-causal).
    start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    base = off_bh * seq_len
    q = tl.load(Q + (base + offs_m[:, None]) * stride_qm + offs_d[None, :],
                mask=offs_m[:, None] < seq_len, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, seq_len, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + (base + cols[None, :]) * stride_kn + offs_d[:, None],
                    mask=cols[None, :] < seq_len, other=0.0)
        qk = tl.dot(q, k)
        qk = tl.where(cols[None, :] < seq_len, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + (base + cols[:, None]) * stride_vn + offs_d[None, :],
                    mask=cols[:, None] < seq_len, other=0.0)
        acc = tl.dot(p.to(V.dtype.element_ty), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + (base + offs_m[:, None]) * stride_om + offs_d[None, :],
             acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < seq_len)


@jit_module.jit
def attention_fwd_tma_kernel(q_desc, k_desc, v_desc, o_desc, sm_scale, seq_len,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             HEAD_DIM: tl.constexpr,
                             WARP_SPECIALIZE: tl.constexpr = False):
    # The same attention on host tensor descriptors over (heads * S, D):
    # Q, K and V tiles arrive by TMA, K^T is the K tile read transposed. A
    # key block past the sequence reads the next head's rows (or TMA's
    # zeros), so its columns are masked as in the pointer kernel. Query
    # blocks are stored whole: S must be a multiple of BLOCK_M.
    start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    base = off_bh * seq_len
    q = q_desc.load([base + start_m * BLOCK_M, 0])
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in tl.range(0, seq_len, BLOCK_N,
                            warp_specialize=WARP_SPECIALIZE):
        cols = start_n + offs_n
        k = k_desc.load([base + start_n, 0])
        qk = tl.dot(q, k.T)
        qk = tl.where(cols[None, :] < seq_len, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = v_desc.load([base + start_n, 0])
        acc = tl.dot(p.to(v_desc.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_desc.store([base + start_m * BLOCK_M, 0], acc.to(o_desc.dtype))


@jit_module.jit
def attention_fwd_tma_persistent_kernel(q_desc, k_desc, v_desc, o_desc,
                                        sm_scale, seq_len, batch_heads,
                                        NUM_SMS: tl.constexpr,
                                        BLOCK_M: tl.constexpr,
                                        BLOCK_N: tl.constexpr,
                                        HEAD_DIM: tl.constexpr,
                                        WARP_SPECIALIZE: tl.constexpr = False):
    # attention_fwd_tma_kernel with one program per SM walking the (query
    # block, head) tiles, as Triton's persistent kernels mark their tile
    # loop: a producer warpgroup then copies the next tile's first K and V
    # blocks while the consumers finish this tile.
    num_m = tl.cdiv(seq_len, BLOCK_M)
    num_tiles = num_m * batch_heads
    offs_n = tl.arange(0, BLOCK_N)
    qk_scale = sm_scale * 1.44269504
    for tile_id in tl.range(tl.program_id(0), num_tiles, NUM_SMS,
                            warp_specialize=WARP_SPECIALIZE):
        start_m = tile_id % num_m
        base = (tile_id // num_m) * seq_len
        q = q_desc.load([base + start_m * BLOCK_M, 0])
        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        for start_n in range(0, seq_len, BLOCK_N):
            cols = start_n + offs_n
            k = k_desc.load([base + start_n, 0])
            qk = tl.dot(q, k.T)
            qk = tl.where(cols[None, :] < seq_len, qk, float("-inf"))
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None]
            v = v_desc.load([base + start_n, 0])
            acc = tl.dot(p.to(v_desc.dtype), v, acc)
            m_i = m_ij
        acc = acc / l_i[:, None]
        o_desc.store([base + start_m * BLOCK_M, 0], acc.to(o_desc.dtype))


@jit_module.jit
def attention_fwd_tma_overlap_kernel(q_desc, k_desc, v_desc, o_desc, sm_scale,
                                     seq_len, BLOCK_M: tl.constexpr,
                                     BLOCK_N: tl.constexpr,
                                     HEAD_DIM: tl.constexpr,
                                     WARP_SPECIALIZE: tl.constexpr = False):
    # attention_fwd_overlap_kernel's schedule (the next block's Q.K^T and
    # this block's P.V issued back to back, the softmax under both) on
    # descriptors, as attention_fwd_tma_kernel loads them.
    start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    base = off_bh * seq_len
    q = q_desc.load([base + start_m * BLOCK_M, 0])
    offs_n = tl.arange(0, BLOCK_N)
    qk_scale = sm_scale * 1.44269504
    k = k_desc.load([base, 0])
    qk = tl.dot(q, k.T)
    qk = tl.where(offs_n[None, :] < seq_len, qk, float("-inf"))
    m_i = tl.max(qk, 1) * qk_scale
    p = tl.math.exp2(qk * qk_scale - m_i[:, None])
    l_i = tl.sum(p, 1)
    p = p.to(v_desc.dtype)
    alpha = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in tl.range(0, seq_len, BLOCK_N,
                            warp_specialize=WARP_SPECIALIZE):
        next_cols = start_n + BLOCK_N + offs_n
        k = k_desc.load([base + start_n + BLOCK_N, 0])
        qk = tl.dot(q, k.T)
        acc = acc * alpha[:, None]
        v = v_desc.load([base + start_n, 0])
        acc = tl.dot(p, v, acc)
        qk = tl.where(next_cols[None, :] < seq_len, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        p = p.to(v_desc.dtype)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_desc.store([base + start_m * BLOCK_M, 0], acc.to(o_desc.dtype))


@jit_module.jit
def attention_fwd_overlap_kernel(Q, K, V, Out, sm_scale, stride_qm, stride_kn,
                                 stride_vn, stride_om, seq_len,
                                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                 HEAD_DIM: tl.constexpr):
    # The same attention with the softmax one key block ahead of P.V: each
    # iteration issues the next block's scores Q.K^T and this block's P.V
    # back to back, then computes the next block's softmax while both run
    # on the tensor cores (FlashAttention-3's intra-warpgroup overlap,
    # written in the source). The last iteration's next block lies past
    # the sequence: fully masked, it leaves m_i, l_i and acc as they are.
    start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    base = off_bh * seq_len
    q = tl.load(Q + (base + offs_m[:, None]) * stride_qm + offs_d[None, :],
                mask=offs_m[:, None] < seq_len, other=0.0)
    qk_scale = sm_scale * 1.44269504
    k = tl.load(K + (base + offs_n[None, :]) * stride_kn + offs_d[:, None],
                mask=offs_n[None, :] < seq_len, other=0.0)
    qk = tl.dot(q, k)
    qk = tl.where(offs_n[None, :] < seq_len, qk, float("-inf"))
    m_i = tl.max(qk, 1) * qk_scale
    p = tl.math.exp2(qk * qk_scale - m_i[:, None])
    l_i = tl.sum(p, 1)
    p = p.to(V.dtype.element_ty)
    alpha = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, seq_len, BLOCK_N):
        cols = start_n + offs_n
        next_cols = cols + BLOCK_N
        k = tl.load(K + (base + next_cols[None, :]) * stride_kn + offs_d[:, None],
                    mask=next_cols[None, :] < seq_len, other=0.0)
        qk = tl.dot(q, k)
        acc = acc * alpha[:, None]
        v = tl.load(V + (base + cols[:, None]) * stride_vn + offs_d[None, :],
                    mask=cols[:, None] < seq_len, other=0.0)
        acc = tl.dot(p, v, acc)
        qk = tl.where(next_cols[None, :] < seq_len, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        p = p.to(V.dtype.element_ty)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + (base + offs_m[:, None]) * stride_om + offs_d[None, :],
             acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < seq_len)
