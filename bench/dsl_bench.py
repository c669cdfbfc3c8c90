"""The Python DSL's kernels (python/tests/dsl_kernels.py) on the GPU, side by
side in one run with Triton 3.6 running the very same functions (the file
imported a second time with `import triton` in place of `import tritonc`),
and the Triton-C versions of the matmul at the configuration the DSL's tuner
chose: the same kernel statement for statement (bench/kernels/matmul_grouped.tc,
"tritonc-C": one compiler, two front ends) and the 2-D-grid masked one
(bench/kernels/matmul_masked.tc, "tritonc-C 2-D grid"). Also: cold compile of one matmul
configuration and the launch overhead of both.

Every output is checked against torch (float64 where it matters) with the
output poisoned first. Timing: tritonc.testing.do_bench for everything (CUDA
events around each call, L2 flushed before it), medians.

usage: python3 bench/dsl_bench.py OUT_DIR   (writes OUT_DIR/dsl.json)
DSL_ONLY=attention,matmul (comma-separated: add, softmax, matmul, linear, layernorm,
attention, attention_bwd, attention_bwd_fused, tutorial_attention, hints, persistent, fp8, moe, quant,
w8a8, llm, gather, scan, compile, launch) runs only
those sections.
attention_bwd: the FlashAttention-2 backward of dsl_kernels.py beside Triton
running it and torch's scaled_dot_product_attention backward.
attention_bwd_fused: the same with dq added by atomics from the dk/dv kernel
(attention_bwd_fused), beside Triton running it.
persistent: the persistent matmuls of Triton 3.6's tutorial (python/tests/
tutorial_matmul.py: pointers with clamped indices, and device-side tensor
descriptors with B stored [N, K], whole or split epilogue) beside Triton
running them and cuBLAS.
tutorial_attention: Triton 3.6's fused-attention tutorial forward as written
(python/tests/tutorial_attention.py, host TensorDescriptors).
hints: the clamped-index matmul of Triton's persistent-matmul tutorial
(python/tests/hint_kernels.py) with and without tl.multiple_of/max_contiguous.
linear: x @ w.T in f32 (dsl_kernels.linear_autotuned; tf32, Triton's default
input_precision) beside Triton 3.6 running it and cuBLAS with tf32.
quant: the weight-only quantized matmuls of python/tests/quant_kernels.py
(int8 weights with a scale per column, 4-bit weights packed in bytes with a
scale per group of 128 rows; f16 activations) beside Triton 3.6 running them
and cuBLAS's f16 matmul of the weights dequantized beforehand.
w8a8: the int8 x int8 scaled matmul of python/tests/quant_kernels.py
(scaled_mm_w8a8_kernel: int32 accumulation, per-token and per-channel
scales and a bias, f16 out; weights stored [N, K] as torch's Linear holds
them, and at M = 4096 also [K, N]) beside Triton 3.6 running it, and
torch._int_mm (cuBLASLt's int8 matmul into int32, without the scaling) and
cuBLAS's f16 matmul of the same shape as floors.
llm: the kernels of python/tests/llm_kernels.py (RMSNorm forward and
backward, the fused cross-entropy forward and gradient, SwiGLU, rotary
embeddings; bf16) beside Triton 3.6 running them and torch's operators
doing the same work; GB/s of the bytes each must move.
fp8: the fp8 matmul of python/tests/fp8_kernels.py (e4m3, B K-contiguous) beside
Triton 3.6 running it and torch._scaled_mm (cuBLAS).
DSL_AB=NAME=VALUE also times our kernels compiled with that environment
variable set (column tritonc-ab): a compiler switch A/B in one run.
"""
import importlib.util
import json
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) > 1 else "."
# Both caches start empty, so that compile times are cold.
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-cache-")
os.environ["TRITONC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tritonc-cache-")

import torch  # noqa: E402

import tritonc  # noqa: E402
from tritonc.testing import do_bench  # noqa: E402
from commit_label import commit_label  # noqa: E402 (this folder)

KERNELS = os.path.join(ROOT, "python", "tests", "dsl_kernels.py")


def load_kernels(as_triton, path=KERNELS):
    src = open(path).read()
    name = os.path.splitext(os.path.basename(path))[0] + ("_triton" if as_triton else "_tritonc")
    if as_triton:
        src = src.replace("import tritonc as triton", "import triton").replace(
            "import tritonc.language as tl", "import triton.language as tl")
    path = os.path.join(tempfile.mkdtemp(), name + ".py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TUTORIAL_ATTENTION = os.path.join(ROOT, "python", "tests", "tutorial_attention.py")
HINT_KERNELS = os.path.join(ROOT, "python", "tests", "hint_kernels.py")
FP8_KERNELS = os.path.join(ROOT, "python", "tests", "fp8_kernels.py")
MOE_KERNELS = os.path.join(ROOT, "python", "tests", "moe_kernels.py")
QUANT_KERNELS = os.path.join(ROOT, "python", "tests", "quant_kernels.py")
LLM_KERNELS = os.path.join(ROOT, "python", "tests", "llm_kernels.py")
GATHER_KERNELS = os.path.join(ROOT, "python", "tests", "gather_kernels.py")
SCAN_KERNELS = os.path.join(ROOT, "python", "tests", "scan_kernels.py")
SORT_KERNELS = os.path.join(ROOT, "python", "tests", "sort_kernels.py")
TUTORIAL_MATMUL = os.path.join(ROOT, "python", "tests", "tutorial_matmul.py")
ours = load_kernels(False)
ours_tutorial = load_kernels(False, TUTORIAL_ATTENTION)
ours_hints = load_kernels(False, HINT_KERNELS)
ours_fp8 = load_kernels(False, FP8_KERNELS)
ours_moe = load_kernels(False, MOE_KERNELS)
ours_quant = load_kernels(False, QUANT_KERNELS)
ours_llm = load_kernels(False, LLM_KERNELS)
ours_gather = load_kernels(False, GATHER_KERNELS)
ours_scan = load_kernels(False, SCAN_KERNELS)
ours_sort = load_kernels(False, SORT_KERNELS)
ours_persistent = load_kernels(False, TUTORIAL_MATMUL)
try:
    import triton  # noqa: F401
    theirs = load_kernels(True)
    theirs_tutorial = load_kernels(True, TUTORIAL_ATTENTION)
    theirs_hints = load_kernels(True, HINT_KERNELS)
    theirs_fp8 = load_kernels(True, FP8_KERNELS)
    theirs_moe = load_kernels(True, MOE_KERNELS)
    theirs_quant = load_kernels(True, QUANT_KERNELS)
    theirs_llm = load_kernels(True, LLM_KERNELS)
    theirs_gather = load_kernels(True, GATHER_KERNELS)
    theirs_scan = load_kernels(True, SCAN_KERNELS)
    theirs_sort = load_kernels(True, SORT_KERNELS)
    theirs_persistent = load_kernels(True, TUTORIAL_MATMUL)
    triton_version = triton.__version__
except Exception as e:  # noqa: BLE001
    print("Triton unavailable: %s" % e)
    theirs, theirs_tutorial, theirs_hints, theirs_fp8, theirs_moe, triton_version = None, None, None, None, None, None
    theirs_persistent, theirs_quant, theirs_llm, theirs_gather, theirs_scan = None, None, None, None, None
    theirs_sort = None

rows = []
ONLY = [w for w in os.environ.get("DSL_ONLY", "").split(",") if w]


def want(section):
    return not ONLY or section in ONLY


def cdiv(a, b):
    return -(-a // b)


def record(op, shape, unit, work, results):
    """results: {name: (ms, max error or None)}; work: bytes or flops."""
    row = {"op": op, "shape": shape, "unit": unit}
    for name, (ms, err) in results.items():
        row[name] = {"ms": ms, "rate": (work / ms / 1e6 if ms else None), "max_err": err}
    rows.append(row)
    cells = "  ".join("%s %.3f ms %.0f %s (err %.2g)" % (n, v["ms"], v["rate"], unit, v["max_err"] if v["max_err"] is not None else 0)
                      for n, v in row.items() if isinstance(v, dict) and v["ms"])
    print("%-10s %-22s %s" % (op, shape, cells), flush=True)


def timed(call, out, ref):
    out.fill_(float("nan"))
    call()
    torch.cuda.synchronize()
    err = (out.double() - ref.double()).abs().max().item()
    return do_bench(call, return_mode="median"), err


# DSL_AB=NAME=VALUE: our kernels are also timed as "tritonc-ab", compiled
# (fresh copies of the modules, their own caches) with that variable set: an
# A/B of a compiler switch in one run (e.g. TRITONC_FENCE_ASYNC_COPIES=0).
AB = os.environ.get("DSL_AB", "")
ab_twins = {}


def ab_twin(mod):
    if mod not in ab_twins:
        spec = importlib.util.spec_from_file_location(mod.__name__ + "_ab", mod.__file__)
        twin = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(twin)
        ab_twins[mod] = twin
    return ab_twins[mod]


def both(fn_name, call_with, mods=None):
    """{tag: call_with(the function fn_name of each module)}; fn_name None:
    call_with(the module)."""
    res = {}
    mods = list(mods or (("tritonc", ours), ("triton", theirs)))
    if AB:
        mods += [("tritonc-ab", ab_twin(mod)) for tag, mod in mods if tag == "tritonc"]
    for tag, mod in mods:
        if mod is None:
            continue
        name, _, value = AB.partition("=")
        saved = os.environ.get(name)
        if tag == "tritonc-ab":
            os.environ[name] = value
        try:
            res[tag] = call_with(mod if fn_name is None else getattr(mod, fn_name))
        except Exception as e:  # noqa: BLE001
            print("  %s %s failed: %s" % (tag, fn_name or "run", str(e).splitlines()[0] if str(e) else type(e).__name__))
        finally:
            if tag == "tritonc-ab":
                if saved is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = saved
    return res


dev = "cuda"

# ---- vector add ----
if want("add"):
    for n in (1 << 24, 1 << 28):
        x, y = torch.rand(n, device=dev), torch.rand(n, device=dev)
        out = torch.empty(n, device=dev)
        ref = x + y

        def run_add(k, x=x, y=y, out=out, n=n):
            return timed(lambda: k[(cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024), out, ref)

        res = both("add_kernel", run_add)
        res["torch"] = (do_bench(lambda: torch.add(x, y, out=out), return_mode="median"), 0.0)
        record("add", "%d" % n, "GB/s", 12.0 * n, res)

# ---- softmax ----
if want("softmax"):
    for R, C in ((4096, 1000), (4096, 3000), (4096, 12000)):
        x = torch.randn(R, C, device=dev)
        out = torch.empty_like(x)
        ref = torch.softmax(x.double(), 1)
        block = 1 << (C - 1).bit_length()
        warps = 4 if block < 2048 else 8 if block < 4096 else 16

        def run_softmax(k, x=x, out=out, R=R, C=C, block=block, warps=warps):
            return timed(lambda: k[(R,)](out, x, x.stride(0), out.stride(0), R, C, BLOCK_SIZE=block, num_warps=warps),
                         out, ref)

        res = both("softmax_kernel", run_softmax)
        res["torch"] = (do_bench(lambda x=x: torch.softmax(x, 1), return_mode="median"), 0.0)
        record("softmax", "%dx%d" % (R, C), "GB/s", 8.0 * R * C, res)

# ---- matmul (grouped, masked, autotuned over the same configurations) ----
best_configs = {}
front_ends = {}  # the DSL and the same Triton-C kernel, measured alternately
if want("matmul"):
    for dt, shapes in ((torch.float16, ((4096, 4096, 4096), (8192, 8192, 8192), (1760, 7000, 1760),
                                        (1000, 1000, 1000))),
                       (torch.float32, ((4096, 4096, 4096),))):
        for M, N, K in shapes:
            a = torch.randn(M, K, device=dev, dtype=dt)
            b = torch.randn(K, N, device=dev, dtype=dt)
            c = torch.empty(M, N, device=dev, dtype=dt)
            ref = (a.double() @ b.double())

            def run_mm(k, a=a, b=b, c=c, M=M, N=N, K=K):
                grid = lambda m: (cdiv(M, m["BLOCK_M"]) * cdiv(N, m["BLOCK_N"]),)  # noqa: E731
                call = lambda: k[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),  # noqa: E731
                                       c.stride(0), c.stride(1))
                ms, err = timed(call, c, ref)
                return ms, err / ref.abs().max().item()

            res = both("matmul_autotuned", run_mm)
            best = getattr(ours.matmul_autotuned, "best_config", None)
            if best is not None:
                best_configs["%s %dx%dx%d" % (dt, M, N, K)] = repr(best)
            if dt == torch.float16 and best is not None:
                # The Triton-C matmul (bench/kernels/matmul_masked.tc) at the DSL tuner's tile sizes.
                kc = tritonc.kernel(open(os.path.join(ROOT, "bench/kernels/matmul_masked.tc")).read())
                kw = best.kwargs
                macros = dict(TM=kw["BLOCK_M"], TN=kw["BLOCK_N"], TK=kw["BLOCK_K"], TYPE=dt,
                              num_warps=best.num_warps, num_stages=best.num_stages)
                call_c = lambda kc=kc, macros=macros, a=a, b=b, c=c, M=M, N=N, K=K: kc(  # noqa: E731
                    a, b, c, M, N, K, K, N, N, grid=lambda o: (cdiv(M, o.d("TM")), cdiv(N, o.d("TN"))), **macros)
                ms, err = timed(call_c, c, ref)
                res["tritonc-C 2-D grid"] = (ms, err / ref.abs().max().item())
                # The same kernel statement for statement (bench/kernels/matmul_grouped.tc): one
                # compiler, two front ends.
                kg = tritonc.kernel(open(os.path.join(ROOT, "bench/kernels/matmul_grouped.tc")).read())
                macros_g = dict(macros, GROUP_M=kw["GROUP_M"])
                call_g = lambda kg=kg, macros_g=macros_g, a=a, b=b, c=c, M=M, N=N, K=K: kg(  # noqa: E731
                    a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                    grid=lambda o: (cdiv(M, o.d("TM")) * cdiv(N, o.d("TN")),), **macros_g)
                ms, err = timed(call_g, c, ref)
                res["tritonc-C"] = (ms, err / ref.abs().max().item())
                # The two front ends again, alternately, three rounds each: a drift of the
                # machine between two single measurements must not pass for a difference.
                rounds = {"tritonc": [], "tritonc-C": []}
                for _ in range(3):
                    rounds["tritonc"].append(run_mm(ours.matmul_autotuned)[0])
                    rounds["tritonc-C"].append(timed(call_g, c, ref)[0])
                rounds["ratio of medians (C / DSL)"] = (sorted(rounds["tritonc-C"])[1] /
                                                        sorted(rounds["tritonc"])[1])
                front_ends["%s %dx%dx%d" % (dt, M, N, K)] = rounds
                print("  front ends, alternately: DSL %s ms, Triton-C %s ms" % (
                    ", ".join("%.4f" % v for v in rounds["tritonc"]),
                    ", ".join("%.4f" % v for v in rounds["tritonc-C"])))
            res["cublas"] = (do_bench(lambda a=a, b=b: torch.matmul(a, b), return_mode="median"), 0.0)
            record("matmul-" + str(dt).replace("torch.", ""), "%dx%dx%d" % (M, N, K), "TFLOP/s", 2.0 * M * N * K / 1e3, res)

# ---- x @ w.T in f32 (tf32: Triton's default input_precision), beside cuBLAS's tf32 ----
if want("linear"):
    for M, N, K in ((4096, 4096, 4096), (8192, 8192, 8192), (1760, 7000, 1760), (1000, 1000, 1000)):
        x = torch.randn(M, K, device=dev, dtype=torch.float32)
        w = torch.randn(N, K, device=dev, dtype=torch.float32)
        y = torch.empty(M, N, device=dev, dtype=torch.float32)
        ref = x.double() @ w.double().T

        def run_linear(k, x=x, w=w, y=y, M=M, N=N, K=K):
            grid = lambda m: (cdiv(M, m["BLOCK_M"]), cdiv(N, m["BLOCK_N"]))  # noqa: E731
            ms, err = timed(lambda: k[grid](x, w, y, M, N, K), y, ref)
            return ms, err / ref.abs().max().item()

        res = both("linear_autotuned", run_linear)
        best = getattr(ours.linear_autotuned, "best_config", None)
        if best is not None:
            best_configs["linear f32 %dx%dx%d" % (M, N, K)] = repr(best)
        torch.backends.cuda.matmul.allow_tf32 = True
        res["cublas-tf32"] = (do_bench(lambda x=x, w=w: torch.nn.functional.linear(x, w), return_mode="median"),
                              (torch.nn.functional.linear(x, w).double() - ref).abs().max().item() /
                              ref.abs().max().item())
        torch.backends.cuda.matmul.allow_tf32 = False
        record("linear-float32-tf32", "%dx%dx%d" % (M, N, K), "TFLOP/s", 2.0 * M * N * K / 1e3, res)

# ---- layer norm forward ----
if want("layernorm"):
    for M, N in ((4096, 1024), (4096, 8192)):
        x = torch.randn(M, N, device=dev, dtype=torch.float16)
        w, bias = torch.rand(N, device=dev, dtype=torch.float16), torch.rand(N, device=dev, dtype=torch.float16)
        y = torch.empty_like(x)
        mean, rstd = torch.empty(M, device=dev), torch.empty(M, device=dev)
        ref = torch.nn.functional.layer_norm(x.float(), (N,), w.float(), bias.float(), 1e-5)
        block = min(1 << (N - 1).bit_length(), 65536 // 2)
        warps = min(max(block // 256, 1), 8)

        def run_ln(k, x=x, y=y, w=w, bias=bias, mean=mean, rstd=rstd, M=M, N=N, block=block, warps=warps):
            return timed(lambda: k[(M,)](x, y, w, bias, mean, rstd, x.stride(0), N, 1e-5, BLOCK_SIZE=block,
                                         num_warps=warps), y, ref)

        res = both("layer_norm_fwd", run_ln)
        res["torch"] = (do_bench(lambda: torch.nn.functional.layer_norm(x, (N,), w, bias, 1e-5), return_mode="median"), 0.0)
        record("layernorm", "%dx%d" % (M, N), "GB/s", 4.0 * M * N, res)

# ---- attention forward ----
if want("attention"):
    for causal, warps in ((False, 8), (False, 4), (True, 8), (True, 4)):
        Z, H, NC, D = 4, 16, 4096, 64
        q, k, v = (torch.randn(Z, H, NC, D, device=dev, dtype=torch.float16) * 0.5 for _ in range(3))
        o = torch.empty_like(q)
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=0.125)

        def run_attn(kern, q=q, k=k, v=v, o=o, causal=causal, warps=warps):
            call = lambda: kern[(cdiv(NC, 128), Z * H)](q, k, v, 0.125, o, *q.stride(), *k.stride(), *v.stride(),  # noqa: E731
                                                        *o.stride(), Z, H, NC, HEAD_DIM=D, BLOCK_M=128, BLOCK_N=64,
                                                        CAUSAL=causal, num_warps=warps, num_stages=3)
            return timed(call, o, ref)

        res = both("attention_fwd", run_attn)
        res["torch-sdpa"] = (do_bench(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                                                                scale=0.125),
                                      return_mode="median"), 0.0)
        flops = 4.0 * Z * H * NC * NC * D * (0.5 if causal else 1.0)
        record("attention", "%s %dw" % ("causal" if causal else "full", warps), "TFLOP/s", flops / 1e3, res)


# ---- attention backward (FlashAttention-2: preprocess, dk/dv per key block, dq per query block) ----
# Each compiler runs the whole backward (three kernels) after its own forward
# (attention_fwd_lse, which stores the log-sum-exp), both over the same small
# space of block sizes and warps; torch: the backward of
# scaled_dot_product_attention (its flash kernels). Rates count 2.5x the
# forward's flops, the usual convention (five N x N x D products).
Z, H, NC = 4, 16, 4096  # the backward's problem: batch, heads, sequence


def bwd_problem(causal, D):
    """f16 q, k, v, do of Z x H x NC x D, the scale, and torch's float32
    gradients of q, k, v as the reference."""
    scale = D ** -0.5
    q, k, v, do = (torch.randn(Z, H, NC, D, device=dev, dtype=torch.float16) * 0.5 for _ in range(4))
    leaves = [t.detach().float().requires_grad_() for t in (q, k, v)]
    out32 = torch.nn.functional.scaled_dot_product_attention(*leaves, is_causal=causal, scale=scale)
    return q, k, v, do, scale, torch.autograd.grad(out32, leaves, do.float())


def bwd_forward(mod, q, k, v, scale, causal, D):
    """The forward with its log-sum-exp by `mod`'s attention_fwd_lse; returns
    o, lse, a Delta buffer and three gradient buffers."""
    o = torch.empty_like(q)
    lse, delta = (torch.empty(Z * H * NC, device=dev, dtype=torch.float32) for _ in range(2))
    mod.attention_fwd_lse[(NC // 128, Z * H)](q, k, v, scale, o, lse, NC, HEAD_DIM=D, BLOCK_M=128, BLOCK_N=64,
                                              CAUSAL=causal, num_warps=8, num_stages=3)
    return o, lse, delta, [torch.empty_like(q) for _ in range(3)]


def time_configs(name, configs, run):
    """do_bench's median of run(cfg) for each configuration; one that fails
    is reported and left out."""
    times = {}
    for cfg in configs:
        try:
            times[cfg] = do_bench(lambda c=cfg: run(c), return_mode="median")
        except Exception as e:  # noqa: BLE001
            print("  %s %s failed: %s" % (name, cfg, str(e).splitlines()[0]))
    return times


BWD_SPACE = {"attention_bwd_dkdv": ((32, 128, 4, 3), (64, 128, 8, 3), (32, 64, 4, 3), (64, 64, 4, 3)),
             "attention_bwd_dq": ((128, 32, 4, 3), (128, 64, 8, 3), (64, 64, 4, 3), (64, 32, 4, 3))}
if want("attention_bwd"):
    for causal in (False, True):
        for D in (64, 128):
            q, k, v, do, scale, refs = bwd_problem(causal, D)

            def run_bwd(mod, q=q, k=k, v=v, do=do, causal=causal, D=D, scale=scale, refs=refs):
                o, lse, delta, grads = bwd_forward(mod, q, k, v, scale, causal, D)

                def call(dkdv, dqc):
                    mod.attention_bwd_preprocess[(NC // 128, Z * H)](o, do, delta, NC, HEAD_DIM=D, BLOCK_M=128)
                    bm, bn, w, s = dkdv
                    mod.attention_bwd_dkdv[(NC // bn, Z * H)](q, k, v, scale, do, grads[1], grads[2], lse, delta, NC,
                                                              HEAD_DIM=D, BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal,
                                                              num_warps=w, num_stages=s)
                    bm, bn, w, s = dqc
                    mod.attention_bwd_dq[(NC // bm, Z * H)](q, k, v, scale, do, grads[0], lse, delta, NC, HEAD_DIM=D,
                                                            BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal, num_warps=w,
                                                            num_stages=s)

                # Each kernel's configuration chosen by timing the whole backward, the other kernel fixed.
                best = [BWD_SPACE["attention_bwd_dkdv"][0], BWD_SPACE["attention_bwd_dq"][0]]
                for slot, name in enumerate(("attention_bwd_dkdv", "attention_bwd_dq")):
                    times = time_configs(name, BWD_SPACE[name],
                                         lambda cfg: call(*(best[:slot] + [cfg] + best[slot + 1:])))
                    best[slot] = min(times, key=times.get)
                # Where the time goes: each kernel alone at the chosen configurations.
                bm, bn, w, st = best[0]
                dq_bm, dq_bn, dq_w, dq_st = best[1]
                parts = {
                    "preprocess": lambda: mod.attention_bwd_preprocess[(NC // 128, Z * H)](o, do, delta, NC, HEAD_DIM=D,
                                                                                          BLOCK_M=128),
                    "dkdv": lambda: mod.attention_bwd_dkdv[(NC // bn, Z * H)](
                        q, k, v, scale, do, grads[1], grads[2], lse, delta, NC, HEAD_DIM=D, BLOCK_M=bm, BLOCK_N=bn,
                        CAUSAL=causal, num_warps=w, num_stages=st),
                    "dq": lambda: mod.attention_bwd_dq[(NC // dq_bm, Z * H)](
                        q, k, v, scale, do, grads[0], lse, delta, NC, HEAD_DIM=D, BLOCK_M=dq_bm, BLOCK_N=dq_bn,
                        CAUSAL=causal, num_warps=dq_w, num_stages=dq_st)}
                print("  %s d%d %s: %s" % ("causal" if causal else "full", D, "tritonc" if mod is ours else "triton",
                                           ", ".join("%s %.3f ms" % (n, do_bench(fn, return_mode="median"))
                                                     for n, fn in parts.items())), flush=True)
                for g in grads:
                    g.fill_(float("nan"))
                call(*best)
                torch.cuda.synchronize()
                err = max((g.double() - r.double()).abs().max().item() for g, r in zip(grads, refs))
                best_configs["attention_bwd %s d%d %s" % ("causal" if causal else "full", D,
                                                          "tritonc" if mod is ours else "triton")] = best
                return do_bench(lambda: call(*best), return_mode="median"), err

            res = both(None, run_bwd, (("tritonc", ours), ("triton", theirs)))
            qg, kg, vg = (t.detach().clone().requires_grad_() for t in (q, k, v))
            out16 = torch.nn.functional.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, scale=scale)
            res["torch-sdpa"] = (do_bench(lambda: torch.autograd.grad(out16, (qg, kg, vg), do, retain_graph=True),
                                          return_mode="median"), 0.0)
            del out16
            flops = 2.5 * 4.0 * Z * H * NC * NC * D * (0.5 if causal else 1.0)
            record("attention-bwd", "%s d%d" % ("causal" if causal else "full", D), "TFLOP/s", flops / 1e3, res)


# ---- the same backward with dq added by atomics from the dk/dv kernel (attention_bwd_fused) ----
# Five dots per pair of blocks instead of seven: the dq kernel, which
# computes the probabilities again, goes; dq is summed in an f32 buffer
# (zeroed, then scaled to f16 by torch: the same for both compilers).
FUSED_SPACE = ((32, 128, 4, 3), (64, 128, 8, 3), (64, 64, 4, 3), (32, 64, 4, 3))
if want("attention_bwd_fused"):
    for causal in (False, True):
        for D in (64, 128):
            q, k, v, do, scale, refs = bwd_problem(causal, D)

            def run_fused(mod, q=q, k=k, v=v, do=do, causal=causal, D=D, scale=scale, refs=refs):
                o, lse, delta, grads = bwd_forward(mod, q, k, v, scale, causal, D)
                dq_acc = torch.empty(q.shape, device=dev, dtype=torch.float32)

                def call(cfg):
                    bm, bn, w, st = cfg
                    mod.attention_bwd_preprocess[(NC // 128, Z * H)](o, do, delta, NC, HEAD_DIM=D, BLOCK_M=128)
                    dq_acc.zero_()
                    mod.attention_bwd_fused[(NC // bn, Z * H)](q, k, v, scale, do, grads[1], grads[2], dq_acc, lse,
                                                               delta, NC, HEAD_DIM=D, BLOCK_M=bm, BLOCK_N=bn,
                                                               CAUSAL=causal, num_warps=w, num_stages=st)
                    torch.mul(dq_acc, scale, out=grads[0])

                times = time_configs("attention_bwd_fused", FUSED_SPACE, call)
                best = min(times, key=times.get)
                for g in grads:
                    g.fill_(float("nan"))
                call(best)
                torch.cuda.synchronize()
                err = max((g.double() - r.double()).abs().max().item() for g, r in zip(grads, refs))
                best_configs["attention_bwd_fused %s d%d %s" % ("causal" if causal else "full", D,
                                                                "tritonc" if mod is ours else "triton")] = best
                return do_bench(lambda: call(best), return_mode="median"), err

            res = both(None, run_fused, (("tritonc", ours), ("triton", theirs)))
            flops = 2.5 * 4.0 * Z * H * NC * NC * D * (0.5 if causal else 1.0)
            record("attention-bwd-fused", "%s d%d" % ("causal" if causal else "full", D), "TFLOP/s", flops / 1e3, res)


# ---- Triton 3.6's fused-attention tutorial forward, as written (host tensor descriptors) ----
if want("tutorial_attention"):
    for causal, warps in ((False, 4), (True, 4), (False, 8), (True, 8)):
        Z, H, NC, D = 4, 16, 4096, 64
        q, k, v = (torch.randn(Z, H, NC, D, device=dev, dtype=torch.float16) * 0.5 for _ in range(3))
        o = torch.empty_like(q)
        m = torch.empty(Z, H, NC, device=dev, dtype=torch.float32)
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=0.125)

        def run_tutorial(kern, q=q, k=k, v=v, o=o, m=m, causal=causal, warps=warps):
            if isinstance(kern, tritonc.JITFunction):
                from tritonc.tools.tensor_descriptor import TensorDescriptor as TD
            else:
                from triton.tools.tensor_descriptor import TensorDescriptor as TD
            y = Z * H * NC
            descs = [TD(t, shape=[y, D], strides=[D, 1], block_shape=[bs, D])
                     for t, bs in ((q, 128), (k, 64), (v, 64), (o, 128))]
            call = lambda: kern[(cdiv(NC, 128), Z * H, 1)](0.125, m, Z, H, *descs, N_CTX=NC, HEAD_DIM=D,  # noqa: E731
                                                            BLOCK_M=128, BLOCK_N=64, FP8_OUTPUT=False,
                                                            STAGE=3 if causal else 1, warp_specialize=False,
                                                            IS_HOPPER=True, num_warps=warps, num_stages=3)
            return timed(call, o, ref)

        res = both("_attn_fwd", run_tutorial, (("tritonc", ours_tutorial), ("triton", theirs_tutorial)))
        flops = 4.0 * Z * H * NC * NC * D * (0.5 if causal else 1.0)
        record("tutorial-attention", "%s %dw" % ("causal" if causal else "full", warps), "TFLOP/s", flops / 1e3, res)


# ---- the clamped-index matmul (persistent-matmul tutorial's form), with and without hints ----
if want("hints"):
    for M, N, K in ((4096, 4096, 4096), (1000, 1000, 1000), (4095, 4095, 4095)):
        a = torch.randn(M, K, device=dev, dtype=torch.float16)
        b = torch.randn(K, N, device=dev, dtype=torch.float16)
        c = torch.empty(M, N, device=dev, dtype=torch.float16)
        ref = a.double() @ b.double()
        for bm, bn, bk, warps, stages in ((128, 128, 64, 4, 4), (128, 256, 64, 8, 3)):
            for hints in (True, False):
                def run_clamped(k, a=a, b=b, c=c, M=M, N=N, K=K, bm=bm, bn=bn, bk=bk, warps=warps, stages=stages,
                                hints=hints):
                    call = lambda: k[(cdiv(M, bm), cdiv(N, bn))](  # noqa: E731
                        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, HINTS=hints, num_warps=warps,
                        num_stages=stages)
                    ms, err = timed(call, c, ref)
                    return ms, err / ref.abs().max().item()

                res = both("clamped_matmul", run_clamped, (("tritonc", ours_hints), ("triton", theirs_hints)))
                res["cublas"] = (do_bench(lambda a=a, b=b: torch.matmul(a, b), return_mode="median"), 0.0)
                record("clamped-matmul" + ("" if hints else "-nohints"),
                       "%dx%dx%d %dx%dx%d/%dw%ds" % (M, N, K, bm, bn, bk, warps, stages), "TFLOP/s",
                       2.0 * M * N * K / 1e3, res)


# ---- the persistent matmuls of Triton's tutorial (python/tests/tutorial_matmul.py) ----
# One program per multiprocessor walks the tiles in grouped order; the
# pointer form clamps rows and columns past the edge (only the store is
# masked), the descriptor form reads B stored [N, K] through device-side
# tensor descriptors (Triton allocates their memory through
# triton.set_allocator).
if want("persistent"):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if theirs_persistent is not None:
        import triton as _triton
        _triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device=dev))
    for M, N, K in ((4096, 4096, 4096), (8192, 8192, 8192), (1000, 1000, 1000), (4000, 4000, 4000)):
        a = torch.randn(M, K, device=dev, dtype=torch.float16)
        b = torch.randn(K, N, device=dev, dtype=torch.float16)
        bt = b.t().contiguous()
        c = torch.empty(M, N, device=dev, dtype=torch.float16)
        ref = a.double() @ b.double()
        cublas = (do_bench(lambda a=a, b=b: torch.matmul(a, b), return_mode="median"), 0.0)
        for bm, bn, bk, warps, stages in ((128, 128, 64, 4, 4), (128, 256, 64, 8, 3)):
            grid = (min(sms, cdiv(M, bm) * cdiv(N, bn)),)
            shape = "%dx%dx%d %dx%dx%d/%dw%ds" % (M, N, K, bm, bn, bk, warps, stages)

            def run_pointers(k, a=a, b=b, c=c, M=M, N=N, K=K, bm=bm, bn=bn, bk=bk, warps=warps, stages=stages,
                             grid=grid):
                call = lambda: k[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),  # noqa: E731
                                       c.stride(0), c.stride(1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                                       GROUP_SIZE_M=8, NUM_SMS=sms, num_warps=warps, num_stages=stages)
                ms, err = timed(call, c, ref)
                return ms, err / ref.abs().max().item()

            res = both("matmul_kernel_persistent", run_pointers,
                       (("tritonc", ours_persistent), ("triton", theirs_persistent)))
            res["cublas"] = cublas
            record("persistent-matmul", shape, "TFLOP/s", 2.0 * M * N * K / 1e3, res)
            for subtile in (False, True):
                def run_descriptors(k, a=a, bt=bt, c=c, M=M, N=N, K=K, bm=bm, bn=bn, bk=bk, warps=warps,
                                    stages=stages, grid=grid, subtile=subtile):
                    call = lambda: k[grid](a, bt, c, M, N, K, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,  # noqa: E731
                                           BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, EPILOGUE_SUBTILE=subtile,
                                           NUM_SMS=sms, WARP_SPECIALIZE=False, num_warps=warps,
                                           num_stages=stages)
                    ms, err = timed(call, c, ref)
                    return ms, err / ref.abs().max().item()

                res = both("matmul_kernel_descriptor_persistent", run_descriptors,
                           (("tritonc", ours_persistent), ("triton", theirs_persistent)))
                res["cublas"] = cublas
                record("descriptor-matmul" + ("-subtile" if subtile else ""), shape, "TFLOP/s",
                       2.0 * M * N * K / 1e3, res)


# ---- fp8 matmul (python/tests/fp8_kernels.py): e4m3 operands, B K-contiguous (the transpose of an
# [N, K] tensor, as Triton's tutorial passes it on Hopper), f16 out; torch._scaled_mm is cuBLAS's fp8 GEMM.
if want("fp8") and hasattr(torch, "float8_e4m3fn"):
    for M, N, K in ((4096, 4096, 4096), (8192, 8192, 8192), (4095, 4095, 4096)):
        a = (torch.randn(M, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
        bt = (torch.randn(N, K, device=dev) * 0.5).to(torch.float8_e4m3fn)
        b = bt.t()  # [K, N], strides (1, K)
        c = torch.empty(M, N, device=dev, dtype=torch.float16)
        ref = a.double() @ b.double()
        scale = ref.abs().max().item()
        for bm, bn, bk, warps, stages in ((128, 128, 128, 4, 3), (128, 256, 128, 8, 3)):
            def run_fp8(k, a=a, b=b, c=c, M=M, N=N, K=K, bm=bm, bn=bn, bk=bk, warps=warps, stages=stages):
                call = lambda: k[(cdiv(M, bm), cdiv(N, bn))](  # noqa: E731
                    a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                    BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, num_stages=stages)
                ms, err = timed(call, c, ref)
                return ms, err / scale

            res = both("matmul_fp8", run_fp8, (("tritonc", ours_fp8), ("triton", theirs_fp8)))
            if M % 16 == 0 and N % 16 == 0 and hasattr(torch, "_scaled_mm"):
                one = torch.ones((), device=dev)
                try:
                    res["cublas"] = (do_bench(lambda a=a, b=b: torch._scaled_mm(a, b, one, one, out_dtype=torch.float16),
                                              return_mode="median"), 0.0)
                except Exception as e:  # noqa: BLE001
                    print("  torch._scaled_mm failed: %s" % str(e).splitlines()[0])
            record("fp8-matmul", "%dx%dx%d %dx%dx%d/%dw%ds" % (M, N, K, bm, bn, bk, warps, stages), "TFLOP/s",
                   2.0 * M * N * K / 1e3, res)


# ---- fused mixture-of-experts matmul (python/tests/moe_kernels.py) ----
# Mixtral's first expert matmul (8 experts, top 2, hidden 4096 -> 14336),
# f16, at decode and prefill token counts; each compiler over the same
# configurations (vLLM's defaults and the tiles tuned engines pick), the
# best of each reported. Floor: decode reads every expert's weights (0.94 GB,
# ~0.2 ms at 4.8 TB/s); prefill is compute (~1 ms at 4096 tokens).
MOE_CONFIGS = ((16, 64, 128, 1, 4, 4), (64, 64, 32, 8, 4, 3), (64, 128, 64, 8, 4, 4), (128, 128, 64, 8, 8, 3),
               (128, 256, 64, 8, 8, 3))
if want("moe"):
    E, TOPK, N, Kd = 8, 2, 14336, 4096
    w = torch.randn(E, N, Kd, device=dev, dtype=torch.float16) * Kd ** -0.5
    for T in (16, 256, 4096):
        a = torch.randn(T, Kd, device=dev, dtype=torch.float16)
        topk_ids = torch.stack([torch.randperm(E, device=dev)[:TOPK] for _ in range(T)]).int()
        topk_w = torch.rand(T, TOPK, device=dev)
        ref = torch.empty(T * TOPK, N, device=dev)
        flat = topk_ids.reshape(-1)
        for e in range(E):
            sel = torch.nonzero(flat == e).flatten()
            ref[sel] = (a[sel // TOPK].float() @ w[e].float().T) * topk_w.reshape(-1)[sel, None]
        c = torch.empty(T * TOPK, N, device=dev, dtype=torch.float16)
        res = {}
        for BM, BN, BK, G, warps, stages in MOE_CONFIGS:
            sorted_ids, expert_ids, padded = ours_moe.align_tokens(topk_ids.cpu().numpy(), E, BM)
            EM = T * TOPK + E * (BM - 1)
            sorted_full = torch.full((EM,), T * TOPK, dtype=torch.int32)
            sorted_full[:sorted_ids.size] = torch.from_numpy(sorted_ids)
            expert_full = torch.zeros(cdiv(EM, BM), dtype=torch.int32)
            expert_full[:expert_ids.size] = torch.from_numpy(expert_ids)
            sorted_full, expert_full, padded = sorted_full.to(dev), expert_full.to(dev), torch.from_numpy(padded).to(dev)

            def run_moe(k, BM=BM, BN=BN, BK=BK, G=G, warps=warps, stages=stages, sorted_full=sorted_full,
                        expert_full=expert_full, padded=padded, EM=EM, a=a, c=c, ref=ref, topk_w=topk_w, T=T):
                call = lambda: k[(cdiv(EM, BM) * cdiv(N, BN),)](  # noqa: E731
                    a, w, c, topk_w, sorted_full, expert_full, padded, N, Kd, EM, T * TOPK, a.stride(0), a.stride(1),
                    w.stride(0), w.stride(1), w.stride(2), c.stride(0), c.stride(1), BLOCK_M=BM, BLOCK_N=BN,
                    BLOCK_K=BK, GROUP_M=G, MUL_ROUTED_WEIGHT=True, TOP_K=TOPK, num_warps=warps, num_stages=stages)
                ms, err = timed(call, c, ref)
                return ms, err / ref.abs().max().item()

            cfg = "%dx%dx%d g%d w%d s%d" % (BM, BN, BK, G, warps, stages)
            for tag, (ms, err) in both("fused_moe_kernel", run_moe, (("tritonc", ours_moe), ("triton", theirs_moe))).items():
                res[tag + " " + cfg] = (ms, err)
                if tag not in res or ms < res[tag][0]:
                    res[tag] = (ms, err)
        record("fused-moe", "T%d E%d top%d %dx%d" % (T, E, TOPK, N, Kd), "TFLOP/s", 2.0 * T * TOPK * N * Kd / 1e3, res)


QUANT_CONFIGS = ((16, 64, 128, 4, 4), (32, 128, 128, 4, 4), (64, 128, 64, 4, 4), (128, 128, 64, 8, 3),
                 (128, 256, 64, 8, 3))
if want("quant"):
    N, Kd, G = 4096, 4096, 128
    w = torch.randn(Kd, N, device=dev, dtype=torch.float32)
    w8, s8 = ours_quant.quantize_w8(w.cpu().numpy())
    w4, s4 = ours_quant.quantize_w4(w.cpu().numpy(), G)
    w8_dev, s8_dev = torch.from_numpy(w8).to(dev), torch.from_numpy(s8).to(dev)
    w4_dev, s4_dev = torch.from_numpy(w4).to(dev), torch.from_numpy(s4).to(dev)
    deq8 = (torch.from_numpy(w8.astype("float64") * s8.astype("float64")[None, :])).to(dev)
    deq4 = torch.from_numpy(ours_quant.dequantize_w4(w4, s4, G)).to(dev)
    for M in (16, 128, 4096):
        x = torch.randn(M, Kd, device=dev, dtype=torch.float16)
        y = torch.empty(M, N, device=dev, dtype=torch.float16)
        for label, deq, fn in (("w8a16", deq8, "matmul_w8a16_kernel"), ("w4a16", deq4, "matmul_w4a16_kernel")):
            ref = x.double() @ deq
            peer_w = deq.half()
            ms, err = timed(lambda: torch.matmul(x, peer_w, out=y), y, ref)
            res = {"cublas-f16": (ms, err / ref.abs().max().item())}
            for BM, BN, BK, warps, stages in QUANT_CONFIGS:
                if M <= 16 and BM > 32 or M >= 4096 and BM < 64:
                    continue

                def run_q(k, BM=BM, BN=BN, BK=BK, warps=warps, stages=stages, x=x, y=y, ref=ref, label=label):
                    grid = (cdiv(M, BM) * cdiv(N, BN),)
                    if label == "w8a16":
                        call = lambda: k[grid](x, w8_dev, s8_dev, y, M, N, Kd, Kd, N, N, BLOCK_M=BM,  # noqa: E731
                                               BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, num_warps=warps, num_stages=stages)
                    else:
                        call = lambda: k[grid](x, w4_dev, s4_dev, y, M, N, Kd, Kd, N, N, N, BLOCK_M=BM,  # noqa: E731
                                               BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, GROUP_K=G, num_warps=warps,
                                               num_stages=stages)
                    ms, err = timed(call, y, ref)
                    return ms, err / ref.abs().max().item()

                cfg = "%dx%dx%d w%d s%d" % (BM, BN, BK, warps, stages)
                for tag, (ms, err) in both(fn, run_q, (("tritonc", ours_quant), ("triton", theirs_quant))).items():
                    res[tag + " " + cfg] = (ms, err)
                    if tag not in res or ms < res[tag][0]:
                        res[tag] = (ms, err)
            record(label, "%dx%dx%d" % (M, N, Kd), "TFLOP/s", 2.0 * M * N * Kd / 1e3, res)


W8A8_CONFIGS = ((16, 64, 128, 4, 4), (32, 128, 128, 4, 4), (64, 128, 128, 4, 4), (128, 128, 128, 8, 3),
                (128, 256, 128, 8, 3), (128, 256, 64, 8, 4))
if want("w8a8"):
    N, Kd = 4096, 4096
    wq = torch.randint(-127, 128, (N, Kd), device=dev, dtype=torch.int8)  # [N, K], as torch's Linear
    sw = torch.rand(N, device=dev) * 0.01 + 0.001
    bias = torch.randn(N, device=dev)
    wq_kn = wq.t().contiguous()  # [K, N]: N contiguous
    for M, layouts in ((32, ("nk",)), (128, ("nk",)), (4096, ("nk", "kn"))):
        xq = torch.randint(-127, 128, (M, Kd), device=dev, dtype=torch.int8)
        sx = torch.rand(M, device=dev) * 0.01 + 0.001
        y = torch.empty(M, N, device=dev, dtype=torch.float16)
        ref = (xq.double() @ wq.double().t()) * sx.double()[:, None] * sw.double()[None, :] + bias.double()
        scale = ref.abs().max().item()
        for layout in layouts:
            res = {}
            acc32 = torch.empty(M, N, device=dev, dtype=torch.int32)
            ms = do_bench(lambda: torch._int_mm(xq, wq.t(), out=acc32), return_mode="median")
            res["torch-int-mm"] = (ms, 0.0)
            xh, wh, yh = xq.half(), wq.half(), torch.empty(M, N, device=dev, dtype=torch.float16)
            res["cublas-f16"] = (do_bench(lambda: torch.matmul(xh, wh.t(), out=yh), return_mode="median"), 0.0)
            b_dev, sk, sn = (wq, 1, Kd) if layout == "nk" else (wq_kn, N, 1)
            for BM, BN, BK, warps, stages in W8A8_CONFIGS:
                if M <= 32 and BM > 32 or M >= 4096 and BM < 64:
                    continue

                def run_w8a8(k, BM=BM, BN=BN, BK=BK, warps=warps, stages=stages, xq=xq, sx=sx, y=y, ref=ref,
                             b_dev=b_dev, sk=sk, sn=sn):
                    grid = (cdiv(M, BM) * cdiv(N, BN),)
                    call = lambda: k[grid](xq, b_dev, sx, sw, bias, y, M, N, Kd, Kd, sk, sn, N,  # noqa: E731
                                           BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, num_warps=warps,
                                           num_stages=stages)
                    ms, err = timed(call, y, ref)
                    return ms, err / scale

                cfg = "%dx%dx%d w%d s%d" % (BM, BN, BK, warps, stages)
                for tag, (ms, err) in both("scaled_mm_w8a8_kernel", run_w8a8,
                                           (("tritonc", ours_quant), ("triton", theirs_quant))).items():
                    res[tag + " " + cfg] = (ms, err)
                    if tag not in res or ms < res[tag][0]:
                        res[tag] = (ms, err)
            record("w8a8-" + layout, "%dx%dx%d" % (M, N, Kd), "TOP/s", 2.0 * M * N * Kd / 1e3, res)


if want("llm"):
    bf = torch.bfloat16
    LLM = (("tritonc", ours_llm), ("triton", theirs_llm))
    for R, C in ((4096, 4096), (16384, 8192)):  # RMSNorm over rows of C
        x = torch.randn(R, C, device=dev, dtype=bf)
        w = torch.randn(C, device=dev, dtype=bf)
        y = torch.empty_like(x)
        rstd = torch.empty(R, device=dev)
        ref = (x.double() * torch.rsqrt(x.double().pow(2).mean(-1, keepdim=True) + 1e-6) * w.double())
        BLOCK = 1 << (C - 1).bit_length()

        def run_rms(k, x=x, w=w, y=y, rstd=rstd, ref=ref, R=R, C=C, BLOCK=BLOCK):
            return timed(lambda: k[(R,)](y, x, w, rstd, C, C, 1e-6, BLOCK=BLOCK, num_warps=8 if C <= 4096 else 16),
                         y, ref)

        res = both("rms_norm_fwd", run_rms, LLM)
        res["torch"] = (do_bench(lambda: torch.nn.functional.rms_norm(x, (C,), w, 1e-6), return_mode="median"), None)
        record("rmsnorm-fwd", "%dx%d" % (R, C), "GB/s", 2.0 * R * C * 2 + C * 2 + R * 4, res)

        dy = torch.randn(R, C, device=dev, dtype=bf)
        dx = torch.empty(R, C, device=dev, dtype=torch.float32)
        ours_llm.rms_norm_fwd[(R,)](y, x, w, rstd, C, C, 1e-6, BLOCK=BLOCK)
        xd = x.double()
        xhat = xd * rstd.double()[:, None]
        wdy = w.double() * dy.double()
        ref_dx = rstd.double()[:, None] * (wdy - xhat * (wdy * xhat).sum(-1, keepdim=True) / C)
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        rows_per = -(-R // (4 * sms))
        progs = -(-R // rows_per)
        dw_part = torch.empty(progs, C, device=dev)

        def run_rms_bwd(k, rows_per=rows_per, progs=progs, dx=dx, dy=dy, x=x, w=w, R=R, C=C, BLOCK=BLOCK,
                        dw_part=dw_part, ref_dx=ref_dx):
            return timed(lambda: k[(progs,)](dx, dw_part, dy, x, w, rstd, C, R, C, rows_per, BLOCK=BLOCK,
                                               num_warps=8 if C <= 4096 else 16), dx, ref_dx)

        res = both("rms_norm_bwd", run_rms_bwd, LLM)
        record("rmsnorm-bwd", "%dx%d" % (R, C), "GB/s", 3.0 * R * C * 2 + R * C * 4, res)

    for R, V in ((4096, 32000), (8192, 128256)):  # cross-entropy over a vocabulary of V
        logits0 = torch.randn(R, V, device=dev, dtype=bf)
        labels = torch.randint(0, V, (R,), device=dev)
        labels[::7] = -100
        n_valid = int((labels != -100).sum().item())
        loss = torch.empty(R, device=dev)
        lg = logits0.float()
        lse = torch.logsumexp(lg.double(), -1)
        ref_loss = torch.where(labels == -100, 0.0, lse - lg.double().gather(1, labels.clamp(min=0)[:, None])[:, 0])
        work = torch.empty_like(logits0)

        def run_ce(k, R=R, V=V, labels=labels, loss=loss, work=work, n_valid=n_valid, ref_loss=ref_loss):
            def call():
                work.copy_(logits0)  # in place: a fresh copy each run (timed for every peer alike)
                k[(R,)](work, labels, loss, V, V, -100, n_valid, BLOCK=4096, num_warps=8)
            return timed(call, loss, ref_loss)

        res = both("cross_entropy_fwd_bwd", run_ce, LLM)

        def torch_ce(work=work):
            work.copy_(logits0)
            t = work.float().requires_grad_(True)
            torch.nn.functional.cross_entropy(t, labels, ignore_index=-100).backward()
        res["torch"] = (do_bench(torch_ce, return_mode="median"), None)
        res["copy-alone"] = (do_bench(lambda: work.copy_(logits0), return_mode="median"), None)
        record("cross-entropy", "%dx%d" % (R, V), "GB/s", 3.0 * R * V * 2, res)

    for n in (1 << 24, 1 << 27):  # SwiGLU's gate
        a = torch.randn(n, device=dev, dtype=bf)
        b = torch.randn(n, device=dev, dtype=bf)
        c = torch.empty_like(a)
        ref = (torch.nn.functional.silu(a.double()) * b.double())

        def run_swiglu(k, a=a, b=b, c=c, n=n, ref=ref):
            return timed(lambda: k[(cdiv(n, 1024),)](a, b, c, n, BLOCK=1024), c, ref)

        res = both("swiglu_fwd", run_swiglu, LLM)
        res["torch"] = (do_bench(lambda: torch.mul(torch.nn.functional.silu(a), b, out=c), return_mode="median"), None)
        record("swiglu", "%d" % n, "GB/s", 3.0 * n * 2, res)

    for T, H, D in ((4096, 32, 128), (16384, 32, 128)):  # rotary embeddings, in place
        q0 = torch.randn(T, H, D, device=dev)
        ang = torch.rand(T, D // 2, device=dev) * 6.28
        cos, sin = ang.cos(), ang.sin()
        x1, x2 = q0[..., : D // 2].double(), q0[..., D // 2:].double()
        cd, sd = cos.double()[:, None, :], sin.double()[:, None, :]
        ref = torch.cat([x1 * cd - x2 * sd, x2 * cd + x1 * sd], -1)
        q = torch.empty_like(q0)

        def run_rope(k, q=q, T=T, H=H, D=D, ref=ref):
            def call():
                q.copy_(q0)
                k[(T, H)](q, cos, sin, T, H, HEAD_DIM=D)
            return timed(call, q, ref)

        res = both("rope_fwd", run_rope, LLM)
        res["copy-alone"] = (do_bench(lambda: q.copy_(q0), return_mode="median"), None)
        record("rope", "%dx%dx%d" % (T, H, D), "GB/s", 2.0 * T * H * D * 4 + 2 * T * D // 2 * 4, res)


# ---- cold compile of one matmul configuration, and launch overhead ----
parts = {}


def cold_compile(mod, tag):
    """ms of a first launch beyond a warm one: compile (and, for both
    compilers, the driver's PTX-to-SASS step) of one matmul configuration."""
    a = torch.randn(512, 512, device=dev, dtype=torch.float16)
    c = torch.empty(512, 512, device=dev, dtype=torch.float16)
    k = mod.matmul_kernel
    args = (a, a, c, 512, 512, 512, 512, 1, 512, 1, 512, 1)
    kw = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=4, num_stages=3)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    if tag == "tritonc":
        k.warmup(*args, **kw)  # the Python front end: AST to Triton-IR
        parts["tritonc_front_end_ms"] = (time.perf_counter() - t0) * 1e3
    k[(16,)](*args, **kw)
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(10):
        k[(16,)](*args, **kw)
    torch.cuda.synchronize()
    steady = (time.perf_counter() - t0) / 10
    return (first - steady) * 1e3


def launch_us(mod):
    x = torch.rand(1024, device=dev)
    out = torch.empty_like(x)
    k = mod.add_kernel
    for _ in range(100):
        k[(1,)](x, x, out, 1024, BLOCK_SIZE=1024)
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(1000):
            k[(1,)](x, x, out, 1024, BLOCK_SIZE=1024)
        best = min(best, (time.perf_counter() - t0) / 1000 * 1e6)
        torch.cuda.synchronize()
    return best


extra = {"cold_compile_ms": {}, "launch_us": {}}
# ---- tl.gather: a per-row shuffle and a codebook lookup (gather_kernels.py) ----
if want("gather"):
    GATHER = (("tritonc", ours_gather), ("triton", theirs_gather))
    for M, N in ((65536, 128), (16384, 1024)):
        x = torch.randn(M, N, device=dev)
        idx = torch.randint(0, N, (M, N), device=dev, dtype=torch.int32)
        out = torch.empty(M, N, device=dev)
        ref = torch.gather(x, 1, idx.long())
        BM = max(1, 4096 // N)

        def run_rows(k, x=x, idx=idx, out=out, ref=ref, M=M, N=N, BM=BM):
            return timed(lambda: k[(cdiv(M, BM),)](x, idx, out, M, N=N, K=N, BLOCK_M=BM), out, ref)

        res = both("gather_rows", run_rows, GATHER)
        res["torch"] = (do_bench(lambda: torch.gather(x, 1, idx.long(), out=out), return_mode="median"), None)
        record("gather-rows", "%dx%d" % (M, N), "GB/s", 12.0 * M * N, res)
    n = 1 << 26
    codes = torch.randint(0, 16, (n,), device=dev, dtype=torch.uint8)
    table = torch.randn(16, device=dev, dtype=torch.float16)
    scales = torch.rand(n // 64, device=dev)
    deq = torch.empty(n, device=dev, dtype=torch.float16)
    ref = (table[codes.long()].float() * scales.repeat_interleave(64)).half()

    def run_codebook(k):
        return timed(lambda: k[(cdiv(n, 1024),)](codes, table, scales, deq, n, BLOCK=1024), deq, ref)

    res = both("codebook_dequant", run_codebook, GATHER)
    record("codebook", "%d" % n, "GB/s", 3.0 * n + n // 16, res)

# ---- tl.cumsum along rows (scan_kernels.py) ----
if want("scan"):
    SCAN = (("tritonc", ours_scan), ("triton", theirs_scan))
    for R, C in ((16384, 1000), (4096, 4096)):
        x = torch.randn(R, C, device=dev)
        y = torch.empty_like(x)
        ref = torch.cumsum(x.double(), 1)
        block = 1 << (C - 1).bit_length()
        warps = 4 if block <= 1024 else 8

        def run_scan(k, x=x, y=y, ref=ref, R=R, C=C, block=block, warps=warps):
            return timed(lambda: k[(R,)](x, y, C, x.stride(0), BLOCK=block, num_warps=warps), y, ref)

        res = both("row_cumsum", run_scan, SCAN)
        res["torch"] = (do_bench(lambda x=x, y=y: torch.cumsum(x, 1, out=y), return_mode="median"), None)
        record("cumsum", "%dx%d" % (R, C), "GB/s", 8.0 * R * C, res)
        # A linear recurrence (a tuple scan with a combine function):
        # decays in [0.99, 1) keep the products in f32's range at 4096.
        a = 1 - torch.rand(R, C, device=dev) * 0.01
        b = torch.randn(R, C, device=dev)
        p = torch.cumprod(a.double(), 1)
        ref_h = p * torch.cumsum(b.double() / p, 1)

        def run_recurrence(k, a=a, b=b, y=y, ref=ref_h, R=R, C=C, block=block, warps=warps):
            return timed(lambda: k[(R,)](a, b, y, C, a.stride(0), BLOCK=block, num_warps=warps), y, ref)

        res = both("row_recurrence", run_recurrence, SCAN)
        record("recurrence", "%dx%d" % (R, C), "GB/s", 12.0 * R * C, res)

# ---- tl.sort and tl.topk along rows (sort_kernels.py) ----
if want("sort"):
    SORT = (("tritonc", ours_sort), ("triton", theirs_sort))
    for R, C in ((16384, 1000), (4096, 4096)):
        x = torch.randn(R, C, device=dev)
        y = torch.empty_like(x)
        ref = torch.sort(x, 1).values
        block = 1 << (C - 1).bit_length()
        warps = 4 if block <= 1024 else 8

        def run_sort(k, x=x, y=y, ref=ref, R=R, C=C, block=block, warps=warps):
            return timed(lambda: k[(R,)](x, y, C, x.stride(0), BLOCK=block, num_warps=warps), y, ref)

        res = both("row_sort", run_sort, SORT)
        res["torch"] = (do_bench(lambda x=x, y=y: torch.sort(x, 1, out=(y, torch.empty(x.shape, device=dev,
                                                                                           dtype=torch.long))),
                                 return_mode="median"), None)
        record("sort", "%dx%d" % (R, C), "GB/s", 8.0 * R * C, res)
        K = 16 if C <= 1024 else 64
        top = torch.empty(R, K, device=dev)
        ref_top = torch.topk(x, K, 1).values

        def run_topk(k, x=x, top=top, ref=ref_top, R=R, C=C, K=K, block=block, warps=warps):
            return timed(lambda: k[(R,)](x, top, C, x.stride(0), K=K, BLOCK=block, num_warps=warps), top, ref)

        res = both("row_topk", run_topk, SORT)
        res["torch"] = (do_bench(lambda x=x, K=K: torch.topk(x, K, 1), return_mode="median"), None)
        record("topk", "%dx%d k=%d" % (R, C, K), "GB/s", 4.0 * R * (C + K), res)

if want("compile"):
    extra["cold_compile_ms"]["tritonc"] = cold_compile(load_kernels(False), "tritonc")
    if theirs is not None:
        extra["cold_compile_ms"]["triton"] = cold_compile(load_kernels(True), "triton")
    extra["cold_compile_ms"].update(parts)
if want("launch"):
    extra["launch_us"]["tritonc"] = launch_us(ours)
    if theirs is not None:
        extra["launch_us"]["triton"] = launch_us(theirs)
print("cold compile (ms):", extra["cold_compile_ms"], " launch (us):", extra["launch_us"])

commit = commit_label()
doc = {"date": time.strftime("%Y-%m-%d"), "device": torch.cuda.get_device_name(), "commit": commit,
       "versions": {"torch": torch.__version__, "triton": triton_version, "tritonc": tritonc.version()},
       "timing": "tritonc.testing.do_bench median (CUDA events, L2 flushed)", "rows": rows,
       "best_configs": best_configs, "front_ends_ms": front_ends, "ab": AB or None, **extra}
with open(os.path.join(OUT, "dsl.json"), "w") as f:
    json.dump(doc, f, indent=1)
