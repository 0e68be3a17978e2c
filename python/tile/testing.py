"""tile.testing: benchmarking and comparison helpers, as in triton.testing."""

from tile.runtime.benchmarking import do_bench  # noqa: F401


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Elementwise |x - y| <= atol + rtol * |y|, on tensors or numbers."""
    import torch

    x = x if isinstance(x, torch.Tensor) else torch.tensor(x)
    y = y if isinstance(y, torch.Tensor) else torch.tensor(y)
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    torch.testing.assert_close(x.to(y.dtype), y, atol=atol, rtol=rtol,
                               equal_nan=True, msg=err_msg or None)
