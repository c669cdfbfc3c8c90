"""tl.histogram as the IR's histogram op against numpy's bincount, on the
interpreter, the CPU back end and (where torch sees one) the GPU: every
integer width, signed and not, values outside the bins (negative ones
too) counted nowhere, masks, bins from 1 to 4096 (fewer or more than the
threads), tiles smaller and larger than the program, 1 to 8 warps. The
IR has one op (the one-hot selection it replaces was O(n x bins)), and
its PTX assembles."""
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
def histogram_kernel(X, M, H, N: tl.constexpr, BINS: tl.constexpr, MASKED: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    if MASKED:
        h = tl.histogram(x, BINS, mask=tl.load(M + offs) != 0)
    else:
        h = tl.histogram(x, BINS)
    tl.store(H + tl.arange(0, BINS), h)


def expected(x, bins, mask=None):
    v = x.astype(np.int64) if x.dtype != np.uint64 else x.astype(np.float64)
    keep = (v >= 0) & (v < bins)
    if mask is not None:
        keep &= mask != 0
    return np.bincount(v[keep].astype(np.int64), minlength=bins).astype(np.int32)


def run(backend, x, bins, mask=None, num_warps=4):
    n = x.shape[0]
    h = np.full(bins, -7, np.int32)
    m = np.ones(n, np.int8) if mask is None else mask
    dsl_backends.launch(histogram_kernel, (1,), backend, x, m, h, N=n, BINS=bins, MASKED=mask is not None,
                        num_warps=num_warps)
    np.testing.assert_array_equal(h, expected(x, bins, mask))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_every_integer_type_out_of_range_values_count_nowhere(backend, dtype):
    info = np.iinfo(dtype)
    n, bins = 1024, 64
    x = rng.integers(max(info.min, -20), 80, n).astype(dtype)
    x[:8] = [info.min, info.max, 0, bins - 1, bins, 1, 2, 3]
    run(backend, x, bins)


@pytest.mark.parametrize("n,bins,warps", [(16, 1, 4), (32, 8, 1), (128, 128, 4), (4096, 16, 8), (256, 4096, 4),
                                          (1024, 512, 2), (8, 1024, 8)])
def test_sizes_and_warps(backend, n, bins, warps):
    x = rng.integers(-2, bins + 2, n).astype(np.int32)
    x[rng.integers(0, n, n // 2)] = rng.integers(0, max(1, bins // 8))  # many equal values
    run(backend, x, bins, num_warps=warps)


def test_masked(backend):
    n, bins = 2048, 32
    x = rng.integers(0, bins, n).astype(np.int32)
    mask = (rng.random(n) < 0.3).astype(np.int8)
    run(backend, x, bins, mask)


def test_histogram_is_one_op(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    x = np.zeros(1024, np.int32)
    ir = histogram_kernel.warmup(x, x, x, N=1024, BINS=256, MASKED=True, grid=(1,)).asm["ttir"]
    assert ir.count(" = histogram ") == 1 and " : i32<256>" in ir, ir
    assert "reduce add" not in ir, ir


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_histogram_ptx_assembles(monkeypatch, arch):
    import test_dsl_ptx
    if test_dsl_ptx.PTXAS is None:
        pytest.skip("ptxas not found")
    monkeypatch.setenv("TRITONC_ARCH", arch)
    for dtype, n, bins, masked in (("int32", 1024, 256, True), ("int64", 1024, 16, False), ("uint8", 64, 1024, True)):
        x = np.zeros(n, dtype)
        ptx = histogram_kernel.warmup(x, x, np.zeros(bins, np.int32), N=n, BINS=bins, MASKED=masked,
                                      grid=(1,)).asm["ptx"]
        assert "red.shared.add.u32" in ptx
        messages = test_dsl_ptx.ptxas(ptx, arch, verbose=True)
        assert " 0 bytes spill stores" in messages, messages[-2000:]
