"""Tensor descriptors and the methods of interpreter Tensors (`x.to`,
`x[:, None]`, `x.sum()`, ...) in the interpreter."""

import numpy as np

from tile.language import dtypes as d
from tile.language import members
from tile.language import semantic as sem
from tile.language.descriptors import check_reduction
from tile.runtime.interpreter import numbers
from tile.runtime.interpreter import tensor as T
from tile.runtime.interpreter.builtins import (_pointer, _program,
                                               broadcast_to, builtin,
                                               expand_dims, reshape, trans)
from tile.runtime.interpreter.tensor import (SemanticError, Tensor, cast, lift,
                                             make, unwrap)

# ------------------------------------------------- tensor descriptors

class Descriptor:
    """A tensor descriptor in the interpreter: blocks at element offsets,
    reading zero and dropping writes outside the tensor, as TMA does."""

    def __init__(self, base, shape, strides, block_shape, made=False):
        self.base = base
        self.dims = [int(s) for s in shape]
        self.strides = [int(s) for s in strides]
        self.block_type = d.block_type(base.type.scalar.element_ty, block_shape)
        # Made in the kernel (tl.make_tensor_descriptor) rather than passed.
        self.made = made

    @property
    def dtype(self):
        return self.block_type.element_ty

    @property
    def block_shape(self):
        return [T.constexpr(s) for s in self.block_type.shape]

    @property
    def shape(self):
        # As compiled: a made descriptor's sizes, a host one's refused.
        if not self.made:
            raise sem.host_descriptor_shape_error()
        return [lift(s, d.int32) for s in self.dims]

    def _addresses(self, offsets):
        offsets = unwrap(offsets)
        offsets = list(offsets) if isinstance(offsets, (list, tuple)) else [offsets]
        shape = self.block_type.shape
        if len(offsets) != len(shape):
            raise SemanticError("a descriptor with %d-d blocks needs %d offsets, got %d"
                                % (len(shape), len(shape), len(offsets)))
        index = np.zeros(shape, np.int64)
        inside = np.ones(shape, bool)
        for axis, (offset, dim, stride) in enumerate(zip(offsets, self.dims,
                                                         self.strides)):
            o = lift(offset, d.int32)
            if o.type.is_block() or not o.type.scalar.is_int() or o.type.scalar.is_bool():
                raise SemanticError("descriptor offsets must be integer scalars, got %r"
                                    % (o.type,))
            view = [1] * len(shape)
            view[axis] = shape[axis]
            i = int(cast(o, d.int32).data) + np.arange(shape[axis]).reshape(view)
            inside = inside & (i >= 0) & (i < dim)
            index = index + i * stride
        size = numbers.element_size(self.dtype)
        addresses = (np.int64(int(self.base.data)) + index * size).astype(np.uint64)
        return addresses, inside

    def load(self, offsets):
        addresses, inside = self._addresses(offsets)
        out = np.zeros(self.block_type.shape, numbers.compute_type(self.dtype))
        if inside.any():
            out[inside] = _program().memory.read(addresses[inside], self.dtype)
        return make(out, self.dtype, self.block_type.shape)

    def store(self, offsets, value):
        addresses, inside = self._addresses(offsets)
        value = lift(value, self.dtype)
        if value.type.is_block() and tuple(value.type.shape) != self.block_type.shape:
            raise SemanticError("cannot store a %s block through a descriptor of %s "
                                "blocks" % (list(value.type.shape),
                                            list(self.block_type.shape)))
        value = cast(T.broadcast_to(value, self.block_type.shape), self.dtype)
        if inside.any():
            _program().memory.write(addresses[inside], value.data[inside], self.dtype)

    def _reduce(self, kind, combine, offsets, value):
        # The element types the compiled kernel would refuse, refused.
        check_reduction(kind, self.dtype, self.block_type.shape, self.made)
        # One program runs at a time: read, combine and write is atomic.
        addresses, inside = self._addresses(offsets)
        value = cast(T.broadcast_to(lift(value, self.dtype),
                                    self.block_type.shape), self.dtype)
        if inside.any():
            memory = _program().memory
            old = memory.read(addresses[inside], self.dtype)
            memory.write(addresses[inside], combine(old, value.data[inside]),
                         self.dtype)



# desc.atomic_<kind>: numpy's elementwise combination of each kind.
for _kind, _combine in (("add", np.add), ("min", np.minimum),
                        ("max", np.maximum), ("and", np.bitwise_and),
                        ("or", np.bitwise_or), ("xor", np.bitwise_xor)):
    setattr(Descriptor, "atomic_" + _kind,
            lambda self, offsets, value, kind=_kind, combine=_combine:
            self._reduce(kind, combine, offsets, value))


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    base = _pointer(base, "make_tensor_descriptor")
    if base.type.is_block():
        raise SemanticError("make_tensor_descriptor: base must be a scalar pointer")
    block = [int(unwrap(b)) for b in unwrap(block_shape)]
    if not 1 <= len(block) <= 5 or len(unwrap(shape)) != len(block) or \
            len(unwrap(strides)) != len(block):
        raise SemanticError("make_tensor_descriptor: shape, strides and "
                            "block_shape need the same rank, 1 to 5")
    for dim in block:
        if dim <= 0 or dim & (dim - 1):
            raise SemanticError("make_tensor_descriptor: block dimensions must "
                                "be powers of two, got %s" % block)
    if unwrap(padding_option) != "zero":
        raise SemanticError("make_tensor_descriptor: only padding_option="
                            "'zero' is supported, got %r" % (unwrap(padding_option),))
    dims = [int(lift(s).data) for s in unwrap(shape)]
    steps = [int(lift(s).data) for s in unwrap(strides)]
    if steps[-1] != 1:
        raise SemanticError("make_tensor_descriptor: the last dimension must "
                            "be contiguous (stride 1), got %r" % (steps[-1],))
    return Descriptor(base, dims, steps, block, made=True)


# ---------------------------------------------------- tensor methods

def _to(self, dtype, fp_downcast_rounding=None, bitcast=False):
    dtype = unwrap(dtype)
    if not isinstance(dtype, d.dtype):
        raise SemanticError(".to() needs a dtype, got %r" % (dtype,))
    return cast(self, dtype, bitcast=bool(unwrap(bitcast)),
                fp_downcast_rounding=unwrap(fp_downcast_rounding))


def _getitem(self, index):
    """Indexing with `None` (a new axis) and `:` (keep an axis)."""
    if not isinstance(index, tuple):
        index = (index,)
    # Item k names axis k of the result (Triton's rule, as compiled): a ':'
    # past the last axis keeps nothing.
    value, axis = self, 0
    for item in index:
        item = unwrap(item)
        if item is None:
            value = T.expand_dims(value, axis)
            axis += 1
        elif isinstance(item, slice) and item == slice(None):
            axis += 1
        else:
            raise SemanticError("unsupported tensor index %r: tensors can "
                                "only be indexed with None and ':'" % (item,))
    return value


def _logical(op):
    def method(self, other):
        return T.binary(op, cast(self, d.int1), cast(lift(other), d.int1))
    return method


Tensor.to = _to
Tensor.cast = lambda self, dtype, fp_downcast_rounding=None, bitcast=False: _to(
    self, dtype, bitcast=bitcast, fp_downcast_rounding=fp_downcast_rounding)
Tensor.__getitem__ = _getitem
Tensor.logical_and = _logical("&")
Tensor.logical_or = _logical("|")
Tensor.logical_not = lambda self: T.logical_not(self)
Tensor.reshape = lambda self, *shape, can_reorder=False: reshape(
    self, *shape, can_reorder=can_reorder)
Tensor.view = lambda self, *shape: reshape(self, *shape, can_reorder=True)
Tensor.trans = lambda self, *dims: trans(self, *dims)
Tensor.permute = Tensor.trans
Tensor.expand_dims = lambda self, axis: expand_dims(self, axis)
Tensor.broadcast_to = lambda self, *shape: broadcast_to(self, *shape)
Tensor.T = property(lambda self: trans(self))
# The rest of Triton's member functions (x.exp(), x.sum(), x.max(0, True),
# x.sort(), ...), with the signatures of the tl functions, as the compiler's
# tl.tensor has them.
members.attach(Tensor)
