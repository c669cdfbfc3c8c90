"""tl.associative_scan and tl.reduce of tuples with a @jit combine function
as the IR's scan_fn and reduce_fn (the function built once into a combine
function of the module), against sequential references in numpy, on the
interpreter, the CPU back end and (where torch sees one) the GPU:
first-order linear recurrences (Mamba's selective scan, a non-commutative
combine), a running argmax with ties broken by the first index, segmented
sums whose flags are booleans, argmax and Welford reductions, every integer
and float width, 1-D to 3-D tiles along each axis, reversed, 1 to 8 warps,
axes longer than the threads and split across warps. The PTX stays small
(the Sklansky network the scan replaces was 69k lines at 1024 elements,
10 s of ptxas) and assembles."""
import os
import sys

import numpy as np
import pytest

import tritonc
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()


@pytest.fixture(params=dsl_backends.available())
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


@tritonc.jit
def first_order(a1, b1, a2, b2):
    # h = a * h + b, composed: (a1, b1) then (a2, b2)
    return a1 * a2, b1 * a2 + b2


@tritonc.jit
def argmax_first(v1, i1, v2, i2):
    take = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take, v1, v2), tl.where(take, i1, i2)


@tritonc.jit
def segmented_sum(f1, s1, f2, s2):
    # a flag starts a new segment: what came before it is dropped
    return f1 | f2, tl.where(f2, s2, s1 + s2)


@tritonc.jit
def branchy_max(a, ia, b, ib):
    if b > a:
        return b, ib
    return a, ia


@tritonc.jit
def recurrence_kernel(A, B, H, S0: tl.constexpr, S1: tl.constexpr, S2: tl.constexpr, AXIS: tl.constexpr,
                      REVERSE: tl.constexpr):
    i = tl.arange(0, S0)[:, None, None]
    j = tl.arange(0, S1)[None, :, None]
    k = tl.arange(0, S2)[None, None, :]
    at = i * (S1 * S2) + j * S2 + k
    a = tl.load(A + at)
    b = tl.load(B + at)
    _, h = tl.associative_scan((a, b), AXIS, first_order, reverse=REVERSE)
    tl.store(H + at, h)


@tritonc.jit
def argmax_kernel(X, V, I, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, BRANCHY: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(X + rows * N + cols)
    idx = tl.broadcast_to(rows if AXIS == 0 else cols, (M, N))
    if BRANCHY:
        v, i = tl.associative_scan((x, idx), AXIS, branchy_max)
    else:
        v, i = tl.associative_scan((x, idx), AXIS, argmax_first)
    tl.store(V + rows * N + cols, v)
    tl.store(I + rows * N + cols, i)


@tritonc.jit
def segments_kernel(F, X, Y, N: tl.constexpr):
    c = tl.arange(0, N)
    flags = tl.load(F + c) != 0
    x = tl.load(X + c)
    started, s = tl.associative_scan((flags, x), 0, segmented_sum)
    tl.store(Y + c, s)
    tl.store(F + c, started.to(tl.int8))


@tritonc.jit
def welford(m1, s1, n1, m2, s2, n2):
    # (mean, sum of squared deviations, count) of two groups merged
    n = n1 + n2
    d = m2 - m1
    w = tl.where(n == 0, 0.0, n2 / tl.where(n == 0, 1.0, n))
    return m1 + d * w, s1 + s2 + d * d * n1 * w, n


@tritonc.jit
def reduce_kernel(X, V, I, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, KEEP: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(X + rows * N + cols)
    idx = tl.broadcast_to(rows if AXIS == 0 else cols, (M, N)).to(tl.int64)
    v, i = tl.reduce((x, idx), AXIS, argmax_first, keep_dims=KEEP)
    if KEEP:
        v = tl.reshape(v, (N,) if AXIS == 0 else (M,))
        i = tl.reshape(i, (N,) if AXIS == 0 else (M,))
    out = tl.arange(0, N) if AXIS == 0 else tl.arange(0, M)
    tl.store(V + out, v)
    tl.store(I + out, i.to(tl.int32))


@tritonc.jit
def whole_reduce_kernel(X, V, I, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    v, i = tl.reduce((x, tl.arange(0, N).to(tl.int64)), None, argmax_first)
    tl.store(V, v)
    tl.store(I, i.to(tl.int32))


@tritonc.jit
def welford_kernel(X, Y, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    x = tl.load(X + rows[:, None] * N + tl.arange(0, N)[None, :])
    mean, m2, n = tl.reduce((x, x * 0, x * 0 + 1), 1, welford)
    tl.store(Y + rows, mean)
    tl.store(Y + M + rows, m2 / n)


@tritonc.jit
def index_first_max(i1, v1, i2, v2):
    take = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take, i1, i2), tl.where(take, v1, v2)


@tritonc.jit
def index_first_kernel(X, I, M: tl.constexpr, N: tl.constexpr):
    # the tuple's first tile a broadcast range: the result's layout follows it
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(X + rows[:, None] * N + cols[None, :])
    i, _ = tl.reduce((tl.broadcast_to(cols[None, :], (M, N)), x), 1, index_first_max)
    tl.store(I + rows, i)


@tritonc.jit
def logsumexp_combine(m1, s1, m2, s2):
    m = tl.maximum(m1, m2)
    return m, s1 * tl.exp(m1 - m) + s2 * tl.exp(m2 - m)


@tritonc.jit
def logsumexp_kernel(X, Y, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    m, s = tl.reduce((x, x * 0 + 1), 0, logsumexp_combine)
    tl.store(Y, m + tl.log(s))


@tritonc.jit
def sum_and_product_kernel(X, Y, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(Y + tl.arange(0, N), tl.cumsum(x, 0) + tl.cumprod(x, 0))


@tritonc.jit
def xor_or_kernel(X, Y, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(Y, tl.xor_sum(x, 0))
    tl.store(Y + 1, tl.reduce_or(x, 0))


@tritonc.jit
def add_three_times(a, b):
    s = a
    for _ in range(3):
        s = s + b
    return s


@tritonc.jit
def calls_a_loop(a, b):
    return add_three_times(a, b)


@tritonc.jit
def looping_reduce_kernel(X, Y, N: tl.constexpr, NESTED: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    if NESTED:
        tl.store(Y, tl.reduce(x, 0, calls_a_loop))
    else:
        tl.store(Y, tl.reduce(x, 0, add_three_times))


def scan_reference(step, xs, axis, reverse):
    """The inclusive scan of the tuple `xs` along `axis`, sequentially."""
    xs = [np.moveaxis(x, axis, -1).copy() for x in xs]
    if reverse:
        xs = [x[..., ::-1].copy() for x in xs]
    out = [x.copy() for x in xs]
    for p in range(1, xs[0].shape[-1]):
        r = step(*[o[..., p - 1] for o in out], *[x[..., p] for x in xs])
        for o, v in zip(out, r):
            o[..., p] = v
    if reverse:
        out = [o[..., ::-1] for o in out]
    return [np.moveaxis(o, -1, axis) for o in out]


def run_recurrence(backend, dtype, shape, axis, reverse, num_warps=4):
    shape3 = (1,) * (3 - len(shape)) + tuple(shape)
    axis3 = axis + 3 - len(shape)
    # decays near 1 and small inputs keep the products in range at any length
    a = (1 - rng.random(shape3) * 0.02).astype(dtype)
    b = (rng.standard_normal(shape3) * 0.1).astype(dtype)
    h = np.full(shape3, np.nan, dtype)
    dsl_backends.launch(recurrence_kernel, (1,), backend, a, b, h, S0=shape3[0], S1=shape3[1], S2=shape3[2],
                        AXIS=axis3, REVERSE=reverse, num_warps=num_warps)
    wide = [a.astype(np.float64), b.astype(np.float64)]
    _, ref = scan_reference(lambda a1, b1, a2, b2: (a1 * a2, b1 * a2 + b2), wide, axis3, reverse)
    tol = {np.float16: 2e-2, np.float32: 1e-4, np.float64: 1e-10}[np.dtype(dtype).type]
    np.testing.assert_allclose(h.astype(np.float64), ref, rtol=tol, atol=tol * 4,
                               err_msg="%s %s axis %d%s" % (dtype, shape, axis, " reversed" if reverse else ""))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("reverse", [False, True])
def test_first_order_recurrence(backend, dtype, reverse):
    run_recurrence(backend, dtype, (8, 256), 1, reverse)


@pytest.mark.parametrize("shape,axis", [((1024,), 0), ((4096,), 0), ((64, 32), 0), ((4, 8, 16), 1), ((2, 4, 64), 2),
                                        ((128, 4), 1), ((16,), 0), ((2, 2, 2), 0)])
def test_recurrence_shapes_and_axes(backend, shape, axis):
    """Axes longer than the threads (runs of many elements per thread, the
    runs' totals scanned through shared memory), shorter ones (threads
    holding copies), the axis in any position."""
    run_recurrence(backend, "float32", shape, axis, False)


@pytest.mark.parametrize("num_warps", [1, 2, 8])
def test_recurrence_across_warps(backend, num_warps):
    run_recurrence(backend, "float32", (4, 512), 1, True, num_warps)


INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", INTS + ["float32", "float64"])
@pytest.mark.parametrize("axis", [0, 1])
def test_running_argmax_first_index(backend, dtype, axis):
    """(value, index) pairs of different types; ties (many, from a few
    distinct values) resolved exactly as the sequential scan."""
    M, N = 32, 64
    info = np.iinfo(dtype) if dtype in INTS else None
    pool = rng.integers(info.min, info.max, 5, dtype=dtype, endpoint=True) if info is not None else \
        rng.standard_normal(5).astype(dtype)
    x = rng.choice(pool, (M, N)).astype(dtype)
    v = np.zeros((M, N), dtype)
    i = np.full((M, N), -1, np.int32)
    dsl_backends.launch(argmax_kernel, (1,), backend, x, v, i, M=M, N=N, AXIS=axis, BRANCHY=False)
    idx = np.broadcast_to(np.arange(M)[:, None] if axis == 0 else np.arange(N)[None, :], (M, N)).astype(np.int64)

    def step(v1, i1, v2, i2):
        take = (v1 > v2) | ((v1 == v2) & (i1 < i2))
        return np.where(take, v1, v2), np.where(take, i1, i2)

    rv, ri = scan_reference(step, [x, idx], axis, False)
    np.testing.assert_array_equal(v, rv)
    np.testing.assert_array_equal(i, ri)


def test_combine_function_with_if(backend):
    """A combine function that returns from both branches of an `if` on
    its scalars: its returns become selects (one block)."""
    M, N = 4, 128
    x = rng.integers(0, 6, (M, N)).astype(np.float32)
    v = np.zeros((M, N), np.float32)
    i = np.full((M, N), -1, np.int32)
    dsl_backends.launch(argmax_kernel, (1,), backend, x, v, i, M=M, N=N, AXIS=1, BRANCHY=True)
    idx = np.broadcast_to(np.arange(N)[None, :], (M, N)).astype(np.int64)

    def step(a, ia, b, ib):
        return np.where(b > a, b, a), np.where(b > a, ib, ia)

    rv, ri = scan_reference(step, [x, idx], 1, False)
    np.testing.assert_array_equal(v, rv)
    np.testing.assert_array_equal(i, ri)


@pytest.mark.parametrize("dtype", ["int32", "float16", "int64"])
def test_segmented_sums_with_boolean_flags(backend, dtype):
    N = 1024
    flags = (rng.random(N) < 0.05).astype(np.int8)
    x = rng.integers(-3, 4, N).astype(dtype)
    y = np.zeros(N, dtype)
    f = flags.copy()
    dsl_backends.launch(segments_kernel, (1,), backend, f, x, y, N=N)
    want = np.zeros(N, np.float64)
    run = 0.0
    for p in range(N):
        run = x[p] if flags[p] else run + x[p]
        want[p] = run
    np.testing.assert_array_equal(y, want.astype(dtype))
    np.testing.assert_array_equal(f, np.maximum.accumulate(flags))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("M,N,axis,warps", [(16, 64, 1, 4), (64, 16, 0, 4), (2, 2048, 1, 8), (1024, 2, 0, 4),
                                            (8, 32, 1, 1)])
def test_reduce_argmax_tuple(backend, dtype, M, N, axis, warps):
    """(value, int64 index) reduced to the first index of the maximum: ties
    from a few distinct values; axes split over lanes and warps (the
    partials of each element of the tuple through their own sections of
    shared memory); 16-bit elements shuffled in halves of words."""
    if dtype == "bfloat16":
        bits = rng.choice(np.array([0x3F80, 0xBF80, 0x4000, 0x3F00, 0x0000], np.uint16), (M, N))
        x = bits.view(np.int16)
        value = (bits.astype(np.uint32) << 16).view(np.float32)
        arg = tritonc.reinterpret(x, tl.bfloat16)
    else:
        info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
        pool = rng.integers(info.min, info.max, 4, dtype=dtype, endpoint=True) if info is not None else \
            rng.standard_normal(4).astype(dtype)
        x = rng.choice(pool, (M, N)).astype(dtype)
        value, arg = x, x
    n_out = N if axis == 0 else M
    v = np.zeros(n_out, x.dtype)
    i = np.full(n_out, -1, np.int32)
    vout = tritonc.reinterpret(v, tl.bfloat16) if dtype == "bfloat16" else v
    dsl_backends.launch(reduce_kernel, (1,), backend, arg, vout, i, M=M, N=N, AXIS=axis, KEEP=axis == 1,
                        num_warps=warps)
    want_i = np.argmax(value, axis=axis)  # numpy's argmax: the first index of the maximum
    np.testing.assert_array_equal(i, want_i)
    np.testing.assert_array_equal(v, np.take_along_axis(x, np.expand_dims(want_i, axis), axis).squeeze(axis))


def test_reduce_whole_tile_to_scalars(backend):
    N = 4096
    x = rng.integers(0, 50, N).astype(np.float32)
    v = np.zeros(1, np.float32)
    i = np.full(1, -1, np.int32)
    dsl_backends.launch(whole_reduce_kernel, (1,), backend, x, v, i, N=N, num_warps=8)
    assert i[0] == np.argmax(x) and v[0] == x.max()


@pytest.mark.parametrize("M,N,warps", [(4, 1024, 4), (32, 256, 8), (128, 16, 2)])
def test_reduce_welford_mean_and_variance(backend, M, N, warps):
    x = (rng.standard_normal((M, N)) * 3 + 5).astype(np.float32)
    y = np.full(2 * M, np.nan, np.float32)
    dsl_backends.launch(welford_kernel, (1,), backend, x, y, M=M, N=N, num_warps=warps)
    np.testing.assert_allclose(y[:M], x.astype(np.float64).mean(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y[M:], x.astype(np.float64).var(1), rtol=1e-4)


def test_reduce_whose_first_tile_is_an_index(backend):
    """The result's layout is the slice of the first tile's, a broadcast
    range here, which layout assignment reaches from the store."""
    M, N = 64, 256
    x = rng.integers(0, 9, (M, N)).astype(np.float32)
    i = np.full(M, -1, np.int32)
    dsl_backends.launch(index_first_kernel, (1,), backend, x, i, M=M, N=N)
    np.testing.assert_array_equal(i, np.argmax(x, 1))


def test_reduce_with_float64_exp_in_the_combine_function(backend):
    """A float64 exp inside a combine function (the GPU expands it into
    float64 arithmetic, as in kernels): a log-sum-exp by pairs."""
    x = rng.random(1024) * 20 - 10
    y = np.zeros(1)
    dsl_backends.launch(logsumexp_kernel, (1,), backend, x, y, N=1024)
    want = np.log(np.exp(x).sum())
    assert abs(y[0] - want) < 1e-12 * abs(want) + 1e-12, (y[0], want)


def test_xor_sum_and_reduce_or(backend):
    x = rng.integers(-2**31, 2**31 - 1, 2048).astype(np.int32)
    y = np.zeros(2, np.int32)
    dsl_backends.launch(xor_or_kernel, (1,), backend, x, y, N=2048, num_warps=8)
    assert y[0] == np.bitwise_xor.reduce(x) and y[1] == np.bitwise_or.reduce(x)


def test_combine_function_with_a_loop(backend, monkeypatch):
    """A loop needs blocks: a combine function with one takes the halving
    network (Triton allows loops there); one whose callee loops is an error
    at the call, located."""
    x = rng.integers(0, 5, 16).astype(np.int32)
    y = np.zeros(1, np.int32)
    dsl_backends.launch(looping_reduce_kernel, (1,), backend, x, y, N=16, NESTED=False)
    # the halving network folds pairs (lo, hi): ((x0 + 3 x8) + 3 (x4 + 3 x12)) + ...
    want = x.astype(np.int64)
    while len(want) > 1:
        half = len(want) // 2
        want = want[:half] + 3 * want[half:]
    assert y[0] == np.int32(want[0])
    if backend == "interp":
        with pytest.raises(tritonc.CompilationError, match="combine function is straight-line code"):
            looping_reduce_kernel[(1,)](x, y, N=16, NESTED=True)


def test_scan_fn_is_one_op_with_a_combine_function(monkeypatch):
    """The IR has the combine function once and a scan_fn (reduce_fn) per
    position of the tuple (the optimizer drops unused ones); no network of
    tile operations (slices of the axis)."""
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x = np.zeros(1024, np.float32)
    ir = recurrence_kernel.warmup(x, x, x, S0=1, S1=1, S2=1024, AXIS=2, REVERSE=False, grid=(1,)).asm["ttir"]
    assert ir.count("combine @combine_first_order(") == 1, ir
    assert ir.count(" = scan_fn @combine_first_order 1 2 ") == 1, ir
    assert "extract_slice" not in ir, ir
    i = np.zeros(64, np.int32)
    ir = reduce_kernel.warmup(x, x, i, M=16, N=64, AXIS=1, KEEP=False, grid=(1,)).asm["ttir"]
    assert ir.count("combine @combine_argmax_first(") == 1, ir
    assert ir.count(" = reduce_fn @combine_argmax_first 0 1 ") == 1, ir
    assert "extract_slice" not in ir, ir
    ir = xor_or_kernel.warmup(i, i, N=64, grid=(1,)).asm["ttir"]  # the library's own combine functions
    assert " = reduce_fn @combine__xor 0 0 " in ir and " = reduce_fn @combine__or 0 0 " in ir, ir


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_scan_fn_ptx_stays_small(monkeypatch, arch):
    import test_dsl_ptx
    if test_dsl_ptx.PTXAS is None:
        pytest.skip("ptxas not found")
    monkeypatch.setenv("TRITONC_ARCH", arch)
    x = np.zeros(4096, np.float32)
    ptx = recurrence_kernel.warmup(x, x, x, S0=1, S1=1, S2=1024, AXIS=2, REVERSE=False, num_warps=4,
                                   grid=(1,)).asm["ptx"]
    assert len(ptx.splitlines()) < 3000, len(ptx.splitlines())
    messages = test_dsl_ptx.ptxas(ptx, arch, verbose=True)
    assert " 0 bytes spill stores" in messages, messages[-2000:]
    # 32 pairs per thread: the occupancy estimate counts the tuple's registers
    ptx = recurrence_kernel.warmup(x, x, x, S0=1, S1=1, S2=4096, AXIS=2, REVERSE=False, num_warps=4,
                                   grid=(1,)).asm["ptx"]
    messages = test_dsl_ptx.ptxas(ptx, arch, verbose=True)
    assert " 0 bytes spill stores" in messages, messages[-2000:]
    i = np.zeros(4096, np.int32)
    test_dsl_ptx.ptxas(argmax_kernel.warmup(x, x, i, M=16, N=256, AXIS=0, BRANCHY=False, grid=(1,)).asm["ptx"], arch)
    # two scans of one tile (each its own scratch), float64 math in a combine
    # function, a reduction whose first tile is an index
    f64 = np.zeros(1024)
    for ptx in (sum_and_product_kernel.warmup(x, x, N=4096, grid=(1,)).asm["ptx"],
                logsumexp_kernel.warmup(f64, f64, N=1024, grid=(1,)).asm["ptx"],
                index_first_kernel.warmup(x, i, M=16, N=256, grid=(1,)).asm["ptx"]):
        test_dsl_ptx.ptxas(ptx, arch)
    # reduce_fn: the tuple's partials through lanes and warps, 16-bit ones too
    h = np.zeros(4096, np.float16)
    for arr, warps in ((x, 8), (h, 4)):
        ptx = reduce_kernel.warmup(arr, arr, i, M=2, N=2048, AXIS=1, KEEP=True, num_warps=warps, grid=(1,)).asm["ptx"]
        assert len(ptx.splitlines()) < 2000, len(ptx.splitlines())
        messages = test_dsl_ptx.ptxas(ptx, arch, verbose=True)
        assert " 0 bytes spill stores" in messages, messages[-2000:]


@tritonc.jit
def checked_add(a, b):
    s = a.to(tl.int64) + b.to(tl.int64)
    tl.device_assert((s >= -2**31) & (s <= 2**31 - 1), "the sum overflows int32")
    return a + b


@tritonc.jit(debug=True)
def checked_sum_kernel(Z, X, BLOCK: tl.constexpr):
    tl.store(Z, tl.reduce(tl.load(X + tl.arange(0, BLOCK)), 0, checked_add))


def test_a_combine_function_with_an_assertion_checks_every_step(backend):
    """A combine function that asserts (or prints) is not element-wise
    arithmetic: it runs on the tiles, its assertion checked (an IR combine
    function would refuse it)."""
    x = rng.integers(0, 1000, size=256).astype(np.int32)
    z = np.full(1, -1, np.int32)
    dsl_backends.launch(checked_sum_kernel, (1,), backend, z, x, BLOCK=256)
    assert z[0] == x.sum()
    if backend == "cuda":
        return  # (a failed assertion on the GPU ends the CUDA context: the host back ends check it)
    x[:2] = 2**31 - 10  # the first steps overflow
    with pytest.raises(Exception, match="the sum overflows int32"):
        dsl_backends.launch(checked_sum_kernel, (1,), backend, z, x, BLOCK=256)


@tritonc.jit
def bool_sum_kernel(Out, X, n, AS_BOOL: tl.constexpr):
    o = tl.arange(0, 64)
    b = tl.load(X + o, mask=o < n, other=0) != 0
    if AS_BOOL:
        tl.store(Out, tl.sum(b, axis=0, dtype=tl.int1).to(tl.int32))
    else:
        tl.store(Out, tl.sum(b, axis=0))


@pytest.mark.parametrize("as_bool", [False, True])
def test_sums_of_booleans_count_them_or_give_their_parity(backend, as_bool):
    n = int(rng.integers(1, 65))
    x = rng.integers(0, 2, size=64).astype(np.int32)
    out = np.full(1, -1, np.int32)
    dsl_backends.launch(bool_sum_kernel, (1,), backend, out, x, n, AS_BOOL=as_bool)
    count = int(x[:n].sum())
    assert out[0] == (count % 2 if as_bool else count), (n, count)
