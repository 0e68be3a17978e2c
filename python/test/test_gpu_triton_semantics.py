"""Triton's rules that tile took from its test_core, on the GPU."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from test_triton_semantics import abs_kernel  # noqa: E402


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_fp8_abs_of_every_code(dtype):
    codes = torch.arange(-128, 128, dtype=torch.int16, device="cuda").to(torch.int8)
    x = codes.view(dtype)
    z = torch.full_like(codes, 0x55).view(dtype)
    abs_kernel[(1,)](x, z, SIZE=256)
    want = x.float().abs()
    got = z.float()
    # NaN codes stay NaN; every other code is its magnitude, exactly.
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    assert torch.equal(got[~torch.isnan(want)], want[~torch.isnan(want)])
