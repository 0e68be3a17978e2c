"""tile: a Triton-style tile-language compiler for NVIDIA GPUs, built on MLIR.

The package mirrors the compiler's stages: ``tile.language`` (what kernels are
written in), ``tile.compiler`` (Python AST to Tile IR and on to machine code)
and ``tile.runtime`` (loading and launching on the GPU).
"""

from tile import _C
from tile.compiler.errors import CompilationError
from tile.compiler.ir import IRError, verify_ir, run_pipeline
from tile.compiler.compiler import compile
from tile.runtime.jit import JITFunction, jit
from tile.runtime.autotuner import Config, autotune, heuristics
from tile.runtime.torch_ops import custom_op
from tile.runtime.reinterpret import TensorWrapper, reinterpret
from tile.tools.tensor_descriptor import TensorDescriptor
from tile import testing
from tile import language

__version__ = _C.version()


def cdiv(x, y):
    return (x + y - 1) // y


def next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


__all__ = ["CompilationError", "Config", "IRError", "JITFunction",
           "TensorDescriptor", "TensorWrapper", "autotune", "custom_op",
           "cdiv", "compile", "heuristics", "testing",
           "jit", "language", "next_power_of_2", "reinterpret", "run_pipeline", "verify_ir",
           "__version__"]
