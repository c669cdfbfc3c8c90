# The Triton peers of bench/shapes.py: kernels written the way ours are
# (same masks, same loops), with the tile spaces they are tuned over.
import triton
import triton.language as tl

MM_CONFIGS = [triton.Config({"BM": m, "BN": n, "BK": k}, num_warps=w, num_stages=s) for m, n, k, w, s in (
    (128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (128, 128, 64, 8, 4), (128, 128, 64, 4, 4), (128, 128, 32, 4, 4),
    (64, 256, 32, 4, 4), (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (64, 64, 64, 4, 3), (64, 64, 32, 4, 4),
    (256, 128, 64, 8, 3), (256, 128, 64, 8, 4))]


@triton.jit
def tri_matmul_fixed(a, b, c, M, N, K, lda, ldb, ldc, TRANS_B: tl.constexpr, PREC: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    pa = a + rm[:, None] * lda + rk[None, :]
    if TRANS_B:
        pb = b + rn[:, None] * ldb + rk[None, :]
    else:
        pb = b + rk[:, None] * ldb + rn[None, :]
    for k0 in range(0, K, BK):
        x = tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] < K - k0), other=0.0)
        if TRANS_B:
            w = tl.load(pb, mask=(rn[:, None] < N) & (rk[None, :] < K - k0), other=0.0)
            acc = tl.dot(x, tl.trans(w), acc, input_precision=PREC)
            pb += BK
        else:
            w = tl.load(pb, mask=(rk[:, None] < K - k0) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(x, w, acc, input_precision=PREC)
            pb += BK * ldb
        pa += BK
    pc = c + rm[:, None] * ldc + rn[None, :]
    tl.store(pc, acc.to(c.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.autotune(configs=[triton.Config({"BM": m, "BN": n, "BK": 64, "SPLIT": s}, num_warps=w, num_stages=3)
                          for m, n, s, w in ((64, 64, 8, 4), (64, 64, 16, 4), (128, 128, 4, 8), (128, 64, 8, 4),
                                             (64, 128, 8, 4), (128, 128, 8, 8))],
                 key=["M", "N", "K"], reset_to_zero=["c"])

@triton.jit
def tri_splitk(a, b, c, M, N, K, lda, ldb, ldc, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               SPLIT: tl.constexpr):
    pm, pn, pz = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    slice_k = tl.cdiv(K, SPLIT * BK) * BK
    k_begin = pz * slice_k
    k_end = tl.minimum(K, k_begin + slice_k)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = k_begin + tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    pa = a + rm[:, None] * lda + rk[None, :]
    pb = b + rk[:, None] * ldb + rn[None, :]
    for k0 in range(k_begin, k_end, BK):
        x = tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] < k_end - k0 + k_begin), other=0.0)
        w = tl.load(pb, mask=(rk[:, None] < k_end - k0 + k_begin) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, w, acc)
        pa += BK
        pb += BK * ldb
    pc = c + rm[:, None] * ldc + rn[None, :]
    tl.atomic_add(pc, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def tri_softmax(x, y, n, ldx, ldy, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x + row * ldx + cols, mask=cols < n, other=-float("inf")).to(tl.float32)
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(y + row * ldy + cols, e / tl.sum(e, axis=0), mask=cols < n)


@triton.jit
def tri_layernorm(x, y, w, b, n, ld, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    keep = cols < n
    v = tl.load(x + row * ld + cols, mask=keep, other=0.0).to(tl.float32)
    mean = tl.sum(v, axis=0) / n
    d = tl.where(keep, v - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n
    rstd = 1 / tl.sqrt(var + eps)
    wt = tl.load(w + cols, mask=keep, other=0.0)
    bs = tl.load(b + cols, mask=keep, other=0.0)
    tl.store(y + row * ld + cols, d * rstd * wt + bs, mask=keep)

CONV_CONFIGS = [triton.Config({"BM": m, "BN": n, "BK": k}, num_warps=w, num_stages=s) for m, n, k, w, s in (
    (128, 128, 64, 8, 3), (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 128, 32, 4, 4), (64, 64, 32, 4, 4),
    (128, 32, 32, 4, 4), (64, 32, 32, 4, 4), (128, 256, 64, 8, 3))]


@triton.jit
def tri_conv_nhwc_fixed(x, wt, y, B, C, H, W, K, P, Q, R, S, pad_h, pad_w,
                        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    PQ = P * Q
    RSC = R * S * C
    SC = S * C
    rb = rm // PQ
    rpq = rm % PQ
    rp = rpq // Q
    rq = rpq % Q
    checkm = rm < B * PQ
    checkn = rn < K
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, RSC, BK):
        rsc = k0 + rk
        rr = rsc // SC
        rs = (rsc % SC) // C
        rc = rsc % C
        checkk = rsc < RSC
        h = rp[:, None] + rr[None, :] - pad_h
        w = rq[:, None] + rs[None, :] - pad_w
        checka = checkm[:, None] & checkk[None, :] & (h >= 0) & (h < H) & (w >= 0) & (w < W)
        a = tl.load(x + ((rb[:, None] * H + h) * W + w) * C + rc[None, :], mask=checka, other=0.0)
        bt = tl.load(wt + rn[:, None] * RSC + rsc[None, :], mask=checkn[:, None] & checkk[None, :], other=0.0)
        acc = tl.dot(a, tl.trans(bt), acc)
    tl.store(y + rm[:, None] * K + rn[None, :], acc.to(y.dtype.element_ty),
             mask=checkm[:, None] & checkn[None, :])

ATT_CONFIGS = [triton.Config({"BM": m, "BN": n}, num_warps=w, num_stages=s) for m, n, w, s in (
    (128, 64, 8, 3), (128, 128, 8, 3), (128, 64, 4, 3), (64, 64, 4, 3), (128, 32, 4, 3), (64, 128, 4, 3),
    (128, 128, 8, 2), (64, 32, 4, 2))]


@triton.jit
def tri_attention_fixed(q, k, v, o, L, scale, HEAD: tl.constexpr, CAUSAL: tl.constexpr,
                        BM: tl.constexpr, BN: tl.constexpr):
    pm, bh = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, HEAD)
    base = bh.to(tl.int64) * L * HEAD
    checkm = rm < L
    qq = tl.load(q + base + rm[:, None] * HEAD + rd[None, :], mask=checkm[:, None], other=0.0)
    m_i = tl.full((BM,), -float("inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, HEAD), tl.float32)
    end = L
    if CAUSAL:
        end = tl.minimum(L, (pm + 1) * BM)
    for n0 in range(0, end, BN):
        cols = n0 + rn
        checkn = cols < L
        kk = tl.load(k + base + cols[:, None] * HEAD + rd[None, :], mask=checkn[:, None], other=0.0)
        vv = tl.load(v + base + cols[:, None] * HEAD + rd[None, :], mask=checkn[:, None], other=0.0)
        s = tl.dot(qq, tl.trans(kk))
        keep = checkn[None, :]
        if CAUSAL:
            keep = keep & (cols[None, :] <= rm[:, None])
        s = tl.where(keep, s * scale, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(qq.dtype), vv, acc)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o + base + rm[:, None] * HEAD + rd[None, :], acc.to(o.dtype.element_ty), mask=checkm[:, None])


# The autotuned versions that bench/shapes.py times (bench/profile_kernels.py
# launches the fixed ones above with one configuration).
# (the layout and the precision in the key: each case is tuned for itself)
tri_matmul = triton.autotune(configs=MM_CONFIGS, key=["M", "N", "K", "TRANS_B", "PREC"])(tri_matmul_fixed)
tri_conv_nhwc = triton.autotune(configs=CONV_CONFIGS, key=["B", "C", "H", "W", "K", "R", "S"])(tri_conv_nhwc_fixed)
tri_attention = triton.autotune(configs=ATT_CONFIGS, key=["L", "HEAD", "CAUSAL"])(tri_attention_fixed)
