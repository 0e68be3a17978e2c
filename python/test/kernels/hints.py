"""Kernels that promise facts with tl.multiple_of / tl.max_contiguous /
tl.max_constancy (issue 17)."""

import tile
import tile.language as tl


@tile.jit
def shifted_copy(src, dst, start_ptr, BLOCK: tl.constexpr, HINT: tl.constexpr):
    """dst[s + i] = src[s + i] for i < BLOCK, s loaded from start_ptr: the
    compiler cannot see that s is a multiple of BLOCK unless told."""
    offs = tl.load(start_ptr) + tl.arange(0, BLOCK)
    if HINT:
        offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    tl.store(dst + offs, tl.load(src + offs) * 2.0)


@tile.jit
def rows_scaled(x_ptr, out_ptr, stride, BLOCK: tl.constexpr):
    """A 2-D hint (one value per dimension) on offsets and a scalar hint on
    a stride."""
    stride = tl.multiple_of(stride, 16)
    r = tl.arange(0, BLOCK)
    offs = r[:, None] * stride + r[None, :]
    offs = tl.max_constancy(tl.multiple_of(offs, [16, 16]), [1, 1])
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + 1.0)


@tile.jit
def wrong_rank(x_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    offs = r[:, None] * BLOCK + r[None, :]
    tl.store(x_ptr + tl.multiple_of(offs, 16), 1.0)


@tile.jit
def hinted_in_place(src, dst, start_ptr, BLOCK: tl.constexpr, WHERE: tl.constexpr):
    """Hints whose results are dropped, as Triton's test_vectorization_hints
    writes them: on the line of their own (WHERE "top"), the fact holds for
    the later uses of `offs`; inside a runtime branch ("branch"), only the
    hint's own result carries it."""
    offs = tl.arange(0, BLOCK) + tl.load(start_ptr)
    if WHERE == "top":
        tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    elif WHERE == "branch":
        if tl.load(start_ptr) > 0:
            tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    tl.store(dst + offs, tl.load(src + offs) * 2)
