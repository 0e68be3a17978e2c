"""KernelInterface, the base of every launchable kernel object.

Triton defines it in triton.runtime.jit, where torch's compiler and
kernel libraries import it from; tile.runtime.jit re-exports it."""


class KernelInterface:
    """Launchable like a JITFunction: `f[grid](*args, **kwargs)` calls
    `f.run(*args, grid=grid, warmup=False, **kwargs)`. The base of every
    launchable kernel object, as in Triton (whose name for it torch's
    compiler and kernel libraries import from this module)."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False,
                                                **kwargs)

    def warmup(self, *args, grid=None, **kwargs):
        return self.run(*args, grid=grid, warmup=True, **kwargs)
