"""Weight-only quantised matmuls on the GPU at every num_stages: the dots'
B operands are stored to shared memory by the loop body, which the software
pipeline must not overwrite under an MMA still in flight (issue 27, 2b: at
num_stages=3 the int4 kernel had a relative error of 8e-2). Checked against
float64; outputs poisoned with NaN; M and N are not multiples of the block."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from gpu_checks import cdiv, rel_err
from kernels import quantized as q

pytestmark = pytest.mark.gpu


# The large shapes put several CTAs on each SM: an MMA then takes longer to
# read its operands, and a store racing it is far likelier to land first.
SHAPES = [(200, 136, 512, 64, 64, 64, 4), (300, 260, 384, 128, 128, 64, 8),
          (2000, 2056, 1024, 64, 64, 64, 4), (2000, 2056, 1024, 128, 128, 64, 8)]


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("M,N,K,bm,bn,bk,warps", SHAPES)
def test_int4_weight_matmul(stages, M, N, K, bm, bn, bk, warps):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    w, packed = packed_int4(K, N, bk)
    c = torch.full((M, N), float("nan"), device="cuda")
    q.int4_weight_matmul_kernel[(cdiv(M, bm), cdiv(N, bn))](
        a, packed, c, M, N, K, a.stride(0), packed.stride(0), c.stride(0),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps,
        num_stages=stages)
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ w.double()) < 1e-5


def packed_int4(K, N, bk):
    """Random int4 weights w (KxN) and their packing for bk-wide K steps."""
    lo = torch.randint(-8, 8, (K // 2, N), device="cuda", dtype=torch.int16)
    hi = torch.randint(-8, 8, (K // 2, N), device="cuda", dtype=torch.int16)
    packed = (hi * 16 + (lo & 15)).to(torch.int8)
    # w's K step at k0 is lo's rows k0/2 .. k0/2+bk/2, then hi's.
    w = torch.cat([lo.view(K // bk, bk // 2, N), hi.view(K // bk, bk // 2, N)],
                  dim=1).reshape(K, N)
    return w, packed


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("add", [False, True])
@pytest.mark.parametrize("M,N,K,bm,bn,bk,warps", SHAPES)
def test_int4_weight_matmul_pointers(stages, add, M, N, K, bm, bn, bk, warps):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    w, packed = packed_int4(K, N, bk)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    q.int4_weight_matmul_pointers_kernel[(cdiv(M, bm), cdiv(N, bn))](
        a, packed, c, M, N, K, a.stride(0), a.stride(1), packed.stride(0),
        packed.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, SUM=add, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    # bf16 output: rounding alone is about 2e-3 relative.
    assert rel_err(c, a.double() @ w.double()) < 4e-3


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("M,N,K,bm,bn,bk,warps", SHAPES)
def test_int8_weight_matmul(stages, M, N, K, bm, bn, bk, warps):
    K -= 48  # a masked last K step (rows stay 16-byte aligned)
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randint(-128, 128, (K, N), device="cuda", dtype=torch.int8)
    c = torch.full((M, N), float("nan"), device="cuda")
    q.int8_weight_matmul_kernel[(cdiv(M, bm), cdiv(N, bn))](
        a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps,
        num_stages=stages)
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ b.double()) < 1e-5


# Decode-sized products too: M = 16 (a 16-row block) gets wgmma only once
# tilegpu-swap-dot-operands transposes the product.
SWAPPED_SHAPES = SHAPES + [(16, 520, 1024, 16, 64, 128, 4),
                           (13, 300, 512, 16, 128, 64, 4)]


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("M,N,K,bm,bn,bk,warps", SWAPPED_SHAPES)
def test_grouped_uint4_matmul(stages, M, N, K, bm, bn, bk, warps):
    group = 128
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    w, packed = packed_int4(K, N, bk)
    w = w % 16  # the nibbles read as unsigned
    scale = (torch.rand(K // group, N, device="cuda") + 0.5).to(torch.bfloat16)
    zero = torch.randint(0, 16, (K // group, N), device="cuda").to(
        torch.bfloat16)
    c = torch.full((M, N), float("nan"), device="cuda")
    q.grouped_uint4_matmul_kernel[(cdiv(M, bm), cdiv(N, bn))](
        a, packed, scale, zero, c, M, N, K, a.stride(0), packed.stride(0),
        scale.stride(0), c.stride(0), GROUP=group, BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    expand = lambda t: t.double().repeat_interleave(group, 0)  # noqa: E731
    want = a.double() @ ((w.double() - expand(zero)) * expand(scale))
    # The dequantised weights are rounded to bf16 before the dot.
    assert rel_err(c, want) < 1e-2


@pytest.mark.parametrize("stages", [1, 3, 4])
@pytest.mark.parametrize("M,N,K,bm,bn,bk,warps", SWAPPED_SHAPES)
def test_fp8_weight_matmul(stages, M, N, K, bm, bn, bk, warps):
    K -= 32  # a masked last K step
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda").to(torch.float8_e4m3fn)
    c = torch.full((M, N), float("nan"), device="cuda")
    q.int8_weight_matmul_kernel[(cdiv(M, bm), cdiv(N, bn))](
        a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BLOCK_M=bm,
        BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ b.double()) < 1e-5


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("M,N,K,bm,bn,bk,warps", SWAPPED_SHAPES[4:])
def test_int4_weight_matmul_decode(stages, M, N, K, bm, bn, bk, warps):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    w, packed = packed_int4(K, N, bk)
    c = torch.full((M, N), float("nan"), device="cuda")
    q.int4_weight_matmul_kernel[(cdiv(M, bm), cdiv(N, bn))](
        a, packed, c, M, N, K, a.stride(0), packed.stride(0), c.stride(0),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps,
        num_stages=stages)
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ w.double()) < 1e-5


def test_reinterpreted_bf16_bits():
    # tile.reinterpret on the compiled path: the activations arrive as int16
    # bits and the output as an int16 buffer, both typed bf16 by the wrapper.
    import tile
    import tile.language as tl
    M, N, K, bm, bn, bk, warps = SHAPES[1]
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    w, packed = packed_int4(K, N, bk)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    bits_a, bits_c = a.view(torch.int16), c.view(torch.int16)
    q.int4_weight_matmul_pointers_kernel[(cdiv(M, bm), cdiv(N, bn))](
        tile.reinterpret(bits_a, tl.bfloat16), packed,
        tile.reinterpret(bits_c, tl.bfloat16), M, N, K, a.stride(0),
        a.stride(1), packed.stride(0), packed.stride(1), c.stride(0),
        c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SUM=False,
        num_warps=warps, num_stages=3)
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ w.double()) < 4e-3
    with pytest.raises(ValueError, match="widths must match"):
        tile.reinterpret(bits_a, tl.float32)
    assert tile.reinterpret(bits_a, torch.bfloat16).dtype == torch.bfloat16
