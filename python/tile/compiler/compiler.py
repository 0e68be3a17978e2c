"""The compiler driver: a @jit function specialised on its parameters to
Tile IR (Module, lower_to_tile_ir), then through libtile to TileGPU IR,
LLVM IR, PTX and a cubin (compile_to_gpu), and the ahead-of-time
`tile.compile`. Diagnostics come back located in the kernel's source."""

import hashlib
import inspect
import os
import warnings

from tile import _C, knobs
from tile.compiler.code_generator import CodeGenerator, is_jit_function
from tile.compiler.errors import (CompilationError, LaunchOptionError,
                                  OutOfResources)
from tile.compiler.ir_override import (assemble_ptx_override, check_ir_override,
                                       read_ir_override)
from tile.compiler.values import Structure, is_aggregate
from tile.language import core as tl
from tile.language import dtypes as d
from tile.language import semantic as sem
from tile.language.ir_builder import IRBuilder


def check_options(num_warps, num_stages, fp_fusion, target="sm_90a"):
    """The launch options, checked before anything is compiled."""
    if target not in _C.SUPPORTED_TARGETS:
        raise ValueError("target must be one of %s, got %r"
                         % (", ".join(_C.SUPPORTED_TARGETS), target))
    if (isinstance(num_warps, int) and not isinstance(num_warps, bool) and
            num_warps > _C.MAX_NUM_WARPS and not num_warps & (num_warps - 1)):
        raise OutOfResources(num_warps * 32, _C.MAX_NUM_WARPS * 32, "threads")
    if (not isinstance(num_warps, int) or isinstance(num_warps, bool) or
            num_warps <= 0 or num_warps & (num_warps - 1) or
            num_warps > _C.MAX_NUM_WARPS):
        raise LaunchOptionError("num_warps must be a power of 2 in [1, %d], "
                                "got %r" % (_C.MAX_NUM_WARPS, num_warps))
    if (not isinstance(num_stages, int) or isinstance(num_stages, bool) or
            not 1 <= num_stages <= _C.MAX_NUM_STAGES):
        raise ValueError("num_stages must be an integer in [1, %d], got %r"
                         % (_C.MAX_NUM_STAGES, num_stages))
    if not isinstance(fp_fusion, bool):
        raise TypeError("enable_fp_fusion must be True or False, got %r" % (fp_fusion,))


# ptxas's .maxnreg: below 16 it refuses the kernel, above 255 there are no
# registers to give.
MIN_MAXNREG, MAX_MAXNREG = 16, 255


def check_launch_options(num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                         enable_fp_fusion=True, launch_cooperative_grid=False,
                         launch_pdl=False, debug=False, target="sm_90a",
                         enable_reflect_ftz=True, ir_override=None):
    """Every launch option (Triton's names): ValueError (TypeError for a
    wrong type) naming the option and its allowed values."""
    check_options(num_warps, num_stages, enable_fp_fusion, target)
    check_ir_override(ir_override)
    if (not isinstance(num_ctas, int) or isinstance(num_ctas, bool) or
            num_ctas not in (1, 2, 4, 8)):
        raise ValueError("num_ctas must be 1, 2, 4 or 8 (CTAs in a cluster), "
                         "got %r" % (num_ctas,))
    if num_ctas > 1 and not target.startswith("sm_90"):
        raise ValueError("num_ctas=%d needs thread-block clusters: num_ctas "
                         "> 1 requires NVIDIA SM90+ (Hopper); the target is %s"
                         % (num_ctas, target))
    if maxnreg is not None and (
            not isinstance(maxnreg, int) or isinstance(maxnreg, bool) or
            not MIN_MAXNREG <= maxnreg <= MAX_MAXNREG):
        raise ValueError("maxnreg must be None or an integer in [%d, %d] "
                         "(registers per thread), got %r"
                         % (MIN_MAXNREG, MAX_MAXNREG, maxnreg))
    for name, value in (("launch_cooperative_grid", launch_cooperative_grid),
                        ("launch_pdl", launch_pdl), ("debug", debug),
                        ("enable_reflect_ftz", enable_reflect_ftz)):
        if not isinstance(value, bool):
            raise TypeError("%s must be True or False, got %r" % (name, value))


def compile_to_gpu(fn, params, ir, num_warps, num_stages, target,
                   emit_cubin=True, fp_fusion=True, num_ctas=1, maxnreg=0,
                   reflect_ftz=True, ir_override=None):
    """Tile IR to TileGPU, LLVM IR, PTX and a cubin, in libtile. With
    `ir_override` (a .tile or .ptx file), that file's text takes the place
    of the stage: the Tile IR is compiled from it, or the PTX assembled as
    it is (the earlier stages still give the launch's shared memory and
    warps)."""
    check_options(num_warps, num_stages, fp_fusion, target)
    override = read_ir_override(ir_override)
    if override is not None and override[0] == "tile":
        ir = TileIR(override[1], getattr(ir, "host_descriptors", ()))
    options = _C.CompileOptions()
    options.num_ctas = num_ctas
    options.maxnreg = maxnreg
    options.num_warps = num_warps
    options.num_stages = num_stages
    options.target = target
    options.enable_fp_fusion = fp_fusion
    options.enable_reflect_ftz = reflect_ftz
    options.emit_cubin = emit_cubin
    result = _C.compile_kernel(ir, "<tile-ir:%s>" % fn.__name__, options)
    if not result.ok and result.shared > _C.MAX_SHARED_BYTES and \
            result.staged_register_loads:
        # Too big with the tiles a loop uses in registers copied ahead too
        # (a 128x128 scale read elementwise, packed weights): staging only
        # the dots' operands is what Triton's pipeliner does with them, and
        # often fits (mamba's chunk-scan backward: 265216 -> under the
        # limit). Tried only here, so a kernel that fits is never changed,
        # and only when it would change something (autotuning compiles
        # many configs that cannot fit).
        options.stage_register_loads = False
        retry = _C.compile_kernel(ir, "<tile-ir:%s>" % fn.__name__, options)
        if retry.ok:
            result = retry
    if not result.ok and result.shared > _C.MAX_SHARED_BYTES:
        raise OutOfResources(result.shared, _C.MAX_SHARED_BYTES,
                             "shared memory")
    if not result.ok:
        error = _map_diagnostics(result.diagnostics)
        error.ir = ir
        raise error
    asm = {"tile": ir, "tilegpu": result.tilegpu, "llir": result.llir,
           "ptx": result.ptx, "cubin": result.cubin}
    name, num_regs = result.name, result.num_regs
    if override is not None and override[0] == "ptx":
        name, num_regs = assemble_ptx_override(
            asm, ir_override, override[1], target, result.num_warps,
            result.shared, emit_cubin)
    for stage in ("tilegpu", "llir", "ptx"):
        _dump_ir(fn, params, stage, asm[stage])
    # num_warps is what the kernel launches with: a warp-specialised loop
    # adds its producer warps to the ones asked for.
    metadata = {"name": name, "num_warps": result.num_warps,
                "register_loads_staged": options.stage_register_loads,
                "ptx_override": override is not None and override[0] == "ptx",
                "num_stages": num_stages, "target": target,
                "enable_fp_fusion": fp_fusion,
                "enable_reflect_ftz": reflect_ftz,
                "shared": result.shared,
                "num_regs": num_regs,
                "maxnreg": maxnreg or result.maxnreg, "num_ctas": num_ctas,
                # ptxas ran the wgmmas one at a time (its advisories
                # C7510-C7515); not known for an ir_override's PTX.
                "wgmma_serialized": (result.wgmma_serialized and not (
                    override is not None and override[0] == "ptx")),
                # Bytes ptxas spilled to local memory (the cubin kept).
                "spill_store_bytes": result.spill_store_bytes,
                "host_descriptors": getattr(ir, "host_descriptors", [])}
    return CompiledKernel(name, asm, metadata)


# How deeply @jit calls may nest while one compile emits them: far more than
# kernels need, and far less than Python's own recursion limit, which a
# constexpr recursion without a base case would otherwise hit.
MAX_CALL_DEPTH = 64


class Module:
    """Collects the functions of one compile: the kernel and the
    specializations of the @jit functions it calls."""

    def __init__(self, builder):
        self.builder = builder
        self.emitted = {}   # specialization key -> (symbol, result types)
        self.depth = 0      # @jit calls being emitted, one inside the other

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
            b.set_location(arg_node.lineno + fn.line_offset,
                           arg_node.col_offset + fn.indent)
            if isinstance(value, Structure):
                # A tuple or other aggregate: one argument per runtime part.
                leaves = [b.fresh(t) for t in value.types]
                attrs = arg_attrs.get(name) or [None] * len(leaves)
                for v, part, attr in zip(leaves, value.leaves, attrs):
                    if kernel:
                        v.host = part.handle.host
                    arg_decls.append("%s: %s%s %s" % (
                        v.name, v.type.to_ir(), " {%s}" % attr if attr else "",
                        b.loc()))
                scope[name] = value.build(leaves)
                continue
            if isinstance(value, d.pointer_type) and _annotation(fn, name) is tl.const:
                value = d.pointer_type(value.element_ty, value.address_space,
                                       const=True)
            v = b.fresh(value)
            if kernel:
                v.host = ["arg", name]
            scope[name] = tl._wrap_param(v)
            attrs = arg_attrs.get(name)
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
                lifted = []
                for r in results:
                    r = r.value if isinstance(r, tl.constexpr) else r
                    if not isinstance(r, tl.tensor) and not is_aggregate(r):
                        # A returned number becomes a value, as in Triton.
                        try:
                            r = tl.tensor(sem.lift(b, r))
                        except sem.SemanticError as e:
                            raise gen.error(fn.def_node, "%s cannot return it: %s"
                                            % (fn.__name__, e)) from None
                    lifted.append(r)
                if kernel and lifted:
                    raise gen.error(fn.def_node, "a kernel cannot return values")
                returned = Structure(lifted[0] if len(lifted) == 1 else
                                     tuple(lifted) if lifted else None)
                values = returned.leaves
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
            attributes = " attributes {tile.kernel}" if kernel else \
                " attributes {no_inline}" if self._stays_a_call(
                    fn, params, result_types) else ""
            header = "func.func %s@%s(%s)%s%s {" % (
                "" if kernel else "private ", symbol, ", ".join(arg_decls),
                (" -> (%s)" % ", ".join(t.to_ir() for t in result_types))
                if result_types else "", attributes)
            b.emit(header, with_loc=False)
            b.emit_lines(lines)
            b.emit("}")
        b.in_kernel = saved_in_kernel
        return returned

    @staticmethod
    def _stays_a_call(fn, params, result_types):
        """Whether a `noinline` @jit function is emitted as a device function
        that its callers call (`no_inline`, through to the PTX's `.func`):
        when it takes and returns numbers, pointers and tensors (each
        thread's registers of a tensor pass as parameters, in the layout the
        function's arguments get). Descriptors and tuples do not cross a
        call in tile: such a function is inlined, with a warning."""
        if not getattr(fn, "noinline", False):
            return False
        types = [v for v in params.values()
                 if not isinstance(v, tl.constexpr)] + list(result_types)
        callable_ = all(isinstance(t, d.dtype) and
                        not isinstance(t, d.tensor_descriptor_type)
                        for t in types)
        if not callable_:
            # Reported at the function's own line, as compile errors are.
            warnings.warn_explicit(
                "%s is noinline, but tile inlines it: it takes or returns "
                "tensor descriptors or tuples, which tile passes between "
                "device functions only by inlining" % fn.__name__,
                UserWarning, fn.filename,
                fn.def_node.lineno + fn.line_offset)
        return callable_

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
            structure = Structure(raw) if is_aggregate(raw) else None
            if structure is not None and structure.leaves:
                if i in fn.constexprs:
                    raise gen.error(node, "%s(): argument '%s' is a tl.constexpr "
                                    "but holds runtime values" % (fn.__name__, name))
                # An aggregate passes its runtime parts; its compile-time
                # parts are part of the specialization.
                params[name] = structure
                operands.extend(leaf.handle for leaf in structure.leaves)
            elif i in fn.constexprs or not isinstance(raw, tl.tensor):
                # As in Triton, a compile-time argument (a literal, a
                # constexpr) is compile-time in the callee too, annotated or
                # not: `if flag:` there folds, and the call specialises on it.
                params[name] = tl.constexpr(raw)
            else:
                params[name] = raw.type
                operands.append(raw.handle)
        key = (fn.cache_key, tuple((n, params[n].key() if isinstance(
            params[n], Structure) else repr(params[n])) for n in fn.arg_names))
        if key not in self.emitted:
            if self.depth >= MAX_CALL_DEPTH:
                raise gen.error(node, "@jit calls nested more than %d deep "
                                "(constexpr recursion with no base case?)"
                                % MAX_CALL_DEPTH)
            symbol = "%s_%d" % (fn.__name__, len(self.emitted))
            self.emitted[key] = (symbol, None)
            saved = b.location
            self.depth += 1
            try:
                returned = self.generate(fn, symbol, params, kernel=False)
            finally:
                self.depth -= 1
            b.location = saved
            self.emitted[key] = (symbol, returned)
        symbol, returned = self.emitted[key]
        if returned is None:
            raise gen.error(node, "recursive @jit calls are not supported")
        types = returned.types
        b.set_location(node.lineno + gen.fn.line_offset, node.col_offset)
        call = "func.call @%s(%s) : (%s) -> (%s)" % (
            symbol, ", ".join(o.name for o in operands),
            ", ".join(o.type.to_ir() for o in operands),
            ", ".join(t.to_ir() for t in types))
        if not types:
            b.emit(call)
            return returned.build([])
        decl, results = b.results(types)
        b.emit("%s = %s" % (decl, call))
        return returned.build(results)


class KernelMetadata(dict):
    """A compiled kernel's metadata: a dict that also reads as attributes
    (`kernel.metadata.shared`), as Triton's does."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class KernelAsm(dict):
    """Each stage's text (`tile`, `tilegpu`, `llir`, `ptx`) and the
    `cubin`. Triton's stage names read tile's analogues: `ttir` the Tile IR
    and `ttgir` the TileGPU IR (layouts assigned)."""

    ALIASES = {"ttir": "tile", "ttgir": "tilegpu"}

    def __missing__(self, key):
        if key in self.ALIASES and self.ALIASES[key] in self:
            return self[self.ALIASES[key]]
        raise KeyError(key)

    def __contains__(self, key):
        return dict.__contains__(self, self.ALIASES.get(key, key))


class CompiledKernel:
    """A compiled kernel, as `tile.compile` and `JITFunction.warmup`
    return it: `asm` (every stage), `metadata`, and after `_init_handles()`
    (which loads it on the current device) `n_regs`, `n_spills`,
    `n_max_threads`, `module` and `function` as the driver reports them.
    `kernel[grid](*args)` launches it with the kernel's arguments."""

    def __init__(self, name, asm, metadata):
        self.name = name
        self.asm = KernelAsm(asm)
        self.metadata = KernelMetadata(metadata)
        self.hash = None
        self.arg_names = None       # every parameter, in order
        self.runtime_params = None  # the indices of those passed at launch
        self.constexpr_params = None  # those of its tl.constexpr parameters
        # (globals dict, name, value) of the global values compiled in.
        self.used_globals = []
        self.n_regs = self.n_spills = self.n_max_threads = None
        self.module = self.function = None

    # What loads and launches: tile.runtime.launcher registers itself here
    # when it is imported (the compiler sits below the runtime).
    runtime = None

    def _init_handles(self):
        if self.function is None:
            self._require_runtime().init_handles(self)

    def __getitem__(self, grid):
        runtime = self._require_runtime()
        return lambda *args: runtime.launch_compiled(self, grid, args)

    def _require_runtime(self):
        if CompiledKernel.runtime is None:
            raise RuntimeError("import tile.runtime to load or launch %s"
                               % self.name)
        return CompiledKernel.runtime

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


def _annotation(fn, name):
    """The annotation of `fn`'s parameter `name` (None without one), read
    as the kernel's module would: `tl.const` names tile.language's."""
    for param in fn.params:
        if param.name == name:
            annotation = param.annotation
            if annotation in ("tl.const", "triton.language.const"):
                return tl.const
            return None if annotation is param.empty else annotation
    return None


def lower_to_tile_ir(fn, params, arg_attrs=None, debug=False, target=None,
                     num_warps=None, name=None):
    """The verified Tile IR of kernel `fn` specialised on `params`; without
    `debug`, tl.device_assert compiles to nothing (as in Triton). `target`
    (e.g. "sm_90a") lets the front end choose target-specific forms, such
    as TMA copies for block pointers on sm_90 and later; `num_warps` is
    what tl.extra.cuda.num_warps() reads; `name` is the kernel's symbol
    (its function name unless `jit(repr=...)` gives one)."""
    builder = IRBuilder(fn.filename)
    builder.debug = debug
    builder.target = target
    builder.num_warps = num_warps
    # Pointer and integer parameters specialised as multiples of 16.
    builder.divisible_args = {name for name, attr in (arg_attrs or {}).items()
                              if isinstance(attr, str) and "divisibility" in attr}
    module = Module(builder)
    module.generate(fn, name or fn.__name__, params, kernel=True,
                    arg_attrs=arg_attrs)
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


class ASTSource:
    """Triton's description of what to compile: a @jit function, its
    signature (parameter -> type string, 'constexpr' for constexprs) and
    the constexpr values. `tile.compile(ASTSource(...), target=...,
    options={...})` compiles it."""

    def __init__(self, fn, signature, constexprs=None, attrs=None):
        self.fn = fn
        self.signature = dict(signature)
        self.constexprs = {(k if isinstance(k, str) else fn.arg_names[k[0]]):
                           v for k, v in (constexprs or {}).items()}
        self.attrs = attrs or {}


def _target_name(target):
    """'sm_90a' from a GPUTarget (backend, arch, warp_size) or a string."""
    if target is None:
        return "sm_90a"
    if isinstance(target, str):
        return target
    arch = getattr(target, "arch", target)
    return "sm_%d%s" % (arch, "a" if arch == 90 else "")


def compile(fn=None, signature=None, constexprs=None, num_warps=4,
            num_stages=3, target="sm_90a", divisibility=None,
            enable_fp_fusion=None, num_ctas=1, maxnreg=None, debug=False,
            src=None, options=None, enable_reflect_ftz=True,
            ir_override=None):
    """Compiles `fn` ahead of time, without a GPU.

    `signature` maps each non-constexpr parameter to a Triton signature string
    ('*fp32', 'i32', ...); `constexprs` gives the constexpr parameters' values;
    `divisibility` names parameters known to be multiples of 16 (pointers:
    16-byte aligned). Triton's form, `compile(ASTSource(...), target=,
    options={...})`, is accepted too."""
    if src is not None or isinstance(fn, ASTSource):
        src = src if src is not None else fn
        options = dict(options or {})
        signature = {k: v for k, v in src.signature.items()
                     if v != "constexpr"}
        return compile(src.fn, signature, src.constexprs,
                       target=_target_name(target), **options)
    target = _target_name(target)
    if enable_fp_fusion is None:
        enable_fp_fusion = knobs.language.default_fp_fusion
    if not is_jit_function(fn):
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
    check_launch_options(num_warps=num_warps, num_stages=num_stages,
                         num_ctas=num_ctas, maxnreg=maxnreg,
                         enable_fp_fusion=enable_fp_fusion, debug=debug,
                         target=target, enable_reflect_ftz=enable_reflect_ftz,
                         ir_override=ir_override)
    ir = lower_to_tile_ir(fn, params, arg_attrs, debug=debug, target=target,
                          num_warps=num_warps)
    kernel = compile_to_gpu(fn, params, ir, num_warps, num_stages, target,
                            fp_fusion=enable_fp_fusion, num_ctas=num_ctas,
                            maxnreg=maxnreg or 0,
                            reflect_ftz=enable_reflect_ftz,
                            ir_override=ir_override)
    kernel.arg_names = list(fn.arg_names)
    kernel.runtime_params = [i for i, name in enumerate(fn.arg_names)
                             if not isinstance(params[name], tl.constexpr)]
    kernel.constexpr_params = [i for i in range(len(fn.arg_names))
                               if i not in kernel.runtime_params]
    return kernel
