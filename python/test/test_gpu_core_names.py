"""Triton's small core names on the GPU against numpy (poisoned outputs)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from kernels import core_names as cn  # noqa: E402

BLOCK = 64


def test_int_names_on_the_gpu():
    x = torch.randint(-1000, 1000, (BLOCK,), dtype=torch.int32, device="cuda")
    y = torch.randint(0, 1 << 20, (BLOCK,), dtype=torch.int32, device="cuda")
    out = torch.full((4 * BLOCK + 1 + BLOCK // 2,), -7, dtype=torch.int32, device="cuda")
    cn.int_names[(1,)](x, y, out, BLOCK=BLOCK)
    want = cn.int_reference(x.cpu().numpy(), y.cpu().numpy())
    assert out.cpu().numpy().tolist() == want.tolist()


def test_nan_max_on_the_gpu():
    x = torch.randn(BLOCK, device="cuda")
    y = torch.randn(BLOCK, device="cuda")
    x[::7] = float("nan")
    out = torch.full((2 * BLOCK,), 3.0, device="cuda")
    cn.nan_max[(1,)](x, y, out, BLOCK=BLOCK)
    xs, ys, got = x.cpu().numpy(), y.cpu().numpy(), out.cpu().numpy()
    np.testing.assert_array_equal(got[:BLOCK], np.maximum(xs, ys))
    np.testing.assert_array_equal(got[BLOCK:], np.fmin(xs, ys))


def test_signed_shift_by_unsigned_on_the_gpu():
    x = torch.randint(-128, 128, (BLOCK,), dtype=torch.int8, device="cuda")
    y = torch.randint(0, 16, (BLOCK,), dtype=torch.int16, device="cuda").to(torch.uint16)
    out = torch.full((BLOCK,), 7, dtype=torch.uint16, device="cuda")
    cn.mixed_shift[(1,)](x, y, out, BLOCK=BLOCK)
    want = cn.mixed_shift_reference(x.cpu().numpy(), y.cpu().numpy())
    assert out.cpu().numpy().tolist() == want.tolist()
