# Host time per launch of a tiny kernel (vector add of 1024 floats on CUDA
# tensors), many launches back to back, for tritonc, Triton and a torch op in
# the same run (tritonc: a Triton-C kernel, with and without a grid function,
# and the same add as a @tritonc.jit function). The GPU work is negligible:
# this measures the launch path.
#   python3 bench/launch_overhead.py OUT.json
import datetime, json, os, shutil, statistics, subprocess, sys, tempfile, time

import torch
import triton
import triton.language as tl

import tritonc
from commit_label import commit_label  # this folder

N, LAUNCHES = 1024, 20000
a, b = torch.randn(N, device="cuda"), torch.randn(N, device="cuda")
c = torch.empty_like(a)

SRC = """
__global__ void add(float* a, float* b, float* c, int n) {
  int off[1024] = get_program_id(0) * 1024 + 0 ... 1024;
  *(c + off) = *(a + off) + *(b + off);
}
"""
k = tritonc.kernel(SRC)
# The same with a grid function and macros, as the seed's calls look.
SRC_MACROS = """
__global__ void add(TYPE* a, TYPE* b, TYPE* c, int n) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = off < n;
  @m *(c + off) = *(a + off) + *(b + off);
}
"""
km = tritonc.kernel(SRC_MACROS, ["c"])


@triton.jit
def tadd(a, b, c, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(c + offs, tl.load(a + offs) + tl.load(b + offs))


# The same function in our Python DSL (kernel[grid] from C++, docs/PYTHON_DSL.md).
import tritonc.language as tcl  # noqa: E402


@tritonc.jit
def jadd(a, b, c, n, B: tcl.constexpr):
    offs = tcl.program_id(0) * B + tcl.arange(0, B)
    tcl.store(c + offs, tcl.load(a + offs) + tcl.load(b + offs))


ROUNDS = 9


def per_launch_us(variants):
    """Host microseconds per launch for each variant: ROUNDS rounds, each
    timing LAUNCHES back-to-back launches of every variant in turn (so that
    drifts of the machine hit all alike); the median and the best round."""
    for fn in variants.values():
        for _ in range(200):
            fn()
    torch.cuda.synchronize()
    samples = {name: [] for name in variants}
    for _ in range(ROUNDS):
        for name, fn in variants.items():
            t0 = time.perf_counter()
            for _ in range(LAUNCHES):
                fn()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            samples[name].append((t1 - t0) / LAUNCHES * 1e6)
    return {name: {"median": statistics.median(v), "best": min(v)} for name, v in samples.items()}


BURST, BURSTS = 64, 300


def burst_us(variants):
    """Host microseconds per launch in bursts of BURST launches into an idle
    queue (a synchronize before each): the host's own cost, where thousands
    back to back may also wait for the GPU to make room in its queue. Median
    and best of BURSTS bursts per variant, the variants interleaved."""
    samples = {name: [] for name in variants}
    for _ in range(BURSTS):
        for name, fn in variants.items():
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(BURST):
                fn()
            samples[name].append((time.perf_counter() - t0) / BURST * 1e6)
    torch.cuda.synchronize()
    return {name: {"median": statistics.median(v), "best": min(v)} for name, v in samples.items()}


VARIANTS = {
    "tritonc": lambda: k(a, b, c, N, grid=(1,)),
    "tritonc (grid function, macros)":
        lambda: km(a, b, c, N, grid=lambda opt: (tritonc.cdiv(N, opt.d("BLOCK")),), BLOCK=1024, TYPE=torch.float32),
    "tritonc.jit": lambda: jadd[(1,)](a, b, c, N, B=1024),
    "triton": lambda: tadd[(1,)](a, b, c, N, B=1024),
    "torch.add": lambda: torch.add(a, b, out=c),
}
results = per_launch_us(VARIANTS)
bursts = burst_us(VARIANTS)
torch.cuda.synchronize()
assert torch.equal(c, a + b)
k(a, b, c, N, grid=(1,))
torch.cuda.synchronize()
assert torch.equal(c, a + b), "tritonc's result is wrong"
c.zero_()
km(a, b, c, N, grid=lambda opt: (tritonc.cdiv(N, opt.d("BLOCK")),), BLOCK=1024, TYPE=torch.float32)
torch.cuda.synchronize()
assert torch.equal(c, a + b), "tritonc's result is wrong (grid function, macros)"
c.zero_()
jadd[(1,)](a, b, c, N, B=1024)
torch.cuda.synchronize()
assert torch.equal(c, a + b), "tritonc.jit's result is wrong"
fast = {"tritonc": k._fast_launches, "tritonc (grid function, macros)": km._fast_launches,
        "tritonc.jit": jadd._fast_launches}


def driver_floor():
    """cuLaunchKernel alone from C++ (bench/launch_floor.cu), when nvcc is here."""
    if not shutil.which("nvcc"):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "launch_floor")
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch_floor.cu")
        subprocess.run(["nvcc", "-O2", "-arch=sm_90", src, "-lcuda", "-o", exe], check=True)
        return json.loads(subprocess.run([exe], check=True, capture_output=True, text=True).stdout)


def components_us():
    """What the launch path reads from Python per call, timed alone (best of
    ROUNDS rounds): the kernel[grid] object, the current stream, and per
    tensor argument its is_cuda, dtype and data_ptr()."""
    stream = torch._C._cuda_getCurrentRawStream
    parts = {
        "kernel[grid]": lambda: jadd[(1,)],
        "current stream": lambda: stream(0),
        "tensor is_cuda, dtype, data_ptr()": lambda: (a.is_cuda, a.dtype, a.data_ptr()),
        "empty lambda": lambda: None,
    }
    out = {}
    for name, fn in parts.items():
        best = float("inf")
        for _ in range(ROUNDS):
            t0 = time.perf_counter()
            for _ in range(LAUNCHES):
                fn()
            best = min(best, (time.perf_counter() - t0) / LAUNCHES * 1e6)
        out[name] = best
    return out


components = components_us()
for name, us in components.items():
    print("%-40s %6.3f us (best of %d rounds)" % (name, us, ROUNDS))
floor_run = driver_floor()
floor = floor_run["us_per_launch"] if floor_run else None
floor_burst = floor_run.get("burst_us_per_launch") if floor_run else None
for name, us in results.items():
    print("%-32s %6.2f us per launch (median of %d rounds of %d launches; best %.2f)"
          % (name, us["median"], ROUNDS, LAUNCHES, us["best"]))
if floor:
    print("%-32s %6.2f us per launch (median; best %.2f): the driver's floor, from C++"
          % ("cuLaunchKernel", floor["median"], floor["best"]))
for name, us in bursts.items():
    print("%-32s %6.2f us per launch in bursts of %d into an idle queue (median of %d; best %.2f)"
          % (name, us["median"], BURST, BURSTS, us["best"]))
if floor_burst:
    print("%-32s %6.2f us per launch in bursts (median; best %.2f): the driver's floor, from C++"
          % ("cuLaunchKernel", floor_burst["median"], floor_burst["best"]))
print("calls launched without Python code: %s" % fast)
out = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "device": torch.cuda.get_device_name(0),
       "versions": {"torch": torch.__version__, "triton": triton.__version__, "tritonc": tritonc.version()},
       "commit": commit_label(),
       "method": "host microseconds per launch of a 1024-float add on CUDA tensors: %d rounds, each timing %d "
                 "back-to-back launches of every variant in turn; median and best round; and in %d bursts of %d launches "
                 "into an idle queue (synchronized before each), median and best burst"
                 % (ROUNDS, LAUNCHES, BURSTS, BURST),
       "us_per_launch": results, "burst_us_per_launch": bursts, "driver_floor_us_per_launch": floor,
       "driver_floor_burst_us_per_launch": floor_burst, "fast_path_launches": fast,
       "python_parts_us": components}
if len(sys.argv) > 1:
    json.dump(out, open(sys.argv[1], "w"), indent=2)
