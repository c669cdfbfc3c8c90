"""The masked matmul of bench/kernels/matmul_masked.tc in the Python DSL,
with %globaltimer read at the program's start, after its loop and after its
store, and %smid: where a small matmul's time goes
(bench/matmul_small_probe.py)."""
import tritonc as triton
import tritonc.language as tl


@triton.jit
def timer():
    return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)


@triton.jit
def smid():
    return tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def matmul_timed(A, B, C, T, M, N, K, lda, ldb, ldc, TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr):
    t0 = timer()
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * TM + tl.arange(0, TM)
    rn = pn * TN + tl.arange(0, TN)
    rk = tl.arange(0, TK)
    c = tl.zeros((TM, TN), tl.float32)
    pa = A + rm[:, None] * lda + rk[None, :]
    pb = B + rk[:, None] * ldb + rn[None, :]
    for k in range(K, 0, -TK):
        a = tl.load(pa, mask=(rm[:, None] < M) & (rk[None, :] < k), other=0.0)
        b = tl.load(pb, mask=(rk[:, None] < k) & (rn[None, :] < N), other=0.0)
        c = tl.dot(a, b, c)
        pa += TK
        pb += TK * ldb
    t1 = timer()
    tl.store(C + rm[:, None] * ldc + rn[None, :], c.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))
    t2 = timer()
    slot = T + (pn * tl.num_programs(0) + pm) * 4
    tl.store(slot, t0)
    tl.store(slot + 1, t1)
    tl.store(slot + 2, t2)
    tl.store(slot + 3, smid().to(tl.int64))
