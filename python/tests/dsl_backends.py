"""Where the Python DSL's tests run a kernel: the interpreter, the CPU back
end where it is built, and CUDA when torch sees a GPU; `use(...)` sets the
environment for one (TRITONC_INTERPRET forces the interpreter)."""
import pytest

import tritonc

_current = "interp"


def torch_cuda():
    """torch when it sees a GPU, else None."""
    try:
        import torch
        return torch if torch.cuda.is_available() else None
    except ImportError:
        return None


def available(cuda=True):
    out = ["interp"]
    if tritonc._tritonc.cpu_backend_available():
        out.append("cpu")
    if cuda and torch_cuda() is not None:
        out.append("cuda")
    return out


def use(monkeypatch, backend):
    if backend == "interp":
        monkeypatch.setenv("TRITONC_INTERPRET", "1")
    else:
        monkeypatch.delenv("TRITONC_INTERPRET", raising=False)
    return backend


def language_backends():
    """The back ends the language suite runs on: TRITONC_LANGUAGE_BACKENDS
    (comma-separated among interp, cpu and cuda; those not present are left
    out), else the interpreter and the CPU back end (where it is built)."""
    import os
    wanted = [b for b in os.environ.get("TRITONC_LANGUAGE_BACKENDS", "interp,cpu").split(",") if b]
    have = available()
    return [b for b in wanted if b in have] or ["interp"]


def launch(kernel, grid, backend, *args, **kwargs):
    """`kernel[grid](*args, **kwargs)` on `backend`; on cuda, numpy arrays
    go to the GPU as torch tensors and come back into the same arrays."""
    if backend != "cuda":
        return kernel[grid](*args, **kwargs)
    import numpy as np
    torch = torch_cuda()

    def to_device(a):  # numpy arrays, and numpy arrays seen as another type (tritonc.reinterpret)
        if isinstance(a, np.ndarray):
            return torch.from_numpy(np.ascontiguousarray(a)).cuda()
        if isinstance(a, tritonc.TensorWrapper) and isinstance(a.base, np.ndarray):
            return tritonc.reinterpret(to_device(a.base), a.dtype)
        if isinstance(a, tuple):  # tuple arguments (named tuples stay of their class)
            items = [to_device(x) for x in a]
            return type(a)(*items) if hasattr(type(a), "_fields") else tuple(items)
        return a

    def host(a):
        return a.base if isinstance(a, tritonc.TensorWrapper) else a

    def copy_back(a, t):
        if isinstance(a, tuple):
            for x, y in zip(a, t):
                copy_back(x, y)
        elif isinstance(host(a), np.ndarray):
            host(a)[...] = host(t).cpu().numpy()

    moved = [to_device(a) for a in args]
    kernel[grid](*moved, **kwargs)
    for a, t in zip(args, moved):
        copy_back(a, t)


def suite_fixture():
    """The autouse fixture of a language suite (`backend =
    dsl_backends.suite_fixture()` in its module): every test runs once per
    back end of language_backends(); current() says which, run() launches
    there."""
    @pytest.fixture(autouse=True, params=language_backends())
    def backend(request, monkeypatch):
        global _current
        _current = use(monkeypatch, request.param)
        return _current
    return backend


def current():
    return _current


def run(kernel, grid, *args, **kwargs):
    """`kernel[grid](*args, **kwargs)` on the current suite's back end."""
    return launch(kernel, grid, _current, *args, **kwargs)
