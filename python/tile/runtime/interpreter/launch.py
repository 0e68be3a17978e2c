"""Running a @tile.jit kernel in the interpreter: one program at a time, in
order, as plain Python.

The kernel's own source runs (so `print`, breakpoints and Python's
`return` semantics work as written), with assignments of numbers lifted as
the compiler lifts them (interpreter/assignments.py), over rebound globals: tile.language's
builtins, while a launch runs, send their calls to
tile.runtime.interpreter.builtins (core.builtin checks for an interpreter
first); `range` yields typed loop counters as the compiled scf.for does;
module-level constexprs read as their values.
"""

import builtins as py
import types

import numpy as np

from tile import _C
from tile.language import core
from tile.language import dtypes as d
from tile.runtime.reinterpret import TensorWrapper
from tile.language import semantic as sem
from tile.runtime.interpreter import assignments, builtins, state
from tile.runtime.interpreter import descriptors, reductions  # noqa: F401 (they register builtins)
from tile.runtime.interpreter.memory import InterpreterError, Memory
from tile.runtime.interpreter.tensor import (SemanticError, Tensor, cast, lift,
                                             make, unwrap)

__all__ = ["InterpreterError", "call", "launch"]


class _Dispatch:
    """What core.builtin and tl.range call while a kernel is interpreted."""

    def call_builtin(self, name, fn, args, kwargs):
        impl = builtins.BUILTINS.get(name)
        if impl is None:
            if name not in builtins.COMPOSITES:
                raise SemanticError("tl.%s is not supported by the interpreter"
                                    % name)
            return fn(*args, **kwargs)
        return impl(*args, **kwargs)

    def loop(self, start, end, step):
        return _loop(start, end, step)


_DISPATCH = _Dispatch()


def _loop(start, end=None, step=None):
    """The counters of `range`/`tl.range` in a kernel: typed like the
    compiled loop's (i32, or the widest integer bound), stepping upward."""
    if end is None:
        start, end = 0, start
    step = 1 if step is None else step
    bounds = [unwrap(x) for x in (start, end, step)]
    ty = d.int32
    for x in bounds:
        if isinstance(x, Tensor):
            if x.type.is_block() or not x.type.scalar.is_int():
                raise SemanticError("range bounds must be integer scalars, got %r"
                                    % (x.type,))
            from_ty = x.type.scalar
            ty = ty if from_ty.is_bool() else _promote(ty, from_ty)
        elif isinstance(x, bool) or not isinstance(x, int):
            raise SemanticError("range bounds must be integers")
    lo, hi, inc = (int(cast(lift(x, ty), ty).data) for x in bounds)
    if inc == 0:
        raise SemanticError("the step of a range must not be zero")
    if inc < 0 and isinstance(bounds[2], Tensor):
        # Compiled, a runtime step is an scf.for step, which must be
        # positive; only a constexpr step may count down.
        raise SemanticError("a runtime range step must be positive, got %d; "
                            "a constexpr step may be negative" % inc)
    for i in py.range(lo, hi, inc):
        yield make(i, ty)


def _promote(a, c):
    return sem.integer_promote(a, c)


def _rebound(fn):
    """`fn`'s Python function over a copy of its globals in which `range`
    is the interpreter's and module constexprs are plain values."""
    program = state.current()
    made = program.functions.get(fn)
    if made is not None:
        return made
    raw = fn.fn
    scope = dict(raw.__globals__)
    for name, value in scope.items():
        if isinstance(value, core.constexpr):
            scope[name] = value.value
    if "range" not in raw.__globals__:
        scope["range"] = _loop
    made = assignments.build(fn, raw, scope)
    if made is None:
        made = types.FunctionType(raw.__code__, scope, raw.__name__,
                                  raw.__defaults__, raw.__closure__)
        made.__kwdefaults__ = raw.__kwdefaults__
    program.functions[fn] = made
    return made


def call(fn, args, kwargs):
    """A @jit function called from an interpreted kernel."""
    bound = fn._bind(args, kwargs)
    values = [unwrap(bound[n]) if i in fn.constexprs else bound[n]
              for i, n in enumerate(fn.arg_names)]
    return _rebound(fn)(*values)


def _argument(fn, index, name, value, memory):
    """A launch argument as the kernel sees it, under the specialisation
    rules of the compiled launch (an int equal to 1 is the constant 1)."""
    if index in fn.constexprs:
        return unwrap(value)
    if isinstance(value, tuple):
        # Item by item, as the compiled launch specialises a tuple.
        items = [unwrap(item) if isinstance(item, core.constexpr) or item is None
                 or getattr(item, "tile_jit_function", False)
                 else _argument(fn, index, "%s[%d]" % (name, i), item, memory)
                 for i, item in enumerate(value)]
        return type(value)._make(items) if hasattr(value, "_fields") else tuple(items)
    if value is None:
        # As compiled: None is a compile-time constant the kernel can test.
        return None
    if hasattr(value, "block_shape") and hasattr(value, "base") and \
            hasattr(value, "strides"):
        base = _pointer(name, value.base, memory)
        return descriptors.Descriptor(base, value.shape, value.strides,
                                   value.block_shape)
    if hasattr(value, "data_ptr") or isinstance(value, np.ndarray):
        return _pointer(name, value, memory)
    spec = _C.specialize_argument(value, fn.specialize[index])
    if spec is None:
        raise TypeError("argument '%s' has unsupported type %s; pass a tensor, "
                        "a number or a bool" % (name, type(value).__name__))
    kind = spec[0]
    if kind == "one":
        return 1
    ty = d.parse_signature_type(kind)
    if ty is None or ty.is_ptr():
        raise TypeError("argument '%s' has unsupported type %s"
                        % (name, type(value).__name__))
    if ty.is_floating():
        return make(np.float32(value), ty)
    if ty.is_bool():
        return make(bool(value), ty)
    return make(np.array(int(value) & ((1 << 64) - 1), np.uint64)
                .astype(np.dtype(_int_type(ty))), ty)


def _int_type(ty):
    return ("int%d" if ty.is_int_signed() else "uint%d") % ty.primitive_bitwidth


def _pointer(name, value, memory):
    if isinstance(value, TensorWrapper):  # tile.reinterpret
        sig = value.dtype.short_name
        value = value.base
    elif isinstance(value, np.ndarray):
        sig = d.ARRAY_TYPESTR_NAMES.get(value.dtype.str)
    else:
        sig = d.host_element_name(getattr(value, "dtype", None))
    if sig is None:
        raise TypeError("argument '%s' has unsupported dtype %s"
                        % (name, getattr(value, "dtype", None)))
    ty = d.parse_signature_type("*" + sig)
    return make(memory.address_of(name, value), ty)


def launch(fn, grid, bound):
    """Runs `fn` (a JITFunction) over `grid` (x, y, z) with the bound
    arguments `bound` (name -> value)."""
    memory = Memory()
    params = [_argument(fn, i, name, bound[name], memory)
              for i, name in enumerate(fn.arg_names)]
    program = state.Program(grid, memory)
    saved = state.enter(program)
    try:
        with core.interpreting(_DISPATCH):
            kernel = _rebound(fn)
            for z in py.range(grid[2]):
                for y in py.range(grid[1]):
                    for x in py.range(grid[0]):
                        program.pid = (x, y, z)
                        kernel(*params)
    finally:
        state.leave(saved)
        memory.finish()
