"""Block pointers and tuples: kernels written as Triton users write them
(block-pointer copies and matmuls with tl.advance in the loop, tuples
through loops, ifs and @jit calls, tuple kernel arguments)."""

from typing import NamedTuple

import tile
import tile.language as tl


@tile.jit
def block_copy(src, dst, N, LIMIT, BLOCK: tl.constexpr, PADDING: tl.constexpr,
               CHECK: tl.constexpr):
    """Copies `BLOCK`-wide windows of src[:LIMIT] (padded past LIMIT) into
    dst[:N]."""
    pid = tl.program_id(0)
    a = tl.make_block_ptr(base=src, shape=(LIMIT,), strides=(1,),
                          offsets=(pid * BLOCK,), block_shape=(BLOCK,),
                          order=(0,))
    b = tl.make_block_ptr(base=dst, shape=(N,), strides=(1,),
                          offsets=(pid * BLOCK,), block_shape=(BLOCK,),
                          order=(0,))
    if CHECK:
        x = tl.load(a, boundary_check=(0,), padding_option=PADDING)
    else:
        x = tl.load(a)
    tl.store(b, x, boundary_check=(0,))


@tile.jit
def block_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak,
                 stride_bk, stride_bn, stride_cm, stride_cn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr, STAGES: tl.constexpr):
    """C = A @ B with block pointers and tl.advance in the K loop; every
    dimension is boundary-checked, so M, N and K need not divide."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak),
                             (pid_m * BLOCK_M, 0), (BLOCK_M, BLOCK_K), (1, 0))
    b_bp = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn),
                             (0, pid_n * BLOCK_N), (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=STAGES):
        a = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_bp, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc)
        a_bp = tl.advance(a_bp, (0, BLOCK_K))
        b_bp = tl.advance(b_bp, (BLOCK_K, 0))
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn),
                             (pid_m * BLOCK_M, pid_n * BLOCK_N),
                             (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_bp, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


@tile.jit
def _moved(bp, rows):
    # A block pointer passed to, and returned from, a @jit function.
    return tl.advance(bp, (rows, 0))


@tile.jit
def block_rows(x_ptr, out_ptr, R, C, stride_r, SHIFT: tl.constexpr,
               BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """out[r, :] = x[r + SHIFT, :], choosing between two block pointers in
    an `if` on a runtime value; negative and past-the-end rows read 0."""
    bp = tl.make_block_ptr(x_ptr, (R, C), (stride_r, 1), (0, 0),
                           (BLOCK_R, BLOCK_C), (1, 0))
    if R > 0:
        bp = _moved(bp, SHIFT)
    x = tl.load(bp, boundary_check=(0, 1))
    out = tl.make_block_ptr(out_ptr, (R, C), (stride_r, 1), (0, 0),
                            (BLOCK_R, BLOCK_C), (1, 0))
    tl.store(out, x, boundary_check=(0, 1))


class Strided(NamedTuple):
    ptr: object
    stride: object


@tile.jit
def _scaled(pair, factor):
    return pair[0] * factor, pair[1] + factor


@tile.jit
def tuple_loop(x_ptr, out_ptr, views, n, BLOCK: tl.constexpr):
    """A tuple accumulator through a runtime loop and a @jit call, and a
    NamedTuple kernel argument: out = (sum of x[i*stride] blocks) * 2."""
    offs = tl.arange(0, BLOCK)
    acc = (tl.zeros((BLOCK,), tl.float32), tl.to_tensor(0))
    for i in range(n):
        x = tl.load(views.ptr + i * views.stride + offs)
        acc = (acc[0] + x, acc[1] + 1)
    total, count = _scaled(acc, 2)
    tl.store(out_ptr + offs, total)
    tl.store(out_ptr + BLOCK, count.to(tl.float32))


@tile.jit
def tuple_arguments(out_ptr, ptrs, values, shape: tl.constexpr):
    """Tuple arguments of pointers and of numbers, with a constexpr tuple:
    out[i] = *ptrs[i] + values[i] * shape[i], unrolled over the tuple."""
    for i in tl.static_range(len(ptrs)):
        tl.store(out_ptr + i, tl.load(ptrs[i]) + values[i] * shape[i])
    bumped = tl.tuple([v + 1 for v in values])
    tl.store(out_ptr + len(ptrs), bumped[0] + bumped[len(values) - 1])


@tile.jit
def block_copy_2d(src, dst, M, N, stride_src, stride_dst, BM: tl.constexpr,
                  BN: tl.constexpr):
    """dst[:M, :N] = src[:M, :N] + 1 in BM x BN windows, both checked: on
    sm_90 with aligned bases and strides the window goes through TMA (what
    lies past M or N reads as 0 and is not written)."""
    a = tl.make_block_ptr(src, (M, N), (stride_src, 1),
                          (tl.program_id(0) * BM, tl.program_id(1) * BN),
                          (BM, BN), (1, 0))
    b = tl.make_block_ptr(dst, (M, N), (stride_dst, 1),
                          (tl.program_id(0) * BM, tl.program_id(1) * BN),
                          (BM, BN), (1, 0))
    x = tl.load(a, boundary_check=(0, 1), padding_option="zero")
    tl.store(b, x + 1, boundary_check=(0, 1))


@tile.jit
def descriptor_permute_4d(src, dst, S0: tl.constexpr, S1: tl.constexpr,
                          S2: tl.constexpr, S3: tl.constexpr, P0: tl.constexpr,
                          P1: tl.constexpr, P2: tl.constexpr, P3: tl.constexpr):
    """dst (flat) = src (S0 x S1 x S2 x S3) permuted by (P0, P1, P2, P3):
    a 4-D descriptor loads, a 1-D one stores (test_core's test_trans_4d)."""
    a = tl.make_tensor_descriptor(src, [S0, S1, S2, S3],
                                  [S1 * S2 * S3, S2 * S3, S3, 1],
                                  [S0, S1, S2, S3])
    b = tl.make_tensor_descriptor(dst, [S0 * S1 * S2 * S3], [1],
                                  [S0 * S1 * S2 * S3])
    x = a.load([0, 0, 0, 0]).permute((P0, P1, P2, P3))
    b.store([0], x.reshape(b.block_shape))


@tile.jit
def descriptor_copy_3d(src, dst, B, M, N, stride_b, stride_m,
                       BB: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    """dst = src * 2 over a B x M x N tensor in BB x BM x BN blocks of 3-D
    descriptors: blocks at the edges read zeros past them and drop the
    writes there."""
    a = tl.make_tensor_descriptor(src, [B, M, N], [stride_b, stride_m, 1],
                                  [BB, BM, BN])
    b = tl.make_tensor_descriptor(dst, [B, M, N], [stride_b, stride_m, 1],
                                  [BB, BM, BN])
    offsets = [tl.program_id(0) * BB, tl.program_id(1) * BM,
               tl.program_id(2) * BN]
    b.store(offsets, a.load(offsets) * 2)


class Closure(NamedTuple):
    """A @jit function and the arguments it captured (test_tuple's
    test_namedtuple passes one as a kernel argument)."""
    fn: tl.constexpr
    captured: tuple


@tile.jit
def scale_by_first(x, a_ptr):
    return x * tl.load(a_ptr)


@tile.jit
def apply_closure(closure, x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, closure.fn(tl.load(x_ptr + offs), *closure.captured))
