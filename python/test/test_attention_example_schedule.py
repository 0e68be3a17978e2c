"""The attention example's persistent forward (examples/05_attention.py,
`attention_forward_tma`) under the interpreter with few programs, so that
every program draws several rounds of tiles: with a causal mask the tiles
are dealt heaviest first with every other full round reversed, and a tile
drawn twice or never shows as a wrong or NaN row of the output."""

import math

import numpy as np
import pytest

import tile
from example_modules import attention_example
from tile.runtime import jit


def reference(q, k, v, causal):
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1)
    s /= math.sqrt(q.shape[-1])
    if causal:
        n = q.shape[1]
        s = np.where(np.triu(np.ones((n, n), bool), 1), -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    lse = np.log(p.sum(-1)) + s.max(-1)
    return (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64), lse


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("programs", [1, 3, 4, 5, 8])
def test_persistent_forward_draws_every_tile_once(monkeypatch, programs,
                                                  causal):
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)
    ex = attention_example()
    heads, seq_len, head_dim, block = 3, 100, 16, 16
    rng = np.random.default_rng(programs * 2 + causal)
    q, k, v = (rng.standard_normal((heads, seq_len, head_dim))
               .astype(np.float16) for _ in range(3))
    out = np.full((heads, seq_len, head_dim), np.nan, np.float16)
    lse = np.full((heads, seq_len), np.nan, np.float32)
    descs = [tile.TensorDescriptor.from_tensor(t.reshape(-1, head_dim),
                                               [block, head_dim])
             for t in (q, k, v)]
    ex.attention_forward_tma[(programs,)](
        *descs, out, lse, 1 / math.sqrt(head_dim), seq_len, heads,
        CAUSAL=causal, HEAD_DIM=head_dim, BLOCK_M=block, BLOCK_N=block,
        PROGRAMS=programs)
    want, want_lse = reference(q, k, v, causal)
    assert not np.isnan(out).any()
    np.testing.assert_allclose(out.astype(np.float64), want, atol=2e-3)
    # The kernel keeps the log-sum-exp in base-2 units.
    np.testing.assert_allclose(lse * math.log(2), want_lse, atol=1e-3)
