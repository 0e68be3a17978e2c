"""tile.language.random under Triton's names (philox, philox_impl,
randint4x, uint_to_uniform_float, pair_uniform_to_normal, randn4x), in the
interpreter against an independent Philox in Python integers; the compile
path; errors at the call's line. The GPU runs the same kernels in
test_gpu_random.py."""

import numpy as np
import pytest

import tile
import tile.language as tl
from kernels import random_kernels as rk

BLOCK = 64


def interpreted(fn):
    return tile.jit(fn.fn, interpret=True)


def expected_words(seed, base, wide, rounds):
    bits = 64 if wide else 32
    rows = []
    for i in range(BLOCK):
        counter = base + i
        if wide:
            counter = counter * 3000000000
        rows.append(rk.philox_ref(seed, (counter, 0, 0, 0), bits, rounds))
    return np.array(rows, dtype=np.uint64).T.reshape(-1)


@pytest.mark.parametrize("seed, base, wide, rounds", [
    (1234, 0, False, 10), (2**40 + 17, 5, False, 10), (-3, 100, False, 7),
    (987654321, 1, True, 10), (2**63 + 5, 9, True, 4)])
def test_randint4x_is_philox(seed, base, wide, rounds):
    out = np.full(4 * BLOCK, 77, np.int64)
    interpreted(rk.philox_kernel)[(1,)](out, seed, base, BLOCK=BLOCK,
                                        WIDE=wide, ROUNDS=rounds)
    assert out.view(np.uint64).tolist() == expected_words(seed, base, wide, rounds).tolist()


def test_philox_with_four_counters():
    out = np.full(4 * BLOCK, 77, np.int32)
    interpreted(rk.philox_direct)[(1,)](out, 42, BLOCK=BLOCK)
    want = np.array([rk.philox_ref(42, (i, i + 1, 2 * i, 7), 32, 6)
                     for i in range(BLOCK)], np.uint32).T.reshape(-1)
    assert out.view(np.uint32).tolist() == want.tolist()


def test_uniform_and_normal():
    u = np.full(2 * BLOCK, np.nan, np.float32)
    n = np.full(5 * BLOCK, np.nan, np.float32)
    interpreted(rk.floats_kernel)[(1,)](u, n, 7, BLOCK=BLOCK)
    words = [rk.philox_ref(7, (i, 0, 0, 0), 32) for i in range(BLOCK)]

    def uniform(x, bits):
        signed = x - (1 << bits) if x >> (bits - 1) else x
        folded = -signed - 1 if signed < 0 else signed
        return np.float32(folded) * np.float32(
            4.6566127342e-10 if bits == 32 else 1.0842020432385337e-19)

    want_u = [uniform(w[0], 32) for w in words]
    wide = [rk.philox_ref(7, (i, 0, 0, 0), 64)[0] for i in range(BLOCK)]
    want_u += [uniform(w, 64) for w in wide]
    np.testing.assert_allclose(u, np.array(want_u, np.float32), rtol=1e-6)
    assert ((u >= 0) & (u < 1)).all()
    u1 = np.maximum(np.float32(1e-7), np.array([uniform(w[0], 32) for w in words]))
    u2 = np.array([uniform(w[1], 32) for w in words])
    r = np.sqrt(-2.0 * np.log(u1.astype(np.float64)))
    np.testing.assert_allclose(n[:BLOCK], r * np.cos(2 * np.pi * u2), atol=2e-5)
    np.testing.assert_allclose(n[BLOCK:2 * BLOCK], r * np.sin(2 * np.pi * u2),
                               atol=2e-5)
    np.testing.assert_array_equal(n[4 * BLOCK:], n[:BLOCK])   # randn = randn4x[0]


@pytest.mark.parametrize("fn, signature", [
    (rk.philox_kernel, {"out_ptr": "*i64", "seed": "i64", "base": "i32"}),
    (rk.floats_kernel, {"u_ptr": "*fp32", "n_ptr": "*fp32", "seed": "i32"}),
    (rk.philox_direct, {"out_ptr": "*i32", "seed": "i32"}),
])
def test_compiles(fn, signature):
    constants = {"BLOCK": BLOCK}
    if fn is rk.philox_kernel:
        constants.update(WIDE=True, ROUNDS=10)
    ptx = tile.compile(fn, signature, constants).asm["ptx"]
    assert "mul.hi" in ptx


@tile.jit
def float_counter(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b, c, d = tl.philox(5, offs.to(tl.float32), offs, offs, offs)
    tl.store(out_ptr + offs, a)


@tile.jit
def short_counter(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK).to(tl.int16)
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.randint(5, offs))


@pytest.mark.parametrize("fn, message", [
    (float_counter, "philox's counters must be 32- or 64-bit integers, got tl.float32"),
    (short_counter, "philox's counters must be 32- or 64-bit integers, got tl.int16"),
])
def test_bad_counters_fail_at_the_line(fn, message):
    with pytest.raises(tile.CompilationError, match=message) as info:
        tile.compile(fn, {"out_ptr": "*u32"}, {"BLOCK": 16})
    assert "test_random.py:" in str(info.value) and "^" in str(info.value)
