# Host time per launch of a tiny kernel (vector add of 1024 floats on CUDA
# tensors), many launches back to back, for tritonc, Triton and a torch op in
# the same run. The GPU work is negligible: this measures the launch path.
#   python3 bench/launch_overhead.py OUT.json
import datetime, json, sys, time

import torch
import triton
import triton.language as tl

import tritonc

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


def per_launch_us(fn):
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(LAUNCHES):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        best = min(best, (t1 - t0) / LAUNCHES * 1e6)
    return best


results = {
    "tritonc": per_launch_us(lambda: k(a, b, c, N, grid=(1,))),
    "tritonc (grid function, macros)": per_launch_us(
        lambda: km(a, b, c, N, grid=lambda opt: (tritonc.cdiv(N, opt.d("BLOCK")),), BLOCK=1024, TYPE=torch.float32)),
    "triton": per_launch_us(lambda: tadd[(1,)](a, b, c, N, B=1024)),
    "torch.add": per_launch_us(lambda: torch.add(a, b, out=c)),
}
torch.cuda.synchronize()
assert torch.equal(c, a + b)
k(a, b, c, N, grid=(1,))
torch.cuda.synchronize()
assert torch.equal(c, a + b), "tritonc's result is wrong"
c.zero_()
km(a, b, c, N, grid=lambda opt: (tritonc.cdiv(N, opt.d("BLOCK")),), BLOCK=1024, TYPE=torch.float32)
torch.cuda.synchronize()
assert torch.equal(c, a + b), "tritonc's result is wrong (grid function, macros)"
fast = {"tritonc": k._fast_launches, "tritonc (grid function, macros)": km._fast_launches}
for name, us in results.items():
    print("%-32s %8.2f us per launch (host, best of 5 x %d launches)" % (name, us, LAUNCHES))
print("calls launched without Python code: %s" % fast)
out = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "device": torch.cuda.get_device_name(0),
       "versions": {"torch": torch.__version__, "triton": triton.__version__, "tritonc": tritonc.version()},
       "method": "host microseconds per launch, best of 5 timings of %d back-to-back launches of a 1024-float add" % LAUNCHES,
       "us_per_launch": results, "fast_path_launches": fast}
if len(sys.argv) > 1:
    json.dump(out, open(sys.argv[1], "w"), indent=2)
