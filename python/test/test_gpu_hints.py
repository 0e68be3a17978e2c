"""tl.multiple_of / tl.max_contiguous / tl.max_constancy on the GPU: the
vector accesses the hints allow compute what the plain kernel does, on
fresh random data with poisoned outputs."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from kernels import hints

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("hint", [False, True])
@pytest.mark.parametrize("start", [0, 1024, 3072])
def test_shifted_copy(hint, start):
    src = torch.randn(4096, device="cuda")
    dst = torch.full((4096,), float("nan"), device="cuda")
    start_t = torch.tensor([start], device="cuda", dtype=torch.int32)
    hints.shifted_copy[(1,)](src, dst, start_t, BLOCK=1024, HINT=hint)
    torch.cuda.synchronize()
    window = slice(start, start + 1024)
    torch.testing.assert_close(dst[window], 2 * src[window], rtol=0, atol=0)
    outside = torch.ones(4096, dtype=torch.bool, device="cuda")
    outside[window] = False
    assert torch.isnan(dst[outside]).all()


def test_rows_scaled():
    block, stride = 32, 48
    x = torch.randn(block * stride, device="cuda")
    out = torch.full_like(x, float("nan"))
    hints.rows_scaled[(1,)](x, out, stride, BLOCK=block)
    torch.cuda.synchronize()
    rows = torch.arange(block, device="cuda")[:, None] * stride + \
        torch.arange(block, device="cuda")[None, :]
    torch.testing.assert_close(out[rows], x[rows] + 1.0, rtol=0, atol=0)
