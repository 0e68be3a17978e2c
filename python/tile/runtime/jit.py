"""@tile.jit, specialization, and ahead-of-time compilation to Tile IR."""

import ast
import hashlib
import inspect
import os
import textwrap

from tile import _C
from tile.compiler.code_generator import CodeGenerator
from tile.compiler.errors import CompilationError
from tile.compiler.ir_builder import IRBuilder
from tile.language import core as tl
from tile.language import dtypes as d
from tile.language import semantic as sem
from tile.runtime import cache, host_values, launcher
from tile.tools.tensor_descriptor import TensorDescriptor


class JITFunction:
    """A Python function compiled by tile when called from a kernel or
    compiled with `tile.compile`."""

    def __init__(self, fn, do_not_specialize=(), noinline=False):
        self.fn = fn
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
        `run` for arguments it leaves to Python."""
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

    def run(self, grid, args, kwargs):
        """The launch path in Python: what the dispatcher falls back to."""
        kernel, runtime, bound = self._prepare(args, kwargs)
        if callable(grid):
            grid = grid(bound)
        grid = tuple(grid) + (1,) * (3 - len(grid))
        runtime_args = [bound[self.arg_names[i]] for i in runtime]
        recipes = kernel.metadata.get("host_descriptors")
        if recipes:
            runtime_args += host_values.descriptors(recipes, bound)
        return launcher.active().launch(kernel, grid, runtime_args)

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


_TORCH_DTYPES = {
    "torch.bool": "i1", "torch.int8": "i8", "torch.int16": "i16",
    "torch.int32": "i32", "torch.int64": "i64", "torch.uint8": "u8",
    "torch.uint16": "u16", "torch.uint32": "u32", "torch.uint64": "u64",
    "torch.float16": "fp16", "torch.bfloat16": "bf16", "torch.float32": "fp32",
    "torch.float64": "fp64", "torch.float8_e4m3fn": "fp8e4nv",
    "torch.float8_e5m2": "fp8e5"}
# __cuda_array_interface__ typestrs (numpy's), little-endian.
_ARRAY_TYPESTRS = {"|b1": "i1", "|i1": "i8", "<i2": "i16", "<i4": "i32",
                   "<i8": "i64", "|u1": "u8", "<u2": "u16", "<u4": "u32",
                   "<u8": "u64", "<f2": "fp16", "<f4": "fp32", "<f8": "fp64"}


_SIG_LETTERS = {"*": "p", "i32": "i", "i64": "l", "u64": "l", "fp32": "f",
                "i1": "b", "tensordesc": "d"}


def _check_options(num_warps, num_stages, fp_fusion):
    """The launch options, checked before anything is compiled."""
    if (not isinstance(num_warps, int) or isinstance(num_warps, bool) or
            num_warps <= 0 or num_warps & (num_warps - 1)):
        raise ValueError("num_warps must be a power of two, got %r" % (num_warps,))
    if not isinstance(num_stages, int) or isinstance(num_stages, bool) or num_stages < 1:
        raise ValueError("num_stages must be a positive integer, got %r" % (num_stages,))
    if not isinstance(fp_fusion, bool):
        raise TypeError("enable_fp_fusion must be True or False, got %r" % (fp_fusion,))


def compile_to_gpu(fn, params, ir, num_warps, num_stages, target,
                   emit_cubin=True, fp_fusion=True):
    """Tile IR to TileGPU, LLVM IR, PTX and a cubin, in libtile."""
    _check_options(num_warps, num_stages, fp_fusion)
    options = _C.CompileOptions()
    options.num_warps = num_warps
    options.num_stages = num_stages
    options.target = target
    options.enable_fp_fusion = fp_fusion
    options.emit_cubin = emit_cubin
    result = _C.compile_kernel(ir, "<tile-ir:%s>" % fn.__name__, options)
    if not result.ok:
        error = _map_diagnostics(result.diagnostics)
        error.ir = ir
        raise error
    asm = {"tile": ir, "tilegpu": result.tilegpu, "llir": result.llir,
           "ptx": result.ptx, "cubin": result.cubin}
    for stage in ("tilegpu", "llir", "ptx"):
        _dump_ir(fn, params, stage, asm[stage])
    # num_warps is what the kernel launches with: a warp-specialised loop
    # adds its producer warps to the ones asked for.
    metadata = {"name": result.name, "num_warps": result.num_warps,
                "num_stages": num_stages, "target": target,
                "enable_fp_fusion": fp_fusion,
                "shared": result.shared,
                "num_regs": result.num_regs, "maxnreg": result.maxnreg,
                "host_descriptors": getattr(ir, "host_descriptors", [])}
    return CompiledKernel(result.name, asm, metadata)


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


def _spec_key(name, value, is_constexpr, specialize=True):
    """What a launch specialises on, for one argument: (type, divisible by 16).

    Integers equal to 1 are compiled in as constants, like Triton does;
    parameters in `do_not_specialize` get neither that nor divisibility."""
    if is_constexpr:
        return ("constexpr", repr(value))
    if isinstance(value, TensorDescriptor):
        return (value.signature(name), False)
    if hasattr(value, "data_ptr"):
        if getattr(value, "is_cuda", True) is False:
            raise ValueError("argument '%s' is a tensor on %s; tile kernels take "
                             "CUDA tensors" % (name, getattr(value, "device", "the CPU")))
        sig = _TORCH_DTYPES.get(str(value.dtype))
        if sig is None:
            raise TypeError("argument '%s' has unsupported dtype %s" % (name, value.dtype))
        return ("*" + sig, specialize and value.data_ptr() % 16 == 0)
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        sig = _ARRAY_TYPESTRS.get(interface.get("typestr"))
        if sig is None:
            raise TypeError("argument '%s' has unsupported typestr %r" %
                            (name, interface.get("typestr")))
        return ("*" + sig, specialize and interface["data"][0] % 16 == 0)
    if isinstance(value, bool):
        return ("i1", False)
    if isinstance(value, int):
        if value == 1 and specialize:
            return ("one", True)
        if -2**31 <= value < 2**31:
            return ("i32", specialize and value % 16 == 0)
        if -2**63 <= value < 2**64:
            return ("i64" if value < 2**63 else "u64",
                    specialize and value % 16 == 0)
        raise ValueError("argument '%s' = %d does not fit in 64 bits" % (name, value))
    if isinstance(value, float):
        return ("fp32", False)
    if value is None:
        raise TypeError("argument '%s' is None; pass a tensor, a number or a "
                        "bool" % name)
    raise TypeError("argument '%s' has unsupported type %s; pass a tensor, an "
                    "object with data_ptr() or __cuda_array_interface__, a "
                    "number or a bool" % (name, type(value).__name__))


def jit(fn=None, *, do_not_specialize=(), noinline=False, debug=None):
    """Decorator: `@tile.jit` or `@tile.jit(do_not_specialize=[...])`."""
    if fn is None:
        return lambda f: JITFunction(f, do_not_specialize, noinline)
    return JITFunction(fn, do_not_specialize, noinline)


def _fix_columns(fn, node):
    """The parse is of dedented source; report columns of the original."""
    for n in ast.walk(node):
        if hasattr(n, "col_offset"):
            n.col_offset += fn.indent


class Module:
    """Collects the functions of one compile: the kernel and the
    specializations of the @jit functions it calls."""

    def __init__(self, builder):
        self.builder = builder
        self.emitted = {}   # specialization key -> (symbol, result types)

    def generate(self, fn, symbol, params, kernel, arg_attrs=None):
        """Emits `fn` as func.func @symbol. `params` maps each parameter to a
        tl.constexpr or to a type (which becomes a function argument)."""
        b = self.builder
        scope, arg_decls = {}, []
        arg_attrs = arg_attrs or {}
        for name, arg_node in zip(fn.arg_names, fn.def_node.args.args):
            value = params[name]
            if isinstance(value, tl.constexpr):
                scope[name] = value
                continue
            v = b.fresh(value)
            if kernel:
                v.host = ["arg", name]
            scope[name] = tl._wrap_param(v)
            attrs = arg_attrs.get(name)
            b.set_location(arg_node.lineno + fn.line_offset,
                           arg_node.col_offset + fn.indent)
            arg_decls.append("%s: %s%s %s" % (v.name, value.to_ir(),
                                              " {%s}" % attrs if attrs else "",
                                              b.loc()))
        gen = CodeGenerator(fn, b, scope, self)
        lines = []
        saved_in_kernel, b.in_kernel = b.in_kernel, kernel
        with b.function():
            with b.capture(lines):
                with tl.building(b):
                    gen.visit_block(fn.def_node.body)
                results = gen.returns or []
                values = []
                for r in results:
                    r = r.value if isinstance(r, tl.constexpr) else r
                    if not isinstance(r, tl.tensor):
                        try:
                            r = tl.tensor(sem.lift(b, r))
                        except sem.SemanticError as e:
                            raise gen.error(fn.def_node, "%s cannot return it: %s"
                                            % (fn.__name__, e)) from None
                    values.append(r)
                if kernel and values:
                    raise gen.error(fn.def_node, "a kernel cannot return values")
                b.set_location(fn.def_node.lineno + fn.line_offset, 0)
                b.emit("return%s" % ((" %s : %s" % (
                    ", ".join(v.handle.name for v in values),
                    ", ".join(v.type.to_ir() for v in values))) if values else ""))
            result_types = [v.type for v in values]
            b.set_location(fn.def_node.lineno + fn.line_offset, fn.indent)
            if kernel:
                # Descriptors made in the kernel arrive as trailing
                # parameters that the launcher encodes.
                arg_decls.extend("%s: %s %s" % (v.name, v.type.to_ir(), b.loc())
                                 for v, _ in b.host_descriptors)
            header = "func.func %s@%s(%s)%s%s {" % (
                "" if kernel else "private ", symbol, ", ".join(arg_decls),
                (" -> (%s)" % ", ".join(t.to_ir() for t in result_types))
                if result_types else "",
                " attributes {tile.kernel}" if kernel else "")
            b.emit(header, with_loc=False)
            b.emit_lines(lines)
            b.emit("}")
        b.in_kernel = saved_in_kernel
        return result_types

    def call(self, gen, node, fn, args, kwargs):
        """A call from kernel code to another @jit function."""
        bound = {}
        if len(args) > len(fn.arg_names):
            raise gen.error(node, "%s() takes %d arguments but %d were given" %
                            (fn.__name__, len(fn.arg_names), len(args)))
        for name, value in zip(fn.arg_names, args):
            bound[name] = value
        for name, value in kwargs.items():
            if name not in fn.arg_names:
                raise gen.error(node, "%s() got an unexpected argument '%s'" %
                                (fn.__name__, name))
            bound[name] = value
        for i, p in enumerate(fn.params):
            if p.name not in bound:
                if p.default is inspect.Parameter.empty:
                    raise gen.error(node, "%s() is missing the argument '%s'" %
                                    (fn.__name__, p.name))
                bound[p.name] = tl.constexpr(p.default)
        params, operands = {}, []
        b = self.builder
        for i, name in enumerate(fn.arg_names):
            value = bound[name]
            raw = value.value if isinstance(value, tl.constexpr) else value
            if i in fn.constexprs or not isinstance(raw, (tl.tensor, int, float, bool)):
                params[name] = tl.constexpr(raw)
            else:
                if not isinstance(raw, tl.tensor):
                    raw = tl.tensor(sem.lift(b, raw))
                params[name] = raw.type
                operands.append(raw.handle)
        key = (fn.cache_key, tuple((n, repr(params[n])) for n in fn.arg_names))
        if key not in self.emitted:
            symbol = "%s_%d" % (fn.__name__, len(self.emitted))
            self.emitted[key] = (symbol, None)
            saved = b.location
            types = self.generate(fn, symbol, params, kernel=False)
            b.location = saved
            self.emitted[key] = (symbol, types)
        symbol, types = self.emitted[key]
        if types is None:
            raise gen.error(node, "recursive @jit calls are not supported")
        b.set_location(node.lineno + gen.fn.line_offset, node.col_offset)
        call = "func.call @%s(%s) : (%s) -> (%s)" % (
            symbol, ", ".join(o.name for o in operands),
            ", ".join(o.type.to_ir() for o in operands),
            ", ".join(t.to_ir() for t in types))
        if not types:
            b.emit(call)
            return None
        decl, results = b.results(types)
        b.emit("%s = %s" % (decl, call))
        values = [tl.tensor(v) for v in results]
        return values[0] if len(values) == 1 else tuple(values)


class CompiledKernel:
    """The result of `tile.compile`: the kernel's IR at each stage in `asm`
    and its metadata."""

    def __init__(self, name, asm, metadata):
        self.name = name
        self.asm = asm
        self.metadata = metadata

    def __repr__(self):
        return "CompiledKernel(%s, stages=%s)" % (self.name, list(self.asm))


def _map_diagnostics(diagnostics):
    """An MLIR diagnostic located in the kernel's source, as a
    CompilationError with the source line and a caret."""
    for diag in diagnostics:
        if diag.file and diag.line:
            try:
                with open(diag.file) as f:
                    source = f.read().splitlines()[diag.line - 1]
            except (OSError, IndexError):
                source = None
            return CompilationError(diag.message, diag.file, diag.line,
                                    max(diag.column - 1, 0), source)
    message = "; ".join(d.message for d in diagnostics) or "invalid Tile IR"
    return CompilationError(message)


def _dump_ir(fn, params, stage, text):
    """TILE_DUMP_IR=<dir> writes each stage's IR, so that any compile can be
    replayed with tile-opt."""
    directory = os.environ.get("TILE_DUMP_IR")
    if not directory:
        return
    key = hashlib.sha256((fn.cache_key + repr(sorted(
        (k, repr(v)) for k, v in params.items()))).encode()).hexdigest()[:12]
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "%s.%s.%s.mlir" % (fn.__name__, key, stage))
    with open(path, "w") as f:
        f.write(text)


def lower_to_tile_ir(fn, params, arg_attrs=None):
    """The verified Tile IR of kernel `fn` specialised on `params`."""
    builder = IRBuilder(fn.filename)
    module = Module(builder)
    module.generate(fn, fn.__name__, params, kernel=True, arg_attrs=arg_attrs)
    text = builder.module_text()
    result = _C.parse_and_verify(text, "<tile-ir:%s>" % fn.__name__)
    _dump_ir(fn, params, "tile", result.ir if result.ok else text)
    if not result.ok:
        error = _map_diagnostics(result.diagnostics)
        error.ir = text
        raise error
    return TileIR(result.ir, [recipe for _, recipe in builder.host_descriptors])


class TileIR(str):
    """A kernel's Tile IR text, with the recipes of the descriptors it makes
    (`host_descriptors`, see tile.runtime.host_values)."""

    def __new__(cls, text, host_descriptors=()):
        self = super().__new__(cls, text)
        self.host_descriptors = list(host_descriptors)
        return self


def compile(fn, signature, constexprs=None, num_warps=4, num_stages=3,
            target="sm_90a", divisibility=None, enable_fp_fusion=True):
    """Compiles `fn` ahead of time, without a GPU.

    `signature` maps each non-constexpr parameter to a Triton signature string
    ('*fp32', 'i32', ...); `constexprs` gives the constexpr parameters' values;
    `divisibility` names parameters known to be multiples of 16 (pointers:
    16-byte aligned)."""
    if not isinstance(fn, JITFunction):
        raise TypeError("tile.compile expects a @tile.jit function, got %r" % (fn,))
    constexprs = dict(constexprs or {})
    signature = dict(signature)
    params, arg_attrs = {}, {}
    for i, name in enumerate(fn.arg_names):
        if name in constexprs:
            params[name] = tl.constexpr(constexprs.pop(name))
            continue
        if i in fn.constexprs:
            # A default in the kernel's signature serves as at launch.
            default = fn.params[i].default
            if default is not inspect.Parameter.empty:
                params[name] = tl.constexpr(default)
                continue
            raise TypeError("%s: constexpr parameter '%s' needs a value in "
                            "constexprs" % (fn.__name__, name))
        if name not in signature:
            raise TypeError("%s: parameter '%s' is missing from the signature" %
                            (fn.__name__, name))
        text = signature.pop(name)
        ty = d.parse_signature_type(text) if isinstance(text, str) else None
        if ty is None:
            raise ValueError("%s: parameter '%s' has an unknown signature type %r"
                             % (fn.__name__, name, text))
        params[name] = ty
    if signature or constexprs:
        unknown = sorted(set(signature) | set(constexprs))
        raise TypeError("%s has no parameter(s) %s" % (fn.__name__, ", ".join(unknown)))
    for name in divisibility or ():
        if name not in params or isinstance(params[name], tl.constexpr):
            raise TypeError("divisibility names '%s', which is not a runtime "
                            "parameter" % name)
        arg_attrs[name] = "tile.divisibility = 16 : i32"
    _check_options(num_warps, num_stages, enable_fp_fusion)
    ir = lower_to_tile_ir(fn, params, arg_attrs)
    return compile_to_gpu(fn, params, ir, num_warps, num_stages, target,
                          fp_fusion=enable_fp_fusion)
