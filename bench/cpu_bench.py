# Side-by-side CPU benchmark on this host: numpy and PyTorch's CPU ops (the
# peers) and tritonc's CPU back end (through bench/tritonc-cpu-bench, which
# times the compiled kernels from C++ on buffers it owns, so that neither
# Python nor the copies the Python package makes of host arrays are timed),
# plus the interpreter, the machine's floors, and a matmul's cold compile and
# disk-cache load, in one run. Each workload's peers and tritonc run one
# right after the other, so that a change in the machine's load (other
# people's builds) hits them alike.
#   .venv/bin/python bench/cpu_bench.py BUILD_DIR [OUT.json]
# OUT defaults to bench/results/cpu-<date>-<commit>.json. Timings are medians
# of repeated calls after a warm-up; the load average before and after is
# recorded, since other work on the machine inflates them.
import datetime, json, os, platform, subprocess, sys, time

import numpy as np
import torch

from commit_label import commit_label  # this folder

build = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
commit = commit_label()
date = datetime.datetime.now(datetime.timezone.utc)
out_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    root, "bench", "results", f"cpu-{date.strftime('%Y-%m-%d')}-{commit}.json")
threads = os.cpu_count()
torch.set_num_threads(threads)  # Debian's torch starts with one thread here


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(v) for v in f.read().split()[:3]]


def median_ms(fn, seconds=1.0, min_runs=3, max_runs=50):
    fn()  # warm-up
    times = []
    start = time.perf_counter()
    while len(times) < max_runs and (len(times) < min_runs or time.perf_counter() - start < seconds):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2], times[0], len(times)


peers = []


def peer(op, sizes, who, fn, nbytes=0, flops=0, note="", min_runs=3):
    ms, best, runs = median_ms(fn, min_runs=min_runs)
    peers.append({"op": op, "sizes": sizes, "dtype": "f32", "who": who, "ms": ms, "min_ms": best, "runs": runs,
                  "load1": loadavg()[0],
                  "GBps": nbytes / ms / 1e6 if nbytes else 0, "GFLOPs": flops / ms / 1e6 if flops else 0,
                  **({"note": note} if note else {})})
    print(f"  {op:10} {sizes:16} {who:24} {ms:9.3f} ms", flush=True)


ours = {"results": []}
bench_binary = os.path.join(build, "bench", "tritonc-cpu-bench")


def tritonc_run(*flags):
    """Runs tritonc-cpu-bench with `flags`; merges its results into `ours`."""
    path = out_path + ".tritonc.tmp"
    proc = subprocess.run([bench_binary, "--root", root, "--out", path, *flags], capture_output=True, text=True)
    print(proc.stdout, proc.stderr, end="", flush=True)
    if not os.path.exists(path):
        return
    part = json.load(open(path))
    os.remove(path)
    load1 = loadavg()[0]
    ours["results"] += [dict(r, load1=load1) for r in part.pop("results", [])]
    ours.update(part)


def tritonc_native(op):
    tritonc_run("--filter", op, "--no-interp", "--no-machine", "--no-compile")


load_before = loadavg()
rng = np.random.default_rng()
print("peers:", flush=True)
n = 2 ** 26
a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
c = np.empty_like(a)
ta, tb, tc = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c)
peer("copy", "2^26", "numpy", lambda: np.copyto(c, a), 2 * n * 4)
peer("copy", "2^26", "torch", lambda: tc.copy_(ta), 2 * n * 4)
peer("add", "2^26", "numpy", lambda: np.add(a, b, out=c), 3 * n * 4)
peer("add", "2^26", "torch", lambda: torch.add(ta, tb, out=tc), 3 * n * 4)
del a, b, c, ta, tb, tc
tritonc_native("copy")
tritonc_native("add")

rows, cols = 4096, 1024
x = rng.standard_normal((rows, cols), dtype=np.float32)
y = np.empty_like(x)
tx = torch.from_numpy(x)
nbytes = 2 * x.size * 4


def np_softmax():
    np.subtract(x, x.max(axis=1, keepdims=True), out=y)
    np.exp(y, out=y)
    np.divide(y, y.sum(axis=1, keepdims=True), out=y)


peer("softmax", "4096x1024", "numpy", np_softmax, nbytes)
ty = torch.from_numpy(y)
peer("softmax", "4096x1024", "torch", lambda: torch.ops.aten._softmax.out(tx, 1, False, out=ty), nbytes,
     note="torch.softmax's kernel writing into an existing tensor (aten::_softmax.out)")
tritonc_native("softmax")
w, bias = rng.standard_normal(cols, dtype=np.float32), rng.standard_normal(cols, dtype=np.float32)
tw, tbias = torch.from_numpy(w), torch.from_numpy(bias)


def np_layernorm():
    mean = x.mean(axis=1, keepdims=True)
    np.subtract(x, mean, out=y)
    rstd = 1 / np.sqrt((y * y).mean(axis=1, keepdims=True) + 1e-5)
    np.multiply(y, rstd, out=y)
    np.multiply(y, w, out=y)
    np.add(y, bias, out=y)


peer("layernorm", "4096x1024", "numpy", np_layernorm, nbytes)
peer("layernorm", "4096x1024", "torch", lambda: torch.nn.functional.layer_norm(tx, (cols,), tw, tbias, 1e-5), nbytes)
del x, y, tx, ty
tritonc_native("layernorm")

m = 4096
X = rng.standard_normal((m, m), dtype=np.float32)
Y = np.empty_like(X)
TX, TY = torch.from_numpy(X), torch.from_numpy(Y)
peer("transpose", "4096x4096", "numpy", lambda: np.copyto(Y, X.T), 2 * X.size * 4)
peer("transpose", "4096x4096", "torch", lambda: TY.copy_(TX.t()), 2 * X.size * 4)
del X, Y, TX, TY
tritonc_native("transpose")

for s in (1024, 2048):
    A, B = rng.standard_normal((s, s), dtype=np.float32), rng.standard_normal((s, s), dtype=np.float32)
    C = np.empty_like(A)
    TA, TB, TC = torch.from_numpy(A), torch.from_numpy(B), torch.from_numpy(C)
    flops = 2 * s ** 3
    sizes = f"{s}x{s}x{s}"
    slow = 2 if s > 1024 else 3  # the reference BLAS takes seconds
    peer("matmul", sizes, "numpy", lambda: np.matmul(A, B, out=C), 0, flops, min_runs=slow)
    peer("matmul", sizes, "torch", lambda: torch.mm(TA, TB, out=TC), 0, flops, "torch.mm: the BLAS torch links",
         min_runs=slow)
    # oneDNN (the JIT-compiled GEMM inside torch) through its linear layer:
    # A @ B = linear(A, B^T). Operands in its blocked layout, converted before timing.
    MA, MB = TA.to_mkldnn(), TB.t().contiguous().to_mkldnn()
    peer("matmul", sizes, "torch-onednn", lambda: torch._C._nn.mkldnn_linear(MA, MB), 0, flops,
         "oneDNN's GEMM (torch._C._nn.mkldnn_linear), operands converted to its layout before timing")
    del A, B, C, TA, TB, TC, MA, MB
tritonc_native("matmul")

print("tritonc: the machine's floors, the interpreter, compile and cache:", flush=True)
tritonc_run("--no-native")
load_after = loadavg()


def cpu_model():
    with open("/proc/cpuinfo") as f:
        fields = dict(line.split(":", 1) for line in f if ":" in line)
    flags = fields.get("flags\t\t", fields.get("flags", "")).split()
    return {"model": fields.get("model name\t", "").strip(), "family": fields.get("cpu family\t", "").strip(),
            "model_number": fields.get("model\t\t", "").strip(),
            "vector": [f for f in ("avx512f", "avx512bw", "avx512vl", "avx2", "fma", "f16c") if f in flags]}


tritonc_version = "unknown"
try:
    sys.path.insert(0, os.path.join(build, "python"))
    import tritonc
    tritonc_version = tritonc.version()
except Exception:
    pass

result = {
    "date": date.strftime("%Y-%m-%dT%H:%M:%SZ"),
    "machine": {"host": platform.node(), "cores": threads, "cpu": cpu_model(), **ours.get("machine", {})},
    "commit": commit,
    "versions": {"tritonc": tritonc_version, "llvm": ours.get("llvm", "").strip(), "python": platform.python_version(),
                 "numpy": np.__version__, "torch": torch.__version__,
                 "torch_blas": "netlib reference BLAS (Debian python3-torch: BLAS_INFO=generic)"
                 if "BLAS_INFO=generic" in torch.__config__.show() else "see torch.__config__.show()"},
    "load": {"before": load_before, "after": load_after},
    "method": "median (ms) and fastest (min_ms) wall time of repeated calls after a warm-up (peers: Python "
              "perf_counter around the call; tritonc: C++ steady_clock around CpuKernel::run on its own buffers; "
              "cpu_ms: process CPU time). The machine's 2 cores are shared: a thread that waits for a core taken "
              "by another process waits a scheduler slice, so medians of multi-threaded calls jump (torch's "
              "softmax: 1.4 or 8 ms); the fastest call is what the machine does when left alone",
    "threads": {"torch": torch.get_num_threads(), "tritonc": ours.get("threads"), "numpy": "1 (element-wise)"},
    "host_llvm": ours.get("host"),
    "jit_startup_ms": ours.get("jit_startup_ms"),
    "compile": ours.get("compile"),
    "peers": peers,
    "tritonc": ours.get("results", []),
}
os.makedirs(os.path.dirname(out_path), exist_ok=True)
with open(out_path, "w") as f:
    json.dump(result, f, indent=1)

# The table: each workload's best peer beside tritonc's CPU back end.
print(f"\n{'op':10} {'sizes':16} {'who':24} {'ms':>9} {'min ms':>9} {'GB/s':>7} {'GFLOP/s':>8} "
      f"{'best peer / ours (median, min)':>30}")
ours_native = [r for r in result["tritonc"] if r["who"] == "tritonc-cpu"]
for r in ours_native + peers:
    same = [p for p in peers if p["op"] == r["op"] and p["sizes"] == r["sizes"]]
    ratio = ""
    if r["who"] == "tritonc-cpu" and r.get("ms") and same:
        ratio = f"{min(p['ms'] for p in same) / r['ms']:.2f}x, {min(p['min_ms'] for p in same) / r['min_ms']:.2f}x"
    print(f"{r['op']:10} {r['sizes']:16} {r['who']:24} {r.get('ms', 0):9.3f} {r.get('min_ms', 0):9.3f} "
          f"{r.get('GBps', 0):7.1f} {r.get('GFLOPs', 0):8.1f} {ratio:>30}")
for r in result["tritonc"]:
    if r["who"] == "tritonc-interp":
        print(f"{r['op']:10} {r['sizes']:16} {'tritonc-interp':24} {r['ms']:9.3f} {r['GBps']:7.3f} "
              f"{r['GFLOPs']:8.3f}  (stands for {r.get('scaled_from')})")
print(f"load average before {load_before}, after {load_after}; written to {out_path}")
