"""Fused attention, forward and backward (FlashAttention's online softmax),
as a torch.autograd.Function on the GPU.

What it teaches:
- a loop over key/value blocks that keeps a running max `m` and running sum
  `l` per query row, rescaling the accumulator when the max grows, so the
  S x S score matrix never exists in memory;
- two chained `tl.dot`s (Q K^T, then P V) with the probabilities cast to
  the input type between them, as the tensor cores want;
- `tl.trans`, `exp2` with log2(e) folded into the scale, and a causal mask
  that also bounds the loop (blocks above the diagonal are skipped);
- the backward from the forward's one saved statistic per row (the
  log-sum-exp): P is recomputed block by block, one kernel accumulates dK
  and dV over query blocks, another dQ over key blocks, so no program
  writes where another does (no atomics); on the GPU one fused kernel
  does all three, adding each block's dQ share into an fp32 buffer (zeroed
  by the kernel that computes delta) by TMA reductions (five products
  instead of seven);
- 2-D launch grids: (query or key blocks, batch x heads);
- on the GPU, the forward on host tensor descriptors (whole Q, K and V
  blocks by TMA) with `tl.range(..., warp_specialize=True)`: a producer
  warpgroup issues the copies while two consumer warpgroups take turns on
  the tensor cores, the way FlashAttention-3 schedules it; the backward's
  kernels on descriptors too (blocks past a head's end read the next
  head's rows, so masks, not the loads, keep them out). The training
  step runs those; the pointer kernels stay for the interpreter.

Run: python examples/05_attention.py
"""

import common

import math

import numpy as np

import tile
import tile.language as tl
from tile.tools.tensor_descriptor import TensorDescriptor


# exp(x) = exp2(x * log2(e)); a global a kernel reads must be a constexpr.
LOG2E = tl.constexpr(1.4426950408889634)


@tile.jit
def attention_forward(Q, K, V, Out, Lse, scale, seq_len, stride_head,
                      stride_row, CAUSAL: tl.constexpr, HEAD_DIM: tl.constexpr,
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
    qk_scale = scale * LOG2E
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
        acc = acc * correction[:, None] + tl.dot(p.to(V.dtype.element_ty), v)
        m = m_new
    out = acc / l[:, None]
    tl.store(Out + head + rows[:, None] * stride_row + dims[None, :],
             out.to(Out.dtype.element_ty), mask=rows[:, None] < seq_len)
    # What the backward needs to recompute P = exp2(S * qk_scale - lse):
    # the row's log-sum-exp, in the same base-2 units as m.
    tl.store(Lse + tl.program_id(1) * seq_len + rows, m + tl.log2(l),
             mask=rows < seq_len)


@tile.jit
def attention_forward_tma(q_desc, k_desc, v_desc, Out, Lse, scale, seq_len,
                          heads, CAUSAL: tl.constexpr, HEAD_DIM: tl.constexpr,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          PROGRAMS: tl.constexpr):
    """attention_forward on descriptors over (heads * seq_len, HEAD_DIM).
    A block past a head's last row reads the next head's rows (or zeros
    after the last head): its keys are masked as before, and its queries'
    rows are never stored, so the output and statistics are written with
    masked pointer stores rather than whole blocks.

    Persistent: `PROGRAMS` programs (one per SM) walk the (query block,
    head) tiles, so that the producer warpgroup copies a tile's first key
    blocks while the consumers finish the previous tile. Without a mask
    tiles run through one head's query blocks before the next head's (the
    programs at work at once share a few heads' keys in L2).

    With a causal mask a tile's work grows with its query block, and
    handing the tiles out in turn would leave the programs that drew the
    heavy ones running alone at the end (12% over the mean at 32 heads x
    32 blocks on 132 SMs). There the tiles go heaviest first (every
    head's last query block, then the ones before), and every other full
    round of `PROGRAMS` tiles is dealt in reverse, so that the program that
    drew a round's heaviest tile draws the next round's lightest (at most
    0.1% over the mean there). The reversals count back from the last full
    round, which is dealt in reverse, so the partial round after it goes
    to the least loaded programs. The programs at work at once still share
    keys: a round holds each head's few neighbouring query blocks.
    """
    num_m = tl.cdiv(seq_len, BLOCK_M)
    tiles = num_m * heads
    for tile_id in tl.range(tl.program_id(0), tiles, PROGRAMS,
                            warp_specialize=True):
        if CAUSAL:
            rank = _dealt_in_turns(tile_id, tiles, PROGRAMS)
            block = num_m - 1 - rank // heads
            base = (rank % heads) * seq_len
        else:
            block = tile_id % num_m
            base = (tile_id // num_m) * seq_len
        start_m = block * BLOCK_M
        _attention_tile_tma(q_desc, k_desc, v_desc, Out, Lse, scale, seq_len,
                            start_m, base, CAUSAL, HEAD_DIM, BLOCK_M, BLOCK_N)


@tile.jit
def _dealt_in_turns(tile_id, tiles, PROGRAMS: tl.constexpr):
    """The place in heaviest-first order of the tile a persistent program
    draws as its `tile_id` (program_id + k * PROGRAMS): full rounds an odd
    number of rounds before the partial one (or the end) are dealt in
    reverse."""
    program = tile_id % PROGRAMS
    turn = tile_id // PROGRAMS
    reverse = (tiles // PROGRAMS - turn) % 2 == 1
    return turn * PROGRAMS + tl.where(reverse, PROGRAMS - 1 - program,
                                       program)


@tile.jit
def _attention_tile_tma(q_desc, k_desc, v_desc, Out, Lse, scale, seq_len,
                        start_m, base, CAUSAL: tl.constexpr,
                        HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                        BLOCK_N: tl.constexpr):
    """One query block of one head (rows start_m.. of the head at row
    `base`)."""
    rows = start_m + tl.arange(0, BLOCK_M)
    q = q_desc.load([base + start_m, 0])
    m = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = scale * LOG2E
    end = tl.minimum(start_m + BLOCK_M, seq_len) if CAUSAL else seq_len
    for start_n in range(0, end, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        s = tl.dot(q, k_desc.load([base + start_n, 0]).T)
        # Only a block that reaches past the diagonal (causal) or past the
        # sequence's end needs the mask; the others skip its compares.
        if start_n + BLOCK_N > (start_m if CAUSAL else seq_len):
            keep = cols[None, :] < seq_len
            if CAUSAL:
                keep = keep & (cols[None, :] <= rows[:, None])
            s = tl.where(keep, s, -float("inf"))
        # The row max of the unscaled scores, scaled once: exp2 then takes
        # s * qk_scale - m as one fused multiply-add per score.
        m_new = tl.maximum(m, tl.max(s, axis=1) * qk_scale)
        p = tl.exp2(s * qk_scale - m_new[:, None])
        correction = tl.exp2(m - m_new)
        l = l * correction + tl.sum(p, axis=1)
        acc = acc * correction[:, None]
        acc = tl.dot(p.to(v_desc.dtype), v_desc.load([base + start_n, 0]),
                     acc)
        m = m_new
    out = acc / l[:, None]
    dims = tl.arange(0, HEAD_DIM)
    tl.store(Out + (base + rows[:, None]).to(tl.int64) * HEAD_DIM
             + dims[None, :], out.to(Out.dtype.element_ty),
             mask=rows[:, None] < seq_len)
    tl.store(Lse + base + rows, m + tl.log2(l), mask=rows < seq_len)


@tile.jit
def attention_backward_delta(Out, dOut, Delta, seq_len, stride_head,
                             stride_row, HEAD_DIM: tl.constexpr,
                             BLOCK_M: tl.constexpr, dQSum=None):
    """Delta = rowsum(O * dO), the softmax backward's correction term; with
    `dQSum` (the fused backward's fp32 dQ, contiguous rows), also zeroes
    these rows of it: one launch fewer in front of the fused kernel, which
    adds into them."""
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    head = tl.program_id(1).to(tl.int64) * stride_head
    dims = tl.arange(0, HEAD_DIM)
    offsets = head + rows[:, None] * stride_row + dims[None, :]
    o = tl.load(Out + offsets, mask=rows[:, None] < seq_len, other=0.0)
    do = tl.load(dOut + offsets, mask=rows[:, None] < seq_len, other=0.0)
    delta = tl.sum(o.to(tl.float32) * do.to(tl.float32), axis=1)
    tl.store(Delta + tl.program_id(1) * seq_len + rows, delta,
             mask=rows < seq_len)
    if dQSum is not None:
        first_row = tl.program_id(1).to(tl.int64) * seq_len
        tl.store(dQSum + (first_row + rows[:, None]) * HEAD_DIM + dims[None, :],
                 tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32),
                 mask=rows[:, None] < seq_len)


@tile.jit
def attention_backward_dkdv(Q, K, V, dOut, Lse, Delta, dK, dV, scale, seq_len,
                            stride_head, stride_row, CAUSAL: tl.constexpr,
                            HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                            BLOCK_N: tl.constexpr):
    """One block of keys: dV = P^T dO and dK = scale * dS^T Q, summed over
    every query block that sees these keys (P and dS held transposed, keys
    along the rows, so both sums are plain dots)."""
    start_n = tl.program_id(0) * BLOCK_N
    head = tl.program_id(1).to(tl.int64) * stride_head
    stats = tl.program_id(1) * seq_len
    cols = start_n + tl.arange(0, BLOCK_N)
    dims = tl.arange(0, HEAD_DIM)
    keys = head + cols[:, None] * stride_row + dims[None, :]
    k = tl.load(K + keys, mask=cols[:, None] < seq_len, other=0.0)
    v = tl.load(V + keys, mask=cols[:, None] < seq_len, other=0.0)
    dk = tl.zeros((BLOCK_N, HEAD_DIM), dtype=tl.float32)
    dv = tl.zeros((BLOCK_N, HEAD_DIM), dtype=tl.float32)
    qk_scale = scale * LOG2E
    # Causal: queries before this key block never see it.
    start = (start_n // BLOCK_M) * BLOCK_M if CAUSAL else 0
    for start_m in range(start, seq_len, BLOCK_M):
        rows = start_m + tl.arange(0, BLOCK_M)
        queries = head + rows[:, None] * stride_row + dims[None, :]
        q = tl.load(Q + queries, mask=rows[:, None] < seq_len, other=0.0)
        do = tl.load(dOut + queries, mask=rows[:, None] < seq_len, other=0.0)
        lse = tl.load(Lse + stats + rows, mask=rows < seq_len, other=0.0)
        delta = tl.load(Delta + stats + rows, mask=rows < seq_len, other=0.0)
        s_t = tl.dot(k, tl.trans(q)) * qk_scale
        keep = rows[None, :] < seq_len
        if CAUSAL:
            keep = keep & (rows[None, :] >= cols[:, None])
        p_t = tl.where(keep, tl.exp2(s_t - lse[None, :]), 0.0)
        dv += tl.dot(p_t.to(dOut.dtype.element_ty), do)
        dp_t = tl.dot(v, tl.trans(do))
        ds_t = p_t * (dp_t - delta[None, :])
        dk += tl.dot(ds_t.to(Q.dtype.element_ty), q)
    tl.store(dK + keys, (dk * scale).to(dK.dtype.element_ty),
             mask=cols[:, None] < seq_len)
    tl.store(dV + keys, dv.to(dV.dtype.element_ty),
             mask=cols[:, None] < seq_len)


@tile.jit
def attention_backward_dq(Q, K, V, dOut, Lse, Delta, dQ, scale, seq_len,
                          stride_head, stride_row, CAUSAL: tl.constexpr,
                          HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr):
    """One block of queries: dQ = scale * dS K over the keys it sees."""
    start_m = tl.program_id(0) * BLOCK_M
    head = tl.program_id(1).to(tl.int64) * stride_head
    stats = tl.program_id(1) * seq_len
    rows = start_m + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    queries = head + rows[:, None] * stride_row + dims[None, :]
    q = tl.load(Q + queries, mask=rows[:, None] < seq_len, other=0.0)
    do = tl.load(dOut + queries, mask=rows[:, None] < seq_len, other=0.0)
    lse = tl.load(Lse + stats + rows, mask=rows < seq_len, other=0.0)
    delta = tl.load(Delta + stats + rows, mask=rows < seq_len, other=0.0)
    dq = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = scale * LOG2E
    end = tl.minimum(start_m + BLOCK_M, seq_len) if CAUSAL else seq_len
    for start_n in range(0, end, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        keys = head + cols[:, None] * stride_row + dims[None, :]
        k = tl.load(K + keys, mask=cols[:, None] < seq_len, other=0.0)
        v = tl.load(V + keys, mask=cols[:, None] < seq_len, other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        keep = cols[None, :] < seq_len
        if CAUSAL:
            keep = keep & (cols[None, :] <= rows[:, None])
        p = tl.where(keep, tl.exp2(s - lse[:, None]), 0.0)
        dp = tl.dot(do, tl.trans(v))
        ds = p * (dp - delta[:, None])
        dq += tl.dot(ds.to(K.dtype.element_ty), k)
    tl.store(dQ + queries, (dq * scale).to(dQ.dtype.element_ty),
             mask=rows[:, None] < seq_len)


@tile.jit
def _store_key_rows(dK, dV, dk, dv, base, cols, scale, seq_len,
                    HEAD_DIM: tl.constexpr):
    """A key block's dK (scaled) and dV over (heads * seq_len, HEAD_DIM).
    Key rows past the head's end belong to the next head: not stored."""
    dims = tl.arange(0, HEAD_DIM)
    keys = (base + cols[:, None]).to(tl.int64) * HEAD_DIM + dims[None, :]
    tl.store(dK + keys, (dk * scale).to(dK.dtype.element_ty),
             mask=cols[:, None] < seq_len)
    tl.store(dV + keys, dv.to(dV.dtype.element_ty),
             mask=cols[:, None] < seq_len)


@tile.jit
def attention_backward_dkdv_tma(q_desc, k_desc, v_desc, do_desc, Lse, Delta,
                                dK, dV, scale, seq_len, CAUSAL: tl.constexpr,
                                HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                                BLOCK_N: tl.constexpr):
    """attention_backward_dkdv on descriptors over (heads * seq_len,
    HEAD_DIM): whole Q and dO blocks by TMA. A query block past the head's
    end reads the next head's rows; the mask zeroes their P and dS, so they
    add nothing to dK and dV."""
    start_n = tl.program_id(0) * BLOCK_N
    base = tl.program_id(1) * seq_len
    cols = start_n + tl.arange(0, BLOCK_N)
    k = k_desc.load([base + start_n, 0])
    v = v_desc.load([base + start_n, 0])
    dk = tl.zeros((BLOCK_N, HEAD_DIM), dtype=tl.float32)
    dv = tl.zeros((BLOCK_N, HEAD_DIM), dtype=tl.float32)
    qk_scale = scale * LOG2E
    start = (start_n // BLOCK_M) * BLOCK_M if CAUSAL else 0
    for start_m in range(start, seq_len, BLOCK_M):
        rows = start_m + tl.arange(0, BLOCK_M)
        q = q_desc.load([base + start_m, 0])
        do = do_desc.load([base + start_m, 0])
        lse = tl.load(Lse + base + rows, mask=rows < seq_len, other=0.0)
        delta = tl.load(Delta + base + rows, mask=rows < seq_len, other=0.0)
        s_t = tl.dot(k, tl.trans(q))
        keep = rows[None, :] < seq_len
        if CAUSAL:
            keep = keep & (rows[None, :] >= cols[:, None])
        p_t = tl.where(keep, tl.exp2(s_t * qk_scale - lse[None, :]), 0.0)
        dv += tl.dot(p_t.to(do_desc.dtype), do)
        dp_t = tl.dot(v, tl.trans(do))
        ds_t = p_t * (dp_t - delta[None, :])
        dk += tl.dot(ds_t.to(q_desc.dtype), q)
    _store_key_rows(dK, dV, dk, dv, base, cols, scale, seq_len, HEAD_DIM)


@tile.jit
def attention_backward_dq_tma(q_desc, k_desc, v_desc, do_desc, Lse, Delta,
                              dQ, scale, seq_len, CAUSAL: tl.constexpr,
                              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                              BLOCK_N: tl.constexpr):
    """attention_backward_dq on descriptors over (heads * seq_len,
    HEAD_DIM). A key block past the head's end reads the next head's keys,
    which dS K would pick up: those keys are masked in every block, causal
    or not (the pointer kernel's masked loads gave zeros there)."""
    start_m = tl.program_id(0) * BLOCK_M
    base = tl.program_id(1) * seq_len
    rows = start_m + tl.arange(0, BLOCK_M)
    q = q_desc.load([base + start_m, 0])
    do = do_desc.load([base + start_m, 0])
    lse = tl.load(Lse + base + rows, mask=rows < seq_len, other=0.0)
    delta = tl.load(Delta + base + rows, mask=rows < seq_len, other=0.0)
    dq = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = scale * LOG2E
    end = tl.minimum(start_m + BLOCK_M, seq_len) if CAUSAL else seq_len
    for start_n in range(0, end, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        k = k_desc.load([base + start_n, 0])
        s = tl.dot(q, tl.trans(k))
        keep = cols[None, :] < seq_len
        if CAUSAL:
            keep = keep & (cols[None, :] <= rows[:, None])
        p = tl.where(keep, tl.exp2(s * qk_scale - lse[:, None]), 0.0)
        dp = tl.dot(do, tl.trans(v_desc.load([base + start_n, 0])))
        ds = p * (dp - delta[:, None])
        dq += tl.dot(ds.to(k_desc.dtype), k)
    dims = tl.arange(0, HEAD_DIM)
    tl.store(dQ + (base + rows[:, None]).to(tl.int64) * HEAD_DIM
             + dims[None, :], (dq * scale).to(dQ.dtype.element_ty),
             mask=rows[:, None] < seq_len)


@tile.jit
def attention_backward_fused(q_desc, k_desc, v_desc, do_desc, dq_desc, Lse,
                             Delta, dK, dV, scale, seq_len,
                             CAUSAL: tl.constexpr, HEAD_DIM: tl.constexpr,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """All three gradients in one pass over the query blocks of a key block
    (five products where the two kernels above take seven): dK and dV stay
    in registers, each query block's dQ share is added into an fp32 buffer
    by a TMA reduction (`dq_desc`; unscaled). The scores keep the queries as
    rows, as FlashAttention-3 does, so lse and delta are two registers a
    thread; the loop is warp-specialised (a producer loads Q and dO)."""
    # Causal: key blocks near the start have the most query blocks; the grid
    # is (heads, key blocks) so that every head's heaviest run first.
    start_n = tl.program_id(1 if CAUSAL else 0) * BLOCK_N
    base = tl.program_id(0 if CAUSAL else 1) * seq_len
    cols = start_n + tl.arange(0, BLOCK_N)
    k = k_desc.load([base + start_n, 0])
    v = v_desc.load([base + start_n, 0])
    dk = tl.zeros((BLOCK_N, HEAD_DIM), dtype=tl.float32)
    dv = tl.zeros((BLOCK_N, HEAD_DIM), dtype=tl.float32)
    qk_scale = scale * LOG2E
    start = (start_n // BLOCK_M) * BLOCK_M if CAUSAL else 0
    for start_m in tl.range(start, seq_len, BLOCK_M, warp_specialize=True):
        rows = start_m + tl.arange(0, BLOCK_M)
        q = q_desc.load([base + start_m, 0])
        do = do_desc.load([base + start_m, 0])
        lse = tl.load(Lse + base + rows, mask=rows < seq_len, other=0.0)
        delta = tl.load(Delta + base + rows, mask=rows < seq_len, other=0.0)
        s = tl.dot(q, tl.trans(k))
        # Rows and keys past the head's end belong to the next head: their
        # P and dS are zero, so they add nothing anywhere.
        keep = (rows[:, None] < seq_len) & (cols[None, :] < seq_len)
        if CAUSAL:
            keep = keep & (rows[:, None] >= cols[None, :])
        p = tl.where(keep, tl.exp2(s * qk_scale - lse[:, None]), 0.0)
        dv += tl.dot(tl.trans(p.to(do_desc.dtype)), do)
        dp = tl.dot(do, tl.trans(v))
        ds = (p * (dp - delta[:, None])).to(q_desc.dtype)
        dq_desc.atomic_add([base + start_m, 0], tl.dot(ds, k))
        dk += tl.dot(tl.trans(ds), q)
    _store_key_rows(dK, dV, dk, dv, base, cols, scale, seq_len, HEAD_DIM)


@tile.jit
def scale_and_cast(X, Y, scale, n, BLOCK: tl.constexpr):
    """Y = X * scale in Y's type (the fused backward's fp32 dQ sums)."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offsets, mask=offsets < n)
    tl.store(Y + offsets, (x * scale).to(Y.dtype.element_ty),
             mask=offsets < n)


def _blocks():
    """(forward BLOCK_M, BLOCK_N, warps, stages), the same for the backward
    kernels (queries per step, keys per step, warps, stages)."""
    if common.SMALL:
        return (32, 32, 4, 1), (32, 32, 4, 1)
    return (128, 64, 8, 3), (64, 128, 8, 2)


def _empty_like(x, poison):
    """An output buffer: NaN-filled for the checks (an element a kernel
    forgets to write fails them), uninitialised in the training step, as
    torch's kernels get theirs."""
    return common.empty_like(x) if poison else torch.empty_like(x)


def _row_stats(q, poison, *per_row):
    """A float32 value per query row (the log-sum-exp, delta), or a
    float32 row of `per_row` values (dQ's sums)."""
    heads, seq_len, _ = q.shape
    if poison:
        return common.empty(heads, seq_len, *per_row)
    return torch.empty(heads, seq_len, *per_row, device=q.device,
                       dtype=torch.float32)


_SMS = {}


def _multiprocessors(t):
    """SMs of the GPU holding `t` (a persistent kernel's program count),
    asked of torch once per device: the forward's host time is spent before
    its kernel starts."""
    if not common.GPU:
        return 132
    count = _SMS.get(t.device)
    if count is None:
        count = _SMS[t.device] = torch.cuda.get_device_properties(
            t.device).multi_processor_count
    return count


def _rows(t, block, made=None):
    """A descriptor over `t` (heads, seq_len, head_dim) seen as rows
    (heads * seq_len, head_dim), in blocks of `block` rows. `made` keeps
    those made before for the same tensors: the training step's backward
    reuses the forward's K and V descriptors and a Q descriptor the forward
    made while its kernel ran, instead of making them on the critical path
    between the two."""
    key = (common.address(t), str(t.dtype), tuple(t.shape), block)
    if made is not None and key in made:
        return made[key]
    head_dim = t.shape[-1]
    desc = TensorDescriptor.from_tensor(t.reshape(-1, head_dim),
                                        [block, head_dim])
    if made is not None:
        made[key] = desc
    return desc


def attention(q, k, v, causal, with_lse=False, tma=common.GPU, poison=True,
              made=None):
    """softmax(Q K^T / sqrt(d)) V over (heads, seq_len, head_dim); on the
    GPU by the descriptor forward unless `tma` is False (`made`: see
    _rows)."""
    heads, seq_len, head_dim = q.shape
    out, lse = _empty_like(q, poison), _row_stats(q, poison)
    if tma:
        # 128 x 128 blocks, two consumer warpgroups and a producer; three
        # stages of K and V fill the shared memory at head_dim 128.
        descs = [_rows(t, 128, made) for t in (q, k, v)]
        tiles = tile.cdiv(seq_len, 128) * heads
        programs = min(tiles, _multiprocessors(q))
        attention_forward_tma[(programs,)](
            *descs, out, lse, 1 / math.sqrt(head_dim), seq_len, heads,
            CAUSAL=causal, HEAD_DIM=head_dim, BLOCK_M=128, BLOCK_N=128,
            PROGRAMS=programs, num_warps=8,
            num_stages=3 if head_dim > 64 else 4)
        return (out, lse) if with_lse else out
    (block_m, block_n, warps, stages), _ = _blocks()
    grid = (tile.cdiv(seq_len, block_m), heads)
    attention_forward[grid](q, k, v, out, lse, 1 / math.sqrt(head_dim),
                            seq_len, common.stride(q, 0), common.stride(q, 1),
                            CAUSAL=causal, HEAD_DIM=head_dim, BLOCK_M=block_m,
                            BLOCK_N=block_n, num_warps=warps,
                            num_stages=stages)
    return (out, lse) if with_lse else out


def attention_backward(q, k, v, out, lse, dout, causal, poison=True,
                       tma=common.GPU, fused=True, made=None):
    """dQ, dK, dV from the forward's output and statistics; on the GPU by
    the descriptor kernels unless `tma` is False: the fused one unless
    `fused` is False, else dK/dV and dQ apart (`made`: see _rows)."""
    heads, seq_len, head_dim = q.shape
    scale = 1 / math.sqrt(head_dim)
    _, (block_m, block_n, warps, stages) = _blocks()
    delta = _row_stats(q, poison)
    delta_grid = (tile.cdiv(seq_len, block_m), heads)
    delta_args = (out, dout, delta, seq_len, common.stride(q, 0),
                  common.stride(q, 1))
    options = dict(CAUSAL=causal, HEAD_DIM=head_dim, num_warps=warps,
                   num_stages=stages)
    if tma and fused:
        # dQ's fp32 sums, zeroed by the delta kernel (NaN before it when
        # poisoned, so a row it missed fails the checks).
        dq_sum = _row_stats(q, poison, head_dim)
        attention_backward_delta[delta_grid](
            *delta_args, HEAD_DIM=head_dim, BLOCK_M=block_m, dQSum=dq_sum)
        dk, dv = _empty_like(k, poison), _empty_like(v, poison)
        descs = [_rows(t, block, made) for t, block in zip(
            (q, k, v, dout, dq_sum),
            (block_m, block_n, block_n, block_m, block_m))]
        blocks = tile.cdiv(seq_len, block_n)
        grid = (heads, blocks) if causal else (blocks, heads)
        attention_backward_fused[grid](
            *descs, lse, delta, dk, dv, scale, seq_len, BLOCK_M=block_m,
            BLOCK_N=block_n, **options)
        dq = _empty_like(q, poison)
        n = heads * seq_len * head_dim
        scale_and_cast[(tile.cdiv(n, 4096),)](dq_sum, dq, scale, n,
                                              BLOCK=4096)
        return dq, dk, dv
    attention_backward_delta[delta_grid](*delta_args, HEAD_DIM=head_dim,
                                         BLOCK_M=block_m)
    dq, dk, dv = (_empty_like(t, poison) for t in (q, k, v))
    if tma:
        def descriptors(query_block, key_block):
            return [_rows(t, block, made) for t, block in zip(
                (q, k, v, dout), (query_block, key_block, key_block,
                                  query_block))]

        attention_backward_dkdv_tma[(tile.cdiv(seq_len, block_n), heads)](
            *descriptors(block_m, block_n), lse, delta, dk, dv, scale,
            seq_len, BLOCK_M=block_m, BLOCK_N=block_n, **options)
        # The dQ loop runs over keys: its query block is the wide one.
        attention_backward_dq_tma[(tile.cdiv(seq_len, block_n), heads)](
            *descriptors(block_n, block_m), lse, delta, dq, scale, seq_len,
            BLOCK_M=block_n, BLOCK_N=block_m, **options)
        return dq, dk, dv
    strides = (common.stride(q, 0), common.stride(q, 1))
    attention_backward_dkdv[(tile.cdiv(seq_len, block_n), heads)](
        q, k, v, dout, lse, delta, dk, dv, scale, seq_len, *strides,
        BLOCK_M=block_m, BLOCK_N=block_n, **options)
    attention_backward_dq[(tile.cdiv(seq_len, block_n), heads)](
        q, k, v, dout, lse, delta, dq, scale, seq_len, *strides,
        BLOCK_M=block_n, BLOCK_N=block_m, **options)
    return dq, dk, dv


if common.GPU:
    torch = common.torch

    class Attention(torch.autograd.Function):
        """softmax(Q K^T / sqrt(d)) V over (heads, seq_len, head_dim)."""

        @staticmethod
        def forward(ctx, q, k, v, causal):
            q, k, v = (t.contiguous() for t in (q, k, v))
            made = {}
            out, lse = attention(q, k, v, causal, with_lse=True, poison=False,
                                 made=made)
            # The backward's Q descriptor, made while the forward runs.
            _rows(q, _blocks()[1][0], made)
            ctx.save_for_backward(q, k, v, out, lse)
            ctx.causal, ctx.made = causal, made
            return out

        @staticmethod
        def backward(ctx, dout):
            q, k, v, out, lse = ctx.saved_tensors
            dq, dk, dv = attention_backward(q, k, v, out, lse,
                                            dout.contiguous(), ctx.causal,
                                            poison=False, made=ctx.made)
            return dq, dk, dv, None


def reference(q, k, v, causal, dout=None):
    """The output in float64 numpy; with `dout`, the gradients dQ, dK, dV."""
    q, k, v = (common.float64(t) for t in (q, k, v))
    scale = 1 / math.sqrt(q.shape[-1])
    s = q @ k.transpose(0, 2, 1) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    if dout is None:
        return p @ v
    do = common.float64(dout)
    dp = do @ v.transpose(0, 2, 1)
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True))
    return (ds @ k * scale, ds.transpose(0, 2, 1) @ q * scale,
            p.transpose(0, 2, 1) @ do)


def gradients(q, k, v, dout, causal):
    """dQ, dK, dV: through autograd on the GPU, else the kernels directly."""
    if common.GPU:
        leaves = [t.detach().requires_grad_() for t in (q, k, v)]
        Attention.apply(*leaves, causal).backward(dout)
        return [t.grad for t in leaves]
    return gradients_poisoned(q, k, v, dout, causal)


def gradients_poisoned(q, k, v, dout, causal, tma=common.GPU):
    """dQ, dK, dV by the kernels directly, every output NaN-filled first;
    forward and backward on descriptors unless `tma` is False."""
    out, lse = attention(q, k, v, causal, with_lse=True, tma=tma)
    return attention_backward(q, k, v, out, lse, dout, causal, tma=tma)


def main():
    print("fused attention forward and backward, %s" % common.where())
    heads, seq_len, head_dim = (2, 100, 64) if common.SMALL else (32, 4096, 128)
    q, k, v, dout = (common.randn(heads, seq_len, head_dim, dtype="float16")
                     for _ in range(4))
    kernels = [attention_forward, attention_backward_delta,
               attention_backward_dkdv, attention_backward_dq]
    for causal in (False, True):
        name = "causal" if causal else "full"
        want = reference(q, k, v, causal)
        common.check("attention, %s" % name, attention(q, k, v, causal),
                     want, 1e-2, 1e-2)
        # The other forward: pointers on the GPU, where descriptors are the
        # default, and the persistent descriptor kernel in the interpreter.
        common.check("attention (%s), %s" % (
            "pointers" if common.GPU else "descriptors", name),
            attention(q, k, v, causal, tma=not common.GPU), want, 1e-2, 1e-2)
        want = reference(q, k, v, causal, dout)
        for what, got, expected in zip(("dQ", "dK", "dV"),
                                       gradients(q, k, v, dout, causal), want):
            common.check("%s, %s" % (what, name), got, expected, 2e-2, 2e-2)
        # The descriptor forward and backward, on the CPU too (the
        # interpreter reads descriptors over numpy arrays; the sequence is
        # not a multiple of the blocks there, so the masks of blocks past
        # the end count).
        for what, got, expected in zip(
                ("dQ", "dK", "dV"),
                gradients_poisoned(q, k, v, dout, causal, tma=True), want):
            common.check("%s (descriptors, poisoned), %s" % (what, name), got,
                         expected, 2e-2, 2e-2)

        def small_step():
            qs, ks, vs, ds = (t[:2, :100].contiguous() for t in (q, k, v, dout))
            out, lse = attention(qs, ks, vs, causal, with_lse=True, tma=False)
            return (out,) + attention_backward(qs, ks, vs, out, lse, ds,
                                               causal, tma=False)

        common.compare_with_interpreter("attention, %s" % name, small_step,
                                        kernels, 2e-3, 2e-3)
    if common.BENCH:
        sdpa = common.torch.nn.functional.scaled_dot_product_attention
        for causal in (False, True):
            flops = 4 * heads * seq_len * seq_len * head_dim * (0.5 if causal else 1)
            common.report("tile, causal=%s" % causal, common.bench_ms(
                lambda: attention(q, k, v, causal, poison=False)), flops,
                "TFLOPS")
            common.report("torch SDPA, causal=%s" % causal, common.bench_ms(
                lambda: sdpa(q[None], k[None], v[None], is_causal=causal)),
                flops, "TFLOPS")
            # A training step: forward, then backward (2.5x the forward's
            # flops: five dots where the forward has two).
            leaves = [t.detach().requires_grad_() for t in (q, k, v)]
            common.report("tile fwd+bwd, causal=%s" % causal, common.bench_ms(
                lambda: Attention.apply(*leaves, causal).backward(dout)),
                3.5 * flops, "TFLOPS")
            common.report("SDPA fwd+bwd, causal=%s" % causal, common.bench_ms(
                lambda: sdpa(*(t[None] for t in leaves),
                             is_causal=causal).backward(dout[None])),
                3.5 * flops, "TFLOPS")


if __name__ == "__main__":
    main()
