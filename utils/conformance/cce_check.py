"""Apple's Cut Cross-Entropy (`cut-cross-entropy` on PyPI: the language-model
head's matmul and cross-entropy fused, the logits never materialised) under
tile or Triton, forward and backward, against torch's matmul + cross-entropy
in float64.

    CCE_DIR=DIR python3 cce_check.py triton OUT.pt
    CCE_DIR=DIR python3 cce_check.py tile OUT.pt TRITON_OUT.pt

DIR holds the unpacked wheel; nothing of it is kept in this repository.
CCE_OPS="a b" picks ops (library_check.py has the shared harness)."""
import os
import sys
import time

import library_check as lc
from library_check import gen

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.environ.get("CCE_DIR", os.path.join(lc.HERE, "cce")))
t0 = time.time()
from cut_cross_entropy import linear_cross_entropy  # noqa: E402
print("import cut_cross_entropy: %.1f s" % (time.time() - t0))


def ops():
    bf = torch.bfloat16
    L = {}
    tokens, hidden, vocab = (40, 64, 1000) if lc.SMALL else \
        (4096, 2048, 128256)

    def inputs(seed):
        e = gen((tokens, hidden), bf, seed, 0.5)
        c = gen((vocab, hidden), bf, seed + 1, 0.05)
        g = torch.Generator(device=lc.DEV).manual_seed(seed + 2)
        y = torch.randint(0, vocab, (tokens,), generator=g, device=lc.DEV)
        y[::5] = -100  # ignored tokens
        return [e, c, y]

    def reference(softcap):
        def ref(e, c, y):
            logits = e @ c.T
            if softcap is not None:
                logits = softcap * torch.tanh(logits / softcap)
            return F.cross_entropy(logits, y, ignore_index=-100,
                                   reduction="none")
        return ref

    for softcap in (None, 30.0):
        name = "cce" + ("_softcap" if softcap else "")
        # The gradient filter skips blocks whose softmax is below bf16's
        # resolution; "none" here keeps the comparison exact in its terms.
        L[name] = (
            lambda s=softcap: inputs(3 if s is None else 7),
            lambda e, c, y, s=softcap: linear_cross_entropy(
                e, c, y, softcap=s, reduction="none", filter_eps=None),
            reference(softcap))
    return L


lc.main(ops, "CCE_OPS")
