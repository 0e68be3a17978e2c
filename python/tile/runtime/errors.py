"""The errors tile's runtime raises, under Triton's names
(triton.runtime.errors)."""

from tile.compiler.errors import (CompilationError, OutOfResources,  # noqa: F401
                                   PTXASError, TileError)


class AutotunerError(TileError):
    """The autotuner was left with nothing to try."""

    def __init__(self, message):
        self.message = message
        super().__init__("Autotuner error: " + message)

    def __reduce__(self):
        return type(self), (self.message,)


class InterpreterError(TileError):
    """An error raised while a kernel ran in the interpreter."""


__all__ = ["OutOfResources", "AutotunerError", "PTXASError",
           "InterpreterError", "CompilationError", "TileError"]
