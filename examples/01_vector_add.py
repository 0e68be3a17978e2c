"""Vector add: the smallest complete tile program.

What it teaches:
- a kernel is a Python function under @tile.jit, written against whole
  blocks of elements (`tl.arange`), not single threads;
- each program instance finds its block from `tl.program_id`;
- a mask keeps the last, partial block inside the arrays;
- the launch `kernel[grid](...)` takes torch tensors (or numpy arrays in the
  interpreter) and compile-time constants as keywords.

Run: python examples/01_vector_add.py   (GPU if present, else interpreter)
"""

import common  # before tile: picks the GPU or the interpreter

import tile
import tile.language as tl


@tile.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Program i handles elements [i * BLOCK, (i + 1) * BLOCK).
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    in_bounds = offsets < n
    x = tl.load(x_ptr + offsets, mask=in_bounds)
    y = tl.load(y_ptr + offsets, mask=in_bounds)
    tl.store(out_ptr + offsets, x + y, mask=in_bounds)


def add(x, y):
    out = common.empty_like(x)
    n = x.shape[0]
    # One program per block; the grid may also be a function of the
    # launch's arguments, e.g. lambda meta: (tile.cdiv(n, meta["BLOCK"]),).
    add_kernel[(tile.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


def main():
    print("vector add, %s" % common.where())
    n = 4097 if common.SMALL else 98_432 * 1024  # not a multiple of BLOCK
    x, y = common.randn(n), common.randn(n)
    out = add(x, y)
    common.check("x + y", out, common.float64(x) + common.float64(y), 1e-6)
    common.compare_with_interpreter(
        "x + y", lambda: add(x[:4097], y[:4097]), [add_kernel], 0.0)
    if common.BENCH:
        moved = 3 * n * x.element_size()
        common.report("tile", common.bench_ms(lambda: add(x, y)), moved, "GB/s")
        common.report("torch", common.bench_ms(lambda: x + y), moved, "GB/s")


if __name__ == "__main__":
    main()
