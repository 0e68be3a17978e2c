"""CUtensorMap encoding for TMA copies: what the launcher hands a kernel for
each tensor descriptor (host TensorDescriptors and descriptors a kernel
makes from its arguments)."""

from tile import _C

# Element size in bytes and CUtensorMapDataType of each tile dtype.
_TMA_TYPES = {
    "u8": (1, 0), "i8": (1, 0), "fp8e4nv": (1, 0), "fp8e5": (1, 0),
    "i1": (1, 0), "i16": (2, 1), "u16": (2, 1), "fp16": (2, 6), "bf16": (2, 9),
    "i32": (4, 3), "u32": (4, 2), "fp32": (4, 7), "i64": (8, 5), "u64": (8, 4),
    "fp64": (8, 8),
}


def tma_element(dtype):
    """(bytes, CUtensorMapDataType) of the tile dtype named `dtype` ('fp16')."""
    return _TMA_TYPES[dtype]


def encode_tensor_map(dtype, address, shape, strides, block_shape):
    """The 128-byte CUtensorMap (bytes) of a tiled TMA descriptor (libtile
    keeps the encodings: re-encoding is a driver call)."""
    size, code = _TMA_TYPES[dtype]
    return _C.encode_tensor_map(code, size, address, list(shape), list(strides),
                                list(block_shape))


def supports(dtype):
    """Whether TMA copies elements of the tile dtype named `dtype`."""
    return dtype in _TMA_TYPES
