"""Layout conversions on the GPU, from blocks of 1K to 1M elements: those
above 64 KiB move through the scratch buffer in rounds (issue 27, item 14).
Outputs are poisoned before each launch and compared exactly (the kernels
only scale by 3) or, for the normalisation, against float64."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from gpu_checks import cdiv, rel_err
from kernels import conversions as cv

pytestmark = pytest.mark.gpu


def poisoned_unaligned(n, dtype):
    """n elements starting one element into a buffer: the store cannot be
    16-byte aligned, so it takes a narrower layout than the load."""
    fill = float("nan") if dtype.is_floating_point else -77
    return torch.full((n + 1,), fill, device="cuda", dtype=dtype)[1:]


def scratch_of_launch(kernel):
    """Shared memory of the specialisation the last launch compiled."""
    return list(kernel.cache.values())[-1].metadata["shared"]


def random_of(shape, dtype):
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda").to(dtype)
    return torch.randint(-40, 40, shape, device="cuda", dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8])
@pytest.mark.parametrize("block,warps", [(1024, 4), (4096, 4), (16384, 4),
                                         (65536, 4), (262144, 32),
                                         (1048576, 32)])
def test_1d_conversion(block, warps, dtype):
    if dtype != torch.float32 and block == 1048576:
        pytest.skip("one dtype at the largest block keeps the compile short")
    # Two programs, the second partly masked; n a multiple of 16 so that the
    # load may take 16-byte vectors.
    n = 2 * block - 128
    x = random_of((n,), dtype)
    y = poisoned_unaligned(n, dtype)
    cv.scale_1d_kernel.cache.clear()
    cv.scale_1d_kernel[(cdiv(n, block),)](x, y, n, BLOCK=block, num_warps=warps)
    torch.cuda.synchronize()
    assert torch.equal(y, x * 3)
    # The block changed layout through shared memory, in 64 KiB rounds
    # once larger.
    assert scratch_of_launch(cv.scale_1d_kernel) == min(block * x.element_size(),
                                                         64 * 1024)


@pytest.mark.parametrize("rows,cols,warps", [(32, 32, 4), (64, 64, 4),
                                             (128, 128, 4), (256, 256, 4),
                                             (512, 512, 32), (1024, 1024, 32)])
def test_2d_conversion(rows, cols, warps):
    # Partial tiles on both edges; x's rows 16-byte aligned (N a multiple
    # of 16), y's rows of N + 1 not, so the two accesses differ in width.
    M, N = rows + 37, cols + 16
    x = random_of((M, N), torch.float32)
    y_buf = torch.full((M, N + 1), float("nan"), device="cuda")
    cv.scale_2d_kernel.cache.clear()
    cv.scale_2d_kernel[(cdiv(M, rows), cdiv(N, cols))](
        x, y_buf, M, N, N + 1, ROWS=rows, COLS=cols, num_warps=warps)
    torch.cuda.synchronize()
    assert torch.equal(y_buf[:, :N], x * 3)
    assert scratch_of_launch(cv.scale_2d_kernel) == min(rows * cols * 4,
                                                        64 * 1024)


@pytest.mark.parametrize("block", [1024, 16384, 65536])
def test_channel_norm(block):
    rows, n, per_channel = 3, 65536, 64
    x = torch.randn(rows, n, device="cuda") * 2 + 0.5
    w = torch.randn(n // per_channel, device="cuda")
    b = torch.randn(n // per_channel, device="cuda")
    y = torch.full_like(x, float("nan"))
    cv.channel_norm_kernel[(rows,)](x, w, b, y, n, per_channel, 1e-5,
                                    BLOCK=block)
    torch.cuda.synchronize()
    xd = x.double()
    mean = xd.mean(dim=1, keepdim=True)
    var = xd.var(dim=1, unbiased=False, keepdim=True)
    ref = (xd - mean) / torch.sqrt(var + 1e-5)
    ref = ref * w.double().repeat_interleave(per_channel) \
        + b.double().repeat_interleave(per_channel)
    assert rel_err(y, ref) < 1e-5


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("rows,cols,warps", [(64, 64, 4), (256, 256, 4),
                                             (256, 256, 8), (512, 512, 8),
                                             (512, 512, 16), (1024, 1024, 32)])
def test_transposing_conversion(rows, cols, warps, dtype):
    if dtype != torch.float32 and rows == 1024:
        pytest.skip("one dtype at the largest block keeps the compile short")
    # Lanes along x's rows for the load and along y's for the store; at 8
    # warps and more no index bit is a register bit of both layouts, so the
    # rounds split whole warps. Partial tiles on both edges.
    M, N = rows + 48, cols + 16
    x = random_of((M, N), dtype)
    y = torch.full((N, M), float("nan"), device="cuda", dtype=dtype)
    cv.transpose_kernel.cache.clear()
    cv.transpose_kernel[(cdiv(M, rows), cdiv(N, cols))](
        x, y, M, N, ROWS=rows, COLS=cols, num_warps=warps)
    torch.cuda.synchronize()
    assert torch.equal(y, (x * 3).t())
    assert scratch_of_launch(cv.transpose_kernel) == min(
        rows * cols * x.element_size(), 64 * 1024)


@pytest.mark.parametrize("rows,block_m", [(64, 16), (256, 64)])
def test_row_sum_then_elementwise_chain(rows, block_m):
    # The layout rules converge here instead of passing a conversion back
    # and forth until their round cap (session 38); the values stay.
    n = 128
    s = torch.randn(rows, n, device="cuda")
    c, x, d, z = (torch.randn(m, device="cuda") for m in (n, rows, rows, rows))
    out = torch.full((rows,), float("nan"), device="cuda")
    cv.row_sum_update_kernel[(rows // block_m,)](s, c, x, d, z, out, N=n,
                                                 BLOCK_M=block_m)
    torch.cuda.synchronize()
    z64 = z.double()
    want = ((s.double() @ c.double() + x.double() * d.double()) *
            z64 * torch.sigmoid(z64))
    assert rel_err(out, want) < 1e-5
