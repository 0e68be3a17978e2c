"""The shared part of running a Triton kernel library under tile or Triton
(liger_check.py, fla_check.py): the import alias, seeded inputs, forward and
backward with a fixed upstream gradient, comparison with a float64 reference
and with Triton's saved results, and event timing.

A checker imports this module before its library: with argv[1] == "tile",
the library's `import triton` gets tile through triton_alias (the port a
user makes by changing the imports), while torch's own compiler stack,
which such libraries pull in (`@torch.compiler.disable`), keeps the
installed Triton."""
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
# LIBRARY_CHECK_CPU=1 (tile only): the check without a GPU. CPU tensors run
# in tile's interpreter, every kernel launched (and every autotune config)
# is also compiled for sm_90a (compile_interpreted.py), checkers pick
# smaller shapes (`SMALL`), nothing is timed.
CPU = os.environ.get("LIBRARY_CHECK_CPU") == "1"
SMALL = CPU and not os.environ.get("LIBRARY_CHECK_FULL_SHAPES")
if CPU:
    if sys.argv[1] != "tile":
        sys.exit("LIBRARY_CHECK_CPU=1 runs the tile flavour only")
    os.environ["TILE_INTERPRET"] = "1"  # read when tile is imported
if sys.argv[1] == "tile":
    # torch's compiler stack binds the installed Triton at import time; a
    # library that decorates helpers with @torch.compile (fla) would
    # otherwise pull inductor in after the alias and hand it tile.
    import torch._dynamo  # noqa: F401
    import torch._dynamo.repro.after_dynamo  # noqa: F401
    import torch._inductor.compile_fx  # noqa: F401
    # Helpers a library wraps in @torch.compile run eagerly: inductor
    # imports `triton` lazily when it compiles, after the alias, and would
    # get tile where a ported library leaves torch its own Triton. (What is
    # checked is the library's Triton kernels, not inductor's.)
    torch._dynamo.config.disable = True
    for name in [n for n in sys.modules
                 if n == "triton" or n.startswith("triton.")]:
        del sys.modules[name]
    sys.path.insert(0, HERE)
    import triton_alias  # noqa: F401
    if CPU:
        import compile_interpreted
        compile_interpreted.install()
        # Libraries pick kernels by target at import (`is_hip()`) and size
        # them by the device's properties: answered as an H100's.
        _driver = sys.modules["tile.runtime.driver"]  # the module
        _driver.CudaDriver.get_current_target = \
            lambda self: _driver.GPUTarget("cuda", 90, 32)
        _driver.CudaUtils.get_device_properties = lambda self, device: {
            "max_shared_mem": 232448, "max_num_regs": 65536,
            "multiprocessor_count": 132, "warpSize": 32,
            "sm_clock_rate": 1980000, "mem_clock_rate": 2619000,
            "mem_bus_width": 5120}

import torch  # noqa: E402

# Appended, not prepended: bench/ holds a profile.py that would shadow the
# standard library's, which torch's compiler stack imports.
sys.path.append(os.path.join(HERE, "..", "..", "bench"))
import bench  # noqa: E402  (its event timing: warm-up, median)

DEV = "cpu" if CPU else "cuda"
if CPU:
    # Libraries pin their tensors' CUDA device around launches
    # (`with torch.cuda.device(x.device.index)`); with CPU tensors and no
    # driver that context fails, where it has nothing to do.
    # They also size grids from the device's properties: answered as an
    # H100's.
    import contextlib
    import types
    torch.cuda.device = lambda index=None: contextlib.nullcontext()
    torch.cuda.get_device_properties = lambda device=None: types.SimpleNamespace(
        name="NVIDIA H100 80GB HBM3 (LIBRARY_CHECK_CPU)", major=9, minor=0,
        multi_processor_count=132, total_memory=80 << 30,
        shared_memory_per_block_optin=232448, warp_size=32)
    torch.cuda.get_device_capability = lambda device=None: (9, 0)
    torch.cuda.current_device = lambda: 0


def package_without_init(name, env, default):
    """Puts the unpacked package `name` (its parent directory from the
    environment variable `env`, else `default` beside this file) on the
    path as a bare namespace: its __init__, which loads the compiled CUDA
    extensions a source distribution would build, never runs, while its
    pure-Python Triton modules import as usual."""
    import types
    root = os.environ.get(env, os.path.join(HERE, default))
    sys.path.insert(0, root)
    package = types.ModuleType(name)
    package.__path__ = [os.path.join(root, name)]
    sys.modules[name] = package


def gen(shape, dtype, seed, scale=1.0, shift=0.0, grad=True):
    g = torch.Generator(device=DEV).manual_seed(seed)
    t = (torch.randn(shape, generator=g, device=DEV, dtype=torch.float32)
         * scale + shift).to(dtype)
    return t.requires_grad_(grad)


def rel(a, b):
    a, b = a.double(), b.double()
    d = (b.norm() if b.norm() > 0 else 1.0)
    return ((a - b).norm() / d).item()


def as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def run_once(call, inputs, seed=99):
    """Forward and backward with a fixed upstream gradient; the outputs and
    the gradients of the inputs that require them."""
    leaves = [t.detach().clone().requires_grad_(t.requires_grad)
              for t in inputs]
    outs = as_tuple(call(*leaves))
    outs = [o for o in outs if torch.is_tensor(o)]
    grads = []
    for i, o in enumerate(outs):
        if o.requires_grad:
            grads.append(gen(o.shape, o.dtype, seed + i, grad=False))
    diff = [o for o in outs if o.requires_grad]
    if diff:
        torch.autograd.backward(diff, grads)
    return ([o.detach() for o in outs],
            [t.grad for t in leaves if t.requires_grad])


def time_ms(call, inputs, reps=30):
    leaves = [t.detach().clone().requires_grad_(t.requires_grad)
              for t in inputs]

    def step():
        outs = [o for o in as_tuple(call(*leaves)) if torch.is_tensor(o)
                and o.requires_grad]
        torch.autograd.backward(outs, [torch.ones_like(o) for o in outs])
        for t in leaves:
            t.grad = None
    return bench.gpu_time_ms(step, reps=reps)


def without_register_staging():
    """Makes tile compile without register-load staging (the schedule
    before session 38 for loops whose loads reach dots only through
    registers: the compiler's over-the-limit retry), for same-run A/B
    timings. Call before the first kernel compiles."""
    import tile.compiler.compiler as compiler
    real = compiler._C

    class WithoutRegisterStaging:
        """tile._C with CompileOptions that never stage register loads."""

        def __getattr__(self, name):
            return getattr(real, name)

        def CompileOptions(self):  # noqa: N802 (the extension's name)
            options = real.CompileOptions()
            options.stage_register_loads = False
            return options

    compiler._C = WithoutRegisterStaging()


def main(ops, env_ops="OPS"):
    """Runs each op of `ops()` (name -> (make inputs, call, reference or
    None)); argv: FLAVOR OUT.pt [TRITON_OUT.pt]."""
    flavor = sys.argv[1]
    out_path = sys.argv[2]
    # Triton's saved results, when its run got that far.
    ref = torch.load(sys.argv[3]) if len(sys.argv) > 3 and \
        os.path.exists(sys.argv[3]) else {}
    only = os.environ.get(env_ops, "").split()
    results = {}
    for name, (make, call, reference) in ops().items():
        if only and name not in only:
            continue
        try:
            inputs = make()
            t = time.time()
            outs, grads = run_once(call, inputs)
            if not CPU:
                torch.cuda.synchronize()
            first = time.time() - t
            bad = [n for n, v in enumerate(outs + grads)
                   if v is not None and torch.isnan(v).any()]
            line = "%-28s %-6s first %.2f s" % (name, flavor, first)
            if reference is not None:
                exact = [t.detach().double().requires_grad_(t.requires_grad)
                         if t.is_floating_point() else t for t in inputs]
                want_o, want_g = run_once(reference, exact)
                errs = [rel(a, b) for a, b in zip(outs + grads,
                                                  want_o + want_g)
                        if a is not None and b is not None]
                line += "  vs float64: max rel err %.2e" % max(errs)
            if name in ref:
                r_o, r_g = ref[name]
                errs = [rel(a.to(DEV), b.to(DEV))
                        for a, b in zip(outs + grads, r_o + r_g)
                        if a is not None and b is not None]
                line += "  vs triton: max rel err %.2e" % max(errs)
            if bad:
                line += "  NaN in results %s" % bad
            ms = None if CPU else time_ms(call, inputs)
            if ms is not None:
                line += "  fwd+bwd %.4f ms" % ms
            print(line, flush=True)
            results[name] = ([o.cpu() for o in outs],
                             [g.cpu() if g is not None else None
                              for g in grads])
            results[name + ":ms"] = ms
            # Saved as it goes: a run cut short keeps what finished.
            torch.save(results, out_path)
        except Exception as e:  # noqa: BLE001
            msg = "".join(traceback.format_exception_only(type(e), e))
            print("%-28s %-6s FAILED: %s" % (name, flavor, msg[-1500:]),
                  flush=True)
    torch.save(results, out_path)
    if CPU:
        compile_interpreted.report()
