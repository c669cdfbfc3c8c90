"""tl.sort and tl.topk as the IR's sort and argsort, against numpy, on the
interpreter, the CPU back end and (where torch sees one) the GPU: every
element type, 1-D to 3-D tiles along each axis, tiles smaller than the
program's threads and larger than one row per thread, 1 to 16 warps,
duplicates, -0.0, infinities and NaNs (floats sort by IEEE totalOrder:
-NaN first, NaN last, -0.0 before 0.0). Results are compared bit for bit:
elements of equal keys are equal bits. The PTX stays small and assembles."""
import os
import sys

import numpy as np
import pytest

import tritonc
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()

# dtype name: (the tl type sorted, the numpy array type holding its bits)
TYPES = {
    "int8": (tl.int8, np.int8), "int16": (tl.int16, np.int16), "int32": (tl.int32, np.int32),
    "int64": (tl.int64, np.int64), "uint8": (tl.uint8, np.int8), "uint16": (tl.uint16, np.int16),
    "uint32": (tl.uint32, np.int32), "uint64": (tl.uint64, np.int64), "float16": (tl.float16, np.int16),
    "bfloat16": (tl.bfloat16, np.int16), "float32": (tl.float32, np.int32), "float64": (tl.float64, np.int64),
}


@pytest.fixture(params=dsl_backends.available())
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


@tritonc.jit
def sort_kernel(X, Y, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr,
                DESC: tl.constexpr, T: tl.constexpr):
    i = tl.arange(0, A)[:, None, None]
    j = tl.arange(0, B)[None, :, None]
    k = tl.arange(0, C)[None, None, :]
    at = i * (B * C) + j * C + k
    x = tl.load(X + at)
    y = tl.sort(x.to(T, bitcast=True), AXIS, descending=DESC)
    tl.store(Y + at, y.to(x.dtype, bitcast=True))


@tritonc.jit
def topk_kernel(X, V, I, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, AXIS: tl.constexpr,
                T: tl.constexpr, OUT: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(X + rows * N + cols).to(T, bitcast=True)
    v, idx = tl.topk(x, K, dim=AXIS, return_indices=True)
    top = tl.topk(x, K, dim=AXIS)
    if AXIS == 1:
        kr = tl.arange(0, M)[:, None]
        kc = tl.arange(0, K)[None, :]
        at = kr * K + kc
    else:
        kr = tl.arange(0, K)[:, None]
        kc = tl.arange(0, N)[None, :]
        at = kr * N + kc
    tl.store(V + at, v.to(tl.load(X).dtype, bitcast=True))
    tl.store(V + OUT + at, top.to(tl.load(X).dtype, bitcast=True))
    tl.store(I + at, idx)


def keys(bits, name):
    """Integers (int64, or object for uint64) that order as the elements do."""
    width = bits.dtype.itemsize * 8
    b = bits.astype(np.int64)
    if name.startswith("float") or name == "bfloat16":
        return b ^ ((b >> (width - 1)) & ((1 << (width - 1)) - 1))
    if name.startswith("uint"):
        return b ^ np.int64(-(1 << (width - 1))) if width == 64 else b & ((1 << width) - 1)
    return b


def order(bits, name, axis, descending):
    k = keys(bits, name)
    return np.argsort(~k if descending else k, axis=axis, kind="stable")


def special_bits(name, shape):
    """Random elements of `name` as their bits, with duplicates and (floats)
    -0.0, 0.0, infinities and NaNs of both signs among them."""
    _, holder = TYPES[name]
    n = int(np.prod(shape))
    if name.startswith("float") or name == "bfloat16":
        v = rng.standard_normal(n) * 100
        v[rng.integers(0, n, n // 4)] = rng.choice([0.0, -0.0, np.inf, -np.inf, 1.5, -2.0], n // 4)
        v[rng.integers(0, n, max(1, n // 32))] = np.nan
        if name == "float16":
            bits = v.astype(np.float16).view(np.int16)
        elif name == "bfloat16":
            bits = (v.astype(np.float32).view(np.int32) >> 16).astype(np.int16)
        elif name == "float32":
            bits = v.astype(np.float32).view(np.int32)
        else:
            bits = v.view(np.int64)
        bits = bits.copy()
        nans = np.flatnonzero(np.isnan(v))
        bits[nans[: len(nans) // 2]] |= holder(np.iinfo(holder).min)  # negative NaNs
    else:
        info = np.iinfo(holder)
        bits = rng.integers(info.min, info.max, n, dtype=holder, endpoint=True)
        bits[rng.integers(0, n, n // 4)] = rng.choice(bits[:8], n // 4)  # duplicates
    return bits.reshape(shape)


def run_sort(backend, name, shape, axis, descending, num_warps=4):
    t, holder = TYPES[name]
    shape3 = (1,) * (3 - len(shape)) + tuple(shape)
    axis3 = axis + 3 - len(shape)
    x = special_bits(name, shape3)
    y = np.full(shape3, 7, holder)
    dsl_backends.launch(sort_kernel, (1,), backend, x, y, A=shape3[0], B=shape3[1], C=shape3[2], AXIS=axis3,
                        DESC=descending, T=t, num_warps=num_warps)
    want = np.take_along_axis(x, order(x, name, axis3, descending), axis3)
    np.testing.assert_array_equal(y, want, err_msg="%s %s axis %d%s" % (name, shape, axis,
                                                                        " descending" if descending else ""))


@pytest.mark.parametrize("name", sorted(TYPES))
@pytest.mark.parametrize("descending", [False, True])
def test_sort_every_type(backend, name, descending):
    run_sort(backend, name, (4, 64), 1, descending)


@pytest.mark.parametrize("shape,axis", [
    ((2,), 0), ((32,), 0), ((1024,), 0), ((4096,), 0),  # one row: chunks merged within and across warps
    ((4, 256), 1), ((4, 256), 0), ((64, 64), 0), ((64, 64), 1),
    ((2, 8), 1), ((4, 4), 0),                          # fewer elements than threads
    ((256, 8), 1), ((8, 512), 0),                       # more than a row per thread
    ((4, 8, 16), 1), ((2, 16, 32), 2), ((16, 2, 8), 0),
])
@pytest.mark.parametrize("name", ["float32", "int32", "uint32"])
def test_sort_shapes_and_axes(backend, shape, axis, name):
    run_sort(backend, name, shape, axis, descending=bool(rng.integers(0, 2)))


@pytest.mark.parametrize("num_warps", [1, 2, 8, 16])
@pytest.mark.parametrize("name", ["float32", "float64", "bfloat16"])
def test_sort_across_warps(backend, num_warps, name):
    run_sort(backend, name, (2048,), 0, descending=False, num_warps=num_warps)
    run_sort(backend, name, (8, 128), 1, descending=True, num_warps=num_warps)


@pytest.mark.parametrize("name", ["float32", "float16", "int8", "uint16", "int32", "float64", "int64"])
@pytest.mark.parametrize("M,N,K,axis", [(1, 1024, 16, 1), (4, 64, 8, 1), (64, 8, 4, 0), (2, 32, 32, 1),
                                        (2, 2048, 64, 1), (1, 256, 1, 1), (8, 256, 2, 1)])
def test_topk_values_and_first_indices_of_ties(backend, name, M, N, K, axis):
    """The K largest along the axis, largest first; among equal values the
    lowest index first (as a stable descending sort). On the GPU a K below
    the axis keeps K of each thread's chunk and halves the lists of a row
    pairwise (within warps and across them, 1 to 64 kept); 64-bit elements
    take two argsorts, by the low and high halves of their keys."""
    t, holder = TYPES[name]
    x = special_bits(name, (M, N))
    shape = (M, K) if axis == 1 else (K, N)
    v = np.full((2,) + shape, 7, holder)
    idx = np.full(shape, -1, np.int32)
    dsl_backends.launch(topk_kernel, (1,), backend, x, v, idx, M=M, N=N, K=K, AXIS=axis, T=t, OUT=idx.size)
    o = order(x, name, axis, True)
    first = o[:, :K] if axis == 1 else o[:K]
    want = np.take_along_axis(x, first, axis)
    np.testing.assert_array_equal(v[0], want)
    np.testing.assert_array_equal(v[1], want)
    np.testing.assert_array_equal(idx, first)
    np.testing.assert_array_equal(np.take_along_axis(x, idx.astype(np.int64), axis), want)


@tritonc.jit
def bool_sort_kernel(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    b = tl.load(X + offs) != 0
    tl.store(Y + offs, tl.sort(b).to(tl.int8))
    tl.store(Y + N + offs, tl.sort(b, descending=True).to(tl.int8))


def test_sort_booleans(backend):
    N = 128
    x = rng.integers(0, 2, N).astype(np.int8)
    y = np.full(2 * N, 7, np.int8)
    dsl_backends.launch(bool_sort_kernel, (1,), backend, x, y, N=N)
    np.testing.assert_array_equal(y[:N], np.sort(x))
    np.testing.assert_array_equal(y[N:], np.sort(x)[::-1])


def test_sort_and_topk_are_the_irs_ops(monkeypatch):
    """tl.sort is one IR sort, tl.topk with indices one argsort and a gather
    (the bitonic network was hundreds of instructions)."""
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x = np.zeros(1024, np.int32)
    ir = sort_kernel.warmup(x, x, A=1, B=1, C=1024, AXIS=2, DESC=False, T=tl.float32, grid=(1,)).asm["ttir"]
    assert ir.count(" = sort ascending 2 ") == 1, ir
    v = np.zeros(64, np.int32)
    ir = topk_kernel.warmup(x, v, v, M=1, N=1024, K=16, AXIS=1, T=tl.float32, OUT=16, grid=(1,)).asm["ttir"]
    assert ir.count(" = argsort descending 1 ") == 1 and ir.count(" = gather ") == 1, ir
    assert ir.count(" = sort descending 1 ") == 1 and "extract_slice" not in ir, ir
    assert ir.count(" : i32<1, 16>") >= 1, ir  # the ops keep the first 16


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_sort_ptx_stays_small(monkeypatch, arch):
    """A 4096-element sort is O(chunk log^2 chunk) lines of PTX (the
    bitonic network written out element by element was 123k lines, 20 s of
    ptxas), and assembles without spills."""
    import test_dsl_ptx
    if test_dsl_ptx.PTXAS is None:
        pytest.skip("ptxas not found")
    monkeypatch.setenv("TRITONC_ARCH", arch)
    x = np.zeros(4096, np.int32)
    ptx = sort_kernel.warmup(x, x, A=1, B=1, C=4096, AXIS=2, DESC=True, T=tl.float32, num_warps=4,
                             grid=(1,)).asm["ptx"]
    assert len(ptx.splitlines()) < 4000, len(ptx.splitlines())
    messages = test_dsl_ptx.ptxas(ptx, arch, verbose=True)
    assert " 0 bytes spill stores" in messages, messages[-2000:]
    h = np.zeros(4096, np.int16)
    ptx = topk_kernel.warmup(h, h, x, M=4, N=1024, K=16, AXIS=1, T=tl.float16, OUT=64, grid=(1,)).asm["ptx"]
    test_dsl_ptx.ptxas(ptx, arch)
