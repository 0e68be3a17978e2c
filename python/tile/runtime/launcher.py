"""Where a compiled kernel goes to run.

The JIT hands every launch to the active launcher. The GPU runtime (libtile's
C++ launcher) registers itself here once it exists; until then the default
launcher refuses with a clear message. Tests and overhead measurements install
a stub with `use_launcher`.
"""

import contextlib


class NoGPULauncher:
    def launch(self, kernel, grid, args):
        raise RuntimeError("%s compiled, but this build of tile has no GPU "
                           "runtime to launch it with yet" % kernel.name)


class CUDALauncher:
    """Launches through libtile's C++ runtime on the current torch stream."""

    def __init__(self):
        self._stream = None

    def _current_stream(self):
        if self._stream is None:
            try:
                import torch
                raw = torch._C._cuda_getCurrentRawStream
                current = torch.cuda.current_device
                self._stream = lambda: raw(current())
            except (ImportError, AttributeError):
                self._stream = lambda: 0
        return self._stream()

    def launch(self, kernel, grid, args):
        from tile import _C
        loaded = getattr(kernel, "loaded", None)
        if loaded is None:
            loaded = kernel.loaded = _C.load_kernel(
                kernel.asm["cubin"], kernel.name, kernel.metadata["shared"],
                32 * kernel.metadata["num_warps"])
        _C.launch(loaded, grid[0], grid[1], grid[2], self._current_stream(),
                  kernel.signature, args)


_active = None


def active():
    """The launcher in use: libtile's CUDA runtime where a driver loads,
    otherwise one that refuses with a clear message."""
    global _active
    if _active is None:
        from tile import _C
        ok, _ = _C.driver_available()
        _active = CUDALauncher() if ok else NoGPULauncher()
    return _active


@contextlib.contextmanager
def use_launcher(launcher):
    global _active
    saved, _active = _active, launcher
    try:
        yield launcher
    finally:
        _active = saved
