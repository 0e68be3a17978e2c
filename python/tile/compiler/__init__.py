"""The compiler: Python kernels to Tile IR, and Tile IR onwards."""

from tile.compiler.compiler import ASTSource, CompiledKernel, compile  # noqa: E402,F401
from tile.compiler.errors import CompilationError  # noqa: E402,F401
