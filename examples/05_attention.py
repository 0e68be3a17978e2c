"""Fused attention forward (FlashAttention's online softmax).

What it teaches:
- a loop over key/value blocks that keeps a running max `m` and running sum
  `l` per query row, rescaling the accumulator when the max grows, so the
  S x S score matrix never exists in memory;
- two chained `tl.dot`s (Q K^T, then P V) with the probabilities cast to
  fp16 between them, as the tensor cores want;
- `tl.trans`, `exp2` with log2(e) folded into the scale, and a causal mask
  that also bounds the loop (blocks above the diagonal are skipped);
- 3-D launch grids: (query blocks, batch x heads).

Run: python examples/05_attention.py
"""

import common

import math

import numpy as np

import tile
import tile.language as tl


@tile.jit
def attention_forward(Q, K, V, Out, scale, seq_len, stride_head, stride_row,
                      CAUSAL: tl.constexpr, HEAD_DIM: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    head = tl.program_id(1).to(tl.int64) * stride_head
    rows = start_m + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + head + rows[:, None] * stride_row + dims[None, :],
                mask=rows[:, None] < seq_len, other=0.0)
    m = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = scale * 1.4426950408889634  # exp(x) = exp2(x * log2(e))
    end = tl.minimum(start_m + BLOCK_M, seq_len) if CAUSAL else seq_len
    for start_n in range(0, end, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(K + head + cols[:, None] * stride_row + dims[None, :],
                    mask=cols[:, None] < seq_len, other=0.0)
        v = tl.load(V + head + cols[:, None] * stride_row + dims[None, :],
                    mask=cols[:, None] < seq_len, other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        keep = cols[None, :] < seq_len
        if CAUSAL:
            keep = keep & (cols[None, :] <= rows[:, None])
        s = tl.where(keep, s, -float("inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        p = tl.exp2(s - m_new[:, None])
        correction = tl.exp2(m - m_new)
        l = l * correction + tl.sum(p, axis=1)
        acc = acc * correction[:, None] + tl.dot(p.to(tl.float16), v)
        m = m_new
    out = acc / l[:, None]
    tl.store(Out + head + rows[:, None] * stride_row + dims[None, :],
             out.to(tl.float16), mask=rows[:, None] < seq_len)


def attention(q, k, v, causal):
    heads, seq_len, head_dim = q.shape
    out = common.empty_like(q)
    block_m, block_n = (32, 32) if common.SMALL else (128, 64)
    grid = (tile.cdiv(seq_len, block_m), heads)
    attention_forward[grid](q, k, v, out, 1 / math.sqrt(head_dim), seq_len,
                            common.stride(q, 0), common.stride(q, 1),
                            CAUSAL=causal, HEAD_DIM=head_dim, BLOCK_M=block_m,
                            BLOCK_N=block_n, num_warps=4 if common.SMALL else 8,
                            num_stages=1 if common.SMALL else 3)
    return out


def reference(q, k, v, causal):
    q, k, v = (common.float64(t) for t in (q, k, v))
    s = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v


def main():
    print("fused attention forward, %s" % common.where())
    heads, seq_len, head_dim = (2, 100, 64) if common.SMALL else (32, 4096, 128)
    q, k, v = (common.randn(heads, seq_len, head_dim, dtype="float16")
               for _ in range(3))
    for causal in (False, True):
        name = "causal" if causal else "full"
        common.check("attention, %s" % name, attention(q, k, v, causal),
                     reference(q, k, v, causal), 1e-2, 1e-2)
        common.compare_with_interpreter(
            "attention, %s" % name,
            lambda: attention(q[:2, :100].contiguous(), k[:2, :100].contiguous(),
                              v[:2, :100].contiguous(), causal),
            [attention_forward], 2e-3, 2e-3)
    if common.BENCH:
        sdpa = common.torch.nn.functional.scaled_dot_product_attention
        for causal in (False, True):
            flops = 4 * heads * seq_len * seq_len * head_dim * (0.5 if causal else 1)
            common.report("tile, causal=%s" % causal, common.bench_ms(
                lambda: attention(q, k, v, causal)), flops, "TFLOPS")
            common.report("torch SDPA, causal=%s" % causal, common.bench_ms(
                lambda: sdpa(q[None], k[None], v[None], is_causal=causal)),
                flops, "TFLOPS")


if __name__ == "__main__":
    main()
