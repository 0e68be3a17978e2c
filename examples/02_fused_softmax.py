"""Fused softmax: one row per program, read once, written once.

What it teaches:
- reductions over a block (`tl.max`, `tl.sum`) and broadcasting a row's
  scalar back over the row;
- `other=` fills masked-off lanes with a value that cannot win the max, so
  a row narrower than the block needs no special case;
- `tl.constexpr` block sizes chosen on the host (`tile.next_power_of_2`)
  and `num_warps` as a launch option;
- why fusing pays: torch's softmax does the same work in one kernel too,
  but an unfused version would read the row three times.

Run: python examples/02_fused_softmax.py
"""

import common

import numpy as np

import tile
import tile.language as tl


@tile.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols,
                other=-float("inf"))
    # Subtracting the max keeps exp() finite; it cancels in the ratio.
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols,
             numerator / tl.sum(numerator, axis=0), mask=cols < n_cols)


def softmax(x):
    rows, cols = x.shape
    out = common.empty_like(x)
    block = tile.next_power_of_2(cols)
    warps = 4 if block <= 2048 else 8 if block <= 8192 else 16
    softmax_kernel[(rows,)](out, x, common.stride(x, 0), common.stride(out, 0),
                            cols, BLOCK=block, num_warps=warps)
    return out


def reference(x):
    x = common.float64(x)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main():
    print("fused softmax, %s" % common.where())
    shape = (37, 781) if common.SMALL else (4096, 3000)
    x = common.randn(*shape, scale=3.0)
    common.check("softmax rows", softmax(x), reference(x), 1e-6, 1e-5)
    common.compare_with_interpreter(
        "softmax", lambda: softmax(x[:37]), [softmax_kernel], 1e-7, 1e-6)
    if common.BENCH:
        moved = 2 * x.numel() * x.element_size()
        common.report("tile", common.bench_ms(lambda: softmax(x)), moved, "GB/s")
        common.report("torch", common.bench_ms(
            lambda: common.torch.softmax(x, dim=1)), moved, "GB/s")


if __name__ == "__main__":
    main()
