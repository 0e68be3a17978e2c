"""Batched (3-D) tl.dot on the GPU against torch.bmm in float64, outputs
poisoned before each launch."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402
from gpu_checks import rel_err  # noqa: E402


@tile.jit
def batched_dot(a, b, c, out, BATCH: tl.constexpr, M: tl.constexpr,
                N: tl.constexpr, K: tl.constexpr, ACC: tl.constexpr,
                OUT: tl.constexpr = None):
    bi = tl.arange(0, BATCH)[:, None, None]
    x = tl.load(a + bi * M * K + tl.arange(0, M)[None, :, None] * K
                + tl.arange(0, K)[None, None, :])
    y = tl.load(b + bi * K * N + tl.arange(0, K)[None, :, None] * N
                + tl.arange(0, N)[None, None, :])
    offs = bi * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :]
    if ACC:
        z = tl.dot(x, y, acc=tl.load(c + offs).to(tl.float32))
    else:
        z = tl.dot(x, y, out_dtype=OUT)
    tl.store(out + offs, z)


@pytest.mark.parametrize("batch", [1, 2, 4, 8])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.int8])
@pytest.mark.parametrize("num_warps", [1, 2, 4])
def test_batched_dot_matches_bmm(batch, dtype, num_warps):
    m, n, k = 32, 32, 32
    if dtype == torch.int8:
        a = torch.randint(-100, 100, (batch, m, k), device="cuda", dtype=dtype)
        b = torch.randint(-100, 100, (batch, k, n), device="cuda", dtype=dtype)
        out = torch.full((batch, m, n), -7, device="cuda", dtype=torch.int32)
    else:
        a = torch.randn(batch, m, k, device="cuda", dtype=dtype)
        b = torch.randn(batch, k, n, device="cuda", dtype=dtype)
        out = torch.full((batch, m, n), float("nan"), device="cuda")
    batched_dot[(1,)](a, b, out, out, BATCH=batch, M=m, N=n, K=k, ACC=False,
                      num_warps=num_warps)
    ref = torch.bmm(a.double(), b.double())
    if dtype == torch.int8:
        assert torch.equal(out.double(), ref)
    else:
        # float32 dots are tf32 by default, as in Triton.
        assert rel_err(out, ref) < (2e-3 if dtype == torch.float32 else 1e-3)


def test_batched_dot_with_accumulator():
    batch, m, n, k = 4, 64, 32, 64
    a = torch.randn(batch, m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(batch, k, n, device="cuda", dtype=torch.float16)
    c = torch.randn(batch, m, n, device="cuda", dtype=torch.float16)
    out = torch.full((batch, m, n), float("nan"), device="cuda")
    batched_dot[(1,)](a, b, c, out, BATCH=batch, M=m, N=n, K=k, ACC=True)
    ref = torch.bmm(a.double(), b.double()) + c.double()
    assert rel_err(out, ref) < 1e-3


@pytest.mark.parametrize("dtype, out_dtype", [(torch.float16, tl.float16),
                                              (torch.float64, None)])
@pytest.mark.parametrize("num_warps", [2, 8])
def test_batched_dot_result_types(dtype, out_dtype, num_warps):
    # An f16 product sums in f32 and rounds once; float64 stays float64.
    batch, m, n, k = 2, 64, 64, 64
    a = torch.randn(batch, m, k, device="cuda", dtype=dtype)
    b = torch.randn(batch, k, n, device="cuda", dtype=dtype)
    out = torch.full((batch, m, n), float("nan"), device="cuda", dtype=dtype)
    batched_dot[(1,)](a, b, out, out, BATCH=batch, M=m, N=n, K=k, ACC=False,
                      OUT=out_dtype, num_warps=num_warps)
    ref = torch.bmm(a.double(), b.double())
    assert rel_err(out, ref) < (1e-3 if dtype == torch.float16 else 1e-12)


@pytest.mark.parametrize("dims", [(2, 4, 16, 32, 16), (1, 2, 32, 32, 64),
                                  (4, 2, 16, 16, 32)])
def test_rank_4_dot_matches_matmul(dims):
    from kernels.multidim_dot import dot4
    b1, b2, m, n, k = dims
    a = torch.randn(b1, b2, m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(b1, b2, k, n, device="cuda", dtype=torch.float16)
    c = torch.randn(b1, b2, m, n, device="cuda")
    out = torch.full((b1, b2, m, n), float("nan"), device="cuda")
    dot4[(1,)](a, b, c, out, B1=b1, B2=b2, M=m, N=n, K=k)
    want = a.double() @ b.double() + c.double()
    assert rel_err(out, want) < 1e-5
