# Liger-Kernel's Triton kernels (linkedin/Liger-Kernel, a third-party
# library; its source is not part of tritonc) run unchanged by Triton 3.6 and
# by tritonc, `import triton` resolving to tritonc in the second case
# (tritonc.install_as_triton()): each op forward, and forward with backward,
# at LLM sizes, checked against torch in float64 where torch has the op, and
# timed in the same way for both (CUDA events, L2 flushed, medians).
#   python3 bench/thirdparty_liger.py OUT_DIR LIGER_SRC [--small]
# (--small: sizes divided by 16, on the CPU where there is no GPU: a check
# of the script itself, no timing worth reading.)
# LIGER_SRC holds the package directory liger_kernel (its src/). Each
# compiler runs in a child process of its own (both cannot be `triton` in
# one process); the parent writes OUT_DIR/liger.json and prints a table.
# LIGER_AB=NAME=VALUE adds a third child, tritonc with that environment
# variable set (a compiler switch measured against the default in one run).
import json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def child(which, liger_src, small):
    sys.path.insert(0, liger_src)
    if which == "tritonc":
        import tritonc
        tritonc.install_as_triton()
    import torch
    import torch.nn.functional as F
    if not hasattr(torch, "xpu"):  # (an old torch, as Debian's on the host: Liger asks for XPUs)
        import types
        torch.xpu = types.SimpleNamespace(is_available=lambda: False, device_count=lambda: 0)
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    flush = torch.empty(int(256e6 // 4) if dev.type == "cuda" else 1, dtype=torch.int, device=dev)

    def timed(fn, reps=30, host_ahead=False):
        """Median ms between CUDA events around fn() after an L2 flush.
        host_ahead: the GPU first spins ~2 ms (torch.cuda._sleep) so that the
        host has queued all of fn's launches before the GPU reaches them: the
        time of the kernels alone. Without it the Python of each call (the
        library's, the launcher's) is in the time wherever it outlasts the
        GPU's work, as a training step sees it."""
        if dev.type != "cuda":
            fn()
            return 0.0
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            flush.zero_()
            if host_ahead:
                torch.cuda._sleep(4_000_000)
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
        return sorted(times)[len(times) // 2]

    def kernel_times(fn, reps=10):
        """{kernel name: mean µs per call} from torch.profiler (CUPTI sees the
        launches of both compilers), the L2 flush excluded."""
        if dev.type != "cuda":
            return {}
        from torch.profiler import profile, ProfilerActivity
        fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(reps):
                flush.zero_()
                fn()
            torch.cuda.synchronize()
        out = {}
        for ev in prof.events():
            if ev.device_type.name != "CUDA" or ev.name.startswith(("Memset", "Memcpy")):
                continue
            t = getattr(ev, "device_time", None)
            if t is None:
                t = ev.cuda_time
            out[ev.name] = out.get(ev.name, 0.0) + t / reps
        for n in [n for n in out if "FillFunctor<int>" in n]:  # (the flush's own fill of int32)
            del out[n]
        return {k[:80]: round(v, 2) for k, v in sorted(out.items(), key=lambda kv: -kv[1])}

    def err(out, ref):
        out, ref = out.double(), ref.double()
        return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()

    rows = []

    def op(name, shape, make, run, ref=None):
        """make() -> inputs; run(inputs) -> (outputs, loss to differentiate)."""
        try:
            inputs = make()
            # (the reference's inputs first: Liger's backward passes write
            # their gradients over the inputs)
            rin = [x.detach().double().requires_grad_(x.requires_grad) if isinstance(x, torch.Tensor) and
                   x.is_floating_point() else x for x in inputs]
            outs, loss = run(inputs)
            e = None
            if ref is not None:
                leaves = [x for x in inputs if isinstance(x, torch.Tensor) and x.requires_grad]
                grads = torch.autograd.grad(loss, leaves, retain_graph=True)
                routs, rloss = ref(rin)
                rleaves = [x for x in rin if isinstance(x, torch.Tensor) and x.requires_grad]
                rgrads = torch.autograd.grad(rloss, rleaves)
                e = max([err(o, r) for o, r in zip(outs, routs)] + [err(g, r) for g, r in zip(grads, rgrads)])
            fwd = timed(lambda: run(inputs))
            fwd_gpu = timed(lambda: run(inputs), host_ahead=True)

            def fwd_bwd():
                for x in inputs:
                    if isinstance(x, torch.Tensor):
                        x.grad = None
                _, l = run(inputs)
                l.backward()
            both = timed(fwd_bwd)
            both_gpu = timed(fwd_bwd, host_ahead=True)
            rows.append(dict(op=name, shape=shape, fwd_ms=fwd, fwd_bwd_ms=both, fwd_gpu_ms=fwd_gpu,
                             fwd_bwd_gpu_ms=both_gpu, rel_err=e, kernels_us=kernel_times(fwd_bwd)))
        except Exception as ex:  # noqa: BLE001
            import traceback
            frames = traceback.format_exception(ex)
            rows.append(dict(op=name, shape=shape, error="%s: %s" % (type(ex).__name__, str(ex).splitlines()[0][:200]),
                             trace="".join(frames[-8:])[-3000:]))
        print(json.dumps(rows[-1]), flush=True)

    def leaf(*shape, dtype=torch.bfloat16, scale=1.0):
        return (torch.randn(*shape, device=dev, dtype=torch.float32) * scale).to(dtype).requires_grad_()

    div = 16 if small else 1
    T, H, I, V = 4096 // div, 4096 // div, 11008 // div, 32000 // div
    B, NH, L, D = 4, 32 // div, 2048 // div, 128
    def sq(y):  # the loss the backward differentiates
        return (y.float() ** 2).sum()

    from liger_kernel.ops.rms_norm import LigerRMSNormFunction

    def rms(i):
        y = LigerRMSNormFunction.apply(i[0], i[1], 1e-6, 0.0, "llama", False)
        return (y,), sq(y)

    def rms_ref(i):
        y = i[0] * torch.rsqrt(i[0].pow(2).mean(-1, keepdim=True) + 1e-6) * i[1]
        return (y,), sq(y)
    op("rms_norm", f"{T}x{H} bf16", lambda: [leaf(T, H), leaf(H)], rms, rms_ref)

    from liger_kernel.ops.layer_norm import LigerLayerNormFunction

    def ln(i):
        y = LigerLayerNormFunction.apply(i[0], i[1], i[2], 1e-5)
        return (y,), sq(y)

    def ln_ref(i):
        y = F.layer_norm(i[0], (H,), i[1], i[2], 1e-5)
        return (y,), sq(y)
    op("layer_norm", f"{T}x{H} bf16", lambda: [leaf(T, H), leaf(H), leaf(H)], ln, ln_ref)

    from liger_kernel.ops.swiglu import LigerSiLUMulFunction
    from liger_kernel.ops.geglu import LigerGELUMulFunction

    def swiglu(i):
        y = LigerSiLUMulFunction.apply(i[0], i[1])
        return (y,), sq(y)

    def swiglu_ref(i):
        y = F.silu(i[0]) * i[1]
        return (y,), sq(y)

    def geglu(i):
        y = LigerGELUMulFunction.apply(i[0], i[1])
        return (y,), sq(y)

    def geglu_ref(i):
        y = F.gelu(i[0], approximate="tanh") * i[1]
        return (y,), sq(y)
    op("swiglu", f"{T}x{I} bf16", lambda: [leaf(T, I), leaf(T, I)], swiglu, swiglu_ref)
    op("geglu", f"{T}x{I} bf16", lambda: [leaf(T, I), leaf(T, I)], geglu, geglu_ref)

    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    target = torch.randint(0, V, (T,), device=dev)

    def ce(i):  # (Liger writes the gradient over the logits: no reference run)
        loss = LigerCrossEntropyFunction.apply(i[0], target, None, -100, 0.0, 0.0, "mean")[0]
        return (loss,), loss
    op("cross_entropy", f"{T}x{V} bf16", lambda: [leaf(T, V)], ce)

    from liger_kernel.ops.rope import LigerRopeFunction
    ang = torch.randn(1, L, D // 2, device=dev)
    cos, sin = torch.cat([ang, ang], -1).cos().bfloat16(), torch.cat([ang, ang], -1).sin().bfloat16()

    def rot(x):
        return torch.cat((-x[..., D // 2:], x[..., : D // 2]), -1)

    def rope(i):
        q, k = LigerRopeFunction.apply(i[0], i[1], cos, sin)
        return (q, k), sq(q) + sq(k)

    def rope_ref(i):
        c, s_ = cos.double().unsqueeze(1), sin.double().unsqueeze(1)
        q, k = i[0] * c + rot(i[0]) * s_, i[1] * c + rot(i[1]) * s_
        return (q, k), sq(q) + sq(k)
    op("rope", f"{B}x{NH}x{L}x{D} bf16", lambda: [leaf(B, NH, L, D), leaf(B, 8, L, D)], rope, rope_ref)

    from liger_kernel.ops.kl_div import LigerKLDivLossFunction
    from liger_kernel.ops.jsd import LigerJSDFunction
    y_true = torch.softmax(torch.randn(T, V, device=dev), -1)
    y_log = torch.log_softmax(torch.randn(T, V, device=dev), -1)

    def kl(i):
        loss = LigerKLDivLossFunction.apply(i[0], y_true, "batchmean", False, 1e-10)
        return (loss,), loss

    def kl_ref(i):
        loss = F.kl_div(i[0], y_true.double(), reduction="batchmean")
        return (loss,), loss

    def jsd(i):
        loss = LigerJSDFunction.apply(i[0], y_log, None, 0.5)
        return (loss,), loss

    def log_probs():
        return [torch.log_softmax(torch.randn(T, V, device=dev), -1).requires_grad_()]
    op("kl_div", f"{T}x{V} f32", log_probs, kl, kl_ref)
    op("jsd", f"{T}x{V} f32", log_probs, jsd)
    return rows


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], "--small" in sys.argv)
        return
    out_dir, liger_src = sys.argv[1], os.path.abspath(sys.argv[2])
    small = ["--small"] if "--small" in sys.argv else []
    os.makedirs(out_dir, exist_ok=True)
    results = {}
    runs = [("triton", "triton", None), ("tritonc", "tritonc", None)]
    switch = os.environ.get("LIGER_AB")
    if switch and "=" in switch:
        runs.append(("tritonc[%s]" % switch, "tritonc", switch))
    for label, which, setting in runs:
        env = dict(os.environ)
        if setting:
            name, value = setting.split("=", 1)
            env[name] = value
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", which, liger_src] + small,
                           capture_output=True, text=True, env=env)
        results[label] = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
        if p.returncode:
            print(label, "child failed:", p.stderr[-2000:], flush=True)
    import torch
    sys.path.insert(0, HERE)
    from commit_label import commit_label
    theirs = {(r["op"], r["shape"]): r for r in results.get("triton", [])}
    def pair(mine, theirs):
        return "%8.4f / %8.4f (%.2f)" % (mine, theirs, theirs / mine) if mine and theirs else "%8s / %8s" % (mine, theirs)

    print("ms, tritonc / Triton (Triton's time over ours: above 1, tritonc faster); 'gpu': the kernels alone "
          "(the host queued ahead), 'call': as a training step sees it, the Python of the call included")
    print("%-14s %-22s %28s %28s %28s %28s %8s" % ("op", "shape", "fwd gpu", "fwd+bwd gpu", "fwd call", "fwd+bwd call",
                                                 "rel err"))
    for label in [l for l, _, _ in runs[1:]]:
        if len(runs) > 2:
            print("-- %s" % label)
        for r in results.get(label, []):
            t = theirs.get((r["op"], r["shape"]), {})
            if "error" in r or "error" in t or not t:
                print("%-14s %-22s tritonc: %s  triton: %s" % (
                    r["op"], r["shape"],
                    r.get("error", "ok (%s)" % ("%.1e" % r["rel_err"] if r.get("rel_err") is not None else "no reference")),
                    t.get("error", "ok") if t else "did not run"))
                for trace in (r.get("trace"), t.get("trace")):
                    if trace:
                        print("    " + trace.replace("\n", "\n    "))
                continue
            print("%-14s %-22s %28s %28s %28s %28s %8s" % (
                r["op"], r["shape"], pair(r["fwd_gpu_ms"], t["fwd_gpu_ms"]), pair(r["fwd_bwd_gpu_ms"], t["fwd_bwd_gpu_ms"]),
                pair(r["fwd_ms"], t["fwd_ms"]), pair(r["fwd_bwd_ms"], t["fwd_bwd_ms"]),
                "%.1e" % r["rel_err"] if r["rel_err"] is not None else "-"))
    variant = {(r["op"], r["shape"]): r for r in results.get("tritonc[%s]" % switch, [])} if len(runs) > 2 else None
    print("\nkernels of one forward+backward (torch.profiler, µs per call), tritonc / Triton"
          + (" / tritonc with %s:" % switch if variant is not None else ":"))
    for r in results.get("tritonc", []):
        t = theirs.get((r["op"], r["shape"]), {})
        mine, other = r.get("kernels_us", {}), t.get("kernels_us", {})
        third = variant.get((r["op"], r["shape"]), {}).get("kernels_us", {}) if variant is not None else None
        for name in sorted(set(mine) | set(other), key=lambda n: -max(mine.get(n, 0), other.get(n, 0))):
            print("  %-14s %-60s %9s / %9s" % (r["op"], name, mine.get(name, "-"), other.get(name, "-"))
                  + (" / %9s" % third.get(name, "-") if third is not None else ""))
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    json.dump({"device": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
               "commit": commit_label(), "torch": torch.__version__, "triton": triton_version, "method": "CUDA events around each call after a 256 MB L2 flush, "
               "median of 30 after 3 warm-up calls; *_gpu_ms: the GPU spins 2 ms first so that the host has queued "
               "the call's launches (the kernels alone); kernels_us: torch.profiler per kernel; each compiler in its "
               "own process; ratios are triton / tritonc time (above 1: tritonc faster)", "results": results},
              open(os.path.join(out_dir, "liger.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
