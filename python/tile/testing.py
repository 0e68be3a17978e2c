"""tile.testing: benchmarking and comparison helpers, as in triton.testing."""

import contextlib
import functools
import os
import subprocess
import sys

from tile.language import dtypes as d
from tile.runtime.driver import driver

from tile.runtime.benchmarking import do_bench, do_bench_cudagraph  # noqa: F401


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Elementwise |x - y| <= atol + rtol * |y|, on tensors or numbers."""
    import torch

    x = x if isinstance(x, torch.Tensor) else torch.tensor(x)
    y = y if isinstance(y, torch.Tensor) else torch.tensor(y)
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    torch.testing.assert_close(x.to(y.dtype), y, atol=atol, rtol=rtol,
                               equal_nan=True, msg=err_msg or None)


class Benchmark:
    """One table (and plot) of a perf_report: `x_names` take each value of
    `x_vals`; each value of `line_arg` in `line_vals` is one column (one
    line), named by `line_names` and drawn with `styles`."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names,
                 plot_name, args, xlabel="", ylabel="", x_log=False,
                 y_log=False, styles=None):
        self.x_names = list(x_names)
        self.x_vals = list(x_vals)
        self.line_arg = line_arg
        self.line_vals = list(line_vals)
        self.line_names = list(line_names)
        self.plot_name = plot_name
        self.args = dict(args)
        self.xlabel, self.ylabel = xlabel, ylabel
        self.x_log, self.y_log = x_log, y_log
        self.styles = styles


class Mark:
    """What `@perf_report(...)` makes of a benchmark function: `run()`
    measures every point and prints, saves (CSV) and plots (PNG) the
    tables."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _table(self, bench, **kwargs):
        columns = list(bench.x_names[:1]) + list(bench.line_names)
        rows = []
        for x in bench.x_vals:
            xs = x if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            point = dict(zip(bench.x_names, xs))
            row, extra = [xs[0]], []
            for value in bench.line_vals:
                result = self.fn(**point, **{bench.line_arg: value},
                                 **bench.args, **kwargs)
                if isinstance(result, (list, tuple)):
                    row.append(result[0])
                    extra.append(tuple(result[1:]))
                else:
                    row.append(result)
            rows.append((row, extra))
        return columns, rows

    def _run(self, bench, save_path, show_plots, print_data, diff_col=False,
             save_precision=6, **kwargs):
        columns, rows = self._table(bench, **kwargs)
        lines = [",".join(columns)]
        for row, _ in rows:
            lines.append(",".join(
                ("%.*f" % (save_precision, v)) if isinstance(v, float)
                else str(v) for v in row))
        if print_data:
            print(bench.plot_name + ":")
            width = max(len(c) for c in columns) + 2
            print("".join(c.rjust(width) for c in columns))
            for row, _ in rows:
                print("".join(("%.6g" % v if isinstance(v, float) else
                               str(v)).rjust(width) for v in row))
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            with open(os.path.join(save_path, bench.plot_name + ".csv"),
                      "w") as f:
                f.write("\n".join(lines) + "\n")
        if save_path or show_plots:
            self._plot(bench, columns, rows, save_path, show_plots)
        return columns, [row for row, _ in rows]

    def _plot(self, bench, columns, rows, save_path, show_plots):
        try:
            import matplotlib
            if not show_plots:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return   # tables still print and save without matplotlib
        figure = plt.figure()
        axes = figure.add_subplot(111)
        xs = [row[0] for row, _ in rows]
        for i, name in enumerate(bench.line_names):
            ys = [row[i + 1] for row, _ in rows]
            style = bench.styles[i] if bench.styles else None
            if style:
                axes.plot(xs, ys, label=name, color=style[0], ls=style[1])
            else:
                axes.plot(xs, ys, label=name)
        axes.legend()
        axes.set_xlabel(bench.xlabel or bench.x_names[0])
        axes.set_ylabel(bench.ylabel)
        if bench.x_log:
            axes.set_xscale("log")
        if bench.y_log:
            axes.set_yscale("log")
        if show_plots:
            plt.show()
        if save_path:
            figure.savefig(os.path.join(save_path, bench.plot_name + ".png"))
        plt.close(figure)

    def run(self, show_plots=False, print_data=False, save_path="",
            return_df=False, **kwargs):
        benches = self.benchmarks if isinstance(self.benchmarks, list) \
            else [self.benchmarks]
        results = [self._run(b, save_path, show_plots, print_data, **kwargs)
                   for b in benches]
        if return_df:
            try:
                import pandas
            except ImportError:
                return results if len(results) > 1 else results[0]
            frames = [pandas.DataFrame(rows, columns=columns)
                      for columns, rows in results]
            return frames if len(frames) > 1 else frames[0]
        return None


def nvsmi(attrs, device=0):
    """nvidia-smi's values of `attrs` (e.g. ["clocks.max.sm"]) as ints."""
    out = subprocess.check_output(
        ["nvidia-smi", "-i", str(device), "--query-gpu=" + ",".join(attrs),
         "--format=csv,noheader,nounits"])
    return [int(float(x)) for x in out.decode().strip().split(",")]


def _device(device):
    return driver.active.get_current_device() if device is None else device


def get_dram_gbps(device=None):
    """Peak DRAM bandwidth in GB/s: memory clock x bus width x 2 (double
    data rate), from the driver's device attributes."""
    props = driver.active.utils.get_device_properties(_device(device))
    return props["mem_clock_rate"] * props["mem_bus_width"] * 2 / 1e6 / 8


# Dense tensor-core FLOP per clock per SM sub-partition (4 per SM), by
# compute capability major and operand width in bits: Ampere's third and
# Hopper's fourth generation tensor cores (public per-SM peak rates / 4).
_TENSOR_FLOP_PER_SUBCORE = {8: {32: 256, 16: 512, 8: 1024},
                            9: {32: 512, 16: 1024, 8: 2048}}


def _width(dtype):
    import torch
    if isinstance(dtype, torch.dtype):
        return dtype.itemsize * 8, dtype.is_floating_point
    if isinstance(dtype, d.dtype):
        return dtype.primitive_bitwidth, dtype.is_floating()
    raise TypeError("expected a torch or tile dtype, got %r" % (dtype,))


def get_max_tensorcore_tflops(dtype, clock_rate, device=None):
    """Peak dense tensor-core TFLOPS for `dtype` operands at `clock_rate`
    (kHz, as get_device_properties reports it): fp32 means tf32, 8-bit
    types are fp8/int8."""
    device = _device(device)
    props = driver.active.utils.get_device_properties(device)
    major = driver.active.get_device_capability(device)[0]
    rates = _TENSOR_FLOP_PER_SUBCORE.get(min(major, 9))
    bits, _ = _width(dtype)
    if rates is None or bits not in rates:
        raise RuntimeError("no tensor-core rate for %s on compute capability "
                           "%d" % (dtype, major))
    return props["multiprocessor_count"] * 4 * clock_rate * rates[bits] * 1e-9


def get_max_simd_tflops(dtype, clock_rate, device=None):
    """Peak FMA-pipe TFLOPS (no tensor cores) for fp32 or fp16/bf16 (packed
    pairs) at `clock_rate` kHz: 32 fp32 lanes per sub-partition, an FMA
    counting two."""
    device = _device(device)
    props = driver.active.utils.get_device_properties(device)
    bits, is_float = _width(dtype)
    if not is_float or bits not in (16, 32):
        raise RuntimeError("no SIMD rate for %s" % (dtype,))
    per_subcore = 64 if bits == 32 else 128
    return props["multiprocessor_count"] * 4 * clock_rate * per_subcore * 1e-9


@contextlib.contextmanager
def set_gpu_clock(ref_sm_clock=1350, ref_mem_clock=1215, device=0):
    """Locks device `device`'s SM and memory clocks (MHz) for the block
    (nvidia-smi; needs root), checks they took, and yields the peak fp16
    tensor TFLOPS and DRAM GB/s at those clocks."""
    smi = ["nvidia-smi", "-i", str(device)]
    try:
        subprocess.check_output(smi + ["-pm", "1"])
        subprocess.check_output(smi + ["--lock-gpu-clocks=%d,%d" % (
            ref_sm_clock, ref_sm_clock)])
        subprocess.check_output(smi + ["--lock-memory-clocks=%d,%d" % (
            ref_mem_clock, ref_mem_clock)])
        sm, mem = nvsmi(["clocks.current.sm", "clocks.current.memory"], device)
        if abs(sm - ref_sm_clock) >= 10 or abs(mem - ref_mem_clock) >= 10:
            raise RuntimeError("clocks did not lock: SM %d MHz, memory %d MHz"
                               % (sm, mem))
        import torch
        props = driver.active.utils.get_device_properties(device)
        yield (get_max_tensorcore_tflops(torch.float16, ref_sm_clock * 1000,
                                         device),
               ref_mem_clock * 1e3 * props["mem_bus_width"] * 2 / 1e6 / 8)
    finally:
        subprocess.call(smi + ["-pm", "0"])
        subprocess.call(smi + ["-rgc"])
        subprocess.call(smi + ["-rmc"])


def cuda_memcheck(**target_kwargs):
    """Decorates a pytest test (which takes the `request` fixture): when its
    parameters include `target_kwargs`, it reruns in a child pytest under
    compute-sanitizer's memcheck and fails on any reported error."""
    def decorator(test_fn):
        @functools.wraps(test_fn)
        def wrapper(*args, **kwargs):
            wanted = target_kwargs.items() <= kwargs.items()
            if not wanted or os.environ.get("TILE_UNDER_MEMCHECK"):
                return test_fn(*args, **kwargs)
            if "request" not in kwargs:
                raise TypeError("a cuda_memcheck test needs the `request` "
                                "fixture among its arguments")
            node = kwargs["request"].node
            path = os.path.realpath(test_fn.__globals__["__file__"])
            test_id = "%s::%s" % (path, node.name)
            env = dict(os.environ, TILE_UNDER_MEMCHECK="1",
                       PYTORCH_NO_CUDA_MEMORY_CACHING="1")
            out = subprocess.run(["compute-sanitizer", "--tool", "memcheck",
                                  sys.executable, "-m", "pytest", "-q", test_id],
                                 capture_output=True, text=True, env=env)
            if out.returncode != 0 or "ERROR SUMMARY: 0 errors" not in out.stdout:
                raise AssertionError("memcheck found errors in %s:\n%s" % (
                    test_id, out.stdout[-4000:]))
        return wrapper
    return decorator


def perf_report(benchmarks):
    """`@tile.testing.perf_report(tile.testing.Benchmark(...))`."""
    return lambda fn: Mark(fn, benchmarks)


__all__ = ["assert_close", "do_bench", "do_bench_cudagraph", "Benchmark",
           "Mark", "perf_report", "nvsmi", "get_dram_gbps",
           "get_max_tensorcore_tflops", "get_max_simd_tflops", "set_gpu_clock",
           "cuda_memcheck"]
