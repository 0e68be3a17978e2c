"""tile.language's builtins, computed with numpy on interpreter Tensors.

`BUILTINS` maps each builtin's name to its implementation here. Builtins
that core writes in terms of other builtins (`COMPOSITES`: sigmoid, cdiv,
softmax, ...) run their own bodies, whose calls come back here.
test_interpreter.py checks every tile.language builtin is in one of the two.
"""

import builtins
import math

import numpy as np

from tile.language import core
from tile.language import dtypes as d
from tile.language import semantic as sem
from tile.runtime.interpreter import numbers, state
from tile.runtime.interpreter.tensor import (SemanticError, Tensor, cast,
                                             constant, lift, lift_pair, like,
                                             make, minmax, shape_of, unwrap)
from tile.runtime.interpreter import tensor as T
from tile.runtime.interpreter import libdevice as _libdevice

COMPOSITES = {"sigmoid", "fdiv", "cdiv", "clamp", "softmax", "zeros",
              "zeros_like", "full_like", "view", "multiple_of",
              "max_contiguous", "max_constancy", "ravel", "interleave",
              "flip", "swizzle2d", "cast", "assume", "add", "sub", "mul",
              "make_block_ptr", "advance", "dot_scaled", "sort", "topk",
              "load_tensor_descriptor", "store_tensor_descriptor",
              "bitonic_merge",
              # tile.language.random, all of it
              "philox_impl", "philox", "randint4x", "randint",
              "uint_to_uniform_float", "rand", "rand4x",
              "pair_uniform_to_normal", "randn", "randn4x"}

BUILTINS = {}


def builtin(fn):
    BUILTINS[fn.__name__] = fn
    return fn


def _program():
    return state.current()


_shape_args = core._shape_args
_flag = core._flag


def _check_shape(shape):
    core._check_shape(shape)
    d.block_type(d.int32, shape)  # the element limit


# ---------------------------------------------------------------- creation

@builtin
def program_id(axis):
    axis = unwrap(axis)
    if axis not in (0, 1, 2):
        raise SemanticError("program_id axis must be 0, 1, or 2 but got %r"
                            % (axis,))
    return make(_program().pid[axis], d.int32)


@builtin
def num_programs(axis):
    axis = unwrap(axis)
    if axis not in (0, 1, 2):
        raise SemanticError("num_programs axis must be 0, 1, or 2 but got %r"
                            % (axis,))
    return make(_program().grid[axis], d.int32)


@builtin
def arange(start, end):
    start, end = unwrap(start), unwrap(end)
    ty = sem.arange_type(start, end)
    return make(np.arange(start, end, dtype=np.int32), d.int32, ty.shape)


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
    return T.broadcast_to(v, shape) if shape else v


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
    rank = len(value.type.shape) if value.type.is_block() else 0
    for a in sem.expand_axes(rank, [unwrap(x) for x in axes]):
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


def _permuted(x, order):
    rank = len(shape_of(x))
    if sorted(order) != list(builtins.range(rank)):
        raise SemanticError("permute order %s is not a permutation of %d dims"
                            % (order, rank))
    data = np.transpose(x.data, order)
    return make(data, x.type.scalar, data.shape)


@builtin
def trans(input, *dims):
    x = lift(input)
    return _permuted(x, sem.trans_order(x.type, _shape_args(dims)))


@builtin
def permute(input, *dims):
    return _permuted(lift(input), _shape_args(dims))


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
def gather(src, index, axis):
    s, i = lift(src), lift(index)
    axis = sem.check_gather(s.type, i.type, unwrap(axis))
    wrapped = i.data.astype(np.int64) % s.type.shape[axis]
    return make(np.take_along_axis(s.data, wrapped, axis), s.type.scalar,
                shape_of(i))


@builtin
def map_elementwise(scalar_fn, *args, pack=1):
    """Calls `scalar_fn` once per pack of elements, on scalars, so that its
    `if`s branch per element as they do on the GPU."""
    pack = unwrap(pack)
    values = [lift(a) for a in args]
    sem.check_map_arguments(pack, [v.type for v in values])
    shape = np.broadcast_shapes(*(shape_of(v) for v in values))
    flat = [T.broadcast_to(v, shape).data.reshape(-1) for v in values]
    n = int(np.prod(shape))
    columns, types, several = None, None, False
    for first in builtins.range(0, n, pack):
        picks = [builtins.min(first + k, n - 1) for k in builtins.range(pack)]
        returned = scalar_fn(*[make(f[i], v.type.scalar)
                               for v, f in zip(values, flat) for i in picks])
        several = isinstance(returned, (tuple, list))
        outs = [lift(r) for r in (returned if several else [returned])]
        sem.check_map_results(pack, len(outs))
        if columns is None:
            types = [outs[r].type.scalar for r in builtins.range(0, len(outs), pack)]
            columns = [[None] * n for _ in types]
        for r in builtins.range(len(types)):
            for k in builtins.range(pack):
                if first + k < n:
                    columns[r][first + k] = cast(outs[r * pack + k], types[r]).data
    results = tuple(make(np.array(c).reshape(shape), t, shape)
                    for c, t in zip(columns, types))
    return results if several else results[0]


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
    if core.check_pointer_access(pointer, mask, other, boundary_check,
                                 padding_option):
        return unwrap(pointer).load(boundary_check, padding_option,
                                    cache_modifier, eviction_policy, volatile)
    ptr = _pointer(pointer, "load")
    _check_modifiers(cache_modifier, eviction_policy)
    elt = ptr.type.scalar.element_ty
    if mask is not None:
        mask = _mask(mask)
        ptr, mask = T.broadcast(ptr, mask)
    if other is not None:
        if mask is None:
            raise SemanticError("load's `other` needs a `mask`")
        other = cast(lift(other, elt), elt)
        other = T.broadcast_to(other, shape_of(ptr)) if ptr.type.is_block() else other
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
    if core.check_pointer_access(pointer, mask, None, boundary_check, ""):
        unwrap(pointer).store(value, boundary_check, cache_modifier,
                              eviction_policy)
        return
    ptr = _pointer(pointer, "store")
    _check_modifiers(cache_modifier, eviction_policy)
    elt = ptr.type.scalar.element_ty
    value = lift(value, elt)
    if value.type.is_block() and not ptr.type.is_block():
        raise SemanticError("cannot store a %s tensor through a scalar pointer"
                            % list(value.type.shape))
    value = cast(T.broadcast_to(value, shape_of(ptr)) if ptr.type.is_block() else value, elt)
    addresses = ptr.data.reshape(-1)
    values = value.data.reshape(-1)
    if mask is not None:
        mask = _mask(mask)
        mask = T.broadcast_to(mask, shape_of(ptr)) if ptr.type.is_block() else mask
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


def _atomic_shape(ptr, val, mask):
    """sem._atomic_shape: a scalar pointer with a block of values is one
    atomic per lane."""
    shape = shape_of(ptr)
    for v in (val, mask):
        if v is not None:
            shape = sem.broadcast_shapes(shape, shape_of(v))
    if not shape:
        return ptr, val, mask
    return tuple(T.broadcast_to(T._to_rank(v, len(shape)), shape)
                 if v is not None else None for v in (ptr, val, mask))


def _atomic_update(ptr, mask, update):
    """Applies `update(old, lane) -> new or None` lane by lane in order, so
    lanes that share an address see each other's writes (one valid order of
    the GPU's). Returns the old values."""
    elt = ptr.type.scalar.element_ty
    memory = _program().memory
    addresses = ptr.data.reshape(-1)
    active = np.ones(addresses.shape, bool) if mask is None else \
        T.broadcast_to(mask, shape_of(ptr)).data.reshape(-1)
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
        sem.check_float_atomic_minmax(kind, elt)
        val = cast(lift(val, elt), elt)
        if mask is not None:
            mask = _mask(mask)
        ptr, val, mask = _atomic_shape(ptr, val, mask)
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
    ptr, val, _ = _atomic_shape(ptr, val, None)
    ptr, cmp, _ = _atomic_shape(ptr, cmp, None)
    ptr, val, _ = _atomic_shape(ptr, val, None)
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
    x, y = T.broadcast(x, y)
    x, z = T.broadcast(x, z)
    x, y = T.broadcast(x, y)
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
        values = list(T.broadcast(*values))
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
    x, y = T.broadcast(cast(x, ty), cast(y, ty))
    bits = ty.primitive_bitwidth
    unsigned = np.dtype("uint%d" % bits)
    a = x.data.view(unsigned).astype(object)
    c = y.data.view(unsigned).astype(object)
    high = np.asarray((a * c) >> bits, dtype=object).astype(unsigned)
    return like(x, high.view(numbers.compute_type(ty)))


# ---------------------------------------------------------------- hints

@builtin
def static_assert(cond, msg=""):
    cond = unwrap(cond)
    if isinstance(cond, Tensor):
        raise SemanticError("static_assert needs a compile-time condition")
    if not cond:
        raise SemanticError("static_assert failed" + (": %s" % unwrap(msg) if msg else ""))


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False):
    print(*[unwrap(v) for v in values], sep=unwrap(sep), end=unwrap(end),
          file=file, flush=bool(unwrap(flush)))


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
                                    " ".join(show(T.broadcast_to(v, shape), idx)
                                             for v in values)))


@builtin
def debug_barrier():
    # The interpreter runs a program's threads as one numpy step: every
    # access before the barrier has already happened.
    pass


@builtin
def device_assert(cond, msg="", mask=None):
    c = cast(lift(cond), d.int1)
    if mask is not None:
        # Lanes outside the mask pass, as compiled.
        c = T.binary("|", c, T.binary("^", cast(lift(mask), d.int1), True))
    if not c.data.all():
        where_ = np.argwhere(~np.asarray(c.data))
        at = " at idx (%s)" % ", ".join(map(str, where_[0].tolist())) \
            if c.type.is_block() else ""
        raise AssertionError("device_assert failed in program %s%s: %s"
                             % (tuple(_program().pid), at, unwrap(msg)))



@builtin
def to_tensor(x):
    return lift(x)


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    # As in Triton's interpreter: PTX has no CPU meaning.
    raise SemanticError("tl.inline_asm_elementwise runs PTX, which the "
                        "interpreter cannot; run this kernel on the GPU")


@builtin
def extern_elementwise(lib_name, lib_path, args, arg_type_symbol_dict, is_pure):
    table = {tuple(unwrap(t) for t in key): (unwrap(sym), unwrap(ret))
             for key, (sym, ret) in unwrap(arg_type_symbol_dict).items()}
    return _libdevice.extern_elementwise(
        str(unwrap(lib_name)), str(unwrap(lib_path)), list(unwrap(args)),
        table, bool(unwrap(is_pure)))
