"""Lightning Attention-2 (`lightning-attn` on PyPI: linear attention with
exponential decay in Triton, as MiniMax's models use it) under tile or
Triton, forward and backward, against the package's own torch
implementation (`linear_attn`) in float64.

    LIGHTNING_DIR=DIR python3 lightning_check.py triton OUT.pt
    LIGHTNING_DIR=DIR python3 lightning_check.py tile OUT.pt TRITON_OUT.pt

DIR holds the unpacked wheel; nothing of it is kept in this repository.
LIGHTNING_OPS="a b" picks ops (library_check.py has the shared harness)."""
import os
import sys
import time

import library_check as lc
from library_check import gen

import torch  # noqa: E402

sys.path.insert(0, os.environ.get("LIGHTNING_DIR",
                                  os.path.join(lc.HERE, "lightning")))
t0 = time.time()
from lightning_attn.ops import linear_attn  # noqa: E402
from lightning_attn.ops.triton import (lightning_attn2,  # noqa: E402
                                       lightning_attn2_no_decay)
from lightning_attn.utils import _build_slope_tensor  # noqa: E402
print("import lightning_attn: %.1f s" % (time.time() - t0))


def ops():
    bf = torch.bfloat16
    L = {}
    # The reference materialises (b, h, n, n) in float64: n stays modest.
    b, h, n, d = (1, 2, 130, 64) if lc.SMALL else (1, 8, 2048, 128)

    def qkv(seed):
        return [gen((b, h, n, d), bf, seed + i, 0.3) for i in range(3)]

    def decayed(q, k, v):
        slopes = _build_slope_tensor(h).to(device=q.device,
                                           dtype=torch.float32)
        return lightning_attn2(q, k, v, slopes)

    def decayed_reference(q, k, v):
        slopes = _build_slope_tensor(h).to(device=q.device,
                                           dtype=torch.float64)
        return linear_attn(q, k, v, slopes.flatten())

    L["lightning_attn2"] = (lambda: qkv(1), decayed, decayed_reference)
    L["lightning_attn2_no_decay"] = (
        lambda: qkv(5), lambda q, k, v: lightning_attn2_no_decay(q, k, v),
        lambda q, k, v: linear_attn(q, k, v))
    return L


lc.main(ops, "LIGHTNING_OPS")
