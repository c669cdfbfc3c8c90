"""The attention backward of dsl_kernels.py (FlashAttention-2 style: a
preprocess for Delta = rowsum(o * do), one kernel for dk and dv per key
block, one for dq per query block), after attention_fwd_lse's forward,
against the float64 numpy gradient of softmax attention; fresh random
inputs, outputs poisoned; on the back ends of dsl_backends.language_backends()."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402
import dsl_kernels as K  # noqa: E402

rng = np.random.default_rng()


@pytest.fixture(params=dsl_backends.language_backends())
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


def reference(q, k, v, do, sm_scale, causal):
    """o, the base-2 log-sum-exp of each row of s / ln 2, dq, dk, dv in float64."""
    q, k, v, do = (x.astype(np.float64) for x in (q, k, v, do))
    n = q.shape[-2]
    s = q @ k.swapaxes(-1, -2) * sm_scale
    if causal:
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    row_max = s.max(-1, keepdims=True)
    e = np.exp(s - row_max)
    total = e.sum(-1, keepdims=True)
    p = e / total
    o = p @ v
    lse2 = ((row_max + np.log(total)) / np.log(2.0))[..., 0]
    dv = p.swapaxes(-1, -2) @ do
    dp = do @ v.swapaxes(-1, -2)
    ds = p * (dp - (do * o).sum(-1, keepdims=True))
    dq = ds @ k * sm_scale
    dk = ds.swapaxes(-1, -2) @ q * sm_scale
    return o, lse2, dq, dk, dv


def close(got, want, what, rel=5e-3):
    """f16 tensors: an error within rel of the reference's largest magnitude."""
    got = np.asarray(got, np.float64)
    assert np.isfinite(got).all(), f"{what}: non-finite values"
    np.testing.assert_allclose(got, want, atol=rel * max(1.0, np.abs(want).max()), rtol=0, err_msg=what)


# (64, 64, 64): the blocks both compilers' tuning picks at head dim 64, on
# wgmma for sm_90a, with q, do and the row statistics in cp.async rings
# (the GPU check runs this file under compute-sanitizer too); not on the
# interpreter, for time.
SIZES = [(32, 16, 32), (16, 32, 16), (64, 64, 64)]


def n_ctx(backend, block_m, block_n):
    if block_m == 64 and backend == "interp":
        pytest.skip("64 x 64 blocks: compiled back ends only (time)")
    return 256 if block_m == 64 else 64  # a multiple of both blocks, as the kernels require


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, block_m, block_n", SIZES)
def test_attention_backward(backend, causal, head_dim, block_m, block_n):
    Z, H, N_CTX = 1, 2, n_ctx(backend, block_m, block_n)
    sm_scale = head_dim ** -0.5
    shape = (Z, H, N_CTX, head_dim)
    q, k, v, do = (rng.standard_normal(shape).astype(np.float16) for _ in range(4))

    def poisoned(shape, dtype):
        return np.full(shape, np.nan, dtype)

    o, M, delta = poisoned(shape, np.float16), poisoned(Z * H * N_CTX, np.float32), poisoned(Z * H * N_CTX, np.float32)
    dq, dk, dv = (poisoned(shape, np.float16) for _ in range(3))
    run = dsl_backends.launch
    # the forward's causal split (_attn_inner's stages) wants BLOCK_M a multiple of BLOCK_N; the backward does not
    run(K.attention_fwd_lse, (N_CTX // 32, Z * H), backend, q, k, v, sm_scale, o, M, N_CTX,
        HEAD_DIM=head_dim, BLOCK_M=32, BLOCK_N=16, CAUSAL=causal)
    run(K.attention_bwd_preprocess, (N_CTX // block_m, Z * H), backend, o, do, delta, N_CTX,
        HEAD_DIM=head_dim, BLOCK_M=block_m)
    run(K.attention_bwd_dkdv, (N_CTX // block_n, Z * H), backend, q, k, v, sm_scale, do, dk, dv, M, delta, N_CTX,
        HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal)
    run(K.attention_bwd_dq, (N_CTX // block_m, Z * H), backend, q, k, v, sm_scale, do, dq, M, delta, N_CTX,
        HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal)

    ref_o, ref_lse2, ref_dq, ref_dk, ref_dv = reference(q, k, v, do, sm_scale, causal)
    close(o, ref_o, "o")
    np.testing.assert_allclose(M.reshape(Z, H, N_CTX), ref_lse2, atol=1e-3, rtol=0, err_msg="M")
    np.testing.assert_allclose(delta.reshape(Z, H, N_CTX),
                               (o.astype(np.float64) * do.astype(np.float64)).sum(-1), atol=1e-3, rtol=1e-4,
                               err_msg="Delta")
    close(dv, ref_dv, "dv")
    close(dk, ref_dk, "dk")
    close(dq, ref_dq, "dq")


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim, block_m, block_n", SIZES)
def test_attention_backward_fused(backend, causal, head_dim, block_m, block_n):
    """attention_bwd_fused: dk and dv as attention_bwd_dkdv, dq summed by
    atomics into a zeroed f32 buffer over the key blocks, from the reference's
    lse and Delta (the forward and preprocess are checked above)."""
    Z, H, N_CTX = 1, 2, n_ctx(backend, block_m, block_n)
    sm_scale = head_dim ** -0.5
    shape = (Z, H, N_CTX, head_dim)
    q, k, v, do = (rng.standard_normal(shape).astype(np.float16) for _ in range(4))
    ref_o, ref_lse2, ref_dq, ref_dk, ref_dv = reference(q, k, v, do, sm_scale, causal)
    M = ref_lse2.astype(np.float32).reshape(-1)
    delta = (ref_o.astype(np.float16).astype(np.float64) * do.astype(np.float64)).sum(-1).astype(np.float32).reshape(-1)
    dk, dv = (np.full(shape, np.nan, np.float16) for _ in range(2))
    dq_acc = np.zeros(shape, np.float32)
    dsl_backends.launch(K.attention_bwd_fused, (N_CTX // block_n, Z * H), backend, q, k, v, sm_scale, do, dk, dv,
                        dq_acc, M, delta, N_CTX, HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal)
    close(dv, ref_dv, "dv")
    close(dk, ref_dk, "dk")
    close(dq_acc * sm_scale, ref_dq, "dq")
