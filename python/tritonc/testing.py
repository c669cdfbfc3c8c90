"""``tritonc.testing``: timing (``do_bench``) and comparison helpers."""
import statistics
import time


def _torch_cuda():
    try:
        import torch
        return torch if torch.cuda.is_available() else None
    except ImportError:
        return None


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Milliseconds per call of `fn`: on a GPU with CUDA events around each
    call and the L2 cache flushed before it (as Triton's do_bench); else the
    wall clock. `warmup` and `rep` are time budgets in ms."""
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError("return_mode must be 'min', 'max', 'mean', 'median' or 'all', not %r" % (return_mode,))
    torch = _torch_cuda()
    fn()
    if torch is None:
        times = []
        t_end = time.perf_counter() + rep / 1e3
        while True:
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
            if time.perf_counter() > t_end and len(times) >= 3:
                break
    else:
        torch.cuda.synchronize()
        cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            cache.zero_()
            fn()
        end.record()
        torch.cuda.synchronize()
        estimate = max(start.elapsed_time(end) / 5, 1e-3)
        n_warmup, n_repeat = max(1, int(warmup / estimate)), max(1, int(rep / estimate))
        for _ in range(n_warmup):
            fn()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
        for s, e in zip(starts, ends):
            if grad_to_none is not None:
                for x in grad_to_none:
                    x.grad = None
            cache.zero_()
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    if quantiles is not None:
        ts = sorted(times)
        out = [ts[min(len(ts) - 1, int(q * len(ts)))] for q in quantiles]
        return out[0] if len(out) == 1 else out
    return {"mean": statistics.fmean, "median": statistics.median, "min": min, "max": max,
            "all": list}[return_mode](times)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    import numpy as np

    def host(a):
        if hasattr(a, "detach"):
            a = a.detach().float().cpu().numpy()
        return np.asarray(a, dtype=np.float64)

    np.testing.assert_allclose(host(x), host(y), atol=1e-2 if atol is None else atol,
                               rtol=0 if rtol is None else rtol, err_msg=err_msg)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """As Triton's: here the same measurement as do_bench (no CUDA graph capture)."""
    return do_bench(fn, rep=rep, grad_to_none=grad_to_none, quantiles=quantiles, return_mode=return_mode)


class Benchmark:
    """One table (and plot) of a ``perf_report``: ``x_names`` take each of
    ``x_vals`` (a value, or a tuple of one per name), ``line_arg`` each of
    ``line_vals`` (one column each, named by ``line_names``), ``args`` are
    passed unchanged. As Triton's ``triton.testing.Benchmark``."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, styles=None, color=None):
        self.x_names, self.x_vals, self.line_arg = list(x_names), list(x_vals), line_arg
        self.line_vals, self.line_names, self.plot_name = list(line_vals), list(line_names), plot_name
        self.args, self.xlabel, self.ylabel = dict(args), xlabel, ylabel
        self.x_log, self.y_log, self.styles = x_log, y_log, styles


class Mark:
    """A benchmark function with its Benchmarks; ``run`` measures every point."""

    def __init__(self, fn, benchmarks):
        self.fn, self.benchmarks = fn, benchmarks

    def _table(self, bench, **kwargs):
        rows = []
        for x in bench.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            x_args = dict(zip(bench.x_names, xs))
            row = dict(x_args)
            for value, name in zip(bench.line_vals, bench.line_names):
                ret = self.fn(**x_args, **{bench.line_arg: value}, **bench.args, **kwargs)
                if isinstance(ret, (list, tuple)):  # (y, y_min, y_max)
                    row[name] = ret[0]
                    if len(ret) == 3:
                        row[name + "-min"], row[name + "-max"] = ret[1], ret[2]
                else:
                    row[name] = ret
            rows.append(row)
        return rows

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        import os
        benchmarks = self.benchmarks if isinstance(self.benchmarks, (list, tuple)) else [self.benchmarks]
        tables = []
        for bench in benchmarks:
            rows = self._table(bench, **kwargs)
            columns = bench.x_names + [c for c in rows[0] if c not in bench.x_names] if rows else bench.x_names
            if print_data:
                print(bench.plot_name + ":")
                widths = [max(len(str(c)), *(len(_fmt(r.get(c))) for r in rows)) for c in columns]
                print("  ".join(str(c).rjust(w) for c, w in zip(columns, widths)))
                for r in rows:
                    print("  ".join(_fmt(r.get(c)).rjust(w) for c, w in zip(columns, widths)))
            if save_path:
                os.makedirs(save_path, exist_ok=True)
                with open(os.path.join(save_path, bench.plot_name + ".csv"), "w") as f:
                    f.write(",".join(columns) + "\n")
                    for r in rows:
                        f.write(",".join(str(r.get(c, "")) for c in columns) + "\n")
            if show_plots or save_path:
                _plot(bench, rows, show_plots, save_path)
            tables.append(_frame(rows, columns))
        if return_df:
            return tables[0] if len(tables) == 1 else tables
        return None


def _fmt(v):
    return "%.6g" % v if isinstance(v, float) else str(v)


def _frame(rows, columns):
    """A pandas DataFrame where pandas is installed, else the rows."""
    try:
        import pandas
        return pandas.DataFrame(rows, columns=columns)
    except ImportError:
        return rows


def _plot(bench, rows, show, save_path):
    try:
        import matplotlib
        if not show:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots()
    x = [r[bench.x_names[0]] for r in rows]
    for i, name in enumerate(bench.line_names):
        style = bench.styles[i] if bench.styles and i < len(bench.styles) else None
        kw = dict(color=style[0], linestyle=style[1]) if style else {}
        ax.plot(x, [r.get(name) for r in rows], label=name, **kw)
    ax.set_xlabel(bench.xlabel or bench.x_names[0])
    ax.set_ylabel(bench.ylabel)
    if bench.x_log:
        ax.set_xscale("log")
    if bench.y_log:
        ax.set_yscale("log")
    ax.legend()
    if save_path:
        import os
        fig.savefig(os.path.join(save_path, bench.plot_name + ".png"))
    if show:
        plt.show()
    plt.close(fig)


def perf_report(benchmarks):
    """Decorates a benchmark function (``@perf_report(Benchmark(...))``):
    ``fn.run(print_data=True, show_plots=...)`` measures it at every point."""
    return lambda fn: Mark(fn, benchmarks)
