"""tl.extra.cuda beyond libdevice (issue 17): globaltimer, smid,
num_warps, num_threads, gdc_wait and gdc_launch_dependents on the compile
path (PTX), and their refusal in the interpreter."""

import numpy as np
import pytest

import tile
from kernels import extra_cuda as ec


def test_special_registers_and_counts_compile():
    kernel = tile.compile(ec.registers, {"sm_ptr": "*i32", "elapsed_ptr": "*i64",
                                         "counts_ptr": "*i32"}, {}, num_warps=8)
    ptx = kernel.asm["ptx"]
    # Each timer read is its own instruction (not pure), the SM id one.
    assert ptx.count("mov.u64 %rd") >= 2 and ptx.count("%globaltimer") == 2
    assert ptx.count("%smid") == 1
    ir = kernel.asm["tile"]
    assert "8 : i32" in ir and "256 : i32" in ir   # num_warps, num_threads


def test_programmatic_dependent_launch_compiles():
    ptx = tile.compile(ec.scaled_after_previous, {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                  "n": "i32"},
                       {"BLOCK": 128}).asm["ptx"]
    wait, launch = ptx.index("griddepcontrol.wait"), \
        ptx.index("griddepcontrol.launch_dependents")
    assert wait < launch


def test_interpreter_refuses_what_needs_a_gpu():
    counts = np.zeros(2, np.int32)
    with pytest.raises(Exception, match="not supported by the interpreter"):
        tile.jit(ec.registers.fn, interpret=True)[(1,)](
            np.zeros(1, np.int32), np.zeros(1, np.int64), counts)


def test_names():
    from tile.language.extra import cuda
    for name in ("libdevice", "globaltimer", "smid", "num_warps", "num_threads",
                 "gdc_wait", "gdc_launch_dependents"):
        assert hasattr(cuda, name), name
