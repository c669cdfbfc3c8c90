"""The fused mixture-of-experts matmul of moe_kernels.py (rows gathered
through a sorted token index, per-expert weights, router weights, rows
scattered back) against a float64 numpy reference, at ragged sizes with
fresh random routing, output poisoned first: interpreter, CPU back end, and
CUDA tensors on a GPU host."""
import os
import sys

import numpy as np
import pytest

import tritonc

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402
import moe_kernels as moe  # noqa: E402

rng = np.random.default_rng()


@pytest.fixture(params=dsl_backends.available())
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


def run_moe(backend, tokens, experts, top_k, N, K, block, mul_routed_weight, dtype=np.float16):
    BM, BN, BK = block
    a = rng.standard_normal((tokens, K)).astype(dtype)
    w = (rng.standard_normal((experts, N, K)) / np.sqrt(K)).astype(dtype)
    # Each token picks top_k distinct experts.
    topk_ids = np.stack([rng.permutation(experts)[:top_k] for _ in range(tokens)]).astype(np.int32)
    topk_weights = rng.random((tokens, top_k)).astype(np.float32)
    sorted_ids, expert_ids, post_padded = moe.align_tokens(topk_ids, experts, BM)
    # As engines allocate it: room for the worst-case padding, so that the
    # grid's last blocks lie past the padded count and return at once.
    EM = tokens * top_k + experts * (BM - 1)
    sorted_full = np.full(EM, tokens * top_k, np.int32)
    sorted_full[:sorted_ids.size] = sorted_ids
    expert_full = np.full(tritonc.cdiv(EM, BM), -1, np.int32)
    expert_full[:expert_ids.size] = expert_ids
    c = np.full((tokens * top_k, N), np.nan, dtype)
    grid = (tritonc.cdiv(EM, BM) * tritonc.cdiv(N, BN),)
    args = (a, w, c, topk_weights, sorted_full, expert_full, post_padded, N, K, EM, tokens * top_k,
            K, 1, N * K, K, 1, N, 1)
    dsl_backends.launch(moe.fused_moe_kernel, grid, backend, *args, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
                        GROUP_M=4, MUL_ROUTED_WEIGHT=mul_routed_weight, TOP_K=top_k)
    ref = moe.moe_reference(a, w, topk_ids, topk_weights if mul_routed_weight else np.ones_like(topk_weights))
    return c.astype(np.float64), ref


@pytest.mark.parametrize("mul_routed_weight", [True, False])
def test_fused_moe_matches_the_per_token_reference(backend, mul_routed_weight):
    tokens, experts, top_k = int(rng.integers(20, 60)), int(rng.integers(3, 7)), 2
    N, K = int(rng.integers(40, 100)), int(rng.integers(40, 100))
    c, ref = run_moe(backend, tokens, experts, top_k, N, K, (16, 32, 32), mul_routed_weight)
    assert not np.isnan(c).any(), "a routed row was not written"
    np.testing.assert_allclose(c, ref, atol=2e-2, rtol=1e-2)


def test_fused_moe_at_a_serving_tile(backend):
    """64 x 64 x 64 blocks, as engines tune for decode-sized batches: on the
    GPU the gathered rows still take the tensor cores."""
    if backend == "interp":
        pytest.skip("a 64-row block of every expert is slow on the interpreter; the 16-row test covers it")
    tokens, experts, top_k = int(rng.integers(150, 260)), 8, 2
    N, K = int(rng.integers(200, 300)), int(rng.integers(200, 300))
    c, ref = run_moe(backend, tokens, experts, top_k, N, K, (64, 64, 64), True)
    assert not np.isnan(c).any(), "a routed row was not written"
    np.testing.assert_allclose(c, ref, atol=3e-2, rtol=1e-2)
