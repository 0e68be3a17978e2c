"""An fp8 matmul whose tl.dot bounds the products summed at reduced
precision (max_num_imprecise_acc), as Triton's test_core writes it."""

import tile
import tile.language as tl


@tile.jit
def fp8_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, IMPRECISE: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    rm = (pid % num_pid_m) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (pid // num_pid_m) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc=acc,
                     max_num_imprecise_acc=IMPRECISE)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc)
