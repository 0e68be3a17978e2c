"""`tl.dot_scaled`: a matrix product of microscaling (OCP MX) operands.

An MX operand holds narrow elements (fp4 e2m1 packed two to a byte, or fp8
e4m3/e5m2) and one e8m0 scale byte per 32 elements along K: element k of row
r stands for value(r, k) * 2^(scale[r, k // 32] - 127). Hopper has no MX
tensor-core instructions, so, as Triton does there, each operand is upcast
to a 16-bit float (bf16, or fp16 when either operand is fp16), multiplied by
its scale in that type, and the product runs as an ordinary tl.dot with a
float32 accumulator. Scale byte 0xFF means NaN (unless fast_math), and the
16-bit scale of byte s is the one bf16/fp16 value nearest 2^(s - 127),
which is 0 where that underflows.

Everything is written with core's builtins, so the interpreter runs this
same body."""

from tile.language import core
from tile.language import dtypes as d
from tile.language.semantic import SemanticError

FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")
SCALE_GROUP = 32    # elements along K per scale byte
_FP8 = {"e4m3": d.float8e4nv, "e5m2": d.float8e5}
_FLOAT16 = {"bf16": d.bfloat16, "fp16": d.float16}


def _format(fmt, which):
    fmt = core._unwrap(fmt)
    if fmt not in FORMATS:
        raise SemanticError("dot_scaled: %s_format must be one of %s, got %r"
                            % (which, ", ".join(FORMATS), fmt))
    return fmt


def _check_storage(x, fmt, which):
    """The element types an operand of format `fmt` may arrive in."""
    ty = x.dtype
    if fmt == "e2m1":
        ok = ty == d.uint8 or ty == d.int8
    elif fmt in _FP8:
        ok = ty == _FP8[fmt] or ty == d.uint8 or ty == d.int8
    else:
        ok = ty == _FLOAT16[fmt]
    if not ok:
        raise SemanticError("dot_scaled: %s in format %s cannot be a tensor of %s"
                            % (which, fmt, ty))


def _e2m1_to_float32(nibble):
    """The float32 value of each 4-bit e2m1 code in `nibble` (uint32, low 4
    bits used). The magnitude code c = 2e + m of the 3 low bits is 0 for
    zero, 0.5 for c == 1 (the one subnormal), and (1 + m/2) * 2^(e-1)
    otherwise, whose float32 bit pattern is exactly (c + 252) << 22."""
    code = nibble & 7
    normal = (code + 252) << 22
    half = core.full_like(code, 126 << 23)
    magnitude = core.where(code >= 2, normal,
                           core.where(code == 1, half, core.zeros_like(code)))
    sign = (nibble & 8) << 28
    return (magnitude | sign).to(d.float32, bitcast=True)


def _interleave_along(lo, hi, axis):
    """lo[0], hi[0], lo[1], hi[1], ... along `axis` of two 2-D blocks."""
    both = core.join(lo, hi)                  # [R, C, 2]
    rows, cols = core._static_shape(lo)
    if axis == 1:
        return core.reshape(both, [rows, cols * 2])
    return core.reshape(core.permute(both, [0, 2, 1]), [rows * 2, cols])


def _values(x, fmt, compute, packed_axis):
    """Operand `x` of format `fmt` as a block of `compute` floats (fp4 codes
    unpacked along `packed_axis`, low nibble first)."""
    if fmt in _FLOAT16:
        return x.to(compute)
    if fmt in _FP8:
        if x.dtype != _FP8[fmt]:
            x = x.to(d.uint8, bitcast=True).to(_FP8[fmt], bitcast=True)
        return x.to(compute)
    byte = x.to(d.uint8, bitcast=True).to(d.uint32)
    lo = _e2m1_to_float32(byte)
    hi = _e2m1_to_float32(byte >> 4)
    return _interleave_along(lo, hi, packed_axis).to(compute)


def _scale_values(scale, compute):
    """The 16-bit float 2^(s - 127) of each e8m0 byte s (0 where it
    underflows the type; 0xFF is handled by the caller)."""
    s = scale.to(d.uint8, bitcast=True)
    if compute == d.bfloat16:
        # bf16 has float32's exponent field: the byte is its exponent.
        return (s.to(d.uint16) << 7).to(d.bfloat16, bitcast=True)
    return (s.to(d.uint32) << 23).to(d.float32, bitcast=True).to(d.float16)


def _apply_scale(values, scale, compute, fast_math, which):
    """values [R, K] times its scale [R, K / 32], each byte repeated over
    its 32 elements of K."""
    rows, k = core._static_shape(values)
    if k % SCALE_GROUP:
        raise SemanticError("dot_scaled: K (%d) must be a multiple of %d to "
                            "be scaled" % (k, SCALE_GROUP))
    want = [rows, k // SCALE_GROUP]
    if core._static_shape(scale) != want:
        raise SemanticError("dot_scaled: %s_scale must have shape %s, got %s"
                            % (which, want, core._static_shape(scale)))
    if not (scale.dtype == d.uint8 or scale.dtype == d.int8):
        raise SemanticError("dot_scaled: %s_scale must hold e8m0 bytes (uint8), "
                            "got %s" % (which, scale.dtype))
    groups = [rows, k // SCALE_GROUP, SCALE_GROUP]

    def spread(per_group):
        """[R, K / 32] -> [R, K], each entry over its 32 elements."""
        return core.reshape(core.broadcast_to(core.expand_dims(per_group, 2),
                                              groups), [rows, k])

    scaled = values * spread(_scale_values(scale, compute))
    if fast_math:
        return scaled
    nan_byte = spread(scale.to(d.uint8, bitcast=True) == 0xFF)
    return core.where(nan_byte, float("nan"), scaled)


@core.builtin
def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format,
               acc=None, fast_math=False, lhs_k_pack=True, rhs_k_pack=True,
               out_dtype=d.float32):
    """lhs [M, K] @ rhs [K, N] (+ acc) in float32, where an operand in an MX
    format ("e2m1", "e4m3", "e5m2") may carry e8m0 scales ([M, K/32] for
    lhs, [N, K/32] for rhs) and "bf16"/"fp16" operands are plain. e2m1
    operands are uint8 with two codes per byte (low nibble first), packed
    along K, or along M / N when lhs_k_pack / rhs_k_pack is False."""
    lhs_format = _format(lhs_format, "lhs")
    rhs_format = _format(rhs_format, "rhs")
    lhs, rhs = core.to_tensor(lhs), core.to_tensor(rhs)
    for x, name in ((lhs, "lhs"), (rhs, "rhs")):
        if len(x.shape) != 2:
            raise SemanticError("dot_scaled needs 2-D operands, got %s of shape "
                                "%s" % (name, core._static_shape(x)))
    _check_storage(lhs, lhs_format, "lhs")
    _check_storage(rhs, rhs_format, "rhs")
    if core._unwrap(out_dtype) != d.float32:
        raise SemanticError("dot_scaled accumulates in float32; out_dtype=%s "
                            "is not supported" % (core._unwrap(out_dtype),))
    fast_math = bool(core._unwrap(fast_math))
    compute = d.float16 if "fp16" in (lhs_format, rhs_format) else d.bfloat16
    a = _values(lhs, lhs_format, compute, 1 if core._unwrap(lhs_k_pack) else 0)
    b = _values(rhs, rhs_format, compute, 0 if core._unwrap(rhs_k_pack) else 1)
    if core._static_shape(a)[1] != core._static_shape(b)[0]:
        raise SemanticError("dot_scaled: the operands' K differ after "
                            "unpacking: lhs %s, rhs %s" % (
                                core._static_shape(a), core._static_shape(b)))
    for scale, fmt, name in ((lhs_scale, lhs_format, "lhs"),
                             (rhs_scale, rhs_format, "rhs")):
        if core._unwrap(scale) is not None and fmt in _FLOAT16:
            raise SemanticError("dot_scaled: a %s operand takes no scale, but "
                                "%s_scale was given" % (fmt, name))
    if core._unwrap(lhs_scale) is not None:
        a = _apply_scale(a, core.to_tensor(lhs_scale), compute, fast_math, "lhs")
    if core._unwrap(rhs_scale) is not None:
        b = core.trans(_apply_scale(core.trans(b), core.to_tensor(rhs_scale),
                                    compute, fast_math, "rhs"))
    return core.dot(a, b, acc, out_dtype=d.float32)

