"""`tile.reinterpret(tensor, dtype)`: a tensor's memory passed to a kernel as
elements of another type of the same width.

torch tensors can already be viewed as any torch dtype; this exists for the
element types a host library lacks. numpy has no bfloat16 or fp8, so a bf16
weight held as uint16 bits reaches a kernel (compiled or interpreted) as
`tile.reinterpret(bits, tl.bfloat16)`; a torch uint8 buffer of fp8 values
reaches it as `tile.reinterpret(buf, tl.float8e4nv)` on a torch without fp8.
The kernel sees a pointer to the new type; the bytes are not touched.
"""

from tile.language import dtypes as d


class TensorWrapper:
    """What `reinterpret` returns: `base`'s memory, typed as `dtype`."""

    def __init__(self, base, dtype):
        self.base = base
        self.dtype = dtype

    # What a launch reads from a tensor-like argument.
    def data_ptr(self):
        if hasattr(self.base, "data_ptr"):
            return self.base.data_ptr()
        return int(self.base.__array_interface__["data"][0])

    @property
    def is_cuda(self):
        return bool(getattr(self.base, "is_cuda", False))

    @property
    def device(self):
        return getattr(self.base, "device", "cpu")

    @property
    def shape(self):
        return tuple(self.base.shape)

    def stride(self, dim=None):
        base = self.base
        if hasattr(base, "stride") and callable(base.stride):
            return base.stride() if dim is None else base.stride(dim)
        strides = tuple(s // base.itemsize for s in base.strides)
        return strides if dim is None else strides[dim]

    def numel(self):
        n = 1
        for extent in self.shape:
            n *= extent
        return n

    def element_size(self):
        return self.dtype.primitive_bitwidth // 8

    def __repr__(self):
        return "TensorWrapper[%s](%r)" % (self.dtype, self.base)


def _width_bits(value):
    """Bits per element of a torch tensor or numpy array."""
    if hasattr(value, "element_size"):
        return value.element_size() * 8
    if hasattr(value, "itemsize"):
        return int(value.itemsize) * 8
    raise TypeError("reinterpret takes a torch tensor, a numpy array or the "
                    "result of reinterpret, got %s" % type(value).__name__)


def reinterpret(tensor, dtype):
    """`tensor`'s memory as elements of `dtype` (a `tl` dtype, or a torch
    dtype, which gives `tensor.view(dtype)`). The widths must match: the
    kernel indexes the memory in elements of the new type."""
    if isinstance(tensor, TensorWrapper):
        base = tensor.base
        if str(dtype) == str(getattr(base, "dtype", None)):
            return base
        tensor = base
    if not isinstance(dtype, d.dtype):
        if str(dtype).startswith("torch.") and hasattr(tensor, "view"):
            return tensor.view(dtype)
        raise TypeError("reinterpret: dtype must be a tile.language dtype "
                        "(such as tl.bfloat16) or a torch dtype, got %r"
                        % (dtype,))
    if dtype.is_ptr() or dtype.is_block():
        raise TypeError("reinterpret: %s is not an element type" % (dtype,))
    width = _width_bits(tensor)
    if dtype.is_bool():
        wanted = 8  # a bool is stored as a byte
    else:
        wanted = dtype.primitive_bitwidth
    if width != wanted:
        raise ValueError("reinterpret: the tensor's elements are %d bits and "
                         "%s is %d; the widths must match"
                         % (width, dtype, wanted))
    return TensorWrapper(tensor, dtype)
