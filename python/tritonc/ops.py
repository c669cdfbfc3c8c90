"""Operations built on tritonc kernels: ``dot`` for any shape (one Triton-C
source masked on every edge, macros for the four transposition variants as
PyTriton builds them), its tiles chosen by a heuristic on the shape and timed
by the tuner on the GPU, split-K where the output has few tiles and K is
deep; with its backward."""
import tritonc

# Masked on every edge, so any size and any tile work; the four transposition
# variants by macros, as PyTriton builds them.
_DOT_SRC = """
void dot(TYPE * A, TYPE * B, TYPE * C, int M, int N, int K, int lda, int ldb, int ldc) {
  int pm = get_program_id(0);
  int pn = get_program_id(1);
  int rm[TM] = pm * TM + 0 ... TM;
  int rn[TN] = pn * TN + 0 ... TN;
  int rk[TK] = 0 ... TK;
  float c[TM, TN] = 0;
  TYPE* pa[SHAPE_A] = A + rk[BROADCAST_AK] * STRIDE_AK + rm[BROADCAST_AM] * STRIDE_AM;
  TYPE* pb[SHAPE_B] = B + rk[BROADCAST_BK] * STRIDE_BK + rn[BROADCAST_BN] * STRIDE_BN;
  for (int k = K; k > 0; k -= TK) {
    bool checka[SHAPE_A] = rm[BROADCAST_AM] < M && rk[BROADCAST_AK] < k;
    bool checkb[SHAPE_B] = rk[BROADCAST_BK] < k && rn[BROADCAST_BN] < N;
    TYPE a[SHAPE_A] = checka ? *pa : 0;
    TYPE b[SHAPE_B] = checkb ? *pb : 0;
    c += USE_A @ USE_B;
    pa += TK * STRIDE_AK;
    pb += TK * STRIDE_BK;
  }
  TYPE* pc[TM, TN] = C + rm[:, newaxis] * ldc + rn[newaxis, :];
  bool checkc[TM, TN] = rm[:, newaxis] < M && rn[newaxis, :] < N;
  @checkc *pc = c;
}
"""

# Split-K for deep K and few output tiles: program (pm, pn, pz) multiplies
# the pz-th of SPLIT slices of K and adds its partial product into W (f32,
# zeroed first) with atomic_add.
_DOT_SPLITK_SRC = """
void dot_splitk(TYPE * A, TYPE * B, float * W, int M, int N, int K, int lda, int ldb, int ldc) {
  int pm = get_program_id(0);
  int pn = get_program_id(1);
  int pz = get_program_id(2);
  int slice = (K + SPLIT * TK - 1) / (SPLIT * TK) * TK;
  int k0 = pz * slice;
  int rm[TM] = pm * TM + 0 ... TM;
  int rn[TN] = pn * TN + 0 ... TN;
  int rk[TK] = 0 ... TK;
  float c[TM, TN] = 0;
  TYPE* pa[SHAPE_A] = A + (k0 + rk)[BROADCAST_AK] * STRIDE_AK + rm[BROADCAST_AM] * STRIDE_AM;
  TYPE* pb[SHAPE_B] = B + (k0 + rk)[BROADCAST_BK] * STRIDE_BK + rn[BROADCAST_BN] * STRIDE_BN;
  for (int k = min(K - k0, slice); k > 0; k -= TK) {
    bool checka[SHAPE_A] = rm[BROADCAST_AM] < M && rk[BROADCAST_AK] < k;
    bool checkb[SHAPE_B] = rk[BROADCAST_BK] < k && rn[BROADCAST_BN] < N;
    TYPE a[SHAPE_A] = checka ? *pa : 0;
    TYPE b[SHAPE_B] = checkb ? *pb : 0;
    c += USE_A @ USE_B;
    pa += TK * STRIDE_AK;
    pb += TK * STRIDE_BK;
  }
  float* pw[TM, TN] = W + rm[:, newaxis] * ldc + rn[newaxis, :];
  bool checkc[TM, TN] = rm[:, newaxis] < M && rn[newaxis, :] < N;
  @checkc atomic_add(pw, c);
}
"""

# The split-K sums (f32) to the output's type.
_CAST_SRC = """
void cast(float * W, TYPE * C, int n) {
  int i[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = i < n;
  float w[BLOCK] = m ? *(W + i) : 0;
  @m *(C + i) = w;
}
"""


def _layout_macros(transpose_a, transpose_b):
    return {
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


def _multiprocessors(x):
    torch = tritonc._torch()
    return torch.cuda.get_device_properties(x.device).multi_processor_count


def _gpu_space(M, N, K, dtype, sms):
    """The tile space the tuner times on the GPU, by a heuristic on the shape:
    large tiles where the output has a wave of them or more, smaller tiles
    and deeper K steps where it has fewer (measured on the H100: 1000^3 is
    fastest at 128x128x64 with 4 warps, 2048x128x2048 at 64x64x128)."""
    if str(dtype).endswith("float32"):  # FMA dots (no tf32): the H100's best f32 tiles
        return dict(TM=[64], TN=[128, 256] if M * N >= 2048 * 2048 else [64, 128], TK=[32], num_warps=[8],
                    num_stages=[3])
    if tritonc.cdiv(M, 128) * tritonc.cdiv(N, 128) >= sms:
        return dict(TM=[128], TN=[128, 256], TK=[64], num_warps=[8], num_stages=[3, 4])
    return dict(TM=[64, 128], TN=[64, 128], TK=[64, 128], num_warps=[4], num_stages=[3])


def _splitk_space(M, N, K, sms):
    """Split-K candidates where the output has few tiles and K is deep: at
    least 256 of K per program."""
    if tritonc.cdiv(M, 128) * tritonc.cdiv(N, 128) * 2 > sms or K < 1024:
        return None
    splits = [s for s in (2, 4, 8, 16) if K // s >= 256]
    return dict(SPLIT=splits, TM=[64, 128], TN=[128], TK=[64], num_warps=[4, 8], num_stages=[3]) if splits else None


def _median_ms(fn, reps=10):
    torch = tritonc._torch()
    fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


class _dot(tritonc.function):
    kernel = tritonc.kernel(_DOT_SRC, ["C"], filename="tritonc/ops.py:dot")
    splitk = tritonc.kernel(_DOT_SPLITK_SRC, filename="tritonc/ops.py:dot_splitk")
    cast = tritonc.kernel(_CAST_SRC, ["C"], filename="tritonc/ops.py:cast")
    split_choice = {}  # (shape, layout, dtype) -> whether split-K was faster, measured once
    chosen = {}  # (shape, layout, dtype) -> (path, kernel, arguments, macros) of the last GPU call

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
        K = Ka
        lda = M if transpose_a else K
        ldb = K if transpose_b else N
        ldc = N
        c = tritonc.empty([M, N], dtype=a.dtype, like=a)
        if M == 0 or N == 0:
            return c
        if K == 0:
            c[...] = 0
            return c
        macros = dict(_layout_macros(transpose_a, transpose_b), TYPE=a.dtype)
        args = (a, b, c, M, N, K, lda, ldb, ldc)
        grid = lambda opt: [tritonc.cdiv(M, opt.d("TM")), tritonc.cdiv(N, opt.d("TN"))]
        on_gpu = bool(getattr(a, "is_cuda", False))
        if not on_gpu:
            # The CPU back end (or the interpreter): one configuration, not tuned.
            big = M >= 128 and N >= 128
            return _dot.kernel(*args, grid=grid, TM=128 if big else 32, TN=128 if big else 32,
                               TK=64 if big else 16, **macros)
        sms = _multiprocessors(a)
        key = (M, N, K, transpose_a, transpose_b, str(a.dtype))
        plain_macros = dict(_gpu_space(M, N, K, a.dtype, sms), **macros)
        plain = lambda: _dot.kernel(*args, grid=grid, **plain_macros)
        split = _splitk_space(M, N, K, sms)
        _dot.chosen[key] = ("", _dot.kernel, args, plain_macros)
        if split is None:
            return plain()
        torch = tritonc._torch()
        w = torch.zeros([M, N], dtype=torch.float32, device=a.device)
        split_grid = lambda opt: [tritonc.cdiv(M, opt.d("TM")), tritonc.cdiv(N, opt.d("TN")), opt.d("SPLIT")]
        to_out = (lambda: None) if a.dtype == torch.float32 else (
            lambda: _dot.cast(w, c, M * N, grid=(tritonc.cdiv(M * N, 1024),), BLOCK=1024, TYPE=a.dtype))

        def split_run():
            w.zero_()
            _dot.splitk(a, b, w, M, N, K, lda, ldb, ldc, grid=split_grid, **split, **macros)
            to_out()

        if key not in _dot.split_choice:
            # Both paths tuned, then their best configurations timed against each other once.
            plain()
            split_run()
            _dot.split_choice[key] = _median_ms(split_run) < _median_ms(plain)
        if not _dot.split_choice[key]:
            return plain()
        _dot.chosen[key] = ("split-K ", _dot.splitk, (a, b, w, M, N, K, lda, ldb, ldc), dict(split, **macros))
        split_run()
        return w if a.dtype == torch.float32 else c

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
    """a @ b with optional transpositions (a^T when transpose_a, b^T when transpose_b), any sizes."""
    return _dot.apply(a, b, transpose_a, transpose_b)


def dot_config(M, N, K, dtype, transpose_a=False, transpose_b=False):
    """What the last GPU ``dot`` of this shape ran, as text ("split-K SPLIT=4
    TM=64 ..." or "TM=128 TN=128 ..."); None before such a call."""
    chosen = _dot.chosen.get((M, N, K, transpose_a, transpose_b, str(dtype)))
    if chosen is None:
        return None
    path, kernel, args, macros = chosen
    config = kernel.config_of(*args, **macros)
    return None if config is None else path + config
