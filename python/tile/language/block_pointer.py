"""Block pointers: `tl.make_block_ptr` and `tl.advance`, and `tl.load` /
`tl.store` through them.

A block pointer names a `block_shape` window, at `offsets`, of an N-d tensor
with `shape` and `strides` (in elements) at `base`. Loads and stores through
it become pointer arithmetic on the window's indices, with a mask for the
dimensions named in `boundary_check`: ordinary masked accesses, which the
axis analysis vectorises where the innermost stride is a known 1. The
window's index math is 64-bit (offset times stride may pass 2**31), as in
Triton.

A block pointer is a compile-time object whose parts are values: loops and
`if`s carry it, and @jit calls pass and return it, as its runtime parts
(tile.compiler.values.Structure). Everything here is written with other
builtins, so the interpreter runs the same code.
"""

from tile.language import core
from tile.language import dtypes as d
from tile.language import semantic as sem
from tile.language.core import builtin, _unwrap

_PADDINGS = ("", None, "zero", "nan")


def _divisible_argument(b, value):
    """Whether `value` is a kernel parameter specialised as a multiple of
    16 (a 16-byte aligned pointer, an integer divisible by 16)."""
    host = getattr(getattr(value, "handle", None), "host", None)
    return isinstance(host, list) and len(host) == 2 and host[0] == "arg" \
        and host[1] in b.divisible_args


def _sequence(value, what):
    value = _unwrap(value)
    if not isinstance(value, (tuple, list)):
        raise sem.SemanticError("make_block_ptr: %s must be a tuple or list, "
                                "got %r" % (what, value))
    return [_unwrap(v) for v in value]


def _integer_scalar(value, what):
    """An int, or an integer scalar tensor (what shapes, strides and
    offsets may be)."""
    if isinstance(value, bool):
        raise sem.SemanticError("make_block_ptr: %s must be an integer, got "
                                "%r" % (what, value))
    if isinstance(value, int):
        return value
    ty = getattr(value, "type", None)
    if ty is None or ty.is_block() or not ty.scalar.is_int() or ty.scalar.is_bool():
        raise sem.SemanticError("make_block_ptr: %s must be an integer "
                                "scalar, got %r" % (what, ty or value))
    return value


class block_ptr:
    """A pointer to a `block_shape` window of a strided tensor (what
    tl.make_block_ptr returns; Triton's pointer-to-block type)."""

    tile_block_pointer = True

    def __init__(self, base, shape, strides, offsets, block_shape, order):
        self.base = base
        self.shape = list(shape)
        self.strides = list(strides)
        self.offsets = list(offsets)
        self.block_shape = [int(_unwrap(s)) for s in block_shape]
        self.order = [int(_unwrap(o)) for o in order]

    # The parts Structure walks; block_shape and order are compile-time.
    def tile_fields(self):
        return [self.base, tuple(self.shape), tuple(self.strides),
                tuple(self.offsets), tuple(self.block_shape), tuple(self.order)]

    def tile_rebuild(self, parts):
        return block_ptr(*parts)

    @property
    def element_ty(self):
        return self.base.type.scalar.element_ty

    @property
    def dtype(self):
        return self.base.dtype

    @property
    def type(self):
        """Triton's type for it: a pointer to a block."""
        return d.pointer_type(d.block_type(self.element_ty, self.block_shape))

    def __repr__(self):
        return "block_ptr(%r, block_shape=%r)" % (self.element_ty, self.block_shape)

    def _window(self, boundary_check):
        """The window's element pointers and, for the checked dimensions,
        the in-bounds mask (None if no dimension is checked)."""
        rank = len(self.block_shape)
        checked = _boundary_dims(boundary_check, rank)
        pointers, mask = self.base, None
        for dim, size in enumerate(self.block_shape):
            index = core.arange(0, size) + self.offsets[dim]
            for axis in range(rank):
                if axis != dim:
                    index = core.expand_dims(index, axis)
            stride = self.strides[dim]
            step = core.cast(index, d.int64)
            if not (isinstance(stride, int) and stride == 1):
                step = step * stride
            pointers = pointers + step
            if dim in checked:
                inside = (index >= 0) & (index < self.shape[dim])
                mask = inside if mask is None else mask & inside
        pointers = core.broadcast_to(pointers, self.block_shape)
        if mask is not None:
            mask = core.broadcast_to(mask, self.block_shape)
        return pointers, mask

    def _descriptor(self):
        """A TMA descriptor of this window's tensor where a TMA copy does
        what the masked pointer access would, else None. It needs sm_90 or
        later, a 2-D row-major block (order (1, 0), last stride a compile-time
        1) of a shape TMA copies take (dtypes.tma_block_supported) with at
        most 256 elements a side, a base
        specialised as 16-byte aligned, a row stride and a row length known
        to be multiples of 16 bytes, and base, shape and strides the
        launcher can compute from the arguments (encoded at launch).
        TMA reads outside the tensor as zero and drops writes outside it,
        which is what every checked dimension does; an unchecked one
        outside the tensor is undefined in Triton either way."""
        if core.interpreter() is not None:
            return None
        b = core.current_builder()
        if not (b.target or "").startswith("sm_90"):
            return None
        if len(self.block_shape) != 2 or self.order != [1, 0]:
            return None
        element = self.element_ty
        size = element.primitive_bitwidth // 8
        inner = self.strides[1]
        if not d.tma_block_supported(element, self.block_shape) or \
                not (isinstance(inner, int) and inner == 1) or \
                self.block_shape[1] > 256:
            return None
        if not _divisible_argument(b, self.base):
            return None
        # TMA bounds the innermost dimension in 16-byte steps (measured on
        # the H100: a store wrote up to the next 16 bytes past the edge), so
        # the row length must be a known multiple of 16 bytes.
        extent = self.shape[1]
        if not (isinstance(extent, int) and (extent * size) % 16 == 0 or
                _divisible_argument(b, extent)):
            return None
        outer = self.strides[0]
        if not (isinstance(outer, int) and (outer * size) % 16 == 0 or
                _divisible_argument(b, outer)):
            return None
        try:
            return core.tma_tensor_descriptor(self.base, self.shape,
                                               self.strides, self.block_shape)
        except sem.SemanticError:
            return None   # not computable on the host, or not in the kernel

    def load(self, boundary_check, padding_option, cache_modifier,
             eviction_policy, volatile):
        padding = _unwrap(padding_option)
        if padding not in _PADDINGS:
            raise sem.SemanticError("padding_option must be 'zero' or 'nan', "
                                    "got %r" % (padding,))
        element = self.element_ty
        if padding == "nan" and not element.is_floating():
            raise sem.SemanticError("padding_option='nan' needs a floating-"
                                    "point block pointer, not %r" % (element,))
        _boundary_dims(boundary_check, len(self.block_shape))
        if padding != "nan" and not _unwrap(volatile):
            descriptor = self._descriptor()
            if descriptor is not None:
                return descriptor.load(self.offsets)
        pointers, mask = self._window(boundary_check)
        other = None
        if mask is not None:
            other = float("nan") if padding == "nan" else 0
        return core.load(pointers, mask, other, cache_modifier=cache_modifier,
                         eviction_policy=eviction_policy, volatile=volatile)

    def store(self, value, boundary_check, cache_modifier, eviction_policy):
        _boundary_dims(boundary_check, len(self.block_shape))
        ty = getattr(_unwrap(value), "type", None)
        shape = [int(_unwrap(s)) for s in ty.shape] if ty is not None and \
            ty.is_block() else []
        padded = [1] * (len(self.block_shape) - len(shape)) + shape
        if len(shape) > len(self.block_shape) or any(
                s not in (1, b) for s, b in zip(padded, self.block_shape)):
            # Triton broadcasts a smaller value; another block is an error.
            raise sem.SemanticError(
                "cannot store a %s block through a block pointer of "
                "block_shape %s" % (shape, self.block_shape))
        descriptor = self._descriptor()
        if descriptor is not None:
            descriptor.store(self.offsets, value)
            return
        pointers, mask = self._window(boundary_check)
        core.store(pointers, value, mask, cache_modifier=cache_modifier,
                   eviction_policy=eviction_policy)


def _boundary_dims(boundary_check, rank):
    dims = _unwrap(boundary_check)
    if dims is None:
        return set()
    if isinstance(dims, int):
        dims = (dims,)
    if not isinstance(dims, (tuple, list)):
        raise sem.SemanticError("boundary_check must be a tuple of dimensions, "
                                "got %r" % (dims,))
    checked = set()
    for dim in dims:
        dim = _unwrap(dim)
        if isinstance(dim, bool) or not isinstance(dim, int) or \
                not 0 <= dim < rank:
            raise sem.SemanticError("boundary_check names dimension %r, but the "
                                    "block pointer has %d dimension%s (0 to %d)"
                                    % (dim, rank, "" if rank == 1 else "s",
                                       rank - 1))
        checked.add(dim)
    return checked


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    """A pointer to the `block_shape` window at `offsets` of the tensor at
    `base` with `shape` and `strides` (elements). `order` lists the
    dimensions from fastest- to slowest-varying in memory, as in Triton; it
    must be a permutation, and the pointer arithmetic does not need it."""
    base = _unwrap(base)
    ty = getattr(base, "type", None)
    if ty is None or ty.is_block() or not ty.is_ptr():
        raise sem.SemanticError("make_block_ptr: base must be a scalar pointer, "
                                "got %r" % (ty or base,))
    shape = _sequence(shape, "shape")
    strides = _sequence(strides, "strides")
    offsets = _sequence(offsets, "offsets")
    block_shape = _sequence(block_shape, "block_shape")
    order = _sequence(order, "order")
    rank = len(block_shape)
    if rank == 0 or any(len(x) != rank for x in (shape, strides, offsets, order)):
        raise sem.SemanticError(
            "make_block_ptr: shape, strides, offsets, block_shape and order "
            "need one entry per dimension (got %d, %d, %d, %d, %d)"
            % (len(shape), len(strides), len(offsets), rank, len(order)))
    for size in block_shape:
        if isinstance(size, bool) or not isinstance(size, int) or size <= 0 or \
                size & (size - 1):
            raise sem.SemanticError("make_block_ptr: block_shape must be "
                                    "constexpr powers of two, got %s"
                                    % (block_shape,))
    d.block_type(ty.element_ty, block_shape)   # the element limit
    if sorted(o if isinstance(o, int) and not isinstance(o, bool) else -1
              for o in order) != list(range(rank)):
        raise sem.SemanticError("make_block_ptr: order must be a permutation "
                                "of 0..%d, got %s" % (rank - 1, order))
    shape = [_integer_scalar(s, "shape[%d]" % i) for i, s in enumerate(shape)]
    strides = [_integer_scalar(s, "strides[%d]" % i) for i, s in enumerate(strides)]
    # Offsets are 32-bit runtime values (Triton's type for them), so that
    # tl.advance in a loop changes a value, not the compiled code.
    offsets = [core.cast(core.to_tensor(_integer_scalar(o, "offsets[%d]" % i)), d.int32)
               for i, o in enumerate(offsets)]
    return block_ptr(base, shape, strides, offsets, block_shape, order)


@core.must_use_result("tl.advance returns the moved block pointer and changes "
                      "nothing in place: assign its result (p = tl.advance(p, "
                      "offsets))")
@builtin
def advance(base, offsets):
    """`base` moved by `offsets` (elements, one per dimension)."""
    pointer = _unwrap(base)
    if not getattr(pointer, "tile_block_pointer", False):
        raise sem.SemanticError("advance needs a block pointer (from "
                                "tl.make_block_ptr), got %r" % (pointer,))
    deltas = _unwrap(offsets)
    if not isinstance(deltas, (tuple, list)) or \
            len(deltas) != len(pointer.block_shape):
        raise sem.SemanticError("advance needs one offset per dimension (%d), "
                                "got %r" % (len(pointer.block_shape), deltas))
    moved = [core.cast(offset + _integer_scalar(_unwrap(delta), "offsets[%d]" % i),
                       d.int32) for i, (offset, delta) in
             enumerate(zip(pointer.offsets, deltas))]
    return block_ptr(pointer.base, pointer.shape, pointer.strides, moved,
                     pointer.block_shape, pointer.order)

