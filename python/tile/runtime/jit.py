"""@tile.jit: the kernel object, launch binding and specialisation, and the
in-memory cache of compiled specialisations. Compiling is tile.compiler's."""

import ast
import hashlib
import inspect
import operator
import os
import textwrap

from tile import _C
from tile.compiler.compiler import compile_to_gpu, lower_to_tile_ir
from tile.language import core as tl
from tile.language import dtypes as d
from tile.runtime import cache, host_values, launcher
from tile.runtime import interpreter


class JITFunction:
    """A Python function compiled by tile when called from a kernel or
    compiled with `tile.compile`."""

    # How the compiler recognises a @jit callee without importing this
    # module (tile.compiler.code_generator.is_jit_function).
    tile_jit_function = True

    def __init__(self, fn, do_not_specialize=(), noinline=False,
                 interpret=False):
        self.fn = fn
        # Run on the CPU in tile.runtime.interpreter (also TILE_INTERPRET=1).
        self.interpret = interpret
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.globals = fn.__globals__
        # Names a kernel defined inside another function reads from there.
        self.closure_names = fn.__code__.co_freevars
        signature = inspect.signature(fn)
        self.params = list(signature.parameters.values())
        self.arg_names = [p.name for p in self.params]
        self.constexprs = {i for i, p in enumerate(self.params)
                           if p.annotation is tl.constexpr or
                           p.annotation == "tl.constexpr"}
        self.do_not_specialize = set(do_not_specialize)
        try:
            lines, start = inspect.getsourcelines(fn)
            self.filename = inspect.getsourcefile(fn) or "<unknown>"
        except (OSError, TypeError):
            raise TypeError("tile.jit needs the source of %s" % fn.__name__) from None
        self.source_lines = lines
        self.line_offset = start - 1
        self.src = textwrap.dedent("".join(lines))
        # Drop the decorators: the parse starts at `def`.
        tree = ast.parse(self.src)
        self.def_node = tree.body[0]
        self.def_node.decorator_list = []
        self.indent = len(lines[0]) - len(lines[0].lstrip())
        self.specialize = [i not in self.do_not_specialize and
                           self.arg_names[i] not in self.do_not_specialize
                           for i in range(len(self.params))]
        self.cache = _KernelCache()
        self._dispatcher = None
        self._deps_key = None

    def __getitem__(self, grid):
        """`kernel[grid](*args, num_warps=4, num_stages=3, **constexprs)`.

        The call goes to the C++ dispatcher (tile._C.Dispatcher), which
        comes back to `_prepare` only to compile a new specialization and to
        `run` for arguments it leaves to Python.

        Interpreted kernels (`interpret=True`, TILE_INTERPRET=1) run in
        tile.runtime.interpreter instead."""
        if self.interpreted:
            return lambda *args, **kwargs: self.run(grid, args, kwargs)
        dispatcher = self._dispatcher
        if dispatcher is None:
            missing = object()
            defaults = tuple(missing if p.default is inspect.Parameter.empty
                             else p.default for p in self.params)
            dispatcher = self._dispatcher = _C.Dispatcher(
                self, tuple(self.arg_names), defaults, missing,
                [i in self.constexprs for i in range(len(self.params))],
                self.specialize, launcher)
            self.cache.dispatcher = dispatcher
        return dispatcher[grid]

    def _prepare(self, args, kwargs):
        """Binds and specialises a call, compiling on a miss. Returns the
        kernel, the indices of the parameters passed at launch and the bound
        arguments (the dispatcher uses the first two)."""
        kwargs = dict(kwargs)
        options = (kwargs.pop("num_warps", 4), kwargs.pop("num_stages", 3),
                   kwargs.pop("target", "sm_90a"),
                   kwargs.pop("enable_fp_fusion", True))
        bound = self._bind(args, kwargs)
        key = (tuple(_spec_key(name, bound[name], i in self.constexprs,
                               self.specialize[i])
                     for i, name in enumerate(self.arg_names)), options)
        kernel = self.cache.get(key)
        if kernel is None:
            kernel = self._compile_for(key, bound, options)
            self.cache[key] = kernel
        runtime = [i for i, spec in enumerate(key[0])
                   if spec[0] not in ("constexpr", "one")]
        return kernel, runtime, bound

    @property
    def interpreted(self):
        return self.interpret or INTERPRET_ALL

    def run(self, grid, args, kwargs):
        """The launch path in Python: what the dispatcher falls back to."""
        if self.interpreted:
            return self._interpret(grid, args, kwargs)
        kernel, runtime, bound = self._prepare(args, kwargs)
        if callable(grid):
            grid = grid(bound)
        grid = _grid_dims(grid)
        runtime_args = [bound[self.arg_names[i]] for i in runtime]
        recipes = kernel.metadata.get("host_descriptors")
        if recipes:
            runtime_args += host_values.descriptors(recipes, bound)
        return launcher.active().launch(kernel, grid, runtime_args)

    def _interpret(self, grid, args, kwargs):
        kwargs = dict(kwargs)
        for option in _LAUNCH_OPTIONS:
            kwargs.pop(option, None)
        bound = self._bind(args, kwargs)
        if callable(grid):
            grid = grid(bound)
        interpreter.launch(self, _grid_dims(grid), bound)

    def _bind(self, args, kwargs):
        if len(args) > len(self.params):
            raise TypeError("%s() takes %d arguments but %d were given" %
                            (self.__name__, len(self.params), len(args)))
        bound = dict(zip(self.arg_names, args))
        for name, value in kwargs.items():
            if name not in self.arg_names:
                raise TypeError("%s() got an unexpected argument '%s'" %
                                (self.__name__, name))
            if name in bound:
                raise TypeError("%s() got two values for argument '%s'" %
                                (self.__name__, name))
            bound[name] = value
        for p in self.params:
            if p.name not in bound:
                if p.default is inspect.Parameter.empty:
                    raise TypeError("%s() is missing the argument '%s'" %
                                    (self.__name__, p.name))
                bound[p.name] = p.default
        return bound

    def _compile_for(self, key, bound, options):
        params, attrs = {}, {}
        for name, spec in zip(self.arg_names, key[0]):
            kind = spec[0]
            if kind == "constexpr":
                params[name] = tl.constexpr(bound[name])
            elif kind == "one":
                params[name] = tl.constexpr(1)
            else:
                params[name] = d.parse_signature_type(kind)
                if spec[1]:
                    attrs[name] = "tile.divisibility = 16 : i32"
        num_warps, num_stages, target, fp_fusion = options
        disk_key = cache.kernel_key(self, key, options)
        kernel = cache.load(disk_key)
        if kernel is None:
            ir = lower_to_tile_ir(self, params, attrs)
            kernel = compile_to_gpu(self, params, ir, num_warps, num_stages,
                                    target, fp_fusion=fp_fusion)
            cache.store(disk_key, kernel)
        kernel.signature = "".join(
            _SIG_LETTERS.get(spec[0][:1] if spec[0].startswith("*") else
                             spec[0].partition("<")[0], "?")
            for spec in key[0] if spec[0] not in ("constexpr", "one"))
        kernel.signature += "d" * len(kernel.metadata.get("host_descriptors", ()))
        return kernel

    def lookup(self, name):
        """A free name of the kernel: a closure variable or a global."""
        if name in self.closure_names:
            cell = self.fn.__closure__[self.closure_names.index(name)]
            return True, cell.cell_contents
        if name in self.globals:
            return True, self.globals[name]
        return False, None

    def __call__(self, *args, **kwargs):
        if tl.interpreter() is not None:
            return interpreter.call(self, args, kwargs)
        raise RuntimeError("%s is a @tile.jit kernel: launch it with "
                           "%s[grid](...), or call it from another kernel"
                           % (self.__name__, self.__name__))

    @property
    def cache_key(self):
        return hashlib.sha256(self.src.encode()).hexdigest()

    @property
    def deps_key(self):
        """A hash of this function's source, of every @jit function it
        calls (transitively) and of the global values it reads."""
        if self._deps_key is None:
            self._deps_key = _dependencies_key(self, set())
        return self._deps_key

    def __repr__(self):
        return "JITFunction(%s)" % self.__name__



# TILE_INTERPRET=1: every kernel runs in the interpreter. Read once, when
# tile is imported (as Triton reads TRITON_INTERPRET), so the launch path
# pays no environment lookup.
INTERPRET_ALL = os.environ.get("TILE_INTERPRET", "0") not in ("", "0")

# What a launch takes besides the kernel's arguments.
_LAUNCH_OPTIONS = ("num_warps", "num_stages", "target", "enable_fp_fusion")

_SIG_LETTERS = {"*": "p", "i32": "i", "i64": "l", "u64": "l", "fp32": "f",
                "i1": "b", "tensordesc": "d"}


class _KernelCache(dict):
    """Specialization key -> compiled kernel; clearing it also clears the
    C++ dispatcher's table."""

    dispatcher = None

    def clear(self):
        super().clear()
        if self.dispatcher is not None:
            self.dispatcher.clear()


def _dependencies_key(fn, seen):
    seen.add(id(fn))
    parts = [fn.cache_key]
    for node in ast.walk(fn.def_node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found, value = fn.lookup(node.id)
        elif (isinstance(node, ast.Attribute) and
              isinstance(node.value, ast.Name)):
            found, base = fn.lookup(node.value.id)
            value = getattr(base, node.attr, None) if found else None
            found = found and value is not None
        else:
            continue
        if not found:
            continue
        if isinstance(value, JITFunction):
            if id(value) not in seen:
                parts.append(_dependencies_key(value, seen))
        elif isinstance(value, tl.constexpr):
            parts.append("%s=%r" % (getattr(node, "id", None) or node.attr,
                                     value.value))
        elif isinstance(value, (bool, int, float, str)):
            parts.append("%s=%r" % (getattr(node, "id", None) or node.attr,
                                     value))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _grid_dims(grid):
    """(x, y, z) of a launch grid, with the dispatcher's checks and errors."""
    if isinstance(grid, (str, bytes)) or not hasattr(grid, "__len__"):
        raise TypeError("the grid must be a tuple of ints or a callable "
                        "returning one, got %r" % (grid,))
    if not 1 <= len(grid) <= 3:
        raise ValueError("the grid needs 1 to 3 dimensions")
    dims = []
    for d, item in enumerate(grid):
        try:
            value = operator.index(item)
        except TypeError:
            raise TypeError("grid dimension %d must be an int, got %r"
                            % (d, item)) from None
        if not 0 <= value < 2**31:
            raise ValueError("grid dimension %d is %r; it must be in "
                             "[0, 2^31 - 1]" % (d, item))
        dims.append(value)
    return tuple(dims) + (1,) * (3 - len(dims))


def _spec_key(name, value, is_constexpr, specialize=True):
    """What a launch specialises on, for one argument: (type, divisible by 16).

    The rules are libtile's (_C.specialize_argument, the same code the C++
    dispatcher keys with): integers equal to 1 are compiled in as constants,
    like Triton does; parameters in `do_not_specialize` get neither that
    nor divisibility. This names the types and explains what is refused."""
    if is_constexpr:
        return ("constexpr", repr(value))
    spec = _C.specialize_argument(value, specialize)
    if spec is None:
        raise _unsupported_argument(name, value)
    kind, divisible = spec
    if kind == "descriptor":
        return (value.signature(name), False)
    if kind == "pointer":
        return ("*" + _element_type_name(name, value), divisible)
    return (kind, divisible)


def _element_type_name(name, value):
    """The tile dtype name of a tensor-like argument's elements."""
    if hasattr(value, "data_ptr"):
        dtype = getattr(value, "dtype", None)
        sig = d.host_element_name(dtype)
        if sig is None:
            raise TypeError("argument '%s' has unsupported dtype %s" % (name, dtype))
        return sig
    typestr = value.__cuda_array_interface__.get("typestr")
    sig = d.ARRAY_TYPESTR_NAMES.get(typestr)
    if sig is None:
        raise TypeError("argument '%s' has unsupported typestr %r" % (name, typestr))
    return sig


def _unsupported_argument(name, value):
    """The error for an argument the specialisation rules refuse."""
    if value is None:
        return TypeError("argument '%s' is None; pass a tensor, a number or a "
                         "bool" % name)
    if isinstance(value, int):
        return ValueError("argument '%s' = %d does not fit in 64 bits"
                          % (name, value))
    if hasattr(value, "data_ptr"):
        if getattr(value, "is_cuda", True) is False:
            return ValueError("argument '%s' is a tensor on %s; tile kernels "
                              "take CUDA tensors"
                              % (name, getattr(value, "device", "the CPU")))
        return TypeError("argument '%s': data_ptr() must return an integer "
                         "address" % name)
    if hasattr(value, "__cuda_array_interface__"):
        return TypeError("argument '%s' has a malformed __cuda_array_interface__ "
                         "(it needs a dict with a 'data' tuple whose first item "
                         "is the address)" % name)
    return TypeError("argument '%s' has unsupported type %s; pass a tensor, an "
                     "object with data_ptr() or __cuda_array_interface__, a "
                     "number or a bool" % (name, type(value).__name__))


def jit(fn=None, *, do_not_specialize=(), noinline=False, debug=None,
        interpret=False):
    """Decorator: `@tile.jit` or `@tile.jit(do_not_specialize=[...])`;
    `interpret=True` runs the kernel on the CPU (tile.runtime.interpreter)."""
    if fn is None:
        return lambda f: JITFunction(f, do_not_specialize, noinline, interpret)
    return JITFunction(fn, do_not_specialize, noinline, interpret)


