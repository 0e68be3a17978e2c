"""Targets: every supported one compiles the classic kernels without
killing the process; anything else is refused before a pass runs (LLVM
aborts the process on a target it cannot select for)."""

import os
import subprocess
import sys

import pytest

import tile
from kernels import classic as k

SCRIPT = r"""
import sys
sys.path.insert(0, %r)
import tile
from kernels import classic as k
target = sys.argv[1]
tile.compile(k.add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32",
             "out_ptr": "*fp32", "n_elements": "i32"},
             constexprs={"BLOCK_SIZE": 1024}, target=target)
tile.compile(k.softmax_kernel, signature={"out_ptr": "*fp32", "in_ptr": "*fp32",
             "in_row_stride": "i32", "out_row_stride": "i32", "n_rows": "i32",
             "n_cols": "i32"}, constexprs={"BLOCK_SIZE": 1024}, target=target)
tile.compile(k.matmul_kernel, signature={n: "*fp16" for n in ("a_ptr", "b_ptr", "c_ptr")}
             | {n: "i32" for n in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk",
                                   "stride_bn", "stride_cm", "stride_cn")},
             constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8,
                         "ACTIVATION": ""}, num_warps=4, target=target)
print("ok", target)
""" % os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("target", tile._C.SUPPORTED_TARGETS)
def test_every_supported_target_compiles(target):
    result = subprocess.run([sys.executable, "-c", SCRIPT, target],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "ok " + target in result.stdout


@pytest.mark.parametrize("target", ["sm_100", "sm_100a", "sm_120", "sm_1000",
                                    "sm_9", "sm_90x", "sm_75", "", "SM_90A"])
def test_unsupported_targets_are_refused(target):
    with pytest.raises(ValueError, match="target must be one of sm_80, .*sm_90a, got"):
        tile.compile(k.add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32",
                     "out_ptr": "*fp32", "n_elements": "i32"},
                     constexprs={"BLOCK_SIZE": 1024}, target=target)


def test_libtile_refuses_them_too():
    # The C++ API checks on its own (tile-opt and other clients).
    ir = 'func.func @k() attributes {tile.kernel} { return }'
    options = tile._C.CompileOptions()
    options.target = "sm_100"
    result = tile._C.compile_kernel(ir, "<test>", options)
    assert not result.ok
    assert "unsupported target 'sm_100'; tile compiles for sm_80" in \
        result.diagnostics[0].message


DESCRIPTOR_SCRIPT = r"""
import tile
import tile.language as tl

@tile.jit
def copy_block(a_ptr, b_ptr, M, N):
    a = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1],
                                  block_shape=[64, 64])
    b = tl.make_tensor_descriptor(b_ptr, shape=[M, N], strides=[N, 1],
                                  block_shape=[64, 64])
    b.store([0, 0], a.load([0, 0]))

@tile.jit
def copy_host_block(a_desc, b_desc):
    b_desc.store([0, 0], a_desc.load([0, 0]))

# Made in the kernel: masked pointer accesses on a GPU without TMA.
ptx = tile.compile(copy_block, signature={"a_ptr": "*fp16", "b_ptr": "*fp16",
                   "M": "i32", "N": "i32"}, divisibility=["a_ptr", "b_ptr", "N"],
                   target="sm_80").asm["ptx"]
print("pointers:", "cp.async.bulk.tensor" not in ptx and "ld.global" in ptx)
# A host TensorDescriptor is a CUtensorMap: TMA or nothing.
try:
    tile.compile(copy_host_block, signature={
        "a_desc": "tensordesc<fp16[64,64]>", "b_desc": "tensordesc<fp16[64,64]>"},
        target="sm_80")
except tile.CompilationError as e:
    print("refused:", str(e).splitlines()[0])
"""


def test_descriptors_on_sm80(tmp_path):
    # Once an LLVM abort ("Cannot select") that killed the interpreter.
    script = tmp_path / "descriptor_kernel.py"
    script.write_text(DESCRIPTOR_SCRIPT)
    result = subprocess.run([sys.executable, str(script)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "pointers: True" in result.stdout
    assert "refused:" in result.stdout
    assert "needs sm_90 or later; this kernel is compiled for 'sm_80'" in result.stdout
    assert "descriptor_kernel.py:" in result.stdout   # located in the kernel
