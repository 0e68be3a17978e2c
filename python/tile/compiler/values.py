"""What the code generator's values are: a `tl.tensor` exists at run time
(it has IR); anything else, bare or in a `tl.constexpr`, is known while
compiling and computed in Python."""

from tile.language import core as tl


def is_runtime(x):
    return isinstance(x, tl.tensor)


def python_value(x):
    """The Python value of a compile-time value (unwrapping constexpr)."""
    return x.value if isinstance(x, tl.constexpr) else x
