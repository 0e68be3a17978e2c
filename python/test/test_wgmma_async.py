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
           "attention_tma", "attention_tma_ws", "attention_tma_overlap_ws",
           "attention_tma_overlap_ws3", "attention_tma_persistent_ws"]


@pytest.mark.parametrize("label", _LABELS + ["matmul"])
def test_bench_wgmmas_stay_in_flight(label):
    kernel = _kernel(label)
    assert "wgmma.mma_async" in kernel.asm["ptx"]
    assert not kernel.metadata["wgmma_serialized"]


def _tutorial_configs():
    m = _bench_ptx().load_kernels()
    return [(c.kwargs, c.num_stages, c.num_warps)
            for c in m.TUTORIAL_MATMUL_CONFIGS]


@pytest.mark.parametrize("config", _tutorial_configs(),
                         ids=lambda c: "{BLOCK_M}x{BLOCK_N}x{BLOCK_K}".format(
                             **c[0]) + f"_s{c[1]}_w{c[2]}")
def test_tutorial_matmul_configs_stay_in_flight(config):
    """Every configuration the matmul tutorial autotunes over: the K loop's
    zero-trip path (its accumulator set by moves) must not reach the final
    wgmma wait, or ptxas serialises every wgmma of the loop (C7515)."""
    kwargs, stages, warps = config
    tool = _bench_ptx()
    m = tool.load_kernels()
    size = 4096
    a, b, c = (tool.StandIn([size, size], "torch.float16") for _ in range(3))
    kernel = m.matmul_kernel
    with launcher.use_launcher(tool.Recorder()):
        kernel[(1,)](a, b, c, size, size, size, a.stride(0), a.stride(1),
                     b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                     num_warps=warps, num_stages=stages, **kwargs)
    (compiled,) = kernel.cache.values()
    if warps >= 4:
        assert "wgmma.mma_async" in compiled.asm["ptx"]
    assert not compiled.metadata["wgmma_serialized"]
