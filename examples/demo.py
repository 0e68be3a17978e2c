"""The demo `utils/demo.sh` runs: compile the examples' kernels and run them.

1. Compiles each example kernel ahead of time for sm_90a (no GPU needed)
   and prints what each stage made of it: Tile IR, TileGPU IR, LLVM IR and
   PTX sizes, registers and shared memory per block (from the cubin ptxas
   wrote), and the compile time.
2. Runs every example: on the GPU when torch finds one (each checks itself
   against a float64 reference and times tile next to torch; with Triton
   installed, the same example source is also run under Triton, by changing
   its imports); otherwise in tile's interpreter on the CPU, on small shapes.

`KERNELS` below is also what the tests compile (python/test/test_examples.py).
"""

import importlib.util
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import common  # noqa: E402  (decides GPU or interpreter before tile loads)

import tile  # noqa: E402

P16, P32 = "*fp16", "*fp32"
# (example, kernel, signature, constexprs, options). Pointers and sizes are
# declared 16-divisible, as a launch on aligned torch tensors specialises.
KERNELS = [
    ("01_vector_add", "add_kernel",
     {"x_ptr": P32, "y_ptr": P32, "out_ptr": P32, "n": "i32"},
     {"BLOCK": 1024}, {}),
    ("02_fused_softmax", "softmax_kernel",
     {"out_ptr": P32, "in_ptr": P32, "in_stride": "i32", "out_stride": "i32",
      "n_cols": "i32"}, {"BLOCK": 4096}, {"num_warps": 8}),
    ("03_matmul_autotune", "matmul_kernel",
     {"a_ptr": P16, "b_ptr": P16, "c_ptr": P16, "M": "i32", "N": "i32",
      "K": "i32", "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32",
      "stride_bn": "i32", "stride_cm": "i32", "stride_cn": "i32"},
     {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8,
      "ACTIVATION": "leaky_relu", "stride_ak": 1, "stride_bn": 1,
      "stride_cn": 1}, {"num_warps": 8, "num_stages": 3}),
    ("04_layer_norm_autograd", "layer_norm_forward",
     {"X": P32, "Y": P32, "W": P32, "B": P32, "Mean": P32, "Rstd": P32,
      "stride": "i32", "N": "i32", "eps": "fp32"}, {"BLOCK": 4096},
     {"num_warps": 16}),
    ("04_layer_norm_autograd", "layer_norm_backward_dx",
     {"DX": P32, "DY": P32, "PartialDW": P32, "PartialDB": P32,
      "Locks": "*i32", "X": P32, "W": P32, "Mean": P32, "Rstd": P32,
      "stride": "i32", "N": "i32"}, {"GROUP": 64, "BLOCK": 4096},
     {"num_warps": 16}),
    ("04_layer_norm_autograd", "sum_slots",
     {"Partial": P32, "Total": P32, "GROUP": "i32", "N": "i32"},
     {"BLOCK_G": 32, "BLOCK_N": 128}, {}),
    ("05_attention", "attention_forward",
     {"Q": P16, "K": P16, "V": P16, "Out": P16, "Lse": P32, "scale": "fp32",
      "seq_len": "i32", "stride_head": "i32", "stride_row": "i32"},
     {"CAUSAL": True, "HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 64},
     {"num_warps": 8, "num_stages": 3}),
    ("05_attention", "attention_forward_tma",
     {"q_desc": "tensordesc<fp16[128,128]>",
      "k_desc": "tensordesc<fp16[128,128]>",
      "v_desc": "tensordesc<fp16[128,128]>", "Out": P16, "Lse": P32,
      "scale": "fp32", "seq_len": "i32", "heads": "i32"},
     {"CAUSAL": True, "HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 128,
      "PROGRAMS": 132},
     {"num_warps": 8, "num_stages": 3}),
    ("05_attention", "attention_backward_delta",
     {"Out": P16, "dOut": P16, "Delta": P32, "seq_len": "i32",
      "stride_head": "i32", "stride_row": "i32", "dQSum": P32},
     {"HEAD_DIM": 128, "BLOCK_M": 64}, {}),
    ("05_attention", "attention_backward_dkdv",
     {"Q": P16, "K": P16, "V": P16, "dOut": P16, "Lse": P32, "Delta": P32,
      "dK": P16, "dV": P16, "scale": "fp32", "seq_len": "i32",
      "stride_head": "i32", "stride_row": "i32"},
     {"CAUSAL": True, "HEAD_DIM": 128, "BLOCK_M": 64, "BLOCK_N": 128},
     {"num_warps": 8, "num_stages": 2}),
    ("05_attention", "attention_backward_dq",
     {"Q": P16, "K": P16, "V": P16, "dOut": P16, "Lse": P32, "Delta": P32,
      "dQ": P16, "scale": "fp32", "seq_len": "i32", "stride_head": "i32",
      "stride_row": "i32"},
     {"CAUSAL": True, "HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 64},
     {"num_warps": 8, "num_stages": 2}),
    ("05_attention", "attention_backward_dkdv_tma",
     {"q_desc": "tensordesc<fp16[64,128]>",
      "k_desc": "tensordesc<fp16[128,128]>",
      "v_desc": "tensordesc<fp16[128,128]>",
      "do_desc": "tensordesc<fp16[64,128]>", "Lse": P32, "Delta": P32,
      "dK": P16, "dV": P16, "scale": "fp32", "seq_len": "i32"},
     {"CAUSAL": True, "HEAD_DIM": 128, "BLOCK_M": 64, "BLOCK_N": 128},
     {"num_warps": 8, "num_stages": 2}),
    ("05_attention", "attention_backward_dq_tma",
     {"q_desc": "tensordesc<fp16[128,128]>",
      "k_desc": "tensordesc<fp16[64,128]>",
      "v_desc": "tensordesc<fp16[64,128]>",
      "do_desc": "tensordesc<fp16[128,128]>", "Lse": P32, "Delta": P32,
      "dQ": P16, "scale": "fp32", "seq_len": "i32"},
     {"CAUSAL": True, "HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 64},
     {"num_warps": 8, "num_stages": 2}),
    ("05_attention", "attention_backward_fused",
     {"q_desc": "tensordesc<fp16[64,128]>",
      "k_desc": "tensordesc<fp16[128,128]>",
      "v_desc": "tensordesc<fp16[128,128]>",
      "do_desc": "tensordesc<fp16[64,128]>",
      "dq_desc": "tensordesc<fp32[64,128]>", "Lse": P32, "Delta": P32,
      "dK": P16, "dV": P16, "scale": "fp32", "seq_len": "i32"},
     {"CAUSAL": True, "HEAD_DIM": 128, "BLOCK_M": 64, "BLOCK_N": 128},
     {"num_warps": 8, "num_stages": 2}),
    ("05_attention", "scale_and_cast",
     {"X": P32, "Y": P16, "scale": "fp32", "n": "i32"}, {"BLOCK": 4096},
     {}),
    ("06_tensor_descriptors", "transpose_scale_kernel",
     {"x_ptr": P16, "y_ptr": P16, "M": "i32", "N": "i32", "alpha": "fp32"},
     {"BLOCK_M": 64, "BLOCK_N": 64}, {}),
]

EXAMPLES = sorted(p.stem for p in HERE.glob("0*.py"))


def load_example(name, port_to_triton=False):
    """The example module; with `port_to_triton`, the same source with its
    imports changed to Triton's (the port a Triton user would make the
    other way round)."""
    path = HERE / (name + ".py")
    source = path.read_text()
    module_name = "example_" + name + ("_triton" if port_to_triton else "")
    if port_to_triton:
        source = source.replace("import tile.language as tl",
                                "import triton.language as tl")
        source = source.replace("import tile\n", "import triton as tile\n")
        source = source.replace("from tile.tools.", "from triton.tools.")
    spec = importlib.util.spec_from_loader(module_name, loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__file__ = str(path)
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


def kernel_function(module, name):
    return common.jit_function(getattr(module, name))


def compile_kernel(entry):
    example, name, signature, constexprs, options = entry
    fn = kernel_function(load_example(example), name)
    aligned = [p for p, t in signature.items() if t.startswith("*") or
               t == "i32" and p not in constexprs]
    start = time.perf_counter()
    compiled = tile.compile(fn, {p: t for p, t in signature.items()
                                 if p not in constexprs},
                            constexprs, divisibility=aligned, **options)
    return compiled, (time.perf_counter() - start) * 1e3


def _lines(text):
    return sum(1 for line in text.splitlines() if line.strip())


def summarise():
    print("== Compiling the examples' kernels for sm_90a (no GPU needed)")
    print("%-27s %6s %8s %6s %6s %5s %7s %8s" % (
        "kernel", "Tile", "TileGPU", "LLVM", "PTX", "regs", "shared",
        "compile"))
    for entry in KERNELS:
        compiled, ms = compile_kernel(entry)
        asm, meta = compiled.asm, compiled.metadata
        print("%-27s %6d %8d %6d %6d %5d %6dB %6.0fms" % (
            entry[1], _lines(asm["tile"]), _lines(asm["tilegpu"]),
            _lines(asm["llir"]), _lines(asm["ptx"]), meta["num_regs"],
            meta["shared"], ms))
    print("(IR sizes in lines; registers per thread and shared memory per "
          "block from the cubin)")


def run_examples():
    print()
    print("== Running the examples %s" % common.where())
    for name in EXAMPLES:
        print("--", name)
        load_example(name).main()
    if not common.GPU or common.SMALL:
        return
    try:
        import triton  # noqa: F401
    except ImportError:
        print("(Triton is not installed: no Triton column)")
        return
    print()
    print("== The same example sources under Triton (imports changed)")
    for name in EXAMPLES:
        print("--", name, "(triton)")
        try:
            load_example(name, port_to_triton=True).main()
        except Exception as error:  # a Triton limit, reported, not fatal
            print("   Triton could not run it: %s" % str(error).splitlines()[0])


if __name__ == "__main__":
    summarise()
    run_examples()
