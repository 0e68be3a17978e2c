"""flash-linear-attention (`fla-core` on PyPI, Triton kernels) under tile or
Triton: chunked and recurrent linear-attention ops, forward and backward,
on the GPU, against fla's own naive recurrences.

    FLA_DIR=DIR python3 fla_check.py triton OUT.pt
    FLA_DIR=DIR python3 fla_check.py tile OUT.pt TRITON_OUT.pt

DIR holds the unpacked `fla-core` and `einops` wheels (`pip download
fla-core einops --no-deps`, then unzip); nothing of them is kept in this
repository. fla 0.6.0 refuses its gated chunk backward under Triton 3.4 to
3.7.0 on Hopper (its issue #640: that Triton compiles `chunk_bwd_dqkwg`
wrongly there), so on an H100 those ops fail in Triton's column and are
checked against the naive recurrences only. FLA_OPS="a b" picks ops
(library_check.py has the shared harness)."""
import os
import sys
import time

import library_check as lc
from library_check import gen

import torch
import torch.nn.functional as F

sys.path.insert(0, os.environ.get("FLA_DIR", os.path.join(lc.HERE, "fla")))
t0 = time.time()
import fla.ops as FO  # noqa: E402
from fla.ops.gated_delta_rule.naive import \
    naive_recurrent_gated_delta_rule  # noqa: E402
from fla.ops.gla.naive import naive_recurrent_gla  # noqa: E402
from fla.ops.linear_attn.naive import naive_recurrent_linear_attn  # noqa: E402
from fla.ops.simple_gla.naive import naive_recurrent_simple_gla  # noqa: E402
print("import fla: %.1f s" % (time.time() - t0))

B, T, H, D = (1, 130, 2, 128) if lc.SMALL else (2, 1024, 4, 128)


def ops():
    """name -> (make inputs, fla call, naive reference); the calls return
    the output and the final state."""
    bf = torch.bfloat16
    L = {}

    def qkv(seed):
        return [gen((B, T, H, D), bf, seed + i, 0.5) for i in range(3)]

    def unit_keys(seed):
        k = gen((B, T, H, D), torch.float32, seed, grad=False)
        return F.normalize(k, p=2, dim=-1).to(bf).requires_grad_()

    def log_gate(shape, seed):
        x = gen(shape, torch.float32, seed, grad=False)
        return (F.logsigmoid(x) / 16).requires_grad_()

    def beta(seed):
        x = gen((B, T, H), torch.float32, seed, grad=False)
        return torch.sigmoid(x).to(bf).requires_grad_()

    L["chunk_simple_gla"] = (
        lambda: qkv(1) + [log_gate((B, T, H), 4)],
        lambda q, k, v, g: FO.chunk_simple_gla(q, k, v, g=g,
                                               output_final_state=True),
        lambda q, k, v, g: naive_recurrent_simple_gla(
            q, k, v, g, output_final_state=True))
    L["chunk_gla"] = (
        lambda: qkv(5) + [log_gate((B, T, H, D), 8)],
        lambda q, k, v, g: FO.chunk_gla(q, k, v, g, output_final_state=True),
        lambda q, k, v, g: naive_recurrent_gla(q, k, v, g,
                                               output_final_state=True))
    L["fused_recurrent_gla"] = (
        lambda: qkv(9) + [log_gate((B, T, H, D), 12)],
        lambda q, k, v, g: FO.fused_recurrent_gla(q, k, v, gk=g,
                                                  output_final_state=True),
        lambda q, k, v, g: naive_recurrent_gla(q, k, v, g,
                                               output_final_state=True))
    L["chunk_linear_attn"] = (
        lambda: qkv(13),
        lambda q, k, v: FO.chunk_linear_attn(q, k, v, normalize=False,
                                             output_final_state=True),
        lambda q, k, v: naive_recurrent_linear_attn(q, k, v,
                                                    output_final_state=True))
    L["chunk_delta_rule"] = (
        lambda: [gen((B, T, H, D), bf, 16, 0.5), unit_keys(17),
                 gen((B, T, H, D), bf, 18, 0.5), beta(19)],
        lambda q, k, v, b: FO.chunk_delta_rule(q, k, v, b,
                                               output_final_state=True),
        lambda q, k, v, b: naive_recurrent_gated_delta_rule(
            q, k, v, b, torch.zeros(b.shape, device=b.device),
            output_final_state=True))
    L["chunk_gated_delta_rule"] = (
        lambda: [gen((B, T, H, D), bf, 20, 0.5), unit_keys(21),
                 gen((B, T, H, D), bf, 22, 0.5), log_gate((B, T, H), 23),
                 beta(24)],
        lambda q, k, v, g, b: FO.chunk_gated_delta_rule(
            q, k, v, g, b, output_final_state=True),
        lambda q, k, v, g, b: naive_recurrent_gated_delta_rule(
            q, k, v, b, g, output_final_state=True))
    return L


lc.main(ops, "FLA_OPS")
