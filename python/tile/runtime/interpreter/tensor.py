"""Interpreter values and the typing rules they follow.

A `Tensor` is a numpy array plus its tile.language type. The type rules are
the compiler's own (tile.language.semantic: literal typing, promotion,
broadcasting), so an interpreted kernel computes in the same types as the
compiled one; only the arithmetic is numpy's instead of the GPU's.
"""

import numpy as np

from tile.language import core as _core
from tile.language import dtypes as d
from tile.language import semantic as sem
from tile.language.compile_time import constexpr, tuple as tl_tuple
from tile.runtime.interpreter import numbers

SemanticError = sem.SemanticError


def unwrap(x):
    return x.value if isinstance(x, constexpr) else x


class Tensor:
    """A scalar or a block in an interpreted kernel."""

    __slots__ = ("data", "type")

    def __init__(self, data, type):
        self.type = type
        self.data = np.asarray(data, numbers.compute_type(type.scalar))
        if type.is_block():
            if self.data.shape != tuple(type.shape):
                raise AssertionError("data of shape %s for %r"
                                     % (self.data.shape, type))
        elif self.data.shape != ():
            raise AssertionError("a scalar with data of shape %s" % (self.data.shape,))

    @property
    def dtype(self):
        return self.type.scalar

    @property
    def shape(self):
        # A tl.tuple, as compiled (equal to a tuple or list of the sizes).
        return tl_tuple(constexpr(s) for s in self.type.shape) if self.type.is_block() \
            else tl_tuple()

    @property
    def numel(self):
        return constexpr(self.type.numel if self.type.is_block() else 1)

    def __repr__(self):
        return "tensor(%r, %s)" % (self.type, self.data.tolist())

    def __bool__(self):
        if self.type.is_block() and self.type.numel == 1:
            # One element: its value, as compiled (Triton unsplats it).
            return bool(self.data.reshape(()))
        if self.type.is_block():
            raise SemanticError("a %s tensor has no truth value; use tl.where"
                                % list(self.type.shape))
        return bool(self.data)

    # A scalar prints and formats as its value (print(x.item()),
    # f"{x:.3f}" in a kernel), while tile's operations keep its type.
    def __str__(self):
        if self.type.is_block():
            return repr(self)
        return str(self.data.item())

    def __format__(self, spec):
        if self.type.is_block():
            return format(repr(self), spec)
        return format(self.data.item(), spec)

    def __float__(self):
        if self.type.is_block():
            raise TypeError("only scalars convert to float")
        return float(self.data)

    def __index__(self):
        if not self.type.scalar.is_int() or self.type.is_block():
            raise TypeError("only integer scalars can be used as an index")
        return int(self.data)

    __hash__ = object.__hash__

    def item(self):
        """The one element, as a scalar of the tensor's type (as compiled:
        not a Python number, whose arithmetic would be float64's)."""
        if not self.type.is_block():
            return self
        if self.type.numel != 1:
            raise SemanticError("item() needs a tensor of one element, got "
                                "shape %s" % list(self.type.shape))
        return make(self.data.reshape(()), self.type.scalar)

    def numpy(self):
        return self.data.copy()


def shape_of(x):
    return tuple(x.type.shape) if x.type.is_block() else ()


def make(data, scalar_ty, shape=()):
    """A Tensor of `scalar_ty` (a block if `shape` is not empty)."""
    ty = d.block_type(scalar_ty, shape) if shape else scalar_ty
    return Tensor(np.asarray(data, numbers.compute_type(scalar_ty)).reshape(shape), ty)


def like(x, data, scalar_ty=None):
    return make(data, scalar_ty or x.type.scalar, shape_of(x))


# ---------------------------------------------------------------- literals

def constant(value, ty):
    """sem.constant's rules: bools are bools, integers must fit the type's
    range (unsigned wrap), floats round."""
    if ty.is_bool():
        return make(bool(value), ty)
    if ty.is_int():
        value = int(value)
        bits = ty.primitive_bitwidth
        if not -(1 << (bits - 1)) <= value < (1 << bits):
            raise SemanticError("%d does not fit in %s" % (value, ty))
        return make(numbers.wrap_int(value, ty), ty)
    return make(numbers.to_float(np.float64(value), ty), ty)


def lift(x, other_ty=None):
    """sem.lift: a Tensor for `x`; Python numbers take `other_ty`'s type."""
    x = unwrap(x)
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (bool, int, float, np.bool_, np.integer, np.floating)):
        if isinstance(x, np.generic):
            x = x.item()
        ty = sem._weak(True, x, other_ty) if other_ty is not None \
            else sem.python_scalar_type(x)
        if ty.is_int() and isinstance(x, int) and not ty.is_bool() and \
                not isinstance(x, bool):
            lo, hi = numbers.int_range(ty)
            if not lo <= x <= hi:
                ty = sem.python_scalar_type(x)
        return constant(x, ty)
    if isinstance(x, d.dtype):
        raise SemanticError("a dtype is not a value")
    raise SemanticError("cannot use a %s as a tensor" % type(x).__name__)


def lift_pair(x, y):
    x, y = unwrap(x), unwrap(y)
    if isinstance(x, Tensor) and not isinstance(y, Tensor):
        sem._check_weak_int(y, x.type.scalar)
        return x, lift(y, x.type.scalar)
    if isinstance(y, Tensor) and not isinstance(x, Tensor):
        sem._check_weak_int(x, y.type.scalar)
        return lift(x, y.type.scalar), y
    return lift(x), lift(y)


# ------------------------------------------------------------------ shapes

def broadcast_to(x, shape):
    shape = tuple(shape)
    src = shape_of(x)
    if src == shape and x.type.is_block() == bool(shape):
        return x
    if x.type.is_block():
        if len(src) != len(shape) or any(a != c and a != 1
                                         for a, c in zip(src, shape)):
            raise SemanticError("cannot broadcast a %s tensor to %s" %
                                (list(src), list(shape)))
    return make(np.broadcast_to(x.data, shape), x.type.scalar, shape)


def broadcast(x, y):
    xs, ys = shape_of(x), shape_of(y)
    if xs == ys and x.type.is_block() == y.type.is_block():
        return x, y
    shape = sem.broadcast_shapes(xs, ys)
    x = _to_rank(x, len(shape))
    y = _to_rank(y, len(shape))
    return broadcast_to(x, shape), broadcast_to(y, shape)


def _to_rank(x, rank):
    if not x.type.is_block() or len(x.type.shape) >= rank:
        return x
    shape = (1,) * (rank - len(x.type.shape)) + tuple(x.type.shape)
    return make(x.data.reshape(shape), x.type.scalar, shape)


def expand_dims(x, axis):
    shape = list(shape_of(x))
    if axis < 0:
        axis += len(shape) + 1
    if not 0 <= axis <= len(shape):
        raise SemanticError("axis %d is out of range for a %d-D tensor" %
                            (axis, len(shape)))
    shape.insert(axis, 1)
    return make(x.data.reshape(shape), x.type.scalar, shape)


# ------------------------------------------------------------------- casts

def cast(x, dst, bitcast=False, fp_downcast_rounding=None):
    """sem.cast, on values."""
    src = x.type.scalar
    sem.check_rounding(src, dst, fp_downcast_rounding)
    if src == dst:
        return x
    data = x.data
    if bitcast:
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise SemanticError("cannot bitcast %s to %s: the widths differ" %
                                (src, dst))
        bits = numbers.encode(data, src).view(numbers.storage_type(dst))
        return like(x, numbers.decode(bits, dst), dst)
    if src.is_ptr() or dst.is_ptr():
        if (src.is_ptr() and dst.is_ptr()) or (src.is_ptr() and dst == d.int64) \
                or (dst.is_ptr() and src == d.int64):
            return like(x, data.view(numbers.compute_type(dst)), dst)
        raise SemanticError("cannot cast %s to %s" % (src, dst))
    if dst.is_bool():
        return like(x, data != 0, dst)
    if src.is_floating() and dst.is_floating():
        rtz = fp_downcast_rounding == "rtz"
        return like(x, numbers.to_float(data.astype(np.float64), dst,
                                        toward_zero=rtz), dst)
    if src.is_int() and dst.is_int():
        with np.errstate(all="ignore"):
            return like(x, data.astype(numbers.compute_type(dst)), dst)
    if src.is_int() and dst.is_floating():
        if dst.is_fp8():
            return cast(cast(x, d.float32), dst)
        if dst.name in ("float16", "float32", "float64"):
            return like(x, data.astype(numbers.compute_type(dst)), dst)
        return like(x, numbers.to_float(data.astype(np.float64), dst), dst)
    if src.is_floating() and dst.is_int():
        return like(x, numbers.float_to_int(data, dst), dst)
    raise SemanticError("cannot cast %s to %s" % (src, dst))


# -------------------------------------------------------------- arithmetic

def _round(data, ty):
    """A float result computed in a wider type, rounded into `ty`."""
    if ty.name in ("bfloat16", "float8e5", "float8e4nv"):
        return numbers.to_float(np.asarray(data, np.float64), ty)
    return data


def _shift(op, a, c, ty, arithmetic):
    """Shifts clamp their amount as PTX's shl/shr do: a shift by the width
    or more gives 0, or the sign for an arithmetic right shift (which the
    left operand's own signedness asks for, sem.arithmetic_shift)."""
    bits = ty.primitive_bitwidth
    if op == ">>" and arithmetic and ty.is_int_unsigned():
        signed = d.dtype("int%d" % bits)
        out = _shift(op, a.view(np.dtype("int%d" % bits)), c, signed, True)
        return out.view(a.dtype)
    amount = c.view(np.dtype("uint%d" % bits)) if bits >= 8 else c.astype(np.uint8)
    big = amount >= np.uint64(bits)
    safe = np.where(big, 0, amount).astype(a.dtype)
    if op == "<<":
        out = np.left_shift(a, safe)
        return np.where(big, np.zeros_like(a), out)
    out = np.right_shift(a, safe)
    fill = np.where(a < 0, -1, 0).astype(a.dtype) if arithmetic and ty.is_int_signed() else \
        np.zeros_like(a)
    return np.where(big, fill, out)


def _int_divide(op, a, c, ty):
    """C division (truncating), as the GPU's div/rem. Division by zero is
    undefined on the GPU; here it gives -1 (all ones) and the dividend."""
    zero = c == 0
    safe = np.where(zero, np.ones_like(c), c)
    if ty.is_int_signed():
        rem = np.fmod(a, safe)
        quo = (a - rem) // safe
    else:
        quo, rem = a // safe, a % safe
    if op == "//":
        return np.where(zero, np.array(-1).astype(a.dtype), quo)
    return np.where(zero, a, rem)


def binary(op, x, y):
    x, y = lift_pair(x, y)
    xs, ys = x.type.scalar, y.type.scalar
    if xs.is_ptr() or ys.is_ptr():
        if op == "+" and ys.is_ptr() and not xs.is_ptr():
            x, y, xs, ys = y, x, ys, xs
        if xs.is_ptr() and ys.is_int() and op in ("+", "-"):
            x, y = broadcast(x, y)
            size = numbers.element_size(xs.element_ty)
            offset = y.data.astype(np.int64) if not ys.is_int_unsigned() else \
                y.data.astype(np.uint64).view(np.int64)
            if op == "-":
                offset = -offset
            with np.errstate(all="ignore"):
                step = (offset * np.int64(size)).view(np.uint64)
                return like(x, x.data + step)
        raise SemanticError("unsupported pointer arithmetic: %s %s %s" % (xs, op, ys))
    if op in ("&", "|", "^", "<<", ">>"):
        if not (xs.is_int() and ys.is_int()):
            # Triton's wording ("invalid operands of type"), which its
            # tests match.
            raise SemanticError("invalid operands of type %s and %s for "
                                "operator %s: it needs integer operands"
                                % (xs, ys, op))
        ty = sem.integer_promote(xs, ys)
    else:
        sem.check_division_signedness(op, xs, ys)
        ty = sem.computation_type(xs, ys, div=(op == "/"),
                                  mod=op in ("%", "//"))
    x, y = broadcast(cast(x, ty), cast(y, ty))
    a, c = x.data, y.data
    with np.errstate(all="ignore"):
        if ty.is_floating():
            if op == "//":
                out = np.floor(a / c)
            elif op == "%":
                out = np.fmod(a, c)
            elif op in ("+", "-", "*", "/"):
                out = {"+": np.add, "-": np.subtract, "*": np.multiply,
                       "/": np.divide}[op](a, c)
            else:
                raise SemanticError("operator %s is not defined for %s" % (op, ty))
            return like(x, _round(out, ty))
        if ty.is_bool() and op in ("+", "-", "*", "//", "%", "<<", ">>"):
            a, c = a.astype(np.uint8), c.astype(np.uint8)
        if op in ("<<", ">>"):
            out = _shift(op, a, c, ty, sem.arithmetic_shift(xs))
        elif op in ("//", "%"):
            out = _int_divide(op, a, c, ty)
        else:
            out = {"+": np.add, "-": np.subtract, "*": np.multiply,
                   "&": np.bitwise_and, "|": np.bitwise_or,
                   "^": np.bitwise_xor}.get(op, None)
            if out is None:
                raise SemanticError("operator %s is not defined for %s" % (op, ty))
            out = out(a, c)
        if ty.is_bool():
            out = (np.asarray(out).astype(np.uint8) & 1).astype(bool)
        return like(x, out)


_COMPARE = {"<": np.less, "<=": np.less_equal, ">": np.greater,
            ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}


def compare(op, x, y):
    x, y = lift_pair(x, y)
    xs, ys = x.type.scalar, y.type.scalar
    if xs.is_ptr() or ys.is_ptr():
        if not (xs.is_ptr() and ys.is_ptr()):
            raise SemanticError("cannot compare %s with %s" % (xs, ys))
    else:
        ty = sem.computation_type(xs, ys)
        x, y = cast(x, ty), cast(y, ty)
    x, y = broadcast(x, y)
    return like(x, _COMPARE[op](x.data, y.data), d.int1)


def negate(x):
    x = lift(x)
    if x.type.scalar.is_floating():
        return like(x, -x.data)
    return binary("-", 0, x)


def invert(x):
    x = lift(x)
    if not x.type.scalar.is_int():
        raise SemanticError("~ needs an integer operand, got %s" % x.type.scalar)
    return binary("^", x, -1 if not x.type.scalar.is_bool() else True)


def logical_not(x):
    return binary("^", cast(lift(x), d.int1), True)


def where(cond, x, y):
    cond = cast(lift(cond), d.int1)
    x, y = lift_pair(x, y)
    if not (x.type.scalar.is_ptr() and y.type.scalar.is_ptr()):
        ty = sem.computation_type(x.type.scalar, y.type.scalar)
        x, y = cast(x, ty), cast(y, ty)
    x, y = broadcast(x, y)
    cond, x = broadcast(cond, x)
    cond, y = broadcast(cond, y)
    x, y = broadcast(x, y)
    return like(x, np.where(cond.data, x.data, y.data))


def minmax(x, y, is_max, propagate_nan=False):
    x, y = lift_pair(x, y)
    ty = sem.computation_type(x.type.scalar, y.type.scalar)
    x, y = broadcast(cast(x, ty), cast(y, ty))
    if ty.is_floating():
        fn = (np.maximum if is_max else np.minimum) if propagate_nan else \
            (np.fmax if is_max else np.fmin)
    else:
        fn = np.maximum if is_max else np.minimum
    return like(x, fn(x.data, y.data))


def _method_binary(op, reverse=False):
    def method(self, other):
        return binary(op, other, self) if reverse else binary(op, self, other)
    return method


def _method_compare(op):
    def method(self, other):
        return compare(op, self, other)
    return method


for _op, _names in (("+", ("__add__", "__radd__")), ("-", ("__sub__", "__rsub__")),
                    ("*", ("__mul__", "__rmul__")), ("/", ("__truediv__", "__rtruediv__")),
                    ("//", ("__floordiv__", "__rfloordiv__")),
                    ("%", ("__mod__", "__rmod__")), ("&", ("__and__", "__rand__")),
                    ("|", ("__or__", "__ror__")), ("^", ("__xor__", "__rxor__")),
                    ("<<", ("__lshift__", "__rlshift__")),
                    (">>", ("__rshift__", "__rrshift__"))):
    setattr(Tensor, _names[0], _method_binary(_op))
    setattr(Tensor, _names[1], _method_binary(_op, True))
for _op, _name in (("<", "__lt__"), ("<=", "__le__"), (">", "__gt__"),
                   (">=", "__ge__"), ("==", "__eq__"), ("!=", "__ne__")):
    setattr(Tensor, _name, _method_compare(_op))
Tensor.__neg__ = negate
Tensor.__pos__ = lambda self: self
Tensor.__invert__ = invert
Tensor.__hash__ = object.__hash__


# A kernel's `isinstance(x, tl.tensor)` holds for the interpreter's values,
# as for compiled ones (and in Triton's interpreter).
_core.tensor.register(Tensor)
