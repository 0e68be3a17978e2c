"""CUtensorMap encoding for TMA copies: what the launcher hands a kernel for
each tensor descriptor (host TensorDescriptors and descriptors a kernel
makes from its arguments)."""

from tile import _C
from tile.language.dtypes import TMA_DATA_TYPES as _TMA_TYPES


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
