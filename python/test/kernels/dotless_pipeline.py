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


@tile.jit
def row_logsumexp_kernel(x_ptr, out_ptr, stride, n, STAGES: tl.constexpr,
                         BLOCK: tl.constexpr):
    """out[row] = logsumexp(x[row, :n]): an online max and sum whose masked
    tail reads -inf, so the copies ahead must not leave zeros there."""
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * stride
    running_max = -float("inf")
    running_sum = 0.0
    for start in tl.range(0, n, BLOCK, num_stages=STAGES):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < n, other=-float("inf")).to(tl.float32)
        new_max = tl.maximum(running_max, tl.max(x, axis=0))
        running_sum = running_sum * tl.exp(running_max - new_max) + \
            tl.sum(tl.exp(x - new_max), axis=0)
        running_max = new_max
    tl.store(out_ptr + row, running_max + tl.log(running_sum))
