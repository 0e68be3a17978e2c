"""Host tensor descriptors: a tensor that a kernel reads and writes in blocks
through the TMA unit (sm_90). The same class as Triton's
``triton.tools.tensor_descriptor.TensorDescriptor``."""

import sys

from tile.language.dtypes import TORCH_DTYPE_NAMES
from tile.runtime.tensor_map import encode_tensor_map, supports, tma_element


# (dtype, block shape, ragged) -> the interned signature type: the few
# descriptor types a program uses, formatted once.
_SIGNATURE_TYPES = {}

# (address, dtype, shape, strides, block shape) -> launch form. The signature
# type and the encoded map are functions of exactly these fields, so a
# descriptor made afresh for every call over the same memory (attention's Q,
# K and V) reuses the first one's form: no checks again, and no call into
# libtile's encoding cache (which keeps the driver's encodings) with the
# lists and the bytes object that call builds.
_LAUNCH_FORMS = {}
_LAUNCH_FORMS_LIMIT = 4096


def _dtype_name(torch_dtype):
    return TORCH_DTYPE_NAMES.get(str(torch_dtype))


class TensorDescriptor:
    """`base` (a CUDA tensor) seen as a tensor of `shape` and `strides` (in
    elements, the last one 1), loaded and stored in blocks of
    `block_shape`. Out-of-bounds elements of a block read as zero and are
    not written."""

    def __init__(self, base, shape, strides, block_shape, padding="zero"):
        shape = [int(s) for s in shape]
        strides = [int(s) for s in strides]
        block_shape = [int(b) for b in block_shape]
        rank = len(shape)
        if not 1 <= rank <= 5:
            raise ValueError("TensorDescriptor: rank must be 1 to 5, got %d" % rank)
        if len(strides) != rank or len(block_shape) != rank:
            raise ValueError("TensorDescriptor: shape, strides and block_shape "
                             "must have the same length (%d, %d, %d)"
                             % (rank, len(strides), len(block_shape)))
        if strides[-1] != 1:
            raise ValueError("TensorDescriptor: the last dimension must be "
                             "contiguous (stride 1), got strides %s" % strides)
        for b in block_shape:
            if b <= 0 or b & (b - 1):
                raise ValueError("TensorDescriptor: block dimensions must be "
                                 "powers of two, got %s" % block_shape)
        if padding != "zero":
            raise ValueError("TensorDescriptor: only padding='zero' is "
                             "supported, got %r" % (padding,))
        # Past __setattr__, which would reset the launch form per field: a
        # descriptor made for every call (attention's Q, K and V) costs
        # host time on each launch.
        fields = object.__setattr__
        fields(self, "base", base)
        fields(self, "shape", shape)
        fields(self, "strides", strides)
        fields(self, "block_shape", block_shape)
        fields(self, "padding", padding)
        fields(self, "_form", None)

    @staticmethod
    def from_tensor(tensor, block_shape):
        stride = getattr(tensor, "stride", None)
        if callable(stride):
            strides = stride()
        elif hasattr(tensor, "strides") and hasattr(tensor, "itemsize"):
            # A numpy array (the interpreter's tensors): strides in bytes.
            strides = [s // tensor.itemsize for s in tensor.strides]
        else:
            raise TypeError("TensorDescriptor.from_tensor takes a tensor "
                            "(torch, or numpy for the interpreter), got %s"
                            % type(tensor).__name__)
        return TensorDescriptor(tensor, tensor.shape, strides, block_shape)

    @property
    def dtype(self):
        return self.base.dtype

    def signature(self, name):
        """The kernel signature type of this argument ('tensordesc<fp16[64,
        64]>'), after checking what TMA requires of it; errors name the
        argument `name`."""
        dtype = _dtype_name(self.base.dtype)
        if not supports(dtype):
            raise TypeError("argument '%s': TMA cannot copy %s elements"
                            % (name, self.base.dtype))
        if getattr(self.base, "is_cuda", True) is False:
            raise ValueError("argument '%s' is a descriptor of a tensor on %s; "
                             "tile kernels take CUDA tensors"
                             % (name, getattr(self.base, "device", "the CPU")))
        size = tma_element(dtype)[0]
        if self.base.data_ptr() % 16:
            raise ValueError("argument '%s': a descriptor's base address must be "
                             "16-byte aligned" % name)
        for s in self.strides[:-1]:
            if s * size % 16:
                raise ValueError("argument '%s': descriptor strides must be "
                                 "multiples of 16 bytes, got %s (elements of %d "
                                 "bytes)" % (name, self.strides, size))
        # Rows that are not a whole number of 16 bytes: loads are exact,
        # but a TMA store would write past them (the kernel refuses one).
        ragged = self.shape[-1] * size % 16 != 0
        key = (dtype, tuple(self.block_shape), ragged)
        text = _SIGNATURE_TYPES.get(key)
        if text is None:
            text = sys.intern("tensordesc<%s%s%s>" % (
                dtype, str(self.block_shape).replace(" ", ""),
                ",ragged" if ragged else ""))
            _SIGNATURE_TYPES[key] = text
        return text

    def encode(self):
        """The 128-byte CUtensorMap (bytes) the kernel receives."""
        return encode_tensor_map(_dtype_name(self.base.dtype),
                                 self.base.data_ptr(), self.shape, self.strides,
                                 self.block_shape)

    def __setattr__(self, name, value):
        # A changed field invalidates the cached launch form.
        object.__setattr__(self, name, value)
        if name != "_form":
            object.__setattr__(self, "_form", None)

    def _launch_form(self, name):
        """(signature type, encoded map): what the C++ dispatcher keys on and
        passes, computed once per descriptor and shared by descriptors of
        the same fields; errors name the argument."""
        form = self._form
        if form is None:
            base = self.base
            key = (base.data_ptr(), base.dtype, tuple(self.shape),
                   tuple(self.strides), tuple(self.block_shape))
            form = _LAUNCH_FORMS.get(key)
            if form is None:
                form = (self.signature(name), self.encode())
                if len(_LAUNCH_FORMS) >= _LAUNCH_FORMS_LIMIT:
                    _LAUNCH_FORMS.clear()
                _LAUNCH_FORMS[key] = form
            object.__setattr__(self, "_form", form)
        return form

    def __repr__(self):
        return "TensorDescriptor(shape=%s, strides=%s, block_shape=%s, dtype=%s)" % (
            self.shape, self.strides, self.block_shape, self.base.dtype)
