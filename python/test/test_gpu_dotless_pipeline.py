"""Loops with no dot pipelined on request (`tl.range(num_stages=)`): the
values are those of the plain loop at every depth, with a masked tail, and
Triton's test_hooks pattern (a depth that cannot fit is OutOfResources for
that config only, which the autotuner's post_hook sees) holds. Outputs are
poisoned (NaN) before each launch."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile
import tile.language as tl
from kernels import dotless_pipeline as k

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("stages", [1, 2, 3, 5, 16])
@pytest.mark.parametrize("n,block", [(4096, 256), (5000, 256), (300, 32)])
def test_pipelined_loop_values(stages, n, block):
    src = torch.randn(n, device="cuda")
    dst = torch.full((n,), float("nan"), device="cuda")
    k.scale_rows_kernel[(1,)](src, dst, n, STAGES=stages, BLOCK=block)
    torch.cuda.synchronize()
    # Against float64: the kernel may fuse x * 3 + 1 into one rounding.
    torch.testing.assert_close(dst.double(), src.double() * 3 + 1,
                               rtol=1e-6, atol=1e-6)


def test_hooks_see_the_config_that_runs_out_of_shared_memory():
    seen = {"pending": 0, "exceptions": 0}

    def pre_hook(*args, **kwargs):
        seen["pending"] += 1

    def post_hook(*args, exception):
        seen["pending"] -= 1
        seen["exceptions"] += exception is not None
        assert seen["pending"] == 0

    @tile.autotune(configs=[tile.Config({"BLOCK": 4096}),
                            tile.Config({"BLOCK": 32})],
                   key=["n"], pre_hook=pre_hook, post_hook=post_hook)
    @tile.jit
    def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        for _ in tl.range(tl.cdiv(n, BLOCK), num_stages=100):
            x = tl.load(src_ptr + offsets, mask=offsets < n)
            tl.store(dst_ptr + offsets, x, mask=offsets < n)
            offsets += BLOCK

    n = 4096
    src = torch.randn(n, device="cuda")
    dst = torch.full((n,), float("nan"), device="cuda")
    copy_kernel[(1,)](src, dst, n)
    torch.cuda.synchronize()
    # 100 buffers of 4096 floats cannot fit; of 32 floats they can.
    assert seen["exceptions"] == 1
    assert copy_kernel.best_config.kwargs["BLOCK"] == 32
    assert torch.equal(dst, src)


@pytest.mark.parametrize("stages", [None, 2, 3, 4])
@pytest.mark.parametrize("n", [128256, 5000, 1024])
def test_masked_tail_reads_other_when_copied_ahead(stages, n):
    rows = 37
    x = (torch.randn(rows, n, device="cuda") * 4).to(torch.bfloat16)
    out = torch.full((rows,), float("nan"), device="cuda")
    k.row_logsumexp_kernel[(rows,)](x, out, x.stride(0), n, STAGES=stages,
                                    BLOCK=1024, num_warps=8)
    want = torch.logsumexp(x.double(), dim=1)
    torch.testing.assert_close(out.double(), want, rtol=1e-5, atol=1e-5)
