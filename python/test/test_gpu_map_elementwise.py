"""tl.map_elementwise on the GPU against numpy: branches per element,
packs of two with two results, nested ifs on a broadcast scalar."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from kernels.mapping import (clipped_log_kernel,  # noqa: E402
                             clipped_log_reference, compare_kernel,
                             compare_reference, divmod_kernel)


@pytest.mark.parametrize("N", [32, 128, 1024])
def test_compare(N):
    x = torch.randint(-5, 5, (N,), device="cuda", dtype=torch.int32)
    y = torch.randint(-5, 5, (N,), device="cuda", dtype=torch.int32)
    out = torch.full((N,), 99, device="cuda", dtype=torch.int32)
    compare_kernel[(1,)](x, y, out, N)
    np.testing.assert_array_equal(out.cpu().numpy(),
                                  compare_reference(x.cpu().numpy(), y.cpu().numpy()))


@pytest.mark.parametrize("N", [2, 64, 512, 4096])
@pytest.mark.parametrize("num_warps", [1, 4])
def test_divmod_in_packs(N, num_warps):
    a = torch.randint(0, 100000, (N,), device="cuda", dtype=torch.int32)
    b = torch.randint(1, 97, (N,), device="cuda", dtype=torch.int32)
    q = torch.full_like(a, -1)
    r = torch.full_like(a, -1)
    divmod_kernel[(1,)](a, b, q, r, N, 2, num_warps=num_warps)
    assert torch.equal(q, a // b)
    assert torch.equal(r, a % b)


def test_nested_ifs():
    x = torch.randn(32, 64, device="cuda") * 3
    out = torch.full_like(x, float("nan"))
    clipped_log_kernel[(1,)](x, out, 32, 64)
    np.testing.assert_allclose(out.cpu().numpy(),
                               clipped_log_reference(x.cpu().numpy()), rtol=2e-6)
