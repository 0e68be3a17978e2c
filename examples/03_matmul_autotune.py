"""Matrix multiply with autotuning: the tensor cores from a dozen lines.

What it teaches:
- `tl.dot` on blocks: tile picks the instruction (wgmma on Hopper,
  mma.sync before it) and the software pipeline over K (`num_stages`);
- pointer arithmetic over 2-D blocks with strides and `[:, None]` /
  `[None, :]` broadcasting, and masks on both edges of a partial tile;
- a grouped launch order (`GROUP_M`): neighbouring programs share rows of A
  and columns of B while they are still in L2;
- a nested @tile.jit function (the activation) called from a kernel;
- `@tile.autotune`: several configs compiled in parallel and timed the first
  time a key (here the problem size) is seen; the winner is remembered in
  memory and on disk. In the interpreter the first config runs untimed.

Run: python examples/03_matmul_autotune.py
"""

import common

import numpy as np

import tile
import tile.language as tl


@tile.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


def _configs():
    if common.SMALL:  # the interpreter runs whatever comes first
        return [tile.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32,
                             "GROUP_M": 2}, num_warps=4, num_stages=2)]
    return [tile.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": 64,
                         "GROUP_M": 8}, num_warps=w, num_stages=s)
            for bm, bn, w, s in [(128, 256, 8, 3), (128, 128, 8, 4),
                                 (128, 128, 4, 4), (64, 128, 4, 4)]]


@tile.autotune(configs=_configs(), key=["M", "N", "K"])
@tile.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  ACTIVATION: tl.constexpr):
    # Program ids walk GROUP_M rows of tiles at a time, column by column.
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_rows = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a_tile = tl.load(a, mask=(rm[:, None] < M) & (rk[None, :] < k_left),
                         other=0.0)
        b_tile = tl.load(b, mask=(rk[:, None] < k_left) & (rn[None, :] < N),
                         other=0.0)
        acc = tl.dot(a_tile, b_tile, acc)
        a += BLOCK_K * stride_ak
        b += BLOCK_K * stride_bk
    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc)
    c = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b, activation=""):
    (M, K), (_, N) = a.shape, b.shape
    c = common.empty_like(a, shape=(M, N))
    grid = lambda meta: (tile.cdiv(M, meta["BLOCK_M"]) *
                         tile.cdiv(N, meta["BLOCK_N"]),)
    s = common.stride
    matmul_kernel[grid](a, b, c, M, N, K, s(a, 0), s(a, 1), s(b, 0), s(b, 1),
                        s(c, 0), s(c, 1), ACTIVATION=activation)
    return c


def main():
    print("matmul with autotune, %s" % common.where())
    M, N, K = (100, 72, 80) if common.SMALL else (4096, 4096, 4096)
    a = common.randn(M, K, dtype="float16")
    b = common.randn(K, N, dtype="float16")
    exact = common.float64(a) @ common.float64(b)
    # fp16 output: about 3 significant digits of a sum of K products.
    common.check("a @ b", matmul(a, b), exact, 2e-2, 2e-3)
    common.check("leaky_relu(a @ b)", matmul(a, b, "leaky_relu"),
                 np.where(exact >= 0, exact, 0.01 * exact), 2e-2, 2e-3)
    common.compare_with_interpreter(
        "a @ b", lambda: matmul(a[:100, :80].contiguous(),
                                b[:80, :72].contiguous()),
        [matmul_kernel], 2e-2, 2e-3)
    if common.BENCH:
        print("  best config:", matmul_kernel.best_config)
        flops = 2 * M * N * K
        common.report("tile", common.bench_ms(lambda: matmul(a, b)), flops,
                      "TFLOPS")
        common.report("torch (cuBLAS)", common.bench_ms(lambda: a @ b), flops,
                      "TFLOPS")


if __name__ == "__main__":
    main()
