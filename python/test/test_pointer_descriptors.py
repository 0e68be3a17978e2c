"""tl.make_tensor_descriptor where TMA copies cannot serve the block (1-D
and 3- to 5-D blocks, narrow rows, targets before sm_90): masked pointer
accesses, compiled on the CPU and run in the interpreter; and the errors."""

import numpy as np
import pytest

import tile
import tile.language as tl
from tile.compiler.errors import CompilationError
from tile.runtime import jit
from kernels import aggregates as ag

PERMUTE = {"src": "*i32", "dst": "*i32"}
COPY3 = {"src": "*fp16", "dst": "*fp16", "B": "i32", "M": "i32", "N": "i32",
         "stride_b": "i32", "stride_m": "i32"}


def ptx(fn, signature, constexprs, **options):
    return tile.compile(fn, signature, constexprs,
                        divisibility=list(signature), **options).asm["ptx"]


def permute_constexprs(shape, perm):
    names = ["S0", "S1", "S2", "S3"]
    out = dict(zip(names, shape))
    out.update(zip(["P0", "P1", "P2", "P3"], perm))
    return out


@pytest.mark.parametrize("shape", [(2, 2, 8, 64), (4, 4, 4, 16)])
def test_4d_and_1d_descriptors_compile_to_pointer_accesses(shape):
    text = ptx(ag.descriptor_permute_4d, PERMUTE,
               permute_constexprs(shape, (3, 1, 0, 2)), num_warps=8)
    assert "cp.async.bulk.tensor" not in text
    assert "ld.global" in text and "st.global" in text


def test_3d_blocks_and_old_targets_take_pointers_too():
    constexprs = {"BB": 2, "BM": 32, "BN": 64}
    assert "cp.async.bulk.tensor" not in ptx(ag.descriptor_copy_3d, COPY3,
                                             constexprs)
    # A 2-D block TMA could serve, on a GPU without TMA.
    text = ptx(ag.descriptor_copy_3d, COPY3, {"BB": 1, "BM": 32, "BN": 64},
               target="sm_80")
    assert "cp.async.bulk.tensor" not in text


def test_a_tma_shaped_block_on_sm90_still_takes_tma():
    @tile.jit
    def copy_2d(a_ptr, b_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
        a = tl.make_tensor_descriptor(a_ptr, [M, N], [N, 1], [BM, BN])
        b = tl.make_tensor_descriptor(b_ptr, [M, N], [N, 1], [BM, BN])
        b.store([0, 0], a.load([0, 0]))

    text = tile.compile(copy_2d, {"a_ptr": "*fp16", "b_ptr": "*fp16",
                                  "M": "i32", "N": "i32"},
                        {"BM": 32, "BN": 64},
                        divisibility=["a_ptr", "b_ptr", "N"]).asm["ptx"]
    assert "cp.async.bulk.tensor.2d" in text


@pytest.mark.parametrize("perm", [(0, 1, 2, 3), (3, 1, 0, 2), (2, 3, 1, 0)])
def test_interpreter_permutes_like_numpy(perm, monkeypatch):
    # What TILE_INTERPRET=1 sets when tile is imported.
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)
    shape = (2, 2, 8, 16)
    src = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    dst = np.full(src.size, -1, dtype=np.int32)
    ag.descriptor_permute_4d[(1,)](src, dst, **permute_constexprs(shape, perm))
    np.testing.assert_array_equal(dst, np.transpose(src, perm).ravel())


@tile.jit
def store_wrong_block(src, dst):
    a = tl.make_tensor_descriptor(src, [4, 4, 16], [64, 16, 1], [4, 4, 16])
    b = tl.make_tensor_descriptor(dst, [4, 4, 16], [64, 16, 1], [4, 4, 16])
    b.store([0, 0, 0], a.load([0, 0, 0]).reshape(16, 16))


@tile.jit
def too_few_offsets(src):
    a = tl.make_tensor_descriptor(src, [4, 4, 16], [64, 16, 1], [4, 4, 16])
    tl.store(src + tl.arange(0, 16), tl.sum(tl.sum(a.load([0, 0]), 0), 0))


@tile.jit
def six_dimensions(src):
    a = tl.make_tensor_descriptor(src, [2, 2, 2, 2, 2, 16],
                                  [512, 256, 128, 64, 16, 1],
                                  [2, 2, 2, 2, 2, 16])
    a.store([0, 0, 0, 0, 0, 0], a.load([0, 0, 0, 0, 0, 0]))


@pytest.mark.parametrize("fn,signature,message", [
    (store_wrong_block, {"src": "*fp32", "dst": "*fp32"},
     r"block_shape \[4, 4, 16\] cannot store a \[16, 16\] block"),
    (too_few_offsets, {"src": "*fp32"},
     r"a tensor descriptor of 3 dimensions needs 3 offsets"),
    (six_dimensions, {"src": "*fp32"}, r"need the same rank, 1 to 5"),
])
def test_errors_point_at_the_line(fn, signature, message):
    with pytest.raises(CompilationError, match=message) as info:
        tile.compile(fn, signature, {})
    assert "^" in str(info.value)
