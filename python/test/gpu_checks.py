"""What the GPU tests share: the error measure against a float64 reference
and grid arithmetic."""


def rel_err(out, ref):
    """||out - ref|| / ||ref|| in float64; outputs are poisoned with NaN
    before each launch, so a NaN left means an element was never written."""
    import torch
    out, ref = out.double(), ref.double()
    assert not torch.isnan(out).any(), "output has unwritten (NaN) elements"
    return ((out - ref).norm() / ref.norm()).item()


def cdiv(a, b):
    return (a + b - 1) // b
