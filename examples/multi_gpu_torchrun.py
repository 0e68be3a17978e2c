"""tile kernels in a torch.distributed job: one process per GPU.

What it shows:
- each rank runs the tutorials' own kernels (the layer norm of
  04_layer_norm_autograd.py, then the autotuned matmul of
  03_matmul_autotune.py) on its own GPU, on its own slice of a batch;
- the ranks share one kernel cache (TILE_CACHE_DIR): they compile and
  autotune at the same time, and the cache keeps one whole entry each;
- an NCCL all-reduce of the outputs is checked against an all-reduce of a
  float64 reference, so every rank's result counts in every rank's check.

Run (two GPUs; set TILE_CACHE_DIR to share a cache between the ranks):

    torchrun --nproc_per_node=2 examples/multi_gpu_torchrun.py

Every rank prints its line; rank 0 prints the all-reduced check.
"""

import importlib.util
import os
import pathlib

import common

import numpy as np
import torch
import torch.distributed as dist

HERE = pathlib.Path(__file__).resolve().parent


def tutorial(name):
    """One of the numbered examples, as a module (their names start with a
    digit, so `import` cannot name them)."""
    spec = importlib.util.spec_from_file_location("tutorial_" + name,
                                                  HERE / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    layer_norm = tutorial("04_layer_norm_autograd")
    matmul = tutorial("03_matmul_autotune")

    rows, hidden, out = 512, 1024, 768
    # Each rank its own rows; the weights are the same on every rank.
    mine = torch.Generator(device="cuda").manual_seed(1000 + rank)
    shared = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn(rows, hidden, device="cuda", generator=mine)
    w = torch.randn(hidden, device="cuda", generator=shared)
    b = torch.randn(hidden, device="cuda", generator=shared)
    weight = (torch.randn(hidden, out, device="cuda", generator=shared)
              / hidden ** 0.5).half()

    y, _, _ = layer_norm.forward(x, w, b, 1e-5)
    z = matmul.matmul(y.half().contiguous(), weight)

    x64 = x.double()
    normed = (x64 - x64.mean(1, keepdim=True)) / torch.sqrt(
        x64.var(1, unbiased=False, keepdim=True) + 1e-5)
    exact = (normed * w.double() + b.double()).half().double() @ weight.double()

    # fp16 output of a sum of 1024 products: ~3 significant digits.
    local_error = ((z.double() - exact).abs() /
                   (exact.abs() + 1e-2)).max().item()
    print("rank %d of %d on %s (cuda:%d): local max rel error %.2e" % (
        rank, world, torch.cuda.get_device_name(local), local, local_error),
        flush=True)

    total = z.float()
    dist.all_reduce(total)
    exact_total = exact.clone()
    dist.all_reduce(exact_total)
    worst = torch.tensor([local_error], device="cuda", dtype=torch.float64)
    dist.all_reduce(worst, op=dist.ReduceOp.MAX)
    if rank == 0:
        common.check("all-reduced layer norm + matmul", total.cpu().numpy(),
                     exact_total.cpu().numpy(), 2e-2 * world, 4e-3)
        print("  worst rank's max rel error %.2e %s" % (
            worst.item(), "ok" if worst.item() < 1e-2 else "FAILED"))
        assert worst.item() < 1e-2 and np.isfinite(worst.item())
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
