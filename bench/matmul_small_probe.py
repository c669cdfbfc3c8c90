# Where a small matmul's time goes (1000^3, one wave of programs): the
# masked f16 matmul at fixed configurations and cuBLAS at M = N = 1000 over
# K from 64 to 1000 (do_bench medians, L2 flushed): the intercept is the
# fixed cost (launch, prologue, first loads, epilogue), the slope the cost
# of a K step. Then one launch of the timed twin
# (bench/kernels/matmul_timed.py) after an L2 flush: each program's start,
# loop end and store end (%globaltimer) relative to the first start.
# PROBE_KS=1000 sweeps those K only; PROBE_ROUNDS=N repeats the sweep N
# times (cuBLAS and the configurations interleaved in each round), so that
# run-to-run spread shows beside the medians.
#   [PROBE_CONFIGS=64x128x64w4s6c2,...] [PROBE_TIMELINES=N] [PROBE_KS=K,...] [PROBE_ROUNDS=N]
#   python3 bench/matmul_small_probe.py OUT_DIR
# Writes OUT_DIR/matmul_small_probe.json and prints tables.
import datetime, importlib.util, json, os, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out_dir, exist_ok=True)
os.environ.setdefault("TRITONC_CACHE_DIR", tempfile.mkdtemp(prefix="tritonc-probe-cache-"))

import torch  # noqa: E402
import tritonc  # noqa: E402
from tritonc.testing import do_bench  # noqa: E402
from commit_label import commit_label  # noqa: E402 (this folder)

spec = importlib.util.spec_from_file_location("matmul_timed", os.path.join(ROOT, "bench/kernels/matmul_timed.py"))
timed_mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(timed_mod)
masked = tritonc.kernel(open(os.path.join(ROOT, "bench/kernels/matmul_masked.tc")).read())
dev = "cuda"
M = N = 1000
CONFIGS = ((64, 128, 64, 4, 4, 2), (64, 128, 64, 4, 4, 4), (64, 128, 64, 4, 4, 1), (64, 128, 128, 4, 3, 2),
           (128, 128, 64, 4, 4, 2), (128, 64, 64, 4, 4, 2))
# PROBE_CONFIGS="64x128x64w4s6c2,..." times those instead (TMxTNxTK, warps, stages, num_ctas).
if os.environ.get("PROBE_CONFIGS"):
    CONFIGS = tuple(tuple(int(v) for v in c.replace("w", "x").replace("s", "x").replace("c", "x").split("x"))
                    for c in os.environ["PROBE_CONFIGS"].split(","))


def cdiv(a, b):
    return -(-a // b)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


KS = tuple(int(k) for k in os.environ.get("PROBE_KS", "64,128,256,512,1000,2000").split(","))
ROUNDS = int(os.environ.get("PROBE_ROUNDS", 1))
rows = {"k_sweep": [], "timeline": []}
for K in [k for _ in range(ROUNDS) for k in KS]:
    a = torch.randn(M, K, device=dev, dtype=torch.float16)
    b = torch.randn(K, N, device=dev, dtype=torch.float16)
    c = torch.empty(M, N, device=dev, dtype=torch.float16)
    ref = a.double() @ b.double()
    row = {"K": K, "cublas_us": do_bench(lambda: torch.matmul(a, b), return_mode="median") * 1e3}
    for tm, tn, tk, w, s, ctas in CONFIGS:
        call = lambda: masked(a, b, c, M, N, K, K, N, N, grid=(cdiv(M, tm), cdiv(N, tn)),  # noqa: E731
                              TYPE=torch.float16, TM=tm, TN=tn, TK=tk, num_warps=w, num_stages=s, num_ctas=ctas)
        c.fill_(float("nan"))
        call()
        torch.cuda.synchronize()
        err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
        assert err < 1e-2, (K, tm, tn, err)
        row["%dx%dx%d w%d s%d c%d" % (tm, tn, tk, w, s, ctas)] = do_bench(call, return_mode="median") * 1e3
    rows["k_sweep"].append(row)
    print("K %5d " % K + "  ".join("%s %.2f" % (k, v) for k, v in row.items() if k != "K"), flush=True)

flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device=dev)
for tm, tn, tk, w, s, ctas in CONFIGS[:int(os.environ.get("PROBE_TIMELINES", 4))]:
    K = 1000
    a = torch.randn(M, K, device=dev, dtype=torch.float16)
    b = torch.randn(K, N, device=dev, dtype=torch.float16)
    c = torch.empty(M, N, device=dev, dtype=torch.float16)
    grid = (cdiv(M, tm), cdiv(N, tn))
    t = torch.zeros(grid[0] * grid[1] * 4, device=dev, dtype=torch.int64)
    fn = lambda: timed_mod.matmul_timed[grid](a, b, c, t, M, N, K, K, N, N, TM=tm, TN=tn, TK=tk,  # noqa: E731
                                               num_warps=w, num_stages=s, num_ctas=ctas)
    ev_ms = do_bench(fn, return_mode="median")
    runs = []
    for _ in range(5):
        flush.zero_()
        fn()
        torch.cuda.synchronize()
        v = t.view(-1, 4).cpu()
        t0 = v[:, 0].min().item()
        runs.append({"start_spread_us": (v[:, 0].max().item() - t0) / 1e3,
                     "loop_end_us": [median((v[:, 1] - t0).tolist()) / 1e3, (v[:, 1].max().item() - t0) / 1e3],
                     "loop_us_median": median((v[:, 1] - v[:, 0]).tolist()) / 1e3,
                     "store_us_median": median((v[:, 2] - v[:, 1]).tolist()) / 1e3,
                     "end_us_max": (v[:, 2].max().item() - t0) / 1e3,
                     "sms": len(set(v[:, 3].tolist()))})
    cfg = "%dx%dx%d w%d s%d c%d" % (tm, tn, tk, w, s, ctas)
    rows["timeline"].append({"config": cfg, "event_us": ev_ms * 1e3, "runs": runs})
    r = runs[len(runs) // 2]
    print("%s: event %.2f us; start spread %.2f, loop %.2f (median), loop end median/max %.2f/%.2f, store %.2f, "
          "last end %.2f us, %d SMs" % (cfg, ev_ms * 1e3, r["start_spread_us"], r["loop_us_median"],
                                         r["loop_end_us"][0], r["loop_end_us"][1], r["store_us_median"],
                                         r["end_us_max"], r["sms"]), flush=True)

out = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
       "commit": commit_label(), "versions": {"torch": torch.__version__, "tritonc": tritonc.version()},
       "method": "do_bench medians (CUDA events, L2 flushed); timeline: %globaltimer in the kernel, one launch after "
                 "an L2 flush, five launches (the middle one printed)", **rows}
with open(os.path.join(out_dir, "matmul_small_probe.json"), "w") as f:
    json.dump(out, f, indent=1)
