"""Weight-only quantized matmuls as LLM inference kernels write them (our own
writing of the pattern): activations x [M, K] in float16, weights stored
narrow and widened to float16 inside the loop, just before the dot.

- `matmul_w8a16_kernel`: int8 weights w [K, N] (N contiguous) with one
  float16 scale per output column: y = (x @ w) * scale[None, :], the scale
  applied once to the accumulator.
- `matmul_w4a16_kernel`: 4-bit weights packed two per byte along K (byte
  [k // 2, n] holds row 2i in its low nibble, row 2i + 1 in its high one),
  unsigned with a zero point of 8, and a float16 scale per group of GROUP_K
  rows and column: w[k, n] = (nibble - 8) * scale[k // GROUP_K, n], the
  scale applied to the widened weights in the loop (it changes along K).

And both operands quantized (W8A8, as SmoothQuant-style inference runs its
linear layers):

- `matmul_i8_kernel`: int8 a [M, K] times int8 b [K, N] into exact int32,
  b read through two strides (stored [K, N], or [N, K] as torch's Linear
  holds weights, which the tensor cores read K-contiguous);
- `scaled_mm_w8a8_kernel`: the same product scaled by a per-row (token)
  scale of a and a per-column (channel) scale of b, plus a bias, out in
  float16.

Masked on M, N and K, grouped program order. Only the imports differ from
Triton; bench/dsl_bench.py runs the same functions under Triton 3.6."""
import numpy as np

import tritonc as triton
import tritonc.language as tl


@triton.jit
def _grouped_ids(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * num_pid_n
    first_m = (pid // in_group) * GROUP_M
    size_m = tl.minimum(num_pid_m - first_m, GROUP_M)
    return first_m + (pid % in_group) % size_m, (pid % in_group) // size_m


@triton.jit
def matmul_w8a16_kernel(x_ptr, w_ptr, scale_ptr, y_ptr, M, N, K, stride_xm, stride_wk, stride_ym,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        GROUP_M: tl.constexpr):
    pid_m, pid_n = _grouped_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + rm[:, None] * stride_xm + rk[None, :]
    w_ptrs = w_ptr + rk[:, None] * stride_wk + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        x = tl.load(x_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < left), other=0.0)
        w = tl.load(w_ptrs, mask=(rk[:, None] < left) & (rn[None, :] < N), other=0)
        acc = tl.dot(x, w.to(tl.float16), acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K * stride_wk
    scale = tl.load(scale_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    y = (acc * scale[None, :]).to(tl.float16)
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :], y, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_w4a16_kernel(x_ptr, q_ptr, scale_ptr, y_ptr, M, N, K, stride_xm, stride_qk, stride_sk, stride_ym,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        GROUP_M: tl.constexpr, GROUP_K: tl.constexpr):
    tl.static_assert(GROUP_K % BLOCK_K == 0, "a block of K lies in one scale group")
    pid_m, pid_n = _grouped_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    rh = tl.arange(0, BLOCK_K // 2)  # packed rows: two of K each
    x_ptrs = x_ptr + rm[:, None] * stride_xm + rk[None, :]
    q_ptrs = q_ptr + rh[:, None] * stride_qk + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        x = tl.load(x_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < left), other=0.0)
        q = tl.load(q_ptrs, mask=(rh[:, None] < (left + 1) // 2) & (rn[None, :] < N), other=0)
        lo = (q & 0xF).to(tl.int16) - 8
        hi = (q >> 4).to(tl.int16) - 8
        # rows 2i and 2i + 1: interleaved along K
        w = tl.join(lo, hi).permute(0, 2, 1).reshape(BLOCK_K, BLOCK_N)
        scale = tl.load(scale_ptr + (k * BLOCK_K // GROUP_K) * stride_sk + rn, mask=rn < N, other=0.0)
        acc = tl.dot(x, w.to(tl.float16) * scale[None, :], acc)
        x_ptrs += BLOCK_K
        q_ptrs += (BLOCK_K // 2) * stride_qk
    y = acc.to(tl.float16)
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :], y, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _i8_product(a_ptr, b_ptr, M, N, K, stride_am, stride_bk, stride_bn, pid_m, pid_n,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < left), other=0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < left) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    return acc, rm, rn


@triton.jit
def matmul_i8_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_bn, stride_cm,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid_m, pid_n = _grouped_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    acc, rm, rn = _i8_product(a_ptr, b_ptr, M, N, K, stride_am, stride_bk, stride_bn, pid_m, pid_n,
                              BLOCK_M, BLOCK_N, BLOCK_K)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def scaled_mm_w8a8_kernel(a_ptr, b_ptr, scale_a_ptr, scale_b_ptr, bias_ptr, c_ptr, M, N, K,
                          stride_am, stride_bk, stride_bn, stride_cm,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          GROUP_M: tl.constexpr):
    pid_m, pid_n = _grouped_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    acc, rm, rn = _i8_product(a_ptr, b_ptr, M, N, K, stride_am, stride_bk, stride_bn, pid_m, pid_n,
                              BLOCK_M, BLOCK_N, BLOCK_K)
    scale_a = tl.load(scale_a_ptr + rm, mask=rm < M, other=0.0)
    scale_b = tl.load(scale_b_ptr + rn, mask=rn < N, other=0.0)
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0)
    c = acc.to(tl.float32) * scale_a[:, None] * scale_b[None, :] + bias[None, :]
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], c.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def quantize_rows_i8(x):
    """x [R, C] float -> (int8 [R, C], float32 scale [R]): symmetric per row."""
    scale = (np.abs(x).max(axis=1) / 127.0).astype(np.float32)
    scale[scale == 0] = 1
    return np.clip(np.rint(x / scale[:, None].astype(np.float64)), -127, 127).astype(np.int8), scale


def quantize_w8(w, rng=None):
    """w [K, N] float -> (int8 [K, N], float16 scale [N]): symmetric per column."""
    scale = (np.abs(w).max(axis=0) / 127.0).astype(np.float16)
    scale[scale == 0] = 1
    q = np.clip(np.rint(w / scale.astype(np.float64)), -127, 127).astype(np.int8)
    return q, scale


def quantize_w4(w, group_k):
    """w [K, N] float (K even, a multiple of group_k) -> (uint8 [K / 2, N]
    packed, float16 scale [K / group_k, N]): nibble = round(w / scale) + 8."""
    K, N = w.shape
    groups = w.reshape(K // group_k, group_k, N)
    scale = (np.abs(groups).max(axis=1) / 7.0).astype(np.float16)
    scale[scale == 0] = 1
    q = np.clip(np.rint(groups / scale[:, None, :].astype(np.float64)), -8, 7).astype(np.int16) + 8
    q = q.reshape(K, N).astype(np.uint8)
    return (q[0::2] | (q[1::2] << 4)).astype(np.uint8), scale


def dequantize_w4(packed, scale, group_k):
    lo = (packed & 0xF).astype(np.int16) - 8
    hi = (packed >> 4).astype(np.int16) - 8
    q = np.empty((packed.shape[0] * 2, packed.shape[1]), np.int16)
    q[0::2], q[1::2] = lo, hi
    return q.astype(np.float64) * np.repeat(scale.astype(np.float64), group_k, axis=0)
