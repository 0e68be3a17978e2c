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


_active = NoGPULauncher()


def active():
    return _active


@contextlib.contextmanager
def use_launcher(launcher):
    global _active
    saved, _active = _active, launcher
    try:
        yield launcher
    finally:
        _active = saved
