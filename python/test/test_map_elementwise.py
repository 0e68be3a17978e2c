"""tl.map_elementwise: per-element control flow, packs and several
results; it compiles to PTX (the region cloned per pack of registers), the
interpreter matches numpy, and misuse is a CompilationError at the line."""

import numpy as np
import pytest

import tile
import tile.language as tl
from kernels.mapping import (clipped_log_kernel, clipped_log_reference,
                             compare, compare_kernel, compare_reference,
                             divmod_kernel)


def interpreted(kernel):
    return tile.jit(kernel.fn, interpret=True)


def test_compare_with_branches_matches_numpy():
    rng = np.random.default_rng(0)
    x = rng.integers(-5, 5, 128).astype(np.int32)
    y = rng.integers(-5, 5, 128).astype(np.int32)
    out = np.full(128, 7, np.int32)
    interpreted(compare_kernel)[(1,)](x, y, out, 128)
    np.testing.assert_array_equal(out, compare_reference(x, y))


@pytest.mark.parametrize("N", [2, 64])
def test_divmod_in_packs_of_two(N):
    rng = np.random.default_rng(N)
    a = rng.integers(0, 1000, N).astype(np.int32)
    b = rng.integers(1, 50, N).astype(np.int32)
    q, r = np.zeros_like(a), np.zeros_like(a)
    interpreted(divmod_kernel)[(1,)](a, b, q, r, N, 2)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)


def test_nested_ifs_on_a_broadcast_scalar():
    x = np.random.default_rng(3).standard_normal((8, 16)).astype(np.float32) * 3
    out = np.zeros_like(x)
    interpreted(clipped_log_kernel)[(1,)](x, out, 8, 16)
    np.testing.assert_allclose(out, clipped_log_reference(x), rtol=1e-6)


@pytest.mark.parametrize("kernel,signature,constexprs,count", [
    (compare_kernel, {"x_ptr": "*i32", "y_ptr": "*i32", "out_ptr": "*i32"},
     {"N": 128}, 1),
    (divmod_kernel, {"a_ptr": "*i32", "b_ptr": "*i32", "q_ptr": "*i32",
                     "r_ptr": "*i32"}, {"N": 512, "PACK": 2}, 1),
    (clipped_log_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"},
     {"M": 8, "N": 16}, 1),
])
def test_compiles_to_ptx(kernel, signature, constexprs, count):
    compiled = tile.compile(kernel, signature, constexprs)
    assert ".entry" in compiled.asm["ptx"]


@tile.jit
def not_jit(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.map_elementwise(abs, x))


@tile.jit
def bad_pack(x_ptr, PACK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.map_elementwise(compare, x, x, pack=PACK))


@tile.jit
def sum_of_four(a0, a1, b0, b1):
    return a0 + a1 + b0 + b1


@tile.jit
def odd_results(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.map_elementwise(sum_of_four, x, x, pack=2))


@tile.jit
def scalars_only(x_ptr):
    tl.store(x_ptr, tl.map_elementwise(compare, 1, 2))


@tile.jit
def block_result(x):
    return tl.zeros([4], tl.float32) + x


@tile.jit
def returns_a_block(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.map_elementwise(block_result, x))


F32 = {"x_ptr": "*fp32"}


@pytest.mark.parametrize("fn,constexprs,message", [
    (not_jit, {}, "map_elementwise's first argument must be a @tile.jit function"),
    (bad_pack, {"PACK": 0}, "map_elementwise: pack must be a positive integer, got 0"),
    (bad_pack, {"PACK": 2}, "compare() takes 2 arguments but 4 were given"),
    (odd_results, {}, "with pack=2 the function must return a multiple of 2 values, got 1"),
    (scalars_only, {}, "map_elementwise needs at least one block argument"),
    (returns_a_block, {}, "map_elementwise: the function must return scalars"),
])
def test_misuse_is_an_error_at_the_line(fn, constexprs, message):
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(fn, F32, constexprs)
    text = str(info.value)
    assert message in text
    assert "test_map_elementwise.py:" in text and "^" in text
