"""Counter-based random numbers: Philox-4x32 and Philox-4x64 with 10 rounds
(Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), and
the conversions Triton builds on them, with Triton's names and results.

`seed` (a 32- or 64-bit scalar) is the key, `offset` (usually a block of
element indices) the counter, so each element's stream is reproducible and
independent of how the work is split over programs. A 64-bit offset runs
the 64-bit variant, as in Triton. Everything here is written with core's
builtins, so the interpreter runs these same bodies."""

import builtins

from tile.language import core
from tile.language import dtypes as d
from tile.language.semantic import SemanticError

ROUNDS = 10

# Per counter width: the Weyl increments of the key and the round
# multipliers, from the paper.
_KEY_STEP = {32: (0x9E3779B9, 0xBB67AE85),
             64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)}
_MULTIPLIER = {32: (0xD2511F53, 0xCD9E8D57),
               64: (0xD2E7470EE14C6C93, 0xCA5A826395121157)}


def _width(x, what):
    bits = x.dtype.primitive_bitwidth
    if not x.dtype.is_int() or bits not in (32, 64):
        raise SemanticError("%s must be 32- or 64-bit integers, got %s" % (what, x.dtype))
    return bits


@core.builtin
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=ROUNDS):
    """`n_rounds` Philox rounds on the counter (c0, c1, c2, c3) with the key
    (k0, k1), all unsigned of one width (32 or 64 bits)."""
    c0, c1, c2, c3 = (core.to_tensor(c) for c in (c0, c1, c2, c3))
    k0, k1 = core.to_tensor(k0), core.to_tensor(k1)
    bits = _width(c0, "philox's counters")
    step, mult = _KEY_STEP[bits], _MULTIPLIER[bits]
    for _ in builtins.range(int(core._unwrap(n_rounds))):
        prev0, prev2 = c0, c2
        c0 = core.umulhi(prev2, mult[1]) ^ c1 ^ k0
        c2 = core.umulhi(prev0, mult[0]) ^ c3 ^ k1
        c1 = prev2 * mult[1]
        c3 = prev0 * mult[0]
        k0 = k0 + step[0]
        k1 = k1 + step[1]
    return c0, c1, c2, c3


@core.builtin
def philox(seed, c0, c1, c2, c3, n_rounds=ROUNDS):
    """Philox of the counter (c0..c3, 32- or 64-bit integers) keyed by
    `seed`: four unsigned integers of the counters' width."""
    seed = core.to_tensor(seed)
    if not seed.dtype.is_int():
        raise SemanticError("the seed must be an integer, got %s" % seed.dtype)
    seed = seed.to(d.uint64)
    c0, c1, c2, c3 = (core.to_tensor(c) for c in (c0, c1, c2, c3))
    if _width(c0, "philox's counters") == 32:
        unsigned = d.uint32
        hi = ((seed >> 32) & 0xFFFFFFFF).to(d.uint32)
        lo = (seed & 0xFFFFFFFF).to(d.uint32)
    else:
        unsigned = d.uint64
        hi = seed * 0
        lo = seed
    c0, c1, c2, c3 = (c.to(unsigned, bitcast=True) for c in (c0, c1, c2, c3))
    return philox_impl(c0, c1, c2, c3, lo, hi, n_rounds)


@core.builtin
def randint4x(seed, offset, n_rounds=ROUNDS):
    """Four blocks of random unsigned integers (the width of `offset`)."""
    offset = core.to_tensor(offset)
    if not offset.dtype.is_int():
        raise SemanticError("the offset must be an integer, got %s" % offset.dtype)
    zero = offset * 0
    return philox(seed, offset, zero, zero, zero, n_rounds)


@core.builtin
def randint(seed, offset, n_rounds=ROUNDS):
    return randint4x(seed, offset, n_rounds)[0]


@core.builtin
def uint_to_uniform_float(x):
    """Random integers (32 or 64 bits) to float32 in [0, 1): the value with
    its sign folded away, times 2^-31 (or 2^-63); never 1.0."""
    x = core.to_tensor(x)
    if _width(x, "uint_to_uniform_float's input") == 32:
        x = x.to(d.int32, bitcast=True)
        scale = 4.6566127342e-10
    else:
        x = x.to(d.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    x = core.where(x < 0, -x - 1, x)
    return x * scale


@core.builtin
def rand(seed, offset, n_rounds=ROUNDS):
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@core.builtin
def rand4x(seed, offset, n_rounds=ROUNDS):
    i1, i2, i3, i4 = randint4x(seed, offset, n_rounds)
    return (uint_to_uniform_float(i1), uint_to_uniform_float(i2),
            uint_to_uniform_float(i3), uint_to_uniform_float(i4))


@core.builtin
def pair_uniform_to_normal(u1, u2):
    """Two uniform samples to two standard normal ones (Box-Muller)."""
    u1 = core.maximum(1.0e-7, u1)
    theta = 6.283185307179586 * u2
    radius = core.sqrt(-2.0 * core.log(u1))
    return radius * core.cos(theta), radius * core.sin(theta)


@core.builtin
def randn(seed, offset, n_rounds=ROUNDS):
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = pair_uniform_to_normal(uint_to_uniform_float(i1),
                                   uint_to_uniform_float(i2))
    return n1


@core.builtin
def randn4x(seed, offset, n_rounds=ROUNDS):
    i1, i2, i3, i4 = randint4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(uint_to_uniform_float(i1),
                                    uint_to_uniform_float(i2))
    n3, n4 = pair_uniform_to_normal(uint_to_uniform_float(i3),
                                    uint_to_uniform_float(i4))
    return n1, n2, n3, n4
