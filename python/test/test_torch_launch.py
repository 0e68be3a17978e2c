"""The launch path with real torch tensors (skipped where torch or CUDA is
missing): dtypes, alignment and device checks read off torch objects."""

import pytest

torch = pytest.importorskip("torch")

import tile  # noqa: E402
from tile.runtime.launcher import use_launcher  # noqa: E402
from kernels import classic as k  # noqa: E402
from launch_helpers import Recorder  # noqa: E402

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


@cuda
def test_torch_tensors_specialise_the_kernel():
    k.add_kernel.cache.clear()
    x = torch.randn(1000, device="cuda", dtype=torch.float16)
    with use_launcher(Recorder()) as r:
        k.add_kernel[(4,)](x, x, x, x.numel(), BLOCK_SIZE=256)
        k.add_kernel[(4,)](x[1:], x, x, x.numel() - 1, BLOCK_SIZE=256)
    first, second = r.launches[0][0].asm["tile"], r.launches[1][0].asm["tile"]
    assert "!tile.ptr<f16>" in first
    # x[1:] is 2 bytes off a 16-byte boundary: one divisibility fact fewer.
    assert first.count("tile.divisibility") == second.count("tile.divisibility") + 1


def test_cpu_tensor_is_rejected_by_name():
    x = torch.zeros(16)
    with use_launcher(Recorder()):
        with pytest.raises(ValueError, match="argument 'x_ptr' is a tensor on cpu"):
            k.add_kernel[(1,)](x, x, x, 16, BLOCK_SIZE=16)
