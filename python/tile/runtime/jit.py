"""@tile.jit: the kernel object, launch binding and specialisation, and the
in-memory cache of compiled specialisations. Compiling is tile.compiler's."""

import ast
import hashlib
import json
import inspect
import os
import re
import textwrap
import types
import weakref

from tile import _C
from tile import knobs as _knobs
from tile.compiler.compiler import compile_to_gpu, lower_to_tile_ir
from tile.language import core as tl
from tile.language import dtypes as d
from tile.compiler.compiler import CompiledKernel
from tile.compiler.values import Structure
from tile.language.ir_builder import Value
from tile.runtime import async_compile, cache, launcher
from tile.runtime.dependencies import (current, dependencies_key, describe,
                                       snapshot, used_globals)
from tile.runtime.hooks import (JitFunctionInfo, LaunchMetadata,
                                constexpr_from_repr, full_name, key_from_json,
                                specialization_data)
from tile.runtime.specialization import (COMPILED_IN, MockTensor, is_torch_dtype,
                                         is_tuple_spec, spec_key)
from tile.runtime.options import LAUNCH_KEYWORDS, LaunchOptions, resolve_options
from tile.runtime import interpreter
# Triton's module holds these too; ported helpers (and torch's inductor,
# KernelInterface) import them from here.
from tile.language.dtypes import type_canonicalisation_dict  # noqa: F401
from tile.runtime.reinterpret import TensorWrapper, reinterpret  # noqa: F401
from tile.runtime.kernel_interface import KernelInterface, KernelParam


class JITFunction(KernelInterface):
    """A Python function compiled by tile when called from a kernel or
    compiled with `tile.compile`."""

    # How the compiler recognises a @jit callee without importing this
    # module (tile.compiler.code_generator.is_jit_function).
    tile_jit_function = True

    def __init__(self, fn, version=None, do_not_specialize=None,
                 do_not_specialize_on_alignment=None, debug=None,
                 noinline=None, repr=None, launch_metadata=None,
                 interpret=False):
        self.fn = fn
        self.module, self.version = fn.__module__, version
        # Every call is inlined whatever `noinline` says: the results are the
        # same, only the code size differs (docs/compatibility.md).
        self.noinline = noinline
        self.debug = debug
        self._repr = repr
        self.launch_metadata = launch_metadata
        self.pre_run_hooks = []
        # Run on the CPU in tile.runtime.interpreter (also TILE_INTERPRET=1).
        self.interpret = interpret
        self.__name__, self.__qualname__ = fn.__name__, fn.__qualname__
        self.__doc__, self.globals = fn.__doc__, fn.__globals__
        # Names a kernel defined inside another function reads from there.
        self.closure_names = fn.__code__.co_freevars
        self.signature = signature = inspect.signature(fn)
        params = list(signature.parameters.values())
        self.arg_names = [p.name for p in params]
        self.constexprs = {i for i, p in enumerate(params)
                           if p.annotation is tl.constexpr or
                           p.annotation == "tl.constexpr"}
        self.do_not_specialize = list(do_not_specialize or ())
        self.do_not_specialize_on_alignment = list(
            do_not_specialize_on_alignment or ())
        self.params = [KernelParam(
            i, p, i in self.constexprs,
            _named(i, p.name, self.do_not_specialize),
            _named(i, p.name, self.do_not_specialize_on_alignment))
            for i, p in enumerate(params)]
        try:
            lines, start = inspect.getsourcelines(fn)
            self.filename = inspect.getsourcefile(fn) or "<unknown>"
        except (OSError, TypeError):
            raise TypeError("tile.jit needs the source of %s" % fn.__name__) from None
        self.source_lines = lines
        self.line_offset = start - 1
        self.indent = len(lines[0]) - len(lines[0].lstrip())
        self._set_src(textwrap.dedent("".join(lines)))
        self.specialize = [not p.do_not_specialize for p in self.params]
        self.alignment = [not (p.do_not_specialize or
                               p.do_not_specialize_on_alignment)
                          for p in self.params]
        self.cache = _KernelCache()
        self.device_caches = _DeviceCaches(self)
        self._dispatcher = None
        # Memoised deps_key (Triton's `hash`): set to None to recompute.
        self.hash = None
        # Global values compiled in: {(name, id(globals)): (value, globals)}.
        self.used_global_vals = {}
        _registry.add(self)

    def _set_src(self, src):
        self.src = src
        # Drop the decorators: the parse starts at `def`.
        tree = ast.parse(src)
        self.def_node = tree.body[0]
        self.def_node.decorator_list = []

    def _unsafe_update_src(self, new_src):
        """Replaces the kernel's source (Triton's name): later compiles use
        it, and the in-memory specializations are forgotten."""
        self._set_src(new_src)
        self.hash = None
        self.cache.clear()
        # Kernels that call this one, or take it as a constexpr, must
        # specialise again (their C++ tables key the function by identity).
        for fn in list(_registry):
            fn.hash = None
        forget_specializations()

    @property
    def _deps_key(self):
        return self.hash

    def repr(self, specialization):
        return self.__name__ if self._repr is None else self._repr(specialization)

    def _kernel_symbol(self, key):
        """The compiled kernel's name: `jit(repr=...)` applied to this
        specialization (its `signature`, the runtime arguments' types, and
        `constants`, the compile-time ones, an argument specialised as 1
        included), made a valid symbol; else the function's name."""
        if self._repr is None:
            return self.__name__
        signature, constants = {}, {}
        for name, spec in zip(self.arg_names, key[0]):
            kind = spec[0]
            if kind == "constexpr":
                constants[name] = spec[1]
            elif kind == "one":
                constants[name] = 1
            elif kind == "none":
                constants[name] = None
            else:
                signature[name] = kind
        text = str(self.repr(types.SimpleNamespace(signature=signature,
                                                   constants=constants)))
        symbol = re.sub(r"[^A-Za-z0-9_]", "_", text)
        return symbol if symbol[:1].isalpha() or symbol[:1] == "_" else \
            "_" + symbol

    def __getitem__(self, grid):
        """`kernel[grid](*args, num_warps=4, num_stages=3, **constexprs)`.

        The call goes to the C++ dispatcher (tile._C.Dispatcher), which
        comes back to `_prepare` only to compile a new specialization and to
        `run` for arguments it leaves to Python.

        Interpreted kernels (`interpret=True`, TILE_INTERPRET=1) run in
        tile.runtime.interpreter instead."""
        runtime = _knobs.runtime
        if (self.interpret or INTERPRET_ALL or self.pre_run_hooks or
                _hooked(runtime.launch_enter_hook) or
                _hooked(runtime.launch_exit_hook)):
            return lambda *args, **kwargs: self.run(*args, grid=grid,
                                                    warmup=False, **kwargs)
        dispatcher = self._dispatcher
        if dispatcher is None:
            missing = object()
            defaults = tuple(missing if p.default is inspect.Parameter.empty
                             else p.default for p in self.params)
            dispatcher = self._dispatcher = _C.Dispatcher(
                self, tuple(self.arg_names), defaults, missing,
                [i in self.constexprs for i in range(len(self.params))],
                self.specialize, self.alignment, launcher)
            self.cache.dispatcher = dispatcher
        return dispatcher[grid]

    def _prepare(self, args, kwargs, warmup=False):
        """Binds and specialises a call, compiling on a miss. Returns the
        kernel (None when knobs.runtime.jit_cache_hook declined the
        compile), the indices of the parameters passed at launch and the
        bound arguments (the dispatcher uses the first two)."""
        key, bound, options = self._specialization(args, kwargs)
        kernel = self.cache.get(key)
        mode = async_compile.active_mode()
        if kernel is None and mode is not None:
            if not warmup:
                kernel = mode.collect((id(self), key))
            elif (id(self), key) in mode.pending:
                return mode.pending[(id(self), key)][0], [], bound
            else:
                # Submitted to the executor; the launch that needs it waits.
                if self._call_hook(_knobs.runtime.jit_cache_hook, key,
                                   options, warmup):
                    return None, [], bound
                future = mode.submit(
                    (id(self), key),
                    lambda: self._compile_for(key, bound, options),
                    lambda k: self._finish_compile(key, k, options, warmup))
                return future, [], bound
        if kernel is None:
            if self._call_hook(_knobs.runtime.jit_cache_hook, key, options,
                               warmup):
                return None, [], bound
            kernel = self._compile_for(key, bound, options)
            self._finish_compile(key, kernel, options, warmup)
        return kernel, kernel.runtime_params, bound

    def _finish_compile(self, key, kernel, options, warmup):
        self.cache.setdefault(key, kernel)
        self._call_hook(_knobs.runtime.jit_post_compile_hook, key, options,
                        warmup)

    def _specialization(self, args, kwargs):
        """(key, bound arguments, LaunchOptions) of a call."""
        kwargs = dict(kwargs)
        options = resolve_options(self, kwargs)
        bound = self._bind(args, kwargs)
        key = (tuple(spec_key(name, bound[name], i in self.constexprs,
                               self.specialize[i], self.alignment[i])
                     for i, name in enumerate(self.arg_names)), options)
        return key, bound, options

    def _compile_specialization(self, key, bound, options):
        """Compiles a specialization ahead of its launch (the autotuner's
        parallel compiles), with the compile hooks."""
        if key in self.cache:
            return self.cache[key]
        if self._call_hook(_knobs.runtime.jit_cache_hook, key, options, True):
            return None
        kernel = self._compile_for(key, bound, options)
        self.cache.setdefault(key, kernel)
        self._call_hook(_knobs.runtime.jit_post_compile_hook, key, options,
                        True)
        return kernel

    def _call_hook(self, hook, key, options, warmup):
        """knobs.runtime.jit_cache_hook / jit_post_compile_hook, with
        Triton's keyword arguments."""
        if not hook:
            return None
        signature = {name: spec[0] for name, spec in
                     zip(self.arg_names, key[0])}
        constants = {name: spec[1] for name, spec in
                     zip(self.arg_names, key[0]) if spec[0] == "constexpr"}
        named = options._asdict()
        text = "%s[%s](%s)" % (
            self.fn.__qualname__,
            ", ".join("%s=%r" % kv for kv in named.items()),
            ", ".join("%s: %s" % kv for kv in signature.items()))
        compile = dict(named, key=key, signature=signature, device=launcher.current_device(),
                       constants=constants, configs=[{}], is_warmup=warmup,
                       specialization_data=specialization_data(
                           self, key, options))
        return hook(key=key, repr=text, fn=JitFunctionInfo(self), compile=compile,
                    is_manual_warmup=warmup, already_compiled=False)

    def preload(self, data):
        """Compiles (or loads from the disk cache) the specialization that
        `specialization_data` (from a compile hook) describes."""
        record = json.loads(data)
        if record.get("name") != full_name(self):
            raise RuntimeError("Specialization data is for %s but trying to "
                               "preload for %s" % (record.get("name"),
                                                   full_name(self)))
        options = LaunchOptions(**record["options"])
        key = (key_from_json(record["key"][0]), options)
        kernel = self.cache.get(key)
        if kernel is None:
            bound = {name: constexpr_from_repr(spec[1])
                     for name, spec in zip(self.arg_names, key[0])
                     if spec[0] == "constexpr"}
            kernel = self._compile_for(key, bound, options)
            self.cache[key] = kernel
        return kernel

    def add_pre_run_hook(self, hook):
        """`hook(*args, **kwargs)` runs before every launch (which then
        takes the Python path)."""
        self.pre_run_hooks.append(hook)

    def warmup(self, *args, grid=None, **kwargs):
        """Compiles for these arguments without launching and returns the
        CompiledKernel. A torch dtype stands for a tensor of that dtype."""
        args = [MockTensor(a) if is_torch_dtype(a) else a for a in args]
        kwargs = {k: MockTensor(v) if is_torch_dtype(v) else v
                  for k, v in kwargs.items()}
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    @property
    def interpreted(self):
        return self.interpret or INTERPRET_ALL

    def run(self, *args, grid, warmup=False, **kwargs):
        """Triton's signature: specialise, compile on a miss and, unless
        `warmup`, launch on `grid`. Returns the CompiledKernel."""
        for hook in self.pre_run_hooks:
            hook(*args, **kwargs)
        if self.interpreted:
            if warmup:
                raise RuntimeError("%s runs in the interpreter: there is no "
                                   "compiled kernel to warm up" % self.__name__)
            return self._interpret(grid, args, kwargs)
        kernel, _, bound = self._prepare(args, kwargs, warmup)
        if not isinstance(kernel, CompiledKernel):
            return kernel   # declined by a hook, or an async compile's future
        if self.used_global_vals:
            self._check_globals(kernel)
        if warmup:
            return kernel
        if callable(grid):
            grid = grid(bound)
        grid = launcher.grid_dims(grid)
        enter, exit = (_knobs.runtime.launch_enter_hook,
                       _knobs.runtime.launch_exit_hook)
        metadata = None
        if enter or exit:
            metadata = LaunchMetadata(self, kernel, grid, bound)
        if enter:
            enter(metadata)
        launcher.launch_bound(kernel, grid, bound)
        if exit:
            exit(metadata)
        return kernel

    def _record_globals(self):
        """Notes the global (and closure) values a compile reads, in this
        function and in each @jit function it calls. A callee compiled
        earlier with another value of the same global is an error, as in
        Triton: one function would exist compiled two ways."""
        records = used_globals(self, set(), [])
        for owner, scope, name, snap in records:
            earlier = owner.used_global_vals.get((name, id(scope)))
            if earlier is not None and earlier[0] != snap:
                raise RuntimeError(
                    "Global variable %s has value %s, but %s was compiled "
                    "when it was %s; changing a global a compiled @jit "
                    "function reads is not supported" % (
                        name, describe(snap), owner.__name__,
                        describe(earlier[0])))
        for owner, scope, name, snap in records:
            owner.used_global_vals[(name, id(scope))] = (snap, scope)
            self.used_global_vals[(name, id(scope))] = (snap, scope)
        return records

    def _check_globals(self, kernel=None):
        """RuntimeError if a global value compiled into this function's
        kernels has changed since (as Triton does: they would silently use
        the old one). The C++ dispatcher calls it on every launch of a
        kernel that read globals."""
        for (name, _), (snap, scope) in self.used_global_vals.items():
            now = snapshot(current(scope, name))
            if now != snap:
                raise RuntimeError(
                    "Global variable %s has changed since we compiled this "
                    "kernel, from %s to %s" % (name, describe(snap),
                                               describe(now)))

    def _run_python(self, grid, args, kwargs):
        """What the C++ dispatcher falls back to: the launch's result too."""
        return self.run(*args, grid=grid, warmup=False, **kwargs)

    def _interpret(self, grid, args, kwargs):
        # An option that is also a parameter is that argument, as compiled.
        kwargs = {k: v for k, v in kwargs.items()
                  if k not in LAUNCH_KEYWORDS or k in self.arg_names}
        bound = self._bind(args, kwargs)
        if callable(grid):
            grid = grid(bound)
        interpreter.launch(self, launcher.grid_dims(grid), bound)

    def _bind(self, args, kwargs):
        if len(args) > len(self.params):
            raise TypeError("%s() takes %d arguments but %d were given" %
                            (self.__name__, len(self.params), len(args)))
        bound = dict(zip(self.arg_names, args))
        for name, value in kwargs.items():
            if name not in self.arg_names:
                raise TypeError(
                    "%s() got an unexpected argument '%s'; its parameters are "
                    "%s, and the launch options %s" % (
                        self.__name__, name, ", ".join(self.arg_names) or
                        "(none)", ", ".join(LAUNCH_KEYWORDS)))
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
            elif kind == "none":
                params[name] = tl.constexpr(None)
            elif is_tuple_spec(spec):
                params[name], attrs[name] = _tuple_parameter(
                    ["arg", name], spec, bound.get(name))
            else:
                params[name] = d.parse_signature_type(kind)
                if spec[1]:
                    attrs[name] = "tile.divisibility = 16 : i32"
        records = self._record_globals()
        disk_key = cache.kernel_key(self, key, options)
        kernel = None if _knobs.compilation.always_compile else \
            cache.load(disk_key)
        if kernel is None:
            ir = lower_to_tile_ir(self, params, attrs, debug=options.debug,
                                  target=options.target,
                                  num_warps=options.num_warps,
                                  name=self._kernel_symbol(key))
            kernel = compile_to_gpu(self, params, ir, options.num_warps,
                                    options.num_stages, options.target,
                                    fp_fusion=options.enable_fp_fusion,
                                    num_ctas=options.num_ctas, maxnreg=options.maxnreg or 0,
                                    reflect_ftz=options.enable_reflect_ftz,
                                    ir_override=options.ir_override)
            cache.store(disk_key, kernel)
        kernel.metadata.update(
            launch_cooperative_grid=options.launch_cooperative_grid,
            launch_pdl=options.launch_pdl, debug=options.debug)
        kernel.hash = disk_key
        kernel.used_globals = records
        kernel.arg_names, kernel.constexpr_params = list(self.arg_names), sorted(self.constexprs)
        kernel.runtime_params = [i for i, spec in enumerate(key[0])
                                 if spec[0] not in COMPILED_IN]
        kernel.tuple_specs = {i: spec for i, spec in enumerate(key[0])
                              if is_tuple_spec(spec)}
        kernel.signature = "".join(
            _SIG_LETTERS.get(spec[0][:1] if spec[0].startswith("*") else
                             spec[0].partition("<")[0], "?")
            for spec in _flat_specs(key[0]) if spec[0] not in COMPILED_IN)
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
    def src_key(self):
        """A hash of this function's own source and of its first line (the
        IR's locations, and so the compiled code's line info, follow it)."""
        return hashlib.sha256(("%d\n%s" % (
            self.line_offset, self.src)).encode()).hexdigest()

    @property
    def deps_key(self):
        """A hash of this function's source, of every @jit function it
        calls (transitively) and of the global values it reads."""
        if self.hash is None:
            self.hash = dependencies_key(self, set())
        return self.hash

    # Triton's name: what the compiled code depends on.
    cache_key = deps_key

    def __repr__(self):
        return "JITFunction(%s:%s)" % (self.module, self.fn.__qualname__)



# TILE_INTERPRET=1: every kernel runs in the interpreter. Read once, when
# tile is imported (as Triton reads TRITON_INTERPRET), so the launch path
# pays no environment lookup.
INTERPRET_ALL = os.environ.get("TILE_INTERPRET", "0") not in ("", "0")


def _flat_specs(specs):
    for spec in specs:
        if is_tuple_spec(spec):
            yield from _flat_specs(spec[1])
        else:
            yield spec


def _tuple_parameter(path, spec, value):
    """A tuple parameter: its structure (runtime items stand as typed
    placeholders, whose `host` is the item's path in the launch arguments)
    and the divisibility attributes of its runtime items, in order."""
    attrs = []

    def template(path, spec, value):
        kind = spec[0]
        if is_tuple_spec(spec):
            items = [template(path + [i], s, value[i] if value is not None else None)
                     for i, s in enumerate(spec[1])]
            if value is not None and hasattr(value, "_fields"):
                return type(value)._make(items)
            return tuple(items)
        if kind == "constexpr":
            return tl.constexpr(value if value is not None else
                                constexpr_from_repr(spec[1]))
        if kind == "one":
            return tl.constexpr(1)
        if kind == "none":
            return None
        attrs.append("tile.divisibility = 16 : i32" if spec[1] else None)
        return tl.tensor(Value("%%%s" % "_".join(map(str, path)),
                               d.parse_signature_type(kind), host=list(path)))
    return Structure(template(path, spec, value)), attrs

_SIG_LETTERS = {"*": "p", "i32": "i", "i64": "l", "u64": "l", "fp32": "f",
                "i1": "b", "tensordesc": "d"}


def _hooked(hook):
    """A launch hook is set (a HookChain with callables, or a callable
    assigned in its place); cheap, as every launch asks."""
    calls = getattr(hook, "calls", hook)
    return bool(calls)


def _named(index, name, names):
    return index in names or name in names


class _DeviceCaches(dict):
    """Triton's `device_caches[device]`: (kernel cache, ...). tile keeps one
    cache of compiled kernels for every device (a cubin loads on any device
    of its target), so every device sees the same one."""

    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def __missing__(self, device):
        entry = (self._fn.cache, {}, None, None, None)
        self[device] = entry
        return entry

    def clear(self):
        super().clear()
        self._fn.cache.clear()


# Every JITFunction, so a knob that changes what compiles can drop their
# C++ specialization tables.
_registry = weakref.WeakSet()


def forget_specializations():
    for fn in list(_registry):
        if fn._dispatcher is not None:
            fn._dispatcher.clear()


# A launch that leaves `debug` out is keyed in C++ without it: a new
# knobs.runtime.debug must reach the next launch.
_knobs.add_listener(forget_specializations)


class _KernelCache(dict):
    """Specialization key -> compiled kernel; clearing it also clears the
    C++ dispatcher's table."""

    dispatcher = None

    def clear(self):
        super().clear()
        if self.dispatcher is not None:
            self.dispatcher.clear()


def jit(fn=None, *, version=None, repr=None, launch_metadata=None,
        do_not_specialize=None, do_not_specialize_on_alignment=None,
        debug=None, noinline=None, interpret=False):
    """Decorator: `@tile.jit` or `@tile.jit(do_not_specialize=[...], ...)`,
    with triton.jit's options; `interpret=True` runs the kernel on the CPU
    (tile.runtime.interpreter)."""
    def decorate(f):
        return JITFunction(
            f, version=version, do_not_specialize=do_not_specialize,
            do_not_specialize_on_alignment=do_not_specialize_on_alignment,
            debug=debug, noinline=noinline, repr=repr,
            launch_metadata=launch_metadata, interpret=interpret)
    return decorate if fn is None else decorate(fn)
