"""`noinline` device functions on the GPU: called (not inlined) functions
compute what the inlined ones do, twice in a row (the second call's writes
to the function's shared memory after the first call's reads), beside a
caller's own shared memory, in a loop, and with tensors passed as each
thread's registers. Fresh random inputs, NaN-poisoned
outputs, float64 references."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from kernels.noinline import (add_twice, doubles_a_tensor, scaled_tile,  # noqa: E402
                              softmax_twice, sum_and_maxes, sums_in_a_loop)


def test_two_calls():
    a, b = (torch.randn(256, device="cuda") for _ in range(2))
    o = torch.full((512,), float("nan"), device="cuda")
    kernel = add_twice[(1,)](a, b, o, N=256)
    torch.cuda.synchronize()
    assert kernel.asm["ptx"].count("call.uni") == 2
    torch.testing.assert_close(o, torch.cat([a + b, b + a]), rtol=0, atol=0)


@pytest.mark.parametrize("warps", [1, 4, 8])
def test_device_function_shared_memory_beside_the_callers(warps):
    x, y = (torch.randn(1024, device="cuda") for _ in range(2))
    out = torch.full((1,), float("nan"), device="cuda")
    sum_and_maxes[(1,)](x, y, out, N=1024, num_warps=warps)
    torch.cuda.synchronize()
    want = x.double().sum() + x.double().max() + y.double().max()
    torch.testing.assert_close(out.double(), want.reshape(1), rtol=1e-5,
                               atol=1e-4)


def test_calls_in_a_loop():
    rows, n = 7, 512
    x = torch.randn(rows, n, device="cuda")
    out = torch.full((1,), float("nan"), device="cuda")
    sums_in_a_loop[(1,)](x, out, rows, N=n)
    torch.cuda.synchronize()
    want = sum((r + 1.0) * x[r].double().sum() for r in range(rows))
    torch.testing.assert_close(out.double(), want.reshape(1), rtol=1e-5,
                               atol=1e-3)


@pytest.mark.parametrize("n", [128, 1024])
def test_tensor_argument_and_result(n):
    x = torch.randn(n, device="cuda")
    o = torch.full_like(x, float("nan"))
    doubles_a_tensor[(1,)](x, o, N=n)
    torch.cuda.synchronize()
    torch.testing.assert_close(o, x * 2, rtol=0, atol=0)


@pytest.mark.parametrize("warps", [4, 8])
def test_reductions_inside_a_tensor_function(warps):
    x = torch.randn(2048, device="cuda")
    o = torch.full_like(x, float("nan"))
    softmax_twice[(1,)](x, o, N=2048, num_warps=warps)
    torch.cuda.synchronize()
    want = torch.softmax(torch.softmax(x.double(), 0), 0)
    torch.testing.assert_close(o.double(), want, rtol=1e-5, atol=1e-9)


def test_two_dimensional_tensor_arguments():
    x = torch.randn(64, 64, device="cuda")
    s = torch.randn(64, device="cuda")
    o = torch.full((64, 64), float("nan"), device="cuda", dtype=torch.float16)
    scaled_tile[(1,)](x, s, o, M=64, N=64)
    torch.cuda.synchronize()
    torch.testing.assert_close(o, (x.double() * s.double()[:, None]).half())
