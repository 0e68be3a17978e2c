"""Kernels that use the rest of tl.extra.cuda (issue 17)."""

import tile
import tile.language as tl
from tile.language.extra import cuda


@tile.jit
def registers(sm_ptr, elapsed_ptr, counts_ptr):
    start = cuda.globaltimer()
    pid = tl.program_id(0)
    tl.store(sm_ptr + pid, cuda.smid())
    tl.store(counts_ptr + 2 * pid, cuda.num_warps())
    tl.store(counts_ptr + 2 * pid + 1, cuda.num_threads())
    tl.store(elapsed_ptr + pid, cuda.globaltimer() - start)


@tile.jit
def scaled_after_previous(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """y = 2 x, reading x only after the grid it depends on (programmatic
    dependent launch) and letting the next one start early."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cuda.gdc_wait()
    x = tl.load(x_ptr + offs, mask=offs < n)
    cuda.gdc_launch_dependents()
    tl.store(y_ptr + offs, 2 * x, mask=offs < n)
