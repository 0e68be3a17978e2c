"""Compile-time values of tile.language: `constexpr` and `tl.tuple`.

They sit below core (which builds tensors) because a tensor's shape is a
`tl.tuple` of `constexpr`s.

A Python tuple already works in kernels (its items may be values or
compile-time constants, and it travels through loops, `if`s and @jit
calls as tile.compiler.values.Structure describes); `tl.tuple` is the same
thing under Triton's name, whose `+` and slices stay `tl.tuple`s."""

import abc
import builtins


class constexpr:
    """A compile-time value. Kernel parameters annotated `tl.constexpr` are
    specialised on their value."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return "constexpr[%r]" % (self.value,)

    def __index__(self):
        return self.value

    def __bool__(self):
        return bool(self.value)

    def __eq__(self, other):
        return self.value == _unwrap(other)

    def __hash__(self):
        return hash(self.value)

    @property
    def type(self):
        """Triton's `constexpr_type` of this value: equal for equal values."""
        return constexpr_type(self.value)


def _constexpr_binary(op, reflected=False):
    # Arithmetic between compile-time values stays compile-time (a builtin
    # such as cdiv called on two constexprs); with anything else (a tensor)
    # the other operand's own operator decides.
    def method(self, other):
        if isinstance(other, constexpr):
            other = other.value
        elif not isinstance(other, (bool, int, float)):
            return NotImplemented
        return constexpr(op(other, self.value) if reflected
                         else op(self.value, other))
    return method


def _constexpr_unary(op):
    return lambda self: constexpr(op(self.value))


def _add_constexpr_operators():
    import operator
    binary = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
              "truediv": operator.truediv, "floordiv": operator.floordiv,
              "mod": operator.mod, "pow": operator.pow,
              "lshift": operator.lshift, "rshift": operator.rshift,
              "and": operator.and_, "or": operator.or_,
              "xor": operator.xor}
    for name, op in binary.items():
        setattr(constexpr, "__%s__" % name, _constexpr_binary(op))
        setattr(constexpr, "__r%s__" % name, _constexpr_binary(op, True))
    for name, op in {"lt": operator.lt, "le": operator.le,
                     "gt": operator.gt, "ge": operator.ge,
                     "ne": operator.ne}.items():
        setattr(constexpr, "__%s__" % name, _constexpr_binary(op))
    for name, op in {"neg": operator.neg, "pos": operator.pos,
                     "invert": operator.invert, "abs": abs}.items():
        setattr(constexpr, "__%s__" % name, _constexpr_unary(op))


_add_constexpr_operators()


class constexpr_type:
    """The type of a compile-time value (Triton's): two are equal when their
    values are. It is no tensor type: not a block, a pointer or a number
    type, so code that inspects `.type` sees a constant."""

    def __init__(self, value):
        self.value = _unwrap(value)

    def __eq__(self, other):
        return type(other) is constexpr_type and other.value == self.value

    def __hash__(self):
        return hash(("constexpr_type", self.value))

    def __repr__(self):
        return "constexpr_type[%r]" % (self.value,)

    @property
    def scalar(self):
        return self

    def is_block(self):
        return False

    def is_ptr(self):
        return False

    def is_int(self):
        return False

    def is_bool(self):
        return False

    def is_floating(self):
        return False


def _unwrap(x):
    return x.value if isinstance(x, constexpr) else x


class tuple(builtins.tuple):  # noqa: A001 - mirrors tl.tuple
    def __new__(cls, args=(), type=None):
        if isinstance(args, constexpr):
            args = args.value
        return super().__new__(cls, args)

    def __getitem__(self, index):
        if isinstance(index, constexpr):
            index = index.value
        item = builtins.tuple.__getitem__(self, index)
        return tuple(item) if isinstance(index, builtins.slice) else item

    def __add__(self, other):
        if isinstance(other, constexpr):
            other = other.value
        return tuple(builtins.tuple(self) + builtins.tuple(other))

    def __radd__(self, other):
        if isinstance(other, constexpr):
            other = other.value
        return tuple(builtins.tuple(other) + builtins.tuple(self))

    # Equal to a list too: Triton's kernels compare shapes with lists.
    def __eq__(self, other):
        if isinstance(other, list):
            other = builtins.tuple(other)
        return builtins.tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = builtins.tuple.__hash__

    def __repr__(self):
        return "tl.tuple(%s)" % builtins.tuple.__repr__(self)


class slice(metaclass=abc.ABCMeta):  # noqa: A001 (Triton's name: tl.slice)
    """Triton's language-level slice, `tl.slice(start, stop, step)`: it
    makes the Python slice it stands for (compile-time parts), so it
    indexes tuples and, as `tl.slice(None, None, None)`, keeps a tensor's
    axis like `:`; every Python slice is an instance."""

    def __new__(cls, start, stop, step):
        unwrap = lambda x: x.value if isinstance(x, constexpr) else x  # noqa: E731
        return builtins.slice(unwrap(start), unwrap(stop), unwrap(step))


slice.register(builtins.slice)
