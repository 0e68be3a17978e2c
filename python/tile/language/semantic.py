"""Type rules of tile.language and the IR each operation emits.

These follow Triton's rules, so that a ported kernel computes in the same
types:

* Binary arithmetic first finds a *computation type* (``computation_type``),
  casts both sides to it, then broadcasts the shapes (``broadcast``).
* Floats win over integers; the wider float wins; fp16 with bf16 computes in
  fp32. ``/`` on integers computes in fp32.
* Two integers of the same signedness take the wider type; of mixed
  signedness, the unsigned one wins when it is at least as wide.
* Python numbers are weakly typed: an int literal takes the other operand's
  type, a float literal takes a float operand's type (fp32 next to integers).
* Integer ``//`` and ``%`` truncate towards zero, as in C (and Triton).

Why this file is long: it is every operation's type rule and IR in one
place (Triton's semantic.py), so that the promotion rules above are applied
by one set of helpers; the sections follow tile.language.core's order.
"""

import math
import struct

from tile.language.ir_builder import Value, quote
from tile.language import dtypes as d


class SemanticError(Exception):
    """A type or shape rule was broken; the code generator adds the source
    location and raises CompilationError."""


# ---------------------------------------------------------------------------
# Constants and scalars
# ---------------------------------------------------------------------------

# Bit patterns of the non-finite values in the formats struct cannot pack:
# bf16 is the top half of fp32; e5m2 has infinities, e4m3fn only a NaN.
_NON_FINITE_BITS = {
    "bfloat16": {"inf": 0x7F80, "-inf": 0xFF80, "nan": 0x7FC0},
    "float8e5": {"inf": 0x7C, "-inf": 0xFC, "nan": 0x7E},
    "float8e4nv": {"nan": 0x7F},
}


def _float_literal(value, ty):
    if math.isfinite(value):
        return "%.17e" % value
    # inf and nan have no decimal spelling in MLIR; use the bit pattern.
    digits = ty.primitive_bitwidth // 4
    bits = {"float16": ("<e", "<H"), "float32": ("<f", "<I"),
            "float64": ("<d", "<Q")}.get(ty.name)
    if bits is not None:
        raw = struct.unpack(bits[1], struct.pack(bits[0], value))[0]
        return "0x%0*X" % (digits, raw)
    raw = _NON_FINITE_BITS.get(ty.name, {}).get(repr(value))
    if raw is None:
        raise SemanticError("%s has no %r" % (ty, value))
    return "0x%0*X" % (digits, raw)


def _int_literal(value, ty):
    """`value` as the signless literal of integer type `ty`: unsigned types
    take the two's-complement pattern, as do signed values that only fit
    the unsigned range of the width (0xFFFFFFFF as an i32 is -1)."""
    bits = ty.primitive_bitwidth
    if not -(1 << (bits - 1)) <= value < (1 << bits):
        raise SemanticError("%d does not fit in %s" % (value, ty))
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    return str(value)


def constant(b, value, ty):
    """A scalar constant of type `ty`. Every spelling here is one MLIR's
    arith.constant parser takes (test_ir_emission.py parses each kind)."""
    if ty.is_bool():
        # A bool attribute carries its type: `arith.constant true`, no `: i1`.
        return b.op(ty, "arith.constant %s" % ("true" if value else "false"))
    if ty.is_int():
        value = int(value)
        if ty.is_int_unsigned():
            value &= (1 << ty.primitive_bitwidth) - 1
        text = _int_literal(value, ty)
    else:
        text = _float_literal(float(value), ty)
    result = b.op(ty, "arith.constant %s : %s" % (text, ty.to_ir()))
    if ty.is_int() and not ty.is_bool():
        result.host = ["const", value]
    return result


def _host_int(value):
    """(bits, signed) of an integer scalar the host can recompute."""
    ty = value.type
    return [ty.primitive_bitwidth, ty.is_int_signed()]


def python_scalar_type(value):
    if isinstance(value, bool):
        return d.int1
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return d.int32
        if 2**31 <= value < 2**32:
            return d.uint32
        if -2**63 <= value < 2**63:
            return d.int64
        if 2**63 <= value < 2**64:
            return d.uint64
        raise SemanticError("integer %d does not fit in 64 bits" % value)
    if isinstance(value, float):
        # float32 where it holds the value's magnitude as a normal number
        # (or the value is 0, inf or nan), else float64: 1e50 must not
        # become inf (Triton's rule).
        magnitude = abs(value)
        if magnitude == 0.0 or magnitude == float("inf") or value != value or \
                2.0 ** -126 <= magnitude <= (2 - 2.0 ** -23) * 2.0 ** 127:
            return d.float32
        return d.float64
    raise SemanticError("cannot use a %s here" % type(value).__name__)


def splat(b, value, shape):
    ty = d.block_type(value.type, shape)
    return b.op(ty, "tile.splat %s : %s -> %s" % (value.name, value.type.to_ir(),
                                                  ty.to_ir()))


def full(b, shape, value, ty):
    scalar = constant(b, value, ty)
    return splat(b, scalar, shape) if shape else scalar


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------

def shape_of(value):
    return value.type.shape if value.type.is_block() else ()


def expand_axes(rank, axes):
    """The positions, in the result, of the unit dimensions that
    expand_dims(x, axes) inserts into a rank-`rank` x, in increasing order
    (negative axes count from the end of the result, as in Triton)."""
    out_rank = rank + len(axes)
    normalized = []
    for a in axes:
        if not -out_rank <= a < out_rank:
            raise SemanticError("invalid axis %d for expand_dims of a %d-D "
                                "tensor: it must lie in [%d, %d)" %
                                (a, rank, -out_rank, out_rank))
        normalized.append(a + out_rank if a < 0 else a)
    if len(set(normalized)) != len(normalized):
        raise SemanticError("expand_dims got duplicate axes, normalized axes "
                            "= %s" % normalized)
    return sorted(normalized)


def expand_dims(b, value, axis):
    shape = list(shape_of(value))
    if axis < 0:
        axis += len(shape) + 1
    if not 0 <= axis <= len(shape):
        raise SemanticError("axis %d is out of range for a %d-D tensor" %
                            (axis, len(shape)))
    if not value.type.is_block():
        return splat(b, value, (1,))
    shape.insert(axis, 1)
    ty = d.block_type(value.type.scalar, shape)
    return b.op(ty, "tile.expand_dims %s {axis = %d : i32} : %s -> %s" %
                (value.name, axis, value.type.to_ir(), ty.to_ir()))


def broadcast_to(b, value, shape):
    shape = tuple(shape)
    src = shape_of(value)
    if src == shape:
        return value
    if not value.type.is_block():
        return splat(b, value, shape)
    if len(src) != len(shape):
        raise SemanticError("cannot broadcast a %s tensor to %s" %
                            (list(src), list(shape)))
    for a, c in zip(src, shape):
        if a != c and a != 1:
            raise SemanticError("cannot broadcast a %s tensor to %s" %
                                (list(src), list(shape)))
    ty = d.block_type(value.type.scalar, shape)
    return b.op(ty, "tile.broadcast %s : %s -> %s" % (value.name,
                                                      value.type.to_ir(),
                                                      ty.to_ir()))


def broadcast_shapes(lhs, rhs):
    """numpy-style: align right, dimensions equal or 1."""
    if len(lhs) < len(rhs):
        lhs = (1,) * (len(rhs) - len(lhs)) + tuple(lhs)
    if len(rhs) < len(lhs):
        rhs = (1,) * (len(lhs) - len(rhs)) + tuple(rhs)
    out = []
    for a, c in zip(lhs, rhs):
        if a != c and 1 not in (a, c):
            raise SemanticError("incompatible shapes for broadcasting: %s and %s"
                                % (list(lhs), list(rhs)))
        out.append(max(a, c))
    return tuple(out)


def _to_rank(b, value, rank):
    while len(shape_of(value)) < rank and value.type.is_block():
        value = expand_dims(b, value, 0)
    return value


def broadcast(b, lhs, rhs):
    """Brings two values to one shape (scalars stay scalars together)."""
    ls, rs = shape_of(lhs), shape_of(rhs)
    if ls == rs and lhs.type.is_block() == rhs.type.is_block():
        return lhs, rhs
    shape = broadcast_shapes(ls, rs)
    lhs = _to_rank(b, lhs, len(shape))
    rhs = _to_rank(b, rhs, len(shape))
    return broadcast_to(b, lhs, shape), broadcast_to(b, rhs, shape)


def reshape(b, value, shape, can_reorder=False):
    shape = tuple(int(s) for s in shape)
    if not value.type.is_block():
        raise SemanticError("reshape needs a tensor")
    n = 1
    for s in shape:
        n *= s
    if n != value.type.numel:
        raise SemanticError("cannot reshape %d elements into %s" %
                            (value.type.numel, list(shape)))
    ty = d.block_type(value.type.scalar, shape)
    return b.op(ty, "tile.reshape %s%s : %s -> %s" % (
        value.name, " allow_reorder" if can_reorder else "",
        value.type.to_ir(), ty.to_ir()))


def trans_order(ty, dims):
    """tl.trans's order: `dims` as given, or the last two dimensions
    swapped when none are given (Triton's rule; numpy would reverse all)."""
    if dims:
        return list(dims)
    rank = len(ty.shape) if ty.is_block() else 0
    if rank < 2:
        raise SemanticError("tl.trans invoked with a 0- or 1-dimensional tensor")
    return list(range(rank - 2)) + [rank - 1, rank - 2]


def permute(b, value, order):
    shape = shape_of(value)
    order = [int(o) for o in order]
    if sorted(order) != list(range(len(shape))):
        raise SemanticError("permute order %s is not a permutation of %d dims"
                            % (order, len(shape)))
    ty = d.block_type(value.type.scalar, [shape[o] for o in order])
    return b.op(ty, "tile.trans %s {order = array<i32: %s>} : %s -> %s" % (
        value.name, ", ".join(map(str, order)), value.type.to_ir(), ty.to_ir()))


# ---------------------------------------------------------------------------
# Casts
# ---------------------------------------------------------------------------

def _like(value, scalar_ty):
    """`scalar_ty`, in the shape of `value`."""
    if value.type.is_block():
        return d.block_type(scalar_ty, value.type.shape)
    return scalar_ty


def check_rounding(src, dst, fp_downcast_rounding):
    """The rules of `.to(..., fp_downcast_rounding=)` (shared with the
    interpreter)."""
    if fp_downcast_rounding is None:
        return
    if fp_downcast_rounding not in ("rtne", "rtz"):
        raise SemanticError("fp_downcast_rounding must be 'rtne' or 'rtz', "
                            "got %r" % (fp_downcast_rounding,))
    if not (src.is_floating() and dst.is_floating() and
            dst.primitive_bitwidth < src.primitive_bitwidth):
        raise SemanticError("fp_downcast_rounding applies only to narrowing "
                            "float conversions, not %s to %s" % (src, dst))
    if dst.is_fp8() and fp_downcast_rounding == "rtz":
        raise SemanticError("conversions to fp8 round to nearest even only "
                            "(fp_downcast_rounding='rtne')")


def cast(b, value, dst, bitcast=False, fp_downcast_rounding=None):
    src = value.type.scalar
    check_rounding(src, dst, fp_downcast_rounding)
    if src == dst:
        return value
    out = _like(value, dst)
    src_ir, out_ir = value.type.to_ir(), out.to_ir()
    if bitcast:
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise SemanticError("cannot bitcast %s to %s: the widths differ" %
                                (src, dst))
        return b.op(out, "tile.bitcast %s : %s -> %s" % (value.name, src_ir, out_ir))
    if src.is_ptr() or dst.is_ptr():
        if src.is_ptr() and dst.is_ptr():
            return b.op(out, "tile.bitcast %s : %s -> %s" % (value.name, src_ir, out_ir))
        if src.is_ptr() and dst == d.int64:
            return b.op(out, "tile.ptr_to_int %s : %s -> %s" % (value.name, src_ir, out_ir))
        if dst.is_ptr() and src == d.int64:
            return b.op(out, "tile.int_to_ptr %s : %s -> %s" % (value.name, src_ir, out_ir))
        raise SemanticError("cannot cast %s to %s" % (src, dst))
    if dst.is_bool():
        zero = full(b, shape_of(value), 0, src)
        return compare(b, "!=", value, zero)
    if src.is_floating() and dst.is_floating():
        if fp_downcast_rounding == "rtz":
            return b.op(out, "tile.fp_to_fp %s, rounding = rtz : %s -> %s" % (
                value.name, src_ir, out_ir))
        if src.is_fp8() or dst.is_fp8():
            rounding = ", rounding = rtne" if dst.primitive_bitwidth < src.primitive_bitwidth or dst.is_fp8() and src.is_fp8() else ""
            return b.op(out, "tile.fp_to_fp %s%s : %s -> %s" % (value.name, rounding, src_ir, out_ir))
        if dst.primitive_bitwidth > src.primitive_bitwidth:
            return b.op(out, "arith.extf %s : %s to %s" % (value.name, src_ir, out_ir))
        if dst.primitive_bitwidth < src.primitive_bitwidth:
            return b.op(out, "arith.truncf %s : %s to %s" % (value.name, src_ir, out_ir))
        # fp16 <-> bf16 goes through fp32.
        return cast(b, cast(b, value, d.float32), dst)
    if src.is_int() and dst.is_int():
        op = None
        if dst.primitive_bitwidth > src.primitive_bitwidth:
            op = "arith.extsi" if src.is_int_signed() and not src.is_bool() else "arith.extui"
        elif dst.primitive_bitwidth < src.primitive_bitwidth:
            op = "arith.trunci"
        if op is None:
            result = Value(value.name, out, region=value.region)  # signedness only
        else:
            result = b.op(out, "%s %s : %s to %s" % (op, value.name, src_ir, out_ir))
        if value.host is not None and not out.is_block() and not dst.is_bool():
            result.host = ["cast"] + _host_int(result) + [value.host]
        return result
    if src.is_int() and dst.is_floating():
        if dst.is_fp8():
            return cast(b, cast(b, value, d.float32), dst)
        op = "arith.sitofp" if src.is_int_signed() and not src.is_bool() else "arith.uitofp"
        return b.op(out, "%s %s : %s to %s" % (op, value.name, src_ir, out_ir))
    if src.is_floating() and dst.is_int():
        if src.is_fp8():
            return cast(b, cast(b, value, d.float32), dst)
        op = "arith.fptosi" if dst.is_int_signed() else "arith.fptoui"
        return b.op(out, "%s %s : %s to %s" % (op, value.name, src_ir, out_ir))
    raise SemanticError("cannot cast %s to %s" % (src, dst))


# ---------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------

def integer_promote(a, c):
    if a == c:
        return a
    if a.is_int_signed() == c.is_int_signed():
        return a if a.primitive_bitwidth >= c.primitive_bitwidth else c
    signed, unsigned = (a, c) if a.is_int_signed() else (c, a)
    if unsigned.primitive_bitwidth >= signed.primitive_bitwidth:
        return unsigned
    return signed


def arithmetic_shift(left):
    """Whether `>>` shifts in the sign: as in Triton, the left operand's
    own signedness decides, before promotion (int8 >> uint16 is an
    arithmetic shift of the sign-extended value)."""
    return left.is_int_signed() and not left.is_bool()


def check_division_signedness(op, a, c):
    """Triton refuses /, // and % between integers of different
    signedness: no promotion makes them mean what the user likely meant."""
    if op in ("/", "//", "%") and a.is_int() and c.is_int() and \
            not a.is_bool() and not c.is_bool() and \
            a.is_int_signed() != c.is_int_signed():
        # Triton's wording, which its tests match.
        raise SemanticError("Cannot use /, //, or %% with %s and %s because "
                            "they have different signedness; cast them to "
                            "the same signedness" % (a, c))


def computation_type(a, c, div=False, mod=False):
    """The type both operands are cast to before an arithmetic op, by
    Triton's rules, in order: float64, then float32, win; fp16 wins next
    (also over bf16 and fp8), except that true division and the remainder
    (`div`, `mod`; `//` counts as one) of fp16 compute in float32, which PTX
    has no fp16 instructions for; two bf16 stay bf16 (float32 to divide),
    bf16 with anything else is float32; two fp8 of one type keep it, of two
    types compute in fp16; integers promote among themselves, and `/` of two
    integers is float32. Triton refuses fp8 with an integer; tile computes
    that in float32."""
    if a.is_ptr() or c.is_ptr():
        raise SemanticError("no arithmetic type for %s and %s" % (a, c))
    if d.float64 in (a, c):
        return d.float64
    if d.float32 in (a, c):
        return d.float32
    if d.float16 in (a, c):
        return d.float32 if div or mod else d.float16
    if a == c == d.bfloat16:
        return d.float32 if div or mod else d.bfloat16
    if d.bfloat16 in (a, c):
        return d.float32
    if a.is_fp8() and c.is_fp8():
        return a if a == c else d.float16
    if a.is_floating() or c.is_floating():
        return d.float32
    if div:
        return d.float32
    return integer_promote(a, c)


def _weak(value_is_literal, literal, other_ty):
    """The type a Python literal takes next to a typed operand."""
    if isinstance(literal, bool):
        return d.int1
    if isinstance(literal, float):
        return other_ty if other_ty.is_floating() else d.float32
    if other_ty.is_int() and not other_ty.is_bool():
        return other_ty
    if other_ty.is_floating():
        return other_ty
    return python_scalar_type(literal)


def int_range(ty):
    """The smallest and largest values of integer type `ty`."""
    bits = ty.primitive_bitwidth
    if ty.is_int_unsigned() or ty.is_bool():
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def lift(b, x, other_ty=None):
    """A Value for `x`; Python numbers take a type from `other_ty`."""
    if isinstance(x, Value):
        return x
    if isinstance(x, (bool, int, float)):
        ty = _weak(True, x, other_ty) if other_ty is not None else python_scalar_type(x)
        if ty.is_int() and isinstance(x, int) and not ty.is_bool():
            lo, hi = int_range(ty)
            if not lo <= x <= hi:
                ty = python_scalar_type(x)
        return constant(b, x, ty)
    raise SemanticError("cannot use a %s as a tensor" % type(x).__name__)


def _check_weak_int(literal, other_ty):
    """A Python int beside an integer operand takes that operand's type (as
    in Triton); one that does not fit it is an error, not a silent widening
    or wrap (Triton's wording: its tests match on "out of range")."""
    if isinstance(literal, bool) or not isinstance(literal, int) or \
            not other_ty.is_int() or other_ty.is_bool():
        return
    lo, hi = int_range(other_ty)
    if not lo <= literal <= hi:
        raise SemanticError("Scalar %d is out of range for type %s; cast the "
                            "other operand (.to()) to compute in a wider type"
                            % (literal, other_ty))


def lift_pair(b, x, y):
    xv = isinstance(x, Value)
    yv = isinstance(y, Value)
    if xv and not yv:
        _check_weak_int(y, x.type.scalar)
        return x, lift(b, y, x.type.scalar)
    if yv and not xv:
        _check_weak_int(x, y.type.scalar)
        return lift(b, x, y.type.scalar), y
    return lift(b, x), lift(b, y)


_INT_OPS = {"+": "arith.addi", "-": "arith.subi", "*": "arith.muli",
            "&": "arith.andi", "|": "arith.ori", "^": "arith.xori",
            "<<": "arith.shli"}
_FLOAT_OPS = {"+": "arith.addf", "-": "arith.subf", "*": "arith.mulf",
              "/": "arith.divf", "%": "arith.remf"}


def binary(b, op, x, y):
    x, y = lift_pair(b, x, y)
    xs, ys = x.type.scalar, y.type.scalar
    # Pointer arithmetic.
    if xs.is_ptr() or ys.is_ptr():
        if op == "+" and ys.is_ptr() and not xs.is_ptr():
            x, y, xs, ys = y, x, ys, xs
        if xs.is_ptr() and ys.is_int() and op in ("+", "-"):
            if op == "-":
                y = binary(b, "-", 0, y)
            x, y = broadcast(b, x, y)
            result = b.op(x.type, "tile.addptr %s, %s : %s, %s" % (
                x.name, y.name, x.type.to_ir(), y.type.to_ir()))
            if x.host is not None and y.host is not None and not x.type.is_block():
                size = max(xs.element_ty.primitive_bitwidth // 8, 1)
                result.host = ["addptr", size, x.host, y.host]
            return result
        raise SemanticError("unsupported pointer arithmetic: %s %s %s" % (xs, op, ys))
    if op in ("&", "|", "^", "<<", ">>"):
        if not (xs.is_int() and ys.is_int()):
            # Triton's wording ("invalid operands of type"), which its
            # tests match.
            raise SemanticError("invalid operands of type %s and %s for "
                                "operator %s: it needs integer operands"
                                % (xs, ys, op))
        ty = integer_promote(xs, ys)
    else:
        check_division_signedness(op, xs, ys)
        ty = computation_type(xs, ys, div=(op == "/"), mod=op in ("%", "//"))
    if ty.is_fp8():
        # No fp8 arithmetic in PTX: exact in float32 (fp8 sums, products and
        # quotients are), then rounded to the fp8 type, which is the result
        # fp8 arithmetic would round to.
        wide = binary(b, op, cast(b, x, d.float32), cast(b, y, d.float32))
        return cast(b, wide, ty)
    x, y = cast(b, x, ty), cast(b, y, ty)
    x, y = broadcast(b, x, y)
    rty = x.type
    if ty.is_floating():
        if op == "//":
            q = b.op(rty, "arith.divf %s, %s : %s" % (x.name, y.name, rty.to_ir()))
            return b.op(rty, "math.floor %s : %s" % (q.name, rty.to_ir()))
        name = _FLOAT_OPS.get(op)
    else:
        signed = ty.is_int_signed()
        name = _INT_OPS.get(op) or {
            "//": "arith.divsi" if signed else "arith.divui",
            "%": "arith.remsi" if signed else "arith.remui",
            ">>": "arith.shrsi" if arithmetic_shift(xs) else "arith.shrui"}.get(op)
    if name is None:
        raise SemanticError("operator %s is not defined for %s" % (op, ty))
    result = b.op(rty, "%s %s, %s : %s" % (name, x.name, y.name, rty.to_ir()))
    host_shift_differs = op == ">>" and arithmetic_shift(xs) != ty.is_int_signed()
    if (ty.is_int() and not ty.is_bool() and not rty.is_block() and
            not host_shift_differs and x.host is not None and y.host is not None):
        result.host = ["int", op] + _host_int(result) + [x.host, y.host]
    return result


_CMP_INT = {"<": ("slt", "ult"), "<=": ("sle", "ule"), ">": ("sgt", "ugt"),
            ">=": ("sge", "uge"), "==": ("eq", "eq"), "!=": ("ne", "ne")}
_CMP_FLOAT = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq",
              "!=": "une"}


def compare(b, op, x, y):
    x, y = lift_pair(b, x, y)
    xs, ys = x.type.scalar, y.type.scalar
    if xs.is_ptr() or ys.is_ptr():
        if not (xs.is_ptr() and ys.is_ptr()):
            raise SemanticError("cannot compare %s with %s" % (xs, ys))
        x, y = cast(b, x, d.int64), cast(b, y, d.int64)
        ty = d.uint64
    else:
        ty = computation_type(xs, ys)
        # fp8 values compare exactly as float32 (PTX has no fp8 compare).
        ty = d.float32 if ty.is_fp8() else ty
        x, y = cast(b, x, ty), cast(b, y, ty)
    x, y = broadcast(b, x, y)
    out = _like(x, d.int1)
    if ty.is_floating():
        pred, opname = _CMP_FLOAT[op], "arith.cmpf"
    else:
        pred = _CMP_INT[op][0 if ty.is_int_signed() else 1]
        opname = "arith.cmpi"
    return b.op(out, "%s %s, %s, %s : %s" % (opname, pred, x.name, y.name,
                                             x.type.to_ir()))


def negate(b, x):
    x = lift(b, x)
    if x.type.scalar.is_fp8():
        return cast(b, negate(b, cast(b, x, d.float32)), x.type.scalar)
    if x.type.scalar.is_floating():
        return b.op(x.type, "arith.negf %s : %s" % (x.name, x.type.to_ir()))
    return binary(b, "-", 0, x)


def invert(b, x):
    x = lift(b, x)
    if not x.type.scalar.is_int():
        raise SemanticError("~ needs an integer operand, got %s" % x.type.scalar)
    return binary(b, "^", x, -1 if not x.type.scalar.is_bool() else True)


def logical_not(b, x):
    x = cast(b, lift(b, x), d.int1)
    return binary(b, "^", x, True)


def where(b, cond, x, y):
    cond = cast(b, lift(b, cond), d.int1)
    x, y = lift_pair(b, x, y)
    if not (x.type.scalar.is_ptr() and y.type.scalar.is_ptr()):
        ty = computation_type(x.type.scalar, y.type.scalar)
        x, y = cast(b, x, ty), cast(b, y, ty)
    x, y = broadcast(b, x, y)
    cond, x = broadcast(b, cond, x)
    cond, y = broadcast(b, cond, y)
    x, y = broadcast(b, x, y)
    return b.op(x.type, "arith.select %s, %s, %s : %s, %s" % (
        cond.name, x.name, y.name, cond.type.to_ir(), x.type.to_ir()))


def minmax(b, x, y, is_max, propagate_nan=False):
    x, y = lift_pair(b, x, y)
    ty = computation_type(x.type.scalar, y.type.scalar)
    if ty.is_fp8():
        # Through float32, exactly, as fp8 arithmetic goes (binary()).
        wide = minmax(b, cast(b, x, d.float32), cast(b, y, d.float32), is_max,
                      propagate_nan)
        return cast(b, wide, ty)
    x, y = broadcast(b, cast(b, x, ty), cast(b, y, ty))
    if ty.is_floating():
        name = ("arith.maximumf" if is_max else "arith.minimumf") if propagate_nan \
            else ("arith.maxnumf" if is_max else "arith.minnumf")
    elif ty.is_int_signed():
        name = "arith.maxsi" if is_max else "arith.minsi"
    else:
        name = "arith.maxui" if is_max else "arith.minui"
    return b.op(x.type, "%s %s, %s : %s" % (name, x.name, y.name, x.type.to_ir()))


def unary_math(b, name, x):
    x = lift(b, x)
    if not x.type.scalar.is_floating():
        raise SemanticError("%s needs a floating-point operand, got %s" %
                            (name.split(".")[-1], x.type.scalar))
    return b.op(x.type, "%s %s : %s" % (name, x.name, x.type.to_ir()))


def extern_signature(lib_name, types, table):
    """(argument types, symbol, result type) a device-library call takes
    for arguments of `types`: the table's entry for them, else for all of
    them brought to one arithmetic type, as Triton does."""
    if types not in table and len(types) > 1:
        common = types[0]
        for t in types[1:]:
            common = computation_type(common, t)
        types = (common,) * len(types)
    if types not in table:
        raise SemanticError(
            "%s has no function for arguments of type (%s); it takes %s" % (
                lib_name, ", ".join(str(t) for t in types),
                "; ".join("(%s)" % ", ".join(str(t) for t in key)
                          for key in table)))
    symbol, result = table[types]
    return types, symbol, result


def extern_elementwise(b, lib_name, lib_path, args, table, pure):
    """A call of a device-library function on each element. `table` maps a
    tuple of argument dtypes to (symbol, result dtype); the arguments are
    cast as extern_signature says, then broadcast to one shape."""
    values = [lift(b, a) for a in args]
    if not values:
        raise SemanticError("extern_elementwise needs at least one argument")
    types, symbol, result = extern_signature(
        lib_name, tuple(v.type.scalar for v in values), table)
    values = [cast(b, v, t) for v, t in zip(values, types)]
    shape = ()
    for v in values:
        shape = broadcast_shapes(shape, shape_of(v))
    values = [broadcast_to(b, _to_rank(b, v, len(shape))
                           if v.type.is_block() else v, list(shape))
              if shape else v for v in values]
    rty = _like(values[0], result)
    return b.op(rty, "tile.extern_elementwise %s {libname = %s, libpath = %s, "
                "symbol = %s, pure = %s} : (%s) -> %s" % (
                    ", ".join(v.name for v in values), quote(lib_name),
                    quote(lib_path), quote(symbol),
                    "true" if pure else "false",
                    ", ".join(v.type.to_ir() for v in values), rty.to_ir()))


def inline_asm_elementwise(b, asm, constraints, args, dtypes, is_pure, pack):
    """PTX run on each element of `args` (broadcast together), or on `pack`
    elements at a time; one result per dtype in `dtypes`. The arguments
    keep their types. The op's verifier checks the constraint string
    against the operands (packing narrow types into 32-bit registers)."""
    if not isinstance(asm, str) or not isinstance(constraints, str):
        raise SemanticError("inline_asm_elementwise's asm and constraints "
                            "must be constexpr strings")
    if not isinstance(pack, int) or pack < 1 or pack & (pack - 1):
        raise SemanticError("pack must be a positive power of two, got %r" % (pack,))
    values = [lift(b, a) for a in args]
    shape = ()
    for v in values:
        shape = broadcast_shapes(shape, shape_of(v))
    if not shape and pack > 1:
        raise SemanticError("pack=%d needs a tensor argument: scalars are one "
                            "element" % pack)
    values = [broadcast_to(b, _to_rank(b, v, len(shape))
                           if v.type.is_block() else v, list(shape))
              if shape else v for v in values]
    # Element types and the constraint count are the op verifier's to check.
    out_types = [d.block_type(t, list(shape)) if shape else t for t in dtypes]
    decl, outs = b.results(out_types)
    b.emit("%s = tile.elementwise_inline_asm %s {constraints = %s, pure = %s, "
           "packed_element = %d : i32} %s : (%s) -> %s" % (
               decl, quote(asm), quote(constraints),
               "true" if is_pure else "false", pack,
               ", ".join(v.name for v in values),
               ", ".join(v.type.to_ir() for v in values),
               out_types[0].to_ir() if len(out_types) == 1 else
               "(%s)" % ", ".join(t.to_ir() for t in out_types)))
    return outs


# ---------------------------------------------------------------------------
# Program identity and ranges
# ---------------------------------------------------------------------------

def program_id(b, axis, op="tile.get_program_id"):
    if axis not in (0, 1, 2):
        # Triton's wording (its tests match on it).
        what = "program_id" if op == "tile.get_program_id" else "num_programs"
        raise SemanticError("%s axis must be 0, 1, or 2 but got %r"
                            % (what, axis))
    return b.op(d.int32, "%s %s" % (op, "xyz"[axis]))


def arange_type(start, end):
    """The block type of tl.arange(start, end), after its checks."""
    if not (isinstance(start, int) and isinstance(end, int)):
        raise SemanticError("arange's bounds must be constexpr integers")
    n = end - start
    if n <= 0:
        raise SemanticError("arange's end (%d) must be greater than its start (%d)"
                            % (end, start))
    if n & (n - 1):
        raise SemanticError("arange's size must be a power of two, got %d" % n)
    if start < 0:
        raise SemanticError("arange's start must be non-negative, got %d" % start)
    return d.block_type(d.int32, (n,))


def arange(b, start, end):
    ty = arange_type(start, end)
    return b.op(ty, "tile.make_range {start = %d : i32, end = %d : i32} : %s"
                % (start, end, ty.to_ir()))


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------

_CACHE = {"": None, ".ca": "ca", ".cg": "cg", ".cs": "cs", ".cv": "cv",
          ".wb": "wb", ".wt": "wt"}
_EVICT = {"": None, "evict_normal": None, "evict_first": "evict_first",
          "evict_last": "evict_last"}


def _modifier(table, value, what):
    key = value or ""
    if key not in table:
        raise SemanticError("unknown %s %r; expected one of %s" % (
            what, value, ", ".join(repr(k) for k in table if k)))
    return table[key]


def _memory_attrs(cache, evict):
    """The optional ` cache = ..` and ` evict = ..` of tile.load/tile.store."""
    c = _modifier(_CACHE, cache, "cache modifier")
    e = _modifier(_EVICT, evict, "eviction policy")
    return (" cache = %s" % c if c else "") + (" evict = %s" % e if e else "")


def _pointer_operand(value, what):
    if not isinstance(value, Value) or not value.type.scalar.is_ptr():
        found = value.type.scalar if isinstance(value, Value) else type(value).__name__
        raise SemanticError("%s expects a pointer or a tensor of pointers, got %s"
                            % (what, found))


def as_mask(b, mask):
    """A mask operand: booleans only, as in Triton (a float mask is an error,
    not a comparison with zero)."""
    mask = lift(b, mask)
    if mask.type.scalar != d.int1:
        raise SemanticError("a mask must have a boolean element type, got %s"
                            % (mask.type.scalar,))
    return mask


def load(b, ptr, mask, other, cache, evict, volatile):
    _pointer_operand(ptr, "load")
    elt = ptr.type.scalar.element_ty
    if mask is not None:
        mask = as_mask(b, mask)
        ptr, mask = broadcast(b, ptr, mask)
        ptr, mask = broadcast(b, ptr, mask)
    if other is not None:
        if mask is None:
            raise SemanticError("load's `other` needs a `mask`")
        other = cast(b, lift(b, other, elt), elt)
        other = broadcast_to(b, other, shape_of(ptr)) if ptr.type.is_block() else other
    operands = [ptr.name] + [v.name for v in (mask, other) if v is not None]
    attrs = _memory_attrs(cache, evict) + (" volatile" if volatile else "")
    return b.op(_like(ptr, elt), "tile.load %s%s : %s" % (
        ", ".join(operands), attrs, ptr.type.to_ir()))


def store(b, ptr, value, mask, cache, evict):
    _pointer_operand(ptr, "store")
    _writable(ptr)
    elt = ptr.type.scalar.element_ty
    value = lift(b, value, elt)
    if value.type.is_block() and not ptr.type.is_block():
        raise SemanticError("cannot store a %s tensor through a scalar pointer"
                            % list(value.type.shape))
    value = broadcast_to(b, value, shape_of(ptr)) if ptr.type.is_block() else value
    value = cast(b, value, elt)
    operands = [ptr.name, value.name]
    if mask is not None:
        mask = as_mask(b, mask)
        mask = broadcast_to(b, mask, shape_of(ptr)) if ptr.type.is_block() else mask
        operands.append(mask.name)
    b.emit("tile.store %s%s : %s" % (", ".join(operands),
                                     _memory_attrs(cache, evict), ptr.type.to_ir()))


def _descriptor_indices(b, desc, offsets):
    block = desc.type.block_type
    offsets = list(offsets) if isinstance(offsets, (list, tuple)) else [offsets]
    if len(offsets) != len(block.shape):
        raise SemanticError("a descriptor with %d-d blocks needs %d offsets, got %d"
                            % (len(block.shape), len(block.shape), len(offsets)))
    values = []
    for x in offsets:
        v = lift(b, x, d.int32)
        if v.type.is_block() or not v.type.is_int() or v.type.is_bool():
            raise SemanticError("descriptor offsets must be integer scalars, got %r"
                                % (v.type,))
        values.append(cast(b, v, d.int32))
    return values


def descriptor_load(b, desc, offsets):
    block = desc.type.block_type
    indices = _descriptor_indices(b, desc, offsets)
    return b.op(block, "tile.descriptor_load %s[%s] : %s -> %s" % (
        desc.name, ", ".join(v.name for v in indices), desc.type.to_ir(),
        block.to_ir()))


def _written_block(b, desc, value, writing):
    """`value` as the descriptor's block, for a TMA store or reduction
    (`writing` names it in errors): refused where the tensor's rows are
    not whole 16 bytes (TMA writes on to the next 16), a made descriptor
    marked for the launch's check of the same."""
    block = desc.type.block_type
    if desc.type.ragged_rows:
        raise SemanticError(
            "cannot %s through this descriptor: its tensor's rows are not "
            "a multiple of 16 bytes, and a TMA write goes up to the next "
            "16 bytes past a row's end; pad the rows or use pointers" % writing)
    for param, recipe in b.host_descriptors:
        if param is desc:
            # Checked at launch, when the row length is known.
            recipe["stored"] = True
    value = lift(b, value, block.element_ty)
    if value.type.is_block() and tuple(value.type.shape) != block.shape:
        raise SemanticError("cannot %s a %s block through a descriptor of %s "
                            "blocks" % (writing, list(value.type.shape),
                                        list(block.shape)))
    return cast(b, broadcast_to(b, value, block.shape), block.element_ty)


def descriptor_store(b, desc, offsets, value):
    indices = _descriptor_indices(b, desc, offsets)
    value = _written_block(b, desc, value, "store")
    b.emit("tile.descriptor_store %s[%s], %s : %s, %s" % (
        desc.name, ", ".join(v.name for v in indices), value.name,
        desc.type.to_ir(), desc.type.block_type.to_ir()))


_SEM = {None: "acq_rel", "acq_rel": "acq_rel", "acquire": "acquire",
        "release": "release", "relaxed": "relaxed"}
_SCOPE = {None: "gpu", "gpu": "gpu", "cta": "cta", "sys": "sys"}


def check_gather(src_type, index_type, axis):
    """The axis (made non-negative) of tl.gather(src, index, axis), after
    Triton's checks: blocks of one rank, integer indices, and the same
    extents as src along every other dimension."""
    if not src_type.is_block() or not index_type.is_block():
        raise SemanticError("gather needs blocks, got src %r and index %r"
                            % (src_type, index_type))
    if not index_type.scalar.is_int():
        raise SemanticError("gather: index must be an integer tensor, got %s"
                            % index_type.scalar)
    rank = len(src_type.shape)
    if len(index_type.shape) != rank:
        raise SemanticError("gather: index (rank %d) and src (rank %d) must "
                            "have the same rank" % (len(index_type.shape), rank))
    if isinstance(axis, bool) or not isinstance(axis, int) or \
            not -rank <= axis < rank:
        raise SemanticError("gather: axis %r is out of range for rank %d"
                            % (axis, rank))
    axis %= rank
    for dim in range(rank):
        if dim != axis and index_type.shape[dim] != src_type.shape[dim]:
            raise SemanticError(
                "gather: index and src must have the same extent in every "
                "dimension but the axis (%d); dimension %d has %d and %d"
                % (axis, dim, index_type.shape[dim], src_type.shape[dim]))
    return axis


def check_map_arguments(pack, types):
    """tl.map_elementwise's pack (a positive int) and argument types (at
    least one block), as the compiler and the interpreter check them."""
    if isinstance(pack, bool) or not isinstance(pack, int) or pack < 1:
        raise SemanticError("map_elementwise: pack must be a positive "
                            "integer, got %r" % (pack,))
    if not any(t.is_block() for t in types):
        raise SemanticError("map_elementwise needs at least one block argument")


def check_map_results(pack, count):
    if count % pack:
        raise SemanticError(
            "map_elementwise: with pack=%d the function must return a "
            "multiple of %d values, got %d" % (pack, pack, count))


def _writable(ptr):
    if ptr.type.scalar.is_const():
        # Triton's wording.
        raise SemanticError("Cannot store to a constant pointer")


def _atomic_shape(b, ptr, val, mask):
    """The operands of an atomic in one shape: the pointer's, or the
    broadcast of all of them when the values or the mask are larger."""
    shape = shape_of(ptr)
    for v in (val, mask):
        if v is not None:
            shape = broadcast_shapes(shape, shape_of(v))
    if not shape:
        return ptr, val, mask
    return tuple(broadcast_to(b, _to_rank(b, v, len(shape)), shape)
                 if v is not None else None for v in (ptr, val, mask))


def atomic_rmw(b, kind, ptr, val, mask, sem, scope):
    _pointer_operand(ptr, "atomic_" + kind)
    _writable(ptr)
    elt = ptr.type.scalar.element_ty
    if sem not in _SEM:
        raise SemanticError("unknown memory semantic %r" % (sem,))
    if scope not in _SCOPE:
        raise SemanticError("unknown scope %r" % (scope,))
    val = cast(b, lift(b, val, elt), elt)
    if mask is not None:
        mask = as_mask(b, mask)
    # A scalar pointer with a block of values (or a mask) is one atomic per
    # lane on that address: the pointer is broadcast, like the operands.
    ptr, val, mask = _atomic_shape(b, ptr, val, mask)
    if kind in ("max", "min") and elt.is_floating():
        return _float_atomic_minmax(b, kind, ptr, val, mask, sem, scope)
    if kind == "add" and elt.is_floating():
        kind = "fadd"
    if kind in ("max", "min") and elt.is_int_unsigned():
        kind = "u" + kind
    return _atomic_rmw_op(b, kind, ptr, val, mask, sem, scope)


def _atomic_rmw_op(b, kind, ptr, val, mask, sem, scope):
    """One tile.atomic_rmw of operands already typed and shaped."""
    operands = [ptr.name, val.name] + ([mask.name] if mask is not None else [])
    return b.op(_like(ptr, ptr.type.scalar.element_ty),
                "tile.atomic_rmw %s, %s, %s, %s : %s" % (
                    kind, _SEM[sem], _SCOPE[scope], ", ".join(operands),
                    ptr.type.to_ir()))


def check_float_atomic_minmax(kind, elt):
    """PTX has no 16-bit integer atomics for the trick below (shared with
    the interpreter)."""
    if kind in ("max", "min") and elt.is_floating() and \
            elt not in (d.float32, d.float64):
        raise SemanticError("atomic_%s supports float32 and float64 among the "
                            "floats, not %s" % (kind, elt))


def _float_atomic_minmax(b, kind, ptr, val, mask, sem, scope):
    """atomic max/min of float32/float64 through integer atomics on the
    same bits. A float whose sign bit is clear orders against any other
    float as its bits do as a signed integer; one whose sign bit is set
    orders reversed as an unsigned integer. So max is a signed max for the
    former lanes and an unsigned min for the latter (min the other way
    round), each lane doing one of the two. Testing the sign bit, not
    `val >= 0`, sends -0.0 down the negative path, so that max(-0.0, x) for
    a negative x stores -0.0."""
    elt = ptr.type.scalar.element_ty
    check_float_atomic_minmax(kind, elt)
    ity = d.int32 if elt == d.float32 else d.int64
    iptr = cast(b, ptr, d.pointer_type(ity))
    ival = cast(b, val, ity, bitcast=True)
    negative = compare(b, "<", ival, 0)
    positive = logical_not(b, negative)
    if mask is not None:
        negative = binary(b, "&", negative, mask)
        positive = binary(b, "&", positive, mask)
    pos_kind, neg_kind = ("max", "umin") if kind == "max" else ("min", "umax")
    old_pos = _atomic_rmw_op(b, pos_kind, iptr, ival, positive, sem, scope)
    old_neg = _atomic_rmw_op(b, neg_kind, iptr, ival, negative, sem, scope)
    return cast(b, where(b, negative, old_neg, old_pos), elt, bitcast=True)


def atomic_cas(b, ptr, cmp, val, sem, scope):
    _pointer_operand(ptr, "atomic_cas")
    _writable(ptr)
    elt = ptr.type.scalar.element_ty
    cmp = cast(b, lift(b, cmp, elt), elt)
    val = cast(b, lift(b, val, elt), elt)
    ptr, val, _ = _atomic_shape(b, ptr, val, None)
    ptr, cmp, _ = _atomic_shape(b, ptr, cmp, None)
    ptr, val, _ = _atomic_shape(b, ptr, val, None)
    return b.op(_like(ptr, elt), "tile.atomic_cas %s, %s, %s, %s, %s : %s" % (
        _SEM[sem], _SCOPE[scope], ptr.name, cmp.name, val.name, ptr.type.to_ir()))


# ---------------------------------------------------------------------------
# Dot, reductions and scans
# ---------------------------------------------------------------------------

_PRECISIONS = ("ieee", "tf32", "tf32x3", "bf16x3", "bf16x6")


def dot_types(a, c, input_precision, out_dtype):
    """(input precision, accumulator type, result shape) of tl.dot on
    operand types `a` and `c`, after its checks."""
    if not (a.is_block() and c.is_block()):
        raise SemanticError("dot needs two tensors")
    if len(a.shape) < 2 or len(c.shape) != len(a.shape):
        raise SemanticError("dot needs 2-D (or batched) operands of equal rank,"
                            " got %s and %s" % (list(a.shape), list(c.shape)))
    if list(a.shape[:-2]) != list(c.shape[:-2]):
        raise SemanticError("dot's batch dimensions differ: %s and %s" %
                            (list(a.shape), list(c.shape)))
    if a.shape[-1] != c.shape[-2]:
        raise SemanticError("dot's inner dimensions differ: %s and %s" %
                            (list(a.shape), list(c.shape)))
    if a.shape[-1] < 16:
        raise SemanticError("dot's inner dimension must be at least 16, got %d"
                            % a.shape[-1])
    at, ct = a.scalar, c.scalar
    if at != ct and not (at.is_fp8() and ct.is_fp8()):
        raise SemanticError("dot's operands must have the same type, got %s and %s"
                            % (at, ct))
    if input_precision is None:
        input_precision = "tf32" if at == d.float32 else "ieee"
    if input_precision not in _PRECISIONS:
        raise SemanticError("input_precision must be one of %s, got %r" %
                            (", ".join(_PRECISIONS), input_precision))
    if at != d.float32:
        input_precision = "ieee"
    if at.is_int_unsigned():
        # The tensor cores multiply 8-bit integers as signed (.s8), and the
        # other lowerings sign-extend: an unsigned product would be wrong
        # for values with the top bit set. Triton refuses these too.
        raise SemanticError("dot of unsigned integers (%s) is not supported; "
                            "only signed integer dots are" % (at,))
    if at.is_int():
        # As in Triton, an integer dot is an int32 product whatever
        # out_dtype says (an integer type there is accepted and has no
        # effect; a float one is an error).
        if out_dtype is not None and not out_dtype.is_int():
            raise SemanticError("an integer dot accumulates in int32; "
                                "out_dtype=%s is not supported" % (out_dtype,))
        out = d.int32
    elif at == d.float64:
        # As in Triton: float64 operands give a float64 product.
        out = d.float64
    else:
        out = out_dtype or d.float32
    return input_precision, out, tuple(a.shape[:-1]) + (c.shape[-1],)


def dot(b, a, c, acc, input_precision, out_dtype, max_num_imprecise_acc=None):
    input_precision, out, shape = dot_types(a.type, c.type, input_precision,
                                            out_dtype)
    imprecise = max_num_imprecise_acc or 0
    if isinstance(imprecise, bool) or not isinstance(imprecise, int) or imprecise < 0:
        raise SemanticError("max_num_imprecise_acc must be None or a "
                            "non-negative constexpr integer, got %r"
                            % (max_num_imprecise_acc,))
    # Only fp8 products are accumulated at reduced precision (wgmma);
    # other dots already meet any bound.
    if not a.type.scalar.is_fp8():
        imprecise = 0
    if len(shape) > 3:
        # Several batch dimensions fold into one (a row-major reshape), the
        # batched 3-D dot runs, and the result unfolds.
        batch = 1
        for n in shape[:-2]:
            batch *= n
        fold = lambda v, rows, cols: reshape(b, v, (batch, rows, cols))  # noqa: E731
        a3 = fold(a, a.type.shape[-2], a.type.shape[-1])
        c3 = fold(c, c.type.shape[-2], c.type.shape[-1])
        if acc is not None and isinstance(acc, Value) and acc.type.is_block():
            acc = fold(broadcast_to(b, _to_rank(b, acc, len(shape)), shape),
                       shape[-2], shape[-1])
        product = dot(b, a3, c3, acc, input_precision, out_dtype, imprecise)
        return reshape(b, product, shape)
    if acc is None:
        acc = full(b, shape, 0, out)
    else:
        acc = broadcast_to(b, cast(b, lift(b, acc, out), acc.type.scalar if isinstance(acc, Value) else out), shape)
    if input_precision in _SPLIT_PRODUCTS:
        return _split_dot(b, a, c, acc, input_precision)
    return _dot_op(b, a, c, acc, input_precision, imprecise)


def _dot_op(b, a, c, acc, input_precision, imprecise=0):
    prec = "" if input_precision == "ieee" else " inputPrecision = %s" % input_precision
    attrs = " {maxNumImpreciseAcc = %d : i32}" % imprecise if imprecise else ""
    return b.op(acc.type, "tile.dot %s, %s, %s%s%s : %s * %s -> %s" % (
        a.name, c.name, acc.name, prec, attrs, a.type.to_ir(), c.type.to_ir(),
        acc.type.to_ir()))


# The f32 precisions that run as several tensor-core products of split
# operands (Triton's names): the parts of each operand, and the products
# summed, smallest first so they are not lost against the largest.
_SPLIT_PRODUCTS = {"tf32x3": (2, ((1, 0), (0, 1), (0, 0))),
                   "bf16x3": (2, ((1, 0), (0, 1), (0, 0))),
                   "bf16x6": (3, ((2, 0), (0, 2), (1, 1), (1, 0), (0, 1),
                                  (0, 0)))}


def _split_parts(b, x, count, precision):
    """f32 `x` as `count` parts whose sum is x to within the last part's
    rounding: each the nearest bf16 of what the earlier parts left, or for
    tf32 the value with its low 13 mantissa bits cleared (what a tf32
    product reads of it)."""
    parts, rest = [], x
    for i in range(count):
        if precision == "tf32x3":
            bits = cast(b, rest, d.int32, bitcast=True)
            part = cast(b, binary(b, "&", bits, -(1 << 13)), d.float32, bitcast=True)
        else:
            part = cast(b, rest, d.bfloat16)
        parts.append(part)
        if i + 1 < count:
            wide = part if part.type.scalar == d.float32 else cast(b, part, d.float32)
            rest = binary(b, "-", rest, wide)
    return parts


def _split_dot(b, a, c, acc, precision):
    """An f32 product as the sum of tensor-core products of split operands
    (tf32x3: three tf32 products; bf16x3 / bf16x6: three or six bf16
    products), accumulated in f32."""
    count, products = _SPLIT_PRODUCTS[precision]
    a_parts = _split_parts(b, a, count, precision)
    c_parts = _split_parts(b, c, count, precision)
    part_precision = "tf32" if precision == "tf32x3" else "ieee"
    for i, j in products:
        acc = _dot_op(b, a_parts[i], c_parts[j], acc, part_precision)
    return acc


def reduce(b, values, axis, combine, keep_dims=False):
    """Reduces `values` (a list of same-shape tensors) along `axis`; `combine`
    is called with the builder and 2N scalar Values and returns N Values."""
    values = [lift(b, v) for v in values]
    # Reducing every axis with keep_dims keeps the rank: [1] * rank, as
    # numpy's keepdims and Triton give.
    kept_rank = None
    if axis is None:
        if keep_dims and values[0].type.is_block():
            kept_rank = len(values[0].type.shape)
        values = [reshape(b, v, (v.type.numel,)) if v.type.is_block() and
                  len(v.type.shape) != 1 else v for v in values]
        axis = 0
    for v in values:
        if not v.type.is_block():
            raise SemanticError("reductions need tensor operands")
    shape = list(values[0].type.shape)
    if axis < 0:
        axis += len(shape)
    if not 0 <= axis < len(shape):
        raise SemanticError("axis %d is out of range for a %d-D tensor" %
                            (axis, len(shape)))
    out_shape = shape[:axis] + shape[axis + 1:]
    out_types = [d.block_type(v.type.scalar, out_shape) if out_shape else
                 v.type.scalar for v in values]
    decl, outs = b.results(out_types)
    header = "%s = tile.reduce %s axis = %d : (%s) -> %s {" % (
        decl, ", ".join(v.name for v in values), axis,
        ", ".join(v.type.to_ir() for v in values),
        out_types[0].to_ir() if len(values) == 1 else
        "(%s)" % ", ".join(t.to_ir() for t in out_types))
    _combiner(b, header, "tile.reduce.return", values, combine)
    if kept_rank is not None:
        for _ in range(kept_rank):
            outs = [expand_dims(b, o, 0) for o in outs]
    elif keep_dims:
        outs = [expand_dims(b, o, axis) for o in outs]
    return outs


def scan(b, values, axis, combine, reverse=False):
    values = [lift(b, v) for v in values]
    for v in values:
        if not v.type.is_block():
            raise SemanticError("scans need tensor operands")
    rank = len(values[0].type.shape)
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise SemanticError("axis %d is out of range for a %d-D tensor" % (axis, rank))
    decl, outs = b.results([v.type for v in values])
    header = "%s = tile.scan %s axis = %d%s : (%s) -> %s {" % (
        decl, ", ".join(v.name for v in values), axis, " reverse" if reverse else "",
        ", ".join(v.type.to_ir() for v in values),
        values[0].type.to_ir() if len(values) == 1 else
        "(%s)" % ", ".join(v.type.to_ir() for v in values))
    _combiner(b, header, "tile.scan.return", values, combine)
    return outs


def _combiner(b, header, terminator, values, combine):
    scalars = [v.type.scalar for v in values]
    args = [b.fresh(t) for t in scalars + scalars]
    with b.region(header):
        b.emit("^bb0(%s):" % ", ".join("%s: %s" % (a.name, a.type.to_ir())
                                       for a in args), with_loc=False)
        results = combine(b, args[:len(values)], args[len(values):])
        results = [cast(b, lift(b, r, t), t) for r, t in zip(results, scalars)]
        b.emit("%s %s : %s" % (terminator, ", ".join(r.name for r in results),
                               ", ".join(r.type.to_ir() for r in results)))


def sum_dtype(ty, dtype=None):
    """tl.sum accumulates narrow integers in 32 bits, as Triton does; bool
    counts as unsigned there (Triton lists int1 among its unsigned types), so
    the sum of a mask is a uint32."""
    if dtype is not None:
        return dtype
    if ty.is_int() and ty.primitive_bitwidth < 32:
        return d.uint32 if ty.is_int_unsigned() or ty.is_bool() else d.int32
    return ty


def minmax_dtype(ty, return_indices=False):
    """The type tl.max / tl.min reduce in, as Triton's standard library picks
    it: without indices, floats narrower than 32 bits widen to float32 and
    narrower integers (bool included) to int32; with indices, only bfloat16
    widens. So `tl.max(x_bf16)` is a float32, and `x - tl.max(x)` a float32
    tensor."""
    if return_indices:
        return d.float32 if ty == d.bfloat16 else ty
    if ty.primitive_bitwidth < 32:
        return d.float32 if ty.is_floating() else d.int32
    return ty


def scan_dtype(ty, dtype=None, summing=True):
    """The type tl.cumsum (`summing`) or tl.cumprod scans in, as Triton's
    standard library picks it: bfloat16 widens to float32, and a sum's
    narrow integers widen as tl.sum's do (or `dtype`, where given)."""
    if ty == d.bfloat16:
        ty = d.float32
    return sum_dtype(ty, dtype) if summing else ty


_HOST_ONLY = ("tile encodes descriptors made in a kernel at launch, so base, "
              "shape and strides must be kernel parameters, constants or "
              "integer arithmetic on them (not program ids, loads or loop "
              "variables)")


def _host_operand(b, x, what):
    """The host recipe of a descriptor operand."""
    if isinstance(x, bool) or not isinstance(x, (int, Value)):
        raise SemanticError("make_tensor_descriptor: %s must be an integer, got %r"
                            % (what, x))
    if isinstance(x, int):
        return ["const", x]
    if x.type.is_block() or not x.type.is_int() or x.type.is_bool():
        raise SemanticError("make_tensor_descriptor: %s must be an integer "
                            "scalar, got %r" % (what, x.type))
    if x.host is None:
        raise SemanticError("make_tensor_descriptor: %s is computed in the "
                            "kernel; %s" % (what, _HOST_ONLY))
    return x.host


def check_tensor_descriptor(base, shape, strides, block_shape, padding):
    """Triton's rules for tl.make_tensor_descriptor's arguments, whichever
    way the descriptor is then carried out."""
    if not isinstance(base, Value) or base.type.is_block() or not base.type.is_ptr():
        raise SemanticError("make_tensor_descriptor: base must be a scalar "
                            "pointer, got %r" % (getattr(base, "type", base),))
    rank = len(block_shape)
    if not 1 <= rank <= 5 or len(shape) != rank or len(strides) != rank:
        raise SemanticError("make_tensor_descriptor: shape, strides and "
                            "block_shape need the same rank, 1 to 5 (got %d, "
                            "%d, %d)" % (len(shape), len(strides), rank))
    for dim in block_shape:
        if dim <= 0 or dim & (dim - 1):
            raise SemanticError("make_tensor_descriptor: block dimensions must "
                                "be powers of two, got %s" % list(block_shape))
    if padding != "zero":
        raise SemanticError("make_tensor_descriptor: only padding_option="
                            "'zero' is supported, got %r" % (padding,))
    if isinstance(strides[-1], int) and strides[-1] != 1:
        raise SemanticError("make_tensor_descriptor: the last dimension must "
                            "be contiguous (stride 1), got %r" % (strides[-1],))
    for i, x in enumerate(list(shape) + list(strides)):
        what = "shape[%d]" % i if i < rank else "strides[%d]" % (i - rank)
        if isinstance(x, bool) or not isinstance(x, (int, Value)) or \
                isinstance(x, Value) and (x.type.is_block() or
                                          not x.type.is_int() or x.type.is_bool()):
            raise SemanticError("make_tensor_descriptor: %s must be an integer "
                                "scalar, got %r" % (what, getattr(x, "type", x)))


# The element types whose reductions the TMA unit performs (a bulk tensor
# reduction from shared memory), by the name Triton's descriptors use. Not
# and/or/xor on int64: over an INT64 tensor map they stop the H100 with an
# illegal instruction (measured 2026-11-27; uint64 and the 32-bit types
# run), so they are refused here rather than compiled.
TMA_REDUCTIONS = {
    "add": {"u32", "i32", "u64", "fp32", "fp16", "bf16"},
    "min": {"u32", "i32", "u64", "i64", "fp16", "bf16"},
    "max": {"u32", "i32", "u64", "i64", "fp16", "bf16"},
    "and": {"u32", "i32", "u64"},
    "or": {"u32", "i32", "u64"},
    "xor": {"u32", "i32", "u64"},
}


def rmw_kind(kind, element):
    """The tile.atomic_rmw / descriptor_reduce kind of a Triton reduction
    name on `element` (fadd for floats, umin/umax for unsigned)."""
    if kind == "add":
        return "fadd" if element.is_floating() else "add"
    if kind in ("min", "max") and element.is_int_unsigned():
        return "u" + kind
    return kind


def host_descriptor_shape_error():
    """desc.shape of a host descriptor: its launch passes the encoded map
    alone, so the sizes are not in the kernel (an empty shape would be a
    wrong answer)."""
    return SemanticError(
        "the shape of a host tensor descriptor is not available in the "
        "kernel (tile passes only its TMA map); pass the sizes as arguments, "
        "or make the descriptor in the kernel with tl.make_tensor_descriptor")


def check_tma_reduction(kind, element):
    """Refuses a desc.atomic_<kind> of `element` that the TMA unit lacks
    (the compiler and the interpreter alike)."""
    if element.short_name not in TMA_REDUCTIONS[kind]:
        hint = ""
        if element.short_name == "i64" and kind in ("and", "or", "xor"):
            hint = ("; over a signed 64-bit tensor the GPU faults on it: "
                    "view the tensor as uint64 (the same bits)")
        raise SemanticError(
            "the TMA unit has no '%s' reduction of %s (it has %s)%s"
            % (kind, element.short_name,
               ", ".join(sorted(TMA_REDUCTIONS[kind])), hint))


def descriptor_reduce(b, desc, offsets, value, kind):
    """desc.atomic_<kind>(offsets, value): the block combined into memory
    by one TMA bulk reduction."""
    element = desc.type.block_type.element_ty
    check_tma_reduction(kind, element)
    indices = _descriptor_indices(b, desc, offsets)
    value = _written_block(b, desc, value, "reduce")
    b.emit("tile.descriptor_reduce %s, %s[%s], %s : %s, %s" % (
        rmw_kind(kind, element), desc.name, ", ".join(v.name for v in indices),
        value.name, desc.type.to_ir(), desc.type.block_type.to_ir()))


def make_tensor_descriptor(b, base, shape, strides, block_shape, padding):
    """A descriptor the launcher encodes: a hidden kernel parameter whose
    recipe (how to compute base, shape and strides from the launch
    arguments) travels in the kernel's metadata."""
    check_tensor_descriptor(base, shape, strides, block_shape, padding)
    if base.host is None:
        raise SemanticError("make_tensor_descriptor: base is computed in the "
                            "kernel; %s" % _HOST_ONLY)
    element = base.type.element_ty
    recipe = {"base": base.host,
              "shape": [_host_operand(b, s, "shape[%d]" % i)
                        for i, s in enumerate(shape)],
              "strides": [_host_operand(b, s, "strides[%d]" % i)
                          for i, s in enumerate(strides)],
              "block_shape": list(block_shape),
              "dtype": element.short_name}
    b.host_recipes.append(recipe)
    if not b.in_kernel:
        raise SemanticError("make_tensor_descriptor can only be called in the "
                            "kernel itself, not in a function it calls")
    for param, known in b.host_descriptors:
        if {k: v for k, v in known.items() if k not in ("site", "stored")} == recipe:
            return param
    param = b.fresh(d.tensor_descriptor_type(d.block_type(element, list(block_shape))))
    recipe["site"] = "%s:%d" % (b.filename, b.location[0])
    b.host_descriptors.append((param, recipe))
    return param
