"""Triton's `tl.target_info`: the GPU kernels compile for, as compile-time
functions a kernel can branch on (`if tl.target_info.cuda_capability_geq(9):`).

Like Triton's, they ask the active driver (the current GPU); where there is
none (compiling on a machine without a GPU) `current_target()` is None and
every test is False. tile.runtime.driver registers the query, so that this
layer imports nothing above it."""

from tile.language.constexpr_function import constexpr_function

__all__ = ["current_target", "is_cuda", "cuda_capability_geq", "is_hip",
           "is_hip_cdna3", "is_hip_cdna4"]

_query = None


def set_target_query(query):
    """`query()` gives the current GPUTarget (backend, arch, warp_size), or
    raises RuntimeError where there is no GPU."""
    global _query
    _query = query


def current_target():
    if _query is None:
        return None
    try:
        return _query()
    except RuntimeError:
        return None


@constexpr_function
def is_cuda():
    target = current_target()
    return target is not None and target.backend == "cuda"


@constexpr_function
def cuda_capability_geq(major, minor=0):
    """Compute capability >= major.minor (arch 90 is 9.0)."""
    target = current_target()
    if target is None or target.backend != "cuda":
        return False
    return target.arch >= major * 10 + minor


@constexpr_function
def is_hip():
    target = current_target()
    return target is not None and target.backend == "hip"


@constexpr_function
def is_hip_cdna3():
    return False   # tile targets NVIDIA GPUs only


@constexpr_function
def is_hip_cdna4():
    return False
