# The shapes benchmark: kernels as users write them (boundary masks, ragged
# sizes) through the Python package, side by side in one run with the peers
# doing the same work: torch (cuBLAS, cuDNN, flash attention) and Triton
# kernels written the same way (same masks, same tile spaces or close).
#   python3 bench/shapes.py OUT_DIR [--only matmul,softmax,...] [--quick] [--dtypes f16,tf32,...]
#   python3 bench/shapes.py OUT_DIR --dry     (no GPU: tiny sizes on the
#                                               interpreter, our kernels only,
#                                               checked against float64)
# Writes OUT_DIR/shapes.json (date, device, commit, versions, every row) and
# OUT_DIR/shapes.png (tritonc / best peer per shape); prints a table.
# Timing: medians of CUDA-event-timed launches after warm-up with the L2
# flushed between launches (triton.testing.do_bench for everyone). Our first
# call with a tuning space tunes (its wall time is reported as tune_s, with a
# fresh kernel cache: TRITONC_CACHE_DIR is a new folder per run).
import argparse, datetime, json, os, sys, tempfile, time, traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--only", default="", help="comma-separated ops: matmul,splitk,softmax,layernorm,conv,attention")
ap.add_argument("--quick", action="store_true", help="fewer shapes")
ap.add_argument("--dtypes", default="", help="comma-separated matmul types: f16,bf16,f32,tf32 (default all)")
ap.add_argument("--dry", action="store_true", help="tiny sizes on the interpreter, no peers")
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)
os.environ.setdefault("TRITONC_CACHE_DIR", tempfile.mkdtemp(prefix="tritonc-shapes-cache-"))

import torch  # noqa: E402
import tritonc  # noqa: E402
from attention_problem import attention_problem  # noqa: E402 (this folder)
from commit_label import commit_label  # noqa: E402 (this folder)

DRY = args.dry
dev = torch.device("cpu" if DRY else "cuda")
ONLY = set(filter(None, args.only.split(",")))
HAVE_TRITON = False
if not DRY:
    try:
        import triton
        from triton.testing import do_bench
        HAVE_TRITON = True
    except ImportError:
        pass
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True

rows = []


def want(op):
    return not ONLY or op in ONLY


def cdiv(a, b):
    return -(-a // b)


def next_pow2(n):
    return 1 << (n - 1).bit_length()


def bench(fn):
    if DRY:
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e3
    if HAVE_TRITON:
        return do_bench(fn, warmup=25, rep=100, return_mode="median")
    # Without Triton: CUDA events, median, L2 flushed by a 256 MB write.
    flush = torch.empty(2 ** 26, dtype=torch.int32, device=dev)
    for _ in range(5):
        fn()
    times = []
    for _ in range(50):
        flush.zero_()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return sorted(times)[len(times) // 2]


def relerr(out, ref):
    out = out.double()
    if not torch.isfinite(out).all():
        return float("inf")
    return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def save_results():
    """Writes shapes.json with the rows so far (after every row: a run cut off
    by a time limit keeps what it measured)."""
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device": "cpu (dry run: interpreter)" if DRY else torch.cuda.get_device_name(0),
        "versions": {"torch": torch.__version__, "triton": triton.__version__ if HAVE_TRITON else None,
                     "cuda": torch.version.cuda, "tritonc": COMMIT},
        "method": "median of CUDA-event-timed launches after warm-up, L2 flushed between launches "
                  "(triton.testing.do_bench); our first call tunes (tune_s, cold kernel cache)",
        "rows": rows,
    }
    with open(os.path.join(args.out, "shapes.json"), "w") as f:
        json.dump(result, f, indent=1)
    return result


COMMIT = commit_label()


def record(op, shape, dtype, who, ms, flop=0, nbytes=0, err=None, config="", tune_s=None, note=""):
    r = {"op": op, "shape": shape, "dtype": dtype, "who": who, "ms": ms,
         "TFLOPs": flop / ms / 1e9 if flop and ms else 0, "GBps": nbytes / ms / 1e6 if nbytes and ms else 0,
         "relerr": err, "config": config, "tune_s": tune_s, "note": note}
    rows.append(r)
    save_results()
    rate = f"{r['TFLOPs']:8.1f} TFLOP/s" if flop else f"{r['GBps']:8.1f} GB/s"
    extra = f" err {err:.1e}" if err is not None else ""
    extra += f" tune {tune_s:.1f}s" if tune_s is not None else ""
    print(f"{op:10} {shape:22} {dtype:5} {who:10} {ms:9.4f} ms {rate}{extra} {config} {note}", flush=True)


def failed(op, shape, dtype, who, e):
    msg = "".join(traceback.format_exception_only(type(e), e)).strip().replace("\n", " | ")[:400]
    rows.append({"op": op, "shape": shape, "dtype": dtype, "who": who, "ms": None, "error": msg})
    save_results()
    print(f"{op:10} {shape:22} {dtype:5} {who:10} FAILED: {msg}", flush=True)


def ours(op, shape, dtype, call, check, flop=0, nbytes=0, kernel=None, config_args=None, tol=1e-2, pre=None,
         who="tritonc", config_of=None):
    """Runs our kernel: the first call tunes (timed as tune_s), then a
    poisoned-output call is checked against float64, then it is timed."""
    try:
        t0 = time.perf_counter()
        call()
        if not DRY:
            torch.cuda.synchronize()
        tune_s = time.perf_counter() - t0
        if pre is not None:
            pre()
        call()
        err = check()
        config = kernel.config_of(*config_args[0], **config_args[1]) if kernel is not None else \
            (config_of() if config_of is not None else "")
        if not (err <= tol):
            raise RuntimeError(f"wrong result: relative error {err:.3e} > {tol:g} ({config})")
        ms = bench((lambda: (pre(), call())) if pre is not None else call)
        record(op, shape, dtype, who, ms, flop, nbytes, err, config or "", tune_s)
    except Exception as e:  # noqa: BLE001 - every failure is a row of the table
        failed(op, shape, dtype, who, e)


def peer(op, shape, dtype, who, fn, check=None, flop=0, nbytes=0, note="", tol=1e-2):
    if DRY:
        return
    try:
        fn()
        err = check() if check is not None else None
        if err is not None and not (err <= tol):
            raise RuntimeError(f"wrong result: relative error {err:.3e}")
        record(op, shape, dtype, who, bench(fn), flop, nbytes, err, note=note)
    except Exception as e:  # noqa: BLE001
        failed(op, shape, dtype, who, e)


def peer_best_warps(op, shape, launch, check, nbytes):
    """Triton's row kernel (f32) at the number of warps that is fastest here,
    measured: launch(num_warps) runs it."""
    best = None
    for w in WARPS:
        try:
            ms = bench(lambda: launch(w))
            if best is None or ms < best[0]:
                best = (ms, w)
        except Exception:  # noqa: BLE001 - too many registers for this width
            pass
    if best is None:
        failed(op, shape, "f32", "triton", RuntimeError("no number of warps ran"))
        return
    launch(best[1])
    record(op, shape, "f32", "triton", best[0], nbytes=nbytes, err=check(), note=f"num_warps={best[1]}")


def src(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def kernel(path, outputs=(), allow_tf32=False):
    return tritonc.kernel(src(path), list(outputs), filename=path, allow_tf32=allow_tf32)


# tf32: f32 tensors, products with tf32 inputs (ours compiled with
# allow_tf32, cuBLAS with torch's allow_tf32, Triton's input_precision).
DT = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "tf32": torch.float32}
TOL = {"f16": 1e-2, "bf16": 2e-2, "f32": 1e-4, "tf32": 1e-2}
# num_ctas 2: B's boxes multicast to pairs of programs (gpu-multicast), which
# pays where B's loads bound the kernel (rows of 7000) and costs elsewhere.
TILE_SPACE = dict(TM=[64, 128, 256], TN=[64, 128, 256], TK=[32, 64], num_warps=[4, 8], num_stages=[3, 4],
                  num_ctas=[1, 2])
if DRY:
    TILE_SPACE = dict(TM=[32, 64], TN=[32], TK=[16], num_warps=[4], num_stages=[3])

if HAVE_TRITON:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from shapes_peers import tri_matmul, tri_splitk, tri_softmax, tri_layernorm, tri_conv_nhwc, tri_attention  # noqa

# ---------------------------------------------------------------- matmul
MM_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 1024, 1024), (1760, 7000, 1760), (2560, 7000, 2560),
             (512, 512, 8192), (2048, 128, 2048), (1000, 1000, 1000), (4095, 4095, 4095)]
MM_OTHER = [(4096, 4096, 4096), (1760, 7000, 1760), (1000, 1000, 1000), (4095, 4095, 4095)]
if args.quick:
    MM_SHAPES = [(4096, 4096, 4096), (1760, 7000, 1760), (512, 512, 8192), (1000, 1000, 1000), (4095, 4095, 4095)]
    MM_OTHER = [(4096, 4096, 4096), (1000, 1000, 1000)]
if DRY:
    MM_SHAPES = [(77, 45, 50), (64, 64, 64)]
    MM_OTHER = [(77, 45, 50)]


def matmul_cases():
    for dt in ("f16", "bf16", "f32", "tf32"):
        if args.dtypes and dt not in args.dtypes.split(","):
            continue
        for trans_b in (False, True):
            if dt not in ("f16", "tf32") and trans_b:
                continue
            shapes = MM_SHAPES if dt == "f16" and not trans_b else MM_OTHER
            if dt in ("f32", "tf32"):
                shapes = [s for s in shapes if s[0] * s[1] * s[2] <= 4096 ** 3]
            yield dt, trans_b, shapes


if want("matmul"):
    k_nn = kernel("bench/kernels/matmul_masked.tc")
    k_nt = kernel("bench/kernels/matmul_masked_nt.tc")
    k_nn_tf32 = kernel("bench/kernels/matmul_masked.tc", allow_tf32=True)
    k_nt_tf32 = kernel("bench/kernels/matmul_masked_nt.tc", allow_tf32=True)
    for dt, trans_b, shapes in matmul_cases():
        op = "matmul_nt" if trans_b else "matmul"
        tdt = DT[dt]
        tf32 = dt == "tf32"
        torch.backends.cuda.matmul.allow_tf32 = tf32  # cuBLAS's, and tritonc.ops.dot's, as torch allows
        for M, N, K in shapes:
            shape = f"{M}x{N}x{K}"
            flop = 2 * M * N * K
            a = torch.randn(M, K, device=dev, dtype=tdt)
            b = torch.randn(N, K, device=dev, dtype=tdt) if trans_b else torch.randn(K, N, device=dev, dtype=tdt)
            bm = b.t() if trans_b else b
            ref = a.double() @ bm.double()
            c = torch.empty(M, N, device=dev, dtype=tdt)
            kk = (k_nt_tf32 if trans_b else k_nn_tf32) if tf32 else (k_nt if trans_b else k_nn)
            ldb = K if trans_b else N
            grid = lambda o, M=M, N=N: (cdiv(M, o.d("TM")), cdiv(N, o.d("TN")))
            call_args = (a, b, c, M, N, K, K, ldb, N)
            macros = dict(TILE_SPACE, TYPE=tdt)
            if tf32:
                macros["TK"] = [32]  # K steps of 128 bytes, as TK=64 of f16

            def call(kk=kk, call_args=call_args, grid=grid, macros=macros):
                kk(*call_args, grid=grid, **macros)

            def check(c=c, ref=ref):
                return relerr(c, ref)
            c.fill_(float("nan"))
            ours(op, shape, dt, call, check, flop, kernel=kk, config_args=(call_args, macros), tol=TOL[dt],
                 pre=None)
            # The library path: tritonc.ops.dot picks its tiles (and split-K) itself.
            got = {}

            def lib(a=a, b=b, trans_b=trans_b):
                got["c"] = tritonc.ops.dot(a, b, False, trans_b)
            ours(op, shape, dt, lib, lambda: relerr(got["c"], ref), flop, tol=TOL[dt], who="tritonc-ops",
                 config_of=lambda M=M, N=N, K=K, tdt=tdt, trans_b=trans_b, tf32=tf32:
                 tritonc.ops.dot_config(M, N, K, tdt, False, trans_b, tf32=tf32))
            peer(op, shape, dt, "cublas", lambda: torch.matmul(a, bm), lambda: relerr(torch.matmul(a, bm), ref), flop,
                 tol=TOL[dt])
            if HAVE_TRITON:
                ct = torch.empty(M, N, device=dev, dtype=tdt)
                prec = "ieee" if dt == "f32" else "tf32"  # (16-bit operands: unused)

                def tri(ct=ct):
                    tri_matmul[lambda m: (cdiv(M, m["BM"]), cdiv(N, m["BN"]))](
                        a, b, ct, M, N, K, K, ldb, N, TRANS_B=trans_b, PREC=prec)
                peer(op, shape, dt, "triton", tri, lambda: relerr(ct, ref), flop, tol=TOL[dt])
            del a, b, c, ref
    torch.backends.cuda.matmul.allow_tf32 = False

# ---------------------------------------------------------------- split-K
if want("splitk"):
    k_sk = kernel("examples/matmul_splitk.tc")
    shapes = [(512, 512, 8192), (2048, 128, 2048), (1000, 1000, 1000)] if not DRY else [(70, 72, 200)]
    space = dict(TM=[64, 128], TN=[64, 128], TK=[64], SPLIT=[4, 8, 16], num_warps=[4, 8], num_stages=[3])
    if DRY:
        space = dict(TM=[32], TN=[32], TK=[16], SPLIT=[2, 3], num_warps=[4], num_stages=[3])
    for M, N, K in shapes:
        shape = f"{M}x{N}x{K}"
        flop = 2 * M * N * K
        a = torch.randn(M, K, device=dev, dtype=torch.float16)
        b = torch.randn(K, N, device=dev, dtype=torch.float16)
        ref = a.double() @ b.double()
        c = torch.zeros(M, N, device=dev, dtype=torch.float32)
        grid = lambda o, M=M, N=N: (cdiv(M, o.d("TM")), cdiv(N, o.d("TN")), o.d("SPLIT"))
        call_args = (a, b, c, M, N, K, K, N, N)
        macros = dict(space, TYPE=torch.float16)
        # The tuner times configurations on copies; the timed call zeroes C first, as users must.
        ours("matmul", shape, "f16", lambda: k_sk(*call_args, grid=grid, **macros), lambda: relerr(c, ref),
             flop, kernel=k_sk, config_args=(call_args, macros), pre=c.zero_, who="tritonc-splitk")
        if HAVE_TRITON:
            ct = torch.zeros(M, N, device=dev, dtype=torch.float32)

            def tri():
                ct.zero_()
                tri_splitk[lambda m: (cdiv(M, m["BM"]), cdiv(N, m["BN"]), m["SPLIT"])](a, b, ct, M, N, K, K, N, N)
            peer("matmul", shape, "f16", "triton-splitk", tri, lambda: relerr(ct, ref), flop)
        del a, b, c

# ---------------------------------------------------------------- softmax, layer norm
ROW_SHAPES = [(8192, 500), (8192, 1000), (8192, 3000), (4096, 12000), (4096, 16384)]
if DRY:
    ROW_SHAPES = [(16, 100), (8, 300)]
WARPS = [1, 2, 4, 8, 16, 32] if not DRY else [4]

if want("softmax"):
    k_sm = kernel("examples/softmax.tc")
    for R, N in ROW_SHAPES:
        shape = f"{R}x{N}"
        x = torch.randn(R, N, device=dev)
        y = torch.empty_like(x)
        ref = torch.softmax(x.double(), dim=1)
        nbytes = 2 * R * N * 4
        B = next_pow2(N)
        call_args = (x, y, N, N, N)
        macros = dict(TYPE=torch.float32, BLOCK=B, num_warps=WARPS)
        y.fill_(float("nan"))
        ours("softmax", shape, "f32", lambda: k_sm(*call_args, grid=(R,), **macros), lambda: relerr(y, ref),
             nbytes=nbytes, kernel=k_sm, config_args=(call_args, macros), tol=1e-5)
        peer("softmax", shape, "f32", "torch", lambda: torch.softmax(x, dim=1), nbytes=nbytes)
        if HAVE_TRITON:
            yt = torch.empty_like(x)
            peer_best_warps("softmax", shape, lambda w: tri_softmax[(R,)](x, yt, N, N, N, BLOCK=B, num_warps=w),
                            lambda: relerr(yt, ref), nbytes)
        del x, y

if want("layernorm"):
    k_ln = kernel("examples/layernorm.tc")
    for R, N in ROW_SHAPES:
        shape = f"{R}x{N}"
        x = torch.randn(R, N, device=dev) * 2 + 0.5
        w = torch.rand(N, device=dev) + 0.5
        b = torch.rand(N, device=dev) - 0.5
        y = torch.empty_like(x)
        ref = torch.nn.functional.layer_norm(x.double(), (N,), w.double(), b.double(), 1e-5)
        nbytes = 2 * R * N * 4
        B = next_pow2(N)
        call_args = (x, y, w, b, N, N, 1e-5)
        macros = dict(TYPE=torch.float32, BLOCK=B, num_warps=WARPS)
        y.fill_(float("nan"))
        ours("layernorm", shape, "f32", lambda: k_ln(*call_args, grid=(R,), **macros), lambda: relerr(y, ref),
             nbytes=nbytes, kernel=k_ln, config_args=(call_args, macros), tol=1e-5)
        peer("layernorm", shape, "f32", "torch", lambda: torch.nn.functional.layer_norm(x, (N,), w, b, 1e-5),
             nbytes=nbytes)
        if HAVE_TRITON:
            yt = torch.empty_like(x)
            peer_best_warps("layernorm", shape,
                            lambda nw: tri_layernorm[(R,)](x, yt, w, b, N, N, 1e-5, BLOCK=B, num_warps=nw),
                            lambda: relerr(yt, ref), nbytes)
        del x, y

# ---------------------------------------------------------------- conv (paper Table 1, stride 1, no padding)
CONV_TASKS = [(1, 112, 112, 64, 4, 128, 3, 3), (2, 56, 56, 128, 4, 256, 3, 3), (3, 28, 28, 256, 4, 512, 3, 3),
              (4, 14, 14, 512, 4, 512, 3, 3), (5, 7, 7, 512, 4, 512, 3, 3), (6, 161, 700, 1, 8, 64, 5, 5),
              (7, 79, 341, 32, 8, 32, 5, 10)]
if DRY:
    CONV_TASKS = [(1, 9, 8, 8, 2, 20, 3, 3), (6, 12, 14, 1, 1, 5, 5, 5)]
CONV_SPACE = dict(TM=[64, 128], TN=[32, 64, 128, 256], TK=[32, 64], num_warps=[4, 8], num_stages=[2, 3])
CONV_SPLIT_SPACE = dict(TM=[64, 128], TN=[32, 64, 128], TK=[64, 128], SPLIT=[2, 3, 4, 6, 7, 8, 12, 16], num_warps=[4], num_stages=[3])
if DRY:
    CONV_SPACE = dict(TM=[64], TN=[32], TK=[32], num_warps=[4], num_stages=[3])
    CONV_SPLIT_SPACE = dict(TM=[64], TN=[32], TK=[32], SPLIT=[2], num_warps=[4], num_stages=[3])

if want("conv"):
    k_nchw = kernel("examples/conv_implicit_gemm.tc")
    k_nhwc = kernel("examples/conv_nhwc.tc")
    k_nhwc_sk = kernel("examples/conv_nhwc_splitk.tc")
    for t, H, W, C, B, K, R, S in CONV_TASKS:
        shape = f"task{t}:{H}x{W}x{C}>{K},{R}x{S},b{B}"
        P, Q = H - R + 1, W - S + 1
        flop = 2 * B * K * P * Q * C * R * S
        x = torch.randn(B, C, H, W, device=dev, dtype=torch.float16)
        wt = torch.randn(K, C, R, S, device=dev, dtype=torch.float16)
        ref = torch.nn.functional.conv2d(x.double(), wt.double()) if not DRY else \
            torch.nn.functional.conv2d(x.double(), wt.double())
        tol = 1e-2
        # NCHW, the seed's layout.
        y = torch.empty(B, K, P, Q, device=dev, dtype=torch.float16)
        grid = lambda o, B=B, P=P, Q=Q, K=K: (cdiv(B * P * Q, o.d("TM")), cdiv(K, o.d("TN")))
        ca = (x, wt, y, B, C, H, W, K, P, Q, R, S, 0, 0)
        macros = dict(CONV_SPACE, TYPE=torch.float16)
        y.fill_(float("nan"))
        ours("conv_nchw", shape, "f16", lambda: k_nchw(*ca, grid=grid, **macros), lambda: relerr(y, ref), flop,
             kernel=k_nchw, config_args=(ca, macros), tol=tol)
        # NHWC (channels last) with KRSC filters.
        xl = x.permute(0, 2, 3, 1).contiguous()
        wl = wt.permute(0, 2, 3, 1).contiguous()
        yl = torch.empty(B, P, Q, K, device=dev, dtype=torch.float16)
        cl = (xl, wl, yl, B, C, H, W, K, P, Q, R, S, 0, 0)
        yl.fill_(float("nan"))
        ours("conv_nhwc", shape, "f16", lambda: k_nhwc(*cl, grid=grid, **macros),
             lambda: relerr(yl.permute(0, 3, 1, 2), ref), flop, kernel=k_nhwc, config_args=(cl, macros), tol=tol)
        # Split-K (f32 output zeroed first, in the timed call too).
        ys = torch.zeros(B, P, Q, K, device=dev, dtype=torch.float32)
        cs = (xl, wl, ys, B, C, H, W, K, P, Q, R, S, 0, 0)
        ms_ = dict(CONV_SPLIT_SPACE, TYPE=torch.float16)
        grid_s = lambda o, B=B, P=P, Q=Q, K=K: (cdiv(B * P * Q, o.d("TM")), cdiv(K, o.d("TN")), o.d("SPLIT"))
        ours("conv_nhwc", shape, "f16", lambda: k_nhwc_sk(*cs, grid=grid_s, **ms_),
             lambda: relerr(ys.permute(0, 3, 1, 2), ref), flop, kernel=k_nhwc_sk, config_args=(cs, ms_), tol=tol,
             pre=ys.zero_, who="tritonc-splitk")
        if not DRY:
            peer("conv_nchw", shape, "f16", "cudnn", lambda: torch.nn.functional.conv2d(x, wt),
                 lambda: relerr(torch.nn.functional.conv2d(x, wt), ref), flop)
            xcl = x.to(memory_format=torch.channels_last)
            wcl = wt.to(memory_format=torch.channels_last)
            peer("conv_nhwc", shape, "f16", "cudnn", lambda: torch.nn.functional.conv2d(xcl, wcl),
                 lambda: relerr(torch.nn.functional.conv2d(xcl, wcl), ref), flop)
        if HAVE_TRITON:
            yt = torch.empty(B, P, Q, K, device=dev, dtype=torch.float16)
            peer("conv_nhwc", shape, "f16", "triton",
                 lambda: tri_conv_nhwc[lambda m: (cdiv(B * P * Q, m["BM"]), cdiv(K, m["BN"]))](
                     xl, wl, yt, B, C, H, W, K, P, Q, R, S, 0, 0),
                 lambda: relerr(yt.permute(0, 3, 1, 2), ref), flop)
        del x, wt, y, xl, wl, yl, ys, ref

# ---------------------------------------------------------------- attention
ATT = [(4, 32, 4096, 64), (4, 32, 4096, 128)]
if args.quick:
    ATT = [(4, 32, 4096, 64)]
if DRY:
    ATT = [(1, 2, 100, 32)]
ATT_SPACE = dict(BM=[64, 128], BN=[32, 64, 128], num_warps=[4, 8], num_stages=[2, 3])
if DRY:
    ATT_SPACE = dict(BM=[32], BN=[32], num_warps=[4], num_stages=[3])

if want("attention"):
    k_att = kernel("examples/attention.tc")
    for Bt, Hh, L, D in ATT:
        for causal in (False, True):
            shape = f"b{Bt}h{Hh}L{L}d{D}" + ("causal" if causal else "")
            flop = 4 * Bt * Hh * L * L * D // (2 if causal else 1)
            q, k, v, scale, ref = attention_problem(Bt, Hh, L, D, causal, dev)
            o = torch.empty_like(q)
            grid = lambda opt, L=L, Bt=Bt, Hh=Hh: (cdiv(L, opt.d("BM")), Bt * Hh)
            ca = (q, k, v, o, L, scale)
            macros = dict(ATT_SPACE, TYPE=torch.float16, HEAD=D, CAUSAL=int(causal))
            o.fill_(float("nan"))
            ours("attention", shape, "f16", lambda: k_att(*ca, grid=grid, **macros),
                 lambda: relerr(o[:1, :2], ref) if torch.isfinite(o).all() else float("inf"), flop, kernel=k_att,
                 config_args=(ca, macros))
            if not DRY:
                from torch.nn.attention import SDPBackend, sdpa_kernel

                def sdpa():
                    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
                peer("attention", shape, "f16", "torch-flash", sdpa, lambda: relerr(sdpa()[:1, :2], ref), flop)
            if HAVE_TRITON:
                ot = torch.empty_like(q)
                peer("attention", shape, "f16", "triton",
                     lambda: tri_attention[lambda m: (cdiv(L, m["BM"]), Bt * Hh)](
                         q, k, v, ot, L, scale, HEAD=D, CAUSAL=causal),
                     lambda: relerr(ot[:1, :2], ref), flop)
            del q, k, v, o

# ---------------------------------------------------------------- results
result = save_results()

# The summary and the plot (bench/plot_shapes.py: also for merged runs).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_shapes  # noqa: E402

print("\n" + plot_shapes.summary_text(rows))
if not DRY:
    try:
        plot_shapes.plot(rows, os.path.join(args.out, "shapes.png"),
                         f"{result['device']}, {result['date'][:10]}, tritonc {COMMIT}")
    except Exception as e:  # noqa: BLE001
        print("plot failed:", e)
bad = [r for r in rows if plot_shapes.is_ours(r) and not r.get("ms")]
sys.exit(1 if bad and DRY else 0)
