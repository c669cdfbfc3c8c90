"""The kernels of dsl_kernels.py (Triton's tutorials, as users write them)
against float64 numpy references, on fresh random inputs at ragged sizes,
outputs poisoned first: on the interpreter (TRITONC_INTERPRET=1), on the CPU
back end where it is built, and with CUDA tensors on a GPU host."""
import os
import sys

import numpy as np
import pytest

import tritonc
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402
import dsl_kernels as K  # noqa: E402

rng = np.random.default_rng()


_torch_cuda = dsl_backends.torch_cuda


@pytest.fixture(params=dsl_backends.available())
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


def dev(x, backend):
    """`x` (numpy) where the backend runs: numpy, or a CUDA tensor."""
    if backend != "cuda":
        return np.ascontiguousarray(x)
    import torch
    return torch.from_numpy(np.ascontiguousarray(x)).cuda()


def host(x):
    if hasattr(x, "cpu"):
        return x.float().cpu().numpy() if x.dtype.is_floating_point else x.cpu().numpy()
    return x


def poisoned(shape, dtype, backend):
    fill = np.nan if np.issubdtype(dtype, np.floating) else -7
    return dev(np.full(shape, fill, dtype), backend)


def test_vector_add(backend):
    n = int(rng.integers(1000, 5000))
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = poisoned(n, np.float32, backend)
    K.add_kernel[lambda meta: (tritonc.cdiv(n, meta["BLOCK_SIZE"]),)](dev(x, backend), dev(y, backend), out, n,
                                                                       BLOCK_SIZE=256)
    np.testing.assert_array_equal(host(out), x + y)


def test_softmax(backend):
    rows, cols = int(rng.integers(5, 40)), int(rng.integers(100, 500))
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    out = poisoned((rows, cols), np.float32, backend)
    K.softmax_kernel[(4,)](out, dev(x, backend), cols, cols, rows, cols, BLOCK_SIZE=512)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(host(out), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_matmul_grouped(backend, dtype):
    M, N, Kd = (int(v) for v in rng.integers(33, 130, size=3))
    a = rng.standard_normal((M, Kd)).astype(dtype)
    b = rng.standard_normal((Kd, N)).astype(dtype)
    c = poisoned((M, N), dtype, backend)
    K.matmul_kernel[lambda m: (tritonc.cdiv(M, m["BLOCK_M"]) * tritonc.cdiv(N, m["BLOCK_N"]),)](
        dev(a, backend), dev(b, backend), c, M, N, Kd, Kd, 1, N, 1, N, 1,
        BLOCK_M=32, BLOCK_N=64, BLOCK_K=32, GROUP_M=2)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    # f32 dots take tf32 on the GPU (Triton's default input_precision).
    tol = 2e-2 * np.sqrt(Kd) if dtype == np.float16 or backend == "cuda" else 1e-4
    np.testing.assert_allclose(host(c), ref, atol=tol, rtol=1e-2)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_matmul_grouped_in_triton_c_as_in_the_dsl(backend, dtype):
    """bench/kernels/matmul_grouped.tc, matmul_kernel statement for statement in
    Triton-C (the DSL benchmark's "one compiler, two front ends"), computes what
    the DSL kernel computes."""
    M, N, Kd = (int(v) for v in rng.integers(33, 130, size=3))
    a = rng.standard_normal((M, Kd)).astype(dtype)
    b = rng.standard_normal((Kd, N)).astype(dtype)
    c_dsl, c_tc = poisoned((M, N), dtype, backend), poisoned((M, N), dtype, backend)
    K.matmul_kernel[lambda m: (tritonc.cdiv(M, m["BLOCK_M"]) * tritonc.cdiv(N, m["BLOCK_N"]),)](
        dev(a, backend), dev(b, backend), c_dsl, M, N, Kd, Kd, 1, N, 1, N, 1,
        BLOCK_M=32, BLOCK_N=64, BLOCK_K=32, GROUP_M=2)
    path = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "kernels", "matmul_grouped.tc")
    mm = tritonc.kernel(open(path).read(), ["C"], target={"interp": "interp", "cpu": "cpu"}.get(backend, "auto"),
                        filename="matmul_grouped.tc")
    mm(dev(a, backend), dev(b, backend), c_tc, M, N, Kd, Kd, 1, N, 1, N, 1,
       grid=lambda o: (tritonc.cdiv(M, o.d("TM")) * tritonc.cdiv(N, o.d("TN")),), TYPE=dtype, TM=32, TN=64, TK=32,
       GROUP_M=2, num_warps=4)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tol = 2e-2 * np.sqrt(Kd) if dtype == np.float16 or backend == "cuda" else 1e-4
    np.testing.assert_allclose(host(c_tc), ref, atol=tol, rtol=1e-2)
    np.testing.assert_allclose(host(c_tc), host(c_dsl), atol=tol, rtol=1e-2)


def test_linear_f32_with_tf32(backend):
    """x @ w.T in f32 (dsl_kernels.linear_kernel): ragged sizes (M and N not
    multiples of the tiles, K of 4 only: rows 16-byte aligned), 4 and 8
    warps; tf32's tolerance on the GPU."""
    M, N = (int(v) for v in rng.integers(65, 300, size=2))
    Kd = 4 * int(rng.integers(20, 60))
    x = rng.standard_normal((M, Kd)).astype(np.float32)
    w = rng.standard_normal((N, Kd)).astype(np.float32)
    ref = x.astype(np.float64) @ w.astype(np.float64).T
    for warps, bn in ((4, 64), (8, 128)):
        y = poisoned((M, N), np.float32, backend)
        K.linear_kernel[(tritonc.cdiv(M, 128), tritonc.cdiv(N, bn))](
            dev(x, backend), dev(w, backend), y, M, N, Kd, BLOCK_M=128, BLOCK_N=bn, BLOCK_K=32, num_warps=warps)
        # tf32 keeps 10 bits of each input's mantissa: relative 2^-10 per product.
        tol = 4e-3 * np.sqrt(Kd) if backend == "cuda" else 1e-4
        np.testing.assert_allclose(host(y), ref, atol=tol, rtol=1e-2)


def test_matmul_autotuned(backend, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    M, N, Kd = 70, 100, 90
    if backend == "cuda":
        M, N, Kd = 1000, 700, 500
    a = rng.standard_normal((M, Kd)).astype(np.float16)
    b = rng.standard_normal((Kd, N)).astype(np.float16)
    c = poisoned((M, N), np.float16, backend)
    tuned = tritonc.autotune(
        configs=[tritonc.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 4}, num_warps=4),
                 tritonc.Config({"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=4)],
        key=["M", "N", "K"], warmup=1, rep=1)(K.matmul_kernel)
    grid = lambda m: (tritonc.cdiv(M, m["BLOCK_M"]) * tritonc.cdiv(N, m["BLOCK_N"]),)  # noqa: E731
    tuned[grid](dev(a, backend), dev(b, backend), c, M, N, Kd, Kd, 1, N, 1, N, 1)
    assert tuned.best_config in tuned.configs and len(tuned.timings) == 2
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(host(c), ref, atol=2e-2 * np.sqrt(Kd), rtol=1e-2)
    # A second autotuner object finds the choice on disk and times nothing.
    again = tritonc.autotune(configs=tuned.configs, key=["M", "N", "K"])(K.matmul_kernel)
    c2 = poisoned((M, N), np.float16, backend)
    again[grid](dev(a, backend), dev(b, backend), c2, M, N, Kd, Kd, 1, N, 1, N, 1)
    assert again.timings == {} and repr(again.best_config) == repr(tuned.best_config)
    np.testing.assert_array_equal(host(c2), host(c))


@tritonc.jit
def block_sums_kernel(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(Y, tl.sum(tl.load(X + offs, mask=offs < N, other=0.0)))


@tritonc.jit
def increment_kernel(X, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(X + offs, tl.load(X + offs, mask=offs < N) + 1.0, mask=offs < N)


def test_autotune_resets_and_restores_what_the_timing_runs_change(backend, tmp_path, monkeypatch):
    """reset_to_zero: an accumulator the timing runs add to starts from zero
    for each run and for the launch; restore_value: an array a run updates
    in place is put back after each (numpy arrays and CUDA tensors)."""
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    n = int(rng.integers(300, 900))
    x = rng.random(n).astype(np.float32)
    configs = [tritonc.Config({"BLOCK": 64}), tritonc.Config({"BLOCK": 128})]
    grid = lambda m: (tritonc.cdiv(n, m["BLOCK"]),)  # noqa: E731
    sums = tritonc.autotune(configs=configs, key=["N"], reset_to_zero=["Y"], warmup=1, rep=1)(block_sums_kernel)
    y = dev(np.full(1, 1e6, np.float32), backend)  # not zero before: the launch zeroes it as the timing runs do
    sums[grid](dev(x, backend), y, n)
    assert len(sums.timings) == 2
    np.testing.assert_allclose(host(y), [x.astype(np.float64).sum()], rtol=1e-4)
    inc = tritonc.autotune(configs=configs, key=["N"], restore_value=["X"], warmup=1, rep=1)(increment_kernel)
    xd = dev(x.copy(), backend)
    inc[grid](xd, n)
    assert len(inc.timings) == 2
    np.testing.assert_array_equal(host(xd), x + 1.0)


def test_autotune_pre_and_post_hooks_run_as_in_triton(backend, tmp_path, monkeypatch):
    """pre_hook runs before every timed call (in place of reset_to_zero) and
    once more with reset_only=True before the launch; post_hook after every
    timed call with exception=None; so the launch's sum is right."""
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    n = int(rng.integers(300, 900))
    x = rng.random(n).astype(np.float32)
    configs = [tritonc.Config({"BLOCK": 64}), tritonc.Config({"BLOCK": 128})]
    grid = lambda m: (tritonc.cdiv(n, m["BLOCK"]),)  # noqa: E731
    calls = {"pre": 0, "reset": 0, "post": 0}

    def pre(args, reset_only=False):
        args["Y"].fill(0) if hasattr(args["Y"], "fill") else args["Y"].zero_()
        calls["reset" if reset_only else "pre"] += 1
        assert args["BLOCK"] in (64, 128) and args["N"] == n

    def post(args, exception):
        assert exception is None
        calls["post"] += 1

    sums = tritonc.autotune(configs=configs, key=["N"], pre_hook=pre, post_hook=post, cache_results=False,
                            do_bench=lambda f: [f() for _ in range(3)] and 1.0)(block_sums_kernel)
    y = dev(np.full(1, 1e6, np.float32), backend)
    sums[grid](dev(x, backend), y, n)
    np.testing.assert_allclose(host(y), [x.astype(np.float64).sum()], rtol=1e-4)
    # Each configuration: its first call (the spill check), then do_bench's three.
    timed = calls["pre"]
    assert timed == calls["post"] == 8 and calls["reset"] == 1
    # A hook without reset_only is called with the arguments alone.
    plain = tritonc.autotune(configs=configs, key=["N"], pre_hook=lambda a: a["Y"].fill(0) if hasattr(a["Y"], "fill")
                             else a["Y"].zero_(), cache_results=False, warmup=1, rep=1)(block_sums_kernel)
    y2 = dev(np.full(1, 1e6, np.float32), backend)
    plain[grid](dev(x, backend), y2, n)
    np.testing.assert_allclose(host(y2), [x.astype(np.float64).sum()], rtol=1e-4)
    with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK"):
        sums[grid](dev(x, backend), y, n, BLOCK=64)


def test_autotune_and_heuristics_warmup_compile_without_launching(backend, tmp_path, monkeypatch):
    """As Triton's: an autotuned kernel's warmup compiles each configuration
    left by the pruning and returns them in order (it was the integer
    warm-up time: not callable); a heuristics kernel's compiles for the
    values its functions give. Nothing runs: the array keeps its poison."""
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    n = int(rng.integers(300, 900))
    configs = [tritonc.Config({"BLOCK": b}) for b in (32, 64, 128)]
    prune = {"early_config_prune": lambda cs, named, **kw: [c for c in cs if c.kwargs["BLOCK"] != 64]}
    tuned = tritonc.autotune(configs=configs, key=["N"], prune_configs_by=prune)(increment_kernel)
    x = dev(np.full(n, np.nan, np.float32), backend)
    compiled = tuned.warmup(x, n, grid=(1,))
    assert ["range 0 : i32<%d>" % b in c.asm["ttir"] for c, b in zip(compiled, (32, 128))] == [True, True]
    assert len(tuned.timings) == 0 and np.isnan(host(x)).all()
    heur = tritonc.heuristics({"BLOCK": lambda a: tritonc.next_power_of_2(a["N"])})(increment_kernel)
    one = heur.warmup(x, n, grid=(1,))
    assert "range 0 : i32<%d>" % tritonc.next_power_of_2(n) in one.asm["ttir"] and np.isnan(host(x)).all()


@pytest.mark.skipif(not tritonc._tritonc.cpu_backend_available(), reason="needs the CPU back end")
def test_a_persisted_autotune_choice_is_per_back_end(tmp_path, monkeypatch):
    """A choice timed on the interpreter is not the CPU back end's (the
    persisted record's key names where the launch runs): a second tuner
    times again there, and finds its own record on the interpreter."""
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    n = int(rng.integers(300, 900))
    configs = [tritonc.Config({"BLOCK": 64}), tritonc.Config({"BLOCK": 128})]
    grid = lambda m: (tritonc.cdiv(n, m["BLOCK"]),)  # noqa: E731
    x = rng.random(n).astype(np.float32)

    def launch(interpret):
        monkeypatch.setenv("TRITONC_INTERPRET", "1" if interpret else "0")
        inc = tritonc.autotune(configs=configs, key=["N"], restore_value=["X"], warmup=1, rep=1)(increment_kernel)
        xd = x.copy()
        inc[grid](xd, n)
        np.testing.assert_array_equal(xd, x + 1.0)
        return len(inc.timings)

    assert launch(True) == 2
    assert launch(False) == 2  # timed again: the interpreter's choice is not the CPU's
    assert launch(True) == 0 and launch(False) == 0  # each finds its own record


def test_matmul_split_k_atomics(backend):
    M, N, Kd = 50, 40, int(rng.integers(200, 400))
    a = rng.standard_normal((M, Kd)).astype(np.float16)
    b = rng.standard_normal((Kd, N)).astype(np.float16)
    c = dev(np.zeros((M, N), np.float32), backend)
    K.matmul_splitk_kernel[(tritonc.cdiv(M, 32) * tritonc.cdiv(N, 32), 4)](
        dev(a, backend), dev(b, backend), c, M, N, Kd, Kd, 1, N, 1, N, 1,
        BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, SPLIT_K=4)
    np.testing.assert_allclose(host(c), a.astype(np.float64) @ b.astype(np.float64), atol=1e-2, rtol=1e-3)


def test_layer_norm_forward_backward(backend):
    M, N = int(rng.integers(3, 20)), int(rng.integers(100, 400))
    x = rng.standard_normal((M, N)).astype(np.float32)
    w, b = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    y, mean, rstd = poisoned((M, N), np.float32, backend), poisoned(M, np.float32, backend), \
        poisoned(M, np.float32, backend)
    xd = dev(x, backend)
    K.layer_norm_fwd[(M,)](xd, y, dev(w, backend), dev(b, backend), mean, rstd, N, N, 1e-5, BLOCK_SIZE=128)
    x64 = x.astype(np.float64)
    mu, var = x64.mean(1, keepdims=True), x64.var(1, keepdims=True)
    xhat = (x64 - mu) / np.sqrt(var + 1e-5)
    np.testing.assert_allclose(host(y), xhat * w + b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(host(rstd), 1 / np.sqrt(var[:, 0] + 1e-5), rtol=1e-5)
    dy = rng.standard_normal((M, N)).astype(np.float32)
    dx = poisoned((M, N), np.float32, backend)
    dw, db = dev(np.zeros(N, np.float32), backend), dev(np.zeros(N, np.float32), backend)
    K.layer_norm_bwd[(M,)](dx, dev(dy, backend), dw, db, xd, dev(w, backend), mean, rstd, N, N, BLOCK_N=512)
    wdy = w * dy
    c1 = (xhat * wdy).sum(1, keepdims=True) / N
    c2 = wdy.sum(1, keepdims=True) / N
    np.testing.assert_allclose(host(dx), (wdy - (xhat * c1 + c2)) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(host(dw), (dy * xhat).sum(0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(host(db), dy.sum(0), rtol=1e-4, atol=1e-4)


def test_layer_norm_backward_with_locks(backend):
    """The tutorial's two-kernel backward: partial dw/db rows under locks
    (acq_rel atomic_cas / atomic_xchg, Triton's defaults), then their sum."""
    M, N, group = int(rng.integers(40, 200)), int(rng.integers(100, 400)), 8
    x = rng.standard_normal((M, N)).astype(np.float32)
    w = rng.random(N, dtype=np.float32)
    dy = rng.standard_normal((M, N)).astype(np.float32)
    x64 = x.astype(np.float64)
    mu, var = x64.mean(1), x64.var(1)
    rstd = (1 / np.sqrt(var + 1e-5)).astype(np.float32)
    dx = poisoned((M, N), np.float32, backend)
    partial_dw, partial_db = poisoned((group, N), np.float32, backend), poisoned((group, N), np.float32, backend)
    locks = dev(np.zeros(2 * group, np.int32), backend)
    K.layer_norm_bwd_dx_locked[(M,)](dx, dev(dy, backend), partial_dw, partial_db, dev(x, backend), dev(w, backend),
                                     dev(mu.astype(np.float32), backend), dev(rstd, backend), locks, N, N,
                                     GROUP_SIZE_M=group, BLOCK_SIZE_N=512, num_warps=4)
    final_dw, final_db = poisoned(N, np.float32, backend), poisoned(N, np.float32, backend)
    K.layer_norm_bwd_dwdb[(tritonc.cdiv(N, 64),)](partial_dw, partial_db, final_dw, final_db, group, N,
                                                  BLOCK_SIZE_M=8, BLOCK_SIZE_N=64)
    xhat = (x64 - mu[:, None]) * rstd[:, None]
    wdy = w * dy
    c1 = (xhat * wdy).sum(1, keepdims=True) / N
    c2 = wdy.sum(1, keepdims=True) / N
    np.testing.assert_allclose(host(dx), (wdy - (xhat * c1 + c2)) * rstd[:, None], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(host(final_dw), (dy * xhat).sum(0), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(host(final_db), dy.sum(0), rtol=1e-4, atol=1e-3)
    assert (host(locks)[:group] == 0).all() and (host(locks)[group:] == 1).all()


@pytest.mark.parametrize("causal", [False, True])
def test_attention_forward(backend, causal):
    Z, H, n_ctx, d = 1, 2, int(rng.integers(40, 100)), 64
    q, k, v = ((rng.standard_normal((Z, H, n_ctx, d)) * 0.5).astype(np.float16) for _ in range(3))
    out = poisoned((Z, H, n_ctx, d), np.float16, backend)
    s = [x // 2 for x in q.strides]
    K.attention_fwd[(tritonc.cdiv(n_ctx, 32), Z * H)](dev(q, backend), dev(k, backend), dev(v, backend), 0.125,
                                                      out, *s, *s, *s, *s, Z, H, n_ctx, HEAD_DIM=d, BLOCK_M=32,
                                                      BLOCK_N=32, CAUSAL=causal)
    scores = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 1, 3, 2) * 0.125
    if causal:
        scores = np.where(np.tril(np.ones((n_ctx, n_ctx))) > 0, scores, -np.inf)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(host(out), p @ v.astype(np.float64), atol=2e-2, rtol=0)


def test_loop_with_break(backend):
    n = int(rng.integers(500, 2000))
    x = rng.random(n).astype(np.float32)
    first = int(rng.integers(0, n))
    x[first] = -1.0
    x[min(n - 1, first + 7)] = -2.0
    out = poisoned(1, np.int32, backend)
    K.first_negative_kernel[(1,)](dev(x, backend), out, n, BLOCK=64)
    assert int(host(out)[0]) == first
    x[x < 0] = 1.0
    K.first_negative_kernel[(1,)](dev(x, backend), out, n, BLOCK=64)
    assert int(host(out)[0]) == n


@pytest.mark.skipif(_torch_cuda() is None, reason="needs a CUDA GPU and torch")
def test_repeated_cuda_launches_take_the_fast_path():
    torch = _torch_cuda()
    n = 3000
    x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    grid = lambda meta: (tritonc.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
    out = torch.full((n,), float("nan"), device="cuda")
    K.add_kernel[grid](x, y, out, n, BLOCK_SIZE=256)  # the Python path remembers the call
    before = K.add_kernel._fast_launches
    for _ in range(3):
        out.fill_(float("nan"))
        x2 = torch.rand(n, device="cuda")
        K.add_kernel[grid](x2, y, out, n, BLOCK_SIZE=256)
        torch.testing.assert_close(out, x2 + y, rtol=0, atol=0)
    assert K.add_kernel._fast_launches == before + 3
    # Another constexpr value or dtype is not the remembered call: the Python path.
    K.add_kernel[grid](x, y, out, n, BLOCK_SIZE=512)
    K.add_kernel[grid](x.double(), y.double(), out.double(), n, BLOCK_SIZE=256)
    assert K.add_kernel._fast_launches == before + 3


class _TypedAddress:
    """A bare typed address (FlagGems' TypedPtr): data_ptr() and dtype only."""

    def __init__(self, address, dtype):
        self.address, self.dtype = address, dtype

    def data_ptr(self):
        return self.address


def test_a_bare_typed_address_on_the_host_is_refused_clearly():
    """Without a GPU, an address with no shape or strides names memory the
    CPU back end cannot bound: a clear error (on a GPU host it is a GPU
    address, below)."""
    if _torch_cuda() is not None:
        pytest.skip("a GPU host: the address is a GPU one")
    x = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match="gives no shape, stride"):
        K.add_kernel[(1,)](_TypedAddress(x.ctypes.data, x.dtype), x, x, 8, BLOCK_SIZE=8)


@pytest.mark.skipif(_torch_cuda() is None, reason="needs a CUDA GPU and torch")
def test_a_bare_typed_address_is_a_gpu_address():
    """As Triton: an object with only data_ptr() and dtype (FlagGems'
    TypedPtr, here over a complex tensor's floats, at an offset) launches on
    the GPU at that address."""
    torch = _torch_cuda()
    n = int(rng.integers(100, 1000))
    x = torch.complex(torch.randn(n, device="cuda"), torch.randn(n, device="cuda"))
    y = torch.rand(2 * n, device="cuda")
    out = torch.full((2 * n,), float("nan"), device="cuda")
    offset = 2
    K.add_kernel[(tritonc.cdiv(2 * n, 128),)](_TypedAddress(x.data_ptr() + 4 * offset, torch.float32), y,
                                              _TypedAddress(out.data_ptr(), torch.float32), 2 * n - offset,
                                              BLOCK_SIZE=128)
    want = torch.view_as_real(x).flatten()[offset:] + y[:2 * n - offset]
    torch.testing.assert_close(out[:2 * n - offset], want, rtol=0, atol=0)
    assert torch.isnan(out[2 * n - offset:]).all()


@pytest.mark.skipif(_torch_cuda() is None, reason="needs a CUDA GPU and torch")
def test_keyword_arguments_take_the_fast_path_too():
    """Runtime arguments by keyword (as Liger's kernels are called) launch
    from C++ on repeated calls with the same keywords in the same order;
    another value of a keyword constexpr or launch option, or another order:
    the Python path, still right."""
    torch = _torch_cuda()
    n = int(rng.integers(1000, 5000))
    y = torch.rand(n, device="cuda")
    out = torch.full((n,), float("nan"), device="cuda")
    grid = lambda meta: (tritonc.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)  # noqa: E731
    K.add_kernel[grid](x_ptr=y, y_ptr=y, out_ptr=out, n_elements=n, BLOCK_SIZE=128, num_warps=4)
    before = K.add_kernel._fast_launches
    for _ in range(3):
        out.fill_(float("nan"))
        x = torch.rand(n, device="cuda")
        K.add_kernel[grid](x_ptr=x, y_ptr=y, out_ptr=out, n_elements=n, BLOCK_SIZE=128, num_warps=4)
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert K.add_kernel._fast_launches == before + 3
    m = n - 7  # another size (its first call may compile another specialization), the new size honoured
    for _ in range(2):
        out.fill_(float("nan"))
        K.add_kernel[grid](x_ptr=x, y_ptr=y, out_ptr=out, n_elements=m, BLOCK_SIZE=128, num_warps=4)
        torch.testing.assert_close(out[:m], x[:m] + y[:m], rtol=0, atol=0)
        assert out[m:].isnan().all()
    after = K.add_kernel._fast_launches
    assert after >= before + 4
    for call in (dict(x_ptr=x, y_ptr=y, out_ptr=out, n_elements=n, BLOCK_SIZE=256, num_warps=4),
                 dict(x_ptr=x, y_ptr=y, out_ptr=out, n_elements=n, BLOCK_SIZE=128, num_warps=8),
                 dict(y_ptr=y, x_ptr=x, out_ptr=out, n_elements=n, BLOCK_SIZE=128, num_warps=4)):
        out.fill_(float("nan"))
        K.add_kernel[grid](**call)
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert K.add_kernel._fast_launches == after


def test_warmup_gives_the_ir_and_the_ptx(monkeypatch):
    """kernel.warmup(...) compiles without launching: .asm['ttir'] is the front
    end's Triton-IR, .asm['ptx'] the PTX for sm_90a specialized for the
    arguments (no GPU needed)."""
    monkeypatch.setenv("TRITONC_ARCH", "sm_90a")
    a = np.zeros((256, 256), np.float16)
    c = K.matmul_kernel.warmup(a, a, a, 4096, 4096, 4096, 4096, 1, 4096, 1, 4096, 1,
                               BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=8)
    assert "kernel @matmul_kernel(" in c.asm["ttir"] and "dot " in c.asm["ttir"]
    ptx = c.asm["ptx"]
    assert ".target sm_90a" in ptx and "wgmma.mma_async" in ptx and "cp.async" in ptx


def test_report_puts_the_compilers_decisions_beside_the_kernels_lines(monkeypatch):
    """kernel.report(...) (and warmup(...).report()) is the compile report of
    the specialization: the kernel's lines of its Python file only, the
    loads' copies, the dot's instruction and the store on their own lines,
    then the kernel's figures; json=True gives the same facts by line."""
    import inspect
    import json
    monkeypatch.setenv("TRITONC_ARCH", "sm_90a")
    a = np.zeros((256, 256), np.float16)
    args = (a, a, a, 4096, 4096, 4096, 4096, 1, 4096, 1, 4096, 1)
    consts = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8)
    text = K.matmul_kernel.report(*args, **consts)
    lines, first = inspect.getsourcelines(K.matmul_kernel.fn)
    numbered = {int(l.split("|")[0]): l for l in text.splitlines() if l.split("|")[0].strip().isdigit()}
    assert sorted(numbered) == list(range(first, first + len(lines)))
    at = lambda code: first + next(i for i, l in enumerate(lines) if code in l)  # noqa: E731
    assert "wgmma m64n128k16" in numbered[at("tl.dot(a, b, accumulator)")]
    assert "cp.async 128x64 f16" in numbered[at("a = tl.load(a_ptrs")]
    assert "store 128x128 f16" in numbered[at("tl.store(c_ptrs")]
    assert "kernel matmul_kernel (sm_90a, 4 warps, 128 threads)" in text
    facts = json.loads(K.matmul_kernel.warmup(*args, **consts).report(json=True))["lines"]
    assert {f["line"] for f in facts if f["kind"] == "dot"} == {at("tl.dot(a, b, accumulator)")}



def test_report_shows_the_lines_of_the_functions_the_kernel_calls(monkeypatch):
    """The attention forward's loop lives in @jit helpers (_attn_rows,
    _attn_inner): their loads' rings and dots are reported on the helpers'
    own lines, after the kernel's, each helper under its def line; the
    kernel's lines stay as they are."""
    import inspect
    monkeypatch.setenv("TRITONC_ARCH", "sm_90a")
    q = np.zeros((2, 2, 256, 64), np.float16)
    s = q.strides[0] // 2, q.strides[1] // 2, q.strides[2] // 2, 1
    text = K.attention_fwd.report(q, q, q, 0.125, q, *s, *s, *s, *s, 2, 2, 256, HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64,
                                  CAUSAL=False, num_warps=8)
    numbered = [(int(l.split("|")[0]), l) for l in text.splitlines() if l.split("|")[0].strip().isdigit()]
    kernel_lines, first = inspect.getsourcelines(K.attention_fwd.fn)
    inner, inner_first = inspect.getsourcelines(K._attn_inner.fn)
    at = lambda code: inner_first + next(i for i, l in enumerate(inner) if code in l)  # noqa: E731
    beyond = [(n, l) for n, l in numbered if not first <= n < first + len(kernel_lines)]
    assert [n for n, _ in numbered][:len(kernel_lines)] == list(range(first, first + len(kernel_lines)))
    by_line = dict(beyond)
    assert "wgmma m64n64k16" in by_line[at("qk = tl.dot(q, k)")]
    assert "wgmma m64n64k16" in by_line[at("acc = tl.dot(p.to(tl.float16), v, acc)")]
    assert "cp.async 64x64 f16" in by_line[at("k = tl.load(K_block_ptr")]
    assert inner_first + 1 in by_line and "def _attn_inner(" in by_line[inner_first + 1]  # its def (after @jit)
    assert "(no source line)" not in text
    assert [n for n, _ in beyond] == sorted(n for n, _ in beyond)

@tritonc.jit
def matmul_2d_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # Masked, one program per output tile on a 2-D grid (x along M): B's
    # tiles are the same for programs (2i, pn) and (2i + 1, pn).
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_num_ctas_two_multicasts_the_shared_copies(monkeypatch):
    """num_ctas=2 (a launch option and a Config field, as in Triton) reaches
    the compiler: B's boxes, shared by pairs of programs along x, are
    multicast in clusters of two; num_ctas=1 (the default) copies each
    program's own."""
    monkeypatch.setenv("TRITONC_ARCH", "sm_90a")
    a = np.zeros((256, 256), np.float16)
    args = (a, a, a, 4096, 4096, 4096, 4096, 4096, 4096)
    two = matmul_2d_kernel.warmup(*args, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=4, num_ctas=2)
    one = matmul_2d_kernel.warmup(*args, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=4)
    assert ".multicast::cluster" in two.asm["ptx"] and "// tritonc: cluster_x 2" in two.asm["ptx"]
    assert ".multicast::cluster" not in one.asm["ptx"] and "cluster_x" not in one.asm["ptx"]
    assert "num_ctas=2" in repr(tritonc.Config({"BLOCK_M": 64}, num_ctas=2))
    # 4: A's boxes, shared by pairs along y, too (clusters of 2 x 2).
    four = matmul_2d_kernel.warmup(*args, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=4, num_ctas=4)
    assert "// tritonc: cluster_y 2" in four.asm["ptx"] and "%cluster_ctaid.y" in four.asm["ptx"]
    assert "cluster_y" not in two.asm["ptx"]
    for bad in (3, 0, None, "2"):
        with pytest.raises(ValueError, match="num_ctas must be 1, 2 or 4"):
            matmul_2d_kernel.warmup(*args, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_ctas=bad)
    with pytest.raises(ValueError, match="num_ctas must be 1, 2 or 4"):
        tritonc.Config({"BLOCK_M": 64}, num_ctas=3)


def test_autotune_over_num_ctas_runs_every_config(tmp_path, monkeypatch):
    """Configurations that differ in num_ctas only are separate kernels; on
    the CPU back end or the interpreter both compute the product."""
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng()
    M, N, K = 50, 70, 40
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    tuned = tritonc.autotune(configs=[tritonc.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}, num_ctas=n)
                                     for n in (1, 2)], key=["M", "N", "K"], warmup=1, rep=1)(matmul_2d_kernel)
    c = np.full((M, N), np.nan, np.float32)
    tuned[lambda m: (tritonc.cdiv(M, m["BLOCK_M"]), tritonc.cdiv(N, m["BLOCK_N"]))](a, b, c, M, N, K, K, N, N)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)
    assert len(tuned.timings) == 2 and all(t < float("inf") for t in tuned.timings.values()), tuned.errors


@tritonc.jit
def locked_increment_kernel(lock, counter, owners, sums, BLOCK: tl.constexpr):
    # Triton's lock pattern (the layer norm tutorial's backward): taken with
    # atomic_cas, released with atomic_xchg, both acq_rel by default, so the
    # plain loads and stores between them (scalars, and a tile every thread
    # of the program reads and writes) see each other program's.
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    v = tl.load(counter)
    tl.store(counter, v + 1)
    tl.store(owners + v, tl.program_id(0))
    offs = tl.arange(0, BLOCK)
    tl.store(sums + offs, tl.load(sums + offs) + offs)
    tl.atomic_xchg(lock, 0)


def test_a_lock_orders_the_accesses_it_guards(backend):
    n, block = int(rng.integers(300, 1200)), 256
    lock = dev(np.zeros(1, np.int32), backend)
    counter = dev(np.zeros(1, np.int32), backend)
    owners = poisoned(n, np.int32, backend)
    sums = dev(np.zeros(block, np.int32), backend)
    locked_increment_kernel[(n,)](lock, counter, owners, sums, BLOCK=block, num_warps=4)
    assert int(host(counter)[0]) == n and int(host(lock)[0]) == 0
    assert sorted(host(owners).tolist()) == list(range(n))  # each program once: no increment lost
    np.testing.assert_array_equal(host(sums), n * np.arange(block))  # no tile update lost either


def test_atomics_memory_order_reaches_the_ptx(monkeypatch):
    """sem/scope as Triton takes them: acq_rel at GPU scope by default (an
    atom, even where the old value is unused), release or relaxed allow a
    tile's reduction (red); the qualifiers spelled out, relaxed included;
    a scalar atomic stays an atom whatever its order, as Triton's."""
    monkeypatch.setenv("TRITONC_ARCH", "sm_90a")
    x = np.zeros(1024, np.float32)
    ptx = lambda sem, scope="gpu": atomic_add_kernel.warmup(x, x, SEM=sem, SCOPE=scope, BLOCK=256).asm["ptx"]  # noqa
    assert "atom.global.gpu.acq_rel.add.f32" in ptx("acq_rel") and "red." not in ptx("acq_rel")
    assert "red.global.gpu.release.add" in ptx("release")
    assert "red.global.gpu.relaxed.add" in ptx("relaxed") and "atom." not in ptx("relaxed")
    assert "atom.global.cta.acquire.add.f32" in ptx("acquire", "cta")
    i32 = np.zeros(4, np.int32)
    cas = locked_increment_kernel.warmup(i32, i32, i32, i32, BLOCK=4)
    assert "atom.global.acq_rel.gpu.cas.b32" in cas.asm["ptx"] and "atom.global.gpu.acq_rel.exch.b32" in cas.asm["ptx"]
    with pytest.raises(Exception, match="sem must be"):
        ptx("seq_cst")
    with pytest.raises(Exception, match="scope must be"):
        ptx("relaxed", "block")


@tritonc.jit
def atomic_add_kernel(x_ptr, y_ptr, SEM: tl.constexpr, SCOPE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(y_ptr + offs, tl.load(x_ptr + offs), sem=SEM, scope=SCOPE)


def test_numpy_calls_do_not_import_torch(tmp_path):
    """A program that never imports torch runs a kernel on numpy arrays
    without tritonc importing it (it used to, to ask whether an argument was
    a CUDA tensor: 1.3 s of a first call's 1.3 s on a CPU host); the result
    is still the kernel's. A fresh interpreter, since this one has torch."""
    import subprocess
    (tmp_path / "k.py").write_text(
        "import tritonc\n"
        "import tritonc.language as tl\n"
        "@tritonc.jit\n"
        "def twice(X, Y, N, B: tl.constexpr):\n"
        "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
        "    tl.store(Y + o, tl.load(X + o, mask=o < N) * 2, mask=o < N)\n")
    code = ("import sys, numpy as np\n"
            "import k\n"
            "x = np.random.rand(100).astype(np.float32)\n"
            "y = np.full_like(x, np.nan)\n"
            "k.twice[(4,)](x, y, 100, B=32)\n"
            "assert np.array_equal(y, 2 * x), y\n"
            "print('torch' in sys.modules)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "False", r.stdout
