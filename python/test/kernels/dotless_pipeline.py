"""Loops with no dot whose `tl.range(..., num_stages=)` asks for a pipeline:
the loads run ahead by cp.async while the stores use the loop's own
pointers (Triton's test_hooks kernel is of this kind)."""

import tile
import tile.language as tl


@tile.jit
def scale_rows_kernel(src_ptr, dst_ptr, n, STAGES: tl.constexpr,
                      BLOCK: tl.constexpr):
    """dst[i] = 3 * src[i] + 1, one BLOCK per iteration of one program."""
    offsets = tl.arange(0, BLOCK)
    for _ in tl.range(tl.cdiv(n, BLOCK), num_stages=STAGES):
        x = tl.load(src_ptr + offsets, mask=offsets < n)
        tl.store(dst_ptr + offsets, x * 3 + 1, mask=offsets < n)
        offsets += BLOCK
