"""Loops over ranges that count down (a constexpr negative step), with
runtime and constexpr bounds: the compiled loop runs k = 0, -STEP, ...
below start - end and the body sees start - k."""

import tile
import tile.language as tl


@tile.jit
def sum_range(out, lo, hi, STEP: tl.constexpr):
    acc = tl.zeros((1,), dtype=tl.int64).sum()
    for i in range(lo, hi, STEP):
        acc += i
    tl.store(out, acc)


@tile.jit
def write_indices_down(out, n, STEP: tl.constexpr, BLOCK: tl.constexpr):
    # Each iteration writes its index into slot (n - 1 - i) // -STEP: the
    # slots record the order the iterations ran in.
    offs = tl.arange(0, BLOCK)
    slot = 0
    for i in range(n - 1, -1, STEP):
        tl.store(out + slot + offs * 0, i + offs * 0, mask=offs == 0)
        slot += 1
