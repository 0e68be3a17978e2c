"""A kernel that uses each of Triton's standard-library functions tile
writes in tile.language (flip, interleave, ravel, cast, swizzle2d, assume),
and its numpy reference."""

import numpy as np

import tile
import tile.language as tl


@tile.jit
def standard_kernel(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr,
                    G: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    y = tl.load(y_ptr + rm[:, None] * N + rn[None, :])
    tl.assume(M > 0)
    tile_offsets = rm[:, None] * N + rn[None, :]
    out = out_ptr
    tl.store(out + tile_offsets, tl.flip(x, 0))
    out += M * N
    tl.store(out + tile_offsets, tl.flip(x))
    out += M * N
    tl.store(out + rm[:, None] * (2 * N) + tl.arange(0, 2 * N)[None, :],
             tl.interleave(x, y))
    out += 2 * M * N
    tl.store(out + tl.arange(0, M * N), tl.ravel(x))
    out += M * N
    tl.store(out + tile_offsets, tl.cast(x, tl.int32).to(tl.float32))
    out += M * N
    bits = tl.cast(x, tl.int32, bitcast=True)
    tl.store(out + tile_offsets, (bits & 0xFFFF).to(tl.float32))
    out += M * N
    si, sj = tl.swizzle2d(rm[:, None], rn[None, :], M, N, G)
    tl.store(out + tile_offsets, (si * N + sj).to(tl.float32))


def outputs(M, N):
    return 8 * M * N


def reference(x, y, M, N, G):
    parts = [x[::-1], x[:, ::-1], np.stack([x, y], -1).reshape(M, 2 * N),
             x.ravel(), np.trunc(x), (x.view(np.int32) & 0xFFFF)]
    i, j = np.meshgrid(np.arange(M), np.arange(N), indexing="ij")
    linear = i * N + j
    first = (linear // (G * N)) * G
    rows = np.minimum(M - first, G)
    within = linear % (G * N)
    parts.append((first + within % rows) * N + within // rows)
    return np.concatenate([np.asarray(p, np.float32).ravel() for p in parts])
