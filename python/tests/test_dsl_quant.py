"""The quantized matmuls of quant_kernels.py (int8 weights with a scale per
column, 4-bit weights packed two per byte with a scale per group of rows,
int8 activations and weights into int32) against numpy references of the
same quantized values (float64, or exact integers), at ragged sizes with
fresh random data, output poisoned first: interpreter, CPU back end, and
CUDA tensors on a GPU host."""
import os
import sys

import numpy as np
import pytest

import tritonc

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402
import quant_kernels as q  # noqa: E402

rng = np.random.default_rng()


@pytest.fixture(params=dsl_backends.available())
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


def sizes(backend):
    small = backend == "interp"  # the interpreter checks every access: keep it quick
    M = int(rng.integers(3, 40)) if small else int(rng.integers(60, 200))
    N = int(rng.integers(20, 70)) if small else int(rng.integers(100, 300))
    return M, N


@pytest.mark.parametrize("block", [(16, 32, 32), (64, 64, 64)])
def test_w8a16_matmul(backend, block):
    BM, BN, BK = block
    if backend == "interp" and BM == 64:
        pytest.skip("the 16-row blocks cover the interpreter")
    M, N = sizes(backend)
    K = int(rng.integers(40, 200))
    x = rng.standard_normal((M, K)).astype(np.float16)
    wq, scale = q.quantize_w8(rng.standard_normal((K, N)))
    y = np.full((M, N), np.nan, np.float16)
    grid = (tritonc.cdiv(M, BM) * tritonc.cdiv(N, BN),)
    dsl_backends.launch(q.matmul_w8a16_kernel, grid, backend, x, wq, scale, y, M, N, K, K, N, N,
                        BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=4)
    ref = x.astype(np.float64) @ wq.astype(np.float64) * scale.astype(np.float64)
    assert not np.isnan(y.astype(np.float64)).any(), "an output element was not written"
    np.testing.assert_allclose(y.astype(np.float64), ref, atol=2e-2 * np.abs(ref).max(), rtol=1e-2)


@pytest.mark.parametrize("block,group_k", [((16, 32, 32), 32), ((64, 64, 64), 128)])
def test_w4a16_matmul(backend, block, group_k):
    BM, BN, BK = block
    if backend == "interp" and BM == 64:
        pytest.skip("the 16-row blocks cover the interpreter")
    M, N = sizes(backend)
    K = group_k * int(rng.integers(2, 5))
    x = rng.standard_normal((M, K)).astype(np.float16)
    packed, scale = q.quantize_w4(rng.standard_normal((K, N)), group_k)
    y = np.full((M, N), np.nan, np.float16)
    grid = (tritonc.cdiv(M, BM) * tritonc.cdiv(N, BN),)
    dsl_backends.launch(q.matmul_w4a16_kernel, grid, backend, x, packed, scale, y, M, N, K, K, N, N, N,
                        BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=4, GROUP_K=group_k)
    ref = x.astype(np.float64) @ q.dequantize_w4(packed, scale, group_k)
    assert not np.isnan(y.astype(np.float64)).any(), "an output element was not written"
    np.testing.assert_allclose(y.astype(np.float64), ref, atol=2e-2 * np.abs(ref).max(), rtol=1e-2)


def test_w4_packing_round_trips():
    """The reference's own packing: nibbles of rows 2i and 2i + 1 in one byte."""
    K, N, g = 64, 24, 32
    w = rng.standard_normal((K, N))
    packed, scale = q.quantize_w4(w, g)
    assert packed.shape == (K // 2, N) and scale.shape == (K // g, N)
    back = q.dequantize_w4(packed, scale, g)
    assert np.abs(back - w).max() <= np.abs(w).max() / 7.0 * 0.5 + 1e-3


def b_operand(b, layout):
    """b [K, N] as the kernel reads it, and its strides (k, n): stored [K, N]
    (N contiguous), or [N, K] (K contiguous: torch's Linear weight)."""
    if layout == "kn":
        return np.ascontiguousarray(b), b.shape[1], 1
    return np.ascontiguousarray(b.T), 1, b.shape[0]


@pytest.mark.parametrize("layout", ["kn", "nk"])
@pytest.mark.parametrize("block", [(16, 32, 32), (64, 64, 64), (128, 64, 128)])
def test_i8_matmul_is_exact_int32(backend, block, layout):
    """int8 @ int8 into int32, exact where float32 sums would round: one row
    of a and one column of b hold -128 along K but for one odd product, so
    that element is odd and past 2^24 (float32 would lose its last bit)."""
    BM, BN, BK = block
    if backend == "interp" and BM > 16:
        pytest.skip("the 16-row blocks cover the interpreter")
    M, N = sizes(backend)
    K = int(rng.integers(600, 800)) if backend == "interp" else int(rng.integers(1100, 1500))
    a = rng.integers(-128, 128, (M, K)).astype(np.int8)
    b = rng.integers(-128, 128, (K, N)).astype(np.int8)
    a[M - 1, :] = -128
    b[:, N - 1] = -128
    a[M - 1, 0] = -127
    b[0, N - 1] = 127
    c = np.full((M, N), -7, np.int32)
    bb, sk, sn = b_operand(b, layout)
    grid = (tritonc.cdiv(M, BM) * tritonc.cdiv(N, BN),)
    dsl_backends.launch(q.matmul_i8_kernel, grid, backend, a, bb, c, M, N, K, K, sk, sn, N,
                        BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=4)
    ref = a.astype(np.int64) @ b.astype(np.int64)
    if backend != "interp":
        assert abs(ref[M - 1, N - 1]) > 2 ** 24 and ref[M - 1, N - 1] % 2 == 1
    np.testing.assert_array_equal(c, ref.astype(np.int32))


@pytest.mark.parametrize("layout", ["kn", "nk"])
@pytest.mark.parametrize("block", [(16, 32, 64), (128, 128, 64)])
def test_scaled_mm_w8a8(backend, block, layout):
    BM, BN, BK = block
    if backend == "interp" and BM > 16:
        pytest.skip("the 16-row blocks cover the interpreter")
    M, N = sizes(backend)
    K = int(rng.integers(40, 300))
    xq, sx = q.quantize_rows_i8(rng.standard_normal((M, K)))
    wq, sw = q.quantize_rows_i8(rng.standard_normal((N, K)))  # per output channel
    bias = rng.standard_normal(N).astype(np.float32)
    y = np.full((M, N), np.nan, np.float16)
    bb, sk, sn = b_operand(np.ascontiguousarray(wq.T), layout)
    grid = (tritonc.cdiv(M, BM) * tritonc.cdiv(N, BN),)
    dsl_backends.launch(q.scaled_mm_w8a8_kernel, grid, backend, xq, bb, sx, sw, bias, y, M, N, K, K, sk, sn, N,
                        BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=4)
    ref = (xq.astype(np.float64) @ wq.T.astype(np.float64)) * sx[:, None] * sw[None, :] + bias
    assert not np.isnan(y.astype(np.float64)).any(), "an output element was not written"
    np.testing.assert_allclose(y.astype(np.float64), ref, atol=2e-3 * np.abs(ref).max(), rtol=2e-3)
