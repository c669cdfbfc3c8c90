"""The persistent matmuls of python/tests/tutorial_matmul.py (the form of
Triton 3.6's persistent-matmul tutorial) against numpy at ragged sizes, on
the back ends of dsl_backends.language_backends(); fresh inputs, poisoned
outputs. Their PTX is assembled in test_dsl_ptx.py."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402
import tutorial_matmul  # noqa: E402

rng = np.random.default_rng()


@pytest.fixture(params=dsl_backends.language_backends())
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


def operands(m, n, k):
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    return a, b, a.astype(np.float32) @ b.astype(np.float32)


def test_persistent_matmul(backend):
    m, n, k = (int(v) for v in rng.integers(40, 130, 3))
    a, b, want = operands(m, n, k)
    c = np.full((m, n), np.nan, np.float16)
    dsl_backends.launch(tutorial_matmul.matmul_kernel_persistent, (3,), backend, a, b, c, m, n, k, k, 1, n, 1, n, 1,
                        BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2, NUM_SMS=3)
    np.testing.assert_allclose(c.astype(np.float32), want, rtol=1e-2, atol=5e-2)


@pytest.mark.parametrize("subtile", [False, True])
def test_descriptor_persistent_matmul(backend, subtile):
    # Descriptors need rows of 16-byte multiples: k and n multiples of 8.
    m, n, k = int(rng.integers(40, 130)), int(rng.integers(5, 17)) * 8, int(rng.integers(5, 17)) * 8
    a, b, want = operands(m, n, k)
    bt = np.ascontiguousarray(b.T)
    c = np.full((m, n), np.nan, np.float16)
    dsl_backends.launch(tutorial_matmul.matmul_kernel_descriptor_persistent, (3,), backend, a, bt, c, m, n, k,
                        BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2, EPILOGUE_SUBTILE=subtile,
                        NUM_SMS=3, WARP_SPECIALIZE=False)
    np.testing.assert_allclose(c.astype(np.float32), want, rtol=1e-2, atol=5e-2)
