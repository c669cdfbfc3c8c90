"""Operations built on tritonc kernels: ``dot`` as PyTriton builds it (one
Triton-C source, macros for the four transposition variants, tuned tiles),
with its backward."""
import tritonc

_DOT_SRC = """
void dot(TYPE * A, TYPE * B, TYPE * C, int M, int N, int K,
         int lda __multipleof(8), int ldb __multipleof(8), int ldc __multipleof(8)) {
  int pm = get_program_id(0);
  int pn = get_program_id(1);
  int rm[TM] = pm * TM + 0 ... TM;
  int rn[TN] = pn * TN + 0 ... TN;
  int rk[TK] = 0 ... TK;
  float c[TM, TN] = 0;
  TYPE* pa[SHAPE_A] = A + rk[BROADCAST_AK] * STRIDE_AK + rm[BROADCAST_AM] * STRIDE_AM;
  TYPE* pb[SHAPE_B] = B + rk[BROADCAST_BK] * STRIDE_BK + rn[BROADCAST_BN] * STRIDE_BN;
  TYPE a[SHAPE_A] = (*pa);
  TYPE b[SHAPE_B] = (*pb);
  for (int k = K; k > 0; k -= TK) {
    c += USE_A @ USE_B;
    pa = pa + TK * STRIDE_AK;
    pb = pb + TK * STRIDE_BK;
    bool check = k > TK;
    a = check ? *pa : 0;
    b = check ? *pb : 0;
  }
  int rcm[TM] = pm * TM + 0 ... TM;
  int rcn[TN] = pn * TN + 0 ... TN;
  TYPE* pc[TM, TN] = C + rcn[newaxis, :] + rcm[:, newaxis] * ldc;
  *pc = c;
}
"""


def _tiles(n, choices):
    # The kernel has no bounds masks: tiles must divide the sizes.
    ok = [t for t in choices if n % t == 0]
    if not ok:
        raise ValueError("dot: size %d is not a multiple of any tile in %s" % (n, choices))
    return ok


class _dot(tritonc.function):
    kernel = tritonc.kernel(_DOT_SRC, ["C"], filename="tritonc/ops.py:dot")

    @staticmethod
    def _call(a, b, transpose_a, transpose_b):
        shape_a, shape_b = tritonc.shape(a), tritonc.shape(b)
        if len(shape_a) != 2 or len(shape_b) != 2:
            raise ValueError("dot: operands must be matrices, got shapes %s and %s" % (shape_a, shape_b))
        M, Ka = shape_a
        Kb, N = shape_b
        if transpose_a:
            M, Ka = Ka, M
        if transpose_b:
            Kb, N = N, Kb
        if Ka != Kb:
            raise ValueError("dot: inner dimensions differ (%d and %d)" % (Ka, Kb))
        if a.dtype != b.dtype:
            raise TypeError("dot: operands of types %s and %s" % (a.dtype, b.dtype))
        lda = M if transpose_a else Ka
        ldb = Kb if transpose_b else N
        ldc = N
        c = tritonc.empty([M, N], dtype=a.dtype, like=a)
        grid = lambda opt: [tritonc.cdiv(M, opt.d("TM")), tritonc.cdiv(N, opt.d("TN"))]
        macros = {
            "USE_A": "^a" if transpose_a else "a",
            "STRIDE_AK": "lda" if transpose_a else "1",
            "STRIDE_AM": "1" if transpose_a else "lda",
            "BROADCAST_AK": ":, newaxis" if transpose_a else "newaxis, :",
            "BROADCAST_AM": "newaxis, :" if transpose_a else ":, newaxis",
            "SHAPE_A": "TK, TM" if transpose_a else "TM, TK",
            "USE_B": "^b" if transpose_b else "b",
            "STRIDE_BK": "1" if transpose_b else "ldb",
            "STRIDE_BN": "ldb" if transpose_b else "1",
            "BROADCAST_BK": "newaxis, :" if transpose_b else ":, newaxis",
            "BROADCAST_BN": ":, newaxis" if transpose_b else "newaxis, :",
            "SHAPE_B": "TN, TK" if transpose_b else "TK, TN",
        }
        return _dot.kernel(a, b, c, M, N, Ka, lda, ldb, ldc, grid=grid, TYPE=a.dtype,
                           TM=_tiles(M, [32, 64, 128]) if M % 32 == 0 else _tiles(M, [16, 8]),
                           TN=_tiles(N, [32, 64, 128]) if N % 32 == 0 else _tiles(N, [16, 8]),
                           TK=_tiles(Ka, [8]), **macros)

    @staticmethod
    def forward(ctx, a, b, transpose_a=False, transpose_b=False):
        ctx.save_for_backward(a, b)
        ctx.t_a, ctx.t_b = transpose_a, transpose_b
        return _dot._call(a, b, transpose_a, transpose_b)

    @staticmethod
    def backward(ctx, dy):
        a, b = ctx.saved_tensors
        dy = dy.contiguous() if hasattr(dy, "contiguous") else dy
        t_a, t_b = ctx.t_a, ctx.t_b
        if not t_a and not t_b:
            da = _dot._call(dy, b, False, True)
            db = _dot._call(a, dy, True, False)
        elif not t_a and t_b:
            da = _dot._call(dy, b, False, False)
            db = _dot._call(dy, a, True, False)
        elif t_a and not t_b:
            da = _dot._call(b, dy, False, True)
            db = _dot._call(a, dy, False, False)
        else:
            da = _dot._call(b, dy, True, True)
            db = _dot._call(dy, a, True, True)
        return da, db, None, None


def dot(a, b, transpose_a=False, transpose_b=False):
    """a @ b with optional transpositions (a^T when transpose_a, b^T when transpose_b)."""
    return _dot.apply(a, b, transpose_a, transpose_b)
