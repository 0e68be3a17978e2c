"""The interpreter (TILE_INTERPRET=1, @tile.jit(interpret=True)): the
compiled kernel's types and semantics on the CPU, with numpy arrays.

Every kernel of the project's GPU-kernel sources (python/test/kernels/:
classic, conversions, quantized; and the benchmark kernels) runs here against
float64 numpy references, so kernel semantics are checked on every change,
with no GPU."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tile
import tile.language as tl
from tile.language import core
from tile.runtime import jit
from tile.runtime.interpreter import InterpreterError
from tile.runtime.interpreter import builtins as ib
from tile.runtime.interpreter import launch  # noqa: F401 (registers every builtin)
from tile.runtime.interpreter import numbers
from tile.runtime.interpreter.tensor import Tensor

from kernels import bench_kernels
from kernels import classic as k

rng = np.random.default_rng(20261125)


@pytest.fixture(autouse=True)
def interpret(monkeypatch):
    # What TILE_INTERPRET=1 sets when tile is imported.
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)


def rel_err(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def poisoned(shape, dtype=np.float32):
    kind = np.dtype(dtype).kind
    return np.full(shape, np.nan if kind == "f" else 77 if kind == "u" else -7, dtype)


# ------------------------------------------------------------ coverage

def test_every_builtin_has_an_interpretation():
    missing = []
    for name in dir(tl) + dir(tl.math):
        value = getattr(tl, name, None) or getattr(tl.math, name, None)
        if getattr(value, "__tile_builtin__", False):
            if name not in ib.BUILTINS and value.__name__ not in ib.BUILTINS \
                    and value.__name__ not in ib.COMPOSITES:
                missing.append(name)
    assert missing == []


def test_every_tensor_method_exists():
    public = [n for n in vars(core.tensor) if not n.startswith("_") or
              n in ("__getitem__", "__neg__", "__invert__", "__add__", "__rshift__",
                    "__rrshift__", "__bool__", "__floordiv__", "__mod__")]
    assert [n for n in public if n not in ("handle", "type") and
            not hasattr(Tensor, n)] == []


# ---------------------------------------------------------- semantics

@tile.jit
def _binop_kernel(out, a, b, OP: tl.constexpr):
    x = tl.load(a + tl.arange(0, 8))
    y = tl.load(b + tl.arange(0, 8))
    if OP == "//":
        r = x // y
    elif OP == "%":
        r = x % y
    elif OP == "<<":
        r = x << y
    elif OP == ">>":
        r = x >> y
    else:
        r = x + y
    tl.store(out + tl.arange(0, 8), r)


@pytest.mark.parametrize("op,want", [
    ("//", [-3, 3, -3, 3, 3, 1, -1, 2]),
    ("%", [-1, 1, 1, -1, 0, 0, 0, 0]),
    ("+", [-11, 9, 11, -9, 4, 4, -4, 6]),
])
def test_integer_division_truncates_like_c(op, want):
    a = np.array([-7, 7, 7, -7, 3, 2, -2, 4], np.int32)
    b = np.array([2, 2, -2, -2, 1, 2, 2, 2], np.int32)
    out = poisoned(8, np.int32)
    _binop_kernel[(1,)](out, a, b, OP=op)
    if op == "+":
        want = (a + b).tolist()
    assert out.tolist() == want


def test_shifts_clamp_like_ptx():
    a = np.array([1, -8, 1, -8, 5, 5, -1, 3], np.int32)
    b = np.array([31, 1, 32, 40, 0, 33, 31, -1], np.int32)
    out = poisoned(8, np.int32)
    _binop_kernel[(1,)](out, a, b, OP="<<")
    assert out.tolist() == [-2**31, -16, 0, 0, 5, 0, -2**31, 0]
    _binop_kernel[(1,)](out, a, b, OP=">>")
    assert out.tolist() == [0, -4, 0, -1, 5, 0, -1, 0]


def test_integer_add_wraps():
    a = np.array([127, -128, 100, 1, 0, 0, 0, 0], np.int8)
    b = np.array([1, -1, 100, 1, 0, 0, 0, 0], np.int8)
    out = poisoned(8, np.int8)
    _binop_kernel[(1,)](out, a, b, OP="+")
    assert out[:4].tolist() == [-128, 127, -56, 2]


@tile.jit
def _promotion_kernel(out_u8, out_i64, out_f32, out_f16, u8, i64, f16):
    x = tl.load(u8)
    tl.store(out_u8, x + 250)               # a literal takes the u8 type: wraps
    tl.store(out_i64, tl.load(i64) + 2**31 - 1 + x)
    y = tl.load(f16)
    tl.store(out_f32, (y * 1.5).to(tl.float32) + 0.25)  # stays fp16 until .to
    tl.store(out_f16, y / 3)                 # fp16 / int literal: fp16


def test_promotion_follows_the_compiler():
    u8 = np.array([10], np.uint8)
    i64 = np.array([2**40], np.int64)
    f16 = np.array([1.1], np.float16)
    o_u8, o_i64 = poisoned(1, np.uint8), poisoned(1, np.int64)
    o_f32, o_f16 = poisoned(1), poisoned(1, np.float16)
    _promotion_kernel[(1,)](o_u8, o_i64, o_f32, o_f16, u8, i64, f16)
    assert o_u8[0] == (10 + 250) % 256
    assert o_i64[0] == 2**40 + 2**31 - 1 + 10
    assert o_f32[0] == np.float32(np.float16(np.float16(1.1) * np.float16(1.5))) + 0.25
    assert o_f16[0] == np.float16(1.1) / np.float16(3)


@tile.jit
def _cast_kernel(x_ptr, i32_ptr, u8_ptr, bf_ptr, bf_rtz_ptr, e4_ptr, e5_ptr,
                 BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(i32_ptr + offs, x.to(tl.int32))
    tl.store(u8_ptr + offs, x.to(tl.uint8))
    tl.store(bf_ptr + offs, x.to(tl.bfloat16).to(tl.float32))
    tl.store(bf_rtz_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding="rtz").to(tl.float32))
    tl.store(e4_ptr + offs, x.to(tl.float8e4nv).to(tl.float32))
    tl.store(e5_ptr + offs, x.to(tl.float8e5).to(tl.float32))


def test_float_casts_round_and_saturate_like_the_gpu():
    x = np.array([1e10, -1e10, np.nan, -3.7, 300.5, 1.00390625, 1.01171875,
                  1000.0], np.float32)
    outs = [poisoned(8, np.int32), poisoned(8, np.uint8)] + [poisoned(8) for _ in range(4)]
    _cast_kernel[(1,)](x, *outs, BLOCK=8)
    i32, u8, bf, bf_rtz, e4, e5 = outs
    assert i32.tolist() == [2**31 - 1, -2**31, 0, -3, 300, 1, 1, 1000]
    assert u8.tolist() == [255, 0, 0, 0, 255, 1, 1, 255]
    # bf16 keeps 8 bits: 1 + 2^-8 is a tie (to even: 1.0); 1 + 3*2^-8 rounds up.
    assert bf[5] == 1.0 and bf[6] == 1.015625 and bf_rtz[6] == 1.0078125
    # e4m3 saturates at 448 (satfinite); e5m2 at 57344.
    assert e4[0] == 448 and e4[1] == -448 and e4[7] == 448 and np.isnan(e4[2])
    assert e4[4] == 288 and e5[0] == 57344 and e5[4] == 320 and e5[7] == 1024


def test_fp8_tables_round_trip_every_code():
    for ty in (tl.float8e4nv, tl.float8e5):
        codes = np.arange(256, dtype=np.uint8)
        values = numbers.decode(codes, ty)
        back = numbers.encode(values, ty)
        finite = ~np.isnan(values)
        # +0 and -0 keep their codes; every finite code survives.
        assert (back[finite] == codes[finite]).all()


@tile.jit
def _fp8_arith_kernel(x_ptr, y_ptr, out_ptr, lt_ptr, FP8: tl.constexpr,
                      BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(FP8)
    y = tl.load(y_ptr + offs).to(FP8)
    tl.static_assert((x + y).dtype == FP8 and (-x).dtype == FP8)
    tl.store(out_ptr + offs, (x + y).to(tl.float32))
    tl.store(out_ptr + BLOCK + offs, (x * y).to(tl.float32))
    tl.store(out_ptr + 2 * BLOCK + offs, (-x).to(tl.float32))
    tl.store(out_ptr + 3 * BLOCK + offs, tl.maximum(x, y).to(tl.float32))
    tl.store(out_ptr + 4 * BLOCK + offs, tl.fma(x, y, x).to(tl.float32))
    tl.store(lt_ptr + offs, (x < y).to(tl.int32))


@pytest.mark.parametrize("fp8", [tl.float8e4nv, tl.float8e5])
def test_fp8_arithmetic_rounds_the_float32_result(fp8):
    # PTX has no fp8 arithmetic: tile computes in float32 and rounds to the
    # fp8 type (the result fp8 arithmetic rounds to), compiled and here.
    ir = tile.compile(_fp8_arith_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                          "out_ptr": "*fp32", "lt_ptr": "*i32"},
                      {"FP8": fp8, "BLOCK": 8}).asm["tile"]
    assert "arith.addf" in ir and "tensor<8xf32>" in ir
    rng = np.random.default_rng(5)
    x = rng.uniform(-20, 20, 8).astype(np.float32)
    y = rng.uniform(-20, 20, 8).astype(np.float32)
    out, lt = poisoned(40), poisoned(8, np.int32)
    _fp8_arith_kernel[(1,)](x, y, out, lt, FP8=fp8, BLOCK=8)

    def rounded(v):
        return numbers.to_float(np.asarray(v, np.float64), fp8)
    xq, yq = rounded(x), rounded(y)
    np.testing.assert_array_equal(out[:8], rounded(xq + yq))
    np.testing.assert_array_equal(out[8:16], rounded(xq * yq))
    np.testing.assert_array_equal(out[16:24], -xq)
    np.testing.assert_array_equal(out[24:32], np.maximum(xq, yq))
    np.testing.assert_array_equal(
        out[32:], rounded(xq.astype(np.float64) * yq + xq))
    assert lt.tolist() == (xq < yq).astype(np.int32).tolist()


@tile.jit
def _masked_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1.5)
    tl.store(out_ptr + offs, x, mask=offs % 2 == 0)


def test_masks_and_other():
    x = rng.standard_normal(5).astype(np.float32)
    out = poisoned(16)
    _masked_kernel[(1,)](x, out, 5, BLOCK=16)
    want = np.where(np.arange(16) < 5, np.pad(x, (0, 11)), -1.5)
    assert np.array_equal(out[::2], want[::2].astype(np.float32))
    assert np.isnan(out[1::2]).all()


def test_out_of_bounds_access_is_an_error():
    x = np.zeros(5, np.float32)
    out = np.zeros(16, np.float32)
    with pytest.raises(InterpreterError, match="out of bounds"):
        _masked_kernel[(1,)](x, out, 16, BLOCK=16)


@tile.jit
def _atomics_kernel(counts, maxes, flags, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_add(counts + offs % 4, 1)
    tl.atomic_max(maxes + offs % 2, offs * (tl.program_id(0) + 1))
    tl.atomic_cas(flags + tl.program_id(0) % 2, 0, tl.program_id(0) + 1)
    tl.device_assert(old >= 0, "counts only grow")


def test_atomics_serialise_lanes_and_programs():
    counts, maxes, flags = (np.zeros(4, np.int32), np.zeros(2, np.int32),
                            np.zeros(2, np.int32))
    _atomics_kernel[(3,)](counts, maxes, flags, BLOCK=16)
    assert counts.tolist() == [12] * 4
    assert maxes.tolist() == [14 * 3, 15 * 3]
    assert flags.tolist() == [1, 2]


@tile.jit
def _assert_kernel(x_ptr):
    tl.device_assert(tl.load(x_ptr + tl.arange(0, 4)) > 0, "positive")


def test_device_assert_names_the_program_and_lane():
    with pytest.raises(AssertionError, match=r"program \(0, 0, 0\) at idx \(2\): positive"):
        _assert_kernel[(1,)](np.array([1, 2, 0, 3], np.int32))


@tile.jit
def _masked_assert_kernel(x_ptr, n):
    offs = tl.arange(0, 4)
    tl.device_assert(tl.load(x_ptr + offs) > 0, "positive", mask=offs < n)


def test_device_assert_skips_lanes_outside_its_mask():
    x = np.array([1, 2, 0, 3], np.int32)
    _masked_assert_kernel[(1,)](x, 2)
    with pytest.raises(AssertionError, match=r"at idx \(2\): positive"):
        _masked_assert_kernel[(1,)](x, 3)


@tile.jit
def _pick(a, n):
    if n > 0:
        return a * 2.0
    return a


@tile.jit
def _python_kernel(out_ptr, n):
    x = _pick(tl.load(out_ptr), n)
    print("inside the kernel:", x.item())   # plain Python runs in a kernel
    for i in range(10):
        if i == 3:
            tl.store(out_ptr, x)
            return
        tl.store(out_ptr + 1 + i, i)


def test_python_semantics_print_and_early_return(capsys):
    out = np.array([1.5] + [-1.0] * 10, np.float32)
    _python_kernel[(1,)](out, 5)
    assert out.tolist() == [3.0, 0, 1, 2] + [-1.0] * 7
    assert "inside the kernel: 3.0" in capsys.readouterr().out


@tile.jit
def _item_kernel(out_ptr):
    x = tl.load(out_ptr + tl.arange(0, 1))
    v = x.item()
    tl.static_assert(v.dtype == tl.float16)
    print("item %.2f as float %r" % (float(v), float(v) * 3), f"{v:.1f}")
    # The product stays fp16, as compiled: 1/3 rounds to fp16 first.
    tl.store(out_ptr + 1, v * 3)


def test_item_is_a_scalar_of_the_tensor_type(capsys):
    out = np.array([1 / 3, 0], np.float16)
    _item_kernel[(1,)](out)
    assert "item 0.33 as float 0.999755859375 0.3" in capsys.readouterr().out
    assert out[1] == np.float16(np.float16(1 / 3) * np.float16(3))


@tile.jit
def _loop_counter_kernel(out_ptr, n):
    for i in range(n):
        tl.store(out_ptr + i, i.to(tl.float32) if i.dtype == tl.int32 else -1.0)


def test_loop_counters_are_typed_like_the_compiled_loop():
    out = poisoned(4)
    _loop_counter_kernel[(1,)](out, 4)
    assert out.tolist() == [0, 1, 2, 3]


def test_environment_variable_is_read_at_import():
    code = ("import tile.runtime.jit as j; import sys; "
            "sys.exit(0 if j.INTERPRET_ALL else 1)")
    env = dict(os.environ, TILE_INTERPRET="1")
    assert subprocess.run([sys.executable, "-c", code], env=env).returncode == 0
    env["TILE_INTERPRET"] = "0"
    assert subprocess.run([sys.executable, "-c", code], env=env).returncode == 1


def test_interpret_flag_without_environment(monkeypatch):
    monkeypatch.setattr(jit, "INTERPRET_ALL", False)

    @tile.jit(interpret=True)
    def fill(out_ptr, value, BLOCK: tl.constexpr):
        tl.store(out_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), value)
    out = poisoned(32)
    fill[(2,)](out, 2.5, BLOCK=16)
    assert (out == 2.5).all()


def test_wrong_arguments_name_the_argument():
    with pytest.raises(TypeError, match="'x_ptr'"):
        k.add_kernel[(1,)]([1.0], np.zeros(4, np.float32), np.zeros(4, np.float32), 4,
                           BLOCK_SIZE=4)
    with pytest.raises(TypeError, match="'y_ptr'"):
        k.add_kernel[(1,)](np.zeros(4, np.float32), "abc", np.zeros(4, np.float32), 4,
                           BLOCK_SIZE=4)


# ------------------------------------- the project's GPU-kernel sources

def test_classic_vector_add():
    n = 3000
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    out = poisoned(n)
    k.add_kernel[(tile.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    assert rel_err(out, x.astype(np.float64) + y) < 1e-6


@pytest.mark.parametrize("module", ["classic", "bench"])
def test_softmax(module):
    kernels = k if module == "classic" else bench_kernels()
    x = rng.standard_normal((7, 100)).astype(np.float32)
    y = poisoned(x.shape)
    kernels.softmax_kernel[(7,)](y, x, 100, 100, 7, 100, BLOCK_SIZE=128)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    assert rel_err(y, e / e.sum(1, keepdims=True)) < 1e-6


@pytest.mark.parametrize("activation", ["", "leaky_relu"])
def test_classic_matmul(activation):
    M, N, K = 70, 50, 90
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = poisoned((M, N), np.float16)
    grid = (tile.cdiv(M, 32) * tile.cdiv(N, 32),)
    k.matmul_kernel[grid](a, b, c, M, N, K, K, 1, N, 1, N, 1, BLOCK_M=32, BLOCK_N=32,
                          BLOCK_K=32, GROUP_M=2, ACTIVATION=activation)
    ref = a.astype(np.float64) @ b
    if activation:
        ref = np.where(ref >= 0, ref, 0.01 * ref)
    assert rel_err(c, ref) < 2e-3


def test_classic_layer_norm_forward_and_backward():
    rows, cols, groups = 9, 77, 4
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    w, b = rng.standard_normal(cols, np.float32), rng.standard_normal(cols, np.float32)
    y, mean, rstd = poisoned((rows, cols)), poisoned(rows), poisoned(rows)
    k.layer_norm_fwd[(rows,)](x, y, w, b, mean, rstd, cols, cols, 1e-5, BLOCK_SIZE=32)
    xd = x.astype(np.float64)
    mu, var = xd.mean(1, keepdims=True), xd.var(1, keepdims=True)
    xhat = (xd - mu) / np.sqrt(var + 1e-5)
    assert rel_err(y, xhat * w + b) < 1e-5
    dy = rng.standard_normal((rows, cols)).astype(np.float32)
    dx, dw, db = poisoned((rows, cols)), poisoned((groups, cols)), poisoned((groups, cols))
    lock = np.zeros(2 * groups, np.int32)
    k.layer_norm_bwd_dx[(rows,)](dx, dy, dw, db, x, w, mean, rstd, lock, cols, cols,
                                 GROUP_SIZE_M=groups, BLOCK_SIZE_N=128)
    wdy = w * dy.astype(np.float64)
    c1 = (xhat * wdy).mean(1, keepdims=True)
    c2 = wdy.mean(1, keepdims=True)
    assert rel_err(dx, (wdy - (xhat * c1 + c2)) / np.sqrt(var + 1e-5)) < 1e-5
    assert rel_err(dw.sum(0), (dy * xhat).sum(0)) < 1e-5
    assert rel_err(db.sum(0), dy.sum(0)) < 1e-5
    assert (lock[:groups] == 0).all()


def test_masked_histogram():
    x = rng.integers(0, 256, 300).astype(np.uint8)
    x[:40] = 255
    hist = np.zeros(256, np.int32)
    k.masked_histogram_kernel[(1,)](x, hist, 200, BLOCK=512, BINS=256)
    np.testing.assert_array_equal(hist, np.bincount(x[:200], minlength=256))


def test_classic_cumsum_argmax_transpose_histogram():
    x = rng.standard_normal((5, 100)).astype(np.float32)
    cum, arg = poisoned(x.shape), poisoned(5, np.int32)
    k.cumsum_argmax_kernel[(5,)](x, cum, arg, 100, BLOCK=128)
    assert rel_err(cum, np.cumsum(x.astype(np.float64), 1)) < 1e-5
    assert arg.tolist() == x.argmax(1).tolist()
    t = rng.standard_normal((40, 24)).astype(np.float32)
    out = poisoned((24, 40))
    k.transpose_kernel[(3, 2)](t, out, 40, 24, BLOCK_M=16, BLOCK_N=16)
    assert np.array_equal(out, t.T)
    v = rng.integers(-5, 21, 1000).astype(np.int32)
    hist = np.zeros(16, np.int32)
    k.histogram_kernel[(4,)](v, hist, 1000, BLOCK=256, BINS=16)
    assert hist.tolist() == np.bincount(v[(v >= 0) & (v < 16)], minlength=16).tolist()


def test_classic_scalar_while_if():
    out = poisoned(1, np.int32)
    k.scalar_loop_kernel[(1,)](out, 20, 7)
    i = total = 0
    while i < 20:
        if i % 3 == 0:
            total += i
        elif i > 7:
            total -= 1
        else:
            total = total * 2
        i += 1
    assert out[0] == total


def test_classic_misc_ops_and_print(capsys):
    x = rng.integers(0, 1000, 16).astype(np.int32)
    out = poisoned(16, np.int32)
    k.misc_ops_kernel[(1,)](x, out, BLOCK=16)
    h = np.bincount(x % 16, minlength=16)
    u = (x.astype(np.uint64) * 7) >> 32
    want = x + (x + 1) + u.astype(np.int32) + (2 * x.sum() + 16) + h.sum()
    assert out.tolist() == want.astype(np.int32).tolist()
    assert "pid (0, 0, 0) idx (0) h" in capsys.readouterr().out


def test_classic_dropout_and_randn():
    n = 2000
    x = rng.standard_normal(n).astype(np.float32)
    out = poisoned(n)
    k.dropout_kernel[(2,)](x, out, n, 0.3, 1234, BLOCK_SIZE=1024)
    kept = out != 0
    assert 0.6 < kept.mean() < 0.8
    assert np.allclose(out[kept], x[kept] / 0.7, rtol=1e-6)
    again = poisoned(n)
    k.dropout_kernel[(2,)](x, again, n, 0.3, 1234, BLOCK_SIZE=1024)
    assert np.array_equal(out, again)
    r = poisoned(1024)
    k.randn_kernel[(1,)](r, 99, BLOCK=1024)
    assert abs(r.mean()) < 0.15 and 0.85 < r.std() < 1.15


@pytest.mark.parametrize("causal", [False, True])
def test_classic_attention(causal):
    seq, d = 40, 16
    q, kk, v = (rng.standard_normal((seq, d)).astype(np.float16) for _ in range(3))
    out = poisoned((seq, d), np.float16)
    k.attention_fwd_kernel[(tile.cdiv(seq, 16), 1)](q, kk, v, out, 0.25, d, d, d, d, seq,
                                                    BLOCK_M=16, BLOCK_N=16, HEAD_DIM=d,
                                                    CAUSAL=causal)
    s = q.astype(np.float64) @ kk.astype(np.float64).T * 0.25
    if causal:
        s = np.where(np.tril(np.ones((seq, seq), bool)), s, -np.inf)
    p = np.exp(s - s.max(1, keepdims=True))
    assert rel_err(out, (p / p.sum(1, keepdims=True)) @ v) < 5e-3


def test_classic_user_combiners_and_casts():
    x = rng.standard_normal(32).astype(np.float32)
    out, idx = poisoned(32), poisoned(1, np.int32)
    k.user_combiner_kernel[(1,)](x, out, idx, BLOCK=32)
    assert idx[0] == x.argmax()
    assert rel_err(out, np.cumsum(x[::-1].astype(np.float64))[::-1]) < 1e-5
    n = 100
    h = (rng.standard_normal(n) * 2).astype(np.float16)
    outs, ints = poisoned(n * 8), poisoned(n * 2, np.int32)
    k.casts_math_kernel[(1,)](h, outs, ints, n, BLOCK=128)
    xd = h.astype(np.float64)
    from math import erf
    assert rel_err(outs[0::8], np.exp(xd) + np.log(abs(xd) + 1)) < 1e-5
    assert rel_err(outs[3::8], np.vectorize(erf)(xd) + np.exp2(xd) - np.log2(abs(xd) + 2)) < 1e-5
    assert rel_err(outs[6::8], xd * 3) < 1e-6
    i = np.trunc(h.astype(np.float32) * np.float32(100)).astype(np.int32)
    assert ints[0::2].tolist() == i.tolist()
    assert ints[1::2].tolist() == ((i & 0xFF) + (i >> 3)).tolist()


def test_bench_matmul_persistent():
    kernels = bench_kernels()
    M, N, K = 64, 48, 64
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = poisoned((M, N), np.float16)
    kernels.matmul_persistent_kernel[(3,)](a, b, c, M, N, K, K, 1, N, 1, N, 1,
                                           BLOCK_M=32, BLOCK_N=16, BLOCK_K=32,
                                           GROUP_M=2, NUM_SMS=3)
    assert rel_err(c, a.astype(np.float64) @ b) < 2e-3


def test_autotuned_kernel_runs_its_first_config_untimed():
    # Timings in the interpreter say nothing about a GPU: no compile, no
    # benchmark (which would need CUDA), the first candidate runs.
    calls = []

    @tile.autotune(configs=[tile.Config({"BLOCK": 64}), tile.Config({"BLOCK": 32})],
                   key=["n"], do_bench=lambda fn: calls.append(fn) or 1.0)
    @tile.jit(interpret=True)
    def scale(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2,
                  mask=offs < n)

    x = np.arange(100, dtype=np.float32)
    scale[lambda meta: (tile.cdiv(100, meta["BLOCK"]),)](x, 100)
    assert np.array_equal(x, np.arange(100, dtype=np.float32) * 2)
    assert calls == [] and scale.best_config.kwargs == {"BLOCK": 64}


def test_conversion_kernels():
    # python/test/kernels/conversions.py, on shapes the CPU runs quickly:
    # the interpreter has no layouts, so these check the kernels' meaning.
    from kernels import conversions as cv
    kernels = [cv.scale_1d_kernel, cv.scale_2d_kernel, cv.transpose_kernel,
               cv.channel_norm_kernel]
    for kernel in kernels:
        kernel.interpret = True
    try:
        _run_conversion_kernels(cv)
    finally:
        for kernel in kernels:
            kernel.interpret = False


def _run_conversion_kernels(cv):
    rng = np.random.default_rng(7)
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    cv.scale_1d_kernel[(2,)](x, y, n, BLOCK=512)
    assert np.array_equal(y, x * 3)
    M, N = 40, 48
    x2 = rng.standard_normal((M, N)).astype(np.float32)
    y2 = np.full((M, N + 1), np.nan, np.float32)
    cv.scale_2d_kernel[(2, 2)](x2, y2, M, N, N + 1, ROWS=32,
                                             COLS=32)
    assert np.array_equal(y2[:, :N], x2 * 3)
    yt = np.full((N, M), np.nan, np.float32)
    cv.transpose_kernel[(2, 2)](x2, yt, M, N, ROWS=32, COLS=32)
    assert np.array_equal(yt, (x2 * 3).T)
    rows, per_channel = 2, 4
    xs = rng.standard_normal((rows, 64)).astype(np.float32)
    w = rng.standard_normal(16).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    out = np.full_like(xs, np.nan)
    cv.channel_norm_kernel[(rows,)](xs, w, b, out, 64,
                                                  per_channel, 1e-5, BLOCK=32)
    xd = xs.astype(np.float64)
    ref = (xd - xd.mean(1, keepdims=True)) / np.sqrt(xd.var(1, keepdims=True)
                                                     + 1e-5)
    ref = ref * np.repeat(w, per_channel) + np.repeat(b, per_channel)
    assert np.abs(out - ref).max() < 1e-5


# ------------------------------------------------ quantised kernels (bf16)

def bf16_bits(values):
    """float32 values rounded to bf16 (nearest even), as uint16 bits."""
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def packed_int4(K, N, bk):
    """Random int4 weights w (KxN) and their packing for bk-wide K steps, as
    python/test/test_gpu_quantized.py packs them."""
    lo = rng.integers(-8, 8, (K // 2, N)).astype(np.int16)
    hi = rng.integers(-8, 8, (K // 2, N)).astype(np.int16)
    packed = (hi * 16 + (lo & 15)).astype(np.int8)
    w = np.concatenate([lo.reshape(K // bk, bk // 2, N),
                        hi.reshape(K // bk, bk // 2, N)], axis=1).reshape(K, N)
    return w, packed


def test_reinterpret_checks_widths_and_unwraps():
    bits = np.zeros(4, np.uint16)
    wrapped = tile.reinterpret(bits, tl.bfloat16)
    assert wrapped.dtype == tl.bfloat16 and wrapped.shape == (4,)
    assert wrapped.data_ptr() == bits.__array_interface__["data"][0]
    assert wrapped.stride() == (1,) and wrapped.element_size() == 2
    assert tile.reinterpret(wrapped, tl.float16).base is bits
    with pytest.raises(ValueError, match="16 bits and tl.float32 is 32"):
        tile.reinterpret(bits, tl.float32)
    with pytest.raises(TypeError, match="tile.language dtype"):
        tile.reinterpret(bits, "bf16")


def test_reinterpreted_bits_load_as_their_new_type():
    @tile.jit
    def widen(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs).to(tl.float32))

    x = rng.standard_normal(16).astype(np.float32)
    bits = bf16_bits(x)
    y = poisoned(16)
    widen[(1,)](tile.reinterpret(bits, tl.bfloat16), y, BLOCK=16)
    assert np.array_equal(y, bf16_values(bits))
    assert np.abs(y - x).max() <= np.abs(x).max() * 2 ** -8


@pytest.mark.parametrize("stages", [1, 3])
def test_quantized_int8_weight_matmul(stages):
    from kernels import quantized as q
    M, N, K, bm, bn, bk = 40, 36, 80, 32, 32, 32  # masked rows, columns, K
    a = bf16_bits(rng.standard_normal((M, K)))
    b = rng.integers(-128, 128, (K, N)).astype(np.int8)
    c = poisoned((M, N))
    q.int8_weight_matmul_kernel[(2, 2)](
        tile.reinterpret(a, tl.bfloat16), b, c, M, N, K, K, N, N,
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_stages=stages)
    assert rel_err(c, bf16_values(a).astype(np.float64) @ b) < 1e-5


def test_quantized_int4_weight_matmuls():
    from kernels import quantized as q
    M, N, K, bm, bn, bk = 40, 36, 128, 32, 32, 64
    a = bf16_bits(rng.standard_normal((M, K)))
    ref = bf16_values(a).astype(np.float64)
    w, packed = packed_int4(K, N, bk)
    c = poisoned((M, N))
    q.int4_weight_matmul_kernel[(2, 2)](
        tile.reinterpret(a, tl.bfloat16), packed, c, M, N, K, K, N, N,
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk)
    assert rel_err(c, ref @ w) < 1e-5
    for add in (False, True):
        out = np.full((M, N), 0x7FC0, np.uint16)  # bf16 NaN
        q.int4_weight_matmul_pointers_kernel[(2, 2)](
            tile.reinterpret(a, tl.bfloat16), packed,
            tile.reinterpret(out, tl.bfloat16), M, N, K, K, 1, N, 1, N, 1,
            BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SUM=add)
        assert rel_err(bf16_values(out), ref @ w) < 4e-3


# --------------------------- the rest of classic.py: print, assert, fp8

def test_classic_print_and_assert(capsys):
    x = (10 * np.arange(4) + 3).astype(np.int32)
    k.print_kernel[(2,)](x, BLOCK=4)
    lines = capsys.readouterr().out.splitlines()
    for pid in (0, 1):
        for i in range(4):
            assert f"pid ({pid}, 0, 0) idx ({i}) x={10 * i + 3}" in lines
        assert f"pid ({pid}, 0, 0) pid-only" in lines
    k.assert_kernel[(1,)](x, BLOCK=4)
    with pytest.raises(AssertionError, match=r"idx \(2\): x must be non-negative"):
        k.assert_kernel[(1,)](np.array([1, 2, -3, 4], np.int32), BLOCK=4)


def fp8_table(e5m2):
    """Every finite fp8 code's value, decoded from the bit fields (e4m3fn:
    bias 7, no infinities, 0x7f/0xff NaN; e5m2: bias 15, IEEE-like)."""
    exp_bits, man_bits = (5, 2) if e5m2 else (4, 3)
    bias = (1 << (exp_bits - 1)) - 1
    values = {}
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        e = (code >> man_bits) & ((1 << exp_bits) - 1)
        m = code & ((1 << man_bits) - 1)
        if e5m2 and e == 31 or not e5m2 and (code & 0x7f) == 0x7f:
            continue  # inf or NaN
        if e == 0:
            values[code] = sign * m * 2.0 ** (1 - bias - man_bits)
        else:
            values[code] = sign * (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
    return values


@pytest.mark.parametrize("e5m2", [False, True])
def test_classic_fp8_roundtrip(e5m2):
    n = 3000
    x = (rng.standard_normal(n) * (100.0 if e5m2 else 8.0)).astype(np.float32)
    x[:4] = [1e6, -1e6, 0.0, -0.0]
    y = np.full(n, 0x7f, np.uint8)
    z = poisoned(n)
    t = np.full(n, 0x7FC0, np.uint16)
    fp8 = tl.float8e5 if e5m2 else tl.float8e4nv
    k.fp8_roundtrip_kernel[(3,)](x, tile.reinterpret(y, fp8), z,
                                 tile.reinterpret(t, tl.bfloat16), n,
                                 BLOCK=1024, E5M2=e5m2)
    table = fp8_table(e5m2)
    values = np.array(sorted(set(table.values())))
    decoded = np.array([table[c] for c in y.tolist()])
    # Nearest representable value (saturating at the largest finite one).
    nearest = np.abs(x[:, None].astype(np.float64) - values[None, :]).min(1)
    assert np.array_equal(np.abs(decoded - x), nearest)
    assert decoded[0] == values.max() and decoded[1] == values.min()
    assert y[2] == 0x00 and y[3] == 0x80
    assert np.array_equal(z, decoded.astype(np.float32))
    assert np.array_equal(t, (x.view(np.uint32) >> 16).astype(np.uint16))


@tile.jit
def descriptor_shape_kernel(x_ptr, desc, out, M, N, HOST: tl.constexpr):
    if HOST:
        d = desc
    else:
        d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [8, 32])
    tl.store(out, d.shape[0] * 1000 + d.shape[1])


def test_descriptor_shape_as_compiled(monkeypatch):
    # A made descriptor's shape is the sizes it was given; a host one's is
    # refused, as the compiler refuses it (its sizes are not in the kernel).
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)
    x = np.zeros((16, 64), np.float32)
    out = np.zeros(1, np.int32)
    descriptor_shape_kernel[(1,)](x, None, out, 16, 64, HOST=False)
    assert out[0] == 16064
    host = tile.TensorDescriptor(x, [16, 64], [64, 1], [8, 32])
    with pytest.raises(core.sem.SemanticError, match="shape of a host tensor"):
        descriptor_shape_kernel[(1,)](x, host, out, 16, 64, HOST=True)


@tile.jit
def descriptor_copy_kernel(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    dst.store([r, c], src.load([r, c]) + 1)


def test_descriptor_from_numpy_arrays(monkeypatch):
    # The interpreter's tensors are numpy arrays: from_tensor takes their
    # strides (in bytes there) as elements, a strided view's too.
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)
    rng = np.random.default_rng(7)
    big = rng.standard_normal((40, 96)).astype(np.float32)
    src = big[:, 16:80]  # rows 96 elements apart
    dst = np.full((40, 64), np.nan, np.float32)
    a = tile.TensorDescriptor.from_tensor(src, [16, 32])
    b = tile.TensorDescriptor.from_tensor(dst, [16, 32])
    assert a.strides == [96, 1] and a.shape == [40, 64]
    descriptor_copy_kernel[(3, 2)](a, b, BM=16, BN=32)
    assert np.array_equal(dst, src + 1)
    with pytest.raises(TypeError, match="takes a tensor.*got list"):
        tile.TensorDescriptor.from_tensor([[1.0]], [8, 32])


@tile.jit
def _warps_as_parameter_kernel(out, BLOCK: tl.constexpr,
                               num_warps: tl.constexpr):
    # Liger's sparsemax takes the launch's warp count as a parameter too.
    offsets = tl.arange(0, BLOCK)
    tl.store(out + offsets, offsets * 0 + num_warps)


def test_a_launch_option_that_is_a_parameter_is_that_argument():
    out = poisoned(8, np.int32)
    _warps_as_parameter_kernel[(1,)](out, BLOCK=8, num_warps=2)
    assert out.tolist() == [2] * 8
