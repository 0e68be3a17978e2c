"""tile.language: what kernels are written in (Triton's `tl` API)."""

import enum as _enum

from tile.language.dtypes import (dtype, pointer_type, block_type, int1, int8,
                                  int16, int32, int64, uint8, uint16, uint32,
                                  uint64, float8e5, float8e4nv, float8e4b15,
                                  float8e4b8, float8e5b16, float16,
                                  bfloat16, float32, float64,
                                  TILE_MAX_TENSOR_NUMEL, str_to_ty, void)
from tile.language.core import (  # noqa: F401
    constexpr, tensor, program_id, num_programs, arange, full, zeros,
    zeros_like, full_like, broadcast_to, broadcast, expand_dims, reshape, view,
    trans, permute, load, store, atomic_add, atomic_max, atomic_min,
    atomic_and, atomic_or, atomic_xor, atomic_xchg, atomic_cas, where,
    maximum, minimum, clamp, exp, exp2, log, log2, sqrt, rsqrt, sin, cos,
    floor, ceil, erf, abs, sigmoid, fma, fdiv, cdiv, dot, sum, max, min,
    xor_sum, argmax, argmin, cumsum, cumprod, softmax, multiple_of,
    max_contiguous, static_assert, static_print, static_range, range, join,
    split, cat, gather, histogram, condition, umulhi, device_print, device_assert, debug_barrier,
    reduce,
    associative_scan, div_rn, sqrt_rn, ravel,
    interleave, flip, swizzle2d, cast, assume, extern_elementwise,
    inline_asm_elementwise, map_elementwise, to_tensor,
    load_tensor_descriptor, store_tensor_descriptor, must_use_result,
    tensor_descriptor, const, add, sub, mul, reduce_or, max_constancy)
from tile.language.block_pointer import (block_ptr, make_block_ptr,  # noqa: F401
                                         advance)
from tile.language.descriptors import make_tensor_descriptor  # noqa: F401
from tile.language.scaled_dot import dot_scaled  # noqa: F401
from tile.language.sorting import sort, topk, bitonic_merge  # noqa: F401
from tile.language.compile_time import tuple  # noqa: F401,A004
from tile.language.compile_time import slice  # noqa: F401,A004
from tile.language.compile_time import constexpr_type  # noqa: F401
from tile.language import math  # noqa: F401
from tile.language.random import (randint, randint4x, rand, rand4x,  # noqa: F401
                                  randn, randn4x, philox, philox_impl,
                                  uint_to_uniform_float,
                                  pair_uniform_to_normal)

float8e4m3fn = float8e4nv
# Triton's pointer-to-int32 type, and its enum for min/max's propagate_nan
# (NONE is false, ALL true, as tile's propagate_nan flag reads them).
pi32_t = pointer_type(int32)


class PropagateNan(_enum.IntEnum):
    NONE = 0x0000
    ALL = 0xFFFF



# Triton's name for the largest block (elements) a kernel may have.
TRITON_MAX_TENSOR_NUMEL = TILE_MAX_TENSOR_NUMEL
from tile.language.constexpr_function import constexpr_function  # noqa: E402,F401
from tile.language import extra  # noqa: E402,F401
from tile.language import standard  # noqa: E402,F401
from tile.language import target_info  # noqa: E402,F401
import sys as _sys  # noqa: E402
from tile.language import members as _members  # noqa: E402

_members.set_namespace(_sys.modules[__name__])
_members.attach(tensor)
