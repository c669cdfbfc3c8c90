"""The kernels of llm_kernels.py (RMSNorm forward and backward, a fused
cross-entropy with its gradient in place, SwiGLU, rotary embeddings)
against float64 numpy references, fresh random inputs at ragged sizes,
outputs poisoned first: interpreter, CPU back end, CUDA tensors on a GPU
host."""
import os
import sys

import numpy as np
import pytest

import tritonc

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402
import llm_kernels as K  # noqa: E402

rng = np.random.default_rng()


@pytest.fixture(params=dsl_backends.available())
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


def run(kernel, grid, backend, *args, **kw):
    dsl_backends.launch(kernel, grid, backend, *args, **kw)


def test_rms_norm_forward_and_backward(backend):
    rows, cols = int(rng.integers(5, 40)), int(rng.integers(100, 500))
    eps = 1e-6
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    w = rng.standard_normal(cols).astype(np.float32)
    dy = rng.standard_normal((rows, cols)).astype(np.float32)
    y = np.full((rows, cols), np.nan, np.float32)
    rstd = np.full(rows, np.nan, np.float32)
    run(K.rms_norm_fwd, (rows,), backend, y, x, w, rstd, cols, cols, eps, BLOCK=512)
    x64, w64, dy64 = x.astype(np.float64), w.astype(np.float64), dy.astype(np.float64)
    r64 = 1 / np.sqrt((x64 ** 2).mean(1) + eps)
    np.testing.assert_allclose(rstd, r64, rtol=1e-5)
    np.testing.assert_allclose(y, x64 * r64[:, None] * w64, rtol=1e-4, atol=1e-5)

    per = 4
    programs = tritonc.cdiv(rows, per)
    dx = np.full((rows, cols), np.nan, np.float32)
    dw_partial = np.full((programs, cols), np.nan, np.float32)
    run(K.rms_norm_bwd, (programs,), backend, dx, dw_partial, dy, x, w, rstd, cols, rows, cols, per, BLOCK=512)
    xhat = x64 * r64[:, None]
    wdy = w64 * dy64
    dx_ref = r64[:, None] * (wdy - xhat * (wdy * xhat).mean(1, keepdims=True))
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw_partial.sum(0), (dy64 * xhat).sum(0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_cross_entropy_loss_and_gradient_in_place(backend, dtype):
    rows, vocab = int(rng.integers(3, 20)), int(rng.integers(300, 2000))
    ignore = -100
    logits = (rng.standard_normal((rows, vocab)) * 3).astype(dtype)
    labels = rng.integers(0, vocab, size=rows).astype(np.int64)
    labels[rng.random(rows) < 0.25] = ignore
    n_valid = max(1, int((labels != ignore).sum()))
    x64 = logits.astype(np.float64)
    loss = np.full(rows, np.nan, np.float32)
    grad = logits.copy()
    run(K.cross_entropy_fwd_bwd, (rows,), backend, grad, labels, loss, vocab, vocab, ignore, n_valid, BLOCK=256)
    lse = np.log(np.exp(x64 - x64.max(1, keepdims=True)).sum(1)) + x64.max(1)
    valid = labels != ignore
    loss_ref = np.where(valid, lse - x64[np.arange(rows), np.where(valid, labels, 0)], 0.0)
    soft = np.exp(x64 - lse[:, None])
    soft[np.arange(rows)[valid], labels[valid]] -= 1
    grad_ref = np.where(valid[:, None], soft / n_valid, 0.0)
    tol = 1e-5 if dtype == np.float32 else 2e-3
    np.testing.assert_allclose(loss, loss_ref, rtol=1e-4, atol=tol * 10)
    np.testing.assert_allclose(grad.astype(np.float64), grad_ref, rtol=1e-3, atol=tol)


def test_swiglu(backend):
    n = int(rng.integers(1000, 5000))
    a = rng.standard_normal(n).astype(np.float16)
    b = rng.standard_normal(n).astype(np.float16)
    c = np.full(n, np.nan, np.float16)
    run(K.swiglu_fwd, (tritonc.cdiv(n, 1024),), backend, a, b, c, n, BLOCK=1024)
    a64 = a.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), a64 / (1 + np.exp(-a64)) * b, rtol=2e-3, atol=2e-3)


def test_rotary_embedding_in_place(backend):
    seq, heads, d = int(rng.integers(3, 30)), int(rng.integers(1, 5)), 64
    tokens = seq * 2  # two sequences
    q = rng.standard_normal((tokens, heads, d)).astype(np.float32)
    angles = np.arange(seq)[:, None] * (10000.0 ** (-np.arange(d // 2) / (d // 2)))[None, :]
    cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    out = q.copy()
    run(K.rope_fwd, (tokens, heads), backend, out, cos, sin, seq, heads, HEAD_DIM=d)
    pos = np.arange(tokens) % seq
    c, s = cos[pos][:, None, :].astype(np.float64), sin[pos][:, None, :].astype(np.float64)
    x1, x2 = q[..., : d // 2].astype(np.float64), q[..., d // 2:].astype(np.float64)
    ref = np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
