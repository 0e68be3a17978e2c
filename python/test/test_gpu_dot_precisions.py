"""float32 tl.dot input precisions on the GPU against float64: the split
products (tf32x3, bf16x3, bf16x6) are far closer than one tf32 product."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402
from gpu_checks import rel_err  # noqa: E402


@tile.jit
def block_dot(a, b, c, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
              PRECISION: tl.constexpr):
    x = tl.load(a + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    y = tl.load(b + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    z = tl.dot(x, y, input_precision=PRECISION)
    tl.store(c + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], z)


# Measured bounds are far below these; tf32 alone is about 1e-3 off.
BOUNDS = {"tf32": 3e-3, "tf32x3": 1e-5, "bf16x3": 1e-4, "bf16x6": 1e-5,
          "ieee": 1e-5}


@pytest.mark.parametrize("precision", sorted(BOUNDS))
@pytest.mark.parametrize("m, n, k", [(64, 64, 64), (64, 64, 128), (32, 32, 32)])
def test_precision_against_float64(precision, m, n, k):
    a = torch.randn(m, k, device="cuda")
    b = torch.randn(k, n, device="cuda")
    c = torch.full((m, n), float("nan"), device="cuda")
    block_dot[(1,)](a, b, c, M=m, N=n, K=k, PRECISION=precision)
    err = rel_err(c, a.double() @ b.double())
    assert err < BOUNDS[precision]
    if precision != "tf32":
        tf32 = torch.full((m, n), float("nan"), device="cuda")
        block_dot[(1,)](a, b, tf32, M=m, N=n, K=k, PRECISION="tf32")
        tf32_err = rel_err(tf32, a.double() @ b.double())
        # Every shape here runs "tf32" on the tensor cores (wgmma, or
        # mma.sync m16n8k8 for 32 rows), so every split precision beats it.
        assert tf32_err > 1e-4
        assert err < tf32_err / 10
