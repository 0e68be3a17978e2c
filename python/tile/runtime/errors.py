"""The errors tile's runtime raises, under Triton's names
(triton.runtime.errors)."""

from tile.compiler.errors import CompilationError, TileError


class OutOfResources(TileError):
    """A kernel needs more of a resource (shared memory, threads,
    registers) than one block may have. Raised at compile time."""

    def __init__(self, required, limit, name):
        self.required, self.limit, self.name = required, limit, name
        super().__init__(
            "out of resource: %s, Required: %s, Hardware limit: %s. Reducing "
            "block sizes or `num_stages` may help." % (name, required, limit))

    def __reduce__(self):
        return type(self), (self.required, self.limit, self.name)


class AutotunerError(TileError):
    """The autotuner was left with nothing to try."""

    def __init__(self, message):
        self.message = message
        super().__init__("Autotuner error: " + message)

    def __reduce__(self):
        return type(self), (self.message,)


class PTXASError(CompilationError):
    """ptxas refused the PTX tile made (a compiler bug: please report it)."""


class InterpreterError(TileError):
    """An error raised while a kernel ran in the interpreter."""


__all__ = ["OutOfResources", "AutotunerError", "PTXASError",
           "InterpreterError", "CompilationError", "TileError"]
