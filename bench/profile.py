"""Runs one bench.py kernel three times under one implementation, for
profiling the third run with ncu:

    ncu --kernel-name regex:'matmul|attention' --launch-skip 2 --launch-count 1 \\
        python3 bench/profile.py matmul|attention|dkdv|int4|int4_decode \\
        tile|triton|cublas [OUT_DIR]

matmul: $MATMUL_SIZE^3 (4096 by default), 128x256x64, 8 warps, 3 stages;
`cublas` runs torch.matmul on the same operands instead. dkdv: the dK/dV
kernel of examples/05_attention.py's backward (32 heads x 4096 x 128,
causal when $CAUSAL=1), under tile or Triton. int4: bench/inference_src.py's
int4_matmul_kernel at ${INT4_M:-4096}x8192x8192 ($INT4_CONFIG "BM,BN,BK,warps,stages",
default 128,256,64,8,3; $GROUP 0 or 128); int4_decode: its split-K kernel at
M=16 ($INT4_CONFIG "BM,BN,BK,warps,stages,split", default 16,64,128,4,4,8).
attention: d=128, S=4096,
128 heads, 128x64 blocks, 8 warps, 3 stages (or $ATTENTION_CONFIG). With OUT_DIR, also writes the
implementation's intermediate IR and PTX there (Triton only)."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import load  # noqa: E402


def run_matmul(m):
    size = int(os.environ.get("MATMUL_SIZE", "4096"))
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    if m is None:
        return torch.matmul(a, b)
    c = torch.empty(size, size, device="cuda", dtype=torch.float16)
    grid = ((size // 128) * (size // 256),)
    return m.matmul_kernel[grid](
        a, b, c, size, size, size, a.stride(0), a.stride(1), b.stride(0),
        b.stride(1), c.stride(0), c.stride(1), num_warps=8, num_stages=3,
        BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8)


def run_attention(m):
    # ATTENTION_CONFIG="BLOCK_M,BLOCK_N,warps,stages" picks another config.
    config = os.environ.get("ATTENTION_CONFIG", "128,64,8,3")
    block_m, block_n, warps, stages = (int(x) for x in config.split(","))
    heads, seq, dim = 128, 4096, 128
    q, k, v = (torch.randn(heads, seq, dim, device="cuda", dtype=torch.float16)
               for _ in range(3))
    out = torch.empty_like(q)
    return m.attention_fwd_kernel[(seq // block_m, heads)](
        q, k, v, out, dim ** -0.5, dim, dim, dim, dim, seq, num_warps=warps,
        num_stages=stages, BLOCK_M=block_m, BLOCK_N=block_n, HEAD_DIM=dim)


def int4_operands(M, N, K, group):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    packed = torch.randint(-128, 128, (K // 2, N), device="cuda",
                           dtype=torch.int16).to(torch.int8)
    rows = K // group if group else 1
    scales = (torch.rand(rows, N, device="cuda") + 0.5).to(torch.bfloat16)
    return a, packed, scales


def run_int4(m):
    config = os.environ.get("INT4_CONFIG", "128,256,64,8,3")
    bm, bn, bk, warps, stages = (int(x) for x in config.split(","))
    group = int(os.environ.get("GROUP", "0"))
    M, N, K = int(os.environ.get("INT4_M", "4096")), 8192, 8192
    a, packed, scales = int4_operands(M, N, K, group)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    grid = (((M + bm - 1) // bm) * ((N + bn - 1) // bn),)
    return m.int4_matmul_kernel[grid](
        a, packed, scales, c, M, N, K, a.stride(0), a.stride(1),
        packed.stride(0), packed.stride(1), scales.stride(0) if group else 0,
        c.stride(0), c.stride(1), GROUP_SIZE=group, BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, GROUP_M=8, num_warps=warps, num_stages=stages)


def run_int4_decode(m):
    config = os.environ.get("INT4_CONFIG", "16,64,128,4,4,8")
    bm, bn, bk, warps, stages, split = (int(x) for x in config.split(","))
    group = int(os.environ.get("GROUP", "0"))
    M, N, K = 16, 8192, 8192
    a, packed, scales = int4_operands(M, N, K, group)
    c = torch.zeros(M, N, device="cuda", dtype=torch.float32)
    return m.int4_matmul_splitk_kernel[(1, N // bn, split)](
        a, packed, scales, c, M, N, K, a.stride(0), a.stride(1),
        packed.stride(0), packed.stride(1), scales.stride(0) if group else 0,
        c.stride(0), c.stride(1), GROUP_SIZE=group, BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, SPLIT_K=split, num_warps=warps, num_stages=stages)


def run_dkdv(example):
    heads, seq, dim = 32, 4096, 128
    causal = os.environ.get("CAUSAL", "0") == "1"
    q, k, v, dout = (torch.randn(heads, seq, dim, device="cuda",
                                 dtype=torch.float16) for _ in range(4))
    out, lse = example.attention(q, k, v, causal, with_lse=True)
    example.attention_backward(q, k, v, out, lse, dout, causal)


def main():
    kernel_name, flavor = sys.argv[1], sys.argv[2]
    out = sys.argv[3] if len(sys.argv) > 3 else None
    if kernel_name == "dkdv":
        sys.path.insert(0, os.path.join(os.path.dirname(
            os.path.abspath(__file__)), "..", "examples"))
        import demo
        m = demo.load_example("05_attention",
                              port_to_triton=flavor == "triton")
    elif kernel_name.startswith("int4"):
        m = load(flavor, "inference_src.py")
    else:
        m = None if flavor == "cublas" else load(flavor)
    run = {"matmul": run_matmul, "attention": run_attention,
           "dkdv": run_dkdv, "int4": run_int4,
           "int4_decode": run_int4_decode}[kernel_name]
    for _ in range(3):
        kernel = run(m)
    torch.cuda.synchronize()
    if out and kernel is not None and hasattr(kernel, "asm"):
        for key, text in kernel.asm.items():
            if isinstance(text, str):
                path = os.path.join(out, "%s.%s.%s" % (kernel_name, flavor, key))
                with open(path, "w") as f:
                    f.write(text)


if __name__ == "__main__":
    main()
