"""Descriptor reductions as Triton's test writes them: each program loads a
block of one of a's REPEAT slices and reduces it into the same block of
out, through a host descriptor or (out_desc None) one the kernel makes."""

import tile
import tile.language as tl


@tile.jit
def reduce_blocks(out_desc, out_ptr, a_ptr, M, N, REPEAT: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr, KIND: tl.constexpr):
    # Program (i, j, r) reduces block (i, j) of a's r-th M x N slice into
    # the same block of out: REPEAT programs meet at every block.
    if out_desc is None:
        desc = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BM, BN])
    else:
        desc = out_desc
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    rows = m + tl.arange(0, BM)
    cols = n + tl.arange(0, BN)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    val = tl.load(a_ptr + tl.program_id(2).to(tl.int64) * M * N
                  + rows[:, None] * N + cols[None, :], mask=inside)
    if KIND == "add":
        desc.atomic_add([m, n], val)
    elif KIND == "min":
        desc.atomic_min([m, n], val)
    elif KIND == "max":
        desc.atomic_max([m, n], val)
    elif KIND == "and":
        desc.atomic_and([m, n], val)
    elif KIND == "or":
        desc.atomic_or([m, n], val)
    else:
        desc.atomic_xor([m, n], val)
