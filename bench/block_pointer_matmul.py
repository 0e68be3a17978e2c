"""The block-pointer matmul (tl.make_block_ptr + tl.advance, every edge
checked) under tile and under Triton 3.6, same source, same configuration:
TFLOPS at fp16 4096^3 and 8192^3, median of CUDA-event timings after a
warm-up, checked against torch first.

    python3 bench/block_pointer_matmul.py"""

import importlib.util
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE.parent / "python" / "test" / "kernels" / "aggregates.py"


def load(port_to_triton):
    text = SOURCE.read_text()
    if port_to_triton:
        text = text.replace("import tile.language as tl",
                            "import triton.language as tl")
        text = text.replace("import tile\n", "import triton as tile\n")
    spec = importlib.util.spec_from_loader(
        "bp_" + ("triton" if port_to_triton else "tile"), loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(text, str(SOURCE), "exec"), module.__dict__)
    return module


def main():
    import triton.testing
    mods = {"tile": load(False), "triton": load(True)}
    for size in (4096, 8192):
        a = torch.randn(size, size, device="cuda", dtype=torch.float16)
        b = torch.randn(size, size, device="cuda", dtype=torch.float16)
        ref = a.float() @ b.float()
        grid = (size // 128, size // 128)
        for name, m in mods.items():
            c = torch.full((size, size), float("nan"), device="cuda",
                           dtype=torch.float16)

            def run():
                m.block_matmul[grid](a, b, c, size, size, size, a.stride(0),
                                     a.stride(1), b.stride(0), b.stride(1),
                                     c.stride(0), c.stride(1), BLOCK_M=128,
                                     BLOCK_N=128, BLOCK_K=64, STAGES=3,
                                     num_warps=8)
            run()
            torch.cuda.synchronize()
            err = ((c.float() - ref).norm() / ref.norm()).item()
            assert err < 1e-2, (name, err)
            ms = triton.testing.do_bench(run, warmup=100, rep=500,
                                         return_mode="median")
            print("block-pointer matmul fp16 %d^3  %-6s %7.1f TFLOPS"
                  % (size, name, 2 * size ** 3 / ms / 1e9), flush=True)
        ms = triton.testing.do_bench(lambda: a @ b, warmup=100, rep=500,
                                     return_mode="median")
        print("block-pointer matmul fp16 %d^3  %-6s %7.1f TFLOPS"
              % (size, "cuBLAS", 2 * size ** 3 / ms / 1e9), flush=True)


if __name__ == "__main__":
    sys.exit(main())
