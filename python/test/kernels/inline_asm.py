"""Kernels that run PTX through tl.inline_asm_elementwise (shared by the
CPU compile tests and the GPU tests)."""

import tile
import tile.language as tl


@tile.jit
def byte_swap(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Reverses the four bytes of each int32 (a packed pack=1 case)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.inline_asm_elementwise("prmt.b32 $0, $1, 0, 0x0123;", "=r,r", [x],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, y, mask=mask)


@tile.jit
def byte_add_packed(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """uint8 addition four lanes at a time, wrapping per byte: each asm
    instance gets four uint8 of x and of y packed into one 32-bit register."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.inline_asm_elementwise(
        """{
        .reg .b32 lo, hi;
        and.b32 lo, $1, 0x00FF00FF;
        and.b32 hi, $2, 0x00FF00FF;
        add.u32 lo, lo, hi;
        and.b32 lo, lo, 0x00FF00FF;
        and.b32 $0, $1, 0xFF00FF00;
        and.b32 hi, $2, 0xFF00FF00;
        add.u32 $0, $0, hi;
        and.b32 $0, $0, 0xFF00FF00;
        or.b32 $0, $0, lo;
        }""",
        "=r,r,r", [x, y], dtype=tl.uint8, is_pure=True, pack=4)
    tl.store(out_ptr + offs, z, mask=mask)


@tile.jit
def halves_and_sum(x_ptr, s_ptr, h_ptr, n, BLOCK: tl.constexpr):
    """Two results of two types from one float32: x + 1 (f32) and x as
    float16 (rounded to nearest), with pack=2 (one f32 register per element,
    the two f16 results sharing one 32-bit register)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    s, h = tl.inline_asm_elementwise(
        """{
        .reg .f16 a, b;
        add.f32 $0, $3, 0f3F800000;
        add.f32 $1, $4, 0f3F800000;
        cvt.rn.f16.f32 a, $3;
        cvt.rn.f16.f32 b, $4;
        mov.b32 $2, {a, b};
        }""",
        "=f,=f,=r,f,f", [x], dtype=(tl.float32, tl.float16), is_pure=True,
        pack=2)
    tl.store(s_ptr + offs, s, mask=mask)
    tl.store(h_ptr + offs, h, mask=mask)


@tile.jit
def scalar_asm(out_ptr, v):
    tl.store(out_ptr, tl.inline_asm_elementwise(
        "add.s32 $0, $1, 41;", "=r,r", [v], dtype=tl.int32, is_pure=True,
        pack=1))


@tile.jit
def shift_through_pointers(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # Pointers as operands ("l"): the asm loads and stores through them.
    # Masked-off lanes point at element 0, whose result the asm writes
    # again with the same value.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs = tl.where(offs < n, offs, 0)
    tl.inline_asm_elementwise(
        "ld.global.b8 $0, [$1]; shl.b32 $0, $0, 3; st.global.b8 [$2], $0;",
        "=r,l,l", [x_ptr + offs, y_ptr + offs], dtype=tl.int8,
        is_pure=False, pack=1)
