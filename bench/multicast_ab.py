# Multicast on and off, side by side: the user's masked f16 matmul
# (bench/kernels/matmul_masked.tc) at fixed configurations, with num_ctas=2
# (B's boxes multicast to pairs of programs along M in clusters of two,
# gpu-multicast), num_ctas=4 (A's boxes too, to pairs along N, in clusters
# of 2 x 2) and num_ctas=1, timed alternately in three rounds (triton.testing.do_bench: medians of
# CUDA-event-timed launches, L2 flushed), cuBLAS in the same rounds, each
# result checked against float64.
#   python3 bench/multicast_ab.py OUT_DIR
# Writes OUT_DIR/multicast_ab.json and prints a table.
import datetime, json, os, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out_dir, exist_ok=True)
os.environ.setdefault("TRITONC_CACHE_DIR", tempfile.mkdtemp(prefix="tritonc-multicast-cache-"))

import torch  # noqa: E402
import tritonc  # noqa: E402
from triton.testing import do_bench  # noqa: E402
from commit_label import commit_label  # noqa: E402 (this folder)

SRC = open(os.path.join(ROOT, "bench/kernels/matmul_masked.tc")).read()
# (M, N, K, [(TM, TN, TK, warps, stages)]): the configurations our tuner
# chose for these shapes in earlier runs, and a neighbour.
CASES = [
    (1760, 7000, 1760, [(128, 256, 64, 8, 3), (128, 128, 64, 8, 4)]),
    (2560, 7000, 2560, [(128, 256, 64, 8, 3)]),
    (4096, 4096, 4096, [(128, 256, 64, 8, 3)]),
    (1000, 1000, 1000, [(64, 128, 64, 4, 4), (128, 128, 64, 8, 5)]),
    (8192, 8192, 8192, [(128, 256, 64, 8, 4)]),
    (4096, 1024, 1024, [(128, 256, 64, 8, 3), (128, 128, 64, 8, 4)]),
]


def cdiv(a, b):
    return -(-a // b)


rows = []
NAMES = {2: "multicast", 1: "without", 4: "clusters 2x2"}  # by num_ctas
for M, N, K, configs in CASES:
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    ref = a.double() @ b.double()
    flop = 2 * M * N * K
    for TM, TN, TK, warps, stages in configs:
        c = {n: torch.empty(M, N, device="cuda", dtype=torch.float16) for n in NAMES}
        kernel = tritonc.kernel(SRC, filename="matmul_masked.tc")
        grid = (cdiv(M, TM), cdiv(N, TN))

        def launch(n):
            kernel(a, b, c[n], M, N, K, K, N, N, grid=grid, TYPE=torch.float16, TM=TM, TN=TN, TK=TK,
                   num_warps=warps, num_stages=stages, num_ctas=n)
        err = {}
        for n in NAMES:
            c[n].fill_(float("nan"))
            launch(n)
            torch.cuda.synchronize()
            err[NAMES[n]] = ((c[n].double() - ref).abs().max() / ref.abs().max()).item()
        rounds = {name: [] for name in NAMES.values()}
        rounds["cublas"] = []
        for _ in range(3):
            for n, name in NAMES.items():
                rounds[name].append(do_bench(lambda n=n: launch(n), warmup=25, rep=100, return_mode="median"))
            rounds["cublas"].append(do_bench(lambda: torch.matmul(a, b), warmup=25, rep=100, return_mode="median"))
        med = {k: sorted(v)[1] for k, v in rounds.items()}
        row = dict(shape=f"{M}x{N}x{K}", config=f"TM={TM} TN={TN} TK={TK} num_warps={warps} num_stages={stages}",
                   grid=grid, pairs=grid[0] % 2 == 0, ms=rounds, errors=err,
                   tflops={k: flop / v / 1e9 for k, v in med.items()},
                   of_cublas={k: med["cublas"] / v for k, v in med.items() if k != "cublas"})
        rows.append(row)
        print(f"{row['shape']:16} {row['config']:44} grid {grid[0]:3} x {grid[1]:3}  " +
              "  ".join(f"{name} {med[name]:.4f} ms ({row['of_cublas'][name]:.3f})" for name in NAMES.values()) +
              f"  cublas {med['cublas']:.4f}  err {max(err.values()):.1e}", flush=True)
        assert max(err.values()) <= 1e-2, err


json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "device": torch.cuda.get_device_name(),
           "commit": commit_label(), "torch": torch.__version__, "tritonc": tritonc.version(),
           "method": "do_bench medians (warm-up 25 ms, 100 ms, L2 flushed), three alternating rounds; the median "
                     "round is reported", "rows": rows},
          open(os.path.join(out_dir, "multicast_ab.json"), "w"), indent=1)
