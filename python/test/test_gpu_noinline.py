"""`noinline` device functions on the GPU: called (not inlined) functions
compute what the inlined ones do, twice in a row (the second call's writes
to the function's shared memory after the first call's reads), beside a
caller's own shared memory, and in a loop. Fresh random inputs, NaN-poisoned
outputs, float64 references."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402


@tile.jit(noinline=True)
def add_rows(a, b, o, N: tl.constexpr):
    idx = tl.arange(0, N)
    tl.store(o + idx, tl.load(a + idx) + tl.load(b + idx))


@tile.jit
def add_twice(a, b, o, N: tl.constexpr):
    add_rows(a, b, o, N)
    add_rows(b, a, o + N, N)


@tile.jit(noinline=True)
def row_max(x, N: tl.constexpr):
    return tl.max(tl.load(x + tl.arange(0, N)), axis=0)


@tile.jit
def sum_and_maxes(x, y, out, N: tl.constexpr):
    s = tl.sum(tl.load(x + tl.arange(0, N)), axis=0)
    tl.store(out, s + row_max(x, N) + row_max(y, N))


@tile.jit(noinline=True)
def scaled_row_sum(x, scale, N: tl.constexpr):
    return tl.sum(tl.load(x + tl.arange(0, N)), axis=0) * scale


@tile.jit
def sums_in_a_loop(x, out, rows, N: tl.constexpr):
    total = 0.0
    for r in range(rows):
        total += scaled_row_sum(x + r * N, r + 1.0, N)
    tl.store(out, total)


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
