"""flash-attn's Triton ops (`flash-attn` on PyPI: `flash_attn.ops.triton`,
the rotary embedding, layer/RMS norm with residual and the cross-entropy
used by its training scripts) under tile or Triton, forward and backward,
against flash-attn's own torch references in float64.

    FLASH_ATTN_DIR=DIR python3 flash_attn_check.py triton OUT.pt
    FLASH_ATTN_DIR=DIR python3 flash_attn_check.py tile OUT.pt TRITON_OUT.pt

DIR holds the unpacked `flash-attn` sdist and `einops`; the package's
__init__ (which loads the compiled attention kernels) is skipped, as only
the Triton ops are checked. FLASH_ATTN_OPS="a b" picks ops
(library_check.py has the shared harness)."""
import time

import library_check as lc
from library_check import gen

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

lc.package_without_init("flash_attn", "FLASH_ATTN_DIR", "flash_attn")
t0 = time.time()
from flash_attn.layers import rotary as R  # noqa: E402
from flash_attn.ops.triton import cross_entropy as CE  # noqa: E402
from flash_attn.ops.triton import layer_norm as LN  # noqa: E402
print("import flash_attn.ops.triton: %.1f s" % (time.time() - t0))


def ops():
    bf = torch.bfloat16
    L = {}
    batch, seqlen, heads, headdim = (1, 70, 2, 64) if lc.SMALL else \
        (4, 2048, 16, 128)

    def rotary_inputs(seed):
        x = gen((batch, seqlen, heads, headdim), bf, seed)
        angle = gen((seqlen, headdim // 2), torch.float32, seed + 1,
                    grad=False) * 3
        return [x, angle.cos().to(bf), angle.sin().to(bf)]

    for interleaved in (False, True):
        L["rotary" + ("_interleaved" if interleaved else "")] = (
            lambda s=interleaved: rotary_inputs(1 + s),
            lambda x, c, s, i=interleaved: R.apply_rotary_emb(
                x, c, s, interleaved=i),
            lambda x, c, s, i=interleaved: R.apply_rotary_emb_torch(
                x, c, s, interleaved=i))

    rows, width = (64, 1000) if lc.SMALL else (8192, 4096)

    def norm_inputs(seed):
        return [gen((rows, width), bf, seed), gen((width,), torch.float32,
                                                  seed + 1, 0.1, 1.0),
                gen((width,), torch.float32, seed + 2, 0.1),
                gen((rows, width), bf, seed + 3)]

    L["layer_norm_residual"] = (
        lambda: norm_inputs(10),
        lambda x, w, b, r: LN.layer_norm_fn(x, w, b, residual=r, prenorm=True,
                                            residual_in_fp32=True),
        lambda x, w, b, r: LN.layer_norm_ref(x, w, b, residual=r,
                                             prenorm=True, upcast=True))
    L["rms_norm_residual"] = (
        lambda: norm_inputs(14),
        lambda x, w, b, r: LN.rms_norm_fn(x, w, b, residual=r, prenorm=True,
                                          residual_in_fp32=True),
        lambda x, w, b, r: LN.rms_norm_ref(x, w, b, residual=r, prenorm=True,
                                           upcast=True))

    tokens, vocab = (32, 3000) if lc.SMALL else (8192, 128256)

    def ce_inputs(seed):
        logits = gen((tokens, vocab), bf, seed, 2.0)
        g = torch.Generator(device=lc.DEV).manual_seed(seed + 1)
        labels = torch.randint(0, vocab, (tokens,), generator=g,
                               device=lc.DEV)
        labels[::7] = -100  # ignored tokens
        return [logits, labels]

    L["cross_entropy_smoothed"] = (
        lambda: ce_inputs(20),
        lambda z, y: CE.cross_entropy_loss(z, y, label_smoothing=0.1)[0],
        lambda z, y: F.cross_entropy(z, y, label_smoothing=0.1,
                                     reduction="none", ignore_index=-100))
    return L


lc.main(ops, "FLASH_ATTN_OPS")
