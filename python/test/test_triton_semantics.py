"""Triton's rules for constructs its own test suite (test_core.py) checks:
expand_dims axes, isinstance/hasattr on runtime values, splitting a pair
to scalars, a one-element `if` condition, and the error wordings Triton's
tests match. Each is checked compiled and interpreted."""

import numpy as np
import pytest

import tile
import tile.language as tl
from tile.runtime import jit


def compiled(fn, signature, **constexprs):
    return tile.compile(fn, signature=signature, constexprs=constexprs)


@pytest.fixture
def interpreted(monkeypatch):
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)


@tile.jit
def expand_shapes(out, N: tl.constexpr):
    r = tl.arange(0, N)
    tl.static_assert(tl.expand_dims(r, -2).shape == [1, N])
    tl.static_assert(tl.expand_dims(r, (0, -1)).shape == [1, N, 1])
    tl.static_assert(tl.expand_dims(r, (0, 1, 3)).shape == [1, 1, N, 1])
    tl.static_assert(tl.expand_dims(r, (-4, 2, -1)).shape == [1, N, 1, 1])
    tl.static_assert(tl.expand_dims(r, (3, 1, 2)).shape == [N, 1, 1, 1])
    tl.static_assert(tl.expand_dims(tl.sum(r), -1).shape == [1])
    tl.store(out + r, r)


def test_expand_dims_axes_count_from_the_result(interpreted):
    # Negative axes name positions of the result (rank + len(axes)).
    out = np.zeros(8, np.int32)
    expand_shapes[(1,)](out, N=8)
    assert out.tolist() == list(range(8))


def test_expand_dims_axes_compile():
    assert len(compiled(expand_shapes, {"out": "*i32"}, N=8).asm["cubin"]) > 0


@tile.jit
def expand_bad(out, AXES: tl.constexpr):
    tl.store(out + tl.arange(0, 8)[None, :], tl.expand_dims(tl.arange(0, 8), AXES))


@pytest.mark.parametrize("axes, message", [
    (-3, "invalid axis -3"), (2, "invalid axis 2"),
    ((0, 0), r"duplicate axes, normalized axes = \[0, 0\]"),
    ((0, -3), r"duplicate axes, normalized axes = \[0, 0\]")])
def test_expand_dims_bad_axes_are_errors_at_the_line(axes, message):
    with pytest.raises(tile.CompilationError, match=message) as info:
        compiled(expand_bad, {"out": "*i32"}, AXES=axes)
    assert "tl.expand_dims(tl.arange(0, 8), AXES)" in str(info.value)


@tile.jit
def bad_program_id(out):
    tl.store(out, tl.program_id(20))


@tile.jit
def bad_slice(out):
    x = tl.load(out + tl.arange(0, 16))
    tl.store(out + tl.arange(0, 8), x[8:])


@pytest.mark.parametrize("kernel, message", [
    (bad_program_id, "program_id axis must be 0, 1, or 2 but got 20"),
    (bad_slice, "unsupported tensor index")])
def test_triton_error_wordings(kernel, message):
    with pytest.raises(tile.CompilationError, match=message):
        compiled(kernel, {"out": "*i32"})


@tile.jit
def store_if_int32_pointer(x):
    if (x is not None) and hasattr(x, "dtype") and isinstance(
            x.dtype, tl.pointer_type) and (x.dtype.element_ty == tl.int32) and \
            (tl.load(x) > 42):
        tl.store(x, 42)


@pytest.mark.parametrize("signature, constexprs, stores", [
    ({}, {"x": None}, False), ({}, {"x": 1}, False), ({"x": "i32"}, {}, False),
    ({"x": "*fp32"}, {}, False), ({"x": "*i32"}, {}, True)])
def test_isinstance_and_hasattr_of_runtime_values_fold(signature, constexprs, stores):
    kernel = tile.compile(store_if_int32_pointer, signature=signature,
                          constexprs=constexprs)
    assert ("tile.store" in kernel.asm["tile"]) == stores


@pytest.mark.parametrize("dtype, value, want", [
    (np.float32, 84.0, 84.0), (np.int32, 100000, 42), (np.int32, -7, -7),
    (np.int64, 100000, 100000)])
def test_isinstance_and_hasattr_interpreted(interpreted, dtype, value, want):
    x = np.full(1, value, dtype)
    store_if_int32_pointer[(1,)](x)
    assert x[0] == want


@tile.jit
def split_pair(x_ptr, lo_ptr, hi_ptr):
    lo, hi = tl.split(tl.load(x_ptr + tl.arange(0, 2)))
    tl.static_assert(isinstance(lo, tl.tensor) and lo.shape == [])
    tl.store(lo_ptr, lo)
    tl.store(hi_ptr, hi)


def test_a_pair_splits_into_scalars(interpreted):
    lo, hi = np.zeros(1, np.int64), np.zeros(1, np.int64)
    split_pair[(1,)](np.array([5, 9], np.int64), lo, hi)
    assert (lo[0], hi[0]) == (5, 9)


def test_a_pair_splits_into_scalars_compiled():
    kernel = compiled(split_pair, {"x_ptr": "*i64", "lo_ptr": "*i64", "hi_ptr": "*i64"})
    assert len(kernel.asm["cubin"]) > 0


@tile.jit
def one_element_condition(x, EXPLICIT: tl.constexpr):
    condition = tl.load(x + tl.arange(0, 1)) > 42
    if EXPLICIT:
        condition = condition.item()
    if condition:
        tl.store(x, 42)


@pytest.mark.parametrize("explicit", [False, True])
@pytest.mark.parametrize("value, want", [(41, 41), (43, 42)])
def test_a_one_element_condition_is_its_element(interpreted, explicit, value, want):
    x = np.full(1, value, np.int32)
    one_element_condition[(1,)](x, EXPLICIT=explicit)
    assert x[0] == want


def test_a_one_element_condition_compiles_with_a_warning():
    with pytest.warns(UserWarning, match="multidimensional Tensor"):
        kernel = compiled(one_element_condition, {"x": "*i32"}, EXPLICIT=False)
    assert "scf.if" in kernel.asm["tile"]


@tile.jit
def two_element_condition(x):
    if tl.load(x + tl.arange(0, 2)) > 0:
        tl.store(x, 1)


def test_a_two_element_condition_is_an_error():
    with pytest.raises(tile.CompilationError, match="must be a scalar"):
        compiled(two_element_condition, {"x": "*i32"})


@pytest.mark.parametrize("dtype, mantissa, bias", [
    (tl.float8e4nv, 3, 7), (tl.float8e5, 2, 15), (tl.float8e4b15, 3, 15),
    (tl.float16, 10, 15), (tl.bfloat16, 7, 127), (tl.float32, 23, 127),
    (tl.float64, 52, 1023)])
def test_float_format_fields(dtype, mantissa, bias):
    assert (dtype.fp_mantissa_width, dtype.exponent_bias) == (mantissa, bias)
    # The fields account for every bit but the sign.
    exponent = dtype.primitive_bitwidth - mantissa - 1
    assert (exponent, bias) in ((4, 7), (4, 15), (5, 15), (8, 127), (11, 1023), (4, 8), (5, 16))


def test_integers_have_no_float_fields():
    assert not hasattr(tl.int32, "fp_mantissa_width")
    with pytest.raises(AttributeError, match="not a floating-point type"):
        tl.int8.exponent_bias


@tile.jit
def add_literal(out, HUGE: tl.constexpr):
    x = tl.full((), 32, dtype=tl.int32)
    tl.store(out, x + HUGE)


def test_an_int_literal_that_does_not_fit_is_an_error():
    # A literal takes the typed operand's type (int32); one outside it is
    # an error at the line rather than a widened or wrapped sum.
    with pytest.raises(tile.CompilationError, match="out of range for type tl.int32"):
        compiled(add_literal, {"out": "*i64"}, HUGE=0xFFFFFFFFFFFFFF)
    assert len(compiled(add_literal, {"out": "*i64"}, HUGE=2**31 - 1).asm["cubin"]) > 0


def test_an_int_literal_that_does_not_fit_is_an_error_interpreted(interpreted):
    with pytest.raises(Exception, match="out of range for type tl.int32"):
        add_literal[(1,)](np.zeros(1, np.int64), HUGE=-2**31 - 1)


@pytest.mark.parametrize("literal, ir_type", [
    (1e+50, "f64"), (1e-50, "f64"), (1e+10, "f32"), (1.0, "f32"), (0.0, "f32"),
    (float("inf"), "f32"), (float("nan"), "f32"), (2**40, "i64"), (5, "i32")])
def test_assigned_literals_take_the_type_that_holds_them(literal, ir_type):
    from tile.language import semantic as sem
    # A float beyond float32's normal range is float64 (1e50 would be inf).
    assert sem.python_scalar_type(literal).to_ir() == ir_type


@tile.jit
def abs_kernel(x_ptr, z_ptr, SIZE: tl.constexpr):
    offs = tl.arange(0, SIZE)
    tl.store(z_ptr + offs, tl.abs(tl.load(x_ptr + offs)))


@pytest.mark.parametrize("dtype", ["fp8e4nv", "fp8e5"])
def test_fp8_abs_clears_the_sign_bit(dtype):
    # fp8 has no float arithmetic to lower math.absf to: |x| is x & 0x7f.
    kernel = compiled(abs_kernel, {"x_ptr": "*" + dtype, "z_ptr": "*" + dtype},
                      SIZE=256)
    assert "arith.andi" in kernel.asm["tile"] and "math.absf" not in kernel.asm["tile"]
    assert len(kernel.asm["cubin"]) > 0


def test_a_compile_error_keeps_its_cause_without_tile_frames():
    # Triton's tests read the message off error.__cause__.
    with pytest.raises(tile.CompilationError) as info:
        compiled(bad_program_id, {"out": "*i32"})
    cause = info.value.__cause__
    assert "program_id axis must be 0, 1, or 2 but got 20" in str(cause)
    assert cause.__traceback__ is None


@tile.jit
def slices(x_ptr, out_ptr):
    t = (1, 2, 3, 4)
    part = t[tl.slice(1, 3, None)]
    tl.static_assert(len(part) == 2 and part[0] == 2)
    x = tl.load(x_ptr + tl.arange(0, 4))
    y = x[tl.slice(None, None, None), None]
    tl.static_assert(y.shape == [4, 1])
    tl.store(out_ptr + tl.arange(0, 4)[:, None], y + part[1])


def test_tl_slice_indexes_tuples_and_keeps_axes(interpreted):
    x = np.arange(4, dtype=np.int32)
    out = np.zeros(4, np.int32)
    slices[(1,)](x, out)
    assert out.tolist() == [3, 4, 5, 6]


def test_tl_slice_compiles():
    assert len(compiled(slices, {"x_ptr": "*i32", "out_ptr": "*i32"}).asm["cubin"]) > 0
