"""tile.testing on a GPU (skipped elsewhere)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

import tile  # noqa: E402

pytestmark = pytest.mark.gpu


def test_do_bench_times_with_events():
    x = torch.randn(1 << 24, device="cuda")
    small = tile.testing.do_bench(lambda: x.add_(1.0), warmup=5, rep=20,
                                  return_mode="median")
    big = tile.testing.do_bench(lambda: torch.mm(x[:1 << 22].view(2048, 2048),
                                                 x[:1 << 22].view(2048, 2048)),
                                warmup=5, rep=20, return_mode="median")
    assert 0 < small < 50 and 0 < big < 50
    lo, hi = tile.testing.do_bench(lambda: x.add_(1.0), warmup=5, rep=20,
                                   quantiles=[0.2, 0.8])
    assert 0 < lo <= hi


def test_assert_close():
    a = torch.randn(1000, device="cuda")
    tile.testing.assert_close(a, a + 1e-4, atol=1e-3)
    with pytest.raises(AssertionError):
        tile.testing.assert_close(a, a + 1.0, atol=1e-3)
