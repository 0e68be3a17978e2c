"""Errors the compiler reports against the user's kernel source."""


class TileError(Exception):
    """The base of tile's errors (Triton's TritonError)."""


class CompilationError(TileError):
    """A kernel could not be compiled.

    The message names the kernel's file and line and shows the offending
    source line with a caret under the column, like a Python SyntaxError:

        vector_add.py:12:18: error: arange's size must be a power of two, got 100
            offs = tl.arange(0, 100)
                   ^
    """

    def __init__(self, message, filename=None, lineno=None, col=None,
                 source_line=None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.source_line = source_line
        super().__init__(self._render())

    @property
    def error_message(self):
        """The message alone, without the location (Triton's attribute)."""
        return self.message

    def _render(self):
        if self.filename is None or self.lineno is None:
            return self.message
        col = self.col or 0
        text = "%s:%d:%d: error: %s" % (self.filename, self.lineno, col + 1,
                                        self.message)
        if self.source_line is not None:
            line = self.source_line.rstrip("\n")
            stripped = line.lstrip()
            indent = len(line) - len(stripped)
            caret_col = max(col - indent, 0)
            text += "\n    %s\n    %s^" % (stripped, " " * caret_col)
        return text


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


class PTXASError(CompilationError):
    """ptxas refused the PTX tile made (a compiler bug: please report it)."""


class LaunchOptionError(ValueError, AssertionError):
    """A launch option's value outside what it allows. A ValueError that
    names the option; also an AssertionError, because Triton asserts some
    of these (num_warps a power of 2) and code written for it catches that."""
