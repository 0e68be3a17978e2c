"""tile.language.random on the GPU: Philox words bit-exact against the
Python-integer reference (32- and 64-bit counters), uniforms and normals
against float64 (outputs poisoned first)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from kernels import random_kernels as rk  # noqa: E402
from test_random import BLOCK, expected_words  # noqa: E402


@pytest.mark.parametrize("seed, base, wide, rounds", [
    (1234, 0, False, 10), (2**40 + 17, 5, False, 10), (-3, 100, False, 7),
    (987654321, 1, True, 10), (2**62 + 5, 9, True, 4)])
def test_randint4x_on_the_gpu(seed, base, wide, rounds):
    out = torch.full((4 * BLOCK,), 77, dtype=torch.int64, device="cuda")
    rk.philox_kernel[(1,)](out, seed, base, BLOCK=BLOCK, WIDE=wide, ROUNDS=rounds)
    got = out.cpu().numpy().view(np.uint64)
    assert got.tolist() == expected_words(seed, base, wide, rounds).tolist()


def test_philox_and_normals_on_the_gpu():
    out = torch.full((4 * BLOCK,), 77, dtype=torch.int32, device="cuda")
    rk.philox_direct[(1,)](out, 42, BLOCK=BLOCK)
    want = np.array([rk.philox_ref(42, (i, i + 1, 2 * i, 7), 32, 6)
                     for i in range(BLOCK)], np.uint32).T.reshape(-1)
    assert out.cpu().numpy().view(np.uint32).tolist() == want.tolist()
    u = torch.full((2 * BLOCK,), float("nan"), device="cuda")
    n = torch.full((5 * BLOCK,), float("nan"), device="cuda")
    rk.floats_kernel[(1,)](u, n, 7, BLOCK=BLOCK)
    u, n = u.cpu().numpy(), n.cpu().numpy()
    words = [rk.philox_ref(7, (i, 0, 0, 0), 32) for i in range(BLOCK)]

    def uniform(x):
        signed = x - (1 << 32) if x >> 31 else x
        return (-signed - 1 if signed < 0 else signed) * 4.6566127342e-10

    np.testing.assert_allclose(u[:BLOCK], [uniform(w[0]) for w in words], rtol=1e-6)
    u1 = np.maximum(1e-7, np.array([uniform(w[0]) for w in words]))
    u2 = np.array([uniform(w[1]) for w in words])
    r = np.sqrt(-2.0 * np.log(u1))
    np.testing.assert_allclose(n[:BLOCK], r * np.cos(2 * np.pi * u2), atol=1e-4)
    np.testing.assert_allclose(n[BLOCK:2 * BLOCK], r * np.sin(2 * np.pi * u2), atol=1e-4)
