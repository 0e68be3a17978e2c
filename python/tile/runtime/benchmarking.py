"""Timing kernels on the GPU: what tile.testing.do_bench and the autotuner
use."""


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None,
             return_mode="mean"):
    """Times `fn` on the current CUDA stream with events, after warming up,
    and returns milliseconds (median with return_mode='median'). The L2 cache
    is flushed before each run so that timings do not measure a warm cache."""
    import torch

    fn()
    torch.cuda.synchronize()
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-3)
    n_warmup = max(1, int(warmup / estimate))
    n_repeat = max(1, int(rep / estimate))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = torch.tensor([s.elapsed_time(e) for s, e in zip(starts, ends)],
                         dtype=torch.float64)
    if quantiles is not None:
        out = torch.quantile(times, torch.tensor(quantiles, dtype=torch.float64)).tolist()
        return out[0] if len(out) == 1 else out
    return getattr(torch, return_mode)(times).item()


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None,
                       return_mode="mean"):
    """Times `fn` replayed from a CUDA graph, so that launch costs drop out:
    milliseconds per call, as do_bench reports them. Runs on a side stream
    (graphs cannot be captured on the default one)."""
    import torch

    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        fn()   # compiles, and warms up the allocator outside the capture
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        start, end = (torch.cuda.Event(enable_timing=True),
                      torch.cuda.Event(enable_timing=True))
        # One call captured, to size the graph that fills `rep` ms.
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            fn()
        torch.cuda.synchronize()
        start.record(stream)
        for _ in range(5):
            graph.replay()
        end.record(stream)
        torch.cuda.synchronize()
        estimate = max(start.elapsed_time(end) / 5, 1e-3)
        calls = max(1, int(rep / estimate))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            for _ in range(calls):
                if grad_to_none is not None:
                    for x in grad_to_none:
                        x.grad = None
                fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            start.record(stream)
            graph.replay()
            end.record(stream)
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / calls)
    times = torch.tensor(times, dtype=torch.float64)
    if quantiles is not None:
        out = torch.quantile(times, torch.tensor(quantiles,
                                                 dtype=torch.float64)).tolist()
        return out[0] if len(out) == 1 else out
    return getattr(torch, return_mode)(times).item()
