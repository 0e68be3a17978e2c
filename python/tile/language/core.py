"""The objects kernels compute with: tensors, constexprs and builtins.

Builtins emit IR through the builder of the kernel being compiled, which the
code generator installs with `building(builder)`; called outside a kernel
they raise.

Why this file is long: it is the `tl` namespace itself (tl.tensor with its
operators and methods, and every builtin a kernel calls), kept as one flat
module the way `triton.language.core` is; each builtin is a few lines that
check arguments and call tile.language.semantic.
"""

import abc
import builtins
import contextlib
import functools
import threading

from tile.language.compile_time import constexpr, constexpr_type, tuple as _tuple  # noqa: F401
from tile.language.constexpr_function import constexpr_function
from tile.language.ir_builder import Value, quote
from tile.language import dtypes as d
from tile.language import semantic as sem

_semantic = sem

_state = threading.local()


@contextlib.contextmanager
def building(builder):
    saved = getattr(_state, "builder", None)
    _state.builder = builder
    try:
        yield
    finally:
        _state.builder = saved


@contextlib.contextmanager
def interpreting(dispatch):
    """While the `with` runs, builtins and loops go to `dispatch` (the
    interpreter's: tile.runtime.interpreter) instead of a builder."""
    saved = getattr(_state, "interpreter", None)
    _state.interpreter = dispatch
    try:
        yield
    finally:
        _state.interpreter = saved


def interpreter():
    """The interpreter running a kernel on this thread, or None."""
    return getattr(_state, "interpreter", None)


def current_builder():
    b = getattr(_state, "builder", None)
    if b is None:
        raise RuntimeError("tile.language functions can only be called inside "
                           "a @tile.jit kernel")
    return b


def _unwrap(x):
    return x.value if isinstance(x, constexpr) else x


def _wrap(value):
    return tensor(value) if isinstance(value, Value) else value


def _raw(x):
    """A Value, or a Python number, for the semantic layer."""
    x = _unwrap(x)
    if isinstance(x, tensor):
        return x.handle
    if isinstance(x, d.dtype):
        raise sem.SemanticError("a dtype is not a value")
    return x


def builtin(fn):
    """Marks a tile.language function; it runs only while compiling."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        dispatch = getattr(_state, "interpreter", None)
        if dispatch is not None:
            return dispatch.call_builtin(wrapper.__name__, fn, args, kwargs)
        current_builder()
        return fn(*args, **kwargs)

    wrapper.__tile_builtin__ = True
    return wrapper


def _binary(op, reverse=False):
    def method(self, other):
        lhs, rhs = (_raw(other), self.handle) if reverse else (self.handle, _raw(other))
        return tensor(sem.binary(current_builder(), op, lhs, rhs))
    return method


def _compare(op):
    def method(self, other):
        return tensor(sem.compare(current_builder(), op, self.handle, _raw(other)))
    return method


class tensor(metaclass=abc.ABCMeta):
    """A value in a kernel: a scalar or a block, with a tile.language type."""

    def __init__(self, handle):
        self.handle = handle
        self.type = handle.type

    @property
    def dtype(self):
        return self.type.scalar

    @property
    def shape(self):
        # A tl.tuple, as in Triton: it compares equal to a tuple or a list
        # of the same sizes.
        return _tuple(constexpr(s) for s in self.type.shape) if self.type.is_block() \
            else _tuple()

    @property
    def numel(self):
        return constexpr(self.type.numel if self.type.is_block() else 1)

    def __repr__(self):
        return "tensor(%s, %r)" % (self.handle.name, self.type)

    __add__, __radd__ = _binary("+"), _binary("+", True)
    __sub__, __rsub__ = _binary("-"), _binary("-", True)
    __mul__, __rmul__ = _binary("*"), _binary("*", True)
    __truediv__, __rtruediv__ = _binary("/"), _binary("/", True)
    __floordiv__, __rfloordiv__ = _binary("//"), _binary("//", True)
    __mod__, __rmod__ = _binary("%"), _binary("%", True)
    __and__, __rand__ = _binary("&"), _binary("&", True)
    __or__, __ror__ = _binary("|"), _binary("|", True)
    __xor__, __rxor__ = _binary("^"), _binary("^", True)
    __lshift__, __rlshift__ = _binary("<<"), _binary("<<", True)
    __rshift__, __rrshift__ = _binary(">>"), _binary(">>", True)
    __lt__, __le__ = _compare("<"), _compare("<=")
    __gt__, __ge__ = _compare(">"), _compare(">=")
    __eq__, __ne__ = _compare("=="), _compare("!=")
    __hash__ = object.__hash__

    def __neg__(self):
        return tensor(sem.negate(current_builder(), self.handle))

    def __pos__(self):
        return self

    def __invert__(self):
        return tensor(sem.invert(current_builder(), self.handle))

    def __bool__(self):
        raise sem.SemanticError("a tensor has no Python truth value at compile "
                                "time; use it in an `if` or `tl.where` instead")

    def logical_and(self, other):
        b = current_builder()
        return tensor(sem.binary(b, "&", sem.cast(b, self.handle, d.int1),
                                 sem.cast(b, sem.lift(b, _raw(other)), d.int1)))

    def logical_or(self, other):
        b = current_builder()
        return tensor(sem.binary(b, "|", sem.cast(b, self.handle, d.int1),
                                 sem.cast(b, sem.lift(b, _raw(other)), d.int1)))

    def logical_not(self):
        return tensor(sem.logical_not(current_builder(), self.handle))

    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        dtype = _unwrap(dtype)
        if not isinstance(dtype, d.dtype):
            raise sem.SemanticError(".to() needs a dtype, got %r" % (dtype,))
        return tensor(sem.cast(current_builder(), self.handle, dtype,
                               bitcast=bool(_unwrap(bitcast)),
                               fp_downcast_rounding=_unwrap(fp_downcast_rounding)))

    def __getitem__(self, index):
        """Indexing with `None` (a new axis) and `:` (keep an axis)."""
        if not isinstance(index, tuple):
            index = (index,)
        b = current_builder()
        value, axis = self.handle, 0
        # As in Triton, item k of the index names axis k of the result: a
        # None inserts it, a ':' keeps it, and a ':' past the last axis
        # keeps nothing (test_core's test_reduce indexes a scalar pointer
        # with [None, None, :]).
        for item in index:
            item = _unwrap(item)
            if item is None:
                value = sem.expand_dims(b, value, axis)
                axis += 1
            elif isinstance(item, slice) and item == slice(None):
                axis += 1
            else:
                raise sem.SemanticError("unsupported tensor index %r: tensors "
                                        "can only be indexed with None and "
                                        "':'" % (item,))
        return tensor(value)

    # Methods mirroring module functions, as in Triton.
    def item(self):
        """The one element of a one-element tensor, as a scalar."""
        if not self.type.is_block():
            return self
        if self.type.numel != 1:
            raise sem.SemanticError("item() needs a tensor of one element, "
                                    "got shape %s" % list(self.type.shape))
        # A reduction over one element applies no combine: the element, in
        # its own type (tl.max would widen a narrow one).
        return _reduce1(self, None, _combine_minmax(True), False)

    def reshape(self, *shape, can_reorder=False):
        return reshape(self, *shape, can_reorder=can_reorder)

    def view(self, *shape):
        return reshape(self, *shape, can_reorder=True)

    def cast(self, dtype, fp_downcast_rounding=None, bitcast=False):
        return cast(self, dtype, fp_downcast_rounding=fp_downcast_rounding,
                    bitcast=bitcast)

    def trans(self, *dims):
        return trans(self, *dims)

    permute = trans

    def expand_dims(self, axis):
        return expand_dims(self, axis)

    def broadcast_to(self, *shape):
        return broadcast_to(self, *shape)

    @property
    def T(self):
        return trans(self)


class tensor_descriptor(tensor):
    """A kernel's handle on a host `tile.TensorDescriptor`: blocks of it
    are loaded and stored by the TMA unit (sm_90)."""

    @property
    def block_type(self):
        return self.type.block_type

    @property
    def block_shape(self):
        return [constexpr(s) for s in self.type.block_type.shape]

    @property
    def dtype(self):
        return self.type.block_type.element_ty

    # The sizes a descriptor made in the kernel was given (None for a host
    # descriptor).
    made_shape = None

    @property
    def shape(self):
        if self.made_shape is not None:
            return self.made_shape
        raise sem.host_descriptor_shape_error()

    def __repr__(self):
        return "tensor_descriptor(%s, %r)" % (self.handle.name, self.type)

    @builtin
    def load(self, offsets):
        """The block whose first element is at `offsets`; elements outside
        the tensor read as zero."""
        return tensor(sem.descriptor_load(current_builder(), self.handle,
                                          [_raw(o) for o in _unwrap(offsets)]))

    @builtin
    def store(self, offsets, value):
        """Writes `value` as the block at `offsets`; elements outside the
        tensor are dropped."""
        sem.descriptor_store(current_builder(), self.handle,
                             [_raw(o) for o in _unwrap(offsets)], _raw(value))


def _descriptor_reduction(kind):
    def reduce(self, offsets, value):
        sem.descriptor_reduce(current_builder(), self.handle,
                              [_raw(o) for o in _unwrap(offsets)], _raw(value),
                              kind)
    reduce.__name__ = "atomic_" + kind
    reduce.__doc__ = (
        "Combines `value` into the block at `offsets` by %s, atomically per "
        "element (one TMA bulk reduction); elements outside the tensor are "
        "dropped. Returns nothing." % kind)
    return builtin(reduce)


for _kind in sem.TMA_REDUCTIONS:
    setattr(tensor_descriptor, "atomic_" + _kind, _descriptor_reduction(_kind))


@builtin
def load_tensor_descriptor(desc, offsets):
    """`desc.load(offsets)` as a function (Triton's free form)."""
    return desc.load(offsets)


@builtin
def store_tensor_descriptor(desc, offsets, value):
    """`desc.store(offsets, value)` as a function (Triton's free form)."""
    return desc.store(offsets, value)


def must_use_result(fn, message=True):
    """Marks a builtin whose result a kernel must use: calling it as a
    statement is a compile error at that line (`tl.advance(p, ...)` alone
    moves nothing). Also `@must_use_result("why")`."""
    if isinstance(fn, str):
        return lambda f: must_use_result(f, fn)
    fn.tile_must_use_result = message
    return fn


class const:
    """Annotates a pointer parameter whose data the function does not write
    (`x_ptr: tl.const`): stores and atomics through it, or through pointers
    computed from it, are errors at their line, and the constness is part
    of its type, as in Triton."""


def _wrap_param(value):
    """A kernel or function parameter of IR value `value`."""
    if isinstance(value.type, d.tensor_descriptor_type):
        return tensor_descriptor(value)
    return tensor(value)


def _shape_args(shape):
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (tuple, list)):
        shape = _unwrap(shape[0])
    return [int(_unwrap(s)) for s in shape]


def _tensor(x):
    b = current_builder()
    return sem.lift(b, _raw(x))


# ---------------------------------------------------------------------------
# Creation
# ---------------------------------------------------------------------------

@builtin
def program_id(axis):
    return tensor(sem.program_id(current_builder(), _unwrap(axis)))


@builtin
def num_programs(axis):
    return tensor(sem.program_id(current_builder(), _unwrap(axis),
                                 "tile.get_num_programs"))


@builtin
def arange(start, end):
    return tensor(sem.arange(current_builder(), _unwrap(start), _unwrap(end)))


def _check_shape(shape):
    for s in shape:
        if s <= 0 or s & (s - 1):
            raise sem.SemanticError("tensor dimensions must be powers of two, "
                                    "got %s" % list(shape))


@builtin
def full(shape, value, dtype):
    if not isinstance(_unwrap(shape), (tuple, list)):
        raise sem.SemanticError("full's shape must be a tuple or list of "
                                "constexpr ints, got %r" % (_unwrap(shape),))
    shape = _shape_args([_unwrap(shape)])
    _check_shape(shape)
    dtype = _unwrap(dtype)
    b = current_builder()
    value = _raw(value)
    if isinstance(value, Value):
        v = sem.cast(b, value, dtype)
        return tensor(sem.splat(b, v, shape) if shape else v)
    return tensor(sem.full(b, shape, value, dtype))


@builtin
def zeros(shape, dtype):
    return full(shape, 0, dtype)


def _flag(name, value):
    """A compile-time bool argument."""
    value = _unwrap(value)
    if not isinstance(value, bool):
        raise sem.SemanticError("%s must be True or False, got %r" % (name, value))
    return value


def _constexpr_ints(name, values):
    """The compile-time positive ints of a hint."""
    values = _unwrap(values)
    items = [_unwrap(v) for v in
             (values if isinstance(values, (tuple, list)) else [values])]
    for v in items:
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise sem.SemanticError("%s takes positive constexpr ints, got %r"
                                    % (name, v))
    return items


@builtin
def zeros_like(input, dtype=None):
    return full(input.type.shape if input.type.is_block() else [], 0,
                _unwrap(dtype) or input.dtype)


@builtin
def full_like(input, value, dtype=None):
    return full(input.type.shape if input.type.is_block() else [], value,
                _unwrap(dtype) or input.dtype)


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------

@builtin
def broadcast_to(input, *shape):
    return tensor(sem.broadcast_to(current_builder(), _tensor(input),
                                   _shape_args(shape)))


@builtin
def broadcast(input, other):
    a, c = sem.broadcast(current_builder(), _tensor(input), _tensor(other))
    return tensor(a), tensor(c)


@builtin
def expand_dims(input, axis):
    axis = _unwrap(axis)
    axes = axis if isinstance(axis, (tuple, list)) else [axis]
    value = _tensor(input)
    rank = len(value.type.shape) if value.type.is_block() else 0
    for a in sem.expand_axes(rank, [_unwrap(x) for x in axes]):
        value = sem.expand_dims(current_builder(), value, a)
    return tensor(value)


@builtin
def reshape(input, *shape, can_reorder=False):
    return tensor(sem.reshape(current_builder(), _tensor(input),
                              _shape_args(shape), bool(_unwrap(can_reorder))))


@builtin
def view(input, *shape):
    return reshape(input, *shape, can_reorder=True)


@builtin
def trans(input, *dims):
    """`input` with its dimensions in the order `dims`; with no `dims`, the
    last two swapped (a batched 2-D transpose), as in Triton."""
    value = _tensor(input)
    return tensor(sem.permute(current_builder(), value,
                              sem.trans_order(value.type, _shape_args(dims))))


@builtin
def permute(input, *dims):
    """`input` with its dimensions in the order `dims` (one per dimension)."""
    return tensor(sem.permute(current_builder(), _tensor(input), _shape_args(dims)))


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------

def check_pointer_access(pointer, mask, other, boundary_check, padding_option):
    """Whether a load or store goes through a block pointer (its own
    arguments), or through pointers (mask and other)."""
    if getattr(_unwrap(pointer), "tile_block_pointer", False):
        if mask is not None or other is not None:
            raise sem.SemanticError("`mask` and `other` cannot be used with a "
                                    "block pointer; use boundary_check and "
                                    "padding_option")
        return True
    if _unwrap(boundary_check) not in ((), [], None):
        raise sem.SemanticError(
            "boundary_check needs a block pointer (tl.make_block_ptr): the "
            "bounds of a tensor of pointers are not known; use a mask")
    if _unwrap(padding_option) not in ("", None):
        raise sem.SemanticError(
            "padding_option needs a block pointer (tl.make_block_ptr); with "
            "a tensor of pointers, use a mask and `other`")
    return False


@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False):
    if check_pointer_access(pointer, mask, other, boundary_check, padding_option):
        return _unwrap(pointer).load(boundary_check, padding_option,
                                     cache_modifier, eviction_policy, volatile)
    return tensor(sem.load(current_builder(), _raw(pointer),
                           _raw(mask) if mask is not None else None,
                           _raw(other) if other is not None else None,
                           _unwrap(cache_modifier), _unwrap(eviction_policy),
                           bool(_unwrap(volatile))))


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="",
          eviction_policy=""):
    if check_pointer_access(pointer, mask, None, boundary_check, ""):
        _unwrap(pointer).store(value, boundary_check, cache_modifier,
                               eviction_policy)
        return
    sem.store(current_builder(), _raw(pointer), _raw(value),
              _raw(mask) if mask is not None else None,
              _unwrap(cache_modifier), _unwrap(eviction_policy))


@builtin
def tma_tensor_descriptor(base, shape, strides, block_shape,
                          padding_option="zero"):
    """A descriptor of the tensor at `base` with `shape` and `strides` (in
    elements, the last one 1), read and written in `block_shape` blocks by
    the TMA unit (sm_90). `tl.make_tensor_descriptor` (descriptors.py) takes
    this where TMA copies can serve the block.

    tile encodes the CUtensorMap on the host at launch (no device scratch,
    no tensormap fences): base, shape and strides must be kernel parameters,
    constants or integer arithmetic on them."""
    sizes = list(_unwrap(shape)) if isinstance(_unwrap(shape), (list, tuple)) \
        else None
    shape, strides, block = descriptor_lists(shape, strides, block_shape)
    desc = tensor_descriptor(sem.make_tensor_descriptor(
        current_builder(), _raw(base), shape, strides, block,
        _unwrap(padding_option)))
    desc.made_shape = sizes
    return desc


def descriptor_lists(shape, strides, block_shape):
    """make_tensor_descriptor's shape and strides as IR values or ints, and
    its block shape as ints (which must be compile-time)."""
    def items(values, what):
        values = _unwrap(values)
        if not isinstance(values, (list, tuple)):
            raise sem.SemanticError("make_tensor_descriptor: %s must be a list"
                                    % what)
        return [_raw(v) for v in values]
    block = items(block_shape, "block_shape")
    for dim in block:
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise sem.SemanticError("make_tensor_descriptor: block_shape must "
                                    "be constexpr integers, got %r" % (dim,))
    return items(shape, "shape"), items(strides, "strides"), block


def _atomic(kind):
    @builtin
    def op(pointer, val, mask=None, sem_=None, scope=None, **kwargs):
        memsem = _unwrap(kwargs.pop("sem", sem_))
        if kwargs:
            raise sem.SemanticError("unexpected arguments: %s" % ", ".join(kwargs))
        return tensor(sem.atomic_rmw(current_builder(), kind, _raw(pointer),
                                     _raw(val), _raw(mask) if mask is not None
                                     else None, memsem, _unwrap(scope)))
    op.__name__ = "atomic_" + kind
    return op


atomic_add = _atomic("add")
atomic_max = _atomic("max")
atomic_min = _atomic("min")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_xchg = _atomic("xchg")


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    # `sem` is Triton's name for the memory semantic; the module is _semantic.
    return tensor(_semantic.atomic_cas(current_builder(), _raw(pointer), _raw(cmp),
                                      _raw(val), _unwrap(sem), _unwrap(scope)))


# ---------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------

@builtin
def where(condition, x, y):
    return tensor(sem.where(current_builder(), _raw(condition), _raw(x), _raw(y)))


@builtin
def maximum(x, y, propagate_nan=False):
    return tensor(sem.minmax(current_builder(), _raw(x), _raw(y), True,
                             bool(_unwrap(propagate_nan))))


@builtin
def minimum(x, y, propagate_nan=False):
    return tensor(sem.minmax(current_builder(), _raw(x), _raw(y), False,
                             bool(_unwrap(propagate_nan))))


@builtin
def clamp(x, min, max, propagate_nan=False):
    return minimum(maximum(x, min, propagate_nan), max, propagate_nan)


def _math(name, op):
    @builtin
    def fn(x):
        return tensor(sem.unary_math(current_builder(), op, _tensor(x)))
    fn.__name__ = name
    return fn


exp = _math("exp", "math.exp")
exp2 = _math("exp2", "math.exp2")
log = _math("log", "math.log")
log2 = _math("log2", "math.log2")
sqrt = _math("sqrt", "math.sqrt")
rsqrt = _math("rsqrt", "math.rsqrt")
sin = _math("sin", "math.sin")
cos = _math("cos", "math.cos")
floor = _math("floor", "math.floor")
ceil = _math("ceil", "math.ceil")
erf = _math("erf", "math.erf")


@builtin
def abs(x):
    b = current_builder()
    v = _tensor(x)
    if v.type.scalar.is_fp8():
        # fp8 has no arithmetic of its own: clearing the sign bit is |x|
        # (NaN stays NaN), as Triton does it.
        bits = cast(tensor(v), d.int8, bitcast=True) & 0x7F
        return cast(bits, v.type.scalar, bitcast=True)
    if v.type.scalar.is_floating():
        return tensor(sem.unary_math(b, "math.absf", v))
    if v.type.scalar.is_int_unsigned():
        return tensor(v)
    return tensor(b.op(v.type, "math.absi %s : %s" % (v.name, v.type.to_ir())))


@builtin
def sigmoid(x):
    return 1.0 / (1.0 + exp(-x))


@builtin
def fma(x, y, z):
    b = current_builder()
    xv, yv, zv = _tensor(x), _tensor(y), _tensor(z)
    ty = sem.computation_type(sem.computation_type(xv.type.scalar, yv.type.scalar),
                              zv.type.scalar)
    # fp8 has no PTX arithmetic: a float32 fma, rounded once to the type.
    wide = d.float32 if ty.is_fp8() else ty
    xv, yv, zv = (sem.cast(b, v, wide) for v in (xv, yv, zv))
    xv, yv = sem.broadcast(b, xv, yv)
    xv, zv = sem.broadcast(b, xv, zv)
    xv, yv = sem.broadcast(b, xv, yv)
    out = b.op(xv.type, "math.fma %s, %s, %s : %s" % (
        xv.name, yv.name, zv.name, xv.type.to_ir()))
    return tensor(sem.cast(b, out, ty))


@builtin
def fdiv(x, y, ieee_rounding=False):
    return x / y


@builtin
def cdiv(x, div):
    return (x + div - 1) // div


# ---------------------------------------------------------------------------
# Dot, reductions and scans
# ---------------------------------------------------------------------------

@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=None):
    precision = _unwrap(input_precision)
    if precision is None and _unwrap(allow_tf32) is not None:
        precision = "tf32" if _unwrap(allow_tf32) else "ieee"
    return tensor(sem.dot(current_builder(), _tensor(input), _tensor(other),
                          _raw(acc) if acc is not None else None, precision,
                          _unwrap(out_dtype), _unwrap(max_num_imprecise_acc)))


def _combine_add(b, lhs, rhs):
    return [sem.binary(b, "+", lhs[0], rhs[0])]


def _combine_mul(b, lhs, rhs):
    return [sem.binary(b, "*", lhs[0], rhs[0])]


def _combine_xor(b, lhs, rhs):
    return [sem.binary(b, "^", lhs[0], rhs[0])]


def _combine_or(b, lhs, rhs):
    return [sem.binary(b, "|", lhs[0], rhs[0])]


def _combine_minmax(is_max):
    def combine(b, lhs, rhs):
        return [sem.minmax(b, lhs[0], rhs[0], is_max)]
    return combine


def _reduce1(input, axis, combine, keep_dims, dtype=None):
    b = current_builder()
    v = _tensor(input)
    if dtype is not None:
        v = sem.cast(b, v, dtype)
    (out,) = sem.reduce(b, [v], _unwrap(axis), combine, bool(_unwrap(keep_dims)))
    return tensor(out)


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None):
    v = _tensor(input)
    return _reduce1(input, axis, _combine_add, keep_dims,
                    sem.sum_dtype(v.type.scalar, _unwrap(dtype)))


# return_indices_tie_break_left: ties always go to the lower index, which
# both of Triton's settings allow (False leaves the choice open).
@builtin
def max(input, axis=None, return_indices=False,
        return_indices_tie_break_left=True, keep_dims=False):
    return _minmax_reduce(input, axis, return_indices, keep_dims, True)


@builtin
def min(input, axis=None, return_indices=False,
        return_indices_tie_break_left=True, keep_dims=False):
    return _minmax_reduce(input, axis, return_indices, keep_dims, False)


def _minmax_reduce(input, axis, return_indices, keep_dims, is_max):
    indices = _flag("return_indices", return_indices)
    v = _tensor(input)
    v = sem.cast(current_builder(), v,
                 sem.minmax_dtype(v.type.scalar, indices))
    if indices:
        return _arg_reduce(v, axis, is_max, keep_dims)
    return _reduce1(v, axis, _combine_minmax(is_max), keep_dims)


@builtin
def xor_sum(input, axis=None, keep_dims=False):
    return _reduce1(input, axis, _combine_xor, keep_dims)


def _arg_reduce(input, axis, is_max, keep_dims):
    b = current_builder()
    v = _tensor(input)
    axis = _unwrap(axis)
    if axis is None:
        v = sem.reshape(b, v, (v.type.numel,))
        axis = 0
    shape = v.type.shape
    idx = sem.arange(b, 0, shape[axis])
    for _ in builtins.range(len(shape) - 1 - axis):
        idx = sem.expand_dims(b, idx, 1)
    for _ in builtins.range(axis):
        idx = sem.expand_dims(b, idx, 0)
    idx = sem.broadcast_to(b, idx, shape)

    def combine(b, lhs, rhs):
        (va, ia), (vb, ib) = lhs, rhs
        # Ties go to the lower index, like torch and Triton.
        better = sem.compare(b, ">" if is_max else "<", vb, va)
        tie = sem.binary(b, "&", sem.compare(b, "==", vb, va),
                         sem.compare(b, "<", ib, ia))
        take = sem.binary(b, "|", better, tie)
        return [sem.where(b, take, vb, va), sem.where(b, take, ib, ia)]

    vals, idxs = sem.reduce(b, [v, idx], axis, combine, bool(_unwrap(keep_dims)))
    return tensor(vals), tensor(idxs)


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    return _arg_reduce(input, axis, True, keep_dims)[1]


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    return _arg_reduce(input, axis, False, keep_dims)[1]


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None):
    b = current_builder()
    v = _tensor(input)
    v = sem.cast(b, v, sem.scan_dtype(v.type.scalar, _unwrap(dtype)))
    (out,) = sem.scan(b, [v], _unwrap(axis), _combine_add, bool(_unwrap(reverse)))
    return tensor(out)


@builtin
def cumprod(input, axis=0, reverse=False):
    b = current_builder()
    v = _tensor(input)
    v = sem.cast(b, v, sem.scan_dtype(v.type.scalar, summing=False))
    (out,) = sem.scan(b, [v], _unwrap(axis), _combine_mul, bool(_unwrap(reverse)))
    return tensor(out)


@builtin
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    # As Triton's standard library: tl.max widens a narrow input, so the
    # exponentials run in float32.
    dim = 0 if _unwrap(dim) is None else dim
    z = x - max(x, dim, keep_dims=keep_dims)
    num = exp(z)
    return num / sum(num, dim, keep_dims=keep_dims)


# ---------------------------------------------------------------------------
# Hints and compile-time helpers
# ---------------------------------------------------------------------------

@builtin
def to_tensor(x):
    """`x` as a tensor: Python numbers become scalars of their natural type
    (int32, int64 or uint64 by value; float32; int1)."""
    return tensor(_tensor(x))


@builtin
def add(x, y, sanitize_overflow=True):
    # sanitize_overflow: Triton checks only under its overflow sanitizer,
    # which tile does not have; the sum is the same.
    return to_tensor(x) + y


@builtin
def sub(x, y, sanitize_overflow=True):
    return to_tensor(x) - y


@builtin
def mul(x, y, sanitize_overflow=True):
    return to_tensor(x) * y


@builtin
def reduce_or(input, axis=None, keep_dims=False):
    return _reduce1(input, axis, _combine_or, keep_dims)


def _hint(name, fact, input, values):
    """`input` with a fact promised about it (tile.hint): the axis
    analysis then takes `values` (one per dimension; a scalar has one) as
    the value's divisibility, contiguity or constancy. Floats, constexprs
    and the interpreter take the hint as a no-op, as Triton's semantics
    allow."""
    items = _constexpr_ints(name, values)
    x = _unwrap(input)
    if interpreter() is not None or not isinstance(x, tensor):
        return input
    value = x.handle
    ty = value.type
    rank = len(ty.shape) if ty.is_block() else 1
    if len(items) != rank:
        raise sem.SemanticError("%s takes one value per dimension: %d for a "
                                "rank-%d value, got %d"
                                % (name, rank, rank, len(items)))
    scalar = ty.scalar if ty.is_block() else ty
    if not (scalar.is_int() or scalar.is_ptr()):
        return input
    builder = current_builder()
    hinted = builder.op(ty, "tile.hint %s {%s = array<i64: %s>} : %s" % (
        value.name, fact, ", ".join(map(str, items)), ty.to_ir()))
    # As in Triton, the fact is about the value itself, so later uses of
    # `input` see it even when the result is dropped (`tl.multiple_of(x,
    # 16)` on a line of its own). That holds only in the region `input` was
    # made in: a hint inside a branch or loop body would otherwise leak a
    # value out of its region.
    if value.region == builder.current_region() or (
            value.region is None and builder.at_function_top()):
        x.handle = hinted
    return tensor(hinted)


@builtin
def max_constancy(input, values):
    """`input`, promised to hold runs of `values` equal elements per
    dimension."""
    return _hint("max_constancy", "constancy", input, values)


@builtin
def multiple_of(input, values):
    """`input`, promised to start each run at a multiple of `values` per
    dimension (for pointers, an address alignment in bytes)."""
    return _hint("multiple_of", "divisibility", input, values)


@builtin
def max_contiguous(input, values):
    """`input`, promised to hold runs of `values` consecutive elements per
    dimension."""
    return _hint("max_contiguous", "contiguity", input, values)


@builtin
def static_assert(cond, msg=""):
    if not _unwrap(cond):
        raise sem.SemanticError("static_assert failed" + (": %s" % _unwrap(msg) if msg else ""))


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False):
    print(*[_unwrap(v) for v in values], sep=_unwrap(sep), end=_unwrap(end),
          file=file, flush=bool(_unwrap(flush)))


class static_range:
    """A range unrolled at compile time."""

    def __init__(self, arg1, arg2=None, step=None):
        args = [_unwrap(a) for a in (arg1, arg2, step) if a is not None]
        for a in args:
            if not isinstance(a, int):
                raise sem.SemanticError("static_range bounds must be constexpr "
                                        "integers")
        self.range = builtins.range(*args)
        if len(self.range) > MAX_STATIC_RANGE:
            raise sem.SemanticError(
                "static_range unrolls %d iterations, more than the %d tile "
                "allows; use tl.range for a loop" % (len(self.range),
                                                     MAX_STATIC_RANGE))

    def __iter__(self):
        return iter(self.range)


# Iterations one static_range may unroll: each is a copy of the body in the
# IR, so a long one compiles for minutes (100000 ran past two).
MAX_STATIC_RANGE = 4096


class range:  # noqa: A001 - mirrors tl.range
    """`for i in tl.range(...)`: a loop with compile-time options."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None,
                 loop_unroll_factor=None, disallow_acc_multi_buffer=False,
                 flatten=False, warp_specialize=False, disable_licm=False):
        if arg2 is None:
            self.start, self.end = 0, arg1
        else:
            self.start, self.end = arg1, arg2
        self.step = 1 if step is None else step
        self.num_stages = num_stages
        # LLVM loop metadata (llvm.loop.unroll.count, llvm.licm.disable).
        self.loop_unroll_factor = loop_unroll_factor
        self.disable_licm = disable_licm
        # Triton's Blackwell hints (accumulators in tensor memory, nested
        # loops flattened for warp specialisation): tile has neither
        # transformation, so its loops already are what they ask for.
        self.disallow_acc_multi_buffer = disallow_acc_multi_buffer
        self.flatten = flatten
        # On sm_90a a loop whose dot operands all arrive by TMA gets a
        # producer warpgroup issuing the copies (docs/design/
        # warp-specialization.md); elsewhere the hint is ignored.
        self.warp_specialize = warp_specialize

    def __iter__(self):
        """Only the interpreter iterates a loop: the compiler reads the
        bounds and emits scf.for."""
        dispatch = interpreter()
        if dispatch is None:
            raise sem.SemanticError("tl.range can only be iterated in a kernel")
        return dispatch.loop(self.start, self.end, self.step)


class condition:  # noqa: N801 - mirrors tl.condition
    """`while tl.condition(cond, disable_licm=True):`: a `while` loop's
    condition with loop options (LLVM's llvm.licm.disable), as Triton's."""

    def __init__(self, arg1, disable_licm=False):
        self.condition = arg1
        self.disable_licm = disable_licm

    def __bool__(self):
        # The interpreter runs the loop in Python.
        return bool(_unwrap(self.condition))


# ---------------------------------------------------------------------------
# Joining, splitting, histograms, debugging
# ---------------------------------------------------------------------------

def _same_type_pair(a, c, what):
    b = current_builder()
    av, cv = _tensor(a), _tensor(c)
    if av.type != cv.type:
        raise sem.SemanticError("%s needs two tensors of one type, got %r and %r"
                                % (what, av.type, cv.type))
    return b, av, cv


@builtin
def join(a, c):
    b, av, cv = _same_type_pair(a, c, "join")
    if not av.type.is_block():
        # Two scalars join into a block of two, as in Triton.
        pair = join(tensor(sem.splat(b, av, (1,))), tensor(sem.splat(b, cv, (1,))))
        return reshape(pair, [2])
    ty = d.block_type(av.type.scalar, tuple(av.type.shape) + (2,))
    return tensor(b.op(ty, "tile.join %s, %s : %s -> %s" % (
        av.name, cv.name, av.type.to_ir(), ty.to_ir())))


@builtin
def split(a):
    b = current_builder()
    v = _tensor(a)
    if not v.type.is_block() or v.type.shape[-1] != 2:
        raise sem.SemanticError("split needs a tensor whose last dimension is 2")
    if len(v.type.shape) == 1:
        # A pair splits into two scalars, as in Triton (tensors of shape []).
        lo, hi = split(reshape(tensor(v), (1, 2)))
        return lo.item(), hi.item()
    ty = d.block_type(v.type.scalar, v.type.shape[:-1])
    decl, (lo, hi) = b.results([ty, ty])
    b.emit("%s = tile.split %s : %s -> %s" % (decl, v.name, v.type.to_ir(),
                                             ty.to_ir()))
    return tensor(lo), tensor(hi)


@builtin
def gather(src, index, axis):
    """torch.gather: `src` at `index`'s coordinates, except along `axis`,
    where the coordinate is `index`'s value. The result has `index`'s
    shape. An index outside [0, extent) wraps modulo the extent (a power
    of two) rather than reading outside the block."""
    b = current_builder()
    s, i = _tensor(src), _tensor(index)
    axis = sem.check_gather(s.type, i.type, _unwrap(axis))
    ty = d.block_type(s.type.scalar, i.type.shape)
    return tensor(b.op(ty, "tile.gather %s[%s] axis = %d : (%s, %s) -> %s" % (
        s.name, i.name, axis, s.type.to_ir(), i.type.to_ir(), ty.to_ir())))


@builtin
def cat(input, other, can_reorder=False):
    b, av, cv = _same_type_pair(input, other, "cat")
    shape = list(av.type.shape)
    shape[0] *= 2
    ty = d.block_type(av.type.scalar, shape)
    return tensor(b.op(ty, "tile.cat %s, %s : %s -> %s" % (
        av.name, cv.name, av.type.to_ir(), ty.to_ir())))


@builtin
def histogram(input, num_bins, mask=None):
    """Bin i counts the elements equal to i; out-of-range values and, with
    `mask`, the elements it turns off are not counted."""
    b = current_builder()
    v = _tensor(input)
    bins = int(_unwrap(num_bins))
    _check_shape([bins])
    if not v.type.is_block() or len(v.type.shape) != 1 or not v.type.scalar.is_int():
        raise sem.SemanticError("histogram needs a 1-D integer tensor")
    if _unwrap(mask) is not None:
        # The op skips values outside [0, bins): a masked-off element becomes
        # -1, after widening to 32 bits so that no narrow unsigned value
        # (255 of a uint8) can alias a real bin.
        shape = list(v.type.shape)
        if v.type.scalar.primitive_bitwidth < 32:
            v = sem.cast(b, v, d.int32)
        v = sem.where(b, _raw(mask), v, sem.full(b, [], -1, v.type.scalar))
        if list(v.type.shape) != shape:
            raise sem.SemanticError("histogram's mask must have the input's "
                                    "shape %s" % (shape,))
    ty = d.block_type(d.int32, (bins,))
    return tensor(b.op(ty, "tile.histogram %s : %s -> %s" % (
        v.name, v.type.to_ir(), ty.to_ir())))


@builtin
def umulhi(x, y):
    b = current_builder()
    xv, yv = sem.lift_pair(b, _raw(x), _raw(y))
    ty = sem.integer_promote(xv.type.scalar, yv.type.scalar)
    if not ty.is_int() or ty.primitive_bitwidth not in (32, 64):
        raise sem.SemanticError("umulhi needs 32- or 64-bit integers, got %s" % ty)
    xv, yv = sem.broadcast(b, sem.cast(b, xv, ty), sem.cast(b, yv, ty))
    return tensor(b.op(xv.type, "tile.mulhiui %s, %s : %s" % (
        xv.name, yv.name, xv.type.to_ir())))


@builtin
def device_print(prefix, *args, hex=False):
    b = current_builder()
    values = [sem.lift(b, _raw(a)) for a in args]
    signed = [1 if v.type.scalar.is_int_signed() else 0 for v in values]
    text = "tile.print %s {hex = %s, isSigned = array<i32%s>}" % (
        quote(str(_unwrap(prefix))), "true" if _unwrap(hex) else "false",
        (": " + ", ".join(map(str, signed))) if signed else "")
    if values:
        text += " %s : %s" % (", ".join(v.name for v in values),
                              ", ".join(v.type.to_ir() for v in values))
    b.emit(text)


@builtin
def debug_barrier():
    """Every thread of the program waits here for the others (bar.sync)."""
    current_builder().emit("tile.debug_barrier")


@builtin
def device_assert(cond, msg="", mask=None):
    b = current_builder()
    if not b.debug:
        return
    c = sem.cast(b, sem.lift(b, _raw(cond)), d.int1)
    if mask is not None:
        # Lanes outside the mask pass, as in Triton.
        m = sem.cast(b, sem.lift(b, _raw(mask)), d.int1)
        c = sem.binary(b, "|", c, sem.binary(b, "^", m, True))
    b.emit("tile.assert %s, %s : %s" % (c.name, quote(str(_unwrap(msg))),
                                        c.type.to_ir()))


@builtin
def extern_elementwise(lib_name, lib_path, args, arg_type_symbol_dict, is_pure):
    """Calls a device-library function on each element of `args`
    (broadcast together). `arg_type_symbol_dict` maps a tuple of argument
    dtypes to (symbol, result dtype); arguments with no entry are first
    promoted to one arithmetic type. tile links CUDA's libdevice; symbols
    from elsewhere fail when the PTX is linked."""
    table = {tuple(_unwrap(t) for t in key): (_unwrap(sym), _unwrap(ret))
             for key, (sym, ret) in _unwrap(arg_type_symbol_dict).items()}
    return tensor(sem.extern_elementwise(
        current_builder(), str(_unwrap(lib_name)), str(_unwrap(lib_path)),
        [_raw(a) for a in _unwrap(args)], table, bool(_unwrap(is_pure))))


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    """Runs the PTX `asm` on each element of `args` (broadcast together),
    `pack` elements per instance. `dtype` is the result's dtype, or a
    tuple of dtypes for several results (a tuple of tensors is returned).
    Arguments and results narrower than 32 bits are packed into 32-bit
    registers within an instance (four int8 or two float16 per asm
    operand); `constraints` lists the asm operands, outputs first, in
    LLVM's syntax ("=r,r"). `is_pure` lets tile drop or merge calls whose
    results are unused or equal."""
    dtypes = _unwrap(dtype)
    several = isinstance(dtypes, (tuple, list))
    dtypes = [_unwrap(t) for t in (dtypes if several else [dtypes])]
    for t in dtypes:
        if not isinstance(t, d.dtype):
            raise TypeError("inline_asm_elementwise's dtype must be a dtype or "
                            "a tuple of dtypes, got %r" % (t,))
    outs = sem.inline_asm_elementwise(
        current_builder(), _unwrap(asm), _unwrap(constraints),
        [_raw(a) for a in _unwrap(args)], dtypes, bool(_unwrap(is_pure)),
        _unwrap(pack))
    results = tuple(tensor(o) for o in outs)
    return results if several else results[0]


# ---------------------------------------------------------------------------
# Triton's standard library, written with the builtins above (composites:
# the interpreter runs these bodies too)
# ---------------------------------------------------------------------------

def _static_shape(x):
    return [int(_unwrap(n)) for n in x.shape]


@builtin
def ravel(x, can_reorder=False):
    """`x` as one dimension, row-major (any order with `can_reorder`)."""
    return reshape(x, [int(_unwrap(x.numel))], can_reorder=can_reorder)


@builtin
def interleave(a, b):
    """a[..., 0], b[..., 0], a[..., 1], b[..., 1], ... along the last
    dimension (which doubles)."""
    c = join(a, b)
    shape = _static_shape(c)
    if len(shape) == 1:
        return c
    return reshape(c, shape[:-2] + [shape[-2] * 2])


@builtin
def flip(x, dim=None):
    """`x` reversed along `dim` (the last when None), whose extent must be
    a power of two. Reversing an index in [0, 2^k) complements each of its
    k bits: the dimension is viewed as k dimensions of 2, and the two
    halves of each are swapped (split, then join the other way round)."""
    shape = _static_shape(x)
    rank = len(shape)
    dim = rank - 1 if _unwrap(dim) is None else int(_unwrap(dim))
    if rank == 0 or not -rank <= dim < rank:
        raise sem.SemanticError("flip: dim %d is out of range for a block of "
                                "rank %d" % (dim, rank))
    dim %= rank
    n = shape[dim]
    if n & (n - 1):
        raise sem.SemanticError("flip needs a power-of-two extent along dim "
                                "%d, got %d" % (dim, n))
    bits = n.bit_length() - 1
    if bits == 0:
        return x
    y = reshape(x, shape[:dim] + [2] * bits + shape[dim + 1:])
    width = rank - 1 + bits
    for axis in builtins.range(dim, dim + bits):
        order = [i for i in builtins.range(width) if i != axis] + [axis]
        inverse = [order.index(i) for i in builtins.range(width)]
        low, high = split(permute(y, order))
        y = permute(join(high, low), inverse)
    return reshape(y, shape)


@builtin
def swizzle2d(i, j, size_i, size_j, size_g):
    """Maps row-major (i, j) in a size_i x size_j grid to grouped order:
    groups of `size_g` rows are walked column by column (the last group
    may be shorter), so that neighbouring programs share rows and
    columns."""
    i, j, size_i, size_j, size_g = (_unwrap(v) for v in
                                    (i, j, size_i, size_j, size_g))
    linear = i * size_j + j
    per_group = size_g * size_j
    first_row = (linear // per_group) * size_g
    rows = minimum(size_i - first_row, size_g)
    within = linear % per_group
    return first_row + within % rows, within // rows


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    """`input` as `dtype` (`.to`): a conversion, or with `bitcast` the same
    bits read as another type of the same width."""
    if not hasattr(input, "to"):
        if _unwrap(bitcast):
            raise sem.SemanticError("cast: bitcast needs a tensor, got %r"
                                    % (_unwrap(input),))
        return full([], input, dtype)
    return input.to(dtype, fp_downcast_rounding=fp_downcast_rounding,
                    bitcast=bitcast)


@builtin
def assume(cond):
    """A condition the compiler may rely on: a runtime scalar becomes
    `tile.assume` (llvm.assume, as in Triton); a compile-time false one is
    an error, a true one nothing. The interpreter does not check it, as
    Triton's does not."""
    value = _unwrap(cond)
    if isinstance(value, bool):
        if not value:
            raise sem.SemanticError("assume: the condition is false at "
                                    "compile time")
        return
    if interpreter() is not None or not isinstance(value, tensor):
        return
    handle = value.handle
    if handle.type.is_block() or not handle.type.is_bool():
        raise sem.SemanticError("assume takes a scalar boolean condition, got "
                                "%s" % handle.type.to_ir())
    current_builder().emit("tile.assume %s" % handle.name)


# ---------------------------------------------------------------------------
# Reductions and scans with a user combiner
# ---------------------------------------------------------------------------

def _operands(input):
    values = input if isinstance(input, (tuple, list)) else (input,)
    return [_tensor(v) for v in values], isinstance(input, (tuple, list))


def _unpack(results, as_tuple):
    out = tuple(tensor(r) for r in results)
    return out if as_tuple else out[0]


@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    """Reduces `input` (a tensor or a tuple of same-shape tensors) along
    `axis` with `combine_fn`, a @tile.jit function taking the accumulated
    values then the new ones. The code generator turns `combine_fn` into a
    callable that emits its body."""
    values, as_tuple = _operands(input)
    results = sem.reduce(current_builder(), values, _unwrap(axis), combine_fn,
                         bool(_unwrap(keep_dims)))
    return _unpack(results, as_tuple)


@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    values, as_tuple = _operands(input)
    results = sem.scan(current_builder(), values, _unwrap(axis), combine_fn,
                       bool(_unwrap(reverse)))
    return _unpack(results, as_tuple)


@builtin
def map_elementwise(scalar_fn, *args, pack=1):
    """Applies `scalar_fn` (a @tile.jit function of scalars) to each element
    of the broadcast `args`, `pack` consecutive elements of each at a time:
    it takes the pack of the first argument, then of the second, ..., and
    returns the pack of the first result, then of the second, .... Its
    `if`s branch per element. Returns a tensor, or a tuple when `scalar_fn`
    returns one. The code generator turns `scalar_fn` into a callable that
    emits a call to its specialization."""
    b = current_builder()
    pack = _unwrap(pack)
    values = [_tensor(a) for a in args]
    sem.check_map_arguments(pack, [v.type for v in values])
    shape = None
    for v in values:
        if v.type.is_block():
            shape = list(v.type.shape) if shape is None else \
                sem.broadcast_shapes(shape, list(v.type.shape))
    values = [sem.broadcast_to(b, sem._to_rank(b, v, len(shape)), shape)
              for v in values]
    params = [b.fresh(v.type.scalar) for v in values for _ in builtins.range(pack)]
    body = []
    with b.capture(body):
        returned = scalar_fn(b, params)
        several = isinstance(returned, (tuple, list))
        outs = [sem.lift(b, _raw(r)) for r in (returned if several else [returned])]
        sem.check_map_results(pack, len(outs))
        scalars = []
        for first in builtins.range(0, len(outs), pack):
            group = outs[first:first + pack]
            if any(o.type.is_block() for o in group) or \
                    len({o.type.scalar for o in group}) != 1:
                raise sem.SemanticError(
                    "map_elementwise: the function must return scalars, one "
                    "type per result, got %s" % [o.type for o in group])
            scalars.append(group[0].type.scalar)
        b.emit("tile.map_elementwise.return %s : %s" % (
            ", ".join(o.name for o in outs),
            ", ".join(o.type.to_ir() for o in outs)))
    result_types = [d.block_type(t, shape) for t in scalars]
    decl, results = b.results(result_types)
    b.emit("%s = tile.map_elementwise %s pack = %d : (%s) -> %s {" % (
        decl, ", ".join(v.name for v in values), pack,
        ", ".join(v.type.to_ir() for v in values),
        result_types[0].to_ir() if len(result_types) == 1 else
        "(%s)" % ", ".join(t.to_ir() for t in result_types)), with_loc=False)
    b.emit("^bb0(%s):" % ", ".join("%s: %s" % (p.name, p.type.to_ir())
                                   for p in params), with_loc=False)
    b.emit_lines(body)
    b.emit("}")
    out = builtins.tuple(tensor(r) for r in results)
    return out if several else out[0]


def _precise(op, args):
    b = current_builder()
    values = [_tensor(a) for a in args]
    ty = values[0].type.scalar
    for v in values[1:]:
        ty = sem.computation_type(ty, v.type.scalar)
    if not ty.is_floating():
        ty = d.float32
    values = [sem.cast(b, v, ty) for v in values]
    if len(values) == 2:
        values = list(sem.broadcast(b, *values))
    return tensor(b.op(values[0].type, "%s %s : %s" % (
        op, ", ".join(v.name for v in values), values[0].type.to_ir())))


@builtin
def div_rn(x, y):
    """x / y, correctly rounded (IEEE round-to-nearest-even)."""
    return _precise("tile.precise_divf", (x, y))


@builtin
def sqrt_rn(x):
    """sqrt(x), correctly rounded."""
    return _precise("tile.precise_sqrt", (x,))


# Names that Triton's own library code reaches through `tl.core` (kernel
# libraries copy its bitonic sort, which spells them this way).
CONSTEXPR_0 = constexpr(0)


@constexpr_function
def get_int_dtype(bitwidth, signed):
    """The integer dtype of `bitwidth` bits (1 is int1 whatever `signed`)."""
    bitwidth = _unwrap(bitwidth)
    if bitwidth == 1:
        return d.int1
    if bitwidth not in (8, 16, 32, 64):
        raise sem.SemanticError("no %d-bit integer type" % bitwidth)
    return getattr(d, "%sint%d" % ("" if _unwrap(signed) else "u", bitwidth))
