"""tl.dot_scaled kernels: one block of an MX (microscaled) matrix product,
with the operands' memory layouts and packing as parameters."""

import tile
import tile.language as tl


@tile.jit
def scaled_block_dot(a, a_scale, b, b_scale, out, stride_am, stride_ak,
                     stride_bk, stride_bn,
                     M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                     A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr,
                     A_K_PACK: tl.constexpr, B_K_PACK: tl.constexpr,
                     FAST_MATH: tl.constexpr, ACC: tl.constexpr):
    """out[M, N] = a @ b (+ 1 with ACC) for one block. e2m1 operands hold
    two codes a byte, along K or (k_pack False) along M / N."""
    A_ROWS: tl.constexpr = M // 2 if A_FORMAT == "e2m1" and not A_K_PACK else M
    A_COLS: tl.constexpr = K // 2 if A_FORMAT == "e2m1" and A_K_PACK else K
    B_ROWS: tl.constexpr = K // 2 if B_FORMAT == "e2m1" and B_K_PACK else K
    B_COLS: tl.constexpr = N // 2 if B_FORMAT == "e2m1" and not B_K_PACK else N
    x = tl.load(a + tl.arange(0, A_ROWS)[:, None] * stride_am
                + tl.arange(0, A_COLS)[None, :] * stride_ak)
    y = tl.load(b + tl.arange(0, B_ROWS)[:, None] * stride_bk
                + tl.arange(0, B_COLS)[None, :] * stride_bn)
    GROUPS: tl.constexpr = K // 32
    if a_scale is not None:
        a_scale = tl.load(a_scale + tl.arange(0, M)[:, None] * GROUPS
                          + tl.arange(0, GROUPS)[None, :])
    if b_scale is not None:
        b_scale = tl.load(b_scale + tl.arange(0, N)[:, None] * GROUPS
                          + tl.arange(0, GROUPS)[None, :])
    if ACC:
        acc = tl.full((M, N), 1.0, tl.float32)
    else:
        acc = None
    c = tl.dot_scaled(x, a_scale, A_FORMAT, y, b_scale, B_FORMAT, acc=acc,
                      fast_math=FAST_MATH, lhs_k_pack=A_K_PACK,
                      rhs_k_pack=B_K_PACK)
    tl.store(out + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)
