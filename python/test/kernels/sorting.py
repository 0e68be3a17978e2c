"""Kernels for tl.sort, tl.topk, tl.bitonic_merge and tl.gather, and their
numpy references (shared by the CPU and GPU tests)."""

import numpy as np

import tile
import tile.language as tl


@tile.jit
def sort_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr,
                DESCENDING: tl.constexpr, DIM: tl.constexpr):
    offsets = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offsets)
    tl.store(out_ptr + offsets, tl.sort(x, dim=DIM, descending=DESCENDING))


@tile.jit
def topk_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr,
                K: tl.constexpr, LARGEST: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    # The member form, as Triton kernels also write it.
    top = x.topk(K, descending=LARGEST)
    tl.store(out_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :],
             top)


@tile.jit
def bitonic_kernel(x_ptr, out_ptr, N: tl.constexpr):
    # A rising then falling row: a bitonic sequence.
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, N), tl.bitonic_merge(x))


@tile.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, SM: tl.constexpr,
                  SN: tl.constexpr, IM: tl.constexpr, IN: tl.constexpr,
                  AXIS: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, SM)[:, None] * SN
                  + tl.arange(0, SN)[None, :])
    idx_offsets = tl.arange(0, IM)[:, None] * IN + tl.arange(0, IN)[None, :]
    idx = tl.load(idx_ptr + idx_offsets)
    tl.store(out_ptr + idx_offsets, tl.gather(src, idx, AXIS))


@tile.jit
def gather_1d_kernel(src_ptr, idx_ptr, out_ptr, S: tl.constexpr,
                     I: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, S))
    idx = tl.load(idx_ptr + tl.arange(0, I))
    tl.store(out_ptr + tl.arange(0, I), src.gather(idx, 0))


def sort_reference(x, descending, dim):
    out = np.sort(x, axis=dim, kind="stable")
    return np.flip(out, axis=dim) if descending else out


def topk_reference(x, k, largest):
    ordered = np.sort(x, axis=1)
    return ordered[:, ::-1][:, :k] if largest else ordered[:, :k]


def gather_reference(src, idx, axis):
    return np.take_along_axis(src, idx.astype(np.int64) % src.shape[axis], axis)
