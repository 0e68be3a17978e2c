"""Inference GEMMs: tile vs Triton on the same source (bench/inference_src.py
and, for the small shapes, bench/kernels_src.py's matmul), with the library
beside them, in one run.

Sections (BENCH_INFERENCE picks, default all):
  int4   weight-only int4 x bf16, per-column and per-group (128) scales,
         4096x8192x8192 and decode (M=16, N=K=8192); library: cuBLAS bf16 on
         the weights dequantized ahead of time.
  int4large, int4decode  the 4096-row or the decode rows of int4 only
         (when int4 is not named).
  fp8    e4m3 with row-wise scales, B K-major, 4096^3 and 8192^3; library:
         torch._scaled_mm.
  fp8more  e5m2 row-scaled 8192^3, and e4m3 with block-wise (1x128,
         128x128) scales at 4096^3 and 8192^3 (tile and Triton only).
  small  fp16 256^3, 512^3 and 1024^3: time per call from Python, launch
         included (back-to-back calls, then one synchronize); library:
         torch.matmul.
  skinny fp16 M in {1, 16, 64}, N = K = 8192: kernel time; library:
         torch.matmul.
Every result is checked against float64 before it is timed. Kernel times
are medians of event-timed runs after warm-up (bench.gpu_time_ms); each
kernel's best of a few configs is reported, with the config."""

import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench  # noqa: E402

ROWS = []


def cdiv(a, b):
    return (a + b - 1) // b


def check(what, got, want, tol=1e-2):
    got, want = got.double(), want.double()
    assert not torch.isnan(got).any(), "%s: unwritten (NaN) elements" % what
    err = ((got - want).norm() / want.norm()).item()
    assert err < tol, "%s: relative error %.3g over %.3g" % (what, err, tol)


def best_of(name, impl, configs, run, flops, out, want, record=True):
    """Times run(config) for each config (after checking its result) and
    records the fastest (or, without `record`, returns it)."""
    best = None
    for config in configs:
        out.fill_(float("nan"))
        try:
            run(config)
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            print("%s %s %s: %s" % (name, impl, config,
                                    str(e).splitlines()[0][:160]))
            continue
        torch.cuda.synchronize()
        try:
            check("%s %s %s" % (name, impl, config), out, want)
        except AssertionError as e:  # reported, and never timed
            print("WRONG: %s" % e)
            continue
        ms = bench.gpu_time_ms(lambda: run(config), reps=50)
        if best is None or ms < best[0]:
            best = (ms, config)
    if best and record:
        ROWS.append((name, impl, best[0], flops / best[0] / 1e9,
                     "%dx%dx%d/%dw/%ds" % best[1]))
    return best


def packed_int4(K, N, block_k):
    """Random signed int4 weights w (KxN) and their packing for block_k-wide
    K steps (see int4_matmul_kernel)."""
    lo = torch.randint(-8, 8, (K // 2, N), device="cuda", dtype=torch.int16)
    hi = torch.randint(-8, 8, (K // 2, N), device="cuda", dtype=torch.int16)
    packed = (hi * 16 + (lo & 15)).to(torch.int8)
    w = torch.cat([lo.view(K // block_k, block_k // 2, N),
                   hi.view(K // block_k, block_k // 2, N)],
                  dim=1).reshape(K, N)
    return w, packed


def bench_int4(mods, shapes=((4096, 8192, 8192), (16, 8192, 8192))):
    for M, N, K in shapes:
        large = M >= 64
        configs = ([(128, 128, 64, 8, 3), (128, 256, 64, 8, 3),
                    (128, 128, 128, 8, 3), (128, 128, 64, 8, 4),
                    (128, 256, 64, 8, 4)] if large else
                   [(16, 64, 128, 4, 4), (16, 128, 128, 4, 4),
                    (16, 64, 64, 4, 4), (16, 64, 256, 4, 3)])
        a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
        flops = 2.0 * M * N * K
        for group in (0, 128):
            name = "int4 %s %dx%dx%d" % ("per-column" if group == 0 else
                                         "group 128", M, N, K)
            if group == 0:
                scales = (torch.rand(N, device="cuda") + 0.5).to(torch.bfloat16)
                expand = lambda s: s[None, :].double()  # noqa: E731
            else:
                scales = (torch.rand(K // group, N, device="cuda") + 0.5).to(
                    torch.bfloat16)
                expand = lambda s: s.double().repeat_interleave(group, 0)  # noqa: E731
            c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            # The kernel takes one group scale per nibble plane (half a K
            # step): GROUP_SIZE must be a multiple of BLOCK_K or half of it.
            usable = [x for x in configs
                      if group == 0 or group % x[2] == 0 or 2 * group == x[2]]
            # The packing depends on BLOCK_K: one per distinct BLOCK_K.
            packings = {}
            for config in usable:
                if config[2] not in packings:
                    w, packed = packed_int4(K, N, config[2])
                    want = a.double() @ (w.double() * expand(scales))
                    packings[config[2]] = (packed, want, w)
            for impl, m in mods.items():
                bests = []
                for bk in packings:
                    packed, want, _ = packings[bk]

                    def run(cfg, m=m, packed=packed):
                        bm, bn, bk_, warps, stages = cfg
                        m.int4_matmul_kernel[(cdiv(M, bm) * cdiv(N, bn),)](
                            a, packed, scales, c, M, N, K, a.stride(0),
                            a.stride(1), packed.stride(0), packed.stride(1),
                            scales.stride(0) if group else 0, c.stride(0),
                            c.stride(1), GROUP_SIZE=group, BLOCK_M=bm,
                            BLOCK_N=bn, BLOCK_K=bk_, GROUP_M=8,
                            num_warps=warps, num_stages=stages)
                    bests.append(best_of(
                        name, impl, [x for x in usable if x[2] == bk], run,
                        flops, c, want, record=False))
                bests = [b for b in bests if b]
                if bests:
                    ms, config = min(bests)
                    ROWS.append((name, impl, ms, flops / ms / 1e9,
                                 "%dx%dx%d/%dw/%ds" % config))
            if not large:
                bench_int4_splitk(mods, name, a, scales, group, packings,
                                  flops)
            # The library on weights dequantized ahead of time (bf16).
            _, want, w = next(iter(packings.values()))
            dense = (w.double() * expand(scales)).to(torch.bfloat16)
            ms = bench.gpu_time_ms(lambda: torch.matmul(a, dense), reps=50)
            ROWS.append((name, "cuBLAS bf16", ms, flops / ms / 1e9,
                         "dequantized weights"))


def bench_int4_splitk(mods, name, a, scales, group, packings, flops):
    """Decode with split-K: each program sums a K / SPLIT_K slice and adds
    it atomically into a zeroed fp32 output; the zeroing is timed with the
    kernel."""
    M, K = a.shape
    N = scales.shape[-1]
    configs = [(16, 64, 128, 4, 4, 4), (16, 64, 128, 4, 4, 8),
               (16, 128, 128, 4, 4, 8)]
    c = torch.empty(M, N, device="cuda", dtype=torch.float32)
    for impl, m in mods.items():
        best = None
        for bm, bn, bk, warps, stages, split in configs:
            if bk not in packings or (group and group % bk and 2 * group != bk):
                continue
            packed, want, _ = packings[bk]

            def run(m=m, packed=packed, bm=bm, bn=bn, bk=bk, warps=warps,
                    stages=stages, split=split):
                c.zero_()
                m.int4_matmul_splitk_kernel[(cdiv(M, bm), cdiv(N, bn), split)](
                    a, packed, scales, c, M, N, K, a.stride(0), a.stride(1),
                    packed.stride(0), packed.stride(1),
                    scales.stride(0) if group else 0, c.stride(0),
                    c.stride(1), GROUP_SIZE=group, BLOCK_M=bm, BLOCK_N=bn,
                    BLOCK_K=bk, SPLIT_K=split, num_warps=warps,
                    num_stages=stages)
            try:
                run()
                torch.cuda.synchronize()
                check("%s split-K %s" % (name, impl), c, want)
            except Exception as e:  # noqa: BLE001 - reported, not fatal
                print("%s split-K %s %s: %s" % (name, impl, split,
                                                str(e).splitlines()[0][:160]))
                continue
            ms = bench.gpu_time_ms(run, reps=50)
            if best is None or ms < best[0]:
                best = (ms, "%dx%dx%d/%dw/%ds split %d" % (
                    bm, bn, bk, warps, stages, split))
        if best:
            ROWS.append((name + " split-K", impl, best[0],
                         flops / best[0] / 1e9, best[1]))


def bench_fp8(mods, sizes=(4096, 8192), dtype=torch.float8_e4m3fn):
    """Row-wise scaled fp8 against torch._scaled_mm with the same scales."""
    configs = [(128, 256, 128, 8, 3), (128, 128, 128, 8, 4),
               (128, 256, 64, 8, 4)]
    kind = "e4m3" if dtype == torch.float8_e4m3fn else "e5m2"
    for size in sizes:
        M = N = K = size
        name = "fp8 %s %d^3" % (kind, size)
        a = torch.randn(M, K, device="cuda").to(dtype)
        b = torch.randn(N, K, device="cuda").to(dtype)
        sa = torch.rand(M, device="cuda") + 0.5
        sb = torch.rand(N, device="cuda") + 0.5
        want = (a.double() @ b.double().t()) * sa.double()[:, None] * \
            sb.double()[None, :]
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * M * N * K
        for impl, m in mods.items():
            def run(cfg, m=m):
                bm, bn, bk, warps, stages = cfg
                m.fp8_matmul_kernel[(cdiv(M, bm) * cdiv(N, bn),)](
                    a, b, sa, sb, c, M, N, K, a.stride(0), b.stride(0),
                    c.stride(0), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                    GROUP_M=8, num_warps=warps, num_stages=stages)
            best_of(name, impl, configs, run, flops, c, want)

        bench_fp8_persistent_tma(mods, name, a, b, sa, sb, c, want, flops)

        def scaled_mm():
            return torch._scaled_mm(a, b.t(), scale_a=sa[:, None],
                                    scale_b=sb[None, :],
                                    out_dtype=torch.bfloat16)
        try:
            check(name + " _scaled_mm", scaled_mm(), want)
        except ValueError as e:  # cuBLAS has no e5m2 x e5m2 product
            print("%s torch._scaled_mm: %s" % (name, e))
            continue
        ms = bench.gpu_time_ms(scaled_mm, reps=50)
        ROWS.append((name, "torch._scaled_mm", ms, flops / ms / 1e9, ""))


def bench_fp8_persistent_tma(mods, name, a, b, sa, sb, c, want, flops):
    """The row-scaled fp8 product as a persistent kernel on host tensor
    descriptors (one program per SM), tile and Triton on the same source."""
    M, K = a.shape
    N = b.shape[0]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    configs = [(128, 256, 128, 8, 3), (128, 128, 128, 8, 4),
               (128, 256, 64, 8, 4)]
    for impl, m in mods.items():
        made = {}

        def run(cfg, m=m, made=made):
            bm, bn, bk, warps, stages = cfg
            if cfg not in made:
                made[cfg] = (m.TensorDescriptor.from_tensor(a, [bm, bk]),
                             m.TensorDescriptor.from_tensor(b, [bn, bk]),
                             m.TensorDescriptor.from_tensor(c, [bm, bn]))
            descs = made[cfg]
            tiles = cdiv(M, bm) * cdiv(N, bn)
            m.fp8_persistent_tma_kernel[(min(sms, tiles),)](
                *descs, sa, sb, M, N, K, NUM_SMS=sms, BLOCK_M=bm, BLOCK_N=bn,
                BLOCK_K=bk, GROUP_M=8, num_warps=warps, num_stages=stages)
        best_of(name + " persistent TMA", impl, configs, run, flops, c, want)


def bench_fp8_block_scaled(mods):
    """e4m3 with DeepSeek-style block-wise scales (1x128 for A, 128x128 for
    B) at 4096^3 and 8192^3, tile and Triton (no library row)."""
    configs = [(128, 128, 128, 8, 3), (128, 128, 128, 8, 4),
               (64, 128, 128, 4, 4)]
    for size in (4096, 8192):
        M = N = K = size
        name = "fp8 e4m3 block-scaled %d^3" % size
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
        sa = torch.rand(M, K // 128, device="cuda") + 0.5
        sb = torch.rand(N // 128, K // 128, device="cuda") + 0.5
        expand_a = sa.double().repeat_interleave(128, 1)
        expand_b = sb.double().repeat_interleave(128, 0).repeat_interleave(
            128, 1)
        want = (a.double() * expand_a) @ (b.double() * expand_b).t()
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * M * N * K
        for impl, m in mods.items():
            def run(cfg, m=m):
                bm, bn, bk, warps, stages = cfg
                m.fp8_blockwise_matmul_kernel[(cdiv(M, bm) * cdiv(N, bn),)](
                    a, b, sa, sb, c, M, N, K, a.stride(0), b.stride(0),
                    sa.stride(0), sb.stride(0), c.stride(0), BLOCK_M=bm,
                    BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
                    num_stages=stages)
            best_of(name, impl, configs, run, flops, c, want)


def bench_skinny(sizes=(1, 16, 64), N=8192, K=8192):
    """fp16 decode-shaped products (bench/kernels_src.py's matmul) against
    cuBLAS, kernel time."""
    mods = {name: bench.load(name) for name in ("tile", "triton")}
    configs = [(16, 64, 128, 4, 4), (16, 128, 64, 4, 4), (64, 64, 64, 4, 4),
               (64, 128, 64, 4, 3)]
    for M in sizes:
        name = "fp16 skinny %dx%dx%d" % (M, N, K)
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        want = a.double() @ b.double()
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        flops = 2.0 * M * N * K
        for impl, m in mods.items():
            def run(cfg, m=m):
                bm, bn, bk, warps, stages = cfg
                m.matmul_kernel[(cdiv(M, bm) * cdiv(N, bn),)](
                    a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                    b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm,
                    BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
                    num_stages=stages)
            best_of(name, impl, [x for x in configs if x[0] >= min(M, 16)
                                 and (M >= 64 or x[0] == 16)],
                    run, flops, c, want)
        ms = bench.gpu_time_ms(lambda: torch.matmul(a, b), reps=50)
        ROWS.append((name, "cuBLAS", ms, flops / ms / 1e9, ""))


def per_call_us(fn, calls=500):
    """Wall time per call of back-to-back calls from Python, launch
    included (median of 5 batches)."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t) / calls * 1e6)
    return sorted(samples)[2]


def bench_small(sizes=(256, 512, 1024)):
    mods = {name: bench.load(name) for name in ("tile", "triton")}
    configs = [(64, 64, 64, 4, 3), (64, 128, 64, 4, 3), (128, 128, 64, 8, 3)]
    for size in sizes:
        M = N = K = size
        name = "fp16 %d^3 per call" % size
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        want = a.double() @ b.double()
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        flops = 2.0 * M * N * K
        for impl, m in mods.items():
            best = None
            for bm, bn, bk, warps, stages in configs:
                grid = (cdiv(M, bm) * cdiv(N, bn),)

                def run(m=m, grid=grid, bm=bm, bn=bn, bk=bk, warps=warps,
                        stages=stages):
                    m.matmul_kernel[grid](
                        a, b, c, M, N, K, a.stride(0), a.stride(1),
                        b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                        num_warps=warps, num_stages=stages)
                c.fill_(float("nan"))
                run()
                torch.cuda.synchronize()
                check("%s %s" % (name, impl), c, want)
                us = per_call_us(run)
                if best is None or us < best[0]:
                    best = (us, (bm, bn, bk, warps, stages))
            ROWS.append((name, impl, best[0] / 1e3, flops / best[0] / 1e6,
                         "%dx%dx%d/%dw/%ds" % best[1]))
        us = per_call_us(lambda: torch.matmul(a, b))
        ROWS.append((name, "torch.matmul", us / 1e3, flops / us / 1e6, ""))


def main():
    sections = os.environ.get("BENCH_INFERENCE",
                              "int4 fp8 fp8more small skinny").split()
    mods = {name: bench.load(name, "inference_src.py")
            for name in ("tile", "triton")}
    print(torch.cuda.get_device_name())
    try:
        if "int4" in sections:
            bench_int4(mods)
        else:
            if "int4large" in sections:
                bench_int4(mods, shapes=((4096, 8192, 8192),))
            if "int4decode" in sections:
                bench_int4(mods, shapes=((16, 8192, 8192),))
        if "fp8" in sections:
            bench_fp8(mods)
        if "fp8more" in sections:
            bench_fp8(mods, sizes=(8192,), dtype=torch.float8_e5m2)
            bench_fp8_block_scaled(mods)
        if "small" in sections:
            bench_small()
        if "skinny" in sections:
            bench_skinny()
    finally:
        print_table()


def print_table():
    print("%-34s %-16s %10s %8s  %s" % ("GEMM", "impl", "ms", "TFLOPS",
                                        "best config"))
    for name, impl, ms, tflops, note in ROWS:
        print("%-34s %-16s %10.4f %8.1f  %s" % (name, impl, ms, tflops, note))


if __name__ == "__main__":
    main()
