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


@tile.jit
def pick(a, b, choose_b):
    if choose_b:
        return b
    else:
        return a


@tile.jit
def mixed_returns(in_ptr: tl.const, out_ptr, flag, BLOCK: tl.constexpr):
    tl.store(pick(out_ptr, in_ptr, flag) + tl.arange(0, BLOCK), 1.0)


@tile.jit
def mixed_ternary(in_ptr: tl.const, out_ptr, flag, BLOCK: tl.constexpr):
    p = in_ptr if flag > 0 else out_ptr
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(p + tl.arange(0, BLOCK)))


@tile.jit
def folded_pick(in_ptr: tl.const, out_ptr, CHOOSE_IN: tl.constexpr,
                BLOCK: tl.constexpr):
    # A constexpr passed to an unannotated parameter is compile-time in the
    # callee (Triton's rule): only the taken branch exists, so no type
    # conflict arises, and only a store through in_ptr is refused.
    tl.store(pick(out_ptr, in_ptr, CHOOSE_IN) + tl.arange(0, BLOCK), 1.0)


SIG = {"in_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
FLAG = {"in_ptr": "*fp32", "out_ptr": "*fp32", "flag": "i32"}


def test_loads_through_const_pointers_compile_as_plain_ones():
    const = tile.compile(copy_from_const, SIG, {"BLOCK": 128}).asm["ptx"]
    assert "ld.global" in const and "st.global" in const


@pytest.mark.parametrize("fn,signature,message", [
    (store_to_const, SIG, "Cannot store to a constant pointer"),
    (atomic_on_const, {"in_ptr": "*fp32"}, "Cannot store to a constant pointer"),
    # Triton's wordings lead each message (its test_const matches them).
    (mixed_branches, FLAG, "Mismatched type for p: variable 'p' has type "
     "pointer<const tl.float32> in one branch"),
    (mixed_returns, FLAG, "Return type mismatch: the return value 0"),
    (mixed_ternary, FLAG, "Ternary expression with dynamic condition has "
     "inconsistent type"),
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


def test_a_constexpr_argument_folds_the_callees_branch():
    sig = {"in_ptr": "*fp32", "out_ptr": "*fp32"}
    ptx = tile.compile(folded_pick, sig, {"CHOOSE_IN": False, "BLOCK": 128}).asm["ptx"]
    assert "st.global" in ptx
    with pytest.raises(tile.CompilationError,
                       match="Cannot store to a constant pointer"):
        tile.compile(folded_pick, sig, {"CHOOSE_IN": True, "BLOCK": 128})
