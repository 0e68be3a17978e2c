"""The type-promotion table of binary arithmetic, checked on emitted IR."""

import pytest

import tile
import tile.language as tl
from tile.language import semantic as sem

T = tl
# (lhs, rhs) -> computation type, following Triton's rules.
PROMOTION = [
    (T.int8, T.int8, T.int8), (T.int8, T.int16, T.int16),
    (T.int32, T.int64, T.int64), (T.uint8, T.int8, T.uint8),
    (T.uint8, T.int32, T.int32), (T.uint32, T.int32, T.uint32),
    (T.uint64, T.int32, T.uint64), (T.int32, T.uint16, T.int32),
    (T.int32, T.float16, T.float16), (T.int64, T.bfloat16, T.float32),
    (T.float16, T.float16, T.float16), (T.float16, T.bfloat16, T.float16),
    (T.float16, T.float32, T.float32), (T.bfloat16, T.float64, T.float64),
    (T.float8e4nv, T.float8e4nv, T.float8e4nv), (T.float8e4nv, T.float8e5, T.float16),
    (T.float8e5, T.float16, T.float16), (T.bfloat16, T.bfloat16, T.bfloat16),
    (T.float8e5, T.int32, T.float32), (T.int1, T.int32, T.int32),
]


@pytest.mark.parametrize("a,b,expected", PROMOTION)
def test_computation_type(a, b, expected):
    assert sem.computation_type(a, b) == expected
    assert sem.computation_type(b, a) == expected


@pytest.mark.parametrize("a,b", [(T.int8, T.int32), (T.uint16, T.uint8),
                                 (T.int32, T.int32)])
def test_integer_division_is_float(a, b):
    assert sem.computation_type(a, b, div=True) == T.float32
    assert sem.computation_type(a, b, mod=True) == sem.integer_promote(a, b)


@pytest.mark.parametrize("a,b,expected", [
    (T.float16, T.float16, T.float32), (T.bfloat16, T.bfloat16, T.float32),
    (T.float16, T.int32, T.float32), (T.float16, T.bfloat16, T.float32),
    (T.float8e4nv, T.float8e4nv, T.float8e4nv),
    (T.float8e4nv, T.float8e5, T.float16), (T.float32, T.float32, T.float32)])
def test_half_division_and_remainder_compute_in_float32(a, b, expected):
    # Triton's rule: PTX has no fp16 / bf16 division or remainder, so they
    # compute (and return) float32; fp8 keeps its own rule.
    for kind in ("div", "mod"):
        assert sem.computation_type(a, b, **{kind: True}) == expected
        assert sem.computation_type(b, a, **{kind: True}) == expected


@tile.jit
def promote_kernel(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(out_ptr + offs, a + b)


SIG = {"fp16": "f16", "bf16": "bf16", "fp32": "f32", "i8": "i8", "i32": "i32",
       "u8": "i8", "i64": "i64"}


@pytest.mark.parametrize("a,b,ir_type,op", [
    ("fp16", "fp16", "f16", "arith.addf"),
    ("fp16", "bf16", "f16", "arith.addf"),
    ("bf16", "i32", "f32", "arith.addf"),
    ("i8", "fp32", "f32", "arith.addf"),
    ("i8", "i32", "i32", "arith.addi"),
    ("u8", "i8", "i8", "arith.addi"),
    ("i32", "i64", "i64", "arith.addi"),
])
def test_promotion_in_ir(a, b, ir_type, op):
    ir = tile.compile(promote_kernel, signature={"a_ptr": "*" + a, "b_ptr": "*" + b,
                                                 "out_ptr": "*fp32"},
                      constexprs={"BLOCK": 64}).asm["tile"]
    assert "%s %%" % op in ir and "tensor<64x%s>" % ir_type in ir.split(op)[1].splitlines()[0]


@tile.jit
def literal_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, (x * 2 + 1.5) // 3 % 7)


def test_literals_are_weakly_typed():
    ir = tile.compile(literal_kernel, signature={"x_ptr": "*fp16", "out_ptr": "*fp16"},
                      constexprs={"BLOCK": 32}).asm["tile"]
    # The literals take fp16 from x: x * 2 + 1.5 stays fp16; the division
    # and remainder compute in f32, as Triton's fp16 rule has them.
    assert "tensor<32xf16>" in ir.split("arith.mulf")[1].splitlines()[0]
    assert "tensor<32xf16>" in ir.split("arith.addf")[1].splitlines()[0]
    assert "tensor<32xf32>" in ir.split("arith.divf")[1].splitlines()[0]
    assert "tensor<32xf32>" in ir.split("arith.remf")[1].splitlines()[0]
    ir = tile.compile(literal_kernel, signature={"x_ptr": "*i16", "out_ptr": "*fp32"},
                      constexprs={"BLOCK": 32}).asm["tile"]
    # x * 2 stays i16; adding 1.5 computes in f32.
    assert "arith.muli" in ir and "tensor<32xi16>" in ir.split("arith.muli")[1].splitlines()[0]
    assert "arith.sitofp" in ir


@tile.jit
def int_div_kernel(x_ptr, y_ptr, out_ptr):
    x = tl.load(x_ptr)
    y = tl.load(y_ptr)
    tl.store(out_ptr, x // y + x % y)


def test_integer_division_is_c_style():
    ir = tile.compile(int_div_kernel, signature={"x_ptr": "*i32", "y_ptr": "*i32",
                                                 "out_ptr": "*i32"}).asm["tile"]
    assert "arith.divsi" in ir and "arith.remsi" in ir
    ir = tile.compile(int_div_kernel, signature={"x_ptr": "*u32", "y_ptr": "*u32",
                                                 "out_ptr": "*u32"}).asm["tile"]
    assert "arith.divui" in ir and "arith.remui" in ir
