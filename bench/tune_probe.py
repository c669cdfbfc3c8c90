# The tuner's view against do_bench's: tunes the user's masked f16 matmul
# (bench/kernels/matmul_masked.tc) over the shapes benchmark's 144-point
# space at one shape with TRITONC_TUNE_VERBOSE=1 (each configuration's
# trial time on stderr), twice: with TRITONC_TUNE_FINAL_MS=0 (final rounds
# of ten runs per finalist, the default before session 27), then as by
# default (final rounds of about 100 ms per finalist, as do_bench's);
# then times the picks and the given configurations with do_bench (L2
# flushed), alternately, three rounds; then each of them as the tuner timed
# before session 27 (ten runs, each waited for) beside do_bench, and tunes
# them alone (their trial times in the log).
#   python3 bench/tune_probe.py OUT_DIR [M,N,K] [TM,TN,TK,warps,stages,ctas ...]
# Writes OUT_DIR/tune_probe.json.
import datetime, json, os, statistics, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out_dir = sys.argv[1]
M, N, K = (int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "8192,8192,8192").split(","))
extra = [tuple(int(x) for x in s.split(",")) for s in sys.argv[3:]] or [(128, 256, 64, 8, 3, 1)]
os.makedirs(out_dir, exist_ok=True)
os.environ["TRITONC_TUNE_VERBOSE"] = "1"

import torch  # noqa: E402
import tritonc  # noqa: E402
from triton.testing import do_bench  # noqa: E402
from commit_label import commit_label  # noqa: E402 (this folder)

SRC = open(os.path.join(ROOT, "bench/kernels/matmul_masked.tc")).read()
SPACE = dict(TM=[64, 128, 256], TN=[64, 128, 256], TK=[32, 64], num_warps=[4, 8], num_stages=[3, 4], num_ctas=[1, 2])
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(K, N, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
ref = a.double() @ b.double()


def cdiv(x, y):
    return -(-x // y)


picks = []
for attempt, final_ms in enumerate(("0", None)):
    os.environ["TRITONC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tritonc-probe-")
    if final_ms:
        os.environ["TRITONC_TUNE_FINAL_MS"] = final_ms
    else:
        os.environ.pop("TRITONC_TUNE_FINAL_MS", None)
    k = tritonc.kernel(SRC, ["C"], filename="bench/kernels/matmul_masked.tc")
    print("== tuning, attempt %d (TRITONC_TUNE_FINAL_MS=%s)" % (attempt + 1, final_ms), file=sys.stderr, flush=True)
    k(a, b, c, M, N, K, K, N, N, grid=lambda o: (cdiv(M, o.d("TM")), cdiv(N, o.d("TN"))), TYPE=torch.float16, **SPACE)
    best = k.config_of(a, b, c, M, N, K, K, N, N, TYPE=torch.float16, **SPACE)
    picks.append(best)
    os.environ.pop("TRITONC_TUNE_FINAL_MS", None)
    print("== pick: %s" % best, file=sys.stderr, flush=True)

configs = {}
for n, text in enumerate(picks):  # "TK=32 TM=64 TN=256 num_ctas=1 num_warps=4 num_stages=3"
    cfg = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in text.split() if kv.split("=")[0] != "TYPE"}
    configs["tuned%s: %s" % (" (final 100 ms)" if n else " (final 10 runs)", text)] = cfg
for TM, TN, TK, w, s, cx in extra:
    configs["%dx%dx%d w%d s%d c%d" % (TM, TN, TK, w, s, cx)] = dict(TM=TM, TN=TN, TK=TK, num_warps=w, num_stages=s,
                                                                   num_ctas=cx)
fixed = {}
for name, cfg in configs.items():
    kk = tritonc.kernel(SRC, ["C"], filename="bench/kernels/matmul_masked.tc")
    fixed[name] = (kk, cfg)
times = {name: [] for name in fixed}
for _ in range(3):
    for name, (kk, cfg) in fixed.items():
        def run(kk=kk, cfg=cfg):
            kk(a, b, c, M, N, K, K, N, N, grid=(cdiv(M, cfg["TM"]), cdiv(N, cfg["TN"])), TYPE=torch.float16, **cfg)
        c.fill_(float("nan"))
        run()
        err = ((c.double() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, (name, err)
        times[name].append(do_bench(run, warmup=25, rep=100, return_mode="median"))
for name, t in times.items():
    print("%-60s %.4f ms (rounds %s)" % (name, statistics.median(t), " ".join("%.4f" % x for x in t)), flush=True)

# The tuner's way of timing (each run alone: flush, run, wait for it; ten
# runs) against do_bench's (flush and run queued back to back, 100 ms), on
# the same compiled kernels, alternately: is the trials' bias in the method?
cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")


def synced_runs(run, n=10):
    out = []
    for _ in range(n):
        cache.zero_()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        run()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e))
    return statistics.median(out)


methods = {name: {"synced x10": [], "do_bench": []} for name in fixed}
for _ in range(3):
    for name, (kk, cfg) in fixed.items():
        def run(kk=kk, cfg=cfg):
            kk(a, b, c, M, N, K, K, N, N, grid=(cdiv(M, cfg["TM"]), cdiv(N, cfg["TN"])), TYPE=torch.float16, **cfg)
        methods[name]["synced x10"].append(synced_runs(run))
        methods[name]["do_bench"].append(do_bench(run, warmup=25, rep=100, return_mode="median"))
for name, m in methods.items():
    print("%-60s %s" % (name, "; ".join("%s %.4f ms (%s)" % (k, statistics.median(v), " ".join("%.4f" % x for x in v))
                                          for k, v in m.items())), flush=True)

# The tuner alone on the picks and the given configurations (no sweep
# before them): their trial times in the log.
os.environ["TRITONC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tritonc-probe-")
small = {key: sorted({cfg[key] for cfg in configs.values()}) for key in SPACE}
print("== tuning the picks and the given configurations alone: %s" % small, file=sys.stderr, flush=True)
k = tritonc.kernel(SRC, ["C"], filename="bench/kernels/matmul_masked.tc")
k(a, b, c, M, N, K, K, N, N, grid=lambda o: (cdiv(M, o.d("TM")), cdiv(N, o.d("TN"))), TYPE=torch.float16, **small)
print("== pick among them: %s" % k.config_of(a, b, c, M, N, K, K, N, N, TYPE=torch.float16, **small), file=sys.stderr,
      flush=True)
print("picks: %s" % picks, flush=True)
json.dump({"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(), "commit": commit_label(),
           "shape": [M, N, K], "picks": picks, "ms": times,
           "methods_ms": methods}, open(os.path.join(out_dir, "tune_probe.json"), "w"),
          indent=1)
