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
