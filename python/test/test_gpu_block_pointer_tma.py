"""Block pointers on the TMA path (sm_90, aligned base and row stride) and
on the pointer path (anything else), on the GPU against torch: ragged
shapes read zeros past the edge and never write past it, at every
num_stages of a block-pointer matmul. Fresh random data, poisoned
outputs, float64 references."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
from kernels import aggregates as ag  # noqa: E402


def _uses_tma(kernel, *args, **kwargs):
    """Whether the specialization these arguments launch loads by TMA."""
    compiled = kernel.warmup(*args, grid=(1,), **kwargs)
    return "cp.async.bulk.tensor.2d.shared" in compiled.asm["ptx"]


def _padded(rows, cols, stride, dtype):
    """A rows x cols view of a rows x stride buffer: the row stride is
    `stride` elements whatever cols is."""
    full = torch.randn(rows, stride, device="cuda", dtype=torch.float32) * 8
    return full.to(dtype)[:, :cols]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32,
                                   torch.int8, torch.int32])
@pytest.mark.parametrize("m, n, stride, tma", [(100, 80, 128, True),
                                               (64, 64, 64, True),
                                               (100, 75, 128, False),
                                               (100, 80, 83, False)])
def test_block_copy_2d(dtype, m, n, stride, tma):
    src = _padded(m, n, stride, dtype)
    dst_full = torch.full((m + 16, stride + 16), -7, device="cuda").to(dtype)
    dst = torch.as_strided(dst_full, (m, n), (stride, 1))
    args = (src, dst, m, n, src.stride(0), dst.stride(0))
    assert _uses_tma(ag.block_copy_2d, *args, BM=32, BN=64) == tma
    ag.block_copy_2d[(tile.cdiv(m, 32), tile.cdiv(n, 64))](*args, BM=32, BN=64)
    assert torch.equal(dst, src + 1)
    # Nothing past the window's edges was written.
    written = torch.zeros_like(dst_full, dtype=torch.bool)
    torch.as_strided(written, (m, n), (stride, 1)).fill_(True)
    assert (dst_full[~written] == -7).all()


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("m, n, k", [(100, 80, 96), (256, 192, 320)])
def test_block_pointer_matmul_on_tma(stages, m, n, k):
    # Ragged M, N, K in buffers whose row strides are multiples of 16
    # elements: the TMA path, which must read zeros past K.
    a = _padded(m, k, 128 * tile.cdiv(k, 128), torch.float16)
    b = _padded(k, n, 128 * tile.cdiv(n, 128), torch.float16)
    c = torch.full((m, 128 * tile.cdiv(n, 128)), float("nan"), device="cuda",
                   dtype=torch.float16)[:, :n]
    grid = (tile.cdiv(m, 64), tile.cdiv(n, 64))
    args = (a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
            b.stride(1), c.stride(0), c.stride(1))
    meta = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, STAGES=stages)
    assert _uses_tma(ag.block_matmul, *args, **meta)
    ag.block_matmul[grid](*args, **meta)
    exact = a.double() @ b.double()
    err = ((c.double() - exact).norm() / exact.norm()).item()
    assert err < 2e-3, err


def test_unaligned_base_takes_the_pointer_path():
    m, n = 64, 64
    full = torch.randn(m * n + 1, device="cuda")
    src = full[1:].view(m, n)          # 4-byte aligned: no TMA
    dst = torch.full((m, n), float("nan"), device="cuda")
    assert not _uses_tma(ag.block_copy_2d, src, dst, m, n, n, n, BM=32, BN=64)
    ag.block_copy_2d[(2, 1)](src, dst, m, n, n, n, BM=32, BN=64)
    assert torch.equal(dst, src + 1)


def test_changing_base_in_a_loop_on_the_pointer_path():
    from test_block_pointer_tma import moving_base
    rows, cols, n, stride = 16, 64, 48, 64
    x = torch.randn(4 * rows, stride, device="cuda")
    out = torch.full((rows, stride), float("nan"), device="cuda")
    moving_base[(1,)](x, out, n, stride, ROWS=rows, COLS=cols)
    want = x.view(4, rows, stride)[:, :, :n].double().sum(0)
    torch.testing.assert_close(out[:, :n].double(), want, rtol=1e-5, atol=1e-5)
    assert torch.isnan(out[:, n:]).all()


def test_ragged_rows_are_never_stored_through_by_tma():
    # A TMA store writes up to the next 16 bytes past a row's end (seen
    # here: 75 fp16 columns wrote 80). Such a store is refused: a host
    # descriptor at compile time, a kernel-made one at launch.
    from test_block_pointer_tma import host_descriptor_copy, made_descriptor_store
    x = torch.randn(64, 128, device="cuda").half()
    out = torch.full((64, 128), -7.0, device="cuda").half()
    src = tile.TensorDescriptor(x, [64, 75], [128, 1], [64, 64])
    dst = tile.TensorDescriptor(out, [64, 75], [128, 1], [64, 64])
    with pytest.raises(tile.CompilationError, match="not a multiple of 16 bytes"):
        host_descriptor_copy[(1,)](src, dst, BM=64, BN=64)
    with pytest.raises(ValueError, match="75 elements of 2 bytes"):
        made_descriptor_store[(1,)](x, out, 64, 75, 128, BM=64, BN=64)
    assert (out == -7).all()
    # Loads from ragged rows are exact; whole rows store.
    whole = tile.TensorDescriptor(out, [64, 80], [128, 1], [64, 64])
    host_descriptor_copy[(1,)](src, whole, BM=64, BN=64)
    torch.cuda.synchronize()
    assert torch.equal(out[:, :64], x[:, :64])
    assert (out[:, 64:] == -7).all()
