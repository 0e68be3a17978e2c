"""Smaller triton.language names: load_tensor_descriptor /
store_tensor_descriptor, tl.void, tl.must_use_result (tl.advance alone is
an error at its line), tl.target_info, constexpr_type and `.type` of
compile-time values; each compiles, and misuse is located."""

import pytest

import tile
import tile.language as tl
from tile.language import target_info
from tile.language.core import constexpr_type
from tile.runtime.driver import GPUTarget


@tile.jit
def descriptor_copy(src_ptr, dst_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(src_ptr, [M, N], [N, 1], [BM, BN])
    dst = tl.make_tensor_descriptor(dst_ptr, [M, N], [N, 1], [BM, BN])
    block = tl.load_tensor_descriptor(src, [tl.program_id(0) * BM, 0])
    tl.store_tensor_descriptor(dst, [tl.program_id(0) * BM, 0], block + 1)


def test_descriptor_free_functions_compile_to_tma():
    compiled = tile.compile(descriptor_copy, {"src_ptr": "*fp32", "dst_ptr": "*fp32",
                                              "M": "i32", "N": "i32"},
                            {"BM": 64, "BN": 64}, divisibility=["src_ptr", "dst_ptr", "N"])
    ptx = compiled.asm["ptx"]
    assert "cp.async.bulk.tensor" in ptx


def test_void_is_a_named_dtype_nothing_computes_with():
    assert isinstance(tl.void, tl.dtype) and tl.void.is_void()
    assert tl.void == tl.dtype("void") and tl.void != tl.int32
    with pytest.raises(ValueError, match="type of no value"):
        tl.void.to_ir()


@tile.jit
def advance_alone(x_ptr, N: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, [N], [1], [0], [16], [0])
    tl.advance(p, [16])
    tl.store(p, tl.load(p))


def test_unused_advance_is_an_error_at_its_line():
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(advance_alone, {"x_ptr": "*fp32"}, {"N": 64})
    text = str(info.value)
    assert "the result of advance is not used" in text
    assert "assign its result" in text
    assert "test_core_names_more.py:" in text and "^" in text


def test_must_use_result_marks_a_function():
    @tl.must_use_result("it moves nothing")
    def f():
        return 1
    assert f.tile_must_use_result == "it moves nothing"
    assert tl.must_use_result(f, True).tile_must_use_result is True


@tile.jit
def by_capability(out_ptr):
    if tl.target_info.cuda_capability_geq(9, 0):
        tl.store(out_ptr, 90)
    elif tl.target_info.is_cuda():
        tl.store(out_ptr, 80)
    else:
        tl.store(out_ptr, -1)


@pytest.mark.parametrize("target,stored", [
    (GPUTarget("cuda", 90, 32), "90"), (GPUTarget("cuda", 86, 32), "80"),
    (None, "-1")])
def test_target_info_folds_at_compile_time(monkeypatch, target, stored):
    def query():
        if target is None:
            raise RuntimeError("no GPU")
        return target
    monkeypatch.setattr(target_info, "_query", query)
    ir = tile.compile(by_capability, {"out_ptr": "*i32"}).asm["tile"]
    assert "arith.constant %s : i32" % stored in ir
    assert "scf.if" not in ir        # folded, not branched
    assert target_info.current_target() == target


@tile.jit
def constexpr_types(out_ptr, literal: tl.constexpr):
    patched: tl.constexpr = 10
    tl.static_assert(patched.type == constexpr_type(10))
    tl.static_assert(literal.type == constexpr_type(10))
    assigned: tl.constexpr = literal
    tl.static_assert(assigned.type == constexpr_type(10))
    variable = literal          # a plain assignment makes a runtime int32
    tl.static_assert(variable.type == tl.int32)
    tl.store(out_ptr, variable)


def test_constexpr_type_as_triton_defines_it():
    assert constexpr_type(10) == constexpr_type(10) != constexpr_type(11)
    assert tl.constexpr(3).type == constexpr_type(3)
    ir = tile.compile(constexpr_types, {"out_ptr": "*i32"}, {"literal": 10}).asm["tile"]
    assert "arith.constant 10 : i32" in ir
    # (The interpreter runs kernels as Python: there `patched` is a plain
    # int without `.type`, as in Triton's interpreter.)
