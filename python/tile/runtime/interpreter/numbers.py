"""Element values of the interpreter: which numpy type holds each
tile.language dtype, how values round into the narrow float formats, and how
they are encoded in memory.

numpy has no bfloat16 or fp8, so those are computed as float32 arrays whose
values are always exactly representable in the narrow type: every result is
rounded back (round to nearest even, as the GPU's cvt.rn does), and memory
holds their bit patterns (uint16, uint8).
"""

import numpy as np

from tile.language import semantic as sem

_COMPUTE = {"int1": np.bool_, "int8": np.int8, "int16": np.int16,
            "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
            "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
            "float16": np.float16, "bfloat16": np.float32,
            "float8e5": np.float32, "float8e4nv": np.float32,
            "float32": np.float32, "float64": np.float64}

# How an element sits in memory, when that differs from how it is computed.
_STORAGE = {"int1": np.uint8, "bfloat16": np.uint16, "float8e5": np.uint8,
            "float8e4nv": np.uint8}


class Format:
    """A binary floating-point format: mantissa bits (without the implicit
    one), the exponent of the smallest normal, the largest finite value and
    whether it has infinities."""

    def __init__(self, mantissa, min_exponent, max_finite, has_inf):
        self.mantissa = mantissa
        self.min_exponent = min_exponent
        self.max_finite = max_finite
        self.has_inf = has_inf


FORMATS = {
    "float16": Format(10, -14, 65504.0, True),
    "bfloat16": Format(7, -126, float.fromhex("0x1.fep127"), True),
    "float32": Format(23, -126, float.fromhex("0x1.fffffep127"), True),
    # e5m2 is IEEE-like; e4m3fn has no infinity and gives its top mantissa
    # code to NaN, so its largest value is 1.75 * 2^8.
    "float8e5": Format(2, -14, 57344.0, True),
    "float8e4nv": Format(3, -6, 448.0, False),
    "tf32": Format(10, -126, float.fromhex("0x1.ffcp127"), True),
}


def compute_type(ty):
    """The numpy type holding values of scalar type `ty`."""
    if ty.is_ptr():
        return np.uint64
    return _COMPUTE[ty.name]


def storage_type(ty):
    if ty.is_ptr():
        return np.uint64
    return _STORAGE.get(ty.name, _COMPUTE[ty.name])


def element_size(ty):
    return max(ty.primitive_bitwidth // 8, 1)


def round_to(values, name, toward_zero=False, saturate=False):
    """float64 `values` rounded into format `name`, as float64: to nearest
    even (or toward zero), overflowing to infinity or, with `saturate` (the
    GPU's satfinite conversions), to the largest finite value."""
    fmt = FORMATS[name]
    x = np.asarray(values, np.float64)
    with np.errstate(all="ignore"):
        finite = np.isfinite(x)
        mag = np.abs(np.where(finite, x, 0.0))
        _, exponent = np.frexp(mag)
        # The exponent of the leading bit, no lower than the smallest
        # normal's: below it the spacing stays that of the subnormals.
        exponent = np.maximum(exponent - 1, fmt.min_exponent)
        quantum = np.ldexp(1.0, exponent - fmt.mantissa)
        steps = mag / quantum
        steps = np.trunc(steps) if toward_zero else np.rint(steps)
        q = steps * quantum
        clamp_to_max = saturate or toward_zero or not fmt.has_inf
        overflow = q > fmt.max_finite
        if clamp_to_max:
            q = np.where(overflow, fmt.max_finite, q)
        else:
            q = np.where(overflow, np.inf, q)
        out = np.copysign(q, x)
        infinite = np.isinf(x)
        if saturate or not fmt.has_inf:
            inf_value = np.copysign(fmt.max_finite, x) if saturate else np.nan
        else:
            inf_value = x
        out = np.where(infinite, inf_value, out)
        return np.where(np.isnan(x), np.nan, out)


def to_float(values, ty, toward_zero=False):
    """float64 (or any numeric) `values` converted to float type `ty`, in
    its compute type."""
    x = np.asarray(values)
    name = ty.name
    if name == "float64":
        return x.astype(np.float64)
    if name in ("float32", "float16") and not toward_zero:
        with np.errstate(all="ignore"):
            return x.astype(_COMPUTE[name])
    out = round_to(x.astype(np.float64), name, toward_zero=toward_zero,
                   saturate=ty.is_fp8())
    return out.astype(_COMPUTE[name])


def _fp8_table(name):
    """The value of each of the 256 codes of an fp8 format."""
    fmt = FORMATS[name]
    codes = np.arange(256, dtype=np.int64)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exp_bits = 7 - fmt.mantissa
    bias = 1 - fmt.min_exponent
    e = (codes >> fmt.mantissa) & ((1 << exp_bits) - 1)
    m = codes & ((1 << fmt.mantissa) - 1)
    normal = np.ldexp(1.0 + m / (1 << fmt.mantissa), e - bias)
    subnormal = np.ldexp(m / (1 << fmt.mantissa), fmt.min_exponent)
    values = sign * np.where(e == 0, subnormal, normal)
    top = (1 << exp_bits) - 1
    if fmt.has_inf:
        values = np.where((e == top) & (m == 0), sign * np.inf, values)
        values = np.where((e == top) & (m != 0), np.nan, values)
    else:
        values = np.where((e == top) & (m == (1 << fmt.mantissa) - 1), np.nan,
                          values)
    return values.astype(np.float32)


_FP8_VALUES = {name: _fp8_table(name) for name in ("float8e5", "float8e4nv")}
_FP8_NAN = {"float8e5": 0x7F, "float8e4nv": 0x7F}


def _fp8_encode(values, name):
    table = _FP8_VALUES[name]
    bits = table.view(np.uint32)
    usable = ~np.isnan(table)
    keys, codes = bits[usable], np.arange(256, dtype=np.uint8)[usable]
    order = np.argsort(keys)
    keys, codes = keys[order], codes[order]
    x = np.asarray(values, np.float32)
    xb = x.view(np.uint32)
    pos = np.clip(np.searchsorted(keys, xb), 0, len(keys) - 1)
    out = codes[pos]
    return np.where(np.isnan(x), np.uint8(_FP8_NAN[name]), out).astype(np.uint8)


def encode(values, ty):
    """Values of scalar type `ty` as their in-memory bit patterns."""
    x = np.asarray(values, compute_type(ty))
    name = ty.name
    if name == "int1":
        return x.astype(np.uint8)
    if name == "bfloat16":
        return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if ty.is_fp8():
        return _fp8_encode(x, name)
    return x.astype(storage_type(ty))


def decode(bits, ty):
    """In-memory bit patterns of scalar type `ty` as values."""
    b = np.asarray(bits, storage_type(ty))
    name = ty.name
    if name == "int1":
        return b != 0
    if name == "bfloat16":
        return (b.astype(np.uint32) << 16).view(np.float32)
    if ty.is_fp8():
        return _FP8_VALUES[name][b.astype(np.int64)]
    return b.astype(compute_type(ty))


int_range = sem.int_range


def float_to_int(values, ty):
    """The GPU's cvt.rzi: truncate toward zero, saturate at the type's
    range, NaN to 0."""
    x = np.asarray(values, np.float64)
    lo, hi = int_range(ty)
    with np.errstate(all="ignore"):
        t = np.trunc(np.where(np.isnan(x), 0.0, x))
        too_big = t >= float(hi)
        too_small = t <= float(lo)
        safe = np.clip(t, float(lo), float(hi))
        if ty.primitive_bitwidth == 64:
            # 2^63 - 1 and 2^64 - 1 have no float64; clip below them.
            safe = np.where(too_big, 0.0, safe)
        out = safe.astype(compute_type(ty))
    out = np.where(too_big, np.array(hi).astype(compute_type(ty)), out)
    out = np.where(too_small, np.array(lo).astype(compute_type(ty)), out)
    return out.astype(compute_type(ty))


def wrap_int(value, ty):
    """A Python int as a value of integer type `ty`, wrapping modulo 2^bits
    like the IR's constants do."""
    bits = ty.primitive_bitwidth
    value = int(value) & ((1 << bits) - 1)
    if ty.is_int_signed() and not ty.is_bool() and value >= 1 << (bits - 1):
        value -= 1 << bits
    return np.array(value, dtype=compute_type(ty))
