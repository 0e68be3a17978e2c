"""Integer-to-float conversions of values whose range the compiler can
bound (tilegpu-int-to-float-by-bits turns them into bit operations): the
nibbles of packed int4 weights, masked fields, shifted ranges, and one
unbounded byte that must stay an ordinary conversion."""

import tile
import tile.language as tl

# MODE: which integer the kernel converts, from the loaded x.
LOW_NIBBLE = 0       # ((x << 4) >> 4) on int8: [-8, 7]
HIGH_NIBBLE = 1      # x >> 4 on int8: [-8, 7]
UNSIGNED_NIBBLE = 2  # x.to(uint8) & 15: [0, 15], uitofp
OFFSET_FIELD = 3     # (x.to(int32) & 63) + 10: [10, 73]
WIDE_FIELD = 4       # x.to(int32) & 0xFFFFF: [0, 2^20), for f32
WHOLE_BYTE = 5       # x itself: [-128, 127], too wide for bf16's bits


@tile.jit
def int_to_float_kernel(x_ptr, y_ptr, n, MODE: tl.constexpr,
                        BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if MODE == 0:
        v = (x << 4) >> 4
    elif MODE == 1:
        v = x >> 4
    elif MODE == 2:
        v = x.to(tl.uint8) & 15
    elif MODE == 3:
        v = (x.to(tl.int32) & 63) + 10
    elif MODE == 4:
        v = x.to(tl.int32) & 0xFFFFF
    else:
        v = x
    tl.store(y_ptr + offs, v.to(y_ptr.dtype.element_ty), mask=mask)
