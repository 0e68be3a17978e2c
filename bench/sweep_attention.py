"""Block configs of the benchmark's attention kernel under tile and Triton,
in one run: TFLOPS of each (same source, same config for both), and each
compiler's best. `python3 bench/sweep_attention.py` on a GPU host."""

import itertools
import os
import sys

import torch

import bench

CONFIGS = [  # (BLOCK_M, BLOCK_N, num_warps, num_stages)
    (128, 64, 8, 3), (128, 64, 8, 2), (128, 128, 8, 2), (128, 128, 8, 3),
    (128, 64, 4, 3), (128, 32, 8, 3), (64, 64, 4, 3), (64, 128, 4, 3),
]
KERNELS = [  # (kernel, row label suffix, extra constexprs)
    ("attention_fwd_kernel", "", {}),
    ("attention_fwd_overlap_kernel", "/ovl", {}),
    ("attention_fwd_tma_kernel", "/tma", {}),
    ("attention_fwd_tma_kernel", "/ws", {"WARP_SPECIALIZE": True}),
    ("attention_fwd_tma_overlap_kernel", "/ovl-ws", {"WARP_SPECIALIZE": True}),
]


def main(batch_heads=128, seq_len=4096, head_dim=128):
    # IMPLS="tile" runs one compiler only (under a profiler, say).
    impls = os.environ.get("IMPLS", "tile triton").split()
    mods = {name: bench.load(name) for name in impls}
    q, k, v, scale, ref, flops = bench.attention_problem(batch_heads, seq_len,
                                                         head_dim)
    shape = q.shape
    best = {}
    print("%-22s %-7s %8s" % ("BM,BN,warps,stages", "impl", "TFLOPS"))
    # SWEEP="/tma /ws" limits the sweep to those kernels.
    wanted = os.environ.get("SWEEP", "").split()
    kernels = [k for k in KERNELS if not wanted or (k[1] or "/ptr") in wanted]
    # CONFIGS="128,128,8,2 128,64,8,3" limits the block configs.
    configs = [tuple(int(x) for x in c.split(","))
               for c in os.environ.get("CONFIGS", "").split()] or CONFIGS
    for (kernel_name, suffix, extra), (bm, bn, warps, stages), (name, m) in \
            itertools.product(kernels, configs, mods.items()):
        name = name + suffix
        out = torch.full(shape, float("nan"), device="cuda", dtype=torch.float16)
        grid = ((seq_len + bm - 1) // bm, batch_heads)

        kernel = getattr(m, kernel_name)
        config = dict(BLOCK_M=bm, BLOCK_N=bn, HEAD_DIM=head_dim,
                      num_warps=warps, num_stages=stages, **extra)
        if kernel_name.startswith("attention_fwd_tma"):
            descs = bench.attention_descriptors(m, q, k, v, out, bm, bn)

            def run():
                kernel[grid](*descs, scale, seq_len, **config)
        else:
            def run():
                kernel[grid](q, k, v, out, scale, head_dim, head_dim, head_dim,
                             head_dim, seq_len, **config)
        try:
            run()
            torch.cuda.synchronize()
        except Exception as e:  # a config one compiler cannot build
            print("%-22s %-7s %8s  (%s)" % ((bm, bn, warps, stages), name, "-",
                                            str(e).splitlines()[0][:60]))
            continue
        err = ((out.float() - ref).norm() / ref.norm()).item()
        tflops = flops / bench.gpu_time_ms(run, reps=20) / 1e9
        ok = err < 1e-2
        print("%-22s %-7s %8.1f%s" % ((bm, bn, warps, stages), name, tflops,
                                      "" if ok else "  WRONG (rel err %.1e)" % err))
        if ok and tflops > best.get(name, (0,))[0]:
            best[name] = (tflops, (bm, bn, warps, stages))
    ms = bench.gpu_time_ms(lambda: bench.sdpa(q, k, v, scale), reps=20)
    for name, (tflops, config) in sorted(best.items()):
        print("best %-7s %8.1f at %s" % (name, tflops, config))
    print("torch SDPA %8.1f" % (flops / ms / 1e9))
    return 0


if __name__ == "__main__":
    sys.exit(main())
