"""Host time of one warm launch of a small three-tensor kernel, in µs (the
median of 7 runs of 2000 launches each, timed on the host clock with the
GPU kept busy enough not to stall the queue). Run it once with
CUDA_VISIBLE_DEVICES=0 and once with two GPUs visible: the difference is
what the per-launch device check costs where several GPUs are visible.

    python3 bench/launch_cost.py"""

import statistics
import time

import torch

import tile
import tile.language as tl


@tile.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, a * tl.load(x_ptr + offs, mask=mask)
             + tl.load(y_ptr + offs, mask=mask), mask=mask)


def main():
    x, y = torch.randn(1024, device="cuda"), torch.randn(1024, device="cuda")
    out = torch.full_like(x, float("nan"))
    axpy[(1,)](x, y, out, 2.0, 1024, BLOCK=1024)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, 2.0 * x + y)
    samples = []
    for _ in range(7):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(2000):
            axpy[(1,)](x, y, out, 2.0, 1024, BLOCK=1024)
        samples.append((time.perf_counter() - start) / 2000 * 1e6)
        torch.cuda.synchronize()
    print("launch cost: %.2f us (median of 7 x 2000; %d GPU(s) visible)"
          % (statistics.median(samples), torch.cuda.device_count()))


if __name__ == "__main__":
    main()
