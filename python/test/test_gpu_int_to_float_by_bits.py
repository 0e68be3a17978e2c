"""Conversions that tilegpu-int-to-float-by-bits does with bit operations
give exactly what a conversion gives: every int8 value (and random int32
ones), each narrowing of kernels/int_to_float.py, to bf16, f16 and f32.
Outputs are poisoned (NaN) before the launch; the reference is computed
in int64 by torch and converted by torch."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from gpu_checks import cdiv
from kernels import int_to_float as k

pytestmark = pytest.mark.gpu

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def reference(mode, x):
    v = x.to(torch.int64)
    bits = 8 * x.element_size()
    if mode == k.LOW_NIBBLE:
        # (x << 4) >> 4 in x's width: the low bits - 4, sign-extended.
        keep = bits - 4
        return ((v & ((1 << keep) - 1)) ^ (1 << (keep - 1))) - (1 << (keep - 1))
    if mode == k.HIGH_NIBBLE:
        return v >> 4
    if mode == k.UNSIGNED_NIBBLE:
        return v & 15
    if mode == k.OFFSET_FIELD:
        return (v & 63) + 10
    if mode == k.WIDE_FIELD:
        return v & 0xFFFFF
    return v


@pytest.mark.parametrize("mode,source,destination", [
    (k.LOW_NIBBLE, torch.int8, "bf16"), (k.LOW_NIBBLE, torch.int8, "fp16"),
    (k.LOW_NIBBLE, torch.int8, "fp32"), (k.HIGH_NIBBLE, torch.int8, "bf16"),
    (k.HIGH_NIBBLE, torch.int8, "fp16"), (k.UNSIGNED_NIBBLE, torch.int8, "bf16"),
    (k.OFFSET_FIELD, torch.int8, "bf16"), (k.OFFSET_FIELD, torch.int32, "fp32"),
    (k.OFFSET_FIELD, torch.int32, "bf16"), (k.WIDE_FIELD, torch.int32, "fp32"),
    (k.WHOLE_BYTE, torch.int8, "fp16"), (k.WHOLE_BYTE, torch.int8, "bf16"),
    (k.WHOLE_BYTE, torch.int8, "fp32"), (k.LOW_NIBBLE, torch.int32, "fp32"),
    (k.WHOLE_BYTE, torch.int32, "fp32"),
])
def test_converted_exactly(mode, source, destination):
    n = 5000  # not a multiple of the block: the last program is masked
    if source == torch.int8:
        every = torch.arange(-128, 128, device="cuda", dtype=torch.int16)
        rand = torch.randint(-128, 128, (n - 256,), device="cuda",
                             dtype=torch.int16)
        x = torch.cat([every, rand]).to(torch.int8)
    else:
        x = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda",
                          dtype=torch.int32)
    dtype = DTYPES[destination]
    y = torch.full((n,), float("nan"), device="cuda", dtype=dtype)
    k.int_to_float_kernel[(cdiv(n, 1024),)](x, y, n, MODE=mode, BLOCK=1024)
    torch.cuda.synchronize()
    want = reference(mode, x).to(dtype)
    assert torch.equal(y, want), (y[y != want][:8], want[y != want][:8])
