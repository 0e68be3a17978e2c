"""tile: a Triton-style tile-language compiler for NVIDIA GPUs, built on MLIR.

The package mirrors the compiler's stages: ``tile.language`` (what kernels are
written in), ``tile.compiler`` (Python AST to Tile IR and on to machine code)
and ``tile.runtime`` (loading and launching on the GPU).
"""

from tile import _C
from tile import knobs
from tile.compiler.errors import CompilationError, TileError
from tile.compiler.ir import IRError, verify_ir, run_pipeline
from tile.compiler.compiler import compile
from tile.runtime.jit import JITFunction, jit
from tile.runtime.autotuner import Config, autotune, heuristics
from tile.runtime.errors import InterpreterError, OutOfResources
from tile.runtime.autotuner import KernelInterface
from tile.runtime.specialization import MockTensor
from tile import tools
from tile.runtime.async_compile import AsyncCompileMode, FutureKernel
from tile import runtime
from tile.language.constexpr_function import constexpr_function
from tile.runtime import _allocation
from tile.runtime.torch_ops import custom_op
from tile.runtime.reinterpret import TensorWrapper, reinterpret
from tile.tools.tensor_descriptor import TensorDescriptor
from tile import testing
from tile import language

__version__ = _C.version()

# Triton's name for the base of its errors, so that ported `except` clauses
# keep working.
TritonError = TileError


def set_allocator(allocator):
    """Triton's hook for the global scratch memory in-kernel descriptors
    need. tile encodes such descriptors on the host at launch, so it
    allocates nothing on the device; the allocator is kept (for
    `tile.runtime._allocation`'s readers) and never called."""
    _allocation.allocator = allocator


# Compile-time functions, as in Triton: host code calls them on ints, and
# kernels on constexprs (`BLOCK: tl.constexpr = triton.next_power_of_2(D)`).
@constexpr_function
def cdiv(x, y):
    return (x + y - 1) // y


@constexpr_function
def next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


__all__ = ["CompilationError", "Config", "OutOfResources", "TileError",
           "TritonError", "knobs", "runtime", "set_allocator",
           "constexpr_function", "AsyncCompileMode", "FutureKernel",
           "InterpreterError",
           "KernelInterface", "MockTensor", "tools", "IRError", "JITFunction",
           "TensorDescriptor", "TensorWrapper", "autotune", "custom_op",
           "cdiv", "compile", "heuristics", "testing",
           "jit", "language", "next_power_of_2", "reinterpret", "run_pipeline", "verify_ir",
           "__version__"]
