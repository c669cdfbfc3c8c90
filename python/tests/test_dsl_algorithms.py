"""The standard library's tile algorithms of the Python DSL (scans, sort,
top-k, flip, reductions with a user's combine function, join/split,
gather, histogram) against numpy, on the interpreter and the CPU back end."""
import os
import sys

import numpy as np
import pytest

import tritonc
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()

try:
    import torch
except ImportError:
    torch = None


def run(kernel, backend, arrays, **constexprs):
    """Launches `kernel` on numpy `arrays` where `backend` runs, copying back."""
    if backend != "cuda":
        kernel[(1,)](*arrays, **constexprs)
        return
    on_gpu = [torch.from_numpy(a).cuda() for a in arrays]
    kernel[(1,)](*on_gpu, **constexprs)
    for a, t in zip(arrays, on_gpu):
        a[...] = t.cpu().numpy()


@pytest.fixture(params=dsl_backends.available())
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


@tritonc.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@tritonc.jit
def _argmax_combine(v1, i1, v2, i2):
    take = (v2 > v1) | ((v2 == v1) & (i2 < i1))
    return tl.where(take, v2, v1), tl.where(take, i2, i1)


@tritonc.jit
def algo_kernel(X, Z, OP: tl.constexpr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(X + rows * N + cols)
    out = Z + rows * N + cols
    if OP == "cumsum":
        tl.store(out, tl.cumsum(x, axis=AXIS))
    elif OP == "cumsum_reverse":
        tl.store(out, tl.cumsum(x, axis=AXIS, reverse=True))
    elif OP == "cumprod":
        tl.store(out, tl.cumprod(x, axis=AXIS))
    elif OP == "max_scan":
        tl.store(out, tl.associative_scan(x, AXIS, _max_combine))
    elif OP == "flip":
        tl.store(out, tl.flip(x, AXIS))
    elif OP == "sort":
        tl.store(out, tl.sort(x, AXIS))
    elif OP == "sort_descending":
        tl.store(out, tl.sort(x, AXIS, descending=True))
    elif OP == "reduce_max":
        r = tl.reduce(x, AXIS, _max_combine, keep_dims=True)
        tl.store(out, tl.broadcast_to(r, (M, N)))
    elif OP == "reduce_argmax":
        idx = tl.broadcast_to(rows * N + cols, (M, N))
        v, i = tl.reduce((x, idx), AXIS, _argmax_combine, keep_dims=True)
        tl.store(out, tl.broadcast_to(i.to(x.dtype), (M, N)))
    else:
        tl.store(out, tl.broadcast_to(tl.xor_sum(x, AXIS, keep_dims=True), (M, N)))


def reference(op, x, axis):
    if op == "cumsum":
        return np.cumsum(x, axis=axis)
    if op == "cumsum_reverse":
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis), axis)
    if op == "cumprod":
        return np.cumprod(x, axis=axis)
    if op == "max_scan":
        return np.maximum.accumulate(x, axis=axis)
    if op == "flip":
        return np.flip(x, axis)
    if op == "sort":
        return np.sort(x, axis=axis)
    if op == "sort_descending":
        return -np.sort(-x, axis=axis)
    if op == "reduce_max":
        return np.broadcast_to(x.max(axis=axis, keepdims=True), x.shape)
    if op == "reduce_argmax":
        flat = np.arange(x.size).reshape(x.shape)
        arg = np.take_along_axis(flat, np.expand_dims(x.argmax(axis=axis), axis), axis)
        return np.broadcast_to(arg, x.shape).astype(x.dtype)
    return np.broadcast_to(np.bitwise_xor.reduce(x, axis=axis, keepdims=True), x.shape)


OPS = ["cumsum", "cumsum_reverse", "cumprod", "max_scan", "flip", "sort", "sort_descending", "reduce_max",
       "reduce_argmax", "xor_sum"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_algorithm(backend, op, axis, dtype):
    if op == "xor_sum" and dtype == "float32":
        pytest.skip("xor_sum takes integers")
    M, N = 8, 16
    if op == "cumprod":
        x = rng.choice([-1, 1, 2], size=(M, N)).astype(dtype)
    elif dtype == "int32":
        x = rng.integers(-50, 50, size=(M, N)).astype(dtype)
    else:
        x = rng.standard_normal((M, N)).astype(dtype)
    z = np.full((M, N), -7 if dtype == "int32" else np.nan, dtype)
    run(algo_kernel, backend, [x, z], OP=op, M=M, N=N, AXIS=axis)
    ref = reference(op, x.astype(np.float64) if dtype == "float32" and op.startswith("cum") else x, axis)
    np.testing.assert_allclose(z, ref.astype(dtype), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["flip", "cumsum", "cumsum_reverse", "cumprod"])
@pytest.mark.parametrize("axis", [0, 1])
def test_algorithm_along_a_long_axis(backend, op, axis):
    """The IR forms (flip: a gather of the reversed positions; cumsum and
    cumprod: scans) on a 256-long axis, int32 (exact)."""
    M, N = (256, 4) if axis == 0 else (4, 256)
    x = rng.choice([-1, 1, 2], size=(M, N)) if op == "cumprod" else rng.integers(-1000, 1000, size=(M, N))
    x = x.astype(np.int32)
    z = np.full((M, N), -7, np.int32)
    run(algo_kernel, backend, [x, z], OP=op, M=M, N=N, AXIS=axis)
    np.testing.assert_array_equal(z, reference(op, x.astype(np.int64), axis).astype(np.int32))


@tritonc.jit
def _add_combine(a, b):
    """(a docstring does not hide the one operation)"""
    return a + b


@tritonc.jit
def _mul_combine(x, y):
    return y * x


@tritonc.jit
def _min_combine(a, b):
    return tl.minimum(a, b)


@tritonc.jit
def _offset_add_combine(a, b):
    return a + b + 1  # more than one operation: the network of tile operations


_COMBINES = {"add": _add_combine, "mul": _mul_combine, "max": _max_combine, "min": _min_combine,
             "offset_add": _offset_add_combine}


@tritonc.jit
def combine_scan_kernel(X, Z, N: tl.constexpr, OP: tl.constexpr, REVERSE: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    if OP == "add":
        y = tl.associative_scan(x, 0, _add_combine, reverse=REVERSE)
    elif OP == "mul":
        y = tl.associative_scan(x, 0, _mul_combine, reverse=REVERSE)
    elif OP == "max":
        y = tl.associative_scan(x, 0, _max_combine, reverse=REVERSE)
    elif OP == "min":
        y = tl.associative_scan(x, 0, _min_combine, reverse=REVERSE)
    else:
        y = tl.associative_scan(x, 0, _offset_add_combine, reverse=REVERSE)
    tl.store(Z + tl.arange(0, N), y)


@pytest.mark.parametrize("op", ["add", "mul", "max", "min", "offset_add"])
@pytest.mark.parametrize("dtype", ["int32", "uint8", "float32"])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scan_of_one_operation_is_the_irs_scan(backend, op, dtype, reverse):
    """A combine function that is one operation of its arguments (a + b,
    b * a, tl.maximum, tl.minimum) runs as the IR's scan (add, mul,
    max/umax/maxnum, min/umin/minnum by the dtype, as tl.maximum computes);
    any other as the IR's scan_fn with the function as a combine function
    of the module; results as numpy's either way (uint8 wraps, NaN ignored
    by the float max/min)."""
    N = 128
    if op == "mul":
        x = rng.choice([1, 1, 1, 2, 3], N).astype(dtype)
    elif dtype == "float32":
        x = rng.standard_normal(N).astype(dtype)
        x[int(rng.integers(1, N))] = np.nan if op in ("max", "min") else x[0]
    else:
        x = rng.integers(0, 200, N).astype(dtype)
    z = np.zeros(N, dtype)
    run(combine_scan_kernel, backend, [x, z], N=N, OP=op, REVERSE=reverse)
    xs = x[::-1] if reverse else x
    if op in ("max", "min"):
        f = {"max": np.fmax, "min": np.fmin}[op]
        ref = f.accumulate(xs)
    elif op == "mul":
        ref = np.cumprod(xs.astype(np.int64 if dtype != "float32" else np.float64))
    else:
        acc = xs.astype(np.int64 if dtype != "float32" else np.float64)
        ref = np.cumsum(acc) + (np.arange(N) if op == "offset_add" else 0)
    ref = ref[::-1] if reverse else ref
    if dtype == "float32":
        np.testing.assert_allclose(z, ref.astype(np.float32), rtol=1e-5, atol=1e-4)
    else:
        np.testing.assert_array_equal(z, ref.astype(dtype))  # wraps as the kernel's type does
    ttir = combine_scan_kernel.warmup(x, z, N=N, OP=op, REVERSE=reverse, grid=(1,)).asm["ttir"]
    kind = {"add": "add", "mul": "mul", "max": "max", "min": "min"}.get(op)
    if kind in ("max", "min"):
        kind = kind + "num" if dtype == "float32" else ("u" + kind if dtype == "uint8" else kind)
    assert (("= scan %s 0 " % kind) in ttir) if kind else \
        (" scan " not in ttir and " = scan_fn @combine__offset_add_combine 0 0 " in ttir), ttir[:3000]


@tritonc.jit
def cumsum_kernel(X, Z, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, REVERSE: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(Z + offs, tl.cumsum(tl.load(X + offs), AXIS, reverse=REVERSE))


@pytest.mark.parametrize("dtype", ["int8", "int64", "float16", "float32"])
@pytest.mark.parametrize("M,N,axis", [(1, 4096, 1), (64, 64, 0), (128, 4, 1), (4, 8, 1), (2, 1024, 1)])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_is_the_irs_scan(backend, dtype, M, N, axis, reverse):
    """tl.cumsum is the IR's scan (in index order on the CPU and the
    interpreter; on the GPU runs of up to 16 per thread, their totals
    scanned, added back): long axes (a 4096-long one was 104k lines of
    PTX before), a tile smaller than the threads, narrow integers (widened to
    int32, as Triton's), float16 (summed in float32, rounded once)."""
    if dtype in ("int8", "int64"):
        x = rng.integers(-100, 100, (M, N)).astype(dtype)
    else:
        x = rng.standard_normal((M, N)).astype(dtype)
    out_dt = {"int8": np.int32}.get(dtype, np.dtype(dtype))
    z = np.zeros((M, N), out_dt)
    z[...] = -7 if np.dtype(out_dt).kind == "i" else np.nan
    run(cumsum_kernel, backend, [x, z], M=M, N=N, AXIS=axis, REVERSE=reverse)
    xs = np.flip(x, axis) if reverse else x
    ref = np.cumsum(xs.astype(np.float64 if dtype.startswith("float") else np.int64), axis=axis)
    ref = np.flip(ref, axis) if reverse else ref
    if dtype.startswith("float"):
        scale = np.sqrt(np.arange(1, x.shape[axis] + 1))  # sums of k normal values grow as sqrt(k)
        tol = (1e-2 if dtype == "float16" else 1e-5) * (scale.max() + np.abs(ref).max())
        np.testing.assert_allclose(z.astype(np.float64), ref, atol=tol, rtol=0)
    else:
        np.testing.assert_array_equal(z, ref.astype(out_dt))


@tritonc.jit
def topk_kernel(X, V, I, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    v, i = tl.topk(x, K, return_indices=True)
    tl.store(V + tl.arange(0, K), v)
    tl.store(I + tl.arange(0, K), i)


def test_topk_values_and_indices(backend):
    N, K = 64, 8
    x = rng.permutation(N * 4)[:N].astype(np.float32)  # distinct values
    v, i = np.full(K, np.nan, np.float32), np.full(K, -1, np.int32)
    run(topk_kernel, backend, [x, v, i], N=N, K=K)
    order = np.argsort(-x)[:K]
    np.testing.assert_array_equal(v, x[order])
    np.testing.assert_array_equal(i, order)


@tritonc.jit
def misc_kernel(X, Y, IDX, Z, H, N: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    j = tl.join(x, y)  # [N, 2]
    a, b = tl.split(j)
    inter = tl.interleave(a + 1, b)  # [2N]
    tl.store(Z + tl.arange(0, 2 * N), inter)
    idx = tl.load(IDX + offs)
    tl.store(Z + 2 * N + offs, tl.gather(x, idx, 0))
    tl.store(H + tl.arange(0, BINS), tl.histogram(idx, BINS))


def test_join_split_interleave_gather_histogram(backend):
    N, BINS = 32, 32
    x = rng.standard_normal(N).astype(np.float32)
    y = rng.standard_normal(N).astype(np.float32)
    idx = rng.integers(0, N, size=N).astype(np.int32)
    z, h = np.full(3 * N, np.nan, np.float32), np.full(BINS, -1, np.int32)
    run(misc_kernel, backend, [x, y, idx, z, h], N=N, BINS=BINS)
    inter = np.empty(2 * N, np.float32)
    inter[0::2], inter[1::2] = x + 1, y
    np.testing.assert_array_equal(z[:2 * N], inter)
    np.testing.assert_array_equal(z[2 * N:], x[idx])
    np.testing.assert_array_equal(h, np.bincount(idx, minlength=BINS))


@tritonc.jit
def gather2_kernel(X, I, O, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, AXIS: tl.constexpr,
                   ROW_SRC: tl.constexpr):
    # src M x N (or 1 x N, broadcast along axis 0); the index K long along AXIS
    sr = tl.arange(0, 1 if ROW_SRC else M)[:, None]
    x = tl.load(X + sr * N + tl.arange(0, N)[None, :])
    ir = tl.arange(0, K if AXIS == 0 else M)[:, None]
    ic = tl.arange(0, K if AXIS == 1 else N)[None, :]
    cols = K if AXIS == 1 else N
    idx = tl.load(I + ir * cols + ic)
    tl.store(O + ir * cols + ic, tl.gather(x, idx, AXIS))


@pytest.mark.parametrize("dtype,index_dtype,shape,k,axis,row_src", [
    ("float32", "int32", (1024,), 1024, 0, False),
    ("float16", "int64", (64, 64), 32, 0, False),
    ("float32", "int32", (64, 64), 64, 1, False),
    ("int8", "uint8", (16, 256), 128, 1, False),
    ("int64", "int16", (32, 16), 64, 0, False),
    ("bfloat16", "int32", (32, 64), 64, 1, True),
])
def test_gather_is_take_along_axis(backend, dtype, index_dtype, shape, k, axis, row_src):
    """tl.gather (the IR's gather: one loop on the CPU, the source staged in
    shared memory on the GPU) as numpy's take_along_axis, in any dtype,
    with indices of every integer type (uint8 up to 255), a gathered axis
    longer or shorter than the source's, and a source of one row broadcast.
    A 1024-long gather was a one-hot selection before: megabytes of PTX."""
    src_dt = np.uint16 if dtype == "bfloat16" else np.dtype(dtype)  # bf16 as its bits
    m, n = (1, shape[0]) if len(shape) == 1 else shape
    src_rows = 1 if row_src else m
    if src_dt == np.uint16:  # bf16 bits of small integers, exact
        src = (rng.integers(-100, 100, (src_rows, n)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    elif np.dtype(src_dt).kind == "f":
        src = rng.standard_normal((src_rows, n)).astype(src_dt)
    else:
        src = rng.integers(-100, 100, (src_rows, n)).astype(src_dt)
    full = np.broadcast_to(src, (m, n))
    if len(shape) == 1:  # along the one axis of n
        full, axis = full[0], 0
    ishape = (k,) if len(shape) == 1 else (k, n) if axis == 0 else (m, k)
    idx = rng.integers(0, full.shape[axis], ishape).astype(index_dtype)
    out = np.zeros(ishape, src_dt)
    out[...] = 0x55 if out.dtype.itemsize == 1 else 12345  # poisoned
    want = np.take_along_axis(full, idx.astype(np.int64), axis)
    if len(shape) == 1:
        run(gather1_kernel, backend, [src.reshape(-1), idx.reshape(-1), out.reshape(-1)], N=n, K=k)
    else:
        kernel = gather2_kernel if dtype != "bfloat16" else gather2_bf16_kernel
        run(kernel, backend, [src, idx, out], M=m, N=n, K=k, AXIS=axis, ROW_SRC=row_src)
    np.testing.assert_array_equal(out, want)


def test_gather_kernels_rows_and_codebook(backend):
    """gather_kernels.py (timed beside Triton in bench/dsl_bench.py): a
    per-row shuffle of a ragged number of rows, and a 16-entry codebook
    lookup over a ragged length, against numpy."""
    import gather_kernels
    M, N, K = 50 + int(rng.integers(0, 20)), 64, 32
    x = rng.standard_normal((M, N)).astype(np.float32)
    idx = rng.integers(0, N, (M, K)).astype(np.int32)
    out = np.full((M, K), np.nan, np.float32)
    n_blocks = -(-M // 16)
    if backend == "cuda":
        run_grid(gather_kernels.gather_rows, (n_blocks,), [x, idx, out], M, N=N, K=K, BLOCK_M=16)
    else:
        gather_kernels.gather_rows[(n_blocks,)](x, idx, out, M, N=N, K=K, BLOCK_M=16)
    np.testing.assert_array_equal(out, np.take_along_axis(x, idx, 1))
    n = 1000 + int(rng.integers(0, 500))
    codes = rng.integers(0, 16, n).astype(np.uint8)
    table = rng.standard_normal(16).astype(np.float16)
    scales = rng.random(-(-n // 64)).astype(np.float32)
    got = np.full(n, np.nan, np.float16)
    grid = (-(-n // 256),)
    if backend == "cuda":
        run_grid(gather_kernels.codebook_dequant, grid, [codes, table, scales, got], n, BLOCK=256)
    else:
        gather_kernels.codebook_dequant[grid](codes, table, scales, got, n, BLOCK=256)
    want = (table[codes].astype(np.float32) * scales[np.arange(n) // 64]).astype(np.float16)
    np.testing.assert_array_equal(got, want)


def test_row_cumsum_kernel(backend):
    """scan_kernels.py (timed beside Triton in bench/dsl_bench.py): running
    sums of rows masked to the block, a ragged width."""
    import scan_kernels
    R, C = 3 + int(rng.integers(0, 5)), 600 + int(rng.integers(0, 400))
    x = rng.standard_normal((R, C)).astype(np.float32)
    y = np.full((R, C), np.nan, np.float32)
    if backend == "cuda":
        run_grid(scan_kernels.row_cumsum, (R,), [x, y], C, C, BLOCK=1024)
    else:
        scan_kernels.row_cumsum[(R,)](x, y, C, C, BLOCK=1024)
    np.testing.assert_allclose(y, np.cumsum(x.astype(np.float64), 1), atol=1e-4 * np.sqrt(C), rtol=0)


def test_row_recurrence_kernel(backend):
    """scan_kernels.py's linear recurrence (a tuple scan with a combine
    function, timed beside Triton in bench/dsl_bench.py) on rows masked to
    the block, a ragged width, against the sequential recurrence."""
    import scan_kernels
    R, C = 3 + int(rng.integers(0, 5)), 600 + int(rng.integers(0, 400))
    a = (1 - rng.random((R, C)) * 0.05).astype(np.float32)
    b = rng.standard_normal((R, C)).astype(np.float32)
    h = np.full((R, C), np.nan, np.float32)
    if backend == "cuda":
        run_grid(scan_kernels.row_recurrence, (R,), [a, b, h], C, C, BLOCK=1024)
    else:
        scan_kernels.row_recurrence[(R,)](a, b, h, C, C, BLOCK=1024)
    want = np.zeros((R, C))
    state = np.zeros(R)
    for t in range(C):
        state = a[:, t].astype(np.float64) * state + b[:, t]
        want[:, t] = state
    np.testing.assert_allclose(h, want, atol=1e-4 * np.sqrt(C), rtol=1e-4)


def run_grid(kernel, grid, arrays, *scalars, **constexprs):
    """Launches on CUDA copies of numpy `arrays`, copying them back."""
    on_gpu = [torch.from_numpy(a).cuda() for a in arrays]
    kernel[grid](*on_gpu, *scalars, **constexprs)
    for a, t in zip(arrays, on_gpu):
        a[...] = t.cpu().numpy()


@tritonc.jit
def gather1_kernel(X, I, O, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(O + tl.arange(0, K), tl.gather(x, tl.load(I + tl.arange(0, K)), 0))


@tritonc.jit
def gather2_bf16_kernel(X, I, O, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, AXIS: tl.constexpr,
                        ROW_SRC: tl.constexpr):
    # bfloat16 through its bits: numpy has no bfloat16
    sr = tl.arange(0, 1 if ROW_SRC else M)[:, None]
    x = tl.load(X + sr * N + tl.arange(0, N)[None, :]).to(tl.bfloat16, bitcast=True)
    ir = tl.arange(0, K if AXIS == 0 else M)[:, None]
    ic = tl.arange(0, K if AXIS == 1 else N)[None, :]
    cols = K if AXIS == 1 else N
    idx = tl.load(I + ir * cols + ic)
    tl.store(O + ir * cols + ic, tl.gather(x, idx, AXIS).to(tl.uint16, bitcast=True))
