"""Where a compiled kernel goes to run.

The JIT hands every launch to the active launcher. The GPU runtime (libtile's
C++ launcher) registers itself here once it exists; until then the default
launcher refuses with a clear message. Tests and overhead measurements install
a stub with `use_launcher`.
"""

import contextlib

import operator
import sys

from tile import _C
from tile import knobs
from tile.compiler.compiler import CompiledKernel
from tile.runtime import host_values
from tile.runtime.specialization import flatten_argument


class NoGPULauncher:
    """Where no CUDA driver loads: compiling works, launching says why not."""

    def __init__(self, why=""):
        self.why = why

    def launch(self, kernel, grid, args):
        raise RuntimeError(
            "%s compiled, but it cannot be launched: the NVIDIA CUDA driver "
            "(libcuda.so.1) is not available on this machine (%s). Launching "
            "needs an NVIDIA GPU and its driver; TILE_INTERPRET=1 runs "
            "kernels on the CPU instead." % (kernel.name, self.why))


class CUDALauncher:
    """Launches through libtile's C++ runtime on the current torch stream.

    The C++ dispatcher recognises this launcher and launches without
    calling it; `launch` serves the Python path."""

    def launch(self, kernel, grid, args):
        fns = stream_functions()
        current = fns[0]() if fns else 0
        # The tensors' device (launch_bound checked they agree), as a torch
        # op runs where its tensors are; the current one without tensors.
        device = next((dev for dev in map(tensor_device, args)
                       if dev is not None), current)
        stream = fns[1](device) if fns else 0
        # Objects with only __cuda_array_interface__ travel as addresses.
        args = [a if hasattr(a, "data_ptr") or not hasattr(
                    a, "__cuda_array_interface__")
                else a.__cuda_array_interface__["data"][0] for a in args]
        # Tensor descriptors travel as their encoded CUtensorMap.
        args = [a.encode() if sig == "d" else a
                for a, sig in zip(args, kernel.signature)]
        _C.launch(load(kernel, device), grid[0], grid[1], grid[2], stream,
                  kernel.signature, args, device != current)


def load(kernel, device=0):
    """The kernel's cubin loaded on `device` (once per device), with
    knobs.runtime.kernel_load_start_hook / kernel_load_end_hook around it."""
    loaded = getattr(kernel, "loaded", None)
    if loaded is None:
        loaded = kernel.loaded = {}
    handle = loaded.get(device)
    if handle is None:
        runtime = knobs.runtime
        metadata = kernel.metadata
        if runtime.kernel_load_start_hook:
            runtime.kernel_load_start_hook(None, None, kernel.name, metadata,
                                           kernel.hash)
        handle = loaded[device] = _C.load_kernel(
            kernel.asm["cubin"], kernel.name, metadata["shared"],
            32 * metadata["num_warps"], device,
            ctas_per_program=metadata.get("num_ctas", 1),
            cooperative=metadata.get("launch_cooperative_grid", False),
            dependent_launch=metadata.get("launch_pdl", False),
            # PTX given as ir_override may declare parameters past the
            # ones a launch packs (Triton's scratch pointers): the launch
            # passes those as zeros, so their sizes are needed.
            probe_params=metadata.get("ptx_override", False))
        if runtime.kernel_load_end_hook:
            runtime.kernel_load_end_hook(handle.module, handle.function,
                                         kernel.name, metadata, kernel.hash)
    return handle


def tensor_device(value):
    """The CUDA device ordinal a tensor-like argument lives on; None for
    anything else (numbers, CPU tensors, objects that do not say)."""
    get_device = getattr(value, "get_device", None)
    if get_device is not None and hasattr(value, "data_ptr"):
        try:
            ordinal = get_device()
        except (RuntimeError, TypeError):
            return None
        return ordinal if isinstance(ordinal, int) and ordinal >= 0 else None
    device = getattr(value, "device", None)
    if getattr(device, "type", None) == "cuda" and \
            isinstance(getattr(device, "index", None), int):
        return device.index
    return None


def check_devices(kernel, bound):
    """Raises a ValueError naming two tensor arguments of one launch that
    live on different GPUs: a kernel runs on one device, and the other's
    memory would be read through a pointer that device cannot use."""
    first = None
    for i in kernel.runtime_params:
        name = kernel.arg_names[i]
        device = tensor_device(bound[name])
        if device is None:
            continue
        if first is None:
            first = (name, device)
        elif device != first[1]:
            raise ValueError(
                "%s: argument '%s' is on cuda:%d but argument '%s' is on "
                "cuda:%d; one launch's tensors must share a device"
                % (kernel.name, first[0], first[1], name, device))


_device_count = None


def device_count():
    """How many CUDA devices torch sees (0 without torch), asked once: the
    C++ dispatcher checks tensor devices only where there are several."""
    global _device_count
    if _device_count is None:
        try:
            import torch
            _device_count = torch.cuda.device_count()
        except (ImportError, AttributeError, RuntimeError):
            _device_count = 0
    return _device_count


def current_device():
    """torch's current device; 0 without torch or when torch has no CUDA."""
    fns = stream_functions()
    try:
        return fns[0]() if fns else 0
    except RuntimeError:
        return 0


_stream_functions = False


def stream_functions():
    """(current device, raw stream of a device) from torch, or None without
    torch: then kernels go to the default stream."""
    global _stream_functions
    if _stream_functions is False:
        try:
            import torch
            _stream_functions = (torch._C._cuda_getDevice,
                                 torch._C._cuda_getCurrentRawStream)
        except (ImportError, AttributeError):
            _stream_functions = None
    return _stream_functions


_active = None


def active():
    """The launcher in use: libtile's CUDA runtime where a driver loads,
    otherwise one that refuses with a clear message."""
    global _active
    if _active is None:
        ok, why = _C.driver_available()
        _active = CUDALauncher() if ok else NoGPULauncher(why)
    return _active


@contextlib.contextmanager
def use_launcher(launcher):
    global _active
    saved, _active = _active, launcher
    try:
        yield launcher
    finally:
        _active = saved


def init_handles(kernel):
    """CompiledKernel._init_handles: loads `kernel` on the current device
    and reads what the driver says of it."""
    handle = load(kernel, current_device())
    registers, local_bytes, max_threads = _C.kernel_attributes(handle)
    # Triton counts spills as local memory words per thread.
    kernel.n_regs, kernel.n_spills = registers, local_bytes // 4
    kernel.n_max_threads = max_threads
    kernel.module, kernel.function = handle.module, handle.function


def launch_compiled(kernel, grid, args):
    """`compiled[grid](*args)`: every argument of the kernel, constexprs too,
    as Triton 3.3+'s CompiledKernel takes them; or, as before Triton 3.3,
    the arguments of its non-constexpr parameters only (kernel libraries
    pick the form by `triton.__version__`, and tile's reads as older)."""
    if kernel.arg_names is None:
        raise RuntimeError("%s has no argument list to launch with" % kernel.name)
    names = kernel.arg_names
    if len(args) != len(names) and kernel.constexpr_params is not None:
        runtime = [n for i, n in enumerate(names)
                   if i not in kernel.constexpr_params]
        if len(args) == len(runtime):
            names = runtime
    if len(args) != len(names):
        raise TypeError("%s takes %d arguments (%s), got %d" % (
            kernel.name, len(kernel.arg_names), ", ".join(kernel.arg_names),
            len(args)))
    bound = dict(zip(names, args))
    launch_bound(kernel, grid_dims(grid(bound) if callable(grid) else grid),
                 bound)


def launch_bound(kernel, dims, bound):
    """Launches `kernel` with its arguments bound by name: the runtime
    parameters, then the descriptors the kernel makes, encoded here."""
    tuples = getattr(kernel, "tuple_specs", None)
    if tuples:
        args = []
        for i in kernel.runtime_params:
            value = bound[kernel.arg_names[i]]
            if i in tuples:
                flatten_argument(tuples[i], value, args)
            else:
                args.append(value)
    else:
        args = [bound[kernel.arg_names[i]] for i in kernel.runtime_params]
    check_devices(kernel, bound)
    recipes = kernel.metadata.get("host_descriptors")
    if recipes:
        args += host_values.descriptors(recipes, bound)
    active().launch(kernel, dims, args)


def grid_dims(grid):
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


CompiledKernel.runtime = sys.modules[__name__]
