"""Operations built on tritonc kernels: ``dot`` for any shape (one Triton-C
source masked on every edge, macros for the four transposition variants as
PyTriton builds them), its tiles chosen by a heuristic on the shape and timed
by the tuner on the GPU, split-K where the output has few tiles and K is
deep; f32 products with tf32 inputs where torch allows them
(``torch.backends.cuda.matmul.allow_tf32``); with its backward."""
import tritonc

# The product of program (pm, pn)'s output tile over COUNT of K from K0,
# masked on every edge, so any size and any tile work; the four
# transposition variants by macros, as PyTriton builds them.
_TILE_PRODUCT = """
  int rm[TM] = pm * TM + 0 ... TM;
  int rn[TN] = pn * TN + 0 ... TN;
  int rk[TK] = 0 ... TK;
  ACC c[TM, TN] = 0;
  TYPE* pa[SHAPE_A] = A + {rk}[BROADCAST_AK] * STRIDE_AK + rm[BROADCAST_AM] * STRIDE_AM;
  TYPE* pb[SHAPE_B] = B + {rk}[BROADCAST_BK] * STRIDE_BK + rn[BROADCAST_BN] * STRIDE_BN;
  for (int k = {count}; k > 0; k -= TK) {{
    bool checka[SHAPE_A] = rm[BROADCAST_AM] < M && rk[BROADCAST_AK] < k;
    bool checkb[SHAPE_B] = rk[BROADCAST_BK] < k && rn[BROADCAST_BN] < N;
    TYPE a[SHAPE_A] = checka ? *pa : 0;
    TYPE b[SHAPE_B] = checkb ? *pb : 0;
    c += USE_A @ USE_B;
    pa += TK * STRIDE_AK;
    pb += TK * STRIDE_BK;
  }}
"""
_EDGE = "  bool checkc[TM, TN] = rm[:, newaxis] < M && rn[newaxis, :] < N;\n"

_DOT_SRC = """
void dot(TYPE * A, TYPE * B, TYPE * C, int M, int N, int K, int lda, int ldb, int ldc) {
  int pm = get_program_id(0);
  int pn = get_program_id(1);""" + _TILE_PRODUCT.format(rk="rk", count="K") + """  TYPE* pc[TM, TN] = C + rm[:, newaxis] * ldc + rn[newaxis, :];
""" + _EDGE + """  @checkc *pc = c;
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
  int k0 = pz * slice;""" + _TILE_PRODUCT.format(rk="(k0 + rk)", count="min(K - k0, slice)") + """  float* pw[TM, TN] = W + rm[:, newaxis] * ldc + rn[newaxis, :];
""" + _EDGE + """  @checkc atomic_add(pw, c);
}
"""

# The split-K sums (f32) to the output's type; W is zeroed behind them, so
# that the next product of the shape on the stream adds into zeros without
# a memset launch of its own.
_CAST_SRC = """
void cast(float * W, TYPE * C, int n) {
  int i[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = i < n;
  float w[BLOCK] = m ? *(W + i) : 0;
  float zero[BLOCK] = 0;
  @m *(C + i) = w;
  @m *(W + i) = zero;
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


def _accumulator(dtype):
    """The Triton-C type products of `dtype` are summed in: f32 for 16- and
    32-bit floats (as the tensor cores do), f64 for f64, and integers in
    int (long for 64-bit ones): wrapping as the output type would, so an
    integer product is exact modulo its width, as numpy's."""
    name = str(dtype).replace("torch.", "")
    if name == "float64":
        return "double"
    if name in ("int64", "uint64"):
        return "long"
    if name.startswith(("int", "uint")):
        return "int"
    return "float"


def _multiprocessors(device):
    torch = tritonc._torch()
    return torch.cuda.get_device_properties(device).multi_processor_count


def _row_major(x):
    """x with its rows contiguous, as the kernels read it (a transposed view,
    say, is copied): a kernel takes only the data pointer."""
    if hasattr(x, "is_contiguous"):
        return x if x.is_contiguous() else x.contiguous()
    import numpy as np
    return x if not isinstance(x, np.ndarray) or x.flags["C_CONTIGUOUS"] else np.ascontiguousarray(x)


def _first_values(space):
    """A tuning space with each list replaced by its first value: a fixed configuration."""
    return {k: v[0] if isinstance(v, list) else v for k, v in space.items()}


def _config_values(text):
    """{"TM": 128, ...} of a configuration's text ("TM=128 ... num_warps=4")."""
    return {k: int(v) for k, v in (item.split("=", 1) for item in text.split())}


def _gpu_space(M, N, K, dtype, sms, b_row_bytes=None, tf32=False):
    """The tile space the tuner times on the GPU, by a heuristic on the shape:
    large tiles where the output has a wave of them or more, smaller tiles
    and deeper K steps where it has fewer (measured on the H100: 2048x128x2048
    is fastest at 64x64x128, 1000^3 at 64x128x64 with 4 stages in pairs of
    programs). Where B's rows (K x N, or N x K transposed) are not a multiple
    of 128 bytes apart, num_ctas 2 too: B's boxes multicast to pairs of programs
    paid there (1760x7000x1760: 0.65 -> 0.81 of cuBLAS; 1000^3 with a
    producer warp: 12.8 -> 11.7 us) and cost where rows are aligned. tf32:
    the 16-bit spaces with K steps of 32 (128 bytes of f32, as 64 of f16);
    A B at 4096^3 is fastest at 256x128 (wgmma's N the tile's M there).
    f32 without tf32 (FMA): 64 x 128 x 32 at 4 warps and 2 stages led the
    sweep of every configuration on the H200 at 4096^3 (0.92 of cuBLAS)."""
    name = str(dtype).replace("torch.", "")
    if name not in ("float16", "bfloat16", "float32"):  # f64 and integers: FMA, sums in 64 bits at most
        return dict(TM=[64], TN=[64], TK=[16], num_warps=[4], num_stages=[3])
    if str(dtype).endswith("float32") and not tf32:  # FMA dots: the H200 sweep's best f32 tiles
        return dict(TM=[64], TN=[128, 256] if M * N >= 2048 * 2048 else [64, 128], TK=[32], num_warps=[4, 8],
                    num_stages=[2, 3])
    tk = [32] if tf32 else [64]
    if tritonc.cdiv(M, 128) * tritonc.cdiv(N, 128) >= sms:
        space = dict(TM=[128, 256], TN=[128, 256], TK=tk, num_warps=[8], num_stages=[3, 4])
        if b_row_bytes is not None and b_row_bytes % 128:
            space["num_ctas"] = [1, 2]
        return space
    space = dict(TM=[64, 128], TN=[64, 128], TK=tk if tf32 else [64, 128], num_warps=[4], num_stages=[3, 4])
    if b_row_bytes is not None and b_row_bytes % 128:
        space["num_ctas"] = [1, 2]
    return space


def _splitk_space(M, N, K, sms, tf32=False):
    """Split-K candidates where the output has few tiles and K is deep: at
    least 256 of K per program."""
    if tritonc.cdiv(M, 128) * tritonc.cdiv(N, 128) * 2 > sms or K < 1024:
        return None
    splits = [s for s in (2, 4, 8, 16) if K // s >= 256]
    tk = [32] if tf32 else [64]
    return dict(SPLIT=splits, TM=[64, 128], TN=[64, 128], TK=tk, num_warps=[4, 8], num_stages=[3]) if splits else None


def _tf32(dtype):
    """Whether a product of `dtype` (a torch dtype) takes tf32 inputs: f32,
    as torch's own matmuls do, when torch.backends.cuda.matmul.allow_tf32 is set."""
    torch = tritonc._torch()
    return torch is not None and dtype == torch.float32 and bool(torch.backends.cuda.matmul.allow_tf32)


def _cold_ms(fn, reps=10):
    """Median GPU ms of fn with the L2 cache flushed before each call, as the
    benchmarks time kernels (operands are rarely still in L2 when a product
    is computed; a warm loop would favour the path that rereads them). The
    GPU is kept busy while fn's launches are queued, so that their host time
    (the first calls of a path go through Python) does not count."""
    torch = tritonc._torch()
    flush = torch.empty(1 << 25, dtype=torch.int32, device="cuda")  # 128 MB, more than any L2
    fn()
    times = []
    for _ in range(reps):
        flush.zero_()
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(200000)  # ~0.1 ms more of GPU work while the launches below are queued
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
    kernel_tf32 = tritonc.kernel(_DOT_SRC, ["C"], filename="tritonc/ops.py:dot", allow_tf32=True)
    splitk_tf32 = tritonc.kernel(_DOT_SPLITK_SRC, filename="tritonc/ops.py:dot_splitk", allow_tf32=True)
    cast = tritonc.kernel(_CAST_SRC, ["C"], filename="tritonc/ops.py:cast")
    runs = {}  # (shape, layout, dtype, tf32) -> the chosen GPU path: a function of (a, b)

    @staticmethod
    def _call(a, b, transpose_a, transpose_b):
        for x in (a, b):
            if not hasattr(x, "dtype") or not hasattr(x, "shape"):
                raise TypeError("dot: operands are arrays or tensors (numpy, torch, DLPack), not %s"
                                % type(x).__name__)
        a, b = _row_major(a), _row_major(b)
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
        if getattr(a, "is_cuda", False) and M and N and K:
            tf32 = _tf32(a.dtype)
            key = (M, N, K, transpose_a, transpose_b, str(a.dtype), tf32)
            run = _dot.runs.get(key)
            if run is None:
                macros = dict(_layout_macros(transpose_a, transpose_b), TYPE=a.dtype, ACC=_accumulator(a.dtype))
                run = _dot.runs[key] = _dot._plan(a, b, M, N, K, lda, ldb, ldc, macros, tf32)
            return run(a, b)
        c = tritonc.empty([M, N], dtype=a.dtype, like=a)
        if M == 0 or N == 0:
            return c
        if K == 0:
            c[...] = 0
            return c
        # The CPU back end (or the interpreter): one configuration, not tuned.
        big = M >= 128 and N >= 128
        return _dot.kernel(a, b, c, M, N, K, lda, ldb, ldc,
                           grid=lambda opt: [tritonc.cdiv(M, opt.d("TM")), tritonc.cdiv(N, opt.d("TN"))],
                           TM=128 if big else 32, TN=128 if big else 32, TK=64 if big else 16,
                           **_layout_macros(transpose_a, transpose_b), TYPE=a.dtype, ACC=_accumulator(a.dtype))

    @staticmethod
    def _plan(a, b, M, N, K, lda, ldb, ldc, macros, tf32=False):
        """Tunes the GPU paths for one shape (the tile space, and split-K
        where it is a candidate, each timed by the tuner; then the two best
        against each other) and returns the chosen path as a function of
        (a, b) launching fixed configurations: repeated calls run no tuner
        and take the kernels' fast launch path."""
        torch = tritonc._torch()
        sms = _multiprocessors(a.device.index or 0)
        f32 = a.dtype == torch.float32
        c = tritonc.empty([M, N], dtype=a.dtype, like=a)
        b_row_bytes = ldb * b.element_size()  # K x N, or N x K for a @ ^b: either multicasts
        space = dict(_gpu_space(M, N, K, a.dtype, sms, b_row_bytes, tf32), **macros)
        grid = lambda opt: [tritonc.cdiv(M, opt.d("TM")), tritonc.cdiv(N, opt.d("TN"))]
        kernel, splitk = (_dot.kernel_tf32, _dot.splitk_tf32) if tf32 else (_dot.kernel, _dot.splitk)
        kernel(a, b, c, M, N, K, lda, ldb, ldc, grid=grid, **space)
        text = kernel.config_of(a, b, c, M, N, K, lda, ldb, ldc, **space)
        best = dict(_first_values(space), **_config_values(text))
        plain_grid = (tritonc.cdiv(M, best["TM"]), tritonc.cdiv(N, best["TN"]))

        def plain(a, b):
            c = torch.empty([M, N], dtype=a.dtype, device=a.device)
            return kernel(a, b, c, M, N, K, lda, ldb, ldc, grid=plain_grid, **best)
        plain.config = text
        # (split-K sums in an f32 workspace: for the float types that sum in f32 anyway)
        split_space = _splitk_space(M, N, K, sms, tf32) if macros["ACC"] == "float" else None
        if split_space is None:
            return plain
        w = torch.zeros([M, N], dtype=torch.float32, device=a.device)
        split_space = dict(split_space, **macros)
        grid3 = lambda opt: [tritonc.cdiv(M, opt.d("TM")), tritonc.cdiv(N, opt.d("TN")), opt.d("SPLIT")]
        splitk(a, b, w, M, N, K, lda, ldb, ldc, grid=grid3, **split_space)
        split_text = splitk.config_of(a, b, w, M, N, K, lda, ldb, ldc, **split_space)
        sbest = dict(_first_values(split_space), **_config_values(split_text))
        split = _dot._split_path(M, N, K, lda, ldb, ldc, sbest, f32, splitk)
        split.config = "split-K " + split_text
        split_ms, plain_ms = _cold_ms(lambda: split(a, b)), _cold_ms(lambda: plain(a, b))
        chosen, other, mine, theirs = (split, plain, split_ms, plain_ms) if split_ms < plain_ms else \
            (plain, split, plain_ms, split_ms)
        chosen.config += " (timed %.4f ms; %s: %.4f ms)" % (mine, other.config, theirs)
        return chosen

    @staticmethod
    def _split_path(M, N, K, lda, ldb, ldc, config, f32, splitk):
        """The split-K path at one configuration (its macros included), as a
        function of (a, b): the programs add their slices' products into an
        f32 workspace W with atomics, then (for 16-bit outputs) one kernel
        converts W into C and zeroes W. W is kept per stream, zero between
        calls, so a call launches two kernels and no memset; a call that
        fails between them drops its W. f32 outputs are W itself, zeroed
        for each call."""
        torch = tritonc._torch()
        grid = (tritonc.cdiv(M, config["TM"]), tritonc.cdiv(N, config["TN"]), config["SPLIT"])
        cast_grid = (tritonc.cdiv(M * N, 1024),)
        workspaces = {}  # stream -> W

        def split(a, b):
            if f32:
                w = torch.zeros([M, N], dtype=torch.float32, device=a.device)
                splitk(a, b, w, M, N, K, lda, ldb, ldc, grid=grid, **config)
                return w
            stream = torch.cuda.current_stream(a.device).cuda_stream
            w = workspaces.get(stream)
            if w is None:
                w = workspaces[stream] = torch.zeros([M, N], dtype=torch.float32, device=a.device)
            try:
                splitk(a, b, w, M, N, K, lda, ldb, ldc, grid=grid, **config)
                c = torch.empty([M, N], dtype=a.dtype, device=a.device)
                return _dot.cast(w, c, M * N, grid=cast_grid, BLOCK=1024, TYPE=a.dtype)
            except BaseException:
                workspaces.pop(stream, None)  # may hold a partial sum
                raise
        return split

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
    if not (getattr(a, "requires_grad", False) or getattr(b, "requires_grad", False)):
        return _dot._call(a, b, transpose_a, transpose_b)  # no tape to record: no autograd.Function's cost
    return _dot.apply(a, b, transpose_a, transpose_b)


def dot_config(M, N, K, dtype, transpose_a=False, transpose_b=False, tf32=None):
    """What GPU ``dot`` calls of this shape run, as text ("split-K SPLIT=4
    TM=64 ..." or "TK=64 TM=128 ..."), with both paths' times where split-K
    was a candidate; None before the first such call. ``tf32``: of the calls
    with tf32 inputs or without (default: as torch allows now, for f32)."""
    if tf32 is None:
        tf32 = _tf32(dtype)
    run = _dot.runs.get((M, N, K, transpose_a, transpose_b, str(dtype), bool(tf32)))
    return None if run is None else run.config
