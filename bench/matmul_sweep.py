# Every configuration of the user's masked f16 matmul
# (bench/kernels/matmul_masked.tc) at a few shapes, each checked against
# float64 and timed (do_bench median, L2 flushed); then the best eight again
# in three rounds alternating with cuBLAS, whose kernel (by name) is read
# from torch's profiler. It shows how far the tuning space is from the peer
# and what the peer runs, where a tuner's choice alone does not.
#   python3 bench/matmul_sweep.py OUT_DIR [M,N,K ...]     (default 1000,1000,1000)
# SWEEP_DTYPE=f32: the f32 kernel without tf32 (FMA on the cores) beside
# cuBLAS's SGEMM, over its own space (TK 16 and 32, one program a cluster).
# Writes OUT_DIR/matmul_sweep.json and prints tables.
import datetime, itertools, json, os, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
shapes = [tuple(int(x) for x in s.split(",")) for s in sys.argv[2:]] or [(1000, 1000, 1000)]
os.makedirs(out_dir, exist_ok=True)
os.environ.setdefault("TRITONC_CACHE_DIR", tempfile.mkdtemp(prefix="tritonc-sweep-cache-"))

import torch  # noqa: E402
import tritonc  # noqa: E402
from triton.testing import do_bench  # noqa: E402
from commit_label import commit_label  # noqa: E402 (this folder)

SRC = open(os.path.join(ROOT, "bench/kernels/matmul_masked.tc")).read()
F32 = os.environ.get("SWEEP_DTYPE", "f16") == "f32"
DT = torch.float32 if F32 else torch.float16
ESIZE = 4 if F32 else 2
TOL = 1e-4 if F32 else 1e-2
torch.backends.cuda.matmul.allow_tf32 = False
SMEM = 227 * 1024  # an H100's shared memory per block


def cdiv(a, b):
    return -(-a // b)


def configs():
    space = (((64, 128), (64, 128, 256), (16, 32), (4, 8), (2, 3, 4), (1,)) if F32 else
             ((64, 128), (64, 128, 256), (32, 64, 128), (4, 8), (2, 3, 4, 5, 6), (1, 2, 4)))
    for TM, TN, TK, warps, stages, ctas in itertools.product(*space):
        if warps == 8 and TM * TN < 128 * 128 and not F32:
            continue  # two warpgroups over a small tile
        if (stages + 1) * (TM + TN) * TK * ESIZE > SMEM:  # the ring's stages (and the extra one) of A and B
            continue
        yield TM, TN, TK, warps, stages, ctas


def cublas_kernels(a, b):
    """The kernels torch.matmul runs, by name, from torch's profiler."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            torch.matmul(a, b)
        torch.cuda.synchronize()
    return sorted({e.name for e in prof.events() if e.device_type.name == "CUDA"})


rows = []
for M, N, K in shapes:
    a = torch.randn(M, K, device="cuda", dtype=DT)
    b = torch.randn(K, N, device="cuda", dtype=DT)
    ref = a.double() @ b.double()
    c = torch.empty(M, N, device="cuda", dtype=DT)
    flop = 2 * M * N * K
    kernel = tritonc.kernel(SRC, filename="matmul_masked.tc")
    timed = []
    for TM, TN, TK, warps, stages, ctas in configs():
        def launch(TM=TM, TN=TN, TK=TK, warps=warps, stages=stages, ctas=ctas):
            kernel(a, b, c, M, N, K, K, N, N, grid=(cdiv(M, TM), cdiv(N, TN)), TYPE=DT, TM=TM, TN=TN,
                   TK=TK, num_warps=warps, num_stages=stages, num_ctas=ctas)
        name = f"TM={TM} TN={TN} TK={TK} w{warps} s{stages} ctas{ctas}"
        try:
            c.fill_(float("nan"))
            launch()
            torch.cuda.synchronize()
            err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
            if not err <= TOL:
                print(f"  {name}: WRONG (error {err:.2e})", flush=True)
                continue
            timed.append((do_bench(launch, warmup=10, rep=40, return_mode="median"), name, launch, err))
        except Exception as e:  # noqa: BLE001
            print(f"  {name}: failed: {str(e).splitlines()[0][:160]}", flush=True)
    timed.sort(key=lambda t: t[0])
    print(f"{M}x{N}x{K}: {len(timed)} configurations timed; the fastest:")
    for ms, name, _, _ in timed[:12]:
        print(f"  {name:40} {ms:.4f} ms {flop / ms / 1e9:6.1f} TFLOP/s")
    rounds = {name: [] for _, name, _, _ in timed[:8]}
    rounds["cublas"] = []
    rounds["tritonc.ops.dot"] = []  # the library path, tiles and split-K of its own choosing
    ops = tritonc.ops.dot(a, b)
    torch.cuda.synchronize()
    ops_err = ((ops.double() - ref).abs().max() / ref.abs().max()).item()
    assert ops_err <= TOL, ops_err
    for _ in range(3):
        for ms, name, launch, _ in timed[:8]:
            rounds[name].append(do_bench(launch, warmup=25, rep=100, return_mode="median"))
        rounds["tritonc.ops.dot"].append(do_bench(lambda: tritonc.ops.dot(a, b), warmup=25, rep=100,
                                                  return_mode="median"))
        rounds["cublas"].append(do_bench(lambda: torch.matmul(a, b), warmup=25, rep=100, return_mode="median"))
    med = {k: sorted(v)[1] for k, v in rounds.items()}
    print(f"{M}x{N}x{K}, three alternating rounds (median round):")
    for name, ms in sorted(med.items(), key=lambda kv: kv[1]):
        print(f"  {name:40} {ms:.4f} ms {flop / ms / 1e9:6.1f} TFLOP/s  {med['cublas'] / ms:.3f} of cuBLAS")
    peer = cublas_kernels(a, b)
    print("  tritonc.ops.dot ran:", tritonc.ops.dot_config(M, N, K, DT))
    print("  cuBLAS runs:", "; ".join(peer), flush=True)
    rows.append(dict(shape=f"{M}x{N}x{K}", all_ms={name: ms for ms, name, _, _ in timed}, rounds_ms=rounds,
                     median_round_ms=med, cublas_kernels=peer,
                     ops_config=tritonc.ops.dot_config(M, N, K, DT), ops_err=ops_err, dtype=str(DT),
                     errors={name: err for _, name, _, err in timed}))


json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "device": torch.cuda.get_device_name(),
           "commit": commit_label(), "torch": torch.__version__, "tritonc": tritonc.version(),
           "method": "every configuration once (do_bench median, warm-up 10 ms, 40 ms, L2 flushed); the best eight "
                     "and cuBLAS in three alternating rounds (warm-up 25 ms, 100 ms), the median round reported",
           "rows": rows},
          open(os.path.join(out_dir, "matmul_sweep.json"), "w"), indent=1)
