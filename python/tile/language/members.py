"""Triton's tensor member functions: `x.exp()`, `x.sort(descending=True)`,
`ptr.atomic_add(v)` and the rest are the `tl` function of the same name with
the tensor as its first argument.

One list serves the compiler's `tl.tensor` and the interpreter's Tensor: a
member calls the `tl` builtin, which dispatches to whichever is running.
Methods a class defines itself (`to`, `reshape`, `sum`, ...) stay."""

MEMBER_FUNCTIONS = (
    # math
    "abs", "exp", "exp2", "log", "log2", "cos", "sin", "sqrt", "sqrt_rn",
    "rsqrt", "floor", "ceil", "erf", "fma", "fdiv", "div_rn", "umulhi",
    "sigmoid", "softmax",
    # shapes
    "broadcast_to", "expand_dims", "permute", "trans", "reshape", "view",
    "ravel", "flip", "split", "cast",
    # reductions, scans, sorting, gathering
    "reduce", "associative_scan", "sum", "max", "min", "xor_sum",
    "reduce_or", "argmax", "argmin", "cumsum", "cumprod", "histogram",
    "sort", "topk", "gather",
    # atomics on pointer blocks
    "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or",
    "atomic_xor", "atomic_xchg", "atomic_cas",
)


# The `tl` namespace members resolve in: tile.language registers itself when
# it loads (members import nothing, so that both tensor classes and the code
# generator can use this module without an import cycle).
_namespace = None


def set_namespace(module):
    global _namespace
    _namespace = module


def lookup(name):
    """The `tl` function a member function `name` calls."""
    return getattr(_namespace, name)


def _member(name):
    def method(self, *args, **kwargs):
        return lookup(name)(self, *args, **kwargs)

    method.__name__ = name
    method.tile_member = name
    method.__doc__ = "`tl.%s(self, ...)`." % name
    return method


def attach(cls):
    """Gives `cls` every member function it does not define itself."""
    for name in MEMBER_FUNCTIONS:
        if not hasattr(cls, name):
            setattr(cls, name, _member(name))
