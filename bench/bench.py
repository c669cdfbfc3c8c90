# Side-by-side benchmark on a GPU host: the peers (torch / cuBLAS, Triton) and
# tritonc (through bench/tritonc-bench) on the same workloads, in one run.
#   python3 bench/bench.py BUILD_DIR OUT_DIR   -> OUT_DIR/bench.json, a table on stdout
# Timings are medians of CUDA-event-timed launches after warm-up, with the L2
# cache flushed between launches (triton.testing.do_bench for the peers).
import datetime, json, os, subprocess, sys

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

from commit_label import commit_label  # this folder

build, out_dir = sys.argv[1], sys.argv[2]
dev = torch.device("cuda")
torch.manual_seed(0)


def ms_of(fn):
    return do_bench(fn, warmup=25, rep=100, return_mode="median")


@triton.jit
def tcopy(src, dst, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    keep = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=keep), mask=keep)


@triton.jit
def tadd(a, b, c, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    keep = offs < n
    tl.store(c + offs, tl.load(a + offs, mask=keep) + tl.load(b + offs, mask=keep), mask=keep)


@triton.jit
def ttranspose(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    keep = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(x + rows[:, None] * N + cols[None, :], mask=keep)
    tl.store(y + cols[None, :] * M + rows[:, None], tile, mask=keep)


@triton.jit
def tsoftmax(x, y, n, B: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, B)
    v = tl.load(x + row * n + cols, mask=cols < n, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(y + row * n + cols, e / tl.sum(e, axis=0), mask=cols < n)


@triton.autotune(configs=[triton.Config({"BM": 128, "BN": 128, "BK": 64}, num_stages=4, num_warps=8),
                          triton.Config({"BM": 128, "BN": 256, "BK": 64}, num_stages=3, num_warps=8),
                          triton.Config({"BM": 64, "BN": 128, "BK": 32}, num_stages=4, num_warps=4)],
                 key=["M", "N", "K"])
@triton.jit
def tmatmul(a, b, c, M, N, K, PREC: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k0 + rk)[None, :])
        w = tl.load(b + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(x, w, acc, input_precision=PREC)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(c.dtype.element_ty))


peers = []


def peer(op, sizes, dtype, who, ms, nbytes=0, flop=0):
    peers.append({"op": op, "sizes": sizes, "dtype": dtype, "who": who, "ms": ms,
                  "GBps": nbytes / ms / 1e6 if nbytes else 0, "TFLOPs": flop / ms / 1e9 if flop else 0})


n = 2 ** 28
x = torch.randn(n, device=dev)
y = torch.empty_like(x)
peer("copy", "2^28", "f32", "torch", ms_of(lambda: y.copy_(x)), 2 * n * 4)
peer("copy", "2^28", "f32", "triton", ms_of(lambda: tcopy[(n // 4096,)](x, y, n, B=4096)), 2 * n * 4)
x2, z = torch.randn_like(x), torch.empty_like(x)
peer("add", "2^28", "f32", "torch", ms_of(lambda: torch.add(x, x2, out=z)), 3 * n * 4)
peer("add", "2^28", "f32", "triton", ms_of(lambda: tadd[(n // 4096,)](x, x2, z, n, B=4096)), 3 * n * 4)
del x, y, x2, z
for dt, name in ((torch.float32, "f32"), (torch.float16, "f16")):
    X = torch.randn(8192, 8192, device=dev, dtype=dt)
    Y = torch.empty_like(X)
    nbytes = 2 * X.numel() * X.element_size()
    peer("transpose", "8192x8192", name, "torch", ms_of(lambda: Y.copy_(X.t())), nbytes)
    best = min(ms_of(lambda: ttranspose[(8192 // bm, 8192 // bn)](X, Y, 8192, 8192, BM=bm, BN=bn))
               for bm, bn in ((32, 32), (64, 64), (64, 128)))
    peer("transpose", "8192x8192", name, "triton", best, nbytes)
    del X, Y
for rows, cols in ((8192, 1024), (4096, 16384)):
    X = torch.randn(rows, cols, device=dev)
    Y = torch.empty_like(X)
    nbytes = 2 * X.numel() * 4
    peer("softmax", f"{rows}x{cols}", "f32", "torch", ms_of(lambda: torch.softmax(X, dim=1)), nbytes)
    warps = 4 if cols <= 2048 else 16
    peer("softmax", f"{rows}x{cols}", "f32", "triton",
         ms_of(lambda: tsoftmax[(rows,)](X, Y, cols, B=cols, num_warps=warps)), nbytes)
    del X, Y
for dt, name, prec in ((torch.float16, "f16", "tf32"), (torch.float32, "f32", "ieee")):
    torch.backends.cuda.matmul.allow_tf32 = False
    s = 4096
    A = torch.randn(s, s, device=dev, dtype=dt)
    B = torch.randn(s, s, device=dev, dtype=dt)
    C = torch.empty(s, s, device=dev, dtype=dt)
    flop = 2 * s ** 3
    peer("matmul", "4096x4096x4096", name, "cublas", ms_of(lambda: torch.matmul(A, B)), 0, flop)
    grid = lambda meta: (s // meta["BM"], s // meta["BN"])
    peer("matmul", "4096x4096x4096", name, "triton", ms_of(lambda: tmatmul[grid](A, B, C, s, s, s, PREC=prec)), 0, flop)
    del A, B, C
torch.cuda.synchronize()
torch.cuda.empty_cache()

ours_path = os.path.join(out_dir, "tritonc.json")
proc = subprocess.run([os.path.join(build, "bench", "tritonc-bench"), "--root", ".", "--out", ours_path],
                      capture_output=True, text=True)
print(proc.stdout, proc.stderr, flush=True)
ours = json.load(open(ours_path)) if os.path.exists(ours_path) else []

result = {
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "device": torch.cuda.get_device_name(0),
    "versions": {"torch": torch.__version__, "triton": triton.__version__, "cuda": torch.version.cuda,
                 "tritonc": commit_label()},
    "method": "median of CUDA-event-timed launches after warm-up, L2 flushed between launches",
    "peers": peers,
    "tritonc": ours,
}
json.dump(result, open(os.path.join(out_dir, "bench.json"), "w"), indent=1)

print(f"{'op':10} {'sizes':16} {'dtype':5} {'who':8} {'ms':>9} {'GB/s':>8} {'TFLOP/s':>8}")
rows = [dict(p) for p in peers] + [dict(o, who="tritonc") for o in ours]
rows.sort(key=lambda r: (r["op"], r["sizes"], r["dtype"]))
for r in rows:
    if r.get("ok", True):
        print(f"{r['op']:10} {r['sizes']:16} {r['dtype']:5} {r['who']:8} {r['ms']:9.4f} {r['GBps']:8.1f} {r['TFLOPs']:8.2f}")
    else:
        print(f"{r['op']:10} {r['sizes']:16} {r['dtype']:5} {r['who']:8} FAILED: {r['error'][:80]}")
