"""mamba-ssm's Triton kernels (`mamba-ssm` on PyPI, Mamba-2's SSD scan and
its norms) under tile or Triton: forward and backward on the GPU against
mamba's own reference implementations (run in float64 where they allow).

    MAMBA_DIR=DIR python3 mamba_check.py triton OUT.pt
    MAMBA_DIR=DIR python3 mamba_check.py tile OUT.pt TRITON_OUT.pt

DIR holds the unpacked `mamba-ssm` sdist (its package has CUDA extensions
that need building; only `mamba_ssm.ops.triton` is used here, so the
package's own __init__, which imports them, is skipped) and `einops`;
nothing of them is kept in this repository. MAMBA_OPS="a b" picks ops
(library_check.py has the shared harness)."""
import time

import library_check as lc
from library_check import gen

import torch  # noqa: E402

lc.package_without_init("mamba_ssm", "MAMBA_DIR", "mamba")
t0 = time.time()
from mamba_ssm.ops.triton import layer_norm as LN  # noqa: E402
from mamba_ssm.ops.triton import layernorm_gated as LG  # noqa: E402
from mamba_ssm.ops.triton import selective_state_update as SSU  # noqa: E402
from mamba_ssm.ops.triton import ssd_combined as SSD  # noqa: E402
print("import mamba_ssm.ops.triton: %.1f s" % (time.time() - t0))

DEV = lc.DEV


def ops():
    bf, f32 = torch.bfloat16, torch.float32
    L = {}
    batch, seqlen, heads, headdim, groups, dstate = \
        (1, 192, 2, 64, 1, 32) if lc.SMALL else (2, 1024, 8, 64, 1, 128)

    def negative(shape, seed):
        a = gen(shape, f32, seed, grad=False)
        return (-(a.abs() + 1.0)).requires_grad_()

    def ssd_inputs(seed):
        x = gen((batch, seqlen, heads, headdim), bf, seed)
        dt = gen((batch, seqlen, heads), f32, seed + 1, 0.5, -2.0)
        A = negative((heads,), seed + 2)
        B = gen((batch, seqlen, groups, dstate), bf, seed + 3, 0.3)
        C = gen((batch, seqlen, groups, dstate), bf, seed + 4, 0.3)
        D = gen((heads,), f32, seed + 5)
        z = gen((batch, seqlen, heads, headdim), bf, seed + 6)
        dt_bias = gen((heads,), f32, seed + 7, 0.1)
        return [x, dt, A, B, C, D, z, dt_bias]

    L["mamba_chunk_scan_combined"] = (
        lambda: ssd_inputs(1),
        lambda x, dt, A, B, C, D, z, dt_bias: SSD.mamba_chunk_scan_combined(
            x, dt, A, B, C, 64, D=D, z=z, dt_bias=dt_bias, dt_softplus=True),
        lambda x, dt, A, B, C, D, z, dt_bias: SSD.ssd_chunk_scan_combined_ref(
            x, dt, A, B, C, 64, D=D, z=z, dt_bias=dt_bias, dt_softplus=True))

    rows, width = (64, 1024) if lc.SMALL else (4096, 2048)

    def norm_inputs(seed, gated):
        x = gen((rows, width), bf, seed)
        w = gen((width,), f32, seed + 1, 0.1, 1.0)
        b = gen((width,), f32, seed + 2, 0.1)
        extra = gen((rows, width), bf, seed + 3)
        return [x, w, b, extra]

    L["rmsnorm_gated"] = (
        lambda: norm_inputs(10, True),
        lambda x, w, b, z: LG.rmsnorm_fn(x, w, b, z=z, group_size=512,
                                         norm_before_gate=False),
        lambda x, w, b, z: LG.rms_norm_ref(x, w, b, z=z, group_size=512,
                                           norm_before_gate=False))
    L["layernorm_gated"] = (
        lambda: norm_inputs(14, True),
        lambda x, w, b, z: LG.layernorm_fn(x, w, b, z=z),
        None)
    for kind, seed in (("layer", 18), ("rms", 22)):
        fn, ref = getattr(LN, kind + "_norm_fn"), getattr(LN, kind + "_norm_ref")
        L[kind + "_norm_residual"] = (
            lambda seed=seed: norm_inputs(seed, False),
            lambda x, w, b, r, fn=fn: fn(x, w, b, residual=r, prenorm=True,
                                         residual_in_fp32=True),
            lambda x, w, b, r, ref=ref: ref(x, w, b, residual=r, prenorm=True,
                                            upcast=True))

    def step_inputs(seed):
        n = 2 if lc.SMALL else 16
        state = gen((n, heads, headdim, dstate), f32, seed, grad=False)
        x = gen((n, heads, headdim), bf, seed + 1, grad=False)
        dt = gen((n, heads, headdim), bf, seed + 2, 0.5, -2.0, grad=False)
        A = negative((heads, headdim, dstate), seed + 3).detach()
        B = gen((n, groups, dstate), bf, seed + 4, grad=False)
        C = gen((n, groups, dstate), bf, seed + 5, grad=False)
        D = gen((heads, headdim), f32, seed + 6, grad=False)
        z = gen((n, heads, headdim), bf, seed + 7, grad=False)
        dt_bias = gen((heads, headdim), f32, seed + 8, 0.1, grad=False)
        return [state, x, dt, A, B, C, D, z, dt_bias]

    def stepped(fn):
        # The update writes the state in place: both results are compared.
        def call(state, *rest):
            out = fn(state, *rest, dt_softplus=True)
            return out, state
        return call

    def named(fn):
        return lambda state, x, dt, A, B, C, D, z, dt_bias, dt_softplus: fn(
            state, x, dt, A, B, C, D=D, z=z, dt_bias=dt_bias,
            dt_softplus=dt_softplus)

    L["selective_state_update"] = (
        lambda: step_inputs(30),
        stepped(named(SSU.selective_state_update)),
        stepped(named(SSU.selective_state_update_ref)))
    return L


lc.main(ops, "MAMBA_OPS")
