"""Compiles, for sm_90a and without a GPU, every kernel a program launches
while it runs in tile's interpreter (TILE_INTERPRET=1) on CPU tensors:
each specialization the interpreter meets, and each of an autotuned
kernel's other configs. A kernel library's test (fla_check.py's ops, say)
then shows on this machine both what its kernels compute (the
interpreter, against the library's reference) and whether they compile
(tile's whole pipeline to a cubin), before any device time is spent.

    import compile_interpreted
    compile_interpreted.install()
    ... run the library on CPU tensors ...
    compile_interpreted.report()      # one line per failure

Only the compile is checked: the interpreter has no layouts, so what the
compiled code computes is the GPU run's to show."""

import json
import os
import threading
import traceback

from tile.runtime import autotuner as _autotuner
from tile.runtime import jit as _jit
from tile.runtime.errors import OutOfResources
from tile.runtime.specialization import MockTensor

TARGET = "sm_90a"
RESULTS = {}  # (kernel name, specialization key) -> None or the error
# An autotune config that does not fit the SM is pruned by the autotuner,
# on the GPU as here: counted, not failed.
OUT_OF_RESOURCES = {}
# The same, for resources_vs_triton.py; with COMPILE_INTERPRETED_RECORD_ALL
# also every specialisation the interpreter ran (=configs: and every other
# autotune config compiled), with tile's shared memory and registers.
RECORDS = []
_state = threading.local()


def _mock(value):
    # A CPU tensor specialises as a 16-byte aligned one of its dtype.
    # (Parameters and other tensor subclasses too.)
    if not isinstance(value, MockTensor) and hasattr(value, "data_ptr") \
            and hasattr(value, "dtype") and hasattr(value, "shape"):
        return MockTensor(value.dtype, value.shape)
    return value


def _compile(fn, args, kwargs):
    args = [_mock(a) for a in args]
    kwargs = {k: _mock(v) for k, v in kwargs.items()}
    kwargs["target"] = TARGET
    key, bound, options = fn._specialization(args, kwargs)
    name = "%s.%s" % (fn.module, fn.__name__)
    if (name, key) in RESULTS or (name, key) in OUT_OF_RESOURCES:
        return
    try:
        kernel = fn._compile_for(key, bound, options)
        RESULTS[(name, key)] = None
        every = os.environ.get("COMPILE_INTERPRETED_RECORD_ALL")
        if every == "configs" or (every and
                                  not getattr(_state, "compile_only", False)):
            record = _record(fn, key, bound, options, None)
            record["tile_shared"] = kernel.metadata["shared"]
            record["tile_regs"] = kernel.metadata["num_regs"]
            RECORDS.append(record)
    except Exception as error:  # noqa: BLE001 (reported, not raised)
        if isinstance(error, OutOfResources) and \
                getattr(_state, "autotuned", False):
            OUT_OF_RESOURCES[(name, key)] = "%s %s: %s" % (
                name, _options_text(bound, options), error)
            RECORDS.append(_record(fn, key, bound, options, error))
            return
        text = "".join(traceback.format_exception_only(type(error), error))
        RESULTS[(name, key)] = text.strip()


def _record(fn, key, bound, options, error):
    """What resources_vs_triton.py needs to compile the same
    specialisation with Triton: Triton's signature and constants."""
    signature, constants = {}, {}
    for name, spec in zip(fn.arg_names, key[0]):
        if spec[0] in ("constexpr", "none", "one"):
            value = {"none": None, "one": 1}.get(spec[0], bound.get(name))
            signature[name] = "constexpr"
            # dtypes travel by name (tl.float16 -> "tl:float16").
            constants[name] = ("tl:%s" % value.name
                               if hasattr(value, "primitive_bitwidth")
                               else value)
        else:
            signature[name] = spec[0]
    return {"module": fn.module, "name": fn.__name__,
            "signature": signature, "constants": constants,
            "num_warps": options.num_warps,
            "num_stages": options.num_stages,
            "tile_shared": getattr(error, "required", None)}


def _options_text(bound, options):
    constants = {k: v for k, v in bound.items()
                 if isinstance(v, (int, float, bool)) and k.isupper()}
    return "%s num_warps=%d num_stages=%d" % (
        constants, options.num_warps, options.num_stages)


def install():
    interpret = _jit.JITFunction._interpret
    run = _autotuner.Autotuner.run

    def interpret_and_compile(self, grid, args, kwargs):
        _compile(self, args, kwargs)
        if not getattr(_state, "compile_only", False):
            return interpret(self, grid, args, kwargs)

    def run_every_config(self, *args, **kwargs):
        # The interpreter runs an autotuned kernel's first config; the
        # others go down the same path (heuristics included) compile-only.
        if not (self.base_fn.interpreted and len(self.configs) > 1):
            return run(self, *args, **kwargs)
        self.nargs = dict(zip(self.arg_names, args))
        try:
            others = self.prune_configs(_autotuner._meta(kwargs))[1:]
        finally:
            self.nargs = None
        _state.autotuned = True
        try:
            _state.compile_only = True
            try:
                for config in others:
                    _autotuner._launch(self.fn, args,
                                       {**kwargs, **config.all_kwargs()})
            finally:
                _state.compile_only = False
            return run(self, *args, **kwargs)
        finally:
            _state.autotuned = False

    _jit.JITFunction._interpret = interpret_and_compile
    _autotuner.Autotuner.run = run_every_config


def report():
    """Prints the failures and a count; returns the number of failures."""
    failed = [(name, error) for (name, _), error in RESULTS.items() if error]
    for name, error in failed:
        print("compile FAILED %s: %s" % (name, error[-1500:]))
    if os.environ.get("COMPILE_INTERPRETED_VERBOSE"):
        for text in OUT_OF_RESOURCES.values():
            print("over the SM's resources:", text)
    if os.environ.get("COMPILE_INTERPRETED_RECORD"):
        with open(os.environ["COMPILE_INTERPRETED_RECORD"], "w") as f:
            json.dump(RECORDS, f, indent=1, default=repr)
    kernels = {name for name, _ in RESULTS}
    print("compiled for %s: %d specializations of %d kernels, %d failed; "
          "%d autotune configs over the SM's resources (pruned)"
          % (TARGET, len(RESULTS), len(kernels), len(failed),
             len(OUT_OF_RESOURCES)))
    return len(failed)
