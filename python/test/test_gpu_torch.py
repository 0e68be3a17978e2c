"""tile kernels inside torch.compile (through tile.custom_op) and under CUDA
graph capture, on the GPU (issue 19)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402

pytestmark = pytest.mark.gpu


@tile.jit
def scaled_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * alpha + y, mask=mask)


def _launch(x, y, out, alpha):
    n = x.numel()
    scaled_add_kernel[(tile.cdiv(n, 1024),)](x, y, out, alpha, n, BLOCK=1024)


@tile.custom_op("tile_tests::scaled_add",
                fake=lambda x, y, alpha: torch.empty_like(x))
def scaled_add(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    out = torch.empty_like(x)
    _launch(x, y, out, alpha)
    return out


@tile.custom_op("tile_tests::scaled_add_", mutates_args=("y",),
                fake=lambda x, y, alpha: None)
def scaled_add_(x: torch.Tensor, y: torch.Tensor, alpha: float) -> None:
    _launch(x, y, y, alpha)


def model(x, y):
    # torch ops around the tile op, so the compiled graph has both.
    h = torch.nn.functional.gelu(x)
    z = scaled_add(h, y, 0.5)
    return torch.tanh(z).sum(dim=-1)


def test_custom_op_in_torch_compile_fullgraph():
    x = torch.randn(64, 1000, device="cuda")
    y = torch.randn(64, 1000, device="cuda")
    eager = model(x, y)
    torch._dynamo.reset()
    compiled = torch.compile(model, fullgraph=True)
    # Fresh inputs too: the compiled graph must launch, not replay values.
    for a, b in ((x, y), (torch.randn_like(x), torch.randn_like(y))):
        torch.testing.assert_close(compiled(a, b), model(a, b), rtol=1e-5,
                                   atol=1e-5)
    torch.testing.assert_close(compiled(x, y), eager, rtol=1e-5, atol=1e-5)
    explanation = torch._dynamo.explain(model)(x, y)
    assert explanation.graph_break_count == 0
    assert explanation.graph_count == 1
    # The reference in float64 from torch alone.
    ref = torch.tanh(torch.nn.functional.gelu(x.double()) * 0.5
                     + y.double()).sum(dim=-1)
    torch.testing.assert_close(eager.double(), ref, rtol=1e-4, atol=1e-4)


def test_mutating_custom_op_in_torch_compile():
    def step(x, y):
        scaled_add_(x, y, 2.0)
        return y * 1

    x = torch.randn(5000, device="cuda")
    y0 = torch.randn(5000, device="cuda")
    y = y0.clone()
    torch._dynamo.reset()
    out = torch.compile(step, fullgraph=True)(x, y)
    expected = (x.double() * 2 + y0.double()).float()
    torch.testing.assert_close(y, expected)
    torch.testing.assert_close(out, expected)


def test_custom_op_fake_is_required():
    with pytest.raises(TypeError, match="fake must be a function"):
        tile.custom_op("tile_tests::nofake", fake=None)


def test_cuda_graph_of_100_launches():
    n = 1 << 16
    x = torch.randn(n, device="cuda")
    y0 = torch.randn(n, device="cuda")
    y = y0.clone()
    # Warm up (compile, load) on a side stream, as capture requires.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        _launch(x, y, y, 1.0)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    y.copy_(y0)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(100):
            _launch(x, y, y, 1.0)  # y += x, each launch after the last
    # Capture records; it must not have run the launches.
    torch.cuda.synchronize()
    assert torch.equal(y, y0)
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(y.double(), y0.double() + 100 * x.double(),
                               rtol=1e-5, atol=1e-4)
    # New values in the captured buffers are what a replay reads.
    x.copy_(torch.randn(n, device="cuda"))
    y.zero_()
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(y.double(), 100 * x.double(), rtol=1e-5,
                               atol=1e-4)

    # Per launch: the replay against 100 eager launches, medians of 50.
    def eager():
        for _ in range(100):
            _launch(x, y, y, 1.0)

    def timed(fn):
        times = []
        for _ in range(50):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1e3 / 100)
        return sorted(times)[len(times) // 2]

    for _ in range(3):
        eager()
        graph.replay()
    eager_us, graph_us = timed(eager), timed(graph.replay)
    print("per launch: eager %.2f us, CUDA graph replay %.2f us"
          % (eager_us, graph_us))
    assert graph_us < eager_us
