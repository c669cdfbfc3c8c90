"""Kernels written in the Python DSL the way Triton 3.x users write them
(after Triton's tutorials: masks everywhere, sizes that are not multiples of
the blocks). Only the imports differ from Triton. Used by test_dsl_kernels.py
(interpreter/CPU in CI, CUDA tensors on the GPU check) and bench/dsl_bench.py
(beside Triton 3.6 running the same functions)."""
import tritonc as triton
import tritonc.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=2):
        row_ptr = in_ptr + row_idx * in_row_stride
        col = tl.arange(0, BLOCK_SIZE)
        mask = col < n_cols
        row = tl.load(row_ptr + col, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        tl.store(out_ptr + row_idx * out_row_stride + col, numerator / denominator, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def linear_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    """y = x @ w.T with w stored [N, K], as torch's Linear holds it: both
    operands K-contiguous (in f32 on sm_90a the dot's tf32 steps run on
    wgmma, which reads K-major operands only at 32 bits)."""
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        x = tl.load(x_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[:, None] * K + kk[None, :], mask=(rn[:, None] < N) & (kk[None, :] < K), other=0.0)
        acc = tl.dot(x, tl.trans(w), acc)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc.to(y_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


linear_autotuned = triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 32}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, num_stages=3, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K"],
)(linear_kernel)


matmul_autotuned = triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=3, num_warps=4),
    ],
    key=["M", "N", "K"],
)(matmul_kernel)


@triton.jit
def matmul_splitk_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                         stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         SPLIT_K: tl.constexpr):
    """C += A @ B over a 1/SPLIT_K share of K per program (axis 1), with atomics; C starts zeroed."""
    pid_m = tl.program_id(0) // tl.cdiv(N, BLOCK_N)
    pid_n = tl.program_id(0) % tl.cdiv(N, BLOCK_N)
    pid_k = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - (k - pid_k * BLOCK_K)), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - (k - pid_k * BLOCK_K)) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * SPLIT_K * stride_ak
        b_ptrs += BLOCK_K * SPLIT_K * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.atomic_add(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def layer_norm_bwd(DX, DY, DW, DB, X, W, Mean, Rstd, stride, N, BLOCK_N: tl.constexpr):
    """dx per row; dw and db summed over rows with atomics (f32)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    tl.atomic_add(DW + cols, dy * xhat, mask=mask)
    tl.atomic_add(DB + cols, dy, mask=mask)


@triton.jit
def layer_norm_bwd_dx_locked(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                             GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    """The layer norm tutorial's backward: dx per row, and each row's dw, db
    added into one of GROUP_SIZE_M partial rows under that row's lock (the
    first writer stores, the others add); a second kernel sums the rows."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    group = row % GROUP_SIZE_M
    Lock += group
    Count = Lock + GROUP_SIZE_M
    DW = DW + group * N + cols
    DB = DB + group * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = tl.where(mask, w * dy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    tl.store(DX + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = dy.to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def layer_norm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    """Sums the partial rows of dw and db (M of them, N wide)."""
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.)
        db += tl.load(DB + offs, mask=mask, other=0.)
    tl.store(FINAL_DW + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(FINAL_DB + cols, tl.sum(db, axis=0), mask=cols < N)


@triton.jit
def _attn_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, start_m, qk_scale, N_CTX,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr, offs_m, offs_n):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
    else:
        lo, hi = 0, N_CTX
    K_block_ptr = tl.advance(K_block_ptr, (0, lo))
    V_block_ptr = tl.advance(V_block_ptr, (lo, 0))
    for start_n in range(lo, hi, BLOCK_N):
        k = tl.load(K_block_ptr, boundary_check=(0, 1))
        qk = tl.dot(q, k)
        kv_ok = (start_n + offs_n[None, :]) < N_CTX
        if STAGE == 2:
            mask = (offs_m[:, None] >= (start_n + offs_n[None, :])) & kv_ok
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
        else:
            qk = qk * qk_scale + tl.where(kv_ok, 0, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        qk -= m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(V_block_ptr, boundary_check=(0, 1))
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
        V_block_ptr = tl.advance(V_block_ptr, (BLOCK_N, 0))
        K_block_ptr = tl.advance(K_block_ptr, (0, BLOCK_N))
    return acc, l_i, m_i


@triton.jit
def _attn_rows(Q_block_ptr, K_block_ptr, V_block_ptr, start_m, sm_scale, N_CTX, HEAD_DIM: tl.constexpr,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """One program's rows of the attention forward: the unnormalized
    accumulator, each row's sum l_i and running max m_i (base 2), and the
    rows' indices."""
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(Q_block_ptr, boundary_check=(0, 1))
    if CAUSAL:
        acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, start_m, qk_scale, N_CTX,
                                    BLOCK_M, BLOCK_N, 1, offs_m, offs_n)
        acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, start_m, qk_scale, N_CTX,
                                    BLOCK_M, BLOCK_N, 2, offs_m, offs_n)
    else:
        acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, start_m, qk_scale, N_CTX,
                                    BLOCK_M, BLOCK_N, 3, offs_m, offs_n)
    return acc, l_i, m_i, offs_m


@triton.jit
def attention_fwd(Q, K, V, sm_scale, Out, stride_qz, stride_qh, stride_qm, stride_qk, stride_kz, stride_kh,
                  stride_kn, stride_kk, stride_vz, stride_vh, stride_vk, stride_vn, stride_oz, stride_oh, stride_om,
                  stride_on, Z, H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    Q_block_ptr = tl.make_block_ptr(base=Q + q_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_qm, stride_qk),
                                    offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    V_block_ptr = tl.make_block_ptr(base=V + q_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_vk, stride_vn),
                                    offsets=(0, 0), block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0))
    K_block_ptr = tl.make_block_ptr(base=K + q_offset, shape=(HEAD_DIM, N_CTX), strides=(stride_kk, stride_kn),
                                    offsets=(0, 0), block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1))
    O_block_ptr = tl.make_block_ptr(base=Out + q_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_om, stride_on),
                                    offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    acc, l_i, m_i, offs_m = _attn_rows(Q_block_ptr, K_block_ptr, V_block_ptr, start_m, sm_scale, N_CTX, HEAD_DIM,
                                       BLOCK_M, BLOCK_N, CAUSAL)
    acc = acc / l_i[:, None]
    tl.store(O_block_ptr, acc.to(Out.type.element_ty), boundary_check=(0, 1))


@triton.jit
def first_negative_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """The index of the first negative element of x (n if none): a loop with break."""
    found = n
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        hit = tl.min(tl.where(x < 0, offs, n), axis=0)
        if hit < n:
            found = hit
            break
    tl.store(out_ptr, found)


# ---------------------------------------------------------------------------
# Attention backward, FlashAttention-2 style, from the math.
#
# Layout: q, k, v, o, do (and dq, dk, dv) are contiguous (Z, H, N_CTX, HEAD_DIM)
# f16, so one (batch, head) pair is an N_CTX x HEAD_DIM matrix starting at
# off_hz * N_CTX * HEAD_DIM with row stride HEAD_DIM; the strides are derived,
# not passed. M and Delta are f32 vectors of Z * H * N_CTX (row off_hz * N_CTX + i).
# N_CTX must be a multiple of BLOCK_M and BLOCK_N: no loads or stores are masked.
#
# With s = q k^T * sm_scale (causal: s_ij = -inf for j > i), p = softmax(s),
# o = p v and M_i = log2(sum_j 2^(s_ij / ln 2)), the forward's base-2 log-sum-exp,
# each probability is recomputed as p_ij = 2^(q_i.k_j * qk_scale - M_i) with
# qk_scale = sm_scale / ln 2. Then, with Delta_i = sum_d o_id * do_id:
#   dv = p^T do,   dp = do v^T,   ds = p * (dp - Delta),
#   dq = ds k * sm_scale,   dk = ds^T q * sm_scale.
# ---------------------------------------------------------------------------

@triton.jit
def attention_fwd_lse(Q, K, V, sm_scale, Out, M, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """attention_fwd (through _attn_inner) on contiguous tensors, also storing
    the base-2 log-sum-exp of each row's scaled scores (M, as the backward
    kernels below read it). Grid (cdiv(N_CTX, BLOCK_M), Z * H)."""
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    head = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    Q_block_ptr = tl.make_block_ptr(base=Q + head, shape=(N_CTX, HEAD_DIM), strides=(HEAD_DIM, 1),
                                    offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    K_block_ptr = tl.make_block_ptr(base=K + head, shape=(HEAD_DIM, N_CTX), strides=(1, HEAD_DIM),
                                    offsets=(0, 0), block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1))
    V_block_ptr = tl.make_block_ptr(base=V + head, shape=(N_CTX, HEAD_DIM), strides=(HEAD_DIM, 1),
                                    offsets=(0, 0), block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0))
    O_block_ptr = tl.make_block_ptr(base=Out + head, shape=(N_CTX, HEAD_DIM), strides=(HEAD_DIM, 1),
                                    offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    acc, l_i, m_i, offs_m = _attn_rows(Q_block_ptr, K_block_ptr, V_block_ptr, start_m, sm_scale, N_CTX, HEAD_DIM,
                                       BLOCK_M, BLOCK_N, CAUSAL)
    tl.store(M + off_hz * N_CTX + offs_m, m_i + tl.math.log2(l_i), mask=offs_m < N_CTX)
    acc = acc / l_i[:, None]
    tl.store(O_block_ptr, acc.to(Out.type.element_ty), boundary_check=(0, 1))


@triton.jit
def attention_bwd_preprocess(O, DO, Delta, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    """Delta[row] = sum_d o[row, d] * do[row, d] in f32. Grid (N_CTX // BLOCK_M, Z * H)."""
    off_hz = tl.program_id(1)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, HEAD_DIM)
    head = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    tile = head + rows[:, None] * HEAD_DIM + cols[None, :]
    o = tl.load(O + tile).to(tl.float32)
    do = tl.load(DO + tile).to(tl.float32)
    tl.store(Delta + off_hz * N_CTX + rows, tl.sum(o * do, axis=1))


@triton.jit
def _bwd_key_block(Q, K, V, sm_scale, DO, DK, DV, DQ_ACC, M, Delta, N_CTX, HEAD_DIM: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, ADD_DQ: tl.constexpr):
    """dk and dv of one BLOCK_N block of keys, summed over the query blocks
    that see it; with ADD_DQ also the block's share of dq, ds @ k, added
    into DQ_ACC by atomics (DQ_ACC unused otherwise)."""
    off_hz = tl.program_id(1)
    key0 = tl.program_id(0) * BLOCK_N
    head = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    Q += head
    DO += head
    DQ_ACC += head
    M += off_hz * N_CTX
    Delta += off_hz * N_CTX
    keys = key0 + tl.arange(0, BLOCK_N)
    cols = tl.arange(0, HEAD_DIM)
    kv_tile = head + keys[:, None] * HEAD_DIM + cols[None, :]
    k = tl.load(K + kv_tile)
    v = tl.load(V + kv_tile)
    qk_scale = sm_scale * 1.44269504  # 1 / ln 2, as the forward
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:
        first = (key0 // BLOCK_M) * BLOCK_M  # earlier queries do not see these keys
    else:
        first = 0
    for start_m in range(first, N_CTX, BLOCK_M):
        queries = start_m + tl.arange(0, BLOCK_M)
        q_tile = queries[:, None] * HEAD_DIM + cols[None, :]
        q = tl.load(Q + q_tile)
        do = tl.load(DO + q_tile)
        lse = tl.load(M + queries)
        delta = tl.load(Delta + queries)
        # transposed probabilities: keys along rows, queries along columns
        pT = tl.math.exp2(tl.dot(k, tl.trans(q)) * qk_scale - lse[None, :])
        if CAUSAL:
            pT = tl.where(queries[None, :] >= keys[:, None], pT, 0.0)
        dv = tl.dot(pT.to(tl.float16), do, dv)
        dpT = tl.dot(v, tl.trans(do))
        dsT = (pT * (dpT - delta[None, :])).to(tl.float16)
        dk = tl.dot(dsT, q, dk)
        if ADD_DQ:
            # relaxed: the sums need no ordering, only the kernel's end
            tl.atomic_add(DQ_ACC + q_tile, tl.dot(tl.trans(dsT), k), sem="relaxed")
    tl.store(DK + kv_tile, (dk * sm_scale).to(DK.dtype.element_ty))
    tl.store(DV + kv_tile, dv.to(DV.dtype.element_ty))


@triton.jit
def attention_bwd_dkdv(Q, K, V, sm_scale, DO, DK, DV, M, Delta, N_CTX, HEAD_DIM: tl.constexpr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """dk and dv of one BLOCK_N block of keys, summed over the query blocks
    that see it. Grid (N_CTX // BLOCK_N, Z * H)."""
    _bwd_key_block(Q, K, V, sm_scale, DO, DK, DV, DK, M, Delta, N_CTX, HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL, False)


@triton.jit
def attention_bwd_fused(Q, K, V, sm_scale, DO, DK, DV, DQ_ACC, M, Delta, N_CTX, HEAD_DIM: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """attention_bwd_dkdv, and the block's share of dq, ds @ k, added into
    DQ_ACC (f32, zeroed before; dq = DQ_ACC * sm_scale) by atomics: one pass
    over the probabilities instead of a second kernel that computes them
    again (five dots per pair of blocks, not seven; the original
    FlashAttention-2 backward). Grid (N_CTX // BLOCK_N, Z * H)."""
    _bwd_key_block(Q, K, V, sm_scale, DO, DK, DV, DQ_ACC, M, Delta, N_CTX, HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL, True)


@triton.jit
def attention_bwd_dq(Q, K, V, sm_scale, DO, DQ, M, Delta, N_CTX, HEAD_DIM: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """dq of one BLOCK_M block of queries, summed over the key blocks it
    sees. Grid (N_CTX // BLOCK_M, Z * H)."""
    off_hz = tl.program_id(1)
    query0 = tl.program_id(0) * BLOCK_M
    head = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    K += head
    V += head
    queries = query0 + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, HEAD_DIM)
    q_tile = head + queries[:, None] * HEAD_DIM + cols[None, :]
    q = tl.load(Q + q_tile)
    do = tl.load(DO + q_tile)
    lse = tl.load(M + off_hz * N_CTX + queries)
    delta = tl.load(Delta + off_hz * N_CTX + queries)
    qk_scale = sm_scale * 1.44269504  # 1 / ln 2, as the forward
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:
        # keys up to the block's last query, rounded up to a whole key block
        last = tl.cdiv(query0 + BLOCK_M, BLOCK_N) * BLOCK_N
    else:
        last = N_CTX
    for start_n in range(0, last, BLOCK_N):
        keys = start_n + tl.arange(0, BLOCK_N)
        kv_tile = keys[:, None] * HEAD_DIM + cols[None, :]
        k = tl.load(K + kv_tile)
        v = tl.load(V + kv_tile)
        p = tl.math.exp2(tl.dot(q, k.T) * qk_scale - lse[:, None])
        if CAUSAL:
            p = tl.where(queries[:, None] >= keys[None, :], p, 0.0)
        dp = tl.dot(do, v.T)
        ds = p * (dp - delta[:, None])
        dq = tl.dot(ds.to(tl.float16), k, dq)
    tl.store(DQ + q_tile, (dq * sm_scale).to(DQ.dtype.element_ty))
