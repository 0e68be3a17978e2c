"""tl.inline_asm_elementwise: the PTX reaches the kernel (packed as the
pack and the types say), and misuse fails at the call's line."""

import pytest

import tile
import tile.language as tl
from kernels import inline_asm as ia

I32, U8, F32 = "*i32", "*u8", "*fp32"


def compile_ptx(fn, signature, constants):
    return tile.compile(fn, signature, constants).asm["ptx"]


def test_one_element_per_instance():
    ptx = compile_ptx(ia.byte_swap, {"x_ptr": I32, "out_ptr": I32, "n": "i32"},
                      {"BLOCK": 256})
    assert "prmt.b32" in ptx and "0x0123" in ptx


def test_four_bytes_share_a_register():
    kernel = tile.compile(ia.byte_add_packed, {"x_ptr": U8, "y_ptr": U8,
                                               "out_ptr": U8, "n": "i32"},
                          {"BLOCK": 1024})
    assert "packed_element = 4 : i32" in kernel.asm["tile"]
    # One instance per four bytes a thread owns (the asm names 0xFF00FF00
    # three times): 1024 bytes over 4 warps are two instances a thread.
    instances = kernel.asm["ptx"].count("0xFF00FF00") / 3
    assert instances * 4 * 4 * 32 == 1024


def test_two_results_of_two_types():
    ptx = compile_ptx(ia.halves_and_sum, {"x_ptr": F32, "s_ptr": F32,
                                          "h_ptr": "*fp16", "n": "i32"},
                      {"BLOCK": 256})
    assert "cvt.rn.f16.f32" in ptx


def test_scalar_arguments():
    ptx = compile_ptx(ia.scalar_asm, {"out_ptr": I32, "v": "i32"}, {})
    assert "add.s32" in ptx


@tile.jit
def wrong_count(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,r", [x],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(x_ptr + tl.arange(0, BLOCK), y)


@tile.jit
def bad_pack(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x],
                                  dtype=tl.int32, is_pure=True, pack=3)
    tl.store(x_ptr + tl.arange(0, BLOCK), y)


@tile.jit
def pointer_result(x_ptr, BLOCK: tl.constexpr):
    p = x_ptr + tl.arange(0, BLOCK)
    q = tl.inline_asm_elementwise("mov.b64 $0, $1;", "=l,l", [p],
                                  dtype=tl.pointer_type(tl.int32), is_pure=True,
                                  pack=1)
    tl.store(q, 1)


@tile.jit
def scalar_packed(x_ptr, v):
    tl.store(x_ptr, tl.inline_asm_elementwise(
        "mov.b32 $0, $2;", "=r,=r,r,r", [v], dtype=tl.int32, is_pure=True,
        pack=2))


@pytest.mark.parametrize("fn, message", [
    (wrong_count, "constraints name 3 operands \\(1 outputs\\), but the results "
                  "and arguments need 1 outputs and 1 inputs"),
    (bad_pack, "pack must be a positive power of two, got 3"),
    (pointer_result, "results integers or floats of at least 8 bits"),
    (scalar_packed, "pack=2 needs a tensor argument"),
])
def test_misuse_fails_at_the_line(fn, message):
    with pytest.raises(tile.CompilationError, match=message) as info:
        tile.compile(fn, {"x_ptr": I32, "v": "i32"} if fn is scalar_packed
                     else {"x_ptr": I32}, {} if fn is scalar_packed else {"BLOCK": 64})
    text = str(info.value)
    assert "test_inline_asm.py:" in text and "^" in text
    assert "inline_asm_elementwise" in text.splitlines()[-2] or \
        any("inline_asm_elementwise" in line for line in text.splitlines())


def test_pointer_operands_pass_their_addresses():
    ptx = compile_ptx(ia.shift_through_pointers, {"x_ptr": U8, "y_ptr": U8,
                                                  "n": "i32"}, {"BLOCK": 256})
    # Each instance gets two 64-bit address registers.
    assert "ld.global.b8 %r" in ptx and ", [%rd" in ptx and "st.global.b8 [%rd" in ptx
