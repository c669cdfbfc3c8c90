# A compiler switch A/B on the Triton-C kernels of the shapes benchmark whose
# loops copy into rings read by the tensor cores: the user's masked matmul
# (bench/kernels/matmul_masked.tc) at configurations the tuners pick, the
# NHWC implicit-GEMM convolution (paper tasks 1-7, and its split-K form where
# that is the faster one) and the fused attention forward, each at the
# configuration the shapes benchmark's tuner chose on the H200 (4c1bc47).
# Each kernel is compiled twice, with the environment variable NAME=VALUE
# set and without (two kernel objects, kernel caches apart), checked against
# float64 (output poisoned first), then timed alternately, ROUNDS rounds.
#   python3 bench/switch_ab.py OUT_DIR NAME=VALUE [--rounds 3] [--only matmul,tf32,f32,conv,attention,attention-s3] [--dry]
# Writes OUT_DIR/switch_ab.json; prints one line per kernel and shape.
import argparse, datetime, json, os, statistics, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("switch", help="NAME=VALUE, set while the B kernels compile")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--only", default="matmul,conv,attention",
                help="the groups to run, comma-separated, among matmul, tf32, f32, conv, attention, attention-s3")
ap.add_argument("--dry", action="store_true", help="tiny sizes on the CPU, no timing worth reading")
args = ap.parse_args()
NAME, _, VALUE = args.switch.partition("=")
os.makedirs(args.out, exist_ok=True)
os.environ.setdefault("TRITONC_CACHE_DIR", tempfile.mkdtemp(prefix="tritonc-ab-cache-"))

import torch  # noqa: E402
import tritonc  # noqa: E402
from attention_problem import attention_problem  # noqa: E402 (this folder)
from commit_label import commit_label  # noqa: E402 (this folder)

dev = torch.device("cpu" if args.dry else "cuda")
if args.dry:
    def do_bench(fn):
        fn()
        return 0.0
else:
    from triton.testing import do_bench as _do_bench

    def do_bench(fn):
        return _do_bench(fn, warmup=25, rep=100, return_mode="median")


def cdiv(a, b):
    return -(-a // b)


def kernel(path, allow_tf32=False):
    with open(os.path.join(ROOT, path)) as f:
        return tritonc.kernel(f.read(), filename=path, allow_tf32=allow_tf32)


def relerr(out, ref):
    out = out.double()
    if not torch.isfinite(out).all():
        return float("inf")
    return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def compiled_both(path, run, check, pre=None, allow_tf32=False):
    """Two kernel objects of `path`, the second compiled (its first call)
    with the switch set; each checked. run(k) launches one."""
    pair = []
    for with_switch in (False, True):
        k = kernel(path, allow_tf32)
        saved = os.environ.get(NAME)
        if with_switch:
            os.environ[NAME] = VALUE
        try:
            if pre:
                pre()
            run(k)
        finally:
            if with_switch:
                if saved is None:
                    os.environ.pop(NAME, None)
                else:
                    os.environ[NAME] = saved
        if pre:
            pre()
        run(k)
        err = check()
        if not err <= 1e-2:
            raise RuntimeError("%s%s: relative error %.3e" % (path, " with " + args.switch if with_switch else "", err))
        pair.append(k)
    return pair


rows = []


def ab(label, shape, path, run, check, flop, pre=None, allow_tf32=False):
    a, b = compiled_both(path, run, check, pre, allow_tf32)
    times = {"without": [], "with": []}
    for _ in range(args.rounds):
        for tag, k in (("without", a), ("with", b)):
            times[tag].append(do_bench((lambda k=k: (pre(), run(k))) if pre else (lambda k=k: run(k))))
    med = {t: statistics.median(v) for t, v in times.items()}
    ratio = med["without"] / med["with"] if med["with"] else float("nan")
    rows.append({"kernel": label, "shape": shape, "ms": times, "median_ms": med, "tflops": {
        t: (flop / m / 1e9 if m else None) for t, m in med.items()}, "speedup_with": ratio})
    print("%-12s %-26s without %.4f ms  with %s %.4f ms  (%.3fx)" % (label, shape, med["without"], args.switch,
                                                                     med["with"], ratio), flush=True)


GROUPS = args.only.split(",")

# The masked matmul, f16: (M, N, K, configuration).
MATMUL = [(4096, 4096, 4096, dict(TM=128, TN=128, TK=64, num_warps=4, num_stages=3)),
          (4096, 4096, 4096, dict(TM=128, TN=128, TK=64, num_warps=8, num_stages=3)),
          (4096, 4096, 4096, dict(TM=128, TN=256, TK=64, num_warps=8, num_stages=3)),
          (4096, 4096, 4096, dict(TM=64, TN=128, TK=64, num_warps=4, num_stages=4)),
          (4096, 4096, 4096, dict(TM=128, TN=256, TK=64, num_warps=8, num_stages=4)),
          (8192, 8192, 8192, dict(TM=128, TN=256, TK=64, num_warps=8, num_stages=3)),
          (8192, 8192, 8192, dict(TM=128, TN=256, TK=64, num_warps=8, num_stages=4)),
          (8192, 8192, 8192, dict(TM=128, TN=256, TK=64, num_warps=8, num_stages=4, num_ctas=2)),
          (8192, 8192, 8192, dict(TM=128, TN=128, TK=64, num_warps=4, num_stages=3)),
          (4096, 4096, 4096, dict(TM=128, TN=256, TK=32, num_warps=8, num_stages=4, num_ctas=2)),
          (2560, 7000, 2560, dict(TM=128, TN=256, TK=64, num_warps=8, num_stages=4, num_ctas=2)),
          (1760, 7000, 1760, dict(TM=128, TN=128, TK=64, num_warps=8, num_stages=4, num_ctas=2)),
          (1000, 1000, 1000, dict(TM=64, TN=128, TK=64, num_warps=4, num_stages=4, num_ctas=2)),
          (1000, 1000, 1000, dict(TM=64, TN=128, TK=64, num_warps=4, num_stages=5, num_ctas=2))]
# f32 with tf32 inputs (B stored K x N: from registers, the transposed
# product), the Python DSL tutorial's tiles and the shapes benchmark's picks.
MATMUL_TF32 = [(4096, 4096, 4096, dict(TM=64, TN=128, TK=32, num_warps=4, num_stages=4)),
               (4096, 4096, 4096, dict(TM=256, TN=128, TK=32, num_warps=8, num_stages=3)),
               (4096, 4096, 4096, dict(TM=128, TN=256, TK=32, num_warps=8, num_stages=3)),
               (1000, 1000, 1000, dict(TM=64, TN=128, TK=32, num_warps=4, num_stages=4)),
               (1000, 1000, 1000, dict(TM=128, TN=64, TK=32, num_warps=4, num_stages=4, num_ctas=2))]
# f32 without tf32 (FMA on the cores): the tuners' picks and cuBLAS's tiles.
MATMUL_F32 = [(4096, 4096, 4096, dict(TM=128, TN=256, TK=32, num_warps=8, num_stages=3)),
              (4096, 4096, 4096, dict(TM=128, TN=256, TK=32, num_warps=8, num_stages=4)),
              (4096, 4096, 4096, dict(TM=128, TN=128, TK=32, num_warps=4, num_stages=3)),
              (4096, 4096, 4096, dict(TM=128, TN=128, TK=16, num_warps=4, num_stages=4)),
              (4096, 4096, 4096, dict(TM=128, TN=128, TK=32, num_warps=8, num_stages=3)),
              (4096, 4096, 4096, dict(TM=64, TN=64, TK=32, num_warps=4, num_stages=3)),
              (4096, 4096, 4096, dict(TM=128, TN=64, TK=32, num_warps=4, num_stages=3)),
              (4096, 4096, 4096, dict(TM=64, TN=128, TK=32, num_warps=4, num_stages=2)),
              (4096, 4096, 4096, dict(TM=128, TN=64, TK=32, num_warps=4, num_stages=2)),
              (1760, 7000, 1760, dict(TM=128, TN=256, TK=32, num_warps=8, num_stages=4)),
              (1760, 7000, 1760, dict(TM=128, TN=128, TK=32, num_warps=4, num_stages=3))]
if args.dry:
    MATMUL = [(77, 45, 50, dict(TM=64, TN=32, TK=16, num_warps=4, num_stages=3))]
    MATMUL_TF32 = [(77, 45, 50, dict(TM=64, TN=32, TK=16, num_warps=4, num_stages=3))]
    MATMUL_F32 = [(77, 45, 50, dict(TM=64, TN=32, TK=16, num_warps=4, num_stages=3))]
for dt, label, cases in ((torch.float16, "matmul", MATMUL if "matmul" in GROUPS else []),
                         (torch.float32, "matmul-tf32", MATMUL_TF32 if "tf32" in GROUPS else []),
                         (torch.float32, "matmul-f32", MATMUL_F32 if "f32" in GROUPS else [])):
    for M, N, K, cfg in cases:
        a = torch.randn(M, K, device=dev, dtype=dt)
        b = torch.randn(K, N, device=dev, dtype=dt)
        c = torch.empty(M, N, device=dev, dtype=dt)
        ref = a.double() @ b.double()
        shape = "%dx%dx%d %dx%dx%d w%d s%d c%d" % (M, N, K, cfg["TM"], cfg["TN"], cfg["TK"], cfg["num_warps"],
                                                   cfg["num_stages"], cfg.get("num_ctas", 1))
        ab(label, shape, "bench/kernels/matmul_masked.tc",
           lambda k, a=a, b=b, c=c, M=M, N=N, K=K, cfg=cfg, dt=dt:
               k(a, b, c, M, N, K, K, N, N, grid=(cdiv(M, cfg["TM"]), cdiv(N, cfg["TN"])), TYPE=dt, **cfg),
           lambda c=c, ref=ref: relerr(c, ref), 2 * M * N * K, pre=lambda c=c: c.fill_(float("nan")),
           allow_tf32=label == "matmul-tf32")
        if label == "matmul-f32" and not args.dry:  # the peer in the same run: cuBLAS's SGEMM (no tf32)
            torch.backends.cuda.matmul.allow_tf32 = False
            ms = statistics.median(do_bench(lambda a=a, b=b: torch.matmul(a, b)) for _ in range(args.rounds))
            rows.append({"kernel": "cublas-f32", "shape": "%dx%dx%d" % (M, N, K), "median_ms": ms,
                         "tflops": 2 * M * N * K / ms / 1e9})
            print("%-12s %-26s %.4f ms" % ("cublas-f32", "%dx%dx%d" % (M, N, K), ms), flush=True)
        del a, b, c, ref

# The paper's Table 1 tasks: (task, H, W, C, batch, K, R, S), with the
# configuration the tuner chose (conv_nhwc, or conv_nhwc_splitk where faster).
CONV = [(1, 112, 112, 64, 4, 128, 3, 3, dict(TM=128, TN=128, TK=64, num_warps=8, num_stages=2), None),
        (2, 56, 56, 128, 4, 256, 3, 3, dict(TM=128, TN=256, TK=64, num_warps=8, num_stages=3), None),
        (3, 28, 28, 256, 4, 512, 3, 3, dict(TM=64, TN=128, TK=64, num_warps=4, num_stages=3), None),
        (4, 14, 14, 512, 4, 512, 3, 3, dict(TM=64, TN=128, TK=64, num_warps=4, num_stages=3), 7),
        (5, 7, 7, 512, 4, 512, 3, 3, dict(TM=64, TN=128, TK=128, num_warps=4, num_stages=3), 12),
        (6, 161, 700, 1, 8, 64, 5, 5, dict(TM=128, TN=64, TK=32, num_warps=4, num_stages=3), None),
        (7, 79, 341, 32, 8, 32, 5, 10, dict(TM=128, TN=64, TK=64, num_warps=4, num_stages=2), None)]
if args.dry:
    CONV = [(1, 9, 8, 16, 2, 32, 3, 3, dict(TM=64, TN=32, TK=32, num_warps=4, num_stages=3), None),
            (4, 6, 6, 32, 1, 32, 3, 3, dict(TM=64, TN=32, TK=32, num_warps=4, num_stages=3), 2)]
for t, H, W, C, B, K, R, S, cfg, split in CONV if "conv" in GROUPS else []:
    P, Q = H - R + 1, W - S + 1
    flop = 2 * B * K * P * Q * C * R * S
    x = torch.randn(B, C, H, W, device=dev, dtype=torch.float16)
    wt = torch.randn(K, C, R, S, device=dev, dtype=torch.float16)
    ref = torch.nn.functional.conv2d(x.double(), wt.double())
    xl, wl = x.permute(0, 2, 3, 1).contiguous(), wt.permute(0, 2, 3, 1).contiguous()
    shape = "task%d:%dx%dx%d>%d,%dx%d,b%d" % (t, H, W, C, K, R, S, B)
    if split is None:
        y = torch.empty(B, P, Q, K, device=dev, dtype=torch.float16)
        grid = (cdiv(B * P * Q, cfg["TM"]), cdiv(K, cfg["TN"]))
        ab("conv_nhwc", shape, "examples/conv_nhwc.tc",
           lambda k, y=y, grid=grid, a=(xl, wl, B, C, H, W, K, P, Q, R, S), cfg=cfg:
               k(a[0], a[1], y, *a[2:], 0, 0, grid=grid, TYPE=torch.float16, **cfg),
           lambda y=y, ref=ref: relerr(y.permute(0, 3, 1, 2), ref), flop, pre=lambda y=y: y.fill_(float("nan")))
    else:
        y = torch.zeros(B, P, Q, K, device=dev, dtype=torch.float32)
        grid = (cdiv(B * P * Q, cfg["TM"]), cdiv(K, cfg["TN"]), split)
        ab("conv_splitk", shape, "examples/conv_nhwc_splitk.tc",
           lambda k, y=y, grid=grid, a=(xl, wl, B, C, H, W, K, P, Q, R, S), cfg=cfg, split=split:
               k(a[0], a[1], y, *a[2:], 0, 0, grid=grid, TYPE=torch.float16, SPLIT=split, **cfg),
           lambda y=y, ref=ref: relerr(y.permute(0, 3, 1, 2), ref), flop, pre=y.zero_)

# The fused attention forward (examples/attention.tc), batch 4, 32 heads.
# (batch, heads, length, head dim, num_stages)
ATT = [(4, 32, 4096, 64, 2), (4, 32, 4096, 128, 2)] if not args.dry else [(1, 2, 128, 32, 2)]
if "attention-s3" in GROUPS:  # 3 stages: at head dim 128 the extra stage costs the second program
    ATT = [(4, 32, 4096, 128, 3)] if not args.dry else [(1, 2, 128, 32, 3)]
for Bt, Hh, L, D, stages in ATT if "attention" in GROUPS or "attention-s3" in GROUPS else []:
    for causal in (False, True):
        q, k_, v, scale, ref = attention_problem(Bt, Hh, L, D, causal, dev)
        o = torch.empty_like(q)
        bm = 64 if not args.dry else 32
        ab("attention", "b%dh%dL%dd%d%s s%d" % (Bt, Hh, L, D, "causal" if causal else "", stages),
           "examples/attention.tc",
           lambda k, q=q, kk=k_, v=v, o=o, L=L, scale=scale, D=D, causal=causal, Bt=Bt, Hh=Hh, bm=bm, stages=stages:
               k(q, kk, v, o, L, scale, grid=(cdiv(L, bm), Bt * Hh), TYPE=torch.float16, HEAD=D, CAUSAL=int(causal),
                 BM=bm, BN=bm, num_warps=4, num_stages=stages),
           lambda o=o, ref=ref: relerr(o[:1, :2], ref), 4 * Bt * Hh * L * L * D // (2 if causal else 1),
           pre=lambda o=o: o.fill_(float("nan")))

doc = {"date": datetime.date.today().isoformat(), "device": "cpu (dry)" if args.dry else torch.cuda.get_device_name(),
       "commit": commit_label(), "switch": args.switch, "rounds": args.rounds,
       "versions": {"torch": torch.__version__, "tritonc": tritonc.version()},
       "timing": "triton.testing.do_bench median per round (CUDA events, L2 flushed); A and B alternately",
       "rows": rows}
with open(os.path.join(args.out, "switch_ab.json"), "w") as f:
    json.dump(doc, f, indent=1)
