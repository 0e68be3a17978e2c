"""`tl.make_tensor_descriptor`: a descriptor made in the kernel, carried out
by TMA copies where they can serve its blocks, else by masked pointer
accesses.

TMA copies need sm_90 and a block the compiler stages through swizzled
shared memory (two dimensions, whole 32-byte rows, rows a multiple of 8:
dtypes.tma_block_supported). Triton also accepts blocks of one and three
to five dimensions, and narrow ones (test_core's test_trans_4d builds 4-D
and 1-D descriptors); those, and every descriptor on an older GPU, become a
`pointer_descriptor`: each load and store is the block's element pointers
with an in-bounds mask, which gives TMA's meaning exactly (outside the
tensor, loads read zero and stores are dropped).

Like a block pointer, a pointer descriptor is a compile-time object whose
parts are values, so loops, `if`s and @jit calls carry it
(tile.compiler.values.Structure).
"""

from tile.language import core
from tile.language import dtypes as d
from tile.language import semantic as sem
from tile.language.block_pointer import block_ptr
from tile.language.core import builtin, _raw, _unwrap


def _offsets(descriptor, offsets):
    offsets = _unwrap(offsets)
    if not isinstance(offsets, (list, tuple)) or \
            len(offsets) != len(descriptor.block_shape):
        raise sem.SemanticError(
            "a tensor descriptor of %d dimensions needs %d offsets, got %r"
            % (len(descriptor.block_shape), len(descriptor.block_shape), offsets))
    return [core.cast(core.to_tensor(_unwrap(o)), d.int32) for o in offsets]


class pointer_descriptor:
    """What tl.make_tensor_descriptor returns where no TMA copy can serve
    its block: the tensor's base, shape and strides, and the block shape."""

    def __init__(self, base, shape, strides, block_shape):
        self.base = base
        self.shape = list(shape)
        self.strides = list(strides)
        self.block_shape = [int(_unwrap(s)) for s in block_shape]

    # The parts Structure walks; block_shape is compile-time.
    def tile_fields(self):
        return [self.base, tuple(self.shape), tuple(self.strides),
                tuple(self.block_shape)]

    def tile_rebuild(self, parts):
        return pointer_descriptor(*parts)

    @property
    def dtype(self):
        return self.base.type.scalar.element_ty

    @property
    def block_type(self):
        return d.block_type(self.dtype, self.block_shape)

    @property
    def type(self):
        return d.tensor_descriptor_type(self.block_type)

    def __repr__(self):
        return "pointer_descriptor(%r, block_shape=%r)" % (self.dtype,
                                                          self.block_shape)

    def _window(self, offsets):
        rank = len(self.block_shape)
        window = block_ptr(self.base, self.shape, self.strides,
                           _offsets(self, offsets), self.block_shape,
                           list(reversed(range(rank))))
        return window._window(tuple(range(rank)))

    @builtin
    def load(self, offsets):
        """The block whose first element is at `offsets`; elements outside
        the tensor read as zero."""
        pointers, mask = self._window(offsets)
        return core.load(pointers, mask, 0)

    @builtin
    def store(self, offsets, value):
        """Writes `value` as the block at `offsets`; elements outside the
        tensor are dropped."""
        ty = getattr(_unwrap(value), "type", None)
        shape = [int(_unwrap(s)) for s in ty.shape] if ty is not None and \
            ty.is_block() else []
        if shape != self.block_shape:
            raise sem.SemanticError(
                "a tensor descriptor of block_shape %s cannot store a %s "
                "block" % (self.block_shape, shape or "scalar"))
        pointers, mask = self._window(offsets)
        core.store(pointers, value, mask)


def _pointer_reduction(kind):
    @builtin
    def reduce(self, offsets, value):
        """Combines `value` into the block at `offsets` with atomics,
        elementwise; elements outside the tensor are dropped."""
        check_pointer_reduction(kind, self.dtype)
        pointers, mask = self._window(offsets)
        getattr(core, "atomic_" + kind)(pointers, value, mask, sem="relaxed")
    reduce.__name__ = "atomic_" + kind
    return reduce


# Where no TMA reduction serves the block: what the element atomics
# behind it take (Triton's fallback set: no 16-bit float min or max; int64
# bitwise, which only the bulk reduction faults on).
_POINTER_REDUCTIONS = {
    "add": {"u32", "i32", "u64", "fp32", "fp16", "bf16"},
    "min": {"u32", "i32", "u64", "i64"},
    "max": {"u32", "i32", "u64", "i64"},
    "and": {"u32", "i32", "u64", "i64"},
    "or": {"u32", "i32", "u64", "i64"},
    "xor": {"u32", "i32", "u64", "i64"},
}

for _kind in sem.TMA_REDUCTIONS:
    setattr(pointer_descriptor, "atomic_" + _kind, _pointer_reduction(_kind))


def check_pointer_reduction(kind, element):
    """Refuses a desc.atomic_<kind> of `element` that the element atomics
    behind a made descriptor lack."""
    if element.short_name not in _POINTER_REDUCTIONS[kind]:
        raise sem.SemanticError("a tensor descriptor has no '%s' reduction of %s"
                                % (kind, element.short_name))


def check_reduction(kind, element, block_shape, made):
    """Refuses what the compiled kernel on sm_90 would: a host descriptor
    and a made one whose block TMA serves reduce in bulk, another made one
    by element atomics."""
    if made and not d.tma_block_supported(element, block_shape):
        check_pointer_reduction(kind, element)
    else:
        sem.check_tma_reduction(kind, element)


def _takes_tma(base, block_shape):
    if core.interpreter() is not None:
        return True   # the interpreter's own descriptors serve every block
    target = core.current_builder().target or ""
    return target.startswith("sm_90") and d.tma_block_supported(
        base.type.element_ty, block_shape)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape,
                           padding_option="zero"):
    """A descriptor of the tensor at `base` with `shape` and `strides` (in
    elements, the last one 1), read and written in `block_shape` blocks:
    by TMA copies where they can serve the block (the launcher encodes the
    CUtensorMap, so base, shape and strides must then be kernel parameters,
    constants or integer arithmetic on them), else by masked pointer
    accesses (any block of 1 to 5 dimensions, any target)."""
    raw_base = _raw(base)
    shape_values, stride_values, block = core.descriptor_lists(
        shape, strides, block_shape)
    sem.check_tensor_descriptor(raw_base, shape_values, stride_values, block,
                                _unwrap(padding_option))
    if _takes_tma(raw_base, block):
        return core.tma_tensor_descriptor(base, shape, strides, block_shape,
                                          padding_option)
    d.block_type(raw_base.type.element_ty, block)   # the element limit
    return pointer_descriptor(core.tensor(raw_base),
                              [_unwrap(s) for s in _unwrap(shape)],
                              [_unwrap(s) for s in _unwrap(strides)], block)
