"""`tl.dot(a, tl.trans(b))` with b loaded row-major through pointers, on the
GPU: the loaded tile is staged as it is and wgmma reads a transposed view
(memdesc_trans), filled by cp.async under the pipeline. Checked against
float64 at every num_stages, with ragged edges; outputs poisoned with NaN."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from example_modules import attention_example as example_attention
from gpu_checks import cdiv, rel_err
from kernels import transposed as t

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("M,N,K,bm,bn,bk,warps", [
    (300, 200, 136, 64, 64, 32, 4), (520, 264, 520, 128, 128, 64, 8),
    (1000, 1000, 1024, 128, 256, 64, 8)])
def test_linear_with_transposed_weight(M, N, K, bm, bn, bk, warps, dtype,
                                       stages):
    x = torch.randn(M, K, device="cuda").to(dtype)
    w = torch.randn(N, K, device="cuda").to(dtype)
    y = torch.full((M, N), float("nan"), device="cuda")
    t.linear_kernel[(cdiv(M, bm), cdiv(N, bn))](
        x, w, y, M, N, K, x.stride(0), w.stride(0), y.stride(0), BLOCK_M=bm,
        BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    assert rel_err(y, x.double() @ w.double().T) < 1e-5
    kernel = next(iter(t.linear_kernel.cache.values()))
    assert "wgmma.mma_async" in kernel.asm["ptx"]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq_len,head_dim,bm,bn,warps,stages", [
    (1000, 64, 128, 64, 8, 3), (777, 128, 128, 64, 8, 2),
    (512, 128, 64, 64, 4, 4), (1000, 128, 128, 128, 8, 1)])
def test_attention_example_with_transposed_k(seq_len, head_dim, bm, bn,
                                             warps, stages, causal):
    kernel = example_attention().attention_forward
    heads = 6
    q, k, v = (torch.randn(heads, seq_len, head_dim, device="cuda")
               .to(torch.float16) for _ in range(3))
    out = torch.full_like(q, float("nan"))
    lse = torch.empty(heads, seq_len, device="cuda")
    kernel[(cdiv(seq_len, bm), heads)](
        q, k, v, out, lse, head_dim ** -0.5, seq_len, q.stride(0), q.stride(1),
        CAUSAL=causal, HEAD_DIM=head_dim, BLOCK_M=bm, BLOCK_N=bn,
        num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    s = q.double() @ k.double().transpose(1, 2) * head_dim ** -0.5
    if causal:
        s = s.masked_fill(torch.ones(seq_len, seq_len, device="cuda",
                                     dtype=torch.bool).triu(1), float("-inf"))
    ref = torch.softmax(s, dim=-1) @ v.double()
    assert rel_err(out, ref) < 2e-3
