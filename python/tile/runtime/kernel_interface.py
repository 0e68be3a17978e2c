"""KernelInterface, the base of every launchable kernel object.

Triton defines it in triton.runtime.jit, where torch's compiler and
kernel libraries import it from; tile.runtime.jit re-exports it. Also
KernelParam, what `JITFunction.params` holds."""

import inspect


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


class KernelParam:
    """One parameter of a @jit function as Triton describes it: its
    position (`num`), whether it is compile-time (`is_constexpr`) and its
    specialisation flags, besides the inspect.Parameter's name, default and
    annotation. torch's `torch.library.wrap_triton` reads `num`, `name` and
    `is_constexpr` of `kernel.params`."""

    empty = inspect.Parameter.empty

    def __init__(self, num, param, is_constexpr, do_not_specialize,
                 do_not_specialize_on_alignment):
        self.num = num
        self._param = param
        self.is_constexpr = is_constexpr
        self.do_not_specialize = do_not_specialize
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment

    name = property(lambda self: self._param.name)
    default = property(lambda self: self._param.default)
    annotation = property(lambda self: self._param.annotation)
    kind = property(lambda self: self._param.kind)

    @property
    def has_default(self):
        return self._param.default is not inspect.Parameter.empty

    def __repr__(self):
        return "KernelParam(%d, %s%s)" % (
            self.num, self.name, ", constexpr" if self.is_constexpr else "")
