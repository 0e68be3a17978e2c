"""tl.sort, tl.topk, tl.bitonic_merge and tl.gather: they compile to PTX,
the interpreter matches numpy, and misuse is a CompilationError at the
kernel's line."""

import numpy as np
import pytest

import tile
import tile.language as tl
from kernels.sorting import (bitonic_kernel, gather_1d_kernel, gather_kernel,
                             gather_reference, sort_kernel, sort_reference,
                             topk_kernel, topk_reference)


def interpreted(kernel):
    return tile.jit(kernel.fn, interpret=True)


def random_block(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        # Few distinct values: ties must not break the network.
        return rng.integers(-20, 20, shape).astype(dtype)
    return (rng.standard_normal(shape) * 100).astype(dtype)


@pytest.mark.parametrize("M,N", [(1, 512), (8, 64), (64, 16), (128, 8), (4, 1)])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float16, np.uint8])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_numpy(M, N, dtype, descending):
    x = random_block((M, N), dtype, M * N)
    out = np.zeros_like(x)
    interpreted(sort_kernel)[(1,)](x, out, M, N, descending, None)
    np.testing.assert_array_equal(out, sort_reference(x, descending, 1))


@pytest.mark.parametrize("dim", [0, -2])
def test_sort_along_a_leading_dimension(dim):
    x = random_block((16, 8), np.float32, 3)
    out = np.zeros_like(x)
    interpreted(sort_kernel)[(1,)](x, out, 16, 8, True, dim)
    np.testing.assert_array_equal(out, sort_reference(x, True, 0))


def test_sort_keeps_every_value_with_nans():
    # Every comparison with a NaN is false, so no pair with one swaps: the
    # output is a permutation of the input (Triton's rule too).
    x = random_block((1, 64), np.float32, 5)
    x[0, [3, 17, 40]] = np.nan
    out = np.zeros_like(x)
    interpreted(sort_kernel)[(1,)](x, out, 1, 64, False, None)
    assert np.isnan(out).sum() == 3
    np.testing.assert_array_equal(np.sort(out[~np.isnan(out)]),
                                  np.sort(x[~np.isnan(x)]))


@pytest.mark.parametrize("M,N", [(1, 512), (8, 64), (64, 16), (16, 8)])
@pytest.mark.parametrize("K", [1, 2, 8])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_topk_matches_numpy(M, N, K, largest, dtype):
    x = random_block((M, N), dtype, M + N + K)
    out = np.zeros((M, K), dtype)
    interpreted(topk_kernel)[(1,)](x, out, M, N, K, largest)
    np.testing.assert_array_equal(out, topk_reference(x, K, largest))


def test_bitonic_merge_sorts_a_bitonic_row():
    rng = np.random.default_rng(7)
    up = np.sort(rng.standard_normal(40).astype(np.float32))
    down = np.sort(rng.standard_normal(24).astype(np.float32))[::-1]
    x = np.roll(np.concatenate([up, down]), 9)   # still bitonic, cyclically
    out = np.zeros_like(x)
    interpreted(bitonic_kernel)[(1,)](x, out, 64)
    np.testing.assert_array_equal(out, np.sort(x))


@pytest.mark.parametrize("src_shape,idx_shape,axis", [
    ((4, 4), (8, 4), 0), ((128, 64), (256, 64), 0), ((128, 64), (128, 128), 1),
    ((16, 32), (16, 8), 1), ((16, 32), (16, 8), -1)])
@pytest.mark.parametrize("idx_dtype", [np.int64, np.int32, np.int16])
def test_gather_matches_numpy(src_shape, idx_shape, axis, idx_dtype):
    rng = np.random.default_rng(sum(src_shape) + sum(idx_shape))
    src = rng.standard_normal(src_shape).astype(np.float32)
    idx = rng.integers(0, src_shape[axis], idx_shape).astype(idx_dtype)
    out = np.full(idx_shape, np.nan, np.float32)
    interpreted(gather_kernel)[(1,)](src, idx, out, *src_shape, *idx_shape, axis)
    np.testing.assert_array_equal(out, gather_reference(src, idx, axis))


def test_gather_1d_member_form_and_wrapping_indices():
    src = np.arange(32, dtype=np.int32) * 3
    idx = np.array([0, 31, 32, -1, 5, 64, 7, 100] * 8, np.int32)
    out = np.zeros(64, np.int32)
    interpreted(gather_1d_kernel)[(1,)](src, idx, out, 32, 64)
    np.testing.assert_array_equal(out, src[idx % 32])


@pytest.mark.parametrize("kernel,signature,constexprs", [
    (sort_kernel, {"x_ptr": "*fp16", "out_ptr": "*fp16"},
     {"M": 8, "N": 64, "DESCENDING": True, "DIM": None}),
    (topk_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32"},
     {"M": 4, "N": 128, "K": 8, "LARGEST": True}),
    (gather_kernel, {"src_ptr": "*bf16", "idx_ptr": "*i64", "out_ptr": "*bf16"},
     {"SM": 128, "SN": 64, "IM": 256, "IN": 64, "AXIS": 0}),
])
def test_compiles_to_ptx(kernel, signature, constexprs):
    compiled = tile.compile(kernel, signature, constexprs)
    assert ".entry" in compiled.asm["ptx"]


@tile.jit
def sort_bad_dim(x_ptr, DIM: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.sort(x, dim=DIM))


@tile.jit
def topk_bad_k(x_ptr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.topk(x, K))


@tile.jit
def sort_runtime_direction(x_ptr, flag):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.sort(x, descending=flag > 0))


@tile.jit
def sort_scalar(x_ptr):
    tl.store(x_ptr, tl.sort(tl.load(x_ptr)))


@tile.jit
def gather_rank(x_ptr, i_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    i = tl.load(i_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.gather(x, i, 0))


@tile.jit
def gather_float_index(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.gather(x, x, 0))


@tile.jit
def gather_other_dim(x_ptr, i_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    i = tl.load(i_ptr + tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :])
    tl.store(x_ptr + tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :],
             tl.gather(x, i, 1))


@tile.jit
def gather_bad_axis(x_ptr, i_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    i = tl.load(i_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.gather(x, i, 1))


F32 = {"x_ptr": "*fp32"}
F32_I32 = {"x_ptr": "*fp32", "i_ptr": "*i32"}


@pytest.mark.parametrize("fn,signature,constexprs,message", [
    (sort_bad_dim, F32, {"DIM": 1}, "sort: dim 1 is out of range for a block of rank 1"),
    (topk_bad_k, F32, {"K": 3}, "topk: k must be a power of two from 1 to 16"),
    (topk_bad_k, F32, {"K": 32}, "topk: k must be a power of two from 1 to 16"),
    (sort_runtime_direction, {"x_ptr": "*fp32", "flag": "i32"}, {},
     "sort: descending must be a compile-time bool"),
    (sort_scalar, F32, {}, "sort needs a block"),
    (gather_rank, F32_I32, {}, "gather: index (rank 1) and src (rank 2) must have the same rank"),
    (gather_float_index, F32, {}, "gather: index must be an integer tensor, got tl.float32"),
    (gather_other_dim, F32_I32, {}, "dimension 0 has 8 and 16"),
    (gather_bad_axis, F32_I32, {}, "gather: axis 1 is out of range for rank 1"),
])
def test_misuse_is_an_error_at_the_line(fn, signature, constexprs, message):
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(fn, signature, constexprs)
    text = str(info.value)
    assert message in text
    assert "test_sorting.py:" in text and "^" in text


def test_member_functions_exist_on_both_tensor_classes():
    from tile.language import members
    from tile.runtime.interpreter.tensor import Tensor
    for name in members.MEMBER_FUNCTIONS:
        assert hasattr(tl, name), name
        assert callable(getattr(tl.tensor, name)), name
        assert callable(getattr(Tensor, name)), name


def test_member_functions_in_the_interpreter():
    @tile.jit
    def k(x_ptr, out_ptr):
        x = tl.load(x_ptr + tl.arange(0, 8))
        tl.store(out_ptr + tl.arange(0, 8), x.exp().sqrt() + x.abs().cumsum(0))
        tl.store(out_ptr + 8 + tl.arange(0, 8), x.flip(0).sort())
        tl.store(out_ptr + 16, x.argmax(0).to(tl.float32))

    x = np.random.default_rng(1).standard_normal(8).astype(np.float32)
    out = np.zeros(17, np.float32)
    interpreted(k)[(1,)](x, out)
    np.testing.assert_allclose(out[:8], np.sqrt(np.exp(x)) + np.cumsum(np.abs(x)),
                               rtol=1e-6)
    np.testing.assert_array_equal(out[8:16], np.sort(x))
    assert out[16] == np.argmax(x)
