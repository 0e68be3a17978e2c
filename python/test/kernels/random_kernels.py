"""Kernels over tile.language.random's Triton names, and an independent
Philox reference in plain Python integers for the tests."""

import tile
import tile.language as tl


@tile.jit
def philox_kernel(out_ptr, seed, base, BLOCK: tl.constexpr, WIDE: tl.constexpr,
                  ROUNDS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    counter = base + offs
    if WIDE:
        counter = counter.to(tl.int64) * 3000000000
    a, b, c, d = tl.randint4x(seed, counter, ROUNDS)
    # Widened to 64 bits and stored as int64 (torch has few uint64 ops).
    tl.store(out_ptr + offs, a.to(tl.uint64).to(tl.int64, bitcast=True))
    tl.store(out_ptr + BLOCK + offs, b.to(tl.uint64).to(tl.int64, bitcast=True))
    tl.store(out_ptr + 2 * BLOCK + offs, c.to(tl.uint64).to(tl.int64, bitcast=True))
    tl.store(out_ptr + 3 * BLOCK + offs, d.to(tl.uint64).to(tl.int64, bitcast=True))


@tile.jit
def floats_kernel(u_ptr, n_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    i1, i2, i3, i4 = tl.randint4x(seed, offs)
    tl.store(u_ptr + offs, tl.uint_to_uniform_float(i1))
    wide = tl.randint(seed, offs.to(tl.int64))
    tl.store(u_ptr + BLOCK + offs, tl.uint_to_uniform_float(wide))
    n1, n2, n3, n4 = tl.randn4x(seed, offs)
    tl.store(n_ptr + offs, n1)
    tl.store(n_ptr + BLOCK + offs, n2)
    tl.store(n_ptr + 2 * BLOCK + offs, n3)
    tl.store(n_ptr + 3 * BLOCK + offs, n4)
    tl.store(n_ptr + 4 * BLOCK + offs, tl.randn(seed, offs))


@tile.jit
def philox_direct(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b, c, d = tl.philox(seed, offs, offs + 1, offs * 2, offs * 0 + 7, 6)
    tl.store(out_ptr + offs, a.to(tl.int32, bitcast=True))
    tl.store(out_ptr + BLOCK + offs, b.to(tl.int32, bitcast=True))
    tl.store(out_ptr + 2 * BLOCK + offs, c.to(tl.int32, bitcast=True))
    tl.store(out_ptr + 3 * BLOCK + offs, d.to(tl.int32, bitcast=True))


# -------------------------------------------------------------- reference

KEY = {32: (0x9E3779B9, 0xBB67AE85), 64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)}
MUL = {32: (0xD2511F53, 0xCD9E8D57), 64: (0xD2E7470EE14C6C93, 0xCA5A826395121157)}


def philox_ref(seed, counter, bits, rounds=10):
    """Philox-4xW on one counter tuple (Python ints), keyed as Triton keys
    it: 32-bit counters take the seed's low and high words, 64-bit ones
    the whole seed and 0."""
    mask = (1 << bits) - 1
    seed &= (1 << 64) - 1
    if bits == 32:
        k0, k1 = seed & mask, (seed >> 32) & mask
    else:
        k0, k1 = seed, 0
    c0, c1, c2, c3 = (c & mask for c in counter)
    for _ in range(rounds):
        p0, p2 = c0, c2
        c0 = ((p2 * MUL[bits][1]) >> bits) ^ c1 ^ k0
        c2 = ((p0 * MUL[bits][0]) >> bits) ^ c3 ^ k1
        c1 = (p2 * MUL[bits][1]) & mask
        c3 = (p0 * MUL[bits][0]) & mask
        k0 = (k0 + KEY[bits][0]) & mask
        k1 = (k1 + KEY[bits][1]) & mask
    return c0, c1, c2, c3
