"""What third-party Triton libraries (their host code and generated
kernels, as Liger-Kernel's, attorch's and FlagGems' were found to use) rely
on beyond the language: tritonc under Triton's module name, KernelInterface
subclasses, JITFunction and Autotuner internals, integers equal to 1 as
constants, a constexpr parameter's `.value`, a block pointer's `.type`,
`tl.standard._log2`, pointer arguments that are any object with data_ptr()
and dtype. Against numpy on the back ends of
dsl_backends.language_backends(); fresh inputs, poisoned outputs."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc.codegen import CompilationError

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()
backend = dsl_backends.suite_fixture()
run = dsl_backends.run


@triton.jit
def add_one(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < n) + 1, mask=offs < n)


def test_install_as_triton_in_a_fresh_process(tmp_path):
    """A library's `import triton` gets tritonc's modules (the same objects)
    and Triton's interface version; its kernels run."""
    code = textwrap.dedent("""
        import numpy as np, tritonc
        alias = tritonc.install_as_triton()
        import triton, triton.language as tl
        from triton.language.extra import libdevice
        from triton.runtime.jit import JITFunction, KernelInterface
        import triton.language.standard as standard
        assert triton is alias and triton.__version__ == "3.6.0", triton.__version__
        assert triton.jit is tritonc.jit and tl is tritonc.language and JITFunction is tritonc.JITFunction
        assert libdevice is tritonc.language.extra.libdevice and tritonc.install_as_triton() is triton
        import importlib.util  # (torch asks this at CUDA initialization)
        assert importlib.util.find_spec("triton") is not None and importlib.util.find_spec("triton.language")
        assert tl.core.static_range is tl.static_range and tl.core.reshape is tl.reshape

        @triton.jit
        def scale(X, Y, n, BLOCK: tl.constexpr):
            o = tl.arange(0, BLOCK)
            tl.store(Y + o, libdevice.exp(tl.load(X + o, mask=o < n)) * 2, mask=o < n)

        x = np.random.default_rng().standard_normal(100).astype(np.float32)
        y = np.full(100, np.nan, np.float32)
        scale[(1,)](x, y, 100, BLOCK=128)
        assert np.allclose(y, np.exp(x) * 2, rtol=1e-5), abs(y - np.exp(x) * 2).max()
        print("ok")
    """)
    script = tmp_path / "library.py"  # (a kernel's source is read from its file)
    script.write_text(code)
    env = dict(os.environ, TRITONC_INTERPRET="1" if dsl_backends.current() == "interp" else "0")
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-2000:]


def test_tritons_host_modules_under_its_names(tmp_path):
    """The modules host code imports from Triton by name (torch's inductor
    does at import, which the profiler reaches): triton.backends(.compiler,
    .driver), triton.compiler(.compiler), triton.runtime.autotuner; they hold
    tritonc's objects."""
    code = textwrap.dedent("""
        import inspect, tritonc
        tritonc.install_as_triton()
        import triton
        import triton.backends.compiler, triton.compiler.compiler
        from triton.backends.compiler import GPUTarget, BaseBackend
        from triton.backends.driver import DriverBase
        from triton.compiler import CompiledKernel
        from triton.runtime.autotuner import OutOfResources, Autotuner, Config, autotune, heuristics
        import sys
        assert CompiledKernel is sys.modules["tritonc.jit"].CompiledKernel
        assert triton.compiler.compiler.CompiledKernel is CompiledKernel
        assert triton.compiler.ASTSource is triton.compiler.compiler.ASTSource is tritonc.compiler.ASTSource
        assert triton.compile is triton.compiler.compiler.compile is tritonc.compile
        assert OutOfResources is tritonc.OutOfResources and Autotuner is sys.modules["tritonc.autotuner"].Autotuner
        assert Config is tritonc.Config and autotune is tritonc.autotune and heuristics is tritonc.heuristics
        # (no AttrsDescriptor: Triton 3.6 has none, host code takes its dict form)
        assert not hasattr(triton.backends.compiler, "AttrsDescriptor")
        assert not hasattr(triton.compiler.compiler, "AttrsDescriptor")
        target = triton.runtime.driver.active.get_current_target()
        assert isinstance(target, GPUTarget) and target == GPUTarget(target.backend, target.arch, target.warp_size)
        assert triton.backends.backends == {} and triton.backends.backends.get("cpu") is None
        key = triton.compiler.compiler.triton_key()
        assert key == "tritonc-" + tritonc.__version__, key
        assert "input" in inspect.signature(triton.language.core.view).parameters
        try:
            triton.no_such_name
        except AttributeError:
            pass
        else:
            raise AssertionError("triton.no_such_name")
        print("ok")
    """)
    script = tmp_path / "host.py"
    script.write_text(code)
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-2000:]


def test_install_as_triton_refuses_the_real_one(monkeypatch):
    import types
    monkeypatch.setitem(sys.modules, "triton", types.ModuleType("triton"))
    with pytest.raises(RuntimeError, match="imported already"):
        triton.install_as_triton()


class LibraryEntry(triton.KernelInterface):
    """A library's wrapper of a kernel (as FlagGems' LibEntry): its run()
    gets what k[grid](...) was given."""

    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def run(self, *args, grid, warmup, **kwargs):
        self.calls += 1
        assert warmup is False
        return self.fn[grid](*args, **kwargs)


def test_kernel_interface_subclass():
    n = int(rng.integers(100, 1000))
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    entry = LibraryEntry(add_one)
    dsl_backends.launch(entry, (triton.cdiv(n, 128),), dsl_backends.current(), x, y, n, BLOCK=128)
    assert entry.calls == 1
    np.testing.assert_array_equal(y, x + 1)
    assert isinstance(add_one, triton.KernelInterface) and isinstance(triton.autotune([triton.Config({})], [])(add_one),
                                                                       triton.KernelInterface)


def test_jit_function_internals():
    import tritonc.runtime.jit as rj
    assert rj.JITFunction is triton.JITFunction and rj.KernelInterface is triton.KernelInterface
    assert list(add_one.signature.parameters) == ["X", "Y", "n", "BLOCK"]
    assert add_one.__globals__ is globals()
    key = add_one.cache_key
    assert len(key) == 64 and int(key, 16) >= 0 and key == add_one.cache_key and key != add_two.cache_key
    assert triton.runtime.driver.active.get_benchmarker() is triton.testing.do_bench


def test_cache_key_follows_the_functions_a_kernel_calls(tmp_path):
    """FlagGems' libentry names its caches by cache_key: it changes with the
    source of a @jit function the kernel calls and with the number globals
    it reads, as Triton's (found by FlagGems' test_libentry)."""
    import importlib.util

    def key(offset, scale, name):
        path = tmp_path / (name + ".py")
        path.write_text("import tritonc as triton\nimport tritonc.language as tl\nSCALE = %r\n\n\n"
                        "@triton.jit\ndef helper(x):\n    return x + %d\n\n\n"
                        "@triton.jit\ndef kernel(X):\n    tl.store(X, helper(tl.load(X)) * SCALE)\n" % (scale, offset))
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.kernel.cache_key
    base = key(1, 2, "k")
    assert key(1, 2, "k") == base
    assert key(2, 2, "k") != base
    assert key(1, 3, "k") != base
    # A helper reached through a module attribute (`helpers.add(x)`), and a global whose .fn is a cycle
    (tmp_path / "helpers_a.py").write_text("import tritonc as triton\n\n\n@triton.jit\ndef add(x):\n    return x + 1\n")
    (tmp_path / "helpers_b.py").write_text("import tritonc as triton\n\n\n@triton.jit\ndef add(x):\n    return x + 2\n")

    def key_through(helpers_name):
        path = tmp_path / "through.py"
        path.write_text("import sys\nsys.path.insert(0, %r)\nimport tritonc as triton\nimport tritonc.language as tl\n"
                        "import %s as helpers\n\n\nclass Loop:\n    pass\n\n\nLOOP = Loop()\nLOOP.fn = LOOP\n\n\n"
                        "@triton.jit\ndef kernel(X):\n    LOOP\n    tl.store(X, helpers.add(tl.load(X)))\n"
                        % (str(tmp_path), helpers_name))
        spec = importlib.util.spec_from_file_location("through_" + helpers_name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.kernel.cache_key
    assert key_through("helpers_a") != key_through("helpers_b")


@triton.jit
def add_two(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < n) + 2, mask=offs < n)


def test_autotuner_with_tritons_constructor_and_members():
    """FlagGems' LibTuner subclasses the Autotuner with Triton's argument
    order and uses base_fn, nargs, prune_configs, _bench and do_bench."""
    configs = [triton.Config({"BLOCK": b}) for b in (32, 64, 128)]
    pruned = []

    def early(configs, nargs, **kwargs):
        pruned.append(sorted(nargs))
        return configs[:2]

    tuner = triton.runtime.Autotuner(add_one, add_one.arg_names, configs, ["n"], None, None, pre_hook=None,
                                     post_hook=None, prune_configs_by={"early_config_prune": early}, do_bench=None,
                                     cache_results=False)
    assert tuner.base_fn is add_one.fn and tuner.do_bench is triton.testing.do_bench
    n = int(rng.integers(100, 1000))
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    dsl_backends.launch(tuner, lambda meta: (triton.cdiv(n, meta["BLOCK"]),), dsl_backends.current(), x, y, n)
    np.testing.assert_array_equal(y, x + 1)
    assert tuner.nargs["n"] == n and tuner.best_config in configs[:2] and pruned
    assert [c.kwargs["BLOCK"] for c in tuner.prune_configs(tuner.nargs)] == [32, 64]
    # As FlagGems' LibTuner calls it: the positional arguments from nargs, only the others as kwargs
    # (its pruning read a positional one by name: KeyError).
    pruned.clear()
    tuner.prune_configs({})
    assert pruned == [sorted(add_one.arg_names[:3])], pruned
    # ... and, as Triton, the pruning gets them in `nargs` only, not as keyword arguments too
    strict = triton.runtime.Autotuner(add_one, add_one.arg_names, configs, ["n"], None, None, pre_hook=None,
                                      post_hook=None, prune_configs_by={"early_config_prune": lambda c, nargs: c[:1]},
                                      do_bench=None, cache_results=False)
    strict.nargs = dict(tuner.nargs)
    assert strict.prune_configs({}) == configs[:1]
    if dsl_backends.current() != "cuda":  # (host arrays here; the cuda suite passes them through launch)
        times = tuner._bench(x, y, n, config=configs[2], grid=(triton.cdiv(n, 128),))
        assert len(times) == 3 and all(0 <= t < float("inf") for t in times)


@triton.jit
def tiles_of(Y, n, TILE: tl.constexpr):
    CTA_TILE: tl.constexpr = TILE * n  # compiles where n is 1, as in Triton
    o = tl.arange(0, CTA_TILE)
    tl.store(Y + o, o * 3)


@triton.jit
def strided_copy(X, Y, stride, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(Y + o, tl.load(X + o * stride, mask=o < n), mask=o < n)


def test_integers_equal_to_one_are_constants():
    y = np.full(16, -1, np.int32)
    run(tiles_of, (1,), y, 1, TILE=16)
    np.testing.assert_array_equal(y, np.arange(16) * 3)
    # Other values are parameters, and each value compiles apart where it is 1.
    x = rng.standard_normal(64).astype(np.float32)
    for stride in (1, 3, 1, 2):
        y = np.full(16, np.nan, np.float32)
        run(strided_copy, (1,), x, y, stride, 16, BLOCK=16)
        np.testing.assert_array_equal(y, x[::stride][:16])
    kept = triton.jit(tiles_of.fn, do_not_specialize=["n"])
    with pytest.raises(CompilationError, match="arange's end must be a compile-time constant"):
        run(kept, (1,), np.zeros(16, np.int32), 1, TILE=16)


@triton.jit
def _lowest(dtype: tl.constexpr):
    d = dtype.value  # a tl.constexpr parameter's value, as in Triton
    if d.is_floating():
        return float("-inf")
    return -(2 ** 31)


@triton.jit
def masked_max(X, Y, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(X + o, mask=o < n, other=_lowest(X.dtype.element_ty))
    tl.store(Y, tl.max(x, 0) + BLOCK.value * 0)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_constexpr_parameter_value(dtype):
    n = int(rng.integers(1, 64))
    x = (rng.standard_normal(n) * 100).astype(dtype) - (1000 if dtype == np.int32 else 0)
    y = np.zeros(1, dtype)
    run(masked_max, (1,), x, y, n, BLOCK=64)
    assert y[0] == x.max()


@triton.jit
def block_ptr_cast(X, Y, n, BLOCK: tl.constexpr):
    px = tl.make_block_ptr(X, (n,), (1,), (0,), (BLOCK,), (0,))
    py = tl.make_block_ptr(Y, (n,), (1,), (0,), (BLOCK,), (0,))
    v = tl.load(px, boundary_check=(0,)).to(tl.float32) * 1.5
    tl.store(py, v.to(py.type.element_ty), boundary_check=(0,))


def test_block_pointer_type_names_the_element_type():
    n = int(rng.integers(10, 64))
    x = rng.integers(-50, 50, n).astype(np.int32)
    y = np.full(n, -7, np.int16)
    run(block_ptr_cast, (1,), x, y, n, BLOCK=64)
    np.testing.assert_array_equal(y, (x * 1.5).astype(np.int16))


from tritonc.language.standard import _log2  # noqa: E402 (as libraries import it)


@triton.jit
def log2_rows(Y, N: tl.constexpr):
    LOG: tl.constexpr = _log2(N)
    tl.store(Y + tl.arange(0, N), tl.full((N,), LOG, tl.int32))


def test_standard_log2():
    assert [_log2(v).value for v in (1, 2, 3, 1024, 1025)] == [0, 1, 1, 10, 10]
    y = np.zeros(32, np.int32)
    run(log2_rows, (1,), y, N=32)
    np.testing.assert_array_equal(y, np.full(32, 5))


class StridedView:
    """A library's own view type (FlagGems' StridedBuffer): an address into
    a tensor's storage, its dtype, shape and strides."""

    def __init__(self, base, offset, shape, strides):
        self.base, self.offset, self.dtype = base, offset, base.dtype
        self.shape, self._strides = shape, strides
        self.device = base.device

    def data_ptr(self):
        return self.base.data_ptr() + self.offset * self.base.element_size()

    def stride(self):
        return self._strides

    def element_size(self):
        return self.base.element_size()


def test_objects_with_data_ptr_are_pointers():
    torch = pytest.importorskip("torch")
    if dsl_backends.current() == "cuda":
        base = torch.zeros(64, device="cuda")
    else:
        base = torch.zeros(64)
    x = torch.from_numpy(rng.standard_normal(16).astype(np.float32)).to(base.device)
    view = StridedView(base, 8, (16,), (1,))
    add_one[(1,)](x, view, 16, BLOCK=16)
    expected = torch.zeros(64)
    expected[8:24] = x.cpu() + 1
    assert torch.equal(base.cpu(), expected)
    # Only views among the arguments (FlagGems' generated pointwise kernels):
    # their device says where the kernel runs.
    source = torch.from_numpy(rng.standard_normal(64).astype(np.float32)).to(base.device)
    add_one[(1,)](StridedView(source, 4, (16,), (1,)), StridedView(base, 40, (16,), (1,)), 16, BLOCK=16)
    expected[40:56] = source[4:20].cpu() + 1
    assert torch.equal(base.cpu(), expected)
    if dsl_backends.current() != "cuda":
        class Bare:
            dtype = torch.float32

            def data_ptr(self):
                return base.data_ptr()
        with pytest.raises(TypeError, match="no shape, stride"):
            add_one[(1,)](x, Bare(), 16, BLOCK=16)


def test_a_view_of_a_cuda_tensor_chooses_the_gpu(monkeypatch):
    """An object with data_ptr(), dtype and a CUDA device picks the GPU as a
    CUDA tensor does (checked without one: the choice alone)."""
    monkeypatch.delenv("TRITONC_INTERPRET", raising=False)
    class CudaView:
        dtype = "float32"
        device = "cuda:0"

        def data_ptr(self):
            return 1 << 40

    class HostView(CudaView):
        device = "cpu"
    assert add_one._target([CudaView(), CudaView(), 16]) == "gpu"
    assert add_one._target([HostView(), HostView(), 16]) != "gpu"


@triton.jit
def numbers_to_builtins(Y, W: tl.constexpr, F: tl.constexpr):
    # (FlagGems' replication-pad backward: tl.maximum(1, W) of a constexpr W)
    tl.store(Y + 0, tl.maximum(1, W) * 1.0)
    tl.store(Y + 1, tl.minimum(W, 3) * 1.0)
    tl.store(Y + 2, tl.maximum(0.5, F))
    tl.store(Y + 3, tl.where(W > 2, 7, 9) * 1.0)


@pytest.mark.parametrize("w", [0, 2, 5])
def test_builtins_given_two_numbers(w):
    """A built-in given two Python numbers makes both tensors (Triton's
    rule), as tl.maximum(1, W) with W a constexpr."""
    f = float(rng.uniform(-1, 1))
    y = np.full(4, np.nan, np.float32)
    run(numbers_to_builtins, (1,), y, W=w, F=f)
    np.testing.assert_array_equal(y, np.array([max(1, w), min(w, 3), max(0.5, f), 7 if w > 2 else 9], np.float32))


@triton.jit
def running_totals(X, STATUS, OUT, BLOCK: tl.constexpr):
    # FlagGems' randperm's look-back, one step deep: each program spins on a
    # volatile load (read from memory every time) of the status word of the
    # one before (0: not ready, else its running total + 1: flag and value in
    # one word, as the look-back packs them, so no second load races the
    # flag), adds its block's sum, and publishes its own.
    pid = tl.program_id(0)
    s = tl.sum(tl.load(X + pid * BLOCK + tl.arange(0, BLOCK), cache_modifier=".cg"), axis=0)
    prev = 0
    if pid > 0:
        status = tl.load(STATUS + pid - 1, volatile=True)
        while status == 0:
            status = tl.load(STATUS + pid - 1, volatile=True)
        prev = status - 1
    tl.store(OUT + pid, prev + s, cache_modifier=".cg")
    tl.atomic_xchg(STATUS + pid, prev + s + 1, sem="release")


def test_volatile_loads_wait_on_other_programs():
    """volatile=True and cache_modifier reach the IR (`{volatile = 1}`,
    `{cache = cg}`); a chain of programs waiting on each other's status
    words gives the running totals (the GPU: ld.volatile.global,
    test_dsl_ptx). (A flag in one word and the value in another, read by a
    plain load after the spin, is a race under the PTX memory model: the
    GPU read the stale value there, session 38.)"""
    programs, block = 48, 32
    x = rng.integers(0, 10, programs * block).astype(np.int32)
    status = np.zeros(programs, np.int32)
    out = np.full(programs, -1, np.int32)
    run(running_totals, (programs,), x, status, out, BLOCK=block)
    np.testing.assert_array_equal(out, np.cumsum(x.reshape(programs, block).sum(1)))
    ir = running_totals.warmup(x, status, out, BLOCK=block).asm["ttir"]
    assert ir.count("volatile = 1") == 2 and "cache = cg" in ir, ir


@triton.jit
def gather_rows(inp, idx, out, row_stride):
    r = tl.program_id(0)
    tl.store(out + r, tl.load(inp + r * row_stride + tl.load(idx + r)))


def test_restrided_views_reach_their_storage():
    """A view restrided with stride 0 (FlagGems' gather) indexed with the
    storage's own strides: the kernel may reach past the view's last element,
    on every back end (the interpreter copies up to the storage's end)."""
    torch = pytest.importorskip("torch")
    if dsl_backends.current() == "cuda":
        pytest.skip("device tensors are passed by address already (the cuda suite takes host arrays)")
    R, C = int(rng.integers(3, 9)), int(rng.integers(50, 300))
    x = torch.from_numpy(rng.standard_normal((R, C)).astype(np.float32))
    view = torch.as_strided(x, (R, 1), (C, 0))
    idx = torch.from_numpy(rng.integers(0, C, R))
    out = torch.full((R,), float("nan"))
    gather_rows[(R,)](view, idx, out, C)
    assert torch.equal(out, x[torch.arange(R), idx])


@triton.jit
def _fill_value(dtype):  # unannotated: a dtype given is a tl.constexpr here, as in Triton
    if dtype.value.is_floating():
        return -1.5
    return -3


@triton.jit
def branch_merge(Y, a, b, X, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid == 0:
        v = a
    else:
        v = b  # b == 1 at the call: the constant 1, made a tensor by the assignment (as Triton)
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Y + pid * BLOCK + offs, tl.where(x > 0, x * v, _fill_value(X.dtype.element_ty)))


def test_constexprs_in_helpers_and_plain_assignments():
    x = rng.standard_normal(16).astype(np.float32)
    y = np.full(32, np.nan, np.float32)
    run(branch_merge, (2,), y, 5, 1, x, BLOCK=16)
    np.testing.assert_array_equal(y[:16], np.where(x > 0, x * 5, -1.5).astype(np.float32))
    np.testing.assert_array_equal(y[16:], np.where(x > 0, x, -1.5).astype(np.float32))


def test_core_and_standard_hold_the_builtins():
    for name in ("static_range", "reshape", "broadcast_to", "where", "arange", "static_assert", "full", "zeros",
                 "program_id", "load", "store"):
        assert getattr(tl.core, name) is getattr(tl, name)
    assert tl.core.get_int_dtype(16, True) is tl.int16 and tl.core.get_int_dtype(64, False) is tl.uint64
    from tritonc.language.standard import zeros_like  # (as FlagGems' topk)
    assert zeros_like is tl.zeros_like


@triton.jit
def _is_floating(x):
    return (x + tl.zeros((1,), tl.int1)).dtype.is_floating()  # a tile built only to read its dtype


@triton.jit
def _max_if_floating(a, b):
    if _is_floating(a):
        r = tl.maximum(a, b)
    else:
        r = a + b
    return r


@triton.jit
def scan_and_reduce_with_dead_tiles(X, S, R, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(X + o)
    tl.store(S + o, tl.associative_scan(x, 0, _max_if_floating))
    tl.store(R, tl.reduce(x, 0, _max_if_floating))


def test_combine_function_with_compile_time_only_tiles():
    """FlagGems' cummax: a combine function's helper builds a tile to read its
    dtype; what is dead goes before the combine function is checked."""
    x = rng.standard_normal(64).astype(np.float32)
    s = np.full(64, np.nan, np.float32)
    r = np.full(1, np.nan, np.float32)
    run(scan_and_reduce_with_dead_tiles, (1,), x, s, r, N=64)
    np.testing.assert_array_equal(s, np.maximum.accumulate(x))
    assert r[0] == x.max()


def test_autotuner_hooks_and_quantiles():
    """Triton's Autotuner has callable hooks always and asks its do_bench for
    quantiles (libraries' benchmarkers require the argument)."""
    asked = []

    def bench(call, quantiles):
        call()
        asked.append(quantiles)
        return [1.0, 0.5, 2.0]

    tuner = triton.runtime.Autotuner(add_one, add_one.arg_names, [triton.Config({"BLOCK": 16})], ["n"], ["Y"], None,
                                     do_bench=bench, cache_results=False)
    y = rng.standard_normal(8).astype(np.float32)
    tuner.pre_hook({"Y": y}, reset_only=True)  # reset_to_zero's default hook
    assert (y == 0).all()
    tuner.post_hook({"Y": y}, exception=None)
    x = rng.standard_normal(8).astype(np.float32)
    if dsl_backends.current() != "cuda":
        assert tuner._bench(x, y, 8, config=tuner.configs[0], grid=(1,)) == [1.0, 0.5, 2.0]
        assert asked == [(0.5, 0.2, 0.8)]


def test_unknown_keywords_are_ignored_with_a_warning():
    """As Triton (a library's configuration for another target passes a
    SPLIT_K this kernel does not have): ignored, said once."""
    n = int(rng.integers(10, 100))
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    kernel = triton.jit(add_one.fn)  # (said once per kernel: a fresh one)
    with pytest.warns(UserWarning, match="SPLIT_K are neither parameters nor launch options"):
        run(kernel, (1,), x, y, n, BLOCK=128, SPLIT_K=4)
    np.testing.assert_array_equal(y, x + 1)


@triton.jit
def unique_of_sorted(X, OUT, SIZE, n, TILE: tl.constexpr):
    # FlagGems' unique over sorted values: a boundary where an element
    # differs from the one before (`i > 0`), numbered by a running sum.
    i = tl.arange(0, TILE)
    mask = i < n
    a = tl.load(X + i, mask=mask)
    b = tl.load(X + tl.where(i > 0, i - 1, 0), mask=mask)
    boundary = tl.where(i > 0, a != b, 0)
    number = tl.cumsum(boundary)
    tl.store(SIZE + tl.zeros_like(i), number + 1, mask=i == TILE - 1)
    tl.store(OUT + number, a, mask=mask)
    at_or_below = tl.where(i <= 2, 1, 0)  # (`<=` against a constant: the same trap)
    tl.store(OUT + TILE + i, at_or_below, mask=mask)


@pytest.mark.parametrize("n", [37, 266, 1000])
def test_comparisons_that_split_a_run(n):
    """`i > 0` and `i <= 2` over a range are not constant over runs of
    elements a thread holds (the run starting at the constant splits): the
    GPU read element 0's predicate for its neighbours (session 38, FlagGems'
    unique counted wrong)."""
    x = np.sort(rng.integers(-10, 10, n)).astype(np.int32)
    tile = 1 << (n - 1).bit_length()
    out = np.full(2 * tile, -99, np.int32)
    size = np.zeros(1, np.int32)
    run(unique_of_sorted, (1,), x, out, size, n, TILE=tile, num_warps=8)
    want = np.unique(x)
    assert size[0] == len(want)
    np.testing.assert_array_equal(out[:len(want)], want)
    np.testing.assert_array_equal(out[tile:tile + n], (np.arange(n) <= 2).astype(np.int32))


@triton.jit
def combine_splits(OUT, LSE, OUT_SPLITS, LSE_SPLITS, head_size: tl.constexpr, out_split_stride, lse_split_stride,
                   n_splits, q_total, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, MAX_N_SPLITS: tl.constexpr):
    # FlagGems' split-KV attention combine (flash_fwd_splitkv_combine_kernel's
    # shape of computation): per query row, the splits' partial outputs
    # weighted by their share of the total softmax mass, a reduction over
    # the middle axis of a [rows, splits, head] tile.
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    splits = tl.arange(0, MAX_N_SPLITS)
    k = tl.arange(0, BLOCK_K)
    lse_mask = (rows[:, None] < q_total) & (splits[None, :] < n_splits)
    lse_splits = tl.load(LSE_SPLITS + rows[:, None] + splits[None, :] * lse_split_stride, mask=lse_mask,
                         other=float("-inf"))
    max_lse = tl.max(lse_splits, 1)
    zi = tl.exp(lse_splits - max_lse[:, None])
    z = tl.sum(zi, 1)
    share = zi / z[:, None]
    tl.store(LSE + rows, tl.log(z) + max_lse, mask=rows < q_total)
    offsets = rows[:, None, None] * head_size + splits[None, :, None] * out_split_stride + k[None, None, :]
    mask = (rows[:, None, None] < q_total) & (splits[None, :, None] < n_splits) & (k[None, None, :] < head_size)
    parts = tl.load(OUT_SPLITS + offsets, mask=mask, other=0.0)
    out = tl.sum(share[:, :, None] * parts, 1)
    tl.store(OUT + rows[:, None] * head_size + k[None, :], out, mask=(rows[:, None] < q_total) & (k[None, :] < head_size))


@pytest.mark.parametrize("n_splits,head_size,block_m", [(3, 64, 4), (2, 40, 8), (5, 64, 16)])
def test_split_kv_combine(n_splits, head_size, block_m):
    """A reduction over the middle axis of a 3-D tile weighted by a 2-D
    softmax broadcast into it (FlagGems' split-KV attention combine, whose
    attention test is not close on the GPU under tritonc: session 38)."""
    q = int(rng.integers(20, 70))
    lse_splits = rng.standard_normal((n_splits, q)).astype(np.float32)
    out_splits = rng.standard_normal((n_splits, q, head_size)).astype(np.float32)
    out = np.full((q, head_size), np.nan, np.float32)
    lse = np.full(q, np.nan, np.float32)
    max_splits = 1 << (n_splits - 1).bit_length()
    run(combine_splits, ((q + block_m - 1) // block_m,), out, lse, out_splits, lse_splits, head_size,
        q * head_size, q, n_splits, q, BLOCK_M=block_m, BLOCK_K=1 << (head_size - 1).bit_length(),
        MAX_N_SPLITS=max_splits)
    m = lse_splits.max(0)
    zi = np.exp(lse_splits - m)
    z = zi.sum(0)
    np.testing.assert_allclose(lse, np.log(z) + m, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out, np.einsum("sq,sqd->qd", zi / z, out_splits), rtol=1e-4, atol=1e-5)
