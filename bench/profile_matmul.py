"""Runs bench.py's matmul (4096^3, 128x256x64, 8 warps, 3 stages) three
times under one implementation, for profiling the third run with ncu:

    ncu --kernel-name matmul_kernel --launch-skip 2 --launch-count 1 \\
        python3 bench/profile_matmul.py tile|triton [OUT_DIR]

With OUT_DIR, also writes the implementation's intermediate IR and PTX
there."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import load  # noqa: E402


def main():
    flavor = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else None
    m = load(flavor)
    size = 4096
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    c = torch.empty(size, size, device="cuda", dtype=torch.float16)
    grid = ((size // 128) * (size // 256),)
    for _ in range(3):
        kernel = m.matmul_kernel[grid](
            a, b, c, size, size, size, a.stride(0), a.stride(1), b.stride(0),
            b.stride(1), c.stride(0), c.stride(1), num_warps=8, num_stages=3,
            BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8)
    torch.cuda.synchronize()
    if out and kernel is not None and hasattr(kernel, "asm"):
        for key, text in kernel.asm.items():
            if isinstance(text, str):
                with open(os.path.join(out, "%s.%s" % (flavor, key)), "w") as f:
                    f.write(text)


if __name__ == "__main__":
    main()
