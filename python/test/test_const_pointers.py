"""`tl.const` pointer parameters (Triton's): loads through them compile
as before; a store or an atomic through one, or through a pointer computed
from one, is an error at its line; constness is part of the type, so a
branch that yields a const pointer on one side and a plain one on the
other is refused."""

import pytest

import tile
import tile.language as tl


@tile.jit
def copy_from_const(in_ptr: tl.const, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=offs < n), mask=offs < n)


@tile.jit
def store_to_const(in_ptr: tl.const, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(in_ptr + offs, tl.load(out_ptr + offs))


@tile.jit
def atomic_on_const(in_ptr: tl.const, BLOCK: tl.constexpr):
    tl.atomic_add(in_ptr + tl.arange(0, BLOCK), 1.0)


@tile.jit
def mixed_branches(in_ptr: tl.const, out_ptr, flag, BLOCK: tl.constexpr):
    if flag > 0:
        p = in_ptr
    else:
        p = out_ptr
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(p + tl.arange(0, BLOCK)))


SIG = {"in_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


def test_loads_through_const_pointers_compile_as_plain_ones():
    const = tile.compile(copy_from_const, SIG, {"BLOCK": 128}).asm["ptx"]
    assert "ld.global" in const and "st.global" in const


@pytest.mark.parametrize("fn,signature,message", [
    (store_to_const, SIG, "Cannot store to a constant pointer"),
    (atomic_on_const, {"in_ptr": "*fp32"}, "Cannot store to a constant pointer"),
    (mixed_branches, {"in_ptr": "*fp32", "out_ptr": "*fp32", "flag": "i32"},
     "in one branch"),
])
def test_writing_through_const_is_an_error_at_the_line(fn, signature, message):
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(fn, signature, {"BLOCK": 128})
    text = str(info.value)
    assert message in text
    assert "test_const_pointers.py:" in text and "^" in text


def test_const_is_part_of_the_pointer_type():
    plain = tl.pointer_type(tl.float32)
    const = tl.pointer_type(tl.float32, const=True)
    assert const.is_const() and not plain.is_const() and const != plain
    assert hash(const) != hash(plain) or const != plain
    assert plain.to_ir() == const.to_ir()     # the same IR: a front-end fact
