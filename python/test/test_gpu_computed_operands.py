"""Dots over loads computed on in registers, pipelined since session 38
(kernels/computed_operands.py), against float64 torch on fresh random
data with NaN-poisoned outputs, at several pipeline depths; and an offsets
vector read in two layouts, carried in both."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from kernels import computed_operands as k

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("K", [32, 48, 256])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_mma_sync_operands(stages, K, dtype):
    a = torch.randn(16, K, device="cuda", dtype=dtype)
    b = torch.randn(K, 16, device="cuda", dtype=dtype)
    c = torch.full((16, 16), float("nan"), device="cuda")
    k.small_rows_kernel[(1,)](a, b, c, K, BM=16, BN=16, BK=16,
                              num_stages=stages)
    torch.cuda.synchronize()
    want = a.double() @ b.double()
    torch.testing.assert_close(c.double(), want, rtol=0, atol=1e-3 * K ** 0.5)


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("K", [64, 96, 512])
def test_scaled_tf32_operands(stages, K):
    a = torch.randn(64, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, 64, device="cuda", dtype=torch.bfloat16)
    count = torch.randint(0, 100, (K,), device="cuda", dtype=torch.int32)
    before = count.clone()
    c = torch.full((64, 64), float("nan"), device="cuda")
    k.scaled_operands_kernel[(1,)](a, b, c, count, K, BM=64, BN=64, BK=32,
                                   num_stages=stages)
    torch.cuda.synchronize()
    want = a.double() @ (b.double() * 0.5)
    # tf32 keeps 10 mantissa bits of each product's operands.
    torch.testing.assert_close(c.double(), want, rtol=0,
                               atol=4e-3 * K ** 0.5)
    assert torch.equal(count, before + 1)


@pytest.mark.parametrize("n", [256, 200, 37])
def test_offsets_read_as_rows_and_columns(n):
    block, steps = 64, 4
    x = torch.randn(block * steps, device="cuda")
    y = torch.randn(block * steps, device="cuda")
    out = torch.full((block, block), float("nan"), device="cuda")
    k.offsets_two_ways_kernel[(1,)](x, y, out, n, BLOCK=block, STEPS=steps)
    torch.cuda.synchronize()
    xs = torch.where(torch.arange(block * steps, device="cuda") < n, x, 0)
    ys = torch.where(torch.arange(block * steps, device="cuda") < n, y, 0)
    want = sum(xs[s * block:(s + 1) * block, None].double() *
               ys[None, s * block:(s + 1) * block].double()
               for s in range(steps))
    torch.testing.assert_close(out.double(), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("stages", [1, 2, 3])
@pytest.mark.parametrize("n", [512, 200])
def test_chained_tf32_products(stages, n):
    # q read straight into two operand layouts, k^T into one and as
    # loaded, and q k^T shuffled within warps into the next dot's A.
    D, E, block = 128, 32, 64
    q, k_, v = (torch.randn(n, w, device="cuda", dtype=torch.bfloat16)
                for w in (D, D, E))
    o = torch.full((n, E), float("nan"), device="cuda")
    k.chained_tf32_kernel[(1,)](q, k_, v, o, n, D=D, E=E, BLOCK=block,
                                num_stages=stages)
    torch.cuda.synchronize()
    want = torch.empty(n, E, dtype=torch.float64, device="cuda")
    kv = torch.zeros(D, E, dtype=torch.float64, device="cuda")
    for s in range(0, n, block):
        qb, kb, vb = (t[s:s + block].double() for t in (q, k_, v))
        want[s:s + block] = (qb @ kb.T) @ vb + qb @ kv
        kv += kb.T @ vb
    # tf32 keeps 10 mantissa bits of each operand; the sums grow with n.
    err = (o.double() - want).abs().max() / want.abs().max()
    assert err < 5e-3, err


def test_a_tile_and_its_transpose_from_one_copy():
    # x = a b^T (fp16) is the A of x c and, transposed, of x^T e: both read
    # one shared copy of x^T, the first through a transposed view.
    M, N, K = 64, 128, 64
    a, e = (torch.randn(M, K, device="cuda", dtype=torch.float16) / 4
            for _ in range(2))
    b, c = (torch.randn(N, K, device="cuda", dtype=torch.float16) / 4
            for _ in range(2))
    y = torch.full((M, K), float("nan"), device="cuda")
    z = torch.full((N, K), float("nan"), device="cuda")
    k.transposed_twice_kernel[(1,)](a, b, c, e, y, z, M=M, N=N, K=K,
                                    num_warps=8)
    torch.cuda.synchronize()
    x = (a.double() @ b.double().T).half().double()
    torch.testing.assert_close(y.double(), x @ c.double(), rtol=1e-3,
                               atol=1e-3)
    torch.testing.assert_close(z.double(), x.T @ e.double(), rtol=1e-3,
                               atol=1e-3)
