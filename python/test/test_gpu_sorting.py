"""tl.sort, tl.topk, tl.bitonic_merge and tl.gather on the GPU against
torch, with fresh random data and poisoned outputs."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from kernels.sorting import (bitonic_kernel, gather_1d_kernel,  # noqa: E402
                             gather_kernel, sort_kernel, topk_kernel)

DTYPES = [torch.int32, torch.float16, torch.float32, torch.bfloat16,
          torch.int8, torch.float64]


def random_block(shape, dtype):
    if dtype.is_floating_point:
        return (torch.randn(shape, device="cuda", dtype=torch.float64)
                * 100).to(dtype)
    return torch.randint(-100, 100, shape, device="cuda", dtype=dtype)


def poison(shape, dtype):
    fill = float("nan") if dtype.is_floating_point else -77
    return torch.full(shape, fill, device="cuda", dtype=dtype)


# (M, N, num_warps): rows spread over lanes and warps, or one long row.
@pytest.mark.parametrize("M,N,num_warps", [(1, 512, 8), (8, 64, 4), (256, 16, 8),
                                           (512, 8, 4), (4, 1, 1)])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort(M, N, num_warps, dtype, descending):
    x = random_block((M, N), dtype)
    out = poison((M, N), dtype)
    sort_kernel[(1,)](x, out, M, N, descending, None, num_warps=num_warps)
    want = torch.sort(x, dim=1, descending=descending).values
    assert torch.equal(out, want)


def test_sort_along_the_leading_dimension():
    x = random_block((64, 16), torch.float32)
    out = poison((64, 16), torch.float32)
    sort_kernel[(1,)](x, out, 64, 16, False, 0)
    assert torch.equal(out, torch.sort(x, dim=0).values)


@pytest.mark.parametrize("M,N", [(1, 512), (8, 64), (256, 16), (16, 128)])
@pytest.mark.parametrize("K", [1, 4, 8, 16])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dtype", [torch.int32, torch.bfloat16])
def test_topk(M, N, K, largest, dtype):
    if K > N:
        pytest.skip("k above the extent is refused at compile time")
    x = random_block((M, N), dtype)
    out = poison((M, K), dtype)
    topk_kernel[(1,)](x, out, M, N, K, largest, num_warps=8)
    want = torch.topk(x, K, dim=1, largest=largest, sorted=True).values
    assert torch.equal(out, want)


def test_bitonic_merge():
    up = torch.sort(torch.randn(96, device="cuda")).values
    down = torch.sort(torch.randn(32, device="cuda"), descending=True).values
    x = torch.roll(torch.cat([up, down]), 17).contiguous()
    out = poison((128,), torch.float32)
    bitonic_kernel[(1,)](x, out, 128)
    assert torch.equal(out, torch.sort(x).values)


@pytest.mark.parametrize("src_shape,idx_shape,axis", [
    ((4, 4), (8, 4), 0), ((128, 64), (256, 64), 0),
    ((128, 64), (128, 128), 1), ((16, 32), (16, 8), 1), ((64, 2), (64, 8), 1)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8,
                                   torch.float64])
@pytest.mark.parametrize("idx_dtype", [torch.int64, torch.int32])
def test_gather(src_shape, idx_shape, axis, dtype, idx_dtype):
    src = random_block(src_shape, dtype)
    idx = torch.randint(0, src_shape[axis], idx_shape, device="cuda",
                        dtype=idx_dtype)
    out = poison(idx_shape, dtype)
    gather_kernel[(1,)](src, idx, out, *src_shape, *idx_shape, axis)
    assert torch.equal(out, torch.gather(src, axis, idx.long()))


def test_gather_1d_wraps_out_of_range_indices():
    src = random_block((32,), torch.float32)
    idx = torch.randint(-100, 100, (64,), device="cuda", dtype=torch.int32)
    out = poison((64,), torch.float32)
    gather_1d_kernel[(1,)](src, idx, out, 32, 64)
    assert torch.equal(out, src[(idx % 32).long()])
