"""Triton's standard-library functions written in tile.language (flip,
interleave, ravel, cast, swizzle2d, assume): they compile, the interpreter
matches numpy, and misuse is a CompilationError at the kernel's line."""

import numpy as np
import pytest

import tile
import tile.language as tl
from kernels.standard import outputs, reference, standard_kernel

SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32"}


@pytest.mark.parametrize("M,N,G", [(8, 16, 2), (4, 32, 3), (16, 8, 16)])
def test_compiles_and_matches_numpy_in_the_interpreter(M, N, G):
    compiled = tile.compile(standard_kernel, SIGNATURE, {"M": M, "N": N, "G": G})
    assert compiled.asm["ptx"]
    rng = np.random.default_rng(M * N + G)
    x = (rng.standard_normal((M, N)) * 100).astype(np.float32)
    y = rng.standard_normal((M, N)).astype(np.float32)
    out = np.full(outputs(M, N), np.nan, np.float32)
    interpreted = tile.jit(standard_kernel.fn, interpret=True)
    interpreted[(1,)](x, y, out, M, N, G)
    want = reference(x, y, M, N, G)
    np.testing.assert_array_equal(out[:want.size], want)


def test_swizzle2d_on_scalars_is_the_grouped_order():
    # The tutorial's grouped launch order, on Python ints (constexprs).
    @tile.jit
    def k(out_ptr):
        i, j = tl.swizzle2d(5, 3, 7, 4, 3)
        tl.store(out_ptr, i * 100 + j)

    out = np.zeros(1, np.int32)
    tile.jit(k.fn, interpret=True)[(1,)](out)
    linear, per_group = 5 * 4 + 3, 3 * 4
    first = linear // per_group * 3
    rows = min(7 - first, 3)
    assert out[0] == (first + linear % per_group % rows) * 100 + \
        linear % per_group // rows


@tile.jit
def bad_flip(x_ptr, N: tl.constexpr, DIM: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(x_ptr + tl.arange(0, N), tl.flip(x, DIM))


@tile.jit
def false_assumption(x_ptr, N: tl.constexpr):
    tl.assume(N < 0)
    tl.store(x_ptr, N)


@tile.jit
def tensor_assumption(x_ptr, N: tl.constexpr):
    tl.assume(tl.arange(0, N) < N)
    tl.store(x_ptr, N)


@tile.jit
def scalar_bitcast(x_ptr):
    tl.store(x_ptr, tl.cast(3, tl.float32, bitcast=True))


@pytest.mark.parametrize("fn,constexprs,message", [
    (bad_flip, {"N": 16, "DIM": 1}, "flip: dim 1 is out of range for a block of rank 1"),
    (false_assumption, {"N": 4}, "assume: the condition is false at compile time"),
    (scalar_bitcast, {}, "cast: bitcast needs a tensor, got 3"),
    (tensor_assumption, {"N": 16},
     "assume takes a scalar boolean condition, got tensor<16xi1>"),
])
def test_misuse_is_an_error_at_the_line(fn, constexprs, message):
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(fn, {"x_ptr": "*fp32"}, constexprs)
    text = str(info.value)
    assert message in text
    assert "test_standard_library.py:" in text and "^" in text


def test_flip_of_a_reshaped_block_and_the_numel_alias():
    # Blocks have power-of-two extents (arange refuses others), so flip's
    # own check is a guard; a block that went through reshapes flips too.
    @tile.jit
    def k(x_ptr):
        x = tl.reshape(tl.load(x_ptr + tl.arange(0, 16)), [2, 8])
        y = tl.reshape(x, [16])
        tl.store(x_ptr + tl.arange(0, 16), tl.flip(y))

    data = np.arange(16, dtype=np.float32)
    tile.compile(k, {"x_ptr": "*fp32"})
    tile.jit(k.fn, interpret=True)[(1,)](data)
    np.testing.assert_array_equal(data, np.arange(16, dtype=np.float32)[::-1])
    assert tl.TRITON_MAX_TENSOR_NUMEL == tl.TILE_MAX_TENSOR_NUMEL == 1 << 20


@tile.jit
def assumed_bounds(x_ptr, n, BLOCK: tl.constexpr):
    tl.assume(n > 0)
    tl.assume(n % 16 == 0)
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)


def test_runtime_assumptions_reach_llvm_and_the_interpreter_ignores_them():
    kernel = tile.compile(assumed_bounds, {"x_ptr": "*fp32", "n": "i32"},
                          {"BLOCK": 128})
    assert kernel.asm["tile"].count("tile.assume") == 2
    assert kernel.asm["llir"].count("call void @llvm.assume") == 2
    x = np.zeros(128, np.float32)
    tile.jit(assumed_bounds.fn, interpret=True)[(1,)](x, 48, BLOCK=128)
    assert x.tolist() == [1.0] * 48 + [0.0] * 80

