"""Descriptor reductions (`desc.atomic_add/min/max/and/or/xor`): one TMA
bulk reduction where TMA serves the block, element atomics where it does
not, the interpreter's meaning, and the element types the TMA unit lacks
refused at the kernel's line. The GPU runs are in
test_gpu_descriptor_reductions.py."""

import re

import numpy as np
import pytest

import tile
from tile.compiler.errors import CompilationError
from tile.language.semantic import SemanticError
from tile.runtime import jit
from kernels.descriptor_reductions import reduce_blocks


def compile_host(dtype, kind, block=(8, 128), ragged=""):
    return tile.compile(
        reduce_blocks,
        {"out_desc": "tensordesc<%s[%d,%d]%s>" % ((dtype,) + block + (ragged,)),
         "out_ptr": "*" + dtype, "a_ptr": "*" + dtype, "M": "i32", "N": "i32"},
        {"REPEAT": 1, "BM": block[0], "BN": block[1], "KIND": kind},
        divisibility=["out_ptr", "a_ptr", "N"])


def compile_made(dtype, kind, block):
    return tile.compile(
        reduce_blocks, {"out_ptr": "*" + dtype, "a_ptr": "*" + dtype,
                        "M": "i32", "N": "i32"},
        {"out_desc": None, "REPEAT": 1, "BM": block[0], "BN": block[1],
         "KIND": kind},
        divisibility=["out_ptr", "a_ptr", "N"])


@pytest.mark.parametrize("dtype,kind,op", [
    ("fp32", "add", "add"), ("bf16", "add", "add"), ("u64", "add", "add"),
    ("fp16", "min", "min"), ("i32", "max", "max"), ("u32", "max", "max"),
    ("u64", "and", "and"), ("u32", "or", "or"), ("i32", "xor", "xor")])
def test_a_tma_block_is_one_bulk_reduction(dtype, kind, op):
    kernel = compile_host(dtype, kind)
    ptx = kernel.asm["ptx"]
    # One reduction per 128-byte swizzle atom of a row: a 128-column row of
    # 2-, 4- or 8-byte elements is 2, 4 or 8 atoms.
    found = re.findall(r"cp\.reduce\.async\.bulk\.tensor\.2d\.global\."
                       r"shared::cta\.(\w+)\.tile\.bulk_group", ptx)
    assert found and set(found) == {op}, ptx
    assert "red.global" not in ptx and "atom.global" not in ptx
    assert "cp.async.bulk.wait_group.read 0" in ptx
    assert len(kernel.asm["cubin"]) > 0


@pytest.mark.parametrize("dtype,kind", [("fp32", "min"), ("fp32", "max"),
                                        ("i64", "add"), ("fp16", "and"),
                                        ("fp64", "add"), ("i64", "or"),
                                        ("i64", "xor")])
def test_reductions_the_tma_unit_lacks_are_refused_at_the_line(dtype, kind):
    with pytest.raises(CompilationError) as error:
        compile_host(dtype, kind)
    text = str(error.value)
    assert "kernels/descriptor_reductions.py" in text
    assert "reduction" in text or "TMA cannot copy" in text, text
    if dtype == "i64" and kind in ("or", "xor"):
        assert "uint64" in text, text


def test_a_reduction_into_ragged_rows_is_refused_at_the_line():
    # A TMA write goes on to the next 16 bytes past a row that is not
    # whole 16 bytes, as a store does.
    with pytest.raises(CompilationError) as error:
        compile_host("fp32", "add", (8, 32), ragged=",ragged")
    text = str(error.value)
    assert "cannot reduce through this descriptor" in text and "^" in text


def test_a_block_tma_cannot_serve_takes_element_atomics():
    # 2 x 16 fp32 rows are 64 bytes: no TMA box for them (rows a multiple
    # of 8), so the made descriptor is pointers and each element an atomic.
    ptx = compile_made("fp32", "add", (2, 16)).asm["ptx"]
    assert "cp.reduce.async.bulk" not in ptx
    assert re.search(r"red\.global\.gpu\.relaxed\.add(\.v\d)?\.f32", ptx), ptx


def test_a_made_tma_block_reduces_in_bulk():
    ptx = compile_made("i32", "max", (8, 32)).asm["ptx"]
    assert "cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile" in ptx


@pytest.mark.parametrize("kind,dtype,combine", [
    ("add", np.float32, np.add), ("max", np.int32, np.maximum),
    ("xor", np.int32, np.bitwise_xor)])
@pytest.mark.parametrize("block", [(8, 32), (2, 16)])
def test_interpreter_combines_like_numpy(kind, dtype, combine, block,
                                         monkeypatch):
    # What TILE_INTERPRET=1 sets when tile is imported. M and N are not
    # multiples of the block: the last blocks hang over and drop those
    # elements.
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)
    rng = np.random.default_rng(7)
    M, N = 3 * block[0] - 1, 2 * block[1] + 3
    grid = (-(-M // block[0]), -(-N // block[1]))
    values = (rng.standard_normal((M, N)) * 100).astype(dtype)
    out = (rng.standard_normal((M, N)) * 100).astype(dtype)
    want = combine(out, values)
    reduce_blocks[grid](None, out, values, M, N, REPEAT=1, BM=block[0],
                        BN=block[1], KIND=kind)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("host,dtype,kind,block,refused", [
    (True, np.float32, "min", (8, 32), True),     # no fp32 min on TMA
    (True, np.int64, "xor", (8, 32), True),       # faults over INT64 maps
    (True, np.uint64, "xor", (8, 32), False),
    (False, np.int64, "xor", (2, 16), False),     # element atomics take it
    (False, np.float16, "min", (2, 16), True),    # element atomics lack it
    (False, np.float16, "min", (8, 32), False),   # the bulk reduction has it
])
def test_interpreter_refuses_what_the_compiler_refuses(host, dtype, kind, block,
                                                       refused, monkeypatch):
    # The interpreter used to combine any element type; a kernel that runs
    # there must also compile (sm_90 rules: a host descriptor and a made
    # one TMA serves reduce in bulk, another made one by element atomics).
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)
    M, N = block[0], block[1]
    values = np.arange(M * N).reshape(M, N).astype(dtype)
    out = np.ones((M, N), dtype)
    desc = tile.TensorDescriptor(out, [M, N], [N, 1], list(block)) if host \
        else None
    run = lambda: reduce_blocks[(1, 1)](desc, out, values, M, N, REPEAT=1,  # noqa: E731
                                        BM=block[0], BN=block[1], KIND=kind)
    if not refused:
        run()
        combine = {"xor": np.bitwise_xor, "min": np.minimum}[kind]
        np.testing.assert_array_equal(out, combine(np.ones((M, N), dtype),
                                                   values))
        return
    # The interpreter's semantic errors, as its other refusals raise them.
    with pytest.raises(SemanticError, match="reduction of"):
        run()
