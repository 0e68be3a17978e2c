"""Several GPUs in one process (skipped where torch sees fewer than two):
a kernel runs where its tensors are, on that device's current stream,
loads its module once per device, leaves torch's current device as it
was, and refuses tensors on two devices naming them. Fresh random data,
poisoned outputs, float64 references."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
    pytest.skip("needs two CUDA GPUs", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402
from test_multi_device import axpy  # noqa: E402


@tile.jit
def row_sums(x_ptr, out_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(out_ptr + row, tl.sum(x, 0))


def run_axpy(device, n=100_003):
    x = torch.randn(n, device=device)
    y = torch.randn(n, device=device)
    out = torch.full_like(x, float("nan"))
    axpy[(tile.cdiv(n, 1024),)](x, y, out, 1.5, n, BLOCK=1024)
    return out, (1.5 * x.double() + y.double())


@pytest.mark.parametrize("order", [(0, 1), (1, 0), (1, 1, 0, 1)])
def test_launches_on_each_device_in_turn(order):
    torch.cuda.set_device(0)
    for ordinal in order:
        out, exact = run_axpy("cuda:%d" % ordinal)
        torch.cuda.synchronize(ordinal)
        assert out.device.index == ordinal
        torch.testing.assert_close(out.double(), exact, rtol=1e-6, atol=1e-6)
        # The launch on another device did not move torch's current one.
        assert torch.cuda.current_device() == 0


def test_device_context_and_stream_are_honoured():
    with torch.cuda.device(1):
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            x = torch.randn(256, 512, device="cuda")
            out = torch.full((256,), float("nan"), device="cuda")
            row_sums[(256,)](x, out, 512)
        stream.synchronize()
        assert torch.cuda.current_device() == 1
    torch.testing.assert_close(out.double().cpu(), x.double().sum(1).cpu(),
                               rtol=1e-5, atol=1e-4)


def test_the_python_path_picks_the_tensors_device():
    # A grid callable with a constexpr from meta runs the Python path once
    # per new specialization; run on device 1 while device 0 is current.
    torch.cuda.set_device(0)
    x = torch.randn(64, 256, device="cuda:1")
    out = torch.full((64,), float("nan"), device="cuda:1")
    compiled = row_sums.warmup(x, out, 256, grid=(64,))
    compiled[(64, 1, 1)](x, out, 256)
    torch.cuda.synchronize(1)
    torch.testing.assert_close(out.double(), x.double().sum(1), rtol=1e-5, atol=1e-4)
    assert torch.cuda.current_device() == 0


def test_mixing_devices_names_the_arguments():
    x = torch.randn(1024, device="cuda:0")
    y = torch.randn(1024, device="cuda:0")
    out = torch.empty(1024, device="cuda:1")
    with pytest.raises(ValueError) as info:
        axpy[(1,)](x, y, out, 1.0, 1024, BLOCK=1024)
    assert "argument 'x_ptr' is on cuda:0" in str(info.value)
    assert "argument 'out_ptr' is on cuda:1" in str(info.value)


def test_autotuned_kernel_on_the_second_device():
    @tile.autotune(configs=[tile.Config({"BLOCK": b}) for b in (256, 1024)],
                   key=["n"])
    @tile.jit
    def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3,
                 mask=offs < n)

    x = torch.randn(50_000, device="cuda:1")
    out = torch.full_like(x, float("nan"))
    scale[lambda meta: (tile.cdiv(50_000, meta["BLOCK"]),)](x, out, 50_000)
    torch.cuda.synchronize(1)
    torch.testing.assert_close(out, x * 3)
