"""The standard-library kernel on the GPU against numpy (poisoned output)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from kernels.standard import outputs, reference, standard_kernel  # noqa: E402


@pytest.mark.parametrize("M,N,G", [(8, 16, 2), (4, 32, 3), (32, 64, 5)])
def test_standard_library_on_the_gpu(M, N, G):
    x = torch.randn(M, N, device="cuda") * 100
    y = torch.randn(M, N, device="cuda")
    out = torch.full((outputs(M, N),), float("nan"), device="cuda")
    standard_kernel[(1,)](x, y, out, M, N, G)
    want = reference(x.cpu().numpy(), y.cpu().numpy(), M, N, G)
    np.testing.assert_array_equal(out.cpu().numpy()[:want.size], want)
