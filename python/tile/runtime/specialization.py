"""What a launch specialises on, argument by argument (the rules are
libtile's, shared with the C++ dispatcher), the errors for arguments it
refuses, and the stand-in tensor `warmup` specialises a dtype as."""

from tile import _C
from tile.language import core as tl
from tile.language import dtypes as d


def is_torch_dtype(value):
    return (type(value).__name__ == "dtype" and
            type(value).__module__ == "torch")


class MockTensor:
    """What `warmup` specialises a torch dtype as: a 16-byte aligned tensor
    of that dtype."""

    def __init__(self, dtype, shape=None):
        self.dtype = dtype
        self.shape = list(shape or [1])

    @staticmethod
    def wrap_dtype(arg):
        return MockTensor(arg) if is_torch_dtype(arg) else arg

    def stride(self):
        strides = [1]
        for size in reversed(self.shape[1:]):
            strides.insert(0, strides[0] * size)
        return tuple(strides)

    @staticmethod
    def data_ptr():
        return 0


def spec_key(name, value, is_constexpr, specialize=True, alignment=True):
    """What a launch specialises on, for one argument: (type, divisible by 16).

    The rules are libtile's (_C.specialize_argument, the same code the C++
    dispatcher keys with): integers equal to 1 are compiled in as constants,
    like Triton does; parameters in `do_not_specialize` get neither that
    nor divisibility. This names the types and explains what is refused."""
    if is_constexpr:
        if getattr(value, "tile_jit_function", False):
            # A function passed as a constexpr: its source is what matters.
            return ("constexpr", "jit:" + value.cache_key)
        # A tl.constexpr item of a tuple keys as its value, which preload
        # can read back.
        return ("constexpr", repr(value.value if isinstance(value, tl.constexpr)
                                  else value))
    if value is None:
        return ("none", False)
    if isinstance(value, tuple):
        # A tuple argument specialises item by item; a tl.constexpr item is
        # compiled in. Its runtime items become kernel parameters of their
        # own (flatten_argument), and the kernel sees the tuple again.
        kind = "tuple" if not hasattr(value, "_fields") else \
            "namedtuple:%s.%s" % (type(value).__module__, type(value).__qualname__)
        # A @jit function item (a closure's `fn`) is compile-time too.
        return (kind, tuple(
            spec_key("%s[%d]" % (name, i), item,
                     isinstance(item, tl.constexpr) or
                     getattr(item, "tile_jit_function", False),
                     specialize, alignment)
            for i, item in enumerate(value)))
    spec = _C.specialize_argument(value, specialize)
    if spec is None:
        raise _unsupported_argument(name, value)
    kind, divisible = spec
    divisible = divisible and alignment
    if kind == "descriptor":
        return (value.signature(name), False)
    if kind == "pointer":
        return ("*" + _element_type_name(name, value), divisible)
    return (kind, divisible)


def _element_type_name(name, value):
    """The tile dtype name of a tensor-like argument's elements."""
    if hasattr(value, "data_ptr"):
        dtype = getattr(value, "dtype", None)
        sig = d.host_element_name(dtype)
        if sig is None:
            raise TypeError("argument '%s' has unsupported dtype %s" % (name, dtype))
        return sig
    typestr = value.__cuda_array_interface__.get("typestr")
    sig = d.ARRAY_TYPESTR_NAMES.get(typestr)
    if sig is None:
        raise TypeError("argument '%s' has unsupported typestr %r" % (name, typestr))
    return sig


class ArgumentOverflowError(OverflowError, ValueError):
    """An integer argument outside [-2**63, 2**64): an OverflowError, as
    Triton raises it, and a ValueError, as tile's other argument errors."""


def _unsupported_argument(name, value):
    """The error for an argument the specialisation rules refuse."""
    if isinstance(value, int):
        return ArgumentOverflowError("argument '%s' = %d does not fit in 64 bits"
                                     % (name, value))
    if hasattr(value, "data_ptr"):
        if getattr(value, "is_cuda", True) is False:
            return ValueError("argument '%s' is a tensor on %s; tile kernels "
                              "take CUDA tensors (or pinned host memory)"
                              % (name, getattr(value, "device", "the CPU")))
        return TypeError("argument '%s': data_ptr() must return an integer "
                         "address" % name)
    if hasattr(value, "__cuda_array_interface__"):
        return TypeError("argument '%s' has a malformed __cuda_array_interface__ "
                         "(it needs a dict with a 'data' tuple whose first item "
                         "is the address)" % name)
    return TypeError("argument '%s' has unsupported type %s; pass a tensor, an "
                     "object with data_ptr() or __cuda_array_interface__, a "
                     "number or a bool" % (name, type(value).__name__))


def is_tuple_spec(spec):
    return spec[0] == "tuple" or spec[0].startswith("namedtuple:")


# Specializations whose value is compiled into the kernel (no parameter).
COMPILED_IN = ("constexpr", "one", "none")


def flatten_argument(spec, value, out):
    """Appends the launch values of one argument of specialization `spec`:
    itself, or a tuple's runtime items in order."""
    if is_tuple_spec(spec):
        for item_spec, item in zip(spec[1], value):
            flatten_argument(item_spec, item, out)
    elif spec[0] not in COMPILED_IN:
        out.append(value)
