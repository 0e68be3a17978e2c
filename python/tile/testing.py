"""tile.testing: benchmarking and comparison helpers, as in triton.testing."""

import os

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


def perf_report(benchmarks):
    """`@tile.testing.perf_report(tile.testing.Benchmark(...))`."""
    return lambda fn: Mark(fn, benchmarks)


__all__ = ["assert_close", "do_bench", "do_bench_cudagraph", "Benchmark",
           "Mark", "perf_report"]
