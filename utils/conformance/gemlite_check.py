"""gemlite (`gemlite` on PyPI: Triton GEMM and GEMV kernels over packed
low-bit weights, HQQ's format) under tile or Triton: each of its matmul
kernels on 8-bit and 4-bit weights with 128-wide groups, against the
dequantized product in float64.

    GEMLITE_DIR=DIR python3 gemlite_check.py triton OUT.pt
    GEMLITE_DIR=DIR python3 gemlite_check.py tile OUT.pt TRITON_OUT.pt

DIR holds the unpacked `gemlite` sdist; nothing of it is kept in this
repository. GEMLITE_OPS="a b" picks ops (library_check.py has the shared
harness)."""
import os
import sys
import time

import library_check as lc
from library_check import gen

import torch  # noqa: E402

sys.path.insert(0, os.environ.get("GEMLITE_DIR",
                                  os.path.join(lc.HERE, "gemlite")))
t0 = time.time()
import gemlite  # noqa: E402
from gemlite import DType, GemLiteLinear  # noqa: E402
print("import gemlite: %.1f s" % (time.time() - t0))

GROUP = 128


def ops():
    L = {}
    # K stays above the largest BLOCK_K * SPLIT_K of the configs (512):
    # below it the split-K kernel reads scales past their end.
    k_in, n_out = (1024, 256) if lc.SMALL else (4096, 4096)

    def quantized(bits, seed):
        g = torch.Generator(device=lc.DEV).manual_seed(seed)
        w_q = torch.randint(0, 2 ** bits, (n_out, k_in), generator=g,
                            device=lc.DEV, dtype=torch.uint8)
        scales = (gen((n_out, k_in // GROUP), torch.float32, seed + 1, grad=False)
                  .abs() * 0.01 + 0.001).half()
        zeros = torch.full((n_out, k_in // GROUP), 2 ** (bits - 1) - 0.5,
                           device=lc.DEV, dtype=torch.float16)
        return w_q, scales, zeros

    def layer(bits, seed):
        w_q, scales, zeros = quantized(bits, seed)
        linear = GemLiteLinear(bits, group_size=GROUP, in_features=k_in,
                               out_features=n_out, input_dtype=DType.FP16,
                               output_dtype=DType.FP16)
        linear.pack(w_q, scales, zeros, None)
        w = ((w_q.double().view(n_out, -1, GROUP) - zeros.double()[..., None])
             * scales.double()[..., None]).view(n_out, k_in)
        return linear, w

    for bits in (8, 4):
        for kind, rows in (("GEMM", 64), ("GEMM_SPLITK", 64), ("GEMV", 1),
                           ("GEMV_SPLITK", 1), ("GEMV_REVSPLITK", 1)):
            if kind == "GEMV_REVSPLITK" and bits == 8:
                continue  # gemlite picks it for < 8 bits only
            holder = {}

            def make(bits=bits, rows=rows, holder=holder, seed=bits * 10):
                holder["layer"], holder["w"] = layer(bits, seed)
                return [gen((rows, k_in), torch.float16, seed + 5, grad=False)]

            L["%s_w%d" % (kind.lower(), bits)] = (
                make,
                lambda x, kind=kind, holder=holder:
                    holder["layer"].forward_manual(x, kind),
                lambda x, holder=holder: x @ holder["w"].t())
    return L


lc.main(ops, "GEMLITE_OPS")
