"""Training kernels: tile vs Triton on the same source, in one run, with
torch for scale.

Sections (BENCH_TRAINING picks, default all): layernorm, softmax,
crossentropy (bench/training_src.py) and attention (examples/05_attention.py,
ported to Triton by changing its imports). Every implementation's result
is checked against torch in float64 before it is timed; times are medians
of event-timed runs after warm-up (bench.gpu_time_ms)."""

import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import bench  # noqa: E402

ROWS = []


def row(kernel, impl, ms, amount, unit, note=""):
    scale = 1e-9 if unit == "GB/s" else 1e-12
    ROWS.append((kernel, impl, ms, amount * scale / (ms * 1e-3), unit, note))


def check(what, got, want, tol):
    got, want = got.double(), want.double()
    assert not torch.isnan(got).any(), "%s: unwritten (NaN) elements" % what
    err = ((got - want).norm() / want.norm()).item()
    assert err < tol, "%s: relative error %.3g over %.3g" % (what, err, tol)


# ------------------------------------------------------------- layer norm

def bench_layer_norm(mods, M=8192, N=8192, dtype=torch.float16, eps=1e-5):
    name = "layer norm bwd %s %dx%d" % (str(dtype).split(".")[-1], M, N)
    x = torch.randn(M, N, device="cuda", dtype=dtype) * 2 + 0.5
    w = torch.rand(N, device="cuda", dtype=dtype) + 0.5
    b = torch.randn(N, device="cuda", dtype=dtype)
    dy = torch.randn(M, N, device="cuda", dtype=dtype)
    exact = [t.double().requires_grad_() for t in (x, w, b)]
    y64 = torch.nn.functional.layer_norm(exact[0], (N,), exact[1], exact[2],
                                         eps)
    y64.backward(dy.double())
    want = [y64.detach()] + [t.grad for t in exact]
    # x and dy read, dx written: the backward's unavoidable traffic.
    moved = 3 * x.numel() * x.element_size()
    for impl, m in mods.items():
        leaves = [t.clone().requires_grad_() for t in (x, w, b)]
        y = m.LayerNorm.apply(*leaves, eps)
        y.backward(dy)
        for what, g, e in zip(("y", "dx", "dw", "db"),
                              [y] + [t.grad for t in leaves], want):
            check("%s %s %s" % (impl, name, what), g, e, 1e-2)
        _, mean, rstd = m.layer_norm_forward(x, w, b, eps)
        row(name, impl, bench.gpu_time_ms(
            lambda: m.layer_norm_backward(dy, x, w, mean, rstd), reps=100),
            moved, "GB/s")
    leaves = [t.clone().requires_grad_() for t in (x, w, b)]
    y = torch.nn.functional.layer_norm(leaves[0], (N,), leaves[1], leaves[2],
                                       eps)
    for what, g, e in zip(("dx", "dw", "db"), torch.autograd.grad(
            y, leaves, dy, retain_graph=True), want[1:]):
        check("torch %s %s" % (name, what), g, e, 1e-2)
    row(name, "torch", bench.gpu_time_ms(
        lambda: torch.autograd.grad(y, leaves, dy, retain_graph=True),
        reps=100), moved, "GB/s")


# ---------------------------------------------------------------- softmax

def bench_softmax(mods, M=8192, N=8192, dtype=torch.float16):
    name = "softmax bwd %s %dx%d" % (str(dtype).split(".")[-1], M, N)
    x = torch.randn(M, N, device="cuda", dtype=dtype) * 3
    dy = torch.randn(M, N, device="cuda", dtype=dtype)
    x64 = x.double().requires_grad_()
    y64 = torch.softmax(x64, dim=1)
    y64.backward(dy.double())
    moved = 3 * x.numel() * x.element_size()  # y and dy read, dx written
    for impl, m in mods.items():
        leaf = x.clone().requires_grad_()
        y = m.Softmax.apply(leaf)
        y.backward(dy)
        check("%s softmax forward" % impl, y, y64.detach(), 1e-2)
        check("%s %s" % (impl, name), leaf.grad, x64.grad, 1e-2)
        y = y.detach()
        row(name, impl, bench.gpu_time_ms(
            lambda: m.softmax_backward(dy, y), reps=100), moved, "GB/s")
    y = torch.softmax(x, dim=1)
    row(name, "torch", bench.gpu_time_ms(
        lambda: torch._softmax_backward_data(dy, y, 1, dtype), reps=100),
        moved, "GB/s")


# ---------------------------------------------------------- cross-entropy

def bench_cross_entropy(mods, rows=4096, vocab=128256, dtype=torch.bfloat16):
    name = "cross-entropy f+b %s %dx%d" % (str(dtype).split(".")[-1], rows,
                                           vocab)
    logits = torch.randn(rows, vocab, device="cuda", dtype=dtype) * 4
    targets = torch.randint(0, vocab, (rows,), device="cuda", dtype=torch.int64)
    dloss = torch.rand(rows, device="cuda", dtype=torch.float32) + 0.5
    exact = logits.double().requires_grad_()
    loss64 = torch.nn.functional.cross_entropy(exact, targets,
                                               reduction="none")
    loss64.backward(dloss.double())
    want = (loss64.detach(), exact.grad)
    del exact, loss64
    # Logits read twice (forward, backward) and their gradient written.
    moved = 3 * logits.numel() * logits.element_size()
    leaf = logits.clone().requires_grad_()
    steps = {impl: (lambda m=m: torch.autograd.grad(
        m.CrossEntropy.apply(leaf, targets), leaf, dloss)[0])
        for impl, m in mods.items()}
    steps["torch"] = lambda: torch.autograd.grad(
        torch.nn.functional.cross_entropy(leaf, targets, reduction="none"),
        leaf, dloss)[0]
    for impl, step in steps.items():
        if impl in mods:
            check("%s %s loss" % (impl, name),
                  mods[impl].CrossEntropy.apply(logits, targets), want[0],
                  1e-3)
        check("%s %s dlogits" % (impl, name), step(), want[1], 1e-2)
        peak = peak_bytes(step)
        row(name, impl, bench.gpu_time_ms(step, reps=20), moved, "GB/s",
            "peak +%.0f MiB" % (peak / 2**20))


def peak_bytes(step):
    """Memory a step allocates at its peak, above what was live before."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    out = step()
    torch.cuda.synchronize()
    del out
    return torch.cuda.max_memory_allocated() - before


# -------------------------------------------------------------- attention

def bench_attention(heads=32, seq_len=4096, head_dim=128):
    import demo
    examples = {impl: demo.load_example("05_attention",
                                        port_to_triton=impl == "triton")
                for impl in ("tile", "triton")}
    sdpa = torch.nn.functional.scaled_dot_product_attention
    q, k, v, dout = (torch.randn(heads, seq_len, head_dim, device="cuda",
                                 dtype=torch.float16) for _ in range(4))
    for causal in (False, True):
        label = "causal" if causal else "full"
        flops = 4 * heads * seq_len * seq_len * head_dim * (0.5 if causal else 1)
        exact = [t.double().requires_grad_() for t in (q, k, v)]
        out64 = sdpa(*(t[None] for t in exact), is_causal=causal)[0]
        out64.backward(dout.double())
        for impl, ex in examples.items():
            out, lse = ex.attention(q, k, v, causal, with_lse=True)
            check("%s attention %s" % (impl, label), out, out64.detach(), 1e-2)
            grads = ex.attention_backward(q, k, v, out, lse, dout, causal)
            for what, g, t in zip("QKV", grads, exact):
                check("%s attention d%s %s" % (impl, what, label), g, t.grad,
                      1e-2)
            # Timed with uninitialised outputs (poison=False), as SDPA
            # allocates its own; the checks above ran on NaN-filled ones.
            row("attention fwd %s" % label, impl, bench.gpu_time_ms(
                lambda: ex.attention(q, k, v, causal, poison=False), reps=20),
                flops, "TFLOPS")
            row("attention fwd (pointers) %s" % label, impl, bench.gpu_time_ms(
                lambda: ex.attention(q, k, v, causal, tma=False,
                                     poison=False), reps=20), flops, "TFLOPS")
            # Five dots where the forward has two: 2.5x its flops. The
            # training step runs the fused kernel; the two kernels (seven
            # dots, no atomics) are timed beside it.
            row("attention bwd %s" % label, impl, bench.gpu_time_ms(
                lambda: ex.attention_backward(q, k, v, out, lse, dout, causal,
                                              poison=False),
                reps=20), 2.5 * flops, "TFLOPS")
            row("attention bwd (two kernels) %s" % label, impl,
                bench.gpu_time_ms(lambda: ex.attention_backward(
                    q, k, v, out, lse, dout, causal, poison=False,
                    fused=False), reps=20), 2.5 * flops, "TFLOPS")
        row("attention fwd %s" % label, "SDPA", bench.gpu_time_ms(
            lambda: sdpa(q[None], k[None], v[None], is_causal=causal),
            reps=20), flops, "TFLOPS")
        bench_training_step(examples, q, k, v, dout, causal, label, flops)


def bench_training_step(examples, q, k, v, dout, causal, label, flops):
    """Forward and backward through autograd, the implementations taking
    turns over three rounds (median of the rounds' medians): per call, the
    host's work included where the GPU waits for it, and the GPU time
    alone (bench.gpu_time_ms's hide_host)."""
    sdpa = torch.nn.functional.scaled_dot_product_attention
    steps = {}
    for impl, ex in examples.items():
        leaves = [t.detach().requires_grad_() for t in (q, k, v)]
        steps[impl] = (lambda ex, leaves: lambda: ex.Attention.apply(
            *leaves, causal).backward(dout))(ex, leaves)
    sdpa_leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    steps["SDPA"] = lambda: sdpa(*(t[None] for t in sdpa_leaves),
                                 is_causal=causal).backward(dout[None])
    for kind, hide in (("fwd+bwd", False), ("fwd+bwd, GPU time", True)):
        rounds = {impl: [] for impl in steps}
        for _ in range(3):
            for impl, step in steps.items():
                rounds[impl].append(bench.gpu_time_ms(step, reps=30,
                                                      hide_host=hide))
        for impl, times in rounds.items():
            row("attention %s %s" % (kind, label), impl,
                statistics.median(times), 3.5 * flops, "TFLOPS",
                "rounds " + " ".join("%.3f" % t for t in times))


def main():
    torch.manual_seed(20261125)
    mods = {impl: bench.load(impl, "training_src.py")
            for impl in ("tile", "triton")}
    sections = os.environ.get(
        "BENCH_TRAINING", "layernorm softmax crossentropy attention").split()
    if "layernorm" in sections:
        bench_layer_norm(mods)
    if "softmax" in sections:
        bench_softmax(mods)
    if "crossentropy" in sections:
        bench_cross_entropy(mods)
    if "attention" in sections:
        bench_attention()
    print("%-36s %-7s %9s %10s %-6s %s" % ("kernel", "impl", "ms", "rate", "",
                                          "note"))
    for kernel, impl, ms, rate, unit, note in ROWS:
        print("%-36s %-7s %9.3f %10.1f %-6s %s" % (kernel, impl, ms, rate,
                                                  unit, note))
    # tile's speed over Triton's on each kernel, same run.
    times = {(k, i): ms for k, i, ms, _, _, _ in ROWS}
    for kernel in dict.fromkeys(k for k, _, _, _, _, _ in ROWS):
        if (kernel, "tile") in times and (kernel, "triton") in times:
            print("%-36s tile/triton speed %.3fx" % (
                kernel, times[kernel, "triton"] / times[kernel, "tile"]))
        if (kernel, "tile") in times and (kernel, "SDPA") in times:
            print("%-36s tile/SDPA speed %.3fx" % (
                kernel, times[kernel, "SDPA"] / times[kernel, "tile"]))
    print("device:", torch.cuda.get_device_name(), " torch", torch.__version__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
