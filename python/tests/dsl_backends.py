"""Where the Python DSL's tests run a kernel: the interpreter, the CPU back
end where it is built, and CUDA when torch sees a GPU; `use(...)` sets the
environment for one (TRITONC_INTERPRET forces the interpreter)."""
import tritonc


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
