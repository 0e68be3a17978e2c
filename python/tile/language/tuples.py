"""`tl.tuple`: Triton's tuple of kernel values.

A Python tuple already works in kernels (its items may be values or
compile-time constants, and it travels through loops, `if`s and @jit
calls as tile.compiler.values.Structure describes); `tl.tuple` is the same
thing under Triton's name, whose `+` and slices stay `tl.tuple`s."""

import builtins

from tile.language.core import constexpr


class tuple(builtins.tuple):  # noqa: A001 - mirrors tl.tuple
    def __new__(cls, args=(), type=None):
        if isinstance(args, constexpr):
            args = args.value
        return super().__new__(cls, args)

    def __getitem__(self, index):
        if isinstance(index, constexpr):
            index = index.value
        item = builtins.tuple.__getitem__(self, index)
        return tuple(item) if isinstance(index, slice) else item

    def __add__(self, other):
        if isinstance(other, constexpr):
            other = other.value
        return tuple(builtins.tuple(self) + builtins.tuple(other))

    def __radd__(self, other):
        if isinstance(other, constexpr):
            other = other.value
        return tuple(builtins.tuple(other) + builtins.tuple(self))

    def __repr__(self):
        return "tl.tuple(%s)" % builtins.tuple.__repr__(self)
