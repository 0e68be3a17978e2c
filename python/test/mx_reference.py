"""Float64 values of microscaling (OCP MX) operands, decoded from their bits
with numpy alone: the reference for tl.dot_scaled tests."""

import numpy as np

E2M1_MAGNITUDES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def e2m1(codes):
    codes = codes.astype(np.int64)
    sign = np.where(codes & 8, -1.0, 1.0)
    return sign * E2M1_MAGNITUDES[codes & 7]


def fp8(bytes_, fmt):
    """e4m3 (fn: no infinities, S.1111.111 is NaN) or e5m2 (IEEE-like)."""
    b = bytes_.astype(np.int64)
    exp_bits, bias = (4, 7) if fmt == "e4m3" else (5, 15)
    man_bits = 7 - exp_bits
    sign = np.where(b & 0x80, -1.0, 1.0)
    e = (b >> man_bits) & ((1 << exp_bits) - 1)
    m = (b & ((1 << man_bits) - 1)).astype(np.float64)
    value = np.where(e == 0, m / (1 << man_bits) * 2.0 ** (1 - bias),
                     (1 + m / (1 << man_bits)) * 2.0 ** (e - bias))
    if fmt == "e4m3":
        value = np.where((b & 0x7F) == 0x7F, np.nan, value)
    else:
        top = e == (1 << exp_bits) - 1
        value = np.where(top & (m == 0), np.inf, np.where(top, np.nan, value))
    return sign * value


def finite_fp8_bytes(rng, shape, fmt):
    """Random fp8 bytes with no NaN or infinity."""
    b = rng.integers(0, 256, shape).astype(np.uint8)
    top = 0x7F if fmt == "e4m3" else 0x7C
    return np.where((b & top) == top, b & 0x83, b).astype(np.uint8)


def unpack_e2m1(packed, axis):
    """Two codes a byte, low nibble first, along `axis` (which doubles)."""
    lo, hi = e2m1(packed & 0xF), e2m1(packed >> 4)
    both = np.stack([lo, hi], axis=axis + 1)
    shape = list(packed.shape)
    shape[axis] *= 2
    return both.reshape(shape)


def operand(storage, fmt, k_pack, is_rhs):
    """An operand's float64 values ([M, K] for lhs, [K, N] for rhs)."""
    if fmt == "e2m1":
        k_axis = 0 if is_rhs else 1
        return unpack_e2m1(storage, k_axis if k_pack else 1 - k_axis)
    if fmt in ("e4m3", "e5m2"):
        return fp8(storage.view(np.uint8), fmt)
    return storage.astype(np.float64)


def scaled(values, scale, is_rhs):
    """values times 2^(scale - 127), one scale per 32 elements along K;
    scale byte 255 is NaN."""
    if scale is None:
        return values
    factor = np.where(scale == 255, np.nan, 2.0 ** (scale.astype(np.float64) - 127))
    factor = np.repeat(factor, 32, axis=1)      # [rows, K]
    return values * (factor.T if is_rhs else factor)
