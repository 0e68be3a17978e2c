"""Kernels run on the GPU against float64 torch references. Outputs are
poisoned with NaN before each launch and sizes are not multiples of the block."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile
from kernels import classic as k

pytestmark = pytest.mark.gpu


def rel_err(out, ref):
    out, ref = out.double(), ref.double()
    assert not torch.isnan(out).any(), "output has unwritten (NaN) elements"
    return ((out - ref).norm() / ref.norm()).item()


def test_vector_add():
    n = 98_431
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    k.add_kernel[(triton_cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    torch.cuda.synchronize()
    assert rel_err(out, x.double() + y.double()) < 1e-6


def triton_cdiv(a, b):
    return (a + b - 1) // b


def test_softmax():
    rows, cols = 777, 1000
    x = torch.randn(rows, cols, device="cuda")
    out = torch.full_like(x, float("nan"))
    k.softmax_kernel[(132,)](out, x, x.stride(0), out.stride(0), rows, cols,
                             BLOCK_SIZE=1024)
    torch.cuda.synchronize()
    assert rel_err(out, torch.softmax(x.double(), dim=1)) < 1e-5


@pytest.mark.parametrize("activation", ["", "leaky_relu"])
def test_matmul_fma(activation):
    M, N, K = 200, 136, 100
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    grid = (triton_cdiv(M, 64) * triton_cdiv(N, 64),)
    k.matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1),
                          b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                          BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8,
                          ACTIVATION=activation)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    if activation:
        ref = torch.where(ref >= 0, ref, 0.01 * ref)
    assert rel_err(c, ref) < 2e-3


def test_layer_norm_forward():
    rows, cols = 300, 777
    x = torch.randn(rows, cols, device="cuda")
    w = torch.randn(cols, device="cuda")
    b = torch.randn(cols, device="cuda")
    y = torch.full_like(x, float("nan"))
    mean = torch.full((rows,), float("nan"), device="cuda")
    rstd = torch.full((rows,), float("nan"), device="cuda")
    k.layer_norm_fwd[(rows,)](x, y, w, b, mean, rstd, x.stride(0), cols, 1e-5,
                              BLOCK_SIZE=1024)
    torch.cuda.synchronize()
    ref = torch.nn.functional.layer_norm(x.double(), (cols,), w.double(),
                                         b.double(), 1e-5)
    assert rel_err(y, ref) < 1e-5
    assert rel_err(mean, x.double().mean(1)) < 1e-5
