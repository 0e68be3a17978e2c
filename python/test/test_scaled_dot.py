"""tl.dot_scaled on the CPU: the interpreter against a float64 decoding of
the MX operands, the compiled code, and the located errors."""

import numpy as np
import pytest

import tile
import tile.language as tl
import mx_reference as mx
from kernels import scaled_dot as sd

rng = np.random.default_rng(26)
M, N, K = 32, 32, 64


def make_operand(fmt, rows, cols, k_axis, k_pack, compute):
    """Storage for an operand of `rows` x `cols` values in `fmt`."""
    shape = [rows, cols]
    if fmt == "e2m1":
        shape[k_axis if k_pack else 1 - k_axis] //= 2
        return rng.integers(0, 256, shape).astype(np.uint8)
    if fmt in ("e4m3", "e5m2"):
        b = mx.finite_fp8_bytes(rng, shape, fmt)
        # fp16 has 5 exponent bits: keep scaled e5m2 values in its range.
        return b & 0xBF if compute == "fp16" and fmt == "e5m2" else b
    return rng.standard_normal(shape).astype(np.float16)


def run_case(a_fmt, b_fmt, scale_a, scale_b, a_k_pack=True, b_k_pack=True,
             acc=False, nan_row=None):
    compute = "fp16" if "fp16" in (a_fmt, b_fmt) else "bf16"
    low, high = (124, 131) if compute == "fp16" else (100, 142)
    a = make_operand(a_fmt, M, K, 1, a_k_pack, compute)
    b = make_operand(b_fmt, K, N, 0, b_k_pack, compute)
    sa = rng.integers(low, high + 1, (M, K // 32)).astype(np.uint8) if scale_a else None
    sb = rng.integers(low, high + 1, (N, K // 32)).astype(np.uint8) if scale_b else None
    if nan_row is not None:
        sa[nan_row, 1] = 255
    out = np.full((M, N), -1234.5, np.float32)
    kernel = tile.jit(sd.scaled_block_dot.fn, interpret=True)
    kernel[(1,)](a, sa, b, sb, out, a.shape[1], 1, b.shape[1], 1, M=M, N=N, K=K,
                 A_FORMAT=a_fmt, B_FORMAT=b_fmt, A_K_PACK=a_k_pack,
                 B_K_PACK=b_k_pack, FAST_MATH=False, ACC=acc)
    ref = (mx.scaled(mx.operand(a, a_fmt, a_k_pack, False), sa, False)
           @ mx.scaled(mx.operand(b, b_fmt, b_k_pack, True), sb, True))
    return out, ref + (1.0 if acc else 0.0)


def close(out, ref):
    return np.linalg.norm(out - ref) / np.linalg.norm(ref) < 1e-5


@pytest.mark.parametrize("mx_fmt", ["e2m1", "e4m3", "e5m2"])
@pytest.mark.parametrize("other", ["e4m3", "fp16"])
@pytest.mark.parametrize("rhs_scaled", [False, True])
def test_interpreter_matches_float64(mx_fmt, other, rhs_scaled):
    if rhs_scaled:
        out, ref = run_case(other, mx_fmt, False, True)
    else:
        out, ref = run_case(mx_fmt, other, True, False)
    assert close(out, ref)


@pytest.mark.parametrize("a_k_pack, b_k_pack", [(False, True), (True, False),
                                                (False, False)])
def test_fp4_packed_along_the_other_dimension(a_k_pack, b_k_pack):
    out, ref = run_case("e2m1", "e2m1", True, True, a_k_pack, b_k_pack, acc=True)
    assert close(out, ref)


def test_nan_scale_poisons_its_row():
    out, ref = run_case("e4m3", "e4m3", True, True, nan_row=5)
    assert np.isnan(out[5]).all()
    keep = np.arange(M) != 5
    assert not np.isnan(out[keep]).any() and close(out[keep], ref[keep])


SIGNATURE = {"a": "*u8", "a_scale": "*u8", "b": "*u8", "b_scale": "*u8",
             "out": "*fp32", "stride_am": "i32", "stride_ak": "i32",
             "stride_bk": "i32", "stride_bn": "i32"}


def test_compiles_to_a_bf16_tensor_core_product():
    k = tile.compile(sd.scaled_block_dot, SIGNATURE,
                     {"M": 64, "N": 64, "K": 128, "A_FORMAT": "e2m1",
                      "B_FORMAT": "e4m3", "A_K_PACK": True, "B_K_PACK": True,
                      "FAST_MATH": False, "ACC": False})
    assert "tile.dot" in k.asm["tile"]
    ptx = k.asm["ptx"]
    assert "bf16" in ptx and ("wgmma" in ptx or "mma.sync" in ptx)


@tile.jit
def _bad_format(p, N):
    x = tl.load(p + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    tl.store(p, tl.sum(tl.sum(tl.dot_scaled(x, None, "e3m3", x, None, "e4m3"), 1), 0).to(tl.uint8))


@tile.jit
def _scale_on_bf16(p, N):
    x = tl.load(p + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    s = tl.load(p + tl.arange(0, 32)[:, None] + tl.arange(0, 1)[None, :])
    y = x.to(tl.bfloat16)
    tl.store(p, tl.sum(tl.sum(tl.dot_scaled(y, s, "bf16", x, None, "e4m3"), 1), 0).to(tl.uint8))


@tile.jit
def _k_mismatch(p, N):
    x = tl.load(p + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    tl.store(p, tl.sum(tl.sum(tl.dot_scaled(x, None, "e2m1", x, None, "e4m3"), 1), 0).to(tl.uint8))


@tile.jit
def _bad_scale_shape(p, N):
    x = tl.load(p + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    s = tl.load(p + tl.arange(0, 32)[:, None] + tl.arange(0, 2)[None, :])
    tl.store(p, tl.sum(tl.sum(tl.dot_scaled(x, s, "e4m3", x, None, "e4m3"), 1), 0).to(tl.uint8))


@tile.jit
def _wrong_storage(p, N):
    x = tl.load(p + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    tl.store(p, tl.sum(tl.sum(tl.dot_scaled(x, None, "fp16", x, None, "e4m3"), 1), 0).to(tl.uint8))


ERRORS = [
    (_bad_format, "lhs_format must be one of e2m1"),
    (_scale_on_bf16, "a bf16 operand takes no scale"),
    (_k_mismatch, "the operands' K differ after unpacking"),
    (_bad_scale_shape, "lhs_scale must have shape [32, 1]"),
    (_wrong_storage, "lhs in format fp16 cannot be a tensor of tl.uint8"),
]


@pytest.mark.parametrize("kernel, message", ERRORS, ids=[e[0].__name__ for e in ERRORS])
def test_errors_are_located(kernel, message):
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(kernel, {"p": "*u8", "N": "i32"})
    text = str(info.value)
    assert message in text, text
    assert "tl.dot_scaled(" in text and "^" in text
