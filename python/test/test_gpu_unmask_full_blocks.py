"""tilegpu-unmask-full-blocks on the GPU: a loop's boundary-mask select runs
unmasked only where a scalar condition proves the whole mask true. Each
kernel here takes the branch on some iterations and not on others, and the
32-bit key arithmetic wraps in one case (where the exact bounds would call
the mask full): the sums must match numpy's int32 arithmetic exactly. Fresh
random data each test; outputs poisoned first."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402

pytestmark = pytest.mark.gpu

BLOCK = 128


@tile.jit
def masked_block_sums(X, Out, n, base, limit, STRIDE: tl.constexpr,
                      BLOCK: tl.constexpr):
    # keys = base + s + STRIDE * i: a full block when its last key is
    # below limit; with a negative stride the keys may wrap below -2^31.
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, n, BLOCK):
        x = tl.load(X + s + offs)
        keys = base + s + offs * STRIDE
        acc += tl.where(keys < limit, x, 0.0)
    tl.store(Out + offs, acc)


def reference(x, n, base, limit, stride):
    offs = np.arange(BLOCK, dtype=np.int64)
    acc = np.zeros(BLOCK, np.float64)
    for s in range(0, n, BLOCK):
        keys = (base + s + offs * stride + 2**31) % 2**32 - 2**31  # int32
        acc += np.where(keys < limit, x[s:s + BLOCK], 0.0)
    return acc


@pytest.mark.parametrize("base, limit, stride", [
    (0, 5 * BLOCK // 2, 1),        # two full blocks, a partial, an empty
    (1000, 1000 + 3 * BLOCK, 2),   # a product in the keys
    (-2**31 + 100, 0, -3),         # keys wrap past -2^31 in block 0
])
def test_sums_match_int32_semantics(base, limit, stride):
    n = 4 * BLOCK
    x = torch.randn(n, device="cuda", dtype=torch.float32)
    out = torch.full((BLOCK,), float("nan"), device="cuda")
    masked_block_sums[(1,)](x, out, n, base, limit, STRIDE=stride,
                            BLOCK=BLOCK)
    want = reference(x.double().cpu().numpy(), n, base, limit, stride)
    np.testing.assert_allclose(out.cpu().numpy(), want, rtol=1e-5, atol=1e-5)


def test_the_branch_is_there():
    compiled = tile.compile(masked_block_sums,
                            {"X": "*fp32", "Out": "*fp32", "n": "i32",
                             "base": "i32", "limit": "i32"},
                            dict(STRIDE=1, BLOCK=BLOCK), num_warps=4)
    assert "scf.if" in compiled.asm["tilegpu"]
