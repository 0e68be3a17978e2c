"""tl.make_tensor_descriptor blocks TMA cannot serve (4-D, 3-D, 1-D,
narrow rows) on the GPU against torch: permutations as in test_core's
test_trans_4d, and 3-D blocks over ragged edges that must read zeros past
the tensor and never write past it. Fresh random data, poisoned outputs."""

import itertools

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
from kernels import aggregates as ag  # noqa: E402


@pytest.mark.parametrize("dtype", [torch.int32, torch.int8, torch.float16])
@pytest.mark.parametrize("shape", [(2, 2, 8, 64), (4, 4, 4, 16)])
@pytest.mark.parametrize("perm", list(itertools.permutations(range(4)))[::5])
def test_permute_4d(dtype, shape, perm):
    src = (torch.randn(shape, device="cuda") * 50).to(dtype)
    dst = torch.full((src.numel(),), -7, device="cuda").to(dtype)
    names = dict(zip(["S0", "S1", "S2", "S3"], shape))
    names.update(zip(["P0", "P1", "P2", "P3"], perm))
    ag.descriptor_permute_4d[(1,)](src, dst, **names, num_warps=8)
    assert torch.equal(dst, src.permute(perm).reshape(-1))


@pytest.mark.parametrize("block", [(2, 32, 64), (1, 16, 16), (4, 8, 32)])
def test_copy_3d_over_ragged_edges(block):
    B, M, N = 5, 70, 100
    stride_m = 112   # rows padded to a 16-byte multiple, as TMA would need
    full = torch.randn(B, M, stride_m, device="cuda", dtype=torch.float16)
    src = full[:, :, :N]
    # Same strides as src; the padding columns must stay untouched.
    out_full = torch.full((B, M, stride_m), float("nan"), device="cuda",
                          dtype=torch.float16)
    dst = out_full[:, :M, :N]
    bb, bm, bn = block
    grid = (tile.cdiv(B, bb), tile.cdiv(M, bm), tile.cdiv(N, bn))
    ag.descriptor_copy_3d[grid](src, dst, B, M, N, src.stride(0), src.stride(1),
                                BB=bb, BM=bm, BN=bn)
    assert torch.equal(dst, src * 2)
    untouched = torch.ones_like(out_full, dtype=torch.bool)
    untouched[:, :, :N] = False
    assert torch.isnan(out_full[untouched]).all()
