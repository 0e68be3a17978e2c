"""Without a GPU: the PTX of the classic kernels, checked with FileCheck, and
accepted by ptxas -arch=sm_90a (the cubin is produced by ptxas)."""

import tile
from filecheck import filecheck
from kernels import classic as k


def test_vector_add_ptx_is_vectorised():
    kernel = tile.compile(k.add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                   "out_ptr": "*fp32", "n_elements": "i32"},
                          constexprs={"BLOCK_SIZE": 1024},
                          divisibility=["x_ptr", "y_ptr", "out_ptr", "n_elements"])
    filecheck(kernel.asm["ptx"], r"""
CHECK: .entry add_kernel
CHECK: ld.global.v4.f32
CHECK: ld.global.v4.f32
CHECK: st.global.v4.f32
""")
    assert len(kernel.asm["cubin"]) > 0


def test_softmax_ptx_reduces_with_shuffles():
    kernel = tile.compile(k.softmax_kernel, signature={
        "out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32",
        "out_row_stride": "i32", "n_rows": "i32", "n_cols": "i32"},
        constexprs={"BLOCK_SIZE": 1024})
    filecheck(kernel.asm["ptx"], r"""
CHECK: .entry softmax_kernel
CHECK: shfl.sync.bfly.b32
CHECK: bar.sync
""")
    assert len(kernel.asm["cubin"]) > 0
    assert kernel.metadata["shared"] > 0


def test_matmul_compiles_to_cubin():
    kernel = tile.compile(k.matmul_kernel, signature=dict(
        a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32",
        stride_am="i32", stride_ak="i32", stride_bk="i32", stride_bn="i32",
        stride_cm="i32", stride_cn="i32"),
        constexprs=dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8,
                        ACTIVATION="leaky_relu"))
    assert "fma.rn.f32" in kernel.asm["ptx"]
    assert len(kernel.asm["cubin"]) > 0
