"""tile: a Triton-style tile-language compiler for NVIDIA GPUs, built on MLIR.

The package mirrors the compiler's stages: ``tile.language`` (what kernels are
written in), ``tile.compiler`` (Python AST to Tile IR and on to machine code)
and ``tile.runtime`` (loading and launching on the GPU).
"""

from tile import _C
from tile.compiler.ir import IRError, verify_ir, run_pipeline

__version__ = _C.version()

__all__ = ["IRError", "verify_ir", "run_pipeline", "__version__"]
