"""Dots on mma.sync (the sm_80 instruction, which sm_90a takes where wgmma
cannot: fewer than four warps, fewer than 64 rows, or an f16
accumulator): tf32, int8 and f16-accumulator products against exact or
float64 references, at masked edges, with the PTX showing the path."""

import re

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402
from gpu_checks import cdiv, rel_err  # noqa: E402


@tile.jit
def masked_dot(a, b, c, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, OUT: tl.constexpr,
               PRECISION: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=OUT)
    for k0 in range(0, K, BLOCK_K):
        x = tl.load(a + rm[:, None] * stride_am + (k0 + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0)
        y = tl.load(b + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(x, y, acc, out_dtype=OUT, input_precision=PRECISION)
    tl.store(c + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def run(a, b, out_dtype, tl_out, block, num_warps, precision="ieee"):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, device="cuda", dtype=out_dtype)
    if out_dtype.is_floating_point:
        c.fill_(float("nan"))
    else:
        c.fill_(-(2 ** 31) + 7)
    bm, bn, bk = block
    kernel = masked_dot[(cdiv(M, bm), cdiv(N, bn))](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, OUT=tl_out, PRECISION=precision,
        num_warps=num_warps)
    return c, kernel.asm["ptx"]


def mma_kinds(ptx):
    return set(re.findall(r"(?:wgmma\.mma_async|mma)\.sync\.aligned\.\w+", ptx))


# (block, warps): shapes wgmma cannot take (M < 64, or not a warpgroup);
# the last two have more warps than 16x8 blocks, so some warps repeat
# others' work.
SHAPES = [((32, 32, 32), 4), ((64, 64, 64), 2), ((16, 32, 64), 1),
          ((128, 64, 32), 2), ((16, 16, 32), 4), ((32, 32, 64), 16)]


@pytest.mark.parametrize("block,num_warps", SHAPES)
@pytest.mark.parametrize("transposed", [False, True])
def test_int8_is_exact(block, num_warps, transposed):
    M, N, K = 97, 75, 200
    a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
    b = torch.randint(-128, 128, (K, N), device="cuda", dtype=torch.int8)
    if transposed:
        b = b.t().contiguous().t()
    c, ptx = run(a, b, torch.int32, tl.int32, block, num_warps)
    ref = a.long().cpu() @ b.long().cpu()
    assert torch.equal(c.long().cpu(), ref)
    assert mma_kinds(ptx) == {"mma.sync.aligned.m16n8k32"}


@pytest.mark.parametrize("block,num_warps", SHAPES)
def test_tf32(block, num_warps):
    M, N, K = 97, 75, 200
    a = torch.randn(M, K, device="cuda")
    b = torch.randn(K, N, device="cuda")
    c, ptx = run(a, b, torch.float32, tl.float32, block, num_warps, "tf32")
    ref = a.double() @ b.double()
    err = rel_err(c, ref)
    # tf32 keeps 10 mantissa bits: about 1e-3 off, never exact.
    assert 1e-5 < err < 5e-3
    assert mma_kinds(ptx) == {"mma.sync.aligned.m16n8k8"}
    assert "tf32.tf32" in ptx


@pytest.mark.parametrize("block,num_warps", SHAPES + [((128, 128, 64), 4)])
def test_f16_accumulator(block, num_warps):
    M, N, K = 97, 75, 96
    a = (torch.randn(M, K, device="cuda") / 4).half()
    b = (torch.randn(K, N, device="cuda") / 4).half()
    c, ptx = run(a, b, torch.float16, tl.float16, block, num_warps)
    ref = a.double() @ b.double()
    # An f16 accumulator rounds every partial sum to 11 bits.
    assert rel_err(c, ref) < 5e-3
    assert mma_kinds(ptx) == {"mma.sync.aligned.m16n8k16"}
    assert ".f16.f16.f16.f16" in ptx


@pytest.mark.parametrize("dtype", [torch.float8_e5m2, torch.float8_e4m3fn])
@pytest.mark.parametrize("block,num_warps", SHAPES)
def test_fp8_widened_to_f16(dtype, block, num_warps):
    M, N, K = 97, 75, 96
    a = torch.randn(M, K, device="cuda").to(dtype)
    b = torch.randn(K, N, device="cuda").to(dtype)
    c, ptx = run(a, b, torch.float32, tl.float32, block, num_warps)
    # The widening is exact and the products accumulate in f32.
    assert rel_err(c, a.double() @ b.double()) < 1e-5
    assert mma_kinds(ptx) == {"mma.sync.aligned.m16n8k16"}
    assert ".f32.f16.f16.f32" in ptx


@pytest.mark.parametrize("dtype", [torch.float8_e5m2, torch.float8_e4m3fn])
@pytest.mark.parametrize("block", [(1, 2, 32), (2, 4, 32), (8, 8, 32)])
def test_fp8_too_small_for_mma_sync_runs_on_fma(dtype, block):
    # Smaller than one m16n8 block: the CUDA cores take the dot, widening
    # each fp8 element exactly (this crashed the compiler before).
    M, N, K = 5, 7, 64
    a = torch.randn(M, K, device="cuda").to(dtype)
    b = torch.randn(K, N, device="cuda").to(dtype)
    c, ptx = run(a, b, torch.float32, tl.float32, block, 1)
    assert rel_err(c, a.double() @ b.double()) < 1e-5
    assert mma_kinds(ptx) == set()
