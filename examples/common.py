"""What the examples share: where their kernels run, test data, checks and
timing. It is not part of tile; it keeps the tutorials about kernels.

With torch and a CUDA GPU, kernels run on the GPU on torch tensors. Anywhere
else, or with TILE_INTERPRET=1, they run in tile's interpreter on numpy
arrays: one program at a time on the CPU, with the compiled kernel's
semantics. Import this module before tile: tile reads TILE_INTERPRET once,
when it is imported.
"""

import contextlib
import os
import sys

import numpy as np


def _gpu_present():
    if os.environ.get("TILE_INTERPRET", "0") not in ("", "0"):
        return False
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


GPU = _gpu_present()
if not GPU:
    os.environ["TILE_INTERPRET"] = "1"

import tile  # noqa: E402

if GPU:
    import torch

# Examples take --small in CI and in the interpreter: the same code on
# shapes the CPU gets through in seconds.
SMALL = not GPU or "--small" in sys.argv
# --compare: on the GPU, also run each example in the interpreter on the
# same inputs and require the two to agree.
COMPARE = GPU and "--compare" in sys.argv
# Timings are taken on the GPU at full size, unless --no-bench (a run under
# compute-sanitizer checks the kernels; timing them there says nothing).
BENCH = GPU and not SMALL and "--no-bench" not in sys.argv

_rng = np.random.default_rng(20261125)


def where():
    if GPU:
        return "on the GPU (%s)" % torch.cuda.get_device_name()
    return "in tile's interpreter on the CPU (no GPU here)"


def randn(*shape, dtype="float32", scale=1.0):
    """Fresh normal data: a torch tensor on the GPU, else a numpy array."""
    data = (_rng.standard_normal(shape) * scale).astype(np.float32)
    if GPU:
        return torch.from_numpy(data).to("cuda", getattr(torch, dtype))
    return data.astype(dtype)


def empty(*shape, dtype="float32"):
    """An output buffer full of NaN, so that an element the kernel forgets
    to write fails the check instead of passing as a stale zero."""
    if GPU:
        return torch.full(shape, float("nan"), device="cuda",
                          dtype=getattr(torch, dtype))
    return np.full(shape, np.nan, dtype=dtype)


def zeros(*shape, dtype="float32"):
    if GPU:
        return torch.zeros(shape, device="cuda", dtype=getattr(torch, dtype))
    return np.zeros(shape, dtype=dtype)


def empty_like(x, shape=None):
    """empty() with the dtype (and by default the shape) of `x`."""
    dtype = str(x.dtype).replace("torch.", "")
    return empty(*(x.shape if shape is None else shape), dtype=dtype)


def address(x):
    """Where the elements of a tensor (or numpy array) start."""
    if GPU and isinstance(x, torch.Tensor):
        return x.data_ptr()
    return x.ctypes.data


def stride(x, dim):
    """Elements between neighbours along `dim` (numpy counts bytes)."""
    if GPU and isinstance(x, torch.Tensor):
        return x.stride(dim)
    return x.strides[dim] // x.itemsize


def float64(x):
    """A float64 numpy copy of a tensor or array, for references."""
    if GPU and isinstance(x, torch.Tensor):
        return x.detach().double().cpu().numpy()
    return np.asarray(x, dtype=np.float64)


def check(what, got, expected, atol, rtol=0.0):
    """Fails unless |got - expected| <= atol + rtol * |expected| everywhere
    (NaN fails); prints the largest error."""
    got, expected = float64(got), float64(expected)
    error = np.abs(got - expected)
    bad = ~(error <= atol + rtol * np.abs(expected))
    worst = np.nanmax(error) if error.size else 0.0
    print("  %-28s max |error| %.2e %s" % (what, worst,
                                           "FAILED" if bad.any() else "ok"))
    if bad.any():
        raise AssertionError("%s: %d of %d elements off (first at %s)" % (
            what, bad.sum(), bad.size, np.argwhere(bad)[0].tolist()))


def bench_ms(fn):
    """Median milliseconds of `fn` on the GPU (events, after warm-up)."""
    return tile.testing.do_bench(fn, return_mode="median")


def report(what, ms, amount, unit):
    """One timing line: `amount` is bytes (unit GB/s) or flops (TFLOPS)."""
    scale = 1e-9 if unit == "GB/s" else 1e-12
    print("  %-28s %8.3f ms  %8.1f %s" % (what, ms, amount * scale / (ms * 1e-3),
                                          unit))


def jit_function(kernel):
    """The @tile.jit function under any @tile.autotune / @tile.heuristics."""
    while not isinstance(kernel, tile.JITFunction):
        kernel = kernel.fn
    return kernel


@contextlib.contextmanager
def interpreted(*kernels):
    """Runs `kernels` (@tile.jit functions, autotuned or not) in the
    interpreter inside the block, even on a GPU host."""
    functions = []
    for kernel in map(jit_function, kernels):
        functions.append((kernel, kernel.interpret))
        kernel.interpret = True
    try:
        yield
    finally:
        for kernel, before in functions:
            kernel.interpret = before


def compare_with_interpreter(what, run, kernels, atol, rtol=0.0):
    """With --compare on the GPU: `run()` returns outputs; run it compiled
    and interpreted on the same inputs and require them to agree."""
    if not COMPARE:
        return
    compiled = run()
    with interpreted(*kernels):
        by_interpreter = run()
    if not isinstance(compiled, (tuple, list)):
        compiled, by_interpreter = [compiled], [by_interpreter]
    for i, (a, b) in enumerate(zip(compiled, by_interpreter)):
        check("%s, GPU vs interpreter [%d]" % (what, i), a, b, atol, rtol)
