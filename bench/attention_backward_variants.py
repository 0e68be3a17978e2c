"""The fused five-dot attention backward, in the forms measured for the
training-step target (issue 18, docs/design/attention-training-step.md),
against examples/05_attention.py's two kernels: the same GPU, one call.

One program per block of keys accumulates dK and dV over the query blocks
(as the example's dK/dV kernel does) and also computes that block's share
of dQ = dS K, added into an fp32 buffer shared by all key blocks:
- `red`: `tl.atomic_add` of the tile (red.global.add.v2.f32 from the
  accumulator's registers);
- `tma`: `dq_desc.atomic_add` (a TMA bulk reduction from a shared buffer;
  the wait for its read is deferred to the next refill);
- `red_early_dp`: dP's dot issued right behind S's, so the exponentials
  overlap it;
- `red_dk_first`: dK's dot issued before dQ's reduction;
- `ws_red`, `ws_tma`: the loop warp-specialised (a producer warp loads Q
  and dO by TMA); with `ws_tma` the dQ reduction goes to the producer's
  second warp, the writer (FlashAttention-3's dQ writer): the consumers
  leave each tile in one of two shared buffers and go on;
- `qk_ws_tma`: FlashAttention-3's orientation (the queries as the scores'
  rows), warp-specialised with the writer: the example's
  `attention_backward_fused`, which its training step runs.
The whole backward is timed (delta, zeroing the dQ buffer, the final scale
and cast included), with each variant's gradients checked against float64
first. Run: python3 bench/attention_backward_variants.py
(python/test/test_attention_backward_variants.py runs the kernel in the
interpreter and compiles each variant for sm_90a.)"""

import math
import os
import sys

import tile
import tile.language as tl
from tile.tools.tensor_descriptor import TensorDescriptor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

LOG2E = tl.constexpr(1.4426950408889634)


@tile.jit
def attention_backward_fused(q_desc, k_desc, v_desc, do_desc, dq_desc, DQ, Lse,
                             Delta, dK, dV, scale, seq_len,
                             CAUSAL: tl.constexpr, DQ_TMA: tl.constexpr,
                             EARLY_DP: tl.constexpr, DK_FIRST: tl.constexpr,
                             WS: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr):
    start_n = tl.program_id(0) * BLOCK_N
    base = tl.program_id(1) * seq_len
    cols = start_n + tl.arange(0, BLOCK_N)
    dims = tl.arange(0, HEAD_DIM)
    k = k_desc.load([base + start_n, 0])
    v = v_desc.load([base + start_n, 0])
    dk = tl.zeros((BLOCK_N, HEAD_DIM), dtype=tl.float32)
    dv = tl.zeros((BLOCK_N, HEAD_DIM), dtype=tl.float32)
    qk_scale = scale * LOG2E
    start = (start_n // BLOCK_M) * BLOCK_M if CAUSAL else 0
    for start_m in tl.range(start, seq_len, BLOCK_M, warp_specialize=WS):
        rows = start_m + tl.arange(0, BLOCK_M)
        q = q_desc.load([base + start_m, 0])
        do = do_desc.load([base + start_m, 0])
        lse = tl.load(Lse + base + rows, mask=rows < seq_len, other=0.0)
        delta = tl.load(Delta + base + rows, mask=rows < seq_len, other=0.0)
        s_t = tl.dot(k, tl.trans(q))
        if EARLY_DP:
            dp_t = tl.dot(v, tl.trans(do))
        # Keys past the head's end are the next head's: they must not
        # reach dQ (dK and dV rows there are not stored).
        keep = (rows[None, :] < seq_len) & (cols[:, None] < seq_len)
        if CAUSAL:
            keep = keep & (rows[None, :] >= cols[:, None])
        p_t = tl.where(keep, tl.exp2(s_t * qk_scale - lse[None, :]), 0.0)
        dv += tl.dot(p_t.to(do_desc.dtype), do)
        if not EARLY_DP:
            dp_t = tl.dot(v, tl.trans(do))
        ds_t = (p_t * (dp_t - delta[None, :])).to(q_desc.dtype)
        dq = tl.dot(tl.trans(ds_t), k)
        if DK_FIRST:
            dk += tl.dot(ds_t, q)
        if DQ_TMA:
            # Rows past the head's end carry zeros (their P is masked), so
            # adding them into the next head's rows changes nothing.
            dq_desc.atomic_add([base + start_m, 0], dq)
        else:
            tl.atomic_add(DQ + (base + rows[:, None]).to(tl.int64) * HEAD_DIM
                          + dims[None, :], dq, mask=rows[:, None] < seq_len,
                          sem="relaxed")
        if not DK_FIRST:
            dk += tl.dot(ds_t, q)
    keys = (base + cols[:, None]).to(tl.int64) * HEAD_DIM + dims[None, :]
    tl.store(dK + keys, (dk * scale).to(dK.dtype.element_ty),
             mask=cols[:, None] < seq_len)
    tl.store(dV + keys, dv.to(dV.dtype.element_ty),
             mask=cols[:, None] < seq_len)


VARIANTS = {
    "red": dict(DQ_TMA=False, EARLY_DP=False, DK_FIRST=False, WS=False),
    "tma": dict(DQ_TMA=True, EARLY_DP=False, DK_FIRST=False, WS=False),
    "red_early_dp": dict(DQ_TMA=False, EARLY_DP=True, DK_FIRST=False,
                         WS=False),
    "red_dk_first": dict(DQ_TMA=False, EARLY_DP=False, DK_FIRST=True,
                         WS=False),
    "ws_red": dict(DQ_TMA=False, EARLY_DP=False, DK_FIRST=False, WS=True),
    "ws_tma": dict(DQ_TMA=True, EARLY_DP=False, DK_FIRST=False, WS=True),
    "qk_ws_tma": {},
}


def kernel_of(ex, variant):
    """The kernel a variant runs: for `qk_ws_tma`, the example's."""
    if variant.startswith("qk_"):
        return ex.attention_backward_fused
    return attention_backward_fused


def fused_backward(ex, q, k, v, out, lse, dout, causal, variant,
                   block_m=64, block_n=128):
    import torch
    if variant.startswith("qk_"):
        return ex.attention_backward(q, k, v, out, lse, dout, causal,
                                     poison=False)
    heads, seq_len, d = q.shape
    scale = 1 / math.sqrt(d)
    delta = torch.empty(heads, seq_len, device=q.device, dtype=torch.float32)
    ex.attention_backward_delta[(tile.cdiv(seq_len, block_m), heads)](
        out, dout, delta, seq_len, q.stride(0), q.stride(1), HEAD_DIM=d,
        BLOCK_M=block_m)
    dq_sum = torch.zeros(heads * seq_len, d, device=q.device,
                         dtype=torch.float32)
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    descs = [TensorDescriptor.from_tensor(t.reshape(-1, d), [rows, d])
             for t, rows in ((q, block_m), (k, block_n), (v, block_n),
                             (dout, block_m))]
    attention_backward_fused[(tile.cdiv(seq_len, block_n), heads)](
        *descs, TensorDescriptor.from_tensor(dq_sum, [block_m, d]), dq_sum,
        lse, delta, dk, dv, scale, seq_len, CAUSAL=causal, HEAD_DIM=d,
        BLOCK_M=block_m, BLOCK_N=block_n, num_warps=8, num_stages=2,
        **VARIANTS[variant])
    return (dq_sum * scale).to(q.dtype).reshape(q.shape), dk, dv


def relative_error(got, want):
    return ((got.double() - want).norm() / want.norm()).item()


def main():
    import importlib
    import torch
    import bench  # this directory's timing helper; it needs torch
    ex = importlib.import_module("05_attention")
    torch.manual_seed(0)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for heads, seq_len in ((3, 1000), (2, 256)):
        q, k, v, dout = (torch.randn(heads, seq_len, 128, device="cuda",
                                     dtype=torch.float16) for _ in range(4))
        for causal in (False, True):
            out, lse = ex.attention(q, k, v, causal, with_lse=True)
            exact = [t.double().requires_grad_() for t in (q, k, v)]
            sdpa(*exact, is_causal=causal).backward(dout.double())
            for variant in VARIANTS:
                got = fused_backward(ex, q, k, v, out, lse, dout, causal,
                                     variant)
                errors = [relative_error(g, e.grad)
                          for g, e in zip(got, exact)]
                if max(errors) > 4e-3:
                    raise AssertionError("%s, %d x %d, causal=%s: relative "
                                         "errors %s" % (variant, heads,
                                                        seq_len, causal,
                                                        errors))
    print("%-14s %-6s %s" % ("backward", "mask", "ms (two rounds)"))
    q, k, v, dout = (torch.randn(32, 4096, 128, device="cuda",
                                 dtype=torch.float16) for _ in range(4))
    for causal in (False, True):
        out, lse = ex.attention(q, k, v, causal, with_lse=True, poison=False)
        runs = {"two kernels": lambda: ex.attention_backward(
            q, k, v, out, lse, dout, causal, poison=False, fused=False)}
        for variant in VARIANTS:
            runs[variant] = (lambda variant=variant: fused_backward(
                ex, q, k, v, out, lse, dout, causal, variant))
        rounds = [{name: bench.gpu_time_ms(fn, reps=50)
                   for name, fn in runs.items()}
                  for _ in range(2)]
        for name in runs:
            print("%-14s %-6s %s" % (name, "causal" if causal else "full",
                                     " ".join("%.3f" % r[name]
                                              for r in rounds)))
    print("device:", torch.cuda.get_device_name())


if __name__ == "__main__":
    main()
