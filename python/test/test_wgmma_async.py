"""Without a GPU: ptxas keeps the wgmmas of every bench/ kernel in flight
(no "wgmma.mma_async instructions are serialized" advisory, C7510-C7515),
read from each compile's metadata. A code-generation change that makes
ptxas serialise them (as the SLP vectorizer once did for the int4 GEMMs,
C7513) fails here instead of showing up as a slower benchmark."""

import importlib.util
import os

import pytest

from tile.runtime import launcher

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH_PTX = os.path.join(HERE, "..", "..", "utils", "bench_ptx.py")


def _bench_ptx():
    spec = importlib.util.spec_from_file_location("bench_ptx", BENCH_PTX)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compiled_bench_kernels():
    """label -> the compiled kernel of every launch bench/bench.py makes."""
    tool = _bench_ptx()
    m = tool.load_kernels()
    compiled = {}
    with launcher.use_launcher(tool.Recorder()):
        for label, kernel, launch in tool.launches(m):
            before = set(map(id, kernel.cache.values()))
            launch(kernel)
            new = [k for k in kernel.cache.values() if id(k) not in before]
            assert len(new) == 1, label
            compiled[label] = new[0]
    return compiled


_KERNELS = {}


def _kernel(label):
    if not _KERNELS:
        _KERNELS.update(_compiled_bench_kernels())
    return _KERNELS[label]


_LABELS = ["matmul_persistent", "matmul_tma", "matmul_tma_ws",
           "matmul_make_desc", "attention", "attention_overlap",
           "attention_tma", "attention_tma_ws", "attention_tma_overlap_ws"]


@pytest.mark.parametrize("label", _LABELS + [pytest.param(
    "matmul", marks=pytest.mark.xfail(strict=True, reason=(
        "C7515: the zero-trip path's accumulator moves reach the final "
        "wgmma wait (docs/performance.md, session 28); remove this mark "
        "when the wait moves onto the loop's exit edge")))])
def test_bench_wgmmas_stay_in_flight(label):
    kernel = _kernel(label)
    assert "wgmma.mma_async" in kernel.asm["ptx"]
    assert not kernel.metadata["wgmma_serialized"]
