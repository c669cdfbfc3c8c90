"""A fused mixture-of-experts matmul in the form LLM inference engines use
(our own writing of the kernel vLLM made popular): the tokens routed to one
expert are gathered into a block of rows through a sorted index (rows past
the real tokens are padding, masked off), each block multiplies by its
expert's weights (stored E x N x K, K contiguous: `x @ w.T` per expert),
scales by the router's weight and scatters the rows back. Only the imports
differ from Triton; bench/dsl_bench.py runs the same function under Triton
3.6. `align_tokens` is the host-side routing (numpy) both share."""
import numpy as np

import tritonc as triton
import tritonc.language as tl


@triton.jit
def fused_moe_kernel(a_ptr, b_ptr, c_ptr, topk_weights_ptr, sorted_token_ids_ptr, expert_ids_ptr,
                     num_tokens_post_padded_ptr, N, K, EM, num_valid_tokens,
                     stride_am, stride_ak, stride_be, stride_bn, stride_bk, stride_cm, stride_cn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                     MUL_ROUTED_WEIGHT: tl.constexpr, TOP_K: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(EM, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    # Blocks past the padded token count have nothing to do.
    num_tokens_post_padded = tl.load(num_tokens_post_padded_ptr)
    if pid_m * BLOCK_M >= num_tokens_post_padded:
        return

    offs_token_id = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_token = tl.load(sorted_token_ids_ptr + offs_token_id)
    token_mask = offs_token < num_valid_tokens
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    # Each routed copy of a token reads that token's row of A.
    a_ptrs = a_ptr + (offs_token[:, None] // TOP_K * stride_am + offs_k[None, :] * stride_ak)
    expert = tl.load(expert_ids_ptr + pid_m).to(tl.int64)
    b_ptrs = b_ptr + expert * stride_be + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=token_mask[:, None] & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    if MUL_ROUTED_WEIGHT:
        weight = tl.load(topk_weights_ptr + offs_token, mask=token_mask, other=0)
        acc = acc * weight[:, None]
    out = acc.to(c_ptr.dtype.element_ty)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_token[:, None] + stride_cn * offs_cn[None, :]
    c_mask = token_mask[:, None] & (offs_cn[None, :] < N)
    tl.store(c_ptrs, out, mask=c_mask)


def align_tokens(topk_ids, num_experts, block_m):
    """The routing's host side: the (token, choice) pairs grouped by expert,
    each expert's group padded to a multiple of block_m with the index
    num_valid (masked off by the kernel). Returns sorted_token_ids (indices
    into the flattened topk_ids), expert_ids (one per block of block_m
    rows), and the padded count as a 1-element int32 array."""
    flat = topk_ids.reshape(-1)
    num_valid = flat.size
    sorted_ids, experts = [], []
    for e in range(num_experts):
        rows = np.nonzero(flat == e)[0]
        if rows.size == 0:
            continue
        padded = -(-rows.size // block_m) * block_m
        sorted_ids.append(np.concatenate([rows, np.full(padded - rows.size, num_valid)]))
        experts.extend([e] * (padded // block_m))
    sorted_token_ids = np.concatenate(sorted_ids).astype(np.int32)
    return sorted_token_ids, np.array(experts, dtype=np.int32), np.array([sorted_token_ids.size], dtype=np.int32)


def moe_reference(a, w, topk_ids, topk_weights):
    """float64 C[t, j] = topk_weights[t, j] * (a[t] @ w[topk_ids[t, j]].T), as an (T * top_k) x N array."""
    a64, w64 = a.astype(np.float64), w.astype(np.float64)
    T, top_k = topk_ids.shape
    out = np.empty((T * top_k, w.shape[1]))
    for t in range(T):
        for j in range(top_k):
            out[t * top_k + j] = topk_weights[t, j] * (a64[t] @ w64[topk_ids[t, j]].T)
    return out
