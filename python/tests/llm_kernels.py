"""Kernels in the forms LLM training and serving libraries write them (our
own writing of the common shapes: RMSNorm forward and backward, a fused
cross-entropy that writes its gradient over the logits in place, SwiGLU,
rotary embeddings). Only the imports differ from Triton; used by
test_dsl_llm_kernels.py."""
import tritonc as triton
import tritonc.language as tl


@triton.jit
def rms_norm_fwd(Y, X, W, RSTD, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0)
    rstd = tl.math.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(RSTD + row, rstd)
    tl.store(Y + row * stride + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask)


@triton.jit
def rms_norm_bwd(DX, DW_PARTIAL, DY, X, W, RSTD, stride, n_rows, n_cols, rows_per_program,
                 BLOCK: tl.constexpr):
    """dx per row; each program sums its rows' share of dw into one row of
    DW_PARTIAL (reduced on the host)."""
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK,), dtype=tl.float32)
    row_start = pid * rows_per_program
    row_end = tl.minimum(row_start + rows_per_program, n_rows)
    for row in range(row_start, row_end):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        rstd = tl.load(RSTD + row)
        xhat = x * rstd
        wdy = w * dy
        dx = rstd * (wdy - xhat * (tl.sum(wdy * xhat, axis=0) / n_cols))
        tl.store(DX + row * stride + cols, dx, mask=mask)
        dw += dy * xhat
    tl.store(DW_PARTIAL + pid * n_cols + cols, dw, mask=mask)


@triton.jit
def cross_entropy_fwd_bwd(LOGITS, LABELS, LOSS, stride, n_cols, ignore_index, n_valid, BLOCK: tl.constexpr):
    """One row per program: the loss -log softmax(x)[label] by an online
    log-sum-exp over blocks of the vocabulary, then the gradient
    (softmax - onehot) / n_valid written over the logits, in place.
    Rows labelled ignore_index get loss 0 and gradient 0."""
    row = tl.program_id(0).to(tl.int64)
    ptr = LOGITS + row * stride
    label = tl.load(LABELS + row)
    if label == ignore_index:
        for start in range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            tl.store(ptr + cols, 0.0, mask=cols < n_cols)
        tl.store(LOSS + row, 0.0)
        return
    m = float("-inf")
    d = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(ptr + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        block_max = tl.max(x, axis=0)
        m_new = tl.maximum(m, block_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    lse = m + tl.log(d)
    x_label = tl.load(ptr + label).to(tl.float32)
    tl.store(LOSS + row, lse - x_label)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(ptr + cols, mask=mask, other=0.0).to(tl.float32)
        grad = tl.exp(x - lse)
        grad = tl.where(cols == label, grad - 1.0, grad) / n_valid
        tl.store(ptr + cols, grad.to(LOGITS.dtype.element_ty), mask=mask)


@triton.jit
def swiglu_fwd(A, B, C, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(A + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(B + offs, mask=mask, other=0.0)
    silu = a * tl.sigmoid(a)
    tl.store(C + offs, silu.to(b.dtype) * b, mask=mask)


@triton.jit
def rope_fwd(Q, COS, SIN, seq_len, n_heads, HEAD_DIM: tl.constexpr):
    """Rotates each head of Q (tokens x heads x HEAD_DIM, in place) by the
    position's angles: the first half against the second (GPT-NeoX's
    rotate-half); COS and SIN are seq_len x HEAD_DIM // 2."""
    tok = tl.program_id(0)
    head = tl.program_id(1)
    half: tl.constexpr = HEAD_DIM // 2
    i = tl.arange(0, half)
    pos = tok % seq_len
    cos = tl.load(COS + pos * half + i)
    sin = tl.load(SIN + pos * half + i)
    base = Q + (tok * n_heads + head) * HEAD_DIM
    x1 = tl.load(base + i)
    x2 = tl.load(base + half + i)
    tl.store(base + i, x1 * cos - x2 * sin)
    tl.store(base + half + i, x2 * cos + x1 * sin)
