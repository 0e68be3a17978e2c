"""fp8 dots with max_num_imprecise_acc on the GPU against float64: the
sliced accumulation is right at every bound and block."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from gpu_checks import rel_err  # noqa: E402
from kernels.imprecise_acc import fp8_matmul  # noqa: E402


@pytest.mark.parametrize("dtype", [torch.float8_e5m2, torch.float8_e4m3fn])
@pytest.mark.parametrize("block", [(128, 256, 128), (64, 64, 64)])
@pytest.mark.parametrize("imprecise", [None, 32, 64])
def test_sliced_accumulation_matches_float64(dtype, block, imprecise):
    M, N, K = 256, 512, 1024
    a = torch.randn(M, K, device="cuda").to(dtype)
    b = torch.randn(K, N, device="cuda").to(dtype)
    c = torch.full((M, N), float("nan"), device="cuda")
    bm, bn, bk = block
    grid = (M // bm * (N // bn),)
    fp8_matmul[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                     BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, IMPRECISE=imprecise,
                     num_warps=8, num_stages=3)
    ref = a.double() @ b.double()
    # The products are exact; only the accumulation rounds.
    assert rel_err(c, ref) < 1e-3
