"""Liger-Kernel (a Triton kernel library on PyPI) under tile or Triton:
its training ops, forward and backward, on the GPU.

    LIGER_KERNEL_DIR=DIR python3 liger_check.py triton OUT.pt
    LIGER_KERNEL_DIR=DIR python3 liger_check.py tile OUT.pt TRITON_OUT.pt

DIR holds the unpacked wheel (`pip download liger-kernel --no-deps`, then
unzip; plus `packaging` where the host lacks it); nothing of it is kept in
this repository. Each op's outputs and input gradients are checked against
a float64 torch reference where one is written here and, under tile,
against Triton's saved results; then forward + backward is timed (median of
event-timed calls, host work included). LIGER_OPS="a b" picks ops
(library_check.py has the shared harness)."""
import os
import sys
import time

import library_check as lc
from library_check import gen

import torch
import torch.nn.functional as F

sys.path.insert(0, os.environ.get("LIGER_KERNEL_DIR",
                                  os.path.join(lc.HERE, "liger")))
t0 = time.time()
import liger_kernel.transformers.functional as LF  # noqa: E402
print("import liger_kernel: %.1f s" % (time.time() - t0))


def rope_ref(q, k, cos, sin):
    def rot(x):
        h = x.shape[-1] // 2
        return torch.cat((-x[..., h:], x[..., :h]), dim=-1)
    c, s = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * c + rot(q) * s, k * c + rot(k) * s


def rms_ref(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def sparsemax_ref(x):
    z, _ = torch.sort(x, dim=-1, descending=True)
    k = torch.arange(1, x.shape[-1] + 1, device=x.device, dtype=x.dtype)
    cs = z.cumsum(-1)
    support = (1 + k * z) > cs
    kz = support.sum(-1, keepdim=True)
    tau = (cs.gather(-1, kz - 1) - 1) / kz.to(x.dtype)
    return torch.clamp(x - tau, min=0)


B_T, H = 4096, 4096
V = 32000


def ops():
    """name -> (make inputs, liger call, reference call or None); calls take
    the inputs and return a tensor or a tuple of tensors."""
    bf = torch.bfloat16
    L = {}
    L["rms_norm"] = (
        lambda: [gen((B_T, H), bf, 1), gen((H,), bf, 2, 0.1, 1.0)],
        lambda x, w: LF.liger_rms_norm(x, w, 1e-6),
        lambda x, w: rms_ref(x, w, 1e-6))
    L["layer_norm"] = (
        lambda: [gen((B_T, H), bf, 3), gen((H,), bf, 4, 0.1, 1.0),
                 gen((H,), bf, 5, 0.1)],
        lambda x, w, b: LF.liger_layer_norm(x, w, b, 1e-6),
        lambda x, w, b: F.layer_norm(x, (H,), w, b, 1e-6))
    L["fused_add_rms_norm"] = (
        lambda: [gen((B_T, H), bf, 6), gen((B_T, H), bf, 7),
                 gen((H,), bf, 8, 0.1, 1.0)],
        lambda x, r, w: LF.liger_fused_add_rms_norm(x, r, w, 1e-6,
                                                    in_place=False),
        lambda x, r, w: (rms_ref(x + r, w, 1e-6), x + r))
    L["swiglu"] = (
        lambda: [gen((B_T, 11008), bf, 9), gen((B_T, 11008), bf, 10)],
        lambda a, b: LF.liger_swiglu(a, b),
        lambda a, b: F.silu(a) * b)
    L["geglu"] = (
        lambda: [gen((B_T, 11008), bf, 11), gen((B_T, 11008), bf, 12)],
        lambda a, b: LF.liger_geglu(a, b),
        lambda a, b: F.gelu(a, approximate="tanh") * b)
    L["relu_squared"] = (
        lambda: [gen((B_T, 11008), bf, 13)],
        lambda x: LF.liger_relu_squared(x),
        lambda x: F.relu(x) ** 2)
    L["dyt"] = (
        lambda: [gen((B_T, H), bf, 14), gen((1,), bf, 15, 0.1, 0.5),
                 gen((H,), bf, 16, 0.1, 1.0), gen((H,), bf, 17, 0.1)],
        lambda x, a, g, b: LF.liger_dyt(x, a, g, b),
        lambda x, a, g, b: g * torch.tanh(a * x) + b)
    L["softmax"] = (
        lambda: [gen((B_T, 8192), bf, 18)],
        lambda x: LF.liger_softmax(x),
        lambda x: torch.softmax(x, -1))
    L["sparsemax"] = (
        lambda: [gen((1024, 1000), torch.float32, 19)],
        lambda x: LF.liger_sparsemax(x, -1),
        lambda x: sparsemax_ref(x))
    L["group_norm"] = (
        lambda: [gen((16, 256, 1024), torch.float32, 20),
                 gen((256,), torch.float32, 21, 0.1, 1.0),
                 gen((256,), torch.float32, 22, 0.1)],
        lambda x, w, b: LF.liger_group_norm(x, w, b, 256, 32, 1e-6),
        lambda x, w, b: F.group_norm(x, 32, w, b, 1e-6))
    def halves(seed):
        # HF's cos/sin repeat their first half (one frequency per pair).
        h = gen((1, 1024, 64), bf, seed, grad=False)
        return torch.cat((h, h), dim=-1)
    L["rope"] = (
        lambda: [gen((4, 32, 1024, 128), bf, 23), gen((4, 8, 1024, 128), bf, 24),
                 halves(25), halves(26)],
        lambda q, k, c, s: LF.liger_rope(q, k, c, s),
        lambda q, k, c, s: rope_ref(q, k, c, s))

    def targets(seed, n=B_T):
        g = torch.Generator(device=lc.DEV).manual_seed(seed)
        t = torch.randint(0, V, (n,), generator=g, device=lc.DEV)
        t[::97] = -100  # ignored tokens
        return t
    L["cross_entropy"] = (
        lambda: [gen((B_T, V), bf, 27, 3.0), targets(28)],
        lambda x, t: LF.liger_cross_entropy(x, t),
        lambda x, t: F.cross_entropy(x, t, ignore_index=-100))
    L["fused_linear_cross_entropy"] = (
        lambda: [gen((B_T, 2048), bf, 29), gen((V, 2048), bf, 30, 0.02),
                 targets(31)],
        lambda x, w, t: LF.liger_fused_linear_cross_entropy(x, w, t),
        lambda x, w, t: F.cross_entropy(x @ w.t(), t, ignore_index=-100))

    def logp(seed, n=1024, v=32000):
        return torch.log_softmax(gen((n, v), torch.float32, seed, 2.0,
                                     grad=False), -1)
    L["kl_div"] = (
        lambda: [logp(32).requires_grad_(), logp(33).exp()],
        lambda x, y: LF.liger_kl_div(x, y, reduction="batchmean"),
        lambda x, y: F.kl_div(x, y, reduction="batchmean"))
    L["jsd"] = (
        lambda: [logp(34).requires_grad_(), logp(35)],
        lambda x, y: LF.liger_jsd(x, y),
        None)
    L["tvd"] = (
        lambda: [logp(36).exp().requires_grad_(), logp(37).exp()],
        lambda p, q: LF.liger_tvd(p, q),
        None)
    L["poly_norm"] = (
        lambda: [gen((B_T, H), bf, 38), gen((3,), bf, 39, 0.1, 0.3),
                 gen((), bf, 40, 0.1)],
        lambda x, w, b: LF.liger_poly_norm(x, w, b, 1e-6, in_place=False),
        lambda x, w, b: sum(w[i] * rms_ref(x ** (3 - i), 1.0, 1e-6)
                            for i in range(3)) + b)
    return L



lc.main(ops, "LIGER_OPS")
