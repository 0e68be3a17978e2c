"""Block pointers and tuples on the GPU against torch references computed
in float64, with outputs poisoned before each launch."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
from gpu_checks import rel_err  # noqa: E402
from kernels import aggregates as ag  # noqa: E402


def _source(dtype, n):
    if dtype == torch.bool:
        return torch.randint(0, 2, (n,), device="cuda").bool()
    if not dtype.is_floating_point:
        return torch.randint(-1000, 1000, (n,), device="cuda", dtype=dtype)
    return torch.randn(n, device="cuda", dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.bool, torch.int16, torch.int32,
                                   torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_block_copy(dtype, padding):
    if padding == "nan" and not dtype.is_floating_point:
        pytest.skip("nan padding is refused for integers (test_aggregates)")
    n, limit, block = 1000, 517, 128
    src = _source(dtype, n)
    dst = _source(dtype, n)   # poison: random, so 0s must be written
    ag.block_copy[(tile.cdiv(n, block),)](src, dst, n, limit, BLOCK=block,
                                          PADDING=padding, CHECK=True)
    assert torch.equal(dst[:limit], src[:limit])
    tail = dst[limit:]
    if padding == "nan":
        assert torch.isnan(tail).all()
    else:
        assert (tail == 0).all()


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("m, n, k", [(256, 192, 320), (131, 77, 200)])
def test_block_pointer_matmul(stages, m, n, k):
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    grid = (tile.cdiv(m, 64), tile.cdiv(n, 64))
    ag.block_matmul[grid](a, b, c, m, n, k, a.stride(0), a.stride(1),
                          b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                          BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, STAGES=stages)
    ref = a.double() @ b.double()
    assert rel_err(c, ref) < 2e-3


def test_block_pointer_matmul_transposed_b():
    # B given as a transposed view: strides (1, K), order (0, 1) in memory.
    m, n, k = 128, 96, 160
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    bt = torch.randn(n, k, device="cuda", dtype=torch.float16)
    b = bt.t()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    ag.block_matmul[(2, 2)](a, b, c, m, n, k, a.stride(0), a.stride(1),
                            b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                            BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, STAGES=3)
    assert rel_err(c, a.double() @ b.double()) < 2e-3


@pytest.mark.parametrize("shift", [-3, 0, 5])
def test_block_pointer_through_if_and_call(shift):
    r, cols = 12, 10
    x = torch.randn(r, cols, device="cuda")
    out = torch.full_like(x, float("nan"))
    ag.block_rows[(1,)](x, out, r, cols, cols, SHIFT=shift, BLOCK_R=16, BLOCK_C=16)
    ref = torch.zeros_like(x)
    for row in range(r):
        if 0 <= row + shift < r:
            ref[row] = x[row + shift]
    assert torch.equal(out, ref)


def test_tuple_loop_with_namedtuple_argument():
    block, n = 64, 7
    x = torch.randn(n * 80, device="cuda")
    out = torch.full((block + 1,), float("nan"), device="cuda")
    ag.tuple_loop[(1,)](x, out, ag.Strided(x, 80), n, BLOCK=block)
    ref = sum(x[i * 80:i * 80 + block].double() for i in range(n))
    assert rel_err(out[:block], 2 * ref) < 1e-6
    assert out[block].item() == n + 2


def test_tuple_arguments():
    ptrs = tuple(torch.randn(1, device="cuda") for _ in range(3))
    out = torch.full((4,), float("nan"), device="cuda")
    values = (3.0, 1.5, -0.5)
    ag.tuple_arguments[(1,)](out, ptrs, values, (2, 3, 4))
    want = [ptrs[i].item() + values[i] * (2, 3, 4)[i] for i in range(3)]
    want.append(values[0] + 1 + values[2] + 1)
    assert torch.allclose(out.cpu(), torch.tensor(want), rtol=1e-6, atol=1e-6)
