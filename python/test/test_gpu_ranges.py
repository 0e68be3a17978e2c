"""range() with a constexpr negative step on the GPU: sums and the order
of iterations against Python's range."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from kernels import ranges  # noqa: E402
from test_ranges import CASES  # noqa: E402


@pytest.mark.parametrize("lo, hi, step", CASES + [(2**35, 2**35 + 20, -1),
                                                  (2**35 + 20, 2**35, -7)])
def test_sum_counts_down(lo, hi, step):
    out = torch.full((1,), -7, dtype=torch.int64, device="cuda")
    ranges.sum_range[(1,)](out, lo, hi, STEP=step)
    assert out.item() == sum(range(lo, hi, step))


@pytest.mark.parametrize("n, step", [(10, -1), (10, -3), (1, -2), (0, -1)])
def test_iterations_run_in_descending_order(n, step):
    want = list(range(n - 1, -1, step))
    out = torch.full((16,), -5, dtype=torch.int32, device="cuda")
    ranges.write_indices_down[(1,)](out, n, STEP=step, BLOCK=16)
    assert out[:len(want)].tolist() == want
    assert (out[len(want):] == -5).all()
