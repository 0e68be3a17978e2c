"""Kernels whose early return is followed by code that retypes a variable
(flash-attn's rotary kernel advances its pointer arguments into pointer
tensors after `if pid_m * BLOCK_M >= seqlen: return`)."""

import tile
import tile.language as tl


@tile.jit
def advance_after_return(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    x_ptr = x_ptr + pid * BLOCK + tl.arange(0, BLOCK)
    out_ptr = out_ptr + pid * BLOCK + tl.arange(0, BLOCK)
    mask = pid * BLOCK + tl.arange(0, BLOCK) < n
    tl.store(out_ptr, tl.load(x_ptr, mask=mask) * 2.0, mask=mask)
