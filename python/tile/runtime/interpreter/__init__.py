"""The tile interpreter: runs @tile.jit kernels on the CPU with numpy, one
program at a time, with the compiled kernel's types and semantics.

Enabled per kernel with `@tile.jit(interpret=True)` or for every launch with
TILE_INTERPRET=1. Kernels take numpy arrays and torch tensors (CPU, or CUDA
ones, which are copied to the host and back).
"""

from tile.runtime.interpreter.launch import (InterpreterError, call,  # noqa: F401
                                             launch)
