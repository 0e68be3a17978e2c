"""tilegpu-int-to-float-by-bits on real kernels (CPU, PTX): the
conversions whose integer range the analysis bounds lose their cvt; the
others keep it. test_gpu_int_to_float_by_bits.py checks the values."""

import re

import pytest

import tile
from kernels import int_to_float as k

CASES = [
    # (mode, source, destination, converted by bits)
    (k.LOW_NIBBLE, "i8", "bf16", True),
    (k.HIGH_NIBBLE, "i8", "bf16", True),
    (k.LOW_NIBBLE, "i8", "fp16", True),
    (k.UNSIGNED_NIBBLE, "i8", "bf16", True),
    (k.OFFSET_FIELD, "i8", "bf16", True),
    (k.OFFSET_FIELD, "i32", "fp32", True),
    (k.WIDE_FIELD, "i32", "fp32", True),
    (k.WHOLE_BYTE, "i8", "fp16", True),     # 256 values fit f16's bits
    (k.WHOLE_BYTE, "i8", "bf16", False),    # ... but not bf16's
    (k.LOW_NIBBLE, "i32", "fp32", False),   # 28 bits
    (k.WHOLE_BYTE, "i32", "fp32", False),
]


def ptx_of(mode, source, destination):
    return tile.compile(
        k.int_to_float_kernel,
        signature=dict(x_ptr="*" + source, y_ptr="*" + destination, n="i32"),
        constexprs=dict(MODE=mode, BLOCK=1024),
        divisibility=["x_ptr", "y_ptr", "n"]).asm["ptx"]


@pytest.mark.parametrize("mode,source,destination,by_bits", CASES)
def test_bounded_conversions_lose_their_cvt(mode, source, destination,
                                             by_bits):
    ptx = ptx_of(mode, source, destination)
    conversions = re.findall(r"cvt\.rn\.(?:bf16|f16|f32)\.[su]\d+", ptx)
    assert (not conversions) == by_bits, conversions


def test_nibble_to_bf16_is_two_logic_ops_and_a_subtraction():
    # (v & 15) ^ 0x4308 as bf16, minus 136: the xor carries 128's exponent
    # and flips the nibble's sign bit (0x4308 = 17160); paired lanes do two
    # at once (0x43084308 = 1124614920).
    ptx = ptx_of(k.LOW_NIBBLE, "i8", "bf16")
    assert re.search(r"xor\.b16\s+%rs\d+, %rs\d+, 17160;|"
                     r"xor\.b32\s+%r\d+, %r\d+, 1124614920;", ptx)
    assert re.search(r"(add|sub)\.(rn\.)?bf16", ptx)
