"""Block pointers and tuples on the CPU: the interpreter against numpy,
the compiled IR, and the errors (each at its kernel line)."""

import re

import numpy as np
import pytest

import tile
import tile.language as tl
from kernels import aggregates as ag

rng = np.random.default_rng(25)


def _interpret(kernel):
    return tile.jit(kernel.fn, interpret=True)


@pytest.mark.parametrize("padding", ["zero", "nan", None])
def test_block_copy_pads_past_the_limit(padding):
    n, limit, block = 200, 90, 64
    src = rng.standard_normal(n).astype(np.float32)
    dst = np.full(n, -7.0, np.float32)
    _interpret(ag.block_copy)[(tile.cdiv(n, block),)](
        src, dst, n, limit, BLOCK=block, PADDING=padding, CHECK=True)
    np.testing.assert_array_equal(dst[:limit], src[:limit])
    if padding == "nan":
        assert np.isnan(dst[limit:]).all()
    else:
        assert (dst[limit:] == 0).all()


def test_block_matmul_with_advance_and_ragged_edges():
    m, n, k = 37, 45, 70
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    _interpret(ag.block_matmul)[(tile.cdiv(m, 16), tile.cdiv(n, 16))](
        a, b, c, m, n, k, k, 1, n, 1, n, 1,
        BLOCK_M=16, BLOCK_N=16, BLOCK_K=16, STAGES=2)
    ref = a.astype(np.float64) @ b
    # fp32 dots default to tf32, as in Triton (and so the interpreter).
    assert np.linalg.norm(c - ref) / np.linalg.norm(ref) < 2e-3


@pytest.mark.parametrize("shift", [-3, 0, 5])
def test_block_pointer_through_if_and_call(shift):
    r, c = 12, 10
    x = rng.standard_normal((r, c)).astype(np.float32)
    out = np.full((r, c), np.nan, np.float32)
    _interpret(ag.block_rows)[(1,)](x, out, r, c, c, SHIFT=shift,
                                      BLOCK_R=16, BLOCK_C=16)
    ref = np.zeros_like(x)
    for row in range(r):
        if 0 <= row + shift < r:
            ref[row] = x[row + shift]
    np.testing.assert_array_equal(out, ref)


def test_tuples_through_loops_calls_and_namedtuple_arguments():
    block, n = 32, 5
    x = rng.standard_normal(n * 40).astype(np.float32)
    out = np.full(block + 1, np.nan, np.float32)
    _interpret(ag.tuple_loop)[(1,)](x, out, ag.Strided(x, 40), n, BLOCK=block)
    ref = sum(x[i * 40:i * 40 + block].astype(np.float64) for i in range(n))
    np.testing.assert_allclose(out[:block], 2 * ref, rtol=1e-5)
    assert out[block] == n + 2


def test_tuple_arguments_interpreted():
    ptrs = tuple(np.array([v], np.float32) for v in (1.5, -2.0, 4.0))
    out = np.full(4, np.nan, np.float32)
    _interpret(ag.tuple_arguments)[(1,)](out, ptrs, (3.0, 1.0, 0.5), (2, 3, 4))
    assert out.tolist() == [1.5 + 6, -2.0 + 3, 4.0 + 2, 4.0 + 1.5]


# ------------------------------------------------------------- compiled IR

def test_block_copy_masks_only_checked_dimensions():
    unchecked = tile.compile(ag.block_copy, {"src": "*fp32", "dst": "*fp32",
                                             "N": "i32", "LIMIT": "i32"},
                             {"BLOCK": 64, "PADDING": "zero", "CHECK": False})
    ir = unchecked.asm["tile"]
    # The load is unmasked, the store (boundary_check=(0,)) masked.
    loads = [line for line in ir.splitlines() if "tile.load" in line]
    assert len(loads) == 1 and re.search(r"tile\.load %\w+ :", loads[0])
    assert re.search(r"tile\.store %\w+, %\w+, %\w+ :", ir)


def test_block_matmul_compiles_to_a_pipelined_mma_loop():
    k = tile.compile(ag.block_matmul,
                     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16",
                      "M": "i32", "N": "i32", "K": "i32", "stride_am": "i32",
                      "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
                      "stride_cm": "i32", "stride_cn": "i32"},
                     {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "STAGES": 3})
    # The block pointers' offsets are loop-carried values, not recompiles.
    assert "scf.for" in k.asm["tile"] and "tile.dot" in k.asm["tile"]
    assert "wgmma" in k.asm["ptx"] or "mma.sync" in k.asm["ptx"]


class CudaArray:
    """A device array as far as specialisation looks (no GPU needed)."""

    def __init__(self, typestr, address=1 << 20):
        self.__cuda_array_interface__ = {"data": (address, False),
                                         "typestr": typestr, "shape": (4,),
                                         "version": 3}


def test_tuple_arguments_are_flattened_parameters():
    ptrs = (CudaArray("<f4"), CudaArray("<f4"))
    kernel = ag.tuple_arguments.warmup(CudaArray("<f4"), ptrs, (2.0, 7), (4, 5),
                                       grid=(1,))
    # out, two pointers, one float (7 is an i32, 1 would be compiled in).
    assert kernel.signature == "pppfi"
    assert kernel.asm["tile"].count("!tile.ptr<f32>") >= 3


def test_a_jit_function_inside_a_namedtuple_is_compiled_in():
    # The function is part of the specialization (its source), not a
    # parameter; the captured tensor is one.
    closure = ag.Closure(ag.scale_by_first, (CudaArray("<f4"),))
    kernel = ag.apply_closure.warmup(closure, CudaArray("<f4"), CudaArray("<f4"),
                                     BLOCK=64, grid=(1,))
    assert kernel.signature == "ppp"
    assert "call @scale_by_first" in kernel.asm["tile"]


def test_a_jit_function_inside_a_namedtuple_interpreted():
    a = np.array([2.5], np.float32)
    x = rng.standard_normal(64).astype(np.float32)
    y = np.full(64, np.nan, np.float32)
    _interpret(ag.apply_closure)[(1,)](ag.Closure(ag.scale_by_first, (a,)), x, y,
                                       BLOCK=64)
    np.testing.assert_allclose(y, x * 2.5, rtol=1e-6)


# ------------------------------------------------------------------ errors

@tile.jit
def _bad_boundary(p, N):
    bp = tl.make_block_ptr(p, (N,), (1,), (0,), (16,), (0,))
    tl.load(bp, boundary_check=(1,))


@tile.jit
def _bad_nan_padding(p, N):
    bp = tl.make_block_ptr(p, (N,), (1,), (0,), (16,), (0,))
    tl.load(bp, boundary_check=(0,), padding_option="nan")


@tile.jit
def _mask_on_block_pointer(p, N):
    bp = tl.make_block_ptr(p, (N,), (1,), (0,), (16,), (0,))
    tl.load(bp, mask=tl.arange(0, 16) < N)


@tile.jit
def _boundary_on_plain_pointers(p, N):
    tl.load(p + tl.arange(0, 16), boundary_check=(0,))


@tile.jit
def _bad_order(p, N):
    tl.make_block_ptr(p, (N, N), (N, 1), (0, 0), (16, 16), (0, 0))


@tile.jit
def _bad_block_shape(p, N):
    tl.make_block_ptr(p, (N,), (1,), (0,), (12,), (0,))


@tile.jit
def _store_wrong_block(p, N):
    bp = tl.make_block_ptr(p, (N, N), (N, 1), (0, 0), (16, 16), (1, 0))
    tl.store(bp, tl.zeros((8, 16), tl.int32))


@tile.jit
def _tuple_index_out_of_range(p, N):
    t = (p, N)
    tl.store(t[2], 1)


@tile.jit
def _tuple_item_assignment(p, N):
    t = tl.tuple([5, 6, 7])
    t[0] = 0


@tile.jit
def _runtime_comprehension(p, N):
    tl.store(p, [i for i in range(N)][0])


@tile.jit
def _constant_changed_in_loop(p, N):
    t = (tl.to_tensor(0), 0)
    for i in range(N):
        t = (t[0] + 1, t[1] + 1)
    tl.store(p, t[0])


@tile.jit
def _constant_read_after_loop(p, N):
    scale = None
    for i in range(N):
        scale = 2
    tl.store(p, scale)


ERRORS = [
    (_bad_boundary, "boundary_check names dimension 1", "tl.load(bp, boundary_check=(1,))"),
    (_bad_nan_padding, "padding_option='nan' needs a floating-point",
     "tl.load(bp, boundary_check=(0,), padding_option=\"nan\")"),
    (_mask_on_block_pointer, "`mask` and `other` cannot be used with a block pointer",
     "tl.load(bp, mask=tl.arange(0, 16) < N)"),
    (_boundary_on_plain_pointers, "boundary_check needs a block pointer",
     "tl.load(p + tl.arange(0, 16), boundary_check=(0,))"),
    (_bad_order, "order must be a permutation", "tl.make_block_ptr(p, (N, N)"),
    (_bad_block_shape, "block_shape must be constexpr powers of two",
     "tl.make_block_ptr(p, (N,), (1,), (0,), (12,), (0,))"),
    (_store_wrong_block, "cannot store a [8, 16] block through a block pointer",
     "tl.store(bp, tl.zeros((8, 16), tl.int32))"),
    (_tuple_index_out_of_range, "tuple index out of range", "tl.store(t[2], 1)"),
    (_tuple_item_assignment, "only names and tuples of names can be assigned",
     "t[0] = 0"),
    (_runtime_comprehension, "compile-time sequence", "[i for i in range(N)]"),
    (_constant_changed_in_loop, "a compile-time part of loop-carried variable 't'",
     "for i in range(N):"),
    (_constant_read_after_loop, "variable 'scale' holds the compile-time value None",
     "tl.store(p, scale)"),
]


@pytest.mark.parametrize("kernel, message, line", ERRORS,
                         ids=[e[0].__name__ for e in ERRORS])
def test_errors_are_located(kernel, message, line):
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(kernel, {"p": "*i32", "N": "i32"})
    text = str(info.value)
    assert message in text
    assert line in text and "^" in text
    assert info.value.lineno is not None and info.value.filename.endswith(
        "test_aggregates.py")


@tile.jit
def _batched_dot(p, N):
    a = tl.zeros((2, 16, 16), tl.float16)
    tl.store(p + tl.arange(0, 16), tl.sum(tl.sum(tl.dot(a, a), 0), 0).to(tl.int32))


def test_batched_dot_compiles_to_one_3d_dot():
    # The GPU path once compiled 3-D dots to wrong answers (H100,
    # 2026-11-25); the CUDA-core lowering now offsets each batch
    # (test_gpu_batched_dot checks the values).
    ir = tile.compile(_batched_dot, {"p": "*i32", "N": "i32"}).asm["tile"]
    assert re.search(r"tile\.dot .* : tensor<2x16x16xf16> \* tensor<2x16x16xf16> "
                     r"-> tensor<2x16x16xf32>", ir)


@tile.jit
def _batch_mismatch(p, N):
    a = tl.zeros((2, 16, 16), tl.float16)
    c = tl.zeros((4, 16, 16), tl.float16)
    tl.store(p + tl.arange(0, 16), tl.sum(tl.sum(tl.dot(a, c), 0), 0).to(tl.int32))


def test_batch_mismatch_is_located():
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(_batch_mismatch, {"p": "*i32", "N": "i32"})
    assert "dot's batch dimensions differ" in str(info.value)
    assert "tl.dot(a, c)" in str(info.value)
