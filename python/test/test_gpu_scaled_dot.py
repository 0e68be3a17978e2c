"""tl.dot_scaled on the GPU against a float64 decoding of the MX operands
(numpy, mx_reference), outputs poisoned before each launch."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import mx_reference as mx  # noqa: E402
import tile  # noqa: E402
from kernels import scaled_dot as sd  # noqa: E402

rng = np.random.default_rng(261)


def _storage(fmt, shape, compute):
    if fmt == "e2m1":
        return torch.from_numpy(rng.integers(0, 256, shape).astype(np.uint8))
    if fmt in ("e4m3", "e5m2"):
        b = mx.finite_fp8_bytes(rng, shape, fmt)
        return torch.from_numpy(b & 0xBF if compute == "fp16" and fmt == "e5m2" else b)
    t = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
    return t.to(torch.bfloat16 if fmt == "bf16" else torch.float16)


def _float64(t):
    return t.float().numpy().astype(np.float64) if t.is_floating_point() else t.numpy()


def _case(a_fmt, b_fmt, scale_side, m, n, k, a_k_pack=True, b_k_pack=True,
          a_col_major=False, acc=False):
    compute = "fp16" if "fp16" in (a_fmt, b_fmt) else "bf16"
    low, high = (124, 131) if compute == "fp16" else (0, 142)
    a_shape = [m, k]
    if a_fmt == "e2m1":
        a_shape[1 if a_k_pack else 0] //= 2
    b_shape = [k, n]
    if b_fmt == "e2m1":
        b_shape[0 if b_k_pack else 1] //= 2
    a = _storage(a_fmt, a_shape, compute)
    b = _storage(b_fmt, b_shape, compute)
    sa = torch.from_numpy(rng.integers(low, high + 1, (m, k // 32)).astype(np.uint8)) \
        if scale_side in ("a", "both") else None
    sb = torch.from_numpy(rng.integers(low, high + 1, (n, k // 32)).astype(np.uint8)) \
        if scale_side in ("b", "both") else None
    ref = (mx.scaled(mx.operand(_float64(a), a_fmt, a_k_pack, False),
                     None if sa is None else sa.numpy(), False)
           @ mx.scaled(mx.operand(_float64(b), b_fmt, b_k_pack, True),
                       None if sb is None else sb.numpy(), True)) + (1.0 if acc else 0.0)
    a_dev = a.cuda()
    if a_col_major:
        a_dev = a_dev.t().contiguous().t()
    b_dev = b.cuda()
    out = torch.full((m, n), float("nan"), device="cuda")
    sd.scaled_block_dot[(1,)](
        a_dev, None if sa is None else sa.cuda(), b_dev,
        None if sb is None else sb.cuda(), out, a_dev.stride(0), a_dev.stride(1),
        b_dev.stride(0), b_dev.stride(1), M=m, N=n, K=k, A_FORMAT=a_fmt,
        B_FORMAT=b_fmt, A_K_PACK=a_k_pack, B_K_PACK=b_k_pack, FAST_MATH=False,
        ACC=acc)
    got = out.cpu().numpy().astype(np.float64)
    assert not np.isnan(got).any(), "unwritten (NaN) elements"
    return np.linalg.norm(got - ref) / np.linalg.norm(ref)


@pytest.mark.parametrize("mx_fmt", ["e2m1", "e4m3", "e5m2"])
@pytest.mark.parametrize("other", ["e4m3", "e5m2", "bf16", "fp16"])
@pytest.mark.parametrize("side", ["a", "b"])
@pytest.mark.parametrize("m, n, k", [(64, 64, 128), (32, 128, 64)])
def test_dot_scaled_matches_float64(mx_fmt, other, side, m, n, k):
    a_fmt, b_fmt = (mx_fmt, other) if side == "a" else (other, mx_fmt)
    assert _case(a_fmt, b_fmt, side, m, n, k) < 1e-5


@pytest.mark.parametrize("a_k_pack, b_k_pack", [(True, True), (False, True),
                                                (True, False)])
def test_dot_scaled_fp4_both_sides(a_k_pack, b_k_pack):
    assert _case("e2m1", "e2m1", "both", 64, 64, 128, a_k_pack, b_k_pack,
                 acc=True) < 1e-5


def test_dot_scaled_column_major_operand():
    assert _case("e4m3", "bf16", "a", 128, 64, 64, a_col_major=True) < 1e-5
