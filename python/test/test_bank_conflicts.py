"""No benchmark kernel has a bank-conflicted shared-memory access, by the
bank model the pipeliner chooses buffer layouts with
(`tilegpu-report-shared-wavefronts` on each kernel's TileGPU IR). Guards
the register-load buffer swizzle (int4 weights read into the swapped wgmma
operand were 4-way conflicted) and every other layout choice that lands
in shared memory. Compiled without a GPU."""

import importlib.util
import os
import re
import sys

import pytest

import tile
from tile import _C
from tile.runtime import launcher

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REPORT = re.compile(r"(\S+) (\w+): shared wavefronts per warp (\d+) "
                    r"\((\d+) without bank conflicts\)")


def load(path, name):
    if not os.path.exists(path):
        pytest.skip("needs the source tree's %s" % os.path.relpath(path, REPO))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def conflicted_accesses(kernel):
    """(op, side, wavefronts, without conflicts) of each access the model
    counts conflicts in."""
    result = _C.run_pipeline(kernel.asm["tilegpu"], kernel.name,
                             "builtin.module(tilegpu-report-shared-wavefronts)")
    assert result.ok
    found = []
    for diagnostic in result.diagnostics:
        match = REPORT.search(diagnostic.message)
        assert match, diagnostic.message
        op, side, actual, ideal = match.groups()
        if int(actual) > int(ideal):
            found.append((op, side, int(actual), int(ideal)))
    return found


def bench_kernels():
    """(label, compiled kernel) for every launch bench/bench.py makes."""
    ptx = load(os.path.join(REPO, "utils", "bench_ptx.py"), "bench_ptx_tool")
    module = ptx.load_kernels()
    compiled = []
    with launcher.use_launcher(ptx.Recorder()):
        for label, kernel, launch in ptx.launches(module):
            before = set(map(id, kernel.cache.values()))
            launch(kernel)
            compiled += [(label, k) for k in kernel.cache.values()
                         if id(k) not in before]
    return compiled


def test_bench_kernels_have_no_bank_conflicts():
    kernels = bench_kernels()
    assert len(kernels) >= 10
    for label, kernel in kernels:
        assert conflicted_accesses(kernel) == [], label


@pytest.mark.parametrize("config", [(128, 256, 64, 8, 3), (128, 128, 64, 8, 4),
                                    (128, 256, 128, 8, 3)])
@pytest.mark.parametrize("group", [0, 128])
def test_int4_weight_loads_have_no_bank_conflicts(config, group):
    source = load(os.path.join(REPO, "bench", "inference_src.py"),
                  "inference_src_tile")
    bm, bn, bk, warps, stages = config
    kernel = tile.compile(
        source.int4_matmul_kernel,
        signature=dict(a_ptr="*bf16", b_ptr="*i8", scale_ptr="*bf16",
                       c_ptr="*bf16", M="i32", N="i32", K="i32",
                       stride_am="i32", stride_bk="i32", stride_sg="i32",
                       stride_cm="i32"),
        constexprs=dict(stride_ak=1, stride_bn=1, stride_cn=1,
                        GROUP_SIZE=group, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                        GROUP_M=8),
        num_warps=warps, num_stages=stages,
        divisibility=["a_ptr", "b_ptr", "scale_ptr", "c_ptr", "M", "N", "K",
                      "stride_am", "stride_bk", "stride_sg", "stride_cm"])
    # The packed weights are read from a swizzled buffer, conflict-free.
    assert re.search(r"#tilegpu\.shared<\{vec = 16, perPhase = \d+, "
                     r"maxPhase = \d+", kernel.asm["tilegpu"])
    assert conflicted_accesses(kernel) == []
