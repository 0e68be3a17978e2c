"""Triton's small core names in tile (add, sub, mul, reduce_or, to_tensor,
max_constancy, PropagateNan, pi32_t): interpreted against numpy, compiled,
and their errors."""

import numpy as np
import pytest

import tile
import tile.language as tl
from kernels import core_names as cn

rng = np.random.default_rng(11)
BLOCK = 64


def test_int_names_interpreted():
    x = rng.integers(-1000, 1000, BLOCK).astype(np.int32)
    y = rng.integers(0, 1 << 20, BLOCK).astype(np.int32)
    out = np.full(4 * BLOCK + 1 + BLOCK // 2, -7, np.int32)
    tile.jit(cn.int_names.fn, interpret=True)[(1,)](x, y, out, BLOCK=BLOCK)
    assert out.tolist() == cn.int_reference(x, y).tolist()


def test_nan_max_interpreted():
    x = rng.standard_normal(BLOCK).astype(np.float32)
    y = rng.standard_normal(BLOCK).astype(np.float32)
    x[::7] = np.nan
    out = np.full(2 * BLOCK, 3.0, np.float32)
    tile.jit(cn.nan_max.fn, interpret=True)[(1,)](x, y, out, BLOCK=BLOCK)
    np.testing.assert_array_equal(out[:BLOCK], np.maximum(x, y))   # NaN wins
    np.testing.assert_array_equal(out[BLOCK:], np.fmin(x, y))      # NaN loses


def test_compile():
    tile.compile(cn.int_names, {"x_ptr": "*i32", "y_ptr": "*i32", "out_ptr": "*i32"},
                 {"BLOCK": BLOCK})
    ir = tile.compile(cn.nan_max, {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                   "out_ptr": "*fp32"}, {"BLOCK": BLOCK}).asm["tile"]
    assert "arith.maximumf" in ir and "arith.minnumf" in ir


def test_names():
    assert tl.pi32_t == tl.pointer_type(tl.int32)
    assert not tl.PropagateNan.NONE and tl.PropagateNan.ALL


@tile.jit
def bad_constancy(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.max_constancy(x, n))


def test_max_constancy_needs_constexprs():
    with pytest.raises(tile.CompilationError, match="max_constancy") as info:
        tile.compile(bad_constancy, {"x_ptr": "*i32", "n": "i32"}, {"BLOCK": 16})
    assert "test_core_names.py:" in str(info.value) and "^" in str(info.value)


def _run_scalar_pairs(kernel):
    out = np.full(3, -1, np.int32)
    kernel[(1,)](out, 10, 20)
    return out.tolist()


def test_scalar_join_and_item_interpreted():
    assert _run_scalar_pairs(tile.jit(cn.scalar_pairs.fn, interpret=True)) == [10, 20, 30]


def test_scalar_join_and_item_compile():
    ir = tile.compile(cn.scalar_pairs, {"out_ptr": "*i32", "x": "i32", "y": "i32"}).asm["tile"]
    assert "tile.join" in ir and "tensor<1x2xi32>" in ir and "tile.reduce" in ir


@tile.jit
def _item_of_many(p):
    tl.store(p, tl.zeros((4,), tl.int32).item())


def test_item_of_many_elements_is_located():
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(_item_of_many, {"p": "*i32"})
    assert "item() needs a tensor of one element, got shape [4]" in str(info.value)
    assert "tl.zeros((4,), tl.int32).item()" in str(info.value)


def test_item_of_many_elements_fails_in_the_interpreter_too():
    from tile.language.semantic import SemanticError
    out = np.zeros(1, np.int32)
    with pytest.raises(SemanticError,
                       match=r"item\(\) needs a tensor of one element, got shape \[4\]"):
        tile.jit(_item_of_many.fn, interpret=True)[(1,)](out)


def test_shapes_and_type_names_as_triton_spells_them():
    assert tl.tuple((2, 3)) == [2, 3] and tl.tuple((2, 3)) != [3, 2]
    assert tl.str_to_ty("fp16", None) == tl.float16
    assert tl.str_to_ty("*i32") == tl.pointer_type(tl.int32)
    knobs = tile.knobs.cache.knob_descriptors
    assert knobs["dir"].key == "TILE_CACHE_DIR"


def test_signed_shift_by_unsigned_is_arithmetic():
    x = rng.integers(-128, 128, BLOCK).astype(np.int8)
    y = rng.integers(0, 16, BLOCK).astype(np.uint16)
    out = np.zeros(BLOCK, np.uint16)
    tile.jit(cn.mixed_shift.fn, interpret=True)[(1,)](x, y, out, BLOCK=BLOCK)
    assert out.tolist() == cn.mixed_shift_reference(x, y).tolist()
    ir = tile.compile(cn.mixed_shift, {"x_ptr": "*i8", "y_ptr": "*u16", "out_ptr": "*u16"},
                      {"BLOCK": BLOCK}).asm["tile"]
    assert "arith.shrsi" in ir and "arith.shrui" not in ir


@tile.jit
def _mod_mixed_signedness(p, q):
    tl.store(p, tl.load(p) % tl.load(q))


def test_division_of_mixed_signedness_is_refused():
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(_mod_mixed_signedness, {"p": "*i8", "q": "*u16"})
    assert "different signedness" in str(info.value)
    assert "tl.load(p) % tl.load(q)" in str(info.value)


def test_cast_method():
    x = (rng.standard_normal(BLOCK) * 100).astype(np.float32)
    out = np.zeros(BLOCK, np.int32)
    tile.jit(cn.cast_method.fn, interpret=True)[(1,)](x, out, BLOCK=BLOCK)
    with np.errstate(over="ignore"):
        want = x.view(np.int32) + x.astype(np.int32)
    assert out.tolist() == want.tolist()
    ir = tile.compile(cn.cast_method, {"x_ptr": "*fp32", "out_ptr": "*i32"},
                      {"BLOCK": BLOCK}).asm["tile"]
    assert "tile.bitcast" in ir and "arith.fptosi" in ir
