"""tile.language's builtins, computed with numpy on interpreter Tensors.

`BUILTINS` maps each builtin's name to its implementation here. Builtins
that core writes in terms of other builtins (`COMPOSITES`: sigmoid, cdiv,
softmax, ...) run their own bodies, whose calls come back here.
test_interpreter.py checks every tile.language builtin is in one of the two.
"""

import builtins
import math

import numpy as np

from tile.language import dtypes as d
from tile.language import semantic as sem
from tile.language import random as rnd
from tile.runtime.interpreter import numbers, state
from tile.runtime.interpreter.tensor import (SemanticError, Tensor, broadcast,
                                             broadcast_to, cast, compare,
                                             constant, expand_dims, lift,
                                             lift_pair, like, make, minmax,
                                             shape_of, unwrap)
from tile.runtime.interpreter import tensor as T

COMPOSITES = {"sigmoid", "fdiv", "cdiv", "clamp", "softmax", "zeros",
              "zeros_like", "full_like", "view", "randint", "rand", "rand4x",
              "randn"}

BUILTINS = {}


def builtin(fn):
    BUILTINS[fn.__name__] = fn
    return fn


def _program():
    return state.current()


def _shape_args(shape):
    if len(shape) == 1 and isinstance(unwrap(shape[0]), (tuple, list)):
        shape = unwrap(shape[0])
    return [int(unwrap(s)) for s in shape]


def _check_shape(shape):
    for s in shape:
        if s <= 0 or s & (s - 1):
            raise SemanticError("tensor dimensions must be powers of two, "
                                "got %s" % list(shape))
    d.block_type(d.int32, shape)  # the element limit


# ---------------------------------------------------------------- creation

@builtin
def program_id(axis):
    axis = unwrap(axis)
    if axis not in (0, 1, 2):
        raise SemanticError("axis must be 0, 1 or 2, got %r" % (axis,))
    return make(_program().pid[axis], d.int32)


@builtin
def num_programs(axis):
    axis = unwrap(axis)
    if axis not in (0, 1, 2):
        raise SemanticError("axis must be 0, 1 or 2, got %r" % (axis,))
    return make(_program().grid[axis], d.int32)


@builtin
def arange(start, end):
    start, end = unwrap(start), unwrap(end)
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
    d.block_type(d.int32, (n,))
    return make(np.arange(start, end, dtype=np.int32), d.int32, (n,))


@builtin
def full(shape, value, dtype):
    if not isinstance(unwrap(shape), (tuple, list)):
        raise SemanticError("full's shape must be a tuple or list of "
                            "constexpr ints, got %r" % (unwrap(shape),))
    shape = _shape_args([unwrap(shape)])
    _check_shape(shape)
    dtype = unwrap(dtype)
    value = unwrap(value)
    v = cast(value, dtype) if isinstance(value, Tensor) else constant(value, dtype)
    return broadcast_to(v, shape) if shape else v


# ------------------------------------------------------------------ shapes

@builtin
def broadcast_to(input, *shape):
    return T.broadcast_to(lift(input), _shape_args(shape))


@builtin
def broadcast(input, other):
    return T.broadcast(lift(input), lift(other))


@builtin
def expand_dims(input, axis):
    axis = unwrap(axis)
    axes = axis if isinstance(axis, (tuple, list)) else [axis]
    value = lift(input)
    for a in sorted(unwrap(x) for x in axes):
        value = T.expand_dims(value, a)
    return value


@builtin
def reshape(input, *shape, can_reorder=False):
    x = lift(input)
    shape = _shape_args(shape)
    if not x.type.is_block():
        raise SemanticError("reshape needs a tensor")
    if int(np.prod(shape)) != x.type.numel:
        raise SemanticError("cannot reshape %d elements into %s" %
                            (x.type.numel, list(shape)))
    return make(x.data.reshape(shape), x.type.scalar, shape)


@builtin
def trans(input, *dims):
    x = lift(input)
    rank = len(shape_of(x))
    order = _shape_args(dims) if dims else list(reversed(builtins.range(rank)))
    if sorted(order) != list(builtins.range(rank)):
        raise SemanticError("permute order %s is not a permutation of %d dims"
                            % (order, rank))
    data = np.transpose(x.data, order)
    return make(data, x.type.scalar, data.shape)


BUILTINS["permute"] = trans


def _same_type_pair(a, c, what):
    a, c = lift(a), lift(c)
    if a.type != c.type:
        raise SemanticError("%s needs two tensors of one type, got %r and %r"
                            % (what, a.type, c.type))
    return a, c


@builtin
def join(a, c):
    a, c = _same_type_pair(a, c, "join")
    data = np.stack([a.data, c.data], axis=-1)
    return make(data, a.type.scalar, data.shape)


@builtin
def split(a):
    x = lift(a)
    if not x.type.is_block() or x.type.shape[-1] != 2:
        raise SemanticError("split needs a tensor whose last dimension is 2")
    shape = shape_of(x)[:-1]
    return (make(x.data[..., 0], x.type.scalar, shape),
            make(x.data[..., 1], x.type.scalar, shape))


@builtin
def cat(input, other, can_reorder=False):
    a, c = _same_type_pair(input, other, "cat")
    data = np.concatenate([a.data, c.data], axis=0)
    return make(data, a.type.scalar, data.shape)


# ------------------------------------------------------------------ memory

def _pointer(value, what):
    value = unwrap(value)
    if not isinstance(value, Tensor) or not value.type.scalar.is_ptr():
        found = value.type.scalar if isinstance(value, Tensor) else type(value).__name__
        raise SemanticError("%s expects a pointer or a tensor of pointers, got %s"
                            % (what, found))
    return value


def _mask(mask):
    mask = lift(mask)
    if mask.type.scalar != d.int1:
        raise SemanticError("a mask must have a boolean element type, got %s"
                            % (mask.type.scalar,))
    return mask


def _check_modifiers(cache, evict):
    sem._memory_attrs(unwrap(cache), unwrap(evict))


@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False):
    ptr = _pointer(pointer, "load")
    _check_modifiers(cache_modifier, eviction_policy)
    elt = ptr.type.scalar.element_ty
    if mask is not None:
        mask = _mask(mask)
        ptr, mask = broadcast(ptr, mask)
    if other is not None:
        if mask is None:
            raise SemanticError("load's `other` needs a `mask`")
        other = cast(lift(other, elt), elt)
        other = broadcast_to(other, shape_of(ptr)) if ptr.type.is_block() else other
    addresses = ptr.data.reshape(-1)
    active = np.ones(addresses.shape, bool) if mask is None else mask.data.reshape(-1)
    out = np.zeros(addresses.shape, numbers.compute_type(elt))
    if other is not None:
        out[...] = np.broadcast_to(other.data, shape_of(ptr)).reshape(-1)
    if active.any():
        out[active] = _program().memory.read(addresses[active], elt)
    return make(out.reshape(shape_of(ptr)), elt, shape_of(ptr))


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="",
          eviction_policy=""):
    ptr = _pointer(pointer, "store")
    _check_modifiers(cache_modifier, eviction_policy)
    elt = ptr.type.scalar.element_ty
    value = lift(value, elt)
    if value.type.is_block() and not ptr.type.is_block():
        raise SemanticError("cannot store a %s tensor through a scalar pointer"
                            % list(value.type.shape))
    value = cast(broadcast_to(value, shape_of(ptr)) if ptr.type.is_block() else value, elt)
    addresses = ptr.data.reshape(-1)
    values = value.data.reshape(-1)
    if mask is not None:
        mask = _mask(mask)
        mask = broadcast_to(mask, shape_of(ptr)) if ptr.type.is_block() else mask
        active = mask.data.reshape(-1)
        addresses, values = addresses[active], values[active]
    if len(addresses):
        _program().memory.write(addresses, values, elt)


_RMW = {
    "add": lambda old, val, ty: T.binary("+", old, val),
    "max": lambda old, val, ty: minmax(old, val, True),
    "min": lambda old, val, ty: minmax(old, val, False),
    "and": lambda old, val, ty: T.binary("&", old, val),
    "or": lambda old, val, ty: T.binary("|", old, val),
    "xor": lambda old, val, ty: T.binary("^", old, val),
    "xchg": lambda old, val, ty: val,
}


def _atomic_update(ptr, mask, update):
    """Applies `update(old, lane) -> new or None` lane by lane in order, so
    lanes that share an address see each other's writes (one valid order of
    the GPU's). Returns the old values."""
    elt = ptr.type.scalar.element_ty
    memory = _program().memory
    addresses = ptr.data.reshape(-1)
    active = np.ones(addresses.shape, bool) if mask is None else \
        broadcast_to(mask, shape_of(ptr)).data.reshape(-1)
    olds = np.zeros(addresses.shape, numbers.compute_type(elt))
    for lane in np.nonzero(active)[0]:
        addr = addresses[lane:lane + 1]
        old = memory.read(addr, elt, "atomic")
        olds[lane] = old[0]
        new = update(make(old[0], elt), lane)
        if new is not None:
            memory.write(addr, cast(new, elt).data.reshape(1), elt, "atomic")
    return make(olds.reshape(shape_of(ptr)), elt, shape_of(ptr))


def _atomic(kind):
    def op(pointer, val, mask=None, sem_=None, scope=None, **kwargs):
        memsem = unwrap(kwargs.pop("sem", sem_))
        if kwargs:
            raise SemanticError("unexpected arguments: %s" % ", ".join(kwargs))
        ptr = _pointer(pointer, "atomic_" + kind)
        elt = ptr.type.scalar.element_ty
        if memsem not in sem._SEM:
            raise SemanticError("unknown memory semantic %r" % (memsem,))
        if unwrap(scope) not in sem._SCOPE:
            raise SemanticError("unknown scope %r" % (unwrap(scope),))
        val = cast(lift(val, elt), elt)
        if ptr.type.is_block():
            val = broadcast_to(val, shape_of(ptr))
        if mask is not None:
            mask = _mask(mask)
        flat = val.data.reshape(-1)
        return _atomic_update(ptr, mask, lambda old, lane: _RMW[kind](
            old, make(flat[lane], elt), elt))
    op.__name__ = "atomic_" + kind
    return builtin(op)


for _kind in _RMW:
    _atomic(_kind)


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    ptr = _pointer(pointer, "atomic_cas")
    elt = ptr.type.scalar.element_ty
    cmp, val = cast(lift(cmp, elt), elt), cast(lift(val, elt), elt)
    if ptr.type.is_block():
        cmp, val = broadcast_to(cmp, shape_of(ptr)), broadcast_to(val, shape_of(ptr))
    cmps, vals = cmp.data.reshape(-1), val.data.reshape(-1)

    def update(old, lane):
        return make(vals[lane], elt) if old.data == cmps[lane] else None
    return _atomic_update(ptr, None, update)


# -------------------------------------------------------------- arithmetic

@builtin
def where(condition, x, y):
    return T.where(condition, x, y)


@builtin
def maximum(x, y, propagate_nan=False):
    return minmax(x, y, True, bool(unwrap(propagate_nan)))


@builtin
def minimum(x, y, propagate_nan=False):
    return minmax(x, y, False, bool(unwrap(propagate_nan)))


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


_MATH = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2,
         "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "sin": np.sin,
         "cos": np.cos, "floor": np.floor, "ceil": np.ceil, "erf": _erf}


def _math(name):
    def fn(x):
        x = lift(x)
        ty = x.type.scalar
        if not ty.is_floating():
            raise SemanticError("%s needs a floating-point operand, got %s" % (name, ty))
        with np.errstate(all="ignore"):
            out = _MATH[name](x.data.astype(np.float64) if ty == d.float64 else
                              x.data.astype(np.float32))
        return like(x, numbers.to_float(out, ty) if ty.name != "float64" else out)
    fn.__name__ = name
    return builtin(fn)


for _name in _MATH:
    _math(_name)


@builtin
def abs(x):
    x = lift(x)
    if x.type.scalar.is_int_unsigned():
        return x
    with np.errstate(all="ignore"):
        return like(x, np.abs(x.data))


@builtin
def fma(x, y, z):
    x, y, z = lift(x), lift(y), lift(z)
    ty = sem.computation_type(sem.computation_type(x.type.scalar, y.type.scalar),
                              z.type.scalar)
    x, y, z = cast(x, ty), cast(y, ty), cast(z, ty)
    x, y = broadcast(x, y)
    x, z = broadcast(x, z)
    x, y = broadcast(x, y)
    with np.errstate(all="ignore"):
        if ty.is_floating():
            out = x.data.astype(np.float64) * y.data + z.data
            return like(x, numbers.to_float(out, ty))
        return like(x, x.data * y.data + z.data)


def _precise(op, args):
    values = [lift(a) for a in args]
    ty = values[0].type.scalar
    for v in values[1:]:
        ty = sem.computation_type(ty, v.type.scalar)
    if not ty.is_floating():
        ty = d.float32
    values = [cast(v, ty) for v in values]
    if len(values) == 2:
        values = list(broadcast(*values))
    with np.errstate(all="ignore"):
        wide = [v.data.astype(np.float64) for v in values]
        out = op(*wide)
    return like(values[0], numbers.to_float(out, ty))


@builtin
def div_rn(x, y):
    return _precise(np.divide, (x, y))


@builtin
def sqrt_rn(x):
    return _precise(np.sqrt, (x,))


@builtin
def umulhi(x, y):
    x, y = lift_pair(x, y)
    ty = sem.integer_promote(x.type.scalar, y.type.scalar)
    if not ty.is_int() or ty.primitive_bitwidth not in (32, 64):
        raise SemanticError("umulhi needs 32- or 64-bit integers, got %s" % ty)
    x, y = broadcast(cast(x, ty), cast(y, ty))
    bits = ty.primitive_bitwidth
    unsigned = np.dtype("uint%d" % bits)
    a = x.data.view(unsigned).astype(object)
    c = y.data.view(unsigned).astype(object)
    high = np.asarray((a * c) >> bits, dtype=object).astype(unsigned)
    return like(x, high.view(numbers.compute_type(ty)))


# ---------------------------------------------------------------- hints

def _constexpr_ints(name, values):
    values = unwrap(values)
    for v in values if isinstance(values, (tuple, list)) else [values]:
        v = unwrap(v)
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise SemanticError("%s takes positive constexpr ints, got %r" % (name, v))


@builtin
def multiple_of(input, values):
    _constexpr_ints("multiple_of", values)
    return input


@builtin
def max_contiguous(input, values):
    _constexpr_ints("max_contiguous", values)
    return input


@builtin
def static_assert(cond, msg=""):
    cond = unwrap(cond)
    if isinstance(cond, Tensor):
        raise SemanticError("static_assert needs a compile-time condition")
    if not cond:
        raise SemanticError("static_assert failed" + (": %s" % unwrap(msg) if msg else ""))


@builtin
def static_print(*values):
    print(*[unwrap(v) for v in values])


@builtin
def device_print(prefix, *args, hex=False):
    program = _program()
    values = [lift(a) for a in args]
    pid = "pid (%d, %d, %d)" % tuple(program.pid)
    prefix = str(unwrap(prefix))

    def show(v, idx):
        item = v.data[idx].item() if v.type.is_block() else v.data.item()
        if unwrap(hex) and isinstance(item, int):
            return "0x%x" % (item & ((1 << v.type.scalar.primitive_bitwidth) - 1))
        return repr(item)
    blocks = [v for v in values if v.type.is_block()]
    if not blocks:
        print("%s %s%s" % (pid, prefix, " ".join(show(v, ()) for v in values)))
        return
    shape = shape_of(blocks[0])
    for idx in np.ndindex(*shape):
        print("%s idx (%s) %s%s" % (pid, ", ".join(map(str, idx)), prefix,
                                    " ".join(show(broadcast_to(v, shape), idx)
                                             for v in values)))


@builtin
def device_assert(cond, msg=""):
    c = cast(lift(cond), d.int1)
    if not c.data.all():
        where_ = np.argwhere(~np.asarray(c.data))
        at = " at idx %s" % tuple(where_[0].tolist()) if c.type.is_block() else ""
        raise AssertionError("device_assert failed in program %s%s: %s"
                             % (tuple(_program().pid), at, unwrap(msg)))


# ----------------------------------------------------- dot and reductions

@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=None):
    a, c = lift(input), lift(other)
    precision = unwrap(input_precision)
    if precision is None and unwrap(allow_tf32) is not None:
        precision = "tf32" if unwrap(allow_tf32) else "ieee"
    out_dtype = unwrap(out_dtype)
    if not (a.type.is_block() and c.type.is_block()):
        raise SemanticError("dot needs two tensors")
    if len(a.type.shape) not in (2, 3) or len(c.type.shape) != len(a.type.shape):
        raise SemanticError("dot needs 2-D (or batched 3-D) operands of equal rank,"
                            " got %s and %s" % (list(a.type.shape), list(c.type.shape)))
    if a.type.shape[-1] != c.type.shape[-2]:
        raise SemanticError("dot's inner dimensions differ: %s and %s" %
                            (list(a.type.shape), list(c.type.shape)))
    if a.type.shape[-1] < 16:
        raise SemanticError("dot's inner dimension must be at least 16, got %d"
                            % a.type.shape[-1])
    at, ct = a.type.scalar, c.type.scalar
    if at != ct and not (at.is_fp8() and ct.is_fp8()):
        raise SemanticError("dot's operands must have the same type, got %s and %s"
                            % (at, ct))
    if precision is None:
        precision = "tf32" if at == d.float32 else "ieee"
    if precision not in sem._PRECISIONS:
        raise SemanticError("input_precision must be one of %s, got %r" %
                            (", ".join(sem._PRECISIONS), precision))
    shape = tuple(a.type.shape[:-1]) + (c.type.shape[-1],)
    if at.is_int():
        if out_dtype not in (None, d.int32):
            raise SemanticError("an integer dot accumulates in int32; "
                                "out_dtype=%s is not supported" % (out_dtype,))
        out = d.int32
        product = np.matmul(a.data.astype(np.int64), c.data.astype(np.int64))
    else:
        out = out_dtype or d.float32
        x, y = a.data.astype(np.float64), c.data.astype(np.float64)
        if at == d.float32 and precision == "tf32":
            x, y = numbers.round_to(x, "tf32"), numbers.round_to(y, "tf32")
        product = np.matmul(x, y)
    acc = full(list(shape), 0, out) if acc is None else \
        broadcast_to(cast(lift(acc, out), unwrap(acc).type.scalar
                          if isinstance(unwrap(acc), Tensor) else out), shape)
    ty = acc.type.scalar
    with np.errstate(all="ignore"):
        if ty.is_int():
            total = (product + acc.data.astype(np.int64)).astype(numbers.compute_type(ty))
        else:
            total = numbers.to_float(product + acc.data.astype(np.float64), ty)
    return make(total, ty, shape)


def _tree_reduce(values, axis, combine):
    """Reduces same-shape Tensors along `axis` by combining halves, the
    shape of the GPU's reduction tree, so float results round alike."""
    while values[0].type.shape[axis] > 1:
        n = values[0].type.shape[axis] // 2
        lo = [_slice(v, axis, 0, n) for v in values]
        hi = [_slice(v, axis, n, 2 * n) for v in values]
        values = [cast(lift(r, v.type.scalar), v.type.scalar)
                  for r, v in zip(_as_list(combine(lo, hi)), lo)]
    return [_squeeze(v, axis) for v in values]


def _slice(v, axis, start, stop):
    index = [builtins.slice(None)] * len(v.type.shape)
    index[axis] = builtins.slice(start, stop)
    data = v.data[tuple(index)]
    return make(data, v.type.scalar, data.shape)


def _squeeze(v, axis):
    data = np.squeeze(v.data, axis=axis)
    return make(data, v.type.scalar, data.shape)


def _as_list(results):
    return list(results) if isinstance(results, (tuple, list)) else [results]


def _reduce(values, axis, combine, keep_dims):
    values = [lift(v) for v in values]
    axis = unwrap(axis)
    if axis is None:
        values = [reshape(v, [v.type.numel]) if v.type.is_block() else v
                  for v in values]
        axis = 0
    for v in values:
        if not v.type.is_block():
            raise SemanticError("reductions need tensor operands")
    rank = len(values[0].type.shape)
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise SemanticError("axis %d is out of range for a %d-D tensor" % (axis, rank))
    outs = _tree_reduce(values, axis, combine)
    if unwrap(keep_dims):
        outs = [T.expand_dims(o, axis) for o in outs]
    return outs


def _add(lhs, rhs):
    return [T.binary("+", lhs[0], rhs[0])]


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None):
    x = lift(input)
    x = cast(x, sem.sum_dtype(x.type.scalar, unwrap(dtype)))
    return _reduce([x], axis, _add, keep_dims)[0]


def _arg_reduce(input, axis, is_max, keep_dims):
    x = lift(input)
    axis = unwrap(axis)
    if axis is None:
        x = reshape(x, [x.type.numel])
        axis = 0
    shape = shape_of(x)
    if axis < 0:
        axis += len(shape)
    idx_shape = [1] * len(shape)
    idx_shape[axis] = shape[axis]
    idx = make(np.broadcast_to(np.arange(shape[axis], dtype=np.int32)
                               .reshape(idx_shape), shape), d.int32, shape)

    def combine(lhs, rhs):
        (va, ia), (vb, ib) = lhs, rhs
        better = compare(">" if is_max else "<", vb, va)
        tie = T.binary("&", compare("==", vb, va), compare("<", ib, ia))
        take = T.binary("|", better, tie)
        return [T.where(take, vb, va), T.where(take, ib, ia)]
    return tuple(_reduce([x, idx], axis, combine, keep_dims))


def _flag(name, value):
    value = unwrap(value)
    if not isinstance(value, bool):
        raise SemanticError("%s must be True or False, got %r" % (name, value))
    return value


@builtin
def max(input, axis=None, return_indices=False, keep_dims=False):
    if _flag("return_indices", return_indices):
        return _arg_reduce(input, axis, True, keep_dims)
    return _reduce([input], axis, lambda l, r: [minmax(l[0], r[0], True)],
                   keep_dims)[0]


@builtin
def min(input, axis=None, return_indices=False, keep_dims=False):
    if _flag("return_indices", return_indices):
        return _arg_reduce(input, axis, False, keep_dims)
    return _reduce([input], axis, lambda l, r: [minmax(l[0], r[0], False)],
                   keep_dims)[0]


@builtin
def xor_sum(input, axis=None, keep_dims=False):
    return _reduce([input], axis, lambda l, r: [T.binary("^", l[0], r[0])],
                   keep_dims)[0]


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    return _arg_reduce(input, axis, True, keep_dims)[1]


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    return _arg_reduce(input, axis, False, keep_dims)[1]


def _user_combine(combine_fn, count):
    def combine(lhs, rhs):
        return _as_list(combine_fn(*(list(lhs) + list(rhs))))[:count]
    return combine


@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    values = list(input) if isinstance(input, (tuple, list)) else [input]
    outs = _reduce(values, axis, _user_combine(combine_fn, len(values)), keep_dims)
    return tuple(outs) if isinstance(input, (tuple, list)) else outs[0]


def _scan(values, axis, combine, reverse):
    values = [lift(v) for v in values]
    for v in values:
        if not v.type.is_block():
            raise SemanticError("scans need tensor operands")
    rank = len(values[0].type.shape)
    axis = unwrap(axis)
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise SemanticError("axis %d is out of range for a %d-D tensor" % (axis, rank))
    n = values[0].type.shape[axis]
    order = list(builtins.range(n))
    if unwrap(reverse):
        order.reverse()
    outs = [v.data.copy() for v in values]
    index = [builtins.slice(None)] * rank
    running = None
    for i in order:
        index[axis] = builtins.slice(i, i + 1)
        current = [make(v.data[tuple(index)], v.type.scalar,
                        v.data[tuple(index)].shape) for v in values]
        if running is None:
            running = current
        else:
            running = [cast(lift(r), v.type.scalar) for r, v in
                       zip(_as_list(combine(running, current)), values)]
        for out, r in zip(outs, running):
            out[tuple(index)] = r.data
    return [make(o, v.type.scalar, o.shape) for o, v in zip(outs, values)]


@builtin
def cumsum(input, axis=0, reverse=False):
    x = lift(input)
    x = cast(x, sem.sum_dtype(x.type.scalar))
    return _scan([x], axis, _add, reverse)[0]


@builtin
def cumprod(input, axis=0, reverse=False):
    return _scan([input], axis, lambda l, r: [T.binary("*", l[0], r[0])],
                 reverse)[0]


@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    values = list(input) if isinstance(input, (tuple, list)) else [input]
    outs = _scan(values, axis, _user_combine(combine_fn, len(values)), reverse)
    return tuple(outs) if isinstance(input, (tuple, list)) else outs[0]


@builtin
def histogram(input, num_bins):
    x = lift(input)
    bins = int(unwrap(num_bins))
    _check_shape([bins])
    if not x.type.is_block() or len(x.type.shape) != 1 or not x.type.scalar.is_int():
        raise SemanticError("histogram needs a 1-D integer tensor")
    values = x.data.astype(np.int64)
    values = values[(values >= 0) & (values < bins)]
    return make(np.bincount(values, minlength=bins).astype(np.int32), d.int32, (bins,))


# ----------------------------------------------------------------- random

@builtin
def randint4x(seed, offset, n_rounds=10):
    """Philox-4x32 exactly as tile.language.random computes it, on Tensors."""
    seed = lift(seed)
    if not seed.type.scalar.is_int():
        raise SemanticError("the seed must be an integer, got %s" % seed.type.scalar)
    offset = lift(offset)
    if not offset.type.scalar.is_int():
        raise SemanticError("the offset must be an integer, got %s" % offset.type.scalar)
    seed64 = cast(seed, d.uint64)
    k0 = cast(T.binary("&", seed64, 0xFFFFFFFF), d.uint32)
    k1 = cast(T.binary("&", T.binary(">>", seed64, 32), 0xFFFFFFFF), d.uint32)
    c0 = cast(offset, d.uint32, bitcast=offset.type.scalar.primitive_bitwidth == 32)
    c1 = c2 = c3 = like(c0, np.zeros(shape_of(c0), np.uint32))
    for _ in builtins.range(int(unwrap(n_rounds))):
        prev0, prev2 = c0, c2
        c0 = T.binary("^", T.binary("^", umulhi(prev2, rnd._MULTIPLIER[1]), c1), k0)
        c2 = T.binary("^", T.binary("^", umulhi(prev0, rnd._MULTIPLIER[0]), c3), k1)
        c1 = T.binary("*", prev2, rnd._MULTIPLIER[1])
        c3 = T.binary("*", prev0, rnd._MULTIPLIER[0])
        k0 = T.binary("+", k0, rnd._KEY_STEP[0])
        k1 = T.binary("+", k1, rnd._KEY_STEP[1])
    return c0, c1, c2, c3


# ------------------------------------------------- tensor descriptors

class Descriptor:
    """A tensor descriptor in the interpreter: blocks at element offsets,
    reading zero and dropping writes outside the tensor, as TMA does."""

    def __init__(self, base, shape, strides, block_shape):
        self.base = base
        self.dims = [int(s) for s in shape]
        self.strides = [int(s) for s in strides]
        self.block_type = d.block_type(base.type.scalar.element_ty, block_shape)

    @property
    def dtype(self):
        return self.block_type.element_ty

    @property
    def block_shape(self):
        return [T.constexpr(s) for s in self.block_type.shape]

    def _addresses(self, offsets):
        offsets = unwrap(offsets)
        offsets = list(offsets) if isinstance(offsets, (list, tuple)) else [offsets]
        shape = self.block_type.shape
        if len(offsets) != len(shape):
            raise SemanticError("a descriptor with %d-d blocks needs %d offsets, got %d"
                                % (len(shape), len(shape), len(offsets)))
        index = np.zeros(shape, np.int64)
        inside = np.ones(shape, bool)
        for axis, (offset, dim, stride) in enumerate(zip(offsets, self.dims,
                                                         self.strides)):
            o = lift(offset, d.int32)
            if o.type.is_block() or not o.type.scalar.is_int() or o.type.scalar.is_bool():
                raise SemanticError("descriptor offsets must be integer scalars, got %r"
                                    % (o.type,))
            view = [1] * len(shape)
            view[axis] = shape[axis]
            i = int(cast(o, d.int32).data) + np.arange(shape[axis]).reshape(view)
            inside = inside & (i >= 0) & (i < dim)
            index = index + i * stride
        size = numbers.element_size(self.dtype)
        addresses = (np.int64(int(self.base.data)) + index * size).astype(np.uint64)
        return addresses, inside

    def load(self, offsets):
        addresses, inside = self._addresses(offsets)
        out = np.zeros(self.block_type.shape, numbers.compute_type(self.dtype))
        if inside.any():
            out[inside] = _program().memory.read(addresses[inside], self.dtype)
        return make(out, self.dtype, self.block_type.shape)

    def store(self, offsets, value):
        addresses, inside = self._addresses(offsets)
        value = lift(value, self.dtype)
        if value.type.is_block() and tuple(value.type.shape) != self.block_type.shape:
            raise SemanticError("cannot store a %s block through a descriptor of %s "
                                "blocks" % (list(value.type.shape),
                                            list(self.block_type.shape)))
        value = cast(broadcast_to(value, self.block_type.shape), self.dtype)
        if inside.any():
            _program().memory.write(addresses[inside], value.data[inside], self.dtype)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    base = _pointer(base, "make_tensor_descriptor")
    if base.type.is_block():
        raise SemanticError("make_tensor_descriptor: base must be a scalar pointer")
    block = [int(unwrap(b)) for b in unwrap(block_shape)]
    if not 1 <= len(block) <= 5 or len(unwrap(shape)) != len(block) or \
            len(unwrap(strides)) != len(block):
        raise SemanticError("make_tensor_descriptor: shape, strides and "
                            "block_shape need the same rank, 1 to 5")
    for dim in block:
        if dim <= 0 or dim & (dim - 1):
            raise SemanticError("make_tensor_descriptor: block dimensions must "
                                "be powers of two, got %s" % block)
    if unwrap(padding_option) != "zero":
        raise SemanticError("make_tensor_descriptor: only padding_option="
                            "'zero' is supported, got %r" % (unwrap(padding_option),))
    dims = [int(lift(s).data) for s in unwrap(shape)]
    steps = [int(lift(s).data) for s in unwrap(strides)]
    if steps[-1] != 1:
        raise SemanticError("make_tensor_descriptor: the last dimension must "
                            "be contiguous (stride 1), got %r" % (steps[-1],))
    return Descriptor(base, dims, steps, block)


# ---------------------------------------------------- tensor methods

def _to(self, dtype, bitcast=False, fp_downcast_rounding=None):
    dtype = unwrap(dtype)
    if not isinstance(dtype, d.dtype):
        raise SemanticError(".to() needs a dtype, got %r" % (dtype,))
    return cast(self, dtype, bitcast=bool(unwrap(bitcast)),
                fp_downcast_rounding=unwrap(fp_downcast_rounding))


def _getitem(self, index):
    """Indexing with `None` (a new axis) and `:` (keep an axis)."""
    if not isinstance(index, tuple):
        index = (index,)
    rank = len(shape_of(self))
    kept = builtins.sum(1 for item in index if isinstance(unwrap(item), slice))
    if kept > rank:
        raise SemanticError("%d ':' in the index of a tensor of rank %d" % (kept, rank))
    value, axis = self, 0
    for item in index:
        item = unwrap(item)
        if item is None:
            value = T.expand_dims(value, axis)
            axis += 1
        elif isinstance(item, slice) and item == slice(None):
            axis += 1
        else:
            raise SemanticError("tensors can only be indexed with None "
                                "and ':', got %r" % (item,))
    return value


def _logical(op):
    def method(self, other):
        return T.binary(op, cast(self, d.int1), cast(lift(other), d.int1))
    return method


Tensor.to = _to
Tensor.__getitem__ = _getitem
Tensor.logical_and = _logical("&")
Tensor.logical_or = _logical("|")
Tensor.logical_not = lambda self: T.logical_not(self)
Tensor.reshape = lambda self, *shape, can_reorder=False: reshape(
    self, *shape, can_reorder=can_reorder)
Tensor.view = lambda self, *shape: reshape(self, *shape, can_reorder=True)
Tensor.trans = lambda self, *dims: trans(self, *dims)
Tensor.permute = Tensor.trans
Tensor.expand_dims = lambda self, axis: expand_dims(self, axis)
Tensor.broadcast_to = lambda self, *shape: broadcast_to(self, *shape)
Tensor.T = property(lambda self: trans(self))
Tensor.sum = lambda self, axis=None, keep_dims=False: sum(self, axis, keep_dims)
Tensor.max = lambda self, axis=None, keep_dims=False: max(self, axis, keep_dims=keep_dims)
Tensor.min = lambda self, axis=None, keep_dims=False: min(self, axis, keep_dims=keep_dims)
