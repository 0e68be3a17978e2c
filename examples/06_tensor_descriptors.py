"""Tensor descriptors: whole blocks in and out through the TMA unit.

What it teaches:
- `tl.make_tensor_descriptor(ptr, shape, strides, block_shape)` describes a
  2-D tensor once; `desc.load([row, col])` and `desc.store([row, col], x)`
  then move a whole block by its corner. On Hopper (sm_90) that is one TMA
  copy per block, issued by one thread, with no per-element addresses;
- the hardware handles the edges: a block that hangs over the tensor reads
  zeros there and stores nothing there, so the kernel has no masks;
- what TMA asks of the tensor: the last dimension contiguous, the other
  strides and the base 16-byte aligned (tile checks this at launch and
  names the argument that breaks it);
- a blocked transpose: load a block, `tl.trans` it in registers (through
  shared memory), store it at the mirrored corner.

Run: python examples/06_tensor_descriptors.py
"""

import common

import tile
import tile.language as tl


@tile.jit
def transpose_scale_kernel(x_ptr, y_ptr, M, N, alpha,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[N, M], strides=[M, 1],
                                       block_shape=[BLOCK_N, BLOCK_M])
    row = tl.program_id(0) * BLOCK_M
    col = tl.program_id(1) * BLOCK_N
    block = x_desc.load([row, col])
    y_desc.store([col, row], tl.trans(block * alpha))


def transpose_scale(x, alpha):
    M, N = x.shape
    y = common.empty_like(x, shape=(N, M))
    block_m, block_n = 64, 64
    transpose_scale_kernel[(tile.cdiv(M, block_m), tile.cdiv(N, block_n))](
        x, y, M, N, alpha, BLOCK_M=block_m, BLOCK_N=block_n)
    return y


def main():
    print("tensor descriptors (TMA), %s" % common.where())
    # Neither dimension a multiple of the block; both rows 16-byte aligned.
    M, N = (328, 200) if common.SMALL else (8192, 8200)
    x = common.randn(M, N, dtype="float16")
    y = transpose_scale(x, 2.0)
    # Doubling is exact in fp16 (no overflow at these values): bit-exact.
    common.check("2 * x^T", y, 2 * common.float64(x).T, 0.0)
    common.compare_with_interpreter(
        "2 * x^T", lambda: transpose_scale(x[:328, :200].contiguous(), 2.0),
        [transpose_scale_kernel], 0.0)
    if common.BENCH:
        moved = 2 * x.numel() * x.element_size()
        common.report("tile (TMA)", common.bench_ms(
            lambda: transpose_scale(x, 2.0)), moved, "GB/s")
        common.report("torch", common.bench_ms(
            lambda: (x.t() * 2.0).contiguous()), moved, "GB/s")


if __name__ == "__main__":
    main()
