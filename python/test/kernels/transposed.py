"""Dots whose B operand is `tl.trans` of a tile loaded row-major through
pointers: the layout a linear layer's weight (out_features x in_features)
and attention's K have in memory. AccelerateMatmul stages the loaded tile as
it is and hands wgmma a transposed view of it."""

import tile
import tile.language as tl


@tile.jit
def linear_kernel(x_ptr, w_ptr, y_ptr, M, N, K, stride_xm, stride_wn,
                  stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    """y (fp32, MxN) = x (MxK) @ w^T, w stored NxK row-major."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        x = tl.load(x_ptr + offs_m[:, None] * stride_xm + ks[None, :],
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        w = tl.load(w_ptr + offs_n[:, None] * stride_wn + ks[None, :],
                    mask=(offs_n[:, None] < N) & (ks[None, :] < K), other=0.0)
        acc = tl.dot(x, tl.trans(w), acc)
    tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
