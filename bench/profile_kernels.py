# Runs a few fixed configurations of our user-style kernels and the Triton
# kernels written the same way, two launches each, for a profiler to look at
# side by side (no tuning, so that every launch is one of these):
#   ncu --section SpeedOfLight ... python3 bench/profile_kernels.py [matmul|matmul-f32|matmul-small|conv|attention|dsl-attention|...]...
# Prints each kernel's median time (CUDA events) when run without a profiler.
import math, os, sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tritonc  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
what = set(sys.argv[1:]) or {"matmul", "conv", "attention"}
dev = torch.device("cuda")


def src(path):
    with open(os.path.join(ROOT, path)) as f:
        return tritonc.kernel(f.read(), filename=path)


def cdiv(a, b):
    return -(-a // b)


DUMP = os.environ.get("DUMP_DIR")


def run(name, fn):
    for _ in range(2):
        r = fn()
    torch.cuda.synchronize()
    # Triton's launches return the compiled kernel: keep its PTX and SASS
    # (DUMP_DIR) to read beside ours.
    asm = getattr(r, "asm", None)
    if DUMP and asm:
        stem = os.path.join(DUMP, name.split()[0] + "_" + "_".join(name.split()[1:]).replace("/", "_"))
        meta = getattr(r, "metadata", None)
        if meta is not None:  # Triton's shared memory and registers
            print(f"{name}: shared {getattr(meta, 'shared', '?')} B, registers {getattr(r, 'n_regs', '?')}, "
                  f"spills {getattr(r, 'n_spills', '?')}", flush=True)
        for kind in ("ptx", "sass"):
            if kind in asm:
                with open(stem + "." + kind, "w") as f:
                    f.write(asm[kind] if isinstance(asm[kind], str) else asm[kind].decode())
    if os.environ.get("PROFILE_TIMES", "1") == "1":
        ms = triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median")
        print(f"{name:60} {ms:8.4f} ms", flush=True)


def masked_matmul(mm, M, N, K, cfg):
    """Fresh f16 operands of M x K and K x N, and the user-style masked
    matmul `mm` (bench/kernels/matmul_masked.tc) at cfg = (TM, TN, TK,
    num_warps, num_stages[, num_ctas]), timed under its name; returns the operands."""
    tm, tn, tk, w, s = cfg[:5]
    ctas = cfg[5] if len(cfg) > 5 else 1
    a = torch.randn(M, K, device=dev, dtype=torch.float16)
    b = torch.randn(K, N, device=dev, dtype=torch.float16)
    c = torch.empty(M, N, device=dev, dtype=torch.float16)
    run(f"tritonc matmul {M}x{N}x{K} {tm}x{tn}x{tk} w{w} s{s} ctas{ctas}",
        lambda: mm(a, b, c, M, N, K, K, N, N, grid=(cdiv(M, tm), cdiv(N, tn)), TYPE=torch.float16,
                   TM=tm, TN=tn, TK=tk, num_warps=w, num_stages=s, num_ctas=ctas))
    return a, b, c


if "matmul" in what:
    import shapes_peers as peers  # the Triton kernels of bench/shapes.py, without autotuning
    mm = src("bench/kernels/matmul_masked.tc")
    for (M, N, K), (tm, tn, tk, w, s) in (((4096, 4096, 4096), (128, 256, 64, 8, 3)),
                                          ((4096, 1024, 1024), (128, 256, 64, 8, 3)),
                                          ((4096, 1024, 1024), (128, 128, 64, 8, 4)),
                                          ((1760, 7000, 1760), (128, 256, 64, 8, 3))):
        a, b, c = masked_matmul(mm, M, N, K, (tm, tn, tk, w, s))
        run(f"cublas  matmul {M}x{N}x{K}", lambda: torch.matmul(a, b))
        run(f"triton  matmul {M}x{N}x{K} {tm}x{tn}x{tk} w{w} s{s}",
            lambda: peers.tri_matmul_fixed[(cdiv(M, tm), cdiv(N, tn))](
                a, b, c, M, N, K, K, N, N, TRANS_B=False, PREC="tf32", BM=tm, BN=tn, BK=tk, num_warps=w,
                num_stages=s))

if "matmul-f32" in what:
    # f32 without tf32 (FMA on the cores) at 4096^3: the sweep's best
    # configuration and 128 x 256 at 8 warps beside cuBLAS's SGEMM.
    torch.backends.cuda.matmul.allow_tf32 = False
    mm = src("bench/kernels/matmul_masked.tc")
    M = N = K = 4096
    a = torch.randn(M, K, device=dev)
    b = torch.randn(K, N, device=dev)
    c = torch.empty(M, N, device=dev)
    for tm, tn, tk, w, s in ((64, 128, 32, 4, 2), (128, 256, 32, 8, 3)):
        run(f"tritonc matmul f32 {M}x{N}x{K} {tm}x{tn}x{tk} w{w} s{s}",
            lambda tm=tm, tn=tn, tk=tk, w=w, s=s: mm(a, b, c, M, N, K, K, N, N, grid=(cdiv(M, tm), cdiv(N, tn)),
                                                     TYPE=torch.float32, TM=tm, TN=tn, TK=tk, num_warps=w,
                                                     num_stages=s))
    run(f"cublas  matmul f32 {M}x{N}x{K}", lambda: torch.matmul(a, b))

if "matmul-small" in what:
    # 1000^3, where a launch is ~10 us: the sweep's best configuration
    # (bench/matmul_sweep.py) beside the kernel cuBLAS runs.
    mm = src("bench/kernels/matmul_masked.tc")
    fns = {}
    # (the sweep's best, its TK=128 neighbour, without pairs, and two
    # consumer warpgroups over 128 x 64 and 64 x 128, as cuBLAS has two)
    for cfg in ((64, 128, 64, 4, 4, 2), (64, 128, 128, 4, 3, 2), (64, 128, 64, 4, 4, 1), (128, 64, 64, 8, 4, 2),
                (64, 128, 64, 8, 4, 2)):
        a, b, c = masked_matmul(mm, 1000, 1000, 1000, cfg)
        tm, tn, tk, w, s, ctas = cfg
        fns[f"tritonc {cfg}"] = (lambda a=a, b=b, c=c, tm=tm, tn=tn, tk=tk, w=w, s=s, ctas=ctas: mm(
            a, b, c, 1000, 1000, 1000, 1000, 1000, 1000, grid=(cdiv(1000, tm), cdiv(1000, tn)), TYPE=torch.float16,
            TM=tm, TN=tn, TK=tk, num_warps=w, num_stages=s, num_ctas=ctas))
    run("cublas  matmul 1000x1000x1000", lambda: torch.matmul(a, b))
    fns["cublas"] = lambda: torch.matmul(a, b)
    fns["tritonc.ops.dot"] = lambda: tritonc.ops.dot(a, b)
    if os.environ.get("PROFILE_TIMES", "1") == "1":
        # Where an event-timed call's time goes: torch's profiler gives each
        # kernel's time on the device and the gap from the end of the cache
        # flush before it (as do_bench runs them) to its start.
        from torch.profiler import ProfilerActivity, profile
        cache = torch.empty(int(256e6 // 4), dtype=torch.int, device=dev)
        for name, fn in fns.items():
            fn()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(30):
                    cache.zero_()
                    fn()
                torch.cuda.synchronize()
            kernels = sorted((e for e in prof.events() if e.device_type.name == "CUDA" and e.time_range.elapsed_us() > 0),
                             key=lambda e: e.time_range.start)
            calls = []  # per call: (gap after the flush, device time of its kernels)
            flush_end, flushes = None, 0
            for e in kernels:
                if "fill" in e.name.lower():  # cache.zero_()
                    flush_end, flushes = e.time_range.end, flushes + 1
                elif flush_end is not None:
                    if not calls or calls[-1][0] != flushes:
                        calls.append([flushes, e.time_range.start - flush_end, 0.0])
                    calls[-1][2] += e.time_range.elapsed_us()
            gaps = sorted(c[1] for c in calls)
            times = sorted(c[2] for c in calls)
            print(f"  {name:32} device time {times[len(times) // 2]:.2f} us per call (median of {len(times)}), gap "
                  f"after the flush {gaps[len(gaps) // 2]:.2f} us; kernels: {sorted({e.name[:48] for e in kernels})}",
                  flush=True)

if "conv" in what:
    import shapes_peers as peers
    cv = src("examples/conv_nhwc.tc")
    for B, H, W, C, K, R, S in ((4, 56, 56, 128, 256, 3, 3),):
        P, Q = H - R + 1, W - S + 1
        x = torch.randn(B, H, W, C, device=dev, dtype=torch.float16)
        wt = torch.randn(K, R, S, C, device=dev, dtype=torch.float16)
        y = torch.empty(B, P, Q, K, device=dev, dtype=torch.float16)
        for tm, tn, tk, w, s in ((128, 128, 64, 8, 3), (128, 128, 32, 4, 3)):
            run(f"tritonc conv_nhwc {H}x{W}x{C}>{K} {tm}x{tn}x{tk} w{w} s{s}",
                lambda: cv(x, wt, y, B, C, H, W, K, P, Q, R, S, 0, 0, grid=(cdiv(B * P * Q, tm), cdiv(K, tn)),
                           TYPE=torch.float16, TM=tm, TN=tn, TK=tk, num_warps=w, num_stages=s))
        xx = x.permute(0, 3, 1, 2)
        ww = wt.permute(0, 3, 1, 2)
        xl, wl = xx.contiguous(memory_format=torch.channels_last), ww.contiguous(memory_format=torch.channels_last)
        torch.backends.cudnn.benchmark = True
        run(f"cudnn   conv_nhwc {H}x{W}x{C}>{K}", lambda: torch.nn.functional.conv2d(xl, wl))

if "attention" in what:
    import shapes_peers as peers
    at = src("examples/attention.tc")
    for Bt, Hh, L, D, causal in ((4, 32, 4096, 64, False),):
        q, k, v = (torch.randn(Bt, Hh, L, D, device=dev, dtype=torch.float16) for _ in range(3))
        o = torch.empty_like(q)
        scale = 1 / math.sqrt(D)
        for bm, bn, w, s in ((128, 64, 8, 2), (128, 64, 8, 3), (128, 128, 8, 2)):
            run(f"tritonc attention L{L} d{D} {bm}x{bn} w{w} s{s}",
                lambda: at(q, k, v, o, L, scale, grid=(cdiv(L, bm), Bt * Hh), TYPE=torch.float16, HEAD=D,
                           CAUSAL=int(causal), BM=bm, BN=bn, num_warps=w, num_stages=s))
            run(f"triton  attention L{L} d{D} {bm}x{bn} w{w} s{s}",
                lambda: peers.tri_attention_fixed[(cdiv(L, bm), Bt * Hh)](
                    q, k, v, o, L, scale, HEAD=D, CAUSAL=causal, BM=bm, BN=bn, num_warps=w, num_stages=s))

if "dsl-attention" in what:
    # The Python DSL's attention (python/tests/dsl_kernels.py, the tutorial's
    # form: block pointers, exp2, causal split in two loops) compiled by us
    # and by Triton, as bench/dsl_bench.py times them.
    import importlib.util
    mods = {}
    for who in ("tritonc", "triton"):
        text = open(os.path.join(ROOT, "python/tests/dsl_kernels.py")).read()
        if who == "triton":
            text = text.replace("import tritonc as triton", "import triton").replace(
                "import tritonc.language as tl", "import triton.language as tl")
        import tempfile
        path = os.path.join(tempfile.mkdtemp(), f"dsl_kernels_{who}.py")
        open(path, "w").write(text)
        spec = importlib.util.spec_from_file_location(f"dsl_kernels_{who}", path)
        mods[who] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mods[who])
    Z, H, NC, D = 4, 16, 4096, 64
    q, k, v = (torch.randn(Z, H, NC, D, device=dev, dtype=torch.float16) * 0.5 for _ in range(3))
    o = torch.empty_like(q)
    for causal in (False, True):
        for w in (8, 4):
            for who, mod in mods.items():
                run(f"{who:7} dsl-attention {'causal' if causal else 'full'} w{w}",
                    lambda mod=mod, w=w, causal=causal: mod.attention_fwd[(cdiv(NC, 128), Z * H)](
                        q, k, v, 0.125, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(), Z, H, NC,
                        HEAD_DIM=D, BLOCK_M=128, BLOCK_N=64, CAUSAL=causal, num_warps=w, num_stages=3))

if "sweep" in what:
    # Configurations the tuning spaces leave out, on the shapes that fall short.
    mm = src("bench/kernels/matmul_masked.tc")
    nt = src("bench/kernels/matmul_masked_nt.tc")
    for (M, N, K), cfgs in (((1000, 1000, 1000), ((128, 64, 64, 4, 3), (128, 64, 64, 4, 4), (128, 64, 64, 4, 5),
                                                   (128, 64, 64, 4, 6), (64, 64, 64, 4, 4), (64, 64, 64, 4, 6),
                                                   (64, 128, 64, 4, 5), (128, 128, 64, 8, 4), (64, 64, 128, 4, 4))),
                            ((4095, 4095, 4095), ((128, 128, 32, 8, 2), (128, 128, 32, 8, 3), (128, 128, 64, 8, 2),
                                                  (128, 256, 32, 8, 2), (64, 128, 32, 4, 2), (128, 128, 32, 4, 2))),
                            ((1760, 7000, 1760), ((128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (128, 128, 64, 8, 4),
                                                  (256, 128, 64, 8, 3)))):
        a = torch.randn(M, K, device=dev, dtype=torch.float16)
        b = torch.randn(K, N, device=dev, dtype=torch.float16)
        bt = b.t().contiguous()
        c = torch.empty(M, N, device=dev, dtype=torch.float16)
        for tm, tn, tk, w, s in cfgs:
            try:
                run(f"tritonc matmul {M}x{N}x{K} {tm}x{tn}x{tk} w{w} s{s}",
                    lambda: mm(a, b, c, M, N, K, K, N, N, grid=(cdiv(M, tm), cdiv(N, tn)), TYPE=torch.float16,
                               TM=tm, TN=tn, TK=tk, num_warps=w, num_stages=s))
                if M == 1760:
                    run(f"tritonc matmul_nt {M}x{N}x{K} {tm}x{tn}x{tk} w{w} s{s}",
                        lambda: nt(a, bt, c, M, N, K, K, K, N, grid=(cdiv(M, tm), cdiv(N, tn)), TYPE=torch.float16,
                                   TM=tm, TN=tn, TK=tk, num_warps=w, num_stages=s))
            except Exception as e:  # noqa: BLE001
                print(f"{M}x{N}x{K} {tm}x{tn}x{tk} w{w} s{s}: {str(e)[:100]}")
        run(f"cublas  matmul {M}x{N}x{K}", lambda: torch.matmul(a, b))
    sm = src("examples/softmax.tc")
    for R, N in ((4096, 16384), (4096, 12000), (8192, 3000)):
        x = torch.randn(R, N, device=dev)
        y = torch.empty_like(x)
        B = 1 << (N - 1).bit_length()
        for w in (4, 8, 16, 32):
            run(f"tritonc softmax {R}x{N} w{w}", lambda: sm(x, y, N, N, N, grid=(R,), TYPE=torch.float32, BLOCK=B,
                                                            num_warps=w))

if "ragged7000" in what:
    # A B and A B^T at 1760 x 7000 x 1760, one configuration, for the profiler.
    mm = src("bench/kernels/matmul_masked.tc")
    nt = src("bench/kernels/matmul_masked_nt.tc")
    M, N, K = 1760, 7000, 1760
    a = torch.randn(M, K, device=dev, dtype=torch.float16)
    b = torch.randn(K, N, device=dev, dtype=torch.float16)
    bt = b.t().contiguous()
    c = torch.empty(M, N, device=dev, dtype=torch.float16)
    cfg = dict(TYPE=torch.float16, TM=128, TN=256, TK=64, num_warps=8, num_stages=3)
    run("tritonc nn 1760x7000", lambda: mm(a, b, c, M, N, K, K, N, N, grid=(cdiv(M, 128), cdiv(N, 256)), **cfg))
    run("tritonc nt 1760x7000", lambda: nt(a, bt, c, M, N, K, K, K, N, grid=(cdiv(M, 128), cdiv(N, 256)), **cfg))

if "small" in what:
    # Shapes with few output tiles (one wave or less) and the conv tasks that
    # fall short: configurations beyond the tuning spaces, times only.
    mm = src("bench/kernels/matmul_masked.tc")
    for (M, N, K) in ((1000, 1000, 1000), (2048, 128, 2048)):
        a = torch.randn(M, K, device=dev, dtype=torch.float16)
        b = torch.randn(K, N, device=dev, dtype=torch.float16)
        c = torch.empty(M, N, device=dev, dtype=torch.float16)
        run(f"cublas  matmul {M}x{N}x{K}", lambda: torch.matmul(a, b))
        for tm in (64, 128):
            for tn in (32, 64, 128, 256):
                for tk in (64, 128):
                    for w in ((4, 8) if tm * tn >= 128 * 128 else (4,)):
                        for s in (2, 3, 4, 5, 6):
                            try:
                                run(f"tritonc matmul {M}x{N}x{K} {tm}x{tn}x{tk} w{w} s{s}",
                                    lambda: mm(a, b, c, M, N, K, K, N, N, grid=(cdiv(M, tm), cdiv(N, tn)),
                                               TYPE=torch.float16, TM=tm, TN=tn, TK=tk, num_warps=w, num_stages=s))
                            except Exception as e:  # noqa: BLE001 - shared memory too large, printed
                                print(f"matmul {M}x{N}x{K} {tm}x{tn}x{tk} w{w} s{s}: {str(e)[:80]}")
    cv = src("examples/conv_nhwc.tc")
    for B, H, W, C, K, R, S in ((4, 112, 112, 64, 128, 3, 3), (4, 56, 56, 128, 256, 3, 3)):
        P, Q = H - R + 1, W - S + 1
        x = torch.randn(B, H, W, C, device=dev, dtype=torch.float16)
        wt = torch.randn(K, R, S, C, device=dev, dtype=torch.float16)
        y = torch.empty(B, P, Q, K, device=dev, dtype=torch.float16)
        xl = x.permute(0, 3, 1, 2)
        wl = wt.permute(0, 3, 1, 2)
        run(f"cudnn   conv_nhwc {H}x{W}x{C}>{K}", lambda: torch.nn.functional.conv2d(xl, wl))
        for tm, tn, tk, w, s in ((128, 128, 64, 4, 3), (128, 128, 64, 4, 4), (128, 128, 64, 8, 3),
                                 (128, 128, 64, 8, 4), (128, 256, 64, 8, 3), (256, 128, 64, 8, 3),
                                 (128, 128, 32, 4, 4), (64, 128, 64, 4, 4), (128, 64, 64, 4, 4)):
            try:
                run(f"tritonc conv_nhwc {H}x{W}x{C}>{K} {tm}x{tn}x{tk} w{w} s{s}",
                    lambda: cv(x, wt, y, B, C, H, W, K, P, Q, R, S, 0, 0, grid=(cdiv(B * P * Q, tm), cdiv(K, tn)),
                               TYPE=torch.float16, TM=tm, TN=tn, TK=tk, num_warps=w, num_stages=s))
            except Exception as e:  # noqa: BLE001
                print(f"conv {tm}x{tn}x{tk} w{w} s{s}: {str(e)[:80]}")

if "short" in what:
    # The configurations the tuner chose for the shapes that fall short
    # (bench/results, 2026-11-24), one after the other with the peer's call,
    # for a profiler to compare.
    mm = src("bench/kernels/matmul_masked.tc")
    for (M, N, K), (tm, tn, tk, w, s) in (((1000, 1000, 1000), (128, 128, 64, 8, 4)),
                                          ((2048, 128, 2048), (64, 64, 64, 4, 4)),
                                          ((1760, 7000, 1760), (256, 128, 64, 8, 3)),
                                          ((4095, 4095, 4095), (128, 128, 64, 8, 3))):
        a, b, _ = masked_matmul(mm, M, N, K, (tm, tn, tk, w, s))
        run(f"cublas  matmul {M}x{N}x{K}", lambda: torch.matmul(a, b))
    cv = src("examples/conv_nhwc.tc")
    for (B, H, W, C, K, R, S), (tm, tn, tk, w, s) in (((4, 112, 112, 64, 128, 3, 3), (128, 128, 64, 4, 3)),
                                                      ((4, 56, 56, 128, 256, 3, 3), (64, 128, 64, 4, 3))):
        P, Q = H - R + 1, W - S + 1
        x = torch.randn(B, H, W, C, device=dev, dtype=torch.float16)
        wt = torch.randn(K, R, S, C, device=dev, dtype=torch.float16)
        y = torch.empty(B, P, Q, K, device=dev, dtype=torch.float16)
        xl, wl = x.permute(0, 3, 1, 2), wt.permute(0, 3, 1, 2)
        run(f"tritonc conv_nhwc {H}x{W}x{C}>{K} {tm}x{tn}x{tk} w{w} s{s}",
            lambda: cv(x, wt, y, B, C, H, W, K, P, Q, R, S, 0, 0, grid=(cdiv(B * P * Q, tm), cdiv(K, tn)),
                       TYPE=torch.float16, TM=tm, TN=tn, TK=tk, num_warps=w, num_stages=s))
        run(f"cudnn   conv_nhwc {H}x{W}x{C}>{K}", lambda: torch.nn.functional.conv2d(xl, wl))

if "compile" in what:
    # Where a cold compile of one matmul configuration goes: the front end and
    # the C++ passes (warmup, to PTX), ptxas in a process, and the driver
    # loading the PTX (its own compiler) or the cubin.
    import ctypes
    import subprocess
    import tempfile
    import time
    import importlib.util
    spec = importlib.util.spec_from_file_location("dsl_kernels", os.path.join(ROOT, "python/tests/dsl_kernels.py"))
    dk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dk)
    a = torch.randn(512, 512, device=dev, dtype=torch.float16)
    cu = ctypes.CDLL("libcuda.so.1")
    for tm, tn, tk, w, s in ((128, 128, 64, 4, 3), (128, 256, 64, 8, 3)):
        t0 = time.perf_counter()
        compiled = dk.matmul_kernel.warmup(a, a, a, 512, 512, 512, 512, 1, 512, 1, 512, 1, BLOCK_M=tm, BLOCK_N=tn,
                                           BLOCK_K=tk, GROUP_M=8, num_warps=w, num_stages=s)
        t_front = time.perf_counter() - t0
        t0 = time.perf_counter()
        ptx = compiled.asm["ptx"]
        t_ptx = time.perf_counter() - t0
        with tempfile.TemporaryDirectory() as d:
            with open(f"{d}/k.ptx", "w") as f:
                f.write(ptx)
            t0 = time.perf_counter()
            subprocess.run(["ptxas", "-arch=sm_90a", "-O3", f"{d}/k.ptx", "-o", f"{d}/k.cubin"], check=True,
                           capture_output=True)
            t_ptxas = time.perf_counter() - t0
            cubin = open(f"{d}/k.cubin", "rb").read()
        mod = ctypes.c_void_p()
        t0 = time.perf_counter()
        r1 = cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(ptx.encode() + b"\0"))
        t_jit = time.perf_counter() - t0
        cu.cuModuleUnload(mod)
        t0 = time.perf_counter()
        r2 = cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(cubin))
        t_cubin = time.perf_counter() - t0
        cu.cuModuleUnload(mod)
        print(f"compile {tm}x{tn}x{tk} w{w} s{s}: front end {t_front*1e3:.1f} ms, to PTX {t_ptx*1e3:.1f} ms, ptxas {t_ptxas*1e3:.1f} ms, "
              f"driver from PTX {t_jit*1e3:.1f} ms (rc {r1}), from cubin {t_cubin*1e3:.1f} ms (rc {r2}), "
              f"{len(ptx.splitlines())} PTX lines", flush=True)

if "ksweep" in what:
    # Fixed against per-iteration cost at M = N = 1000 (64 output tiles of
    # 128x128 on 132 multiprocessors): times over K for cuBLAS, Triton and our
    # kernel at a few configurations, and ours with the store masked off at run
    # time (DROP: the epilogue's arithmetic stays, its memory traffic goes).
    # KSWEEP_NT=1: the same for x @ w.T (bench/kernels/matmul_masked_nt.tc, B stored N x K).
    import shapes_peers as peers
    nt = os.environ.get("KSWEEP_NT") == "1"
    with open(os.path.join(ROOT, "bench/kernels/matmul_masked_nt.tc" if nt else "bench/kernels/matmul_masked.tc")) as f:
        text = f.read()
    dropped = text.replace("bool checkc[TM, TN] = rm[:, newaxis] < M", "bool checkc[TM, TN] = rm[:, newaxis] < M - DROP")
    assert dropped != text
    mm = tritonc.kernel(dropped, filename="matmul_masked_drop.tc")
    M = N = int(os.environ.get("KSWEEP_MN", "1000"))
    CONFIGS = ((128, 128, 64, 4, 3, 1, 0), (128, 128, 64, 4, 3, 1, 100000), (128, 128, 64, 8, 3, 1, 0),
               (128, 128, 64, 4, 4, 1, 0), (128, 128, 64, 4, 3, 2, 0), (64, 128, 64, 4, 4, 1, 0),
               (128, 64, 64, 4, 4, 1, 0))
    if os.environ.get("KSWEEP_CONFIGS"):  # e.g. "128x128x64w4s5c1,128x128x32w4s8c1"; a final 'n': no store
        import re
        CONFIGS = tuple(tuple(int(g) for g in re.fullmatch(r"(\d+)x(\d+)x(\d+)w(\d+)s(\d+)c(\d+)n?", c).groups())
                        + (100000 if c.endswith("n") else 0,) for c in os.environ["KSWEEP_CONFIGS"].split(","))
    ks = os.environ.get("KSWEEP_K", "64,128,256,512,1000,2000,4000")
    for K in (int(k) for k in ks.split(",")):
        a = torch.randn(M, K, device=dev, dtype=torch.float16)
        b = torch.randn(N, K, device=dev, dtype=torch.float16) if nt else torch.randn(K, N, device=dev,
                                                                                       dtype=torch.float16)
        bm, ldb = (b.t(), K) if nt else (b, N)
        c = torch.empty(M, N, device=dev, dtype=torch.float16)
        ref = a.float() @ bm.float()
        configs = CONFIGS
        if os.environ.get("KSWEEP_ONLY"):  # the first configuration alone, for a profiler
            configs = CONFIGS[:1]
        else:
            run(f"cublas  ksweep {M}x{N}x{K}", lambda: torch.matmul(a, bm))
            run(f"triton  ksweep {M}x{N}x{K} 128x128x64 w4 s3",
                lambda: peers.tri_matmul_fixed[(cdiv(M, 128), cdiv(N, 128))](
                    a, b, c, M, N, K, K, ldb, N, TRANS_B=nt, PREC="tf32", BM=128, BN=128, BK=64, num_warps=4,
                    num_stages=3))
            if nt:
                got = {}
                run(f"tritonc.ops.dot ksweep {M}x{N}x{K}", lambda: got.update(c=tritonc.ops.dot(a, b, False, True)))
                print("  tritonc.ops.dot chose", tritonc.ops.dot_config(M, N, K, a.dtype, False, True),
                      "err %.1e" % ((got["c"].float() - ref).abs().max() / ref.abs().max()).item(), flush=True)
        for tm, tn, tk, w, s, ctas, drop in configs:
            run(f"tritonc ksweep {M}x{N}x{K} {tm}x{tn}x{tk} w{w} s{s} c{ctas}{' nostore' if drop else ''}",
                lambda: mm(a, b, c, M, N, K, K, ldb, N, grid=(cdiv(M, tm), cdiv(N, tn)), TYPE=torch.float16,
                           TM=tm, TN=tn, TK=tk, DROP=drop, num_warps=w, num_stages=s, num_ctas=ctas))
            if not drop:
                err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
                assert err < 1e-2, err

if "rows" in what:
    # Row-wise kernels at the width where we trail Triton most (softmax
    # 8192 x 500, bench/results 2026-11-24): ours and Triton's, same warps.
    import shapes_peers as peers
    sm = src("examples/softmax.tc")
    R, N, B = 8192, 500, 512
    x = torch.randn(R, N, device=dev)
    y = torch.empty_like(x)
    for w in (1, 2, 4):
        run(f"tritonc softmax {R}x{N} w{w}", lambda: sm(x, y, N, N, N, grid=(R,), TYPE=torch.float32, BLOCK=B,
                                                        num_warps=w))
        run(f"triton  softmax {R}x{N} w{w}", lambda: peers.tri_softmax[(R,)](x, y, N, N, N, BLOCK=B, num_warps=w))

if "moe" in what:
    # The DSL's fused mixture-of-experts matmul (python/tests/moe_kernels.py)
    # at the decode tiles (16 x 64 x 128, mma.sync), ours and Triton's running
    # the same function, Mixtral's sizes at 256 tokens; with DUMP_DIR our PTX
    # is written beside Triton's PTX and SASS (assemble ours with ptxas to
    # read its SASS).
    import importlib.util
    import tempfile

    def moe_module(as_triton):
        text = open(os.path.join(ROOT, "python", "tests", "moe_kernels.py")).read()
        if as_triton:
            text = text.replace("import tritonc as triton", "import triton").replace(
                "import tritonc.language as tl", "import triton.language as tl")
        path = os.path.join(tempfile.mkdtemp(), "moe_%s.py" % ("triton" if as_triton else "tritonc"))
        with open(path, "w") as f:
            f.write(text)
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    E, TOPK, N, K, T = 8, 2, 14336, 4096, 256
    w = torch.randn(E, N, K, device=dev, dtype=torch.float16) * K ** -0.5
    a = torch.randn(T, K, device=dev, dtype=torch.float16)
    topk_ids = torch.stack([torch.randperm(E)[:TOPK] for _ in range(T)]).int()
    topk_w = torch.rand(T, TOPK, device=dev)
    c = torch.empty(T * TOPK, N, device=dev, dtype=torch.float16)
    for bm, bn, bk, g, nw, ns in ((16, 64, 128, 1, 4, 4), (64, 128, 64, 8, 4, 4)):
        ours = moe_module(False)
        sorted_ids, expert_ids, padded = ours.align_tokens(topk_ids.numpy(), E, bm)
        EM = sorted_ids.size
        args = (a, w, c, topk_w, torch.from_numpy(sorted_ids).to(dev), torch.from_numpy(expert_ids).to(dev),
                torch.from_numpy(padded).to(dev), N, K, EM, T * TOPK, a.stride(0), a.stride(1), w.stride(0),
                w.stride(1), w.stride(2), c.stride(0), c.stride(1))
        kw = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=g, MUL_ROUTED_WEIGHT=True, TOP_K=TOPK, num_warps=nw,
                  num_stages=ns)
        grid = (cdiv(EM, bm) * cdiv(N, bn),)
        tag = f"{bm}x{bn}x{bk} w{nw} s{ns}"
        if DUMP:
            with open(os.path.join(DUMP, f"tritonc_moe_{bm}x{bn}x{bk}.ptx"), "w") as f:
                f.write(ours.fused_moe_kernel.warmup(*args, grid=grid, **kw).asm["ptx"])
        run(f"tritonc moe T{T} {tag}", lambda: ours.fused_moe_kernel[grid](*args, **kw))
        theirs = moe_module(True)
        run(f"triton  moe T{T} {tag}", lambda: theirs.fused_moe_kernel[grid](*args, **kw))
