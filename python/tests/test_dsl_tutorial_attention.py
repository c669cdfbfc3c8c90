"""Triton 3.6's fused-attention tutorial forward (06-fused-attention.py),
as its users write it: device-side tensor descriptors or host
TensorDescriptors fixed per configuration by the autotuner's pre_hook,
triton.set_allocator, STAGE 1 and 3 (causal), tensors passed to tl.constexpr
parameters of an inlined function, a warp_specialize kernel parameter.
Against float64 numpy; on the back ends of dsl_backends.language_backends()."""
import os
import sys

import numpy as np
import pytest

import tritonc as triton
from tritonc.tools.tensor_descriptor import TensorDescriptor

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402
import tutorial_attention  # noqa: E402

rng = np.random.default_rng()


@pytest.fixture(params=dsl_backends.language_backends())
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


def _host_descriptor_pre_hook(nargs):
    BLOCK_M = nargs["BLOCK_M"]
    BLOCK_N = nargs["BLOCK_N"]
    HEAD_DIM = nargs["HEAD_DIM"]
    if not isinstance(nargs["desc_q"], TensorDescriptor):
        return
    nargs["desc_q"].block_shape = [BLOCK_M, HEAD_DIM]
    nargs["desc_v"].block_shape = [BLOCK_N, HEAD_DIM]
    nargs["desc_k"].block_shape = [BLOCK_N, HEAD_DIM]
    nargs["desc_o"].block_shape = [BLOCK_M, HEAD_DIM]


configs = [triton.Config({"BLOCK_M": BM, "BLOCK_N": BN}, num_stages=s, num_warps=w, pre_hook=_host_descriptor_pre_hook)
           for BM in [16, 32] for BN in [16, 32] for s in [2, 3] for w in [4]]


def prune_invalid_configs(configs, named_args, **kwargs):
    N_CTX = kwargs["N_CTX"]
    STAGE = kwargs["STAGE"]
    # Filter out configs where BLOCK_M > N_CTX, and BLOCK_M < BLOCK_N when causal is True
    return [conf for conf in configs if conf.kwargs.get("BLOCK_M", 0) <= N_CTX and (
        conf.kwargs.get("BLOCK_M", 0) >= conf.kwargs.get("BLOCK_N", 0) or STAGE == 1)]


_attn_fwd = triton.autotune(configs=configs, key=["N_CTX", "HEAD_DIM", "FP8_OUTPUT", "warp_specialize"],
                            prune_configs_by={"early_config_prune": prune_invalid_configs},
                            cache_results=False)(tutorial_attention._attn_fwd)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("host_desc", [False, True])
def test_tutorial_attention_forward(backend, causal, host_desc):
    Z, H, N_CTX, D = 1, 2, 64, 16
    q, k, v = (rng.standard_normal((Z, H, N_CTX, D)).astype(np.float16) for _ in range(3))
    o = np.full_like(q, np.nan)
    M = np.full((Z, H, N_CTX), np.nan, np.float32)
    sm_scale = 0.5
    arrays = [q, k, v, o, M]
    if backend == "cuda":
        import torch
        arrays = [torch.from_numpy(a).cuda() for a in arrays]
    tq, tk, tv, to, tM = arrays
    y_dim = Z * H * N_CTX
    if host_desc:
        dummy_block = [1, 1]
        descs = [TensorDescriptor(t, shape=[y_dim, D], strides=[D, 1], block_shape=dummy_block) for t in (tq, tk, tv, to)]
    else:
        descs = [tq, tk, tv, to]

    def alloc_fn(size, align, _):
        return np.empty(size, np.int8)
    triton.set_allocator(alloc_fn)

    def grid(META):
        return (triton.cdiv(N_CTX, META["BLOCK_M"]), Z * H, 1)
    _attn_fwd[grid](sm_scale, tM, Z, H, *descs, N_CTX=N_CTX, HEAD_DIM=D, FP8_OUTPUT=False, STAGE=3 if causal else 1,
                    warp_specialize=False, IS_HOPPER=True)
    if backend == "cuda":
        o = to.cpu().numpy()
    s = np.einsum("zhid,zhjd->zhij", q.astype(np.float64), k.astype(np.float64)) * sm_scale
    if causal:
        s = np.where(np.tril(np.ones((N_CTX, N_CTX), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)
    np.testing.assert_allclose(o.astype(np.float64), ref, atol=2e-2, rtol=0)
