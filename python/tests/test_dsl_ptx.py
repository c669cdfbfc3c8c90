"""The PTX of the Python DSL's newer kernels (unsigned integers, bitcasts,
Philox, libdevice, hints, permutes, the persistent matmuls; fp8 for sm_90a) assembles with ptxas for sm_80 and sm_90a, so that CI
without a GPU catches a lowering PTX refuses; their results on the GPU are
the language suites', run by the GPU check (TRITONC_LANGUAGE_BACKENDS).
Skipped where ptxas is not installed."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import test_dsl_compat as compat_cases  # noqa: E402
import test_dsl_fp8 as fp8_cases  # noqa: E402
import test_dsl_dot_scaled as scaled_cases  # noqa: E402
import test_dsl_map_elementwise as map_cases  # noqa: E402
import fp8_kernels  # noqa: E402
import hint_kernels  # noqa: E402
import test_dsl_permute as permute_cases  # noqa: E402
import tutorial_matmul  # noqa: E402
import test_dsl_libdevice as libdevice_cases  # noqa: E402
import test_dsl_random as random_cases  # noqa: E402
import test_dsl_unsigned as unsigned_cases  # noqa: E402

PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
pytestmark = pytest.mark.skipif(PTXAS is None, reason="ptxas not found: PTX not assembled")


def ptxas(ptx, arch, verbose=False):
    """ptxas on the PTX text; asserts it assembles, returns its messages
    (registers and spills with `verbose`)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        r = subprocess.run([PTXAS] + (["-v"] if verbose else []) + ["-arch=" + arch, path, "-o",
                                                                     os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stderr


def assemble(kernel, arch, *args, **kwargs):
    ptxas(kernel.warmup(*args, **kwargs).asm["ptx"], arch)


def cases():
    f32 = np.zeros(64, np.float32)
    out = []
    for op in ("floordiv", "mod", "shr", "lt", "maximum"):
        for a in ("uint8", "uint64"):
            want = "bool" if op == "lt" else a
            x = np.zeros(32, a)
            out.append(("unsigned-%s-%s" % (op, a), unsigned_cases.binary_kernel,
                        (x, x, np.zeros(32, want), 32), dict(OP=op, EXPECT=unsigned_cases.TL[want], BLOCK=32)))
    for a, b in (("uint32", "float32"), ("float64", "uint64"), ("uint8", "int64"), ("float16", "uint16")):
        out.append(("cast-%s-%s" % (a, b), unsigned_cases.cast_kernel, (np.zeros(32, a), np.zeros(32, b), 32),
                    dict(BITCAST=False, BLOCK=32)))
    for a, b in (("float32", "uint32"), ("uint16", "float16")):
        out.append(("bitcast-%s-%s" % (a, b), unsigned_cases.cast_kernel, (np.zeros(32, a), np.zeros(32, b), 32),
                    dict(BITCAST=True, BLOCK=32)))
    out.append(("reduce-uint16", unsigned_cases.reduce_kernel,
                (np.zeros(128, np.uint16), np.zeros(8, np.uint16), np.zeros(16, np.uint16), np.zeros(8, np.int32),
                 np.zeros(16, np.int32), np.zeros(8, np.uint32)), dict(R=8, C=16)))
    out.append(("atomic-umax", unsigned_cases.atomic_kernel, (np.zeros(32, np.uint64), np.zeros(192, np.uint64)),
                dict(N=32, MAX=True)))
    for wide in (False, True):
        dt = np.uint64 if wide else np.uint32
        out.append(("philox-%d" % (64 if wide else 32), random_cases.random_kernel,
                    (np.zeros(192, dt), np.zeros(768, dt), f32, f32, 5), dict(BLOCK=64, WIDE=wide)))
    for op in ("round", "rint", "atan", "asin", "cbrt", "signbit", "isnan", "lgamma", "tgamma", "j0", "j1", "y0", "y1"):
        o = np.zeros(64, np.bool_ if op == "isnan" else np.int32 if op == "signbit" else np.float32)
        out.append(("libdevice-" + op, libdevice_cases.unary_kernel, (f32, o, 64), dict(OP=op, BLOCK=64)))
    for op in ("pow", "atan2", "copysign", "hypot"):
        out.append(("libdevice-" + op, libdevice_cases.binary_kernel, (f32, f32, f32, 64), dict(OP=op, BLOCK=64)))
    for op in ("popc", "clz", "brev"):
        x = np.zeros(32, np.int64)
        out.append(("libdevice-%s" % op, libdevice_cases.int_kernel,
                    (x, np.zeros(32, np.int64 if op == "brev" else np.int32)), dict(OP=op, N=32)))
    for op in ("maximum", "maximum_all", "clamp"):
        out.append(("nan-" + op, compat_cases.nan_kernel,
                    (np.zeros(32, np.float32), np.zeros(32, np.float32), np.zeros(32, np.float32),
                     np.zeros(2, np.float32), np.zeros(2, np.int32)), dict(N=32, OP=op)))
    out.append(("atomic-xor", compat_cases.xor_kernel, (np.zeros(32, np.int64), np.zeros(160, np.int64)), dict(N=32)))
    out.append(("inline-asm", compat_cases.inline_asm_kernel, (np.zeros(64, np.float32), np.zeros(64, np.float32)),
                dict(N=64)))
    for hints in (False, True):
        h = np.zeros((1000, 1000), np.float16)
        out.append(("hints-%d" % hints, hint_kernels.clamped_matmul,
                    (h, h, h, 1000, 1000, 1000, 1000, 1, 1000, 1, 1000, 1),
                    dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, HINTS=hints)))
    h = np.zeros((512, 512), np.float16)
    out.append(("persistent-matmul", tutorial_matmul.matmul_kernel_persistent,
                (h, h, h, 512, 512, 512, 512, 1, 512, 1, 512, 1),
                dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, NUM_SMS=132)))
    for subtile in (False, True):
        out.append(("descriptor-matmul-subtile-%d" % subtile, tutorial_matmul.matmul_kernel_descriptor_persistent,
                    (h, h, h, 512, 512, 512), dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8,
                                                   EPILOGUE_SUBTILE=subtile, NUM_SMS=132, WARP_SPECIALIZE=False)))
    import test_dsl_language as language_cases
    for op in ("slice", "slice_unaligned", "slice_rows", "index", "element"):
        out.append(("shape-" + op, language_cases.shape_kernel, (np.zeros(128, np.float32), np.zeros(128, np.float32)),
                    dict(OP=op, M=8, N=16)))
    for m, n, k, dt in ((1, 64, 32, np.float16), (32, 8, 16, np.float32), (8, 32, 32, np.float16)):
        out.append(("dot-small-%dx%dx%d" % (m, n, k), language_cases.dot_kernel,
                    (np.zeros(m * k, dt), np.zeros(k * n, dt), np.zeros(m * n, np.float32)),
                    dict(M=m, N=n, K=k, ACC=True)))
    out.append(("smid-globaltimer", compat_cases.sm_kernel, (np.zeros(2, np.int32),), {}))
    out.append(("split-epilogue", permute_cases.subtile_split_kernel,
                (np.zeros(2048, np.float32), np.zeros(1024, np.float32), np.zeros(1024, np.float32)),
                dict(M=32, N=64)))
    x = np.zeros(64, np.int32)
    out.append(("permute-3d", permute_cases.permute3_kernel, (x, x, 2, 8, 4, 2, 0, 1), dict(METHOD="permute")))
    f = np.zeros(256, np.float32)
    out.append(("permute-4d", permute_cases.permute4_kernel, (f, f, 4), {}))
    u = np.zeros(64, np.uint32)
    for which in ("two-results", "pack-bytes", "bytes-to-floats"):
        out.append(("inline-asm-" + which, compat_cases.inline_asm_many_kernel,
                    (u, u, u, u, np.zeros(64, np.uint8), np.zeros(64, np.int8), np.zeros(128, np.float32)),
                    dict(N=64, WHICH=which)))
    f64, i64 = np.zeros(64, np.float32), np.zeros(64, np.int32)
    out.append(("map-elementwise", map_cases.map_kernel, (f64, f64, f64, np.zeros(128, np.float32), i64, i64),
                dict(N=64, ALPHA=1.5)))
    return out


CASES = cases()


def fp8_cases_list():
    import tritonc as triton
    import tritonc.language as tl
    b = np.zeros(256, np.uint8)
    e4, e5 = triton.reinterpret(b, tl.float8e4nv), triton.reinterpret(b, tl.float8e5)
    return [
        ("widen-e4m3", fp8_cases.widen_kernel, (e4, np.zeros(256, np.float16), np.zeros(256, np.float32), 256),
         dict(BLOCK=128)),
        ("narrow-f32-e4m3", fp8_cases.narrow_kernel, (np.zeros(256, np.float32), e4, 256), dict(BLOCK=256)),
        ("narrow-f16-e5m2", fp8_cases.narrow_kernel, (np.zeros(256, np.float16), e5, 256), dict(BLOCK=256)),
        ("narrow-f64-e5m2", fp8_cases.narrow_kernel, (np.zeros(256, np.float64), e5, 256), dict(BLOCK=256)),
        ("e4m3-e5m2", fp8_cases.narrow_kernel, (e4, e5, 256), dict(BLOCK=256)),
        ("arith-e5m2", fp8_cases.arith_kernel, (e5, e5, e5, 200), dict(BLOCK=256)),
        ("dot-e4m3", fp8_cases.dot_kernel, (e4, e4, np.zeros(4096, np.float32), 32, 64, 32), {}),
        ("reduce-e4m3", fp8_cases.reduce_kernel, (e4, e4, 8, 16), {}),
        ("matmul-e4m3", fp8_cases.matmul_kernel, (e4, e4, np.zeros(4096, np.float32), 1000, 1000, 1000),
         dict(BM=128, BN=128, BK=64)),
        ("matmul-trans-e4m3-e5m2", fp8_cases.matmul_trans_kernel, (e4, e5, np.zeros(4096, np.float32), 1000, 1000,
                                                                   1024), dict(BM=128, BN=128, BK=64)),
        ("matmul-kmajor-e4m3-e5m2", fp8_kernels.matmul_fp8,
         (e4, e5, np.zeros(4096, np.float16), 1000, 1000, 1024, 1024, 1, 1, 1024, 1000, 1),
         dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=128)),
        # microscaled operands (e2m1 packed along K, e4m3) decoded, scaled and dotted in bf16
        ("dot-scaled-e2m1-e4m3", scaled_cases.dot_scaled_kernel,
         (np.zeros(1024, np.uint8), np.zeros(64, np.uint8), np.zeros(1024, np.uint8), np.zeros(32, np.uint8),
          np.zeros(2048, np.float32), np.zeros(2048, np.float32)),
         dict(AR=32, AC=32, BR=64, BC=16, M=32, N=16, K=64, LF="e2m1", RF="e4m3", LPACK=True, RPACK=True,
              LSCALE=True, RSCALE=True, FAST=False, WITH_ACC=False)),
    ]


FP8_CASES = fp8_cases_list()
# (fp8 needs sm_89 or later: its cases assemble for sm_89 and sm_90a)
ASSEMBLED = [(c, a) for c in CASES for a in ("sm_80", "sm_90a")] + \
    [(c, a) for c in FP8_CASES for a in ("sm_89", "sm_90a")]


@pytest.mark.parametrize("case,arch", ASSEMBLED, ids=["%s-%s" % (c[0], a) for c, a in ASSEMBLED])
def test_assembles(case, arch, monkeypatch):
    monkeypatch.setenv("TRITONC_ARCH", arch)
    _, kernel, args, kwargs = case
    assemble(kernel, arch, *args, **kwargs)


def test_fp8_conversions_need_sm89(monkeypatch):
    import tritonc as triton
    monkeypatch.setenv("TRITONC_ARCH", "sm_80")
    _, kernel, args, kwargs = FP8_CASES[0]
    with pytest.raises(triton.Error, match="converting f8e4m3 to f16 needs sm_89 or later"):
        kernel.warmup(*args, **kwargs).asm["ptx"]


def test_k_contiguous_fp8_matmul_runs_on_fp8_tensor_cores(monkeypatch):
    """sm_90a: the K-contiguous fp8 matmul's dot is wgmma k32 on e4m3/e5m2
    operands, fed by asynchronous copies into rings, without spills; the
    N-contiguous one converts to f16 instead."""
    monkeypatch.setenv("TRITONC_ARCH", "sm_90a")
    cases = {c[0]: c for c in FP8_CASES}
    _, kernel, args, kwargs = cases["matmul-kmajor-e4m3-e5m2"]
    ptx = kernel.warmup(*args, **kwargs).asm["ptx"]
    assert "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2" in ptx
    assert "cp.async" in ptx and "cvt.rn.f16x2.e4m3x2" not in ptx
    messages = ptxas(ptx, "sm_90a", verbose=True)
    assert " 0 bytes spill stores" in messages, messages[-2000:]
    _, kernel, args, kwargs = cases["matmul-e4m3"]
    ptx = kernel.warmup(*args, **kwargs).asm["ptx"]
    assert "k32.f32.e4m3" not in ptx and "cvt.rn.f16x2.e4m3x2" in ptx
    # B stored [N, K] and used as tl.trans(b): K-contiguous too.
    _, kernel, args, kwargs = cases["matmul-trans-e4m3-e5m2"]
    ptx = kernel.warmup(*args, **kwargs).asm["ptx"]
    assert "k32.f32.e4m3.e5m2" in ptx and "cvt.rn.f16x2.e5m2x2" not in ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_gather_stages_its_source_in_shared_memory(monkeypatch, arch):
    """tl.gather of 1024 floats is the IR's gather: the source stored once in
    shared memory, one clamped read per element (it was a one-hot selection:
    2.3 MB of PTX that ptxas took minutes over); 2-D gathers along either
    axis assemble too."""
    import test_dsl_algorithms as algorithms
    monkeypatch.setenv("TRITONC_ARCH", arch)
    x = np.zeros(1024, np.float32)
    ptx = algorithms.gather1_kernel.warmup(x, np.zeros(1024, np.int64), x, N=1024, K=1024, grid=(1,)).asm["ptx"]
    assert len(ptx) < 20000, len(ptx)
    assert "st.shared.v4.b32" in ptx and "ld.shared.b32" in ptx and "min.u32" in ptx
    assert "cvt.u32.u64" in ptx  # int64 indices narrowed
    ptxas(ptx, arch)
    for axis in (0, 1):
        h = np.zeros(64 * 64, np.float16)
        assemble(algorithms.gather2_kernel, arch, h, np.zeros(64 * 64, np.int32), h, M=64, N=64, K=64, AXIS=axis,
                 ROW_SRC=False, grid=(1,))


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_fused_moe_gathers_its_rows_into_rings_read_by_wgmma(monkeypatch, dtype):
    """sm_90a: the fused MoE's A rows, gathered through the sorted token
    index, and its expert's weights go through cp.async rings (16-byte
    copies, zero-filled where a row is padding) into wgmma, without
    spills; at 16-row blocks (decode) mma.sync reads the same rings."""
    import moe_kernels
    import tritonc
    monkeypatch.setenv("TRITONC_ARCH", "sm_90a")
    T, E, N, K = 64, 4, 512, 256
    if dtype == "bfloat16":
        wrap = lambda x: tritonc.reinterpret(x.view(np.uint16), tritonc.language.bfloat16)  # noqa: E731
    else:
        wrap = lambda x: x  # noqa: E731
    a, w, c = (wrap(np.zeros(s, np.float16)) for s in ((T, K), (E, N, K), (2 * T, N)))
    ids = np.zeros(1024, np.int32)
    for bm, bn, bk, warps, want in ((64, 128, 64, 4, "wgmma.mma_async"), (16, 64, 128, 4, "mma.sync.aligned.m16n8k16")):
        ptx = moe_kernels.fused_moe_kernel.warmup(
            a, w, c, np.zeros(2 * T, np.float32), ids, ids, ids, N, K, 1024, 2 * T, K, 1, N * K, K, 1, N, 1,
            BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, MUL_ROUTED_WEIGHT=True, TOP_K=2, num_warps=warps,
            num_stages=4).asm["ptx"]
        assert want in ptx
        assert re.search(r"cp\.async\.cg\.shared\.global \[[^]]+\], \[[^]]+\], 16, %r", ptx), "no zero-filling copies"
        messages = ptxas(ptx, "sm_90a", verbose=True)
        assert " 0 bytes spill stores" in messages, messages[-2000:]


def test_f32_linear_runs_on_tf32_wgmma(monkeypatch):
    """sm_90a: x @ w.T in f32 (both tiles K-contiguous) runs on wgmma's tf32
    steps, fed by TMA, without spills; x @ w with w stored [K, N]
    (N-contiguous, which tf32 wgmma cannot read from shared memory) runs
    transposed, w's fragments in registers as wgmma's A, rounded to tf32."""
    import dsl_kernels
    monkeypatch.setenv("TRITONC_ARCH", "sm_90a")
    x = np.zeros((256, 512), np.float32)
    ptx = dsl_kernels.linear_kernel.warmup(x, x, x, 256, 512, 512, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32,
                                                num_warps=8).asm["ptx"]
    assert "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32" in ptx
    assert "cp.async.bulk.tensor.2d" in ptx and "mma.sync" not in ptx
    messages = ptxas(ptx, "sm_90a", verbose=True)
    assert " 0 bytes spill stores" in messages, messages[-2000:]
    ptx = dsl_kernels.matmul_kernel.warmup(x, x, x, 256, 512, 512, 512, 1, 512, 1, 512, 1, BLOCK_M=128, BLOCK_N=128,
                                           BLOCK_K=32, GROUP_M=8, num_warps=8).asm["ptx"]
    assert "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32" in ptx and "mma.sync" not in ptx
    assert "cvt.rna.tf32.f32" in ptx
    messages = ptxas(ptx, "sm_90a", verbose=True)
    assert " 0 bytes spill stores" in messages, messages[-2000:]


# An fp8 dot whose A is another dot's result narrowed to fp8 (IR written so):
# 8-bit wgmma reads A from shared memory only, so it is staged there.
FP8_CHAIN_IR = """kernel @f8chain(%A: f8e4m3* aligned(16), %B: f8e4m3* aligned(16), %C: f32* aligned(16)) {
entry:
  %rm = range 0 : i32<64>
  %rm2 = reshape %rm : i32<64, 1>
  %rmb = broadcast %rm2 : i32<64, 64>
  %c64 = splat i32 64 : i32<64, 64>
  %am = mul %rmb, %c64 : i32<64, 64>
  %rn2 = reshape %rm : i32<1, 64>
  %rnb = broadcast %rn2 : i32<64, 64>
  %ao = add %am, %rnb : i32<64, 64>
  %pa = splat %A : f8e4m3*<64, 64>
  %pa2 = gep %pa, %ao : f8e4m3*<64, 64>
  %a = load %pa2 : f8e4m3<64, 64>
  %bo = add %rnb, %am : i32<64, 64>
  %bt = mul %rnb, %c64 : i32<64, 64>
  %bo2 = add %bt, %rmb : i32<64, 64>
  %pb = splat %B : f8e4m3*<64, 64>
  %pb2 = gep %pb, %bo2 : f8e4m3*<64, 64>
  %b = load %pb2 : f8e4m3<64, 64>
  %z = splat f32 0 : f32<64, 64>
  %d = dot %a, %b, %z : f32<64, 64>
  %p = cast %d : f8e4m3<64, 64>
  %d2 = dot %p, %b, %z : f32<64, 64>
  %pc = splat %C : f32*<64, 64>
  %pc2 = gep %pc, %ao : f32*<64, 64>
  store %pc2, %d2
  ret
}
"""


@pytest.mark.skipif(not os.environ.get("TRITONC_CLI"), reason="TRITONC_CLI (the tritonc binary) is not set")
def test_fp8_dot_fed_by_a_dot_compiles_and_assembles(tmp_path):
    src = tmp_path / "chain.tir"
    src.write_text(FP8_CHAIN_IR)
    r = subprocess.run([os.environ["TRITONC_CLI"], "emit", str(src), "--stage", "ptx", "--target", "sm_90a"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.count("k32.f32.e4m3.e4m3") > 0
    ptxas(r.stdout, "sm_90a")


@pytest.mark.parametrize("causal", [False, True])
def test_attention_backward_runs_on_wgmma_without_spills(monkeypatch, causal):
    """sm_90a: the FlashAttention-2 backward of dsl_kernels.py at the block
    sizes of Triton's tutorial (32 queries x 128 keys for dk/dv, 128 x 32 for
    dq, 4 warps): every dot on wgmma, the 32-column ones (k @ q^T, q @ k^T)
    too, B read K-major; q, do (k, v) through cp.async rings; independent
    dots issued together (gpu-defer-dot-waits: a dot_wait leaving later
    groups in flight), which ptxas keeps asynchronous; no spills."""
    monkeypatch.setenv("TRITONC_ARCH", "sm_90a")
    import dsl_kernels
    n, d = 1024, 64
    f16, f32 = np.zeros((1, 1, n, d), np.float16), np.zeros(n, np.float32)
    for kernel, args, blocks in (
            (dsl_kernels.attention_bwd_dkdv, (f16, f16, f16, 0.125, f16, f16, f16, f32, f32, n), (32, 128)),
            (dsl_kernels.attention_bwd_dq, (f16, f16, f16, 0.125, f16, f16, f32, f32, n), (128, 32))):
        compiled = kernel.warmup(*args, HEAD_DIM=d, BLOCK_M=blocks[0], BLOCK_N=blocks[1], CAUSAL=causal,
                                 num_warps=4, num_stages=3)
        ptx = compiled.asm["ptx"]
        assert "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16" in ptx, kernel
        assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in ptx, kernel
        assert "mma.sync" not in ptx and "cp.async.cg" in ptx, kernel
        # Two groups in flight at once (a wait_group N leaves N of them
        # running): dots issued together.
        pending, together = 0, False
        for line in ptx.splitlines():
            if "wgmma.commit_group" in line:
                pending += 1
            elif "wgmma.wait_group" in line:
                pending = min(pending, int(line.split("wgmma.wait_group.sync.aligned")[1].strip(" \t;")))
            together = together or pending >= 2
        assert together, kernel
        messages = ptxas(ptx, "sm_90a", verbose=True)
        assert " 0 bytes spill stores" in messages, messages[-2000:]
        assert "serialized" not in messages, messages[-2000:]


@pytest.mark.parametrize("blocks", [(32, 128), (64, 64)])
@pytest.mark.parametrize("causal", [False, True])
def test_fused_attention_backward_keeps_its_rings(monkeypatch, causal, blocks):
    """sm_90a: attention_bwd_fused adds dq with atomics inside its loop over
    the queries. The loop writes only through DQ_ACC, so q and do, read from
    other arguments, are still pre-fetched into cp.async rings (a loop that
    wrote memory used to be left without them), and so are the row
    statistics lse and delta, into rings of their own (cp.async too,
    read back in the accumulator's slice layout); dq goes out by vectorized
    reductions; no spills at 64 x 64 (the blocks both compilers' tuning
    picks at head dim 64). At 32 x 128 the causal kernel is at the edge of
    the 255 registers (Triton's: 247) and spills 12 bytes since the
    statistics' rings (251 registers without them): not asserted there."""
    monkeypatch.setenv("TRITONC_ARCH", "sm_90a")
    import dsl_kernels
    n, d = 1024, 64
    f16, f32 = np.zeros((1, 1, n, d), np.float16), np.zeros(n, np.float32)
    acc = np.zeros((1, 1, n, d), np.float32)
    compiled = dsl_kernels.attention_bwd_fused.warmup(f16, f16, f16, 0.125, f16, f16, f16, acc, f32, f32, n,
                                                      HEAD_DIM=d, BLOCK_M=blocks[0], BLOCK_N=blocks[1],
                                                      CAUSAL=causal, num_warps=4, num_stages=3)
    ptx = compiled.asm["ptx"]
    assert "cp.async.cg.shared.global" in ptx
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in ptx
    assert "red.global.gpu.relaxed.add.v4.f32" in ptx, \
        sorted({line.split()[0] for line in ptx.splitlines() if "red." in line})
    # lse and delta: copied ahead, read from shared memory, never loaded in the loop
    assert not re.search(r"ld\.global(\.v[24])?\.b32 \{?%f", ptx)
    assert re.search(r"ld\.shared(\.v2)?\.b32 \{?%f", ptx)
    messages = ptxas(ptx, "sm_90a", verbose=True)
    if blocks == (32, 128) and causal:
        return
    assert " 0 bytes spill stores" in messages, messages[-2000:]


@pytest.mark.parametrize("bits", [8, 4])
def test_quantized_matmuls_widen_weights_from_rings_without_spills(monkeypatch, bits):
    """sm_90a: the weight-only quantized matmuls (quant_kernels.py) copy the
    narrow weights into a ring (16-byte cp.async) and widen them from there
    into two buffers taken in turn, read by wgmma; no spills (before session
    30 the int8 tiles waited in registers, 756 bytes of spills, and the
    4-bit unpacking went through shared memory, 4 KB); at 16-row blocks
    mma.sync, no spills either."""
    import quant_kernels
    monkeypatch.setenv("TRITONC_ARCH", "sm_90a")
    x, y = np.zeros((64, 64), np.float16), np.zeros((64, 64), np.float16)
    scale = np.zeros(64, np.float16)
    for bm, bn, bk, warps, stages, want in ((64, 128, 64, 4, 4, "wgmma.mma_async"),
                                            (128, 256, 64, 8, 3, "wgmma.mma_async"),
                                            (16, 64, 128, 4, 4, "mma.sync.aligned.m16n8k16")):
        if bits == 8:
            compiled = quant_kernels.matmul_w8a16_kernel.warmup(
                x, np.zeros((64, 64), np.int8), scale, y, 4096, 4096, 4096, 4096, 4096, 4096, BLOCK_M=bm,
                BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps, num_stages=stages)
        else:
            compiled = quant_kernels.matmul_w4a16_kernel.warmup(
                x, np.zeros((32, 64), np.uint8), scale, y, 4096, 4096, 4096, 4096, 4096, 4096, 4096, BLOCK_M=bm,
                BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, GROUP_K=128, num_warps=warps, num_stages=stages)
        ptx = compiled.asm["ptx"]
        assert want in ptx
        assert re.search(r"cp\.async\.cg\.shared\.global \[[^]]+\], \[[^]]+\], 16", ptx), "weights not copied"
        if bits == 8:  # bytes to f16 from their words, two at a time, no cvt (lower_elementwise.cpp)
            assert "sub.f16x2" in ptx and "prmt.b32" in ptx
            assert not re.search(r"cvt\.rn\.f(16|32)\.s(8|32)", ptx)
        messages = ptxas(ptx, "sm_90a", verbose=True)
        assert " 0 bytes spill stores" in messages and " 0 bytes stack frame" in messages, messages[-2000:]


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_int8_matmuls_run_on_integer_tensor_cores(monkeypatch, arch):
    """W8A8 (quant_kernels.scaled_mm_w8a8_kernel): int8 x int8 into int32 on
    the tensor cores, not on the cores' integer multiply-adds (before
    session 31, 221 registers and a loop of mad.lo.s32). On sm_90a with the
    weights stored [N, K] (both tiles K-contiguous) wgmma's m64nNk32
    .s32.s8.s8, fed by TMA; with them stored [K, N], at 16-row blocks, and on
    sm_80, mma.sync's m16n8k32 from cp.async rings. No spills."""
    import quant_kernels
    monkeypatch.setenv("TRITONC_ARCH", arch)
    a = np.zeros((64, 64), np.int8)
    f32 = np.zeros(64, np.float32)
    for bm, bn, bk, warps, stages, layout in ((64, 128, 128, 4, 4, "nk"), (128, 128, 128, 8, 3, "kn"),
                                               (16, 64, 128, 4, 4, "nk")):
        sk, sn = (1, 4096) if layout == "nk" else (4096, 1)
        ptx = quant_kernels.scaled_mm_w8a8_kernel.warmup(
            a, a, f32, f32, f32, np.zeros((64, 64), np.float16), 4096, 4096, 4096, 4096, sk, sn, 4096,
            BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps, num_stages=stages).asm["ptx"]
        wgmma = arch == "sm_90a" and layout == "nk" and bm >= 64
        if wgmma:
            assert "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8" in ptx
            assert "cp.async.bulk.tensor" in ptx, "operands not copied by TMA"
        else:
            assert "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32" in ptx and "wgmma" not in ptx
            assert "cp.async.cg.shared.global" in ptx, "operands not copied asynchronously"
        messages = ptxas(ptx, arch, verbose=True)
        assert " 0 bytes spill stores" in messages, messages[-2000:]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_atomics_of_16_and_64_bit_elements_assemble(monkeypatch, arch):
    """atomic_add on float16 (atom.add.noftz.f16) and bfloat16 (sm_90 only:
    a clear error on sm_80), int64 additions as .u64 (PTX has no
    atom.add.s64) and int64 max, old values used and not; atomic_cas of
    16-bit elements (atom.cas.b16)."""
    import tritonc
    import tritonc.language as tl
    import test_dsl_language as language_cases
    monkeypatch.setenv("TRITONC_ARCH", arch)
    for dtype, op in (("float16", "add"), ("int64", "add"), ("int64", "max")):
        z = np.zeros(64, dtype)
        ptx = language_cases.atomic_kernel.warmup(z, z, z, 13, OP=op, BLOCK=16, grid=(4,)).asm["ptx"]
        assert "atom" in ptx and ".s64" not in " ".join(l for l in ptx.splitlines() if "atom" in l and "add" in l)
        ptxas(ptx, arch)
    for dtype in ("int16", "float16"):  # atom.cas.b16
        z = np.zeros(32, dtype)
        ptx = language_cases.cas_tile_kernel.warmup(z, z, BLOCK=32, grid=(1,)).asm["ptx"]
        assert "cas.b16" in ptx
        ptxas(ptx, arch)
    z = tritonc.reinterpret(np.zeros(64, np.uint16), tl.bfloat16)
    compiled = language_cases.atomic_kernel.warmup(z, z, z, 13, OP="add", BLOCK=16, grid=(4,))
    if arch == "sm_80":
        with pytest.raises(tritonc.Error, match="atomic_add on bf16 needs sm_90"):
            compiled.asm["ptx"]
    else:
        ptx = compiled.asm["ptx"]
        assert "add.noftz.bf16" in ptx
        ptxas(ptx, arch)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_float64_to_bfloat16_assembles(monkeypatch, arch):
    """cvt.rn.bf16.f64 is sm_90's; on sm_80 the conversion goes through f32
    rounded to odd (test_dsl_language checks the values)."""
    import test_dsl_language as language_cases
    monkeypatch.setenv("TRITONC_ARCH", arch)
    ptx = language_cases.f64_to_bf16_kernel.warmup(np.zeros(8), np.zeros(8, np.uint16), 8, BLOCK=512,
                                                   grid=(1,)).asm["ptx"]
    assert ("cvt.rn.bf16.f64" in ptx) == (arch == "sm_90a")
    ptxas(ptx, arch)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_dot_into_half_accumulators_assembles(monkeypatch, arch):
    """tl.dot(..., out_dtype=tl.float16 / tl.bfloat16) accumulates in f32
    on the tensor cores, rounded back after each dot (dot_plan.h)."""
    import tritonc.language as tl
    import test_dsl_language as language_cases
    monkeypatch.setenv("TRITONC_ARCH", arch)
    for out in (tl.float16, tl.bfloat16):
        a = np.zeros((64, 128), np.float16)
        ptx = language_cases.dot_half_out_kernel.warmup(a, a.T.copy(), np.zeros((64, 64), np.float32), M=64, N=64,
                                                        K=128, BK=32, OUT=out, grid=(1,)).asm["ptx"]
        assert ("wgmma.mma_async" if arch == "sm_90a" else "mma.sync") in ptx
        ptxas(ptx, arch)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_cache_operators_and_volatile_loads_in_the_ptx(monkeypatch, arch):
    """Triton's cache_modifier and volatile=True as PTX qualifiers:
    ld.volatile.global for the flag another program writes, ld.global.cg and
    st.global.cg beside it; ptxas assembles them."""
    sys.path.insert(0, os.path.dirname(__file__))
    import test_dsl_libraries as lib
    monkeypatch.setenv("TRITONC_ARCH", arch)
    x, flags, out = np.zeros(64, np.int32), np.zeros(2, np.int32), np.zeros(2, np.int32)
    ptx = lib.running_totals.warmup(x, flags, out, BLOCK=32).asm["ptx"]
    assert re.search(r"ld\.volatile\.global\.[bsu]32", ptx), ptx
    assert "ld.global.cg." in ptx and "st.global.cg." in ptx, ptx
    ptxas(ptx, arch)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_eviction_policies_in_the_ptx(monkeypatch, arch):
    """eviction_policy as L1's priority (.L1::evict_first/last) and L2's
    (.L2::cache_hint with a createpolicy operand), on vector loads and
    stores and on scalar ones; a cache operator keeps its place (PTX takes
    it or L1's priority) and L2's hint joins it; ptxas assembles all."""
    import tritonc.language as tl
    sys.path.insert(0, os.path.dirname(__file__))
    import test_dsl_language as language_cases
    monkeypatch.setenv("TRITONC_ARCH", arch)
    x = np.zeros(256, np.float32)
    for load, store in (("evict_last", "evict_first"), ("evict_first", "evict_last")):
        ptx = language_cases.evicting_copy.warmup(x, x, 256, LOAD=load, STORE=store, BLOCK=256,
                                                  grid=(1,)).asm["ptx"]
        assert re.search(r"ld\.global\.L1::%s\.L2::cache_hint\.v4\.b32 \{[^}]*\}, \[%%rd\d+\], %%rd\d+;" % load, ptx), ptx
        assert re.search(r"st\.global\.L1::%s\.L2::cache_hint\.v4\.b32 \[%%rd\d+\], \{[^}]*\}, %%rd\d+;" % store, ptx), ptx
        assert "createpolicy.fractional.L2::%s.b64" % load in ptx and "createpolicy.fractional.L2::%s.b64" % store in ptx
        assert re.search(r"ld\.global\.cg\.L2::cache_hint\.b32", ptx), ptx  # the scalar with its cache operator
        ptxas(ptx, arch)
    plain = language_cases.evicting_copy.warmup(x, x, 256, LOAD="", STORE="evict_normal", BLOCK=256,
                                                grid=(1,)).asm["ptx"]
    assert "L1::evict" not in plain and "cache_hint" not in plain and "createpolicy" not in plain
    del tl


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_fp_fusion_off_rounds_each_operation(monkeypatch, arch):
    """enable_fp_fusion=False puts .rn on f32 mul and add (ptxas contracts
    nothing then); by default x * a + b is one fma.rn.f32 in the PTX
    (gpu-contract-fma), as Triton's. Compiled apart (the option is part of
    the cache key)."""
    sys.path.insert(0, os.path.dirname(__file__))
    import test_dsl_language as language_cases
    monkeypatch.setenv("TRITONC_ARCH", arch)
    x = np.zeros(64, np.float32)
    off = language_cases.mul_add_kernel.warmup(x, x, x, x, 64, BLOCK=64, enable_fp_fusion=False, grid=(1,))
    on = language_cases.mul_add_kernel.warmup(x, x, x, x, 64, BLOCK=64, grid=(1,))
    assert off.metadata.enable_fp_fusion is False and on.metadata.enable_fp_fusion is True
    assert "mul.rn.f32" in off.asm["ptx"] and "add.rn.f32" in off.asm["ptx"], off.asm["ptx"]
    assert "fma.rn.f32" not in off.asm["ptx"]
    assert re.search(r"fma\.rn\.f32", on.asm["ptx"]) and "mul.f32" not in on.asm["ptx"], on.asm["ptx"]
    assert re.search(r"= fma %\S+, %\S+, %\S+ : f32<64, #", on.asm["ttgir"]), on.asm["ttgir"]
    assert " fma " not in off.asm["ttgir"] and re.search(r"= mul .* : f32<64, #", off.asm["ttgir"])
    ptxas(off.asm["ptx"], arch)
    ptxas(on.asm["ptx"], arch)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_reflect_ftz_and_maxnreg_options(monkeypatch, arch):
    """enable_reflect_ftz (on by default, as Triton's) picks ex2.approx.ftz.f32
    for exp2, off ex2.approx.f32; maxnreg=N caps a thread's registers with
    .maxnreg N on the entry (instead of .minnctapersm), and ptxas keeps to
    it; a maxnreg out of 1-255 is refused."""
    sys.path.insert(0, os.path.dirname(__file__))
    import tritonc
    import test_dsl_language as language_cases
    monkeypatch.setenv("TRITONC_ARCH", arch)
    x = np.zeros(64, np.float32)
    on = language_cases.exp2_kernel.warmup(x, x, BLOCK=64, grid=(1,))
    off = language_cases.exp2_kernel.warmup(x, x, BLOCK=64, enable_reflect_ftz=False, grid=(1,))
    assert "ex2.approx.ftz.f32" in on.asm["ptx"] and "ex2.approx.ftz" not in off.asm["ptx"]
    assert "ex2.approx.f32" in off.asm["ptx"], off.asm["ptx"]
    capped = language_cases.exp2_kernel.warmup(x, x, BLOCK=64, maxnreg=40, grid=(1,))
    assert re.search(r"\.visible \.entry [^{;]*\.maxnreg 40\b", capped.asm["ptx"]), capped.asm["ptx"]
    assert ".minnctapersm" not in capped.asm["ptx"] and ".maxnreg" not in on.asm["ptx"]
    assert capped.metadata.maxnreg == 40 and on.metadata.maxnreg is None
    for ptx in (on.asm["ptx"], off.asm["ptx"], capped.asm["ptx"]):
        ptxas(ptx, arch)
    with pytest.raises(ValueError, match="maxnreg"):
        language_cases.exp2_kernel.warmup(x, x, BLOCK=64, maxnreg=300, grid=(1,))
    with pytest.raises(AssertionError, match="power of 2"):
        language_cases.exp2_kernel.warmup(x, x, BLOCK=64, num_warps=3, grid=(1,))
    del tritonc


import tritonc as triton  # noqa: E402
import tritonc.language as tl  # noqa: E402


@triton.jit
def rotate_halves(Q, COS, SIN, OUT, N: tl.constexpr):
    # A RoPE's arithmetic on 16-bit tiles as they are loaded (no widening:
    # the DSL computes bf16 * bf16 in bf16, as Triton).
    offs = tl.arange(0, N)
    q1 = tl.load(Q + offs)
    q2 = tl.load(Q + N + offs)
    c = tl.load(COS + offs)
    s = tl.load(SIN + offs)
    tl.store(OUT + offs, q1 * c - q2 * s)
    tl.store(OUT + N + offs, q2 * c + q1 * s)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_half_arithmetic_in_the_kind_itself(monkeypatch, arch, dtype):
    """+ - * of f16 (and of bf16 on sm_90a) are add/sub/mul.rn.f16 and .bf16
    (one rounding, the f32 path's result); bf16 on sm_80, which has no such
    instructions, widens to f32 and rounds back. ptxas assembles both; fewer
    registers in the kind itself."""
    monkeypatch.setenv("TRITONC_ARCH", arch)
    if dtype == "f16":
        q, c = np.zeros(256, np.float16), np.zeros(128, np.float16)
    else:
        q, c = (triton.reinterpret(np.zeros(n, np.uint16), tl.bfloat16) for n in (256, 128))
    ptx = rotate_halves.warmup(q, c, c, q, N=128, grid=(1,)).asm["ptx"]
    native = dtype == "f16" or arch == "sm_90a"
    for op in ("mul", "sub", "add"):
        assert (op + ".rn." + dtype + " " in ptx) == native, ptx
    assert ("cvt.rn." + dtype + ".f32" in ptx) != native, ptx
    ptxas(ptx, arch)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_inline_asm_takes_pointers_as_their_addresses(monkeypatch, arch):
    """Pointer arguments of inline_asm_elementwise go in as 64-bit addresses
    ("l" registers, as in Triton): the asm loads and stores through them."""
    import tritonc as triton
    import tritonc.language as tl

    @triton.jit
    def shift_bytes(X, Y, BLOCK: tl.constexpr):
        tl.inline_asm_elementwise("ld.global.b8 $0, [$1]; shl.b32 $0, $0, 3; st.global.b8 [$2], $0;", "=r,l,l",
                                  [X + tl.arange(0, BLOCK), Y + tl.arange(0, BLOCK)], dtype=tl.int8, is_pure=False,
                                  pack=1)

    monkeypatch.setenv("TRITONC_ARCH", arch)
    x = np.zeros(128, np.uint8)
    ptx = shift_bytes.warmup(x, x, BLOCK=128).asm["ptx"]
    assert "ld.global.b8" in ptx and "st.global.b8" in ptx
    ptxas(ptx, arch)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_loops_num_stages_sizes_its_rings(monkeypatch, arch):
    """tl.range(..., num_stages=N) is the loop's own pipelining depth: the
    IR's {num_stages = N} on the loop's cond_br, and rings of the depth N
    asks for whatever the kernel's num_stages (without it, the kernel's);
    so a 512 x 64 x 32 f32 tile in 2 stages fits where the kernel's 3 would
    not (Triton's test_simple_matmul). The kernel is test_dsl_compat's, which
    checks its values on every back end."""
    monkeypatch.setenv("TRITONC_ARCH", arch)
    staged_matmul = compat_cases.loop_staged_matmul
    a, b, c = np.zeros((64, 256), np.float16), np.zeros((256, 64), np.float16), np.zeros((64, 64), np.float32)

    def ring_stages(loop_stages, kernel_stages):
        w = staged_matmul.warmup(a, b, c, 256, BM=64, BN=64, BK=32, STAGES=loop_stages,
                                 num_stages=kernel_stages, grid=(1,))
        if loop_stages is not None:
            assert "{num_stages = %d}" % loop_stages in w.asm["ttir"], w.asm["ttir"]
        ptxas(w.asm["ptx"], arch)
        return sorted({int(m) for m in re.findall(r"local_alloc : f16<(\d+), ", w.asm["ttgir"])})
    default3, default2 = ring_stages(None, 3), ring_stages(None, 2)
    assert ring_stages(2, 3) == default2 and ring_stages(3, 2) == default3, (default2, default3)
    assert ring_stages(4, 1)[0] > default3[0]
    assert ring_stages(1, 3) == []  # (nothing fetched ahead: no ring)
    f32 = np.zeros((512, 256), np.float32)
    big = staged_matmul.warmup(f32, np.zeros((256, 64), np.float32), np.zeros((512, 64), np.float32), 256, BM=512,
                               BN=64, BK=32, STAGES=2, num_stages=3, grid=(1,))
    sizes = [int(m) for m in re.findall(r"local_alloc : f32<(\d+), ", big.asm["ttgir"])]
    assert sizes and max(sizes) <= 3, big.asm["ttgir"]
    ptxas(big.asm["ptx"], arch)
    with pytest.raises(triton.CompilationError, match="num_stages must be a constant from 1 to 8"):
        staged_matmul.warmup(a, b, c, 256, BM=64, BN=64, BK=32, STAGES=9, grid=(1,))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_hint_call_as_a_statement_hints_its_variable(monkeypatch, arch):
    """tl.multiple_of / tl.max_contiguous called as a statement (Triton
    attaches the hint to the value itself) hint the variable from there on:
    16-byte vectors where the offsets come from memory; without it, single
    words. The kernel is test_dsl_compat's, which checks its values on every
    back end."""
    monkeypatch.setenv("TRITONC_ARCH", arch)
    hinted_copy = compat_cases.hinted_copy
    x, off = np.zeros(1024, np.float32), np.zeros(1, np.int32)
    hinted = hinted_copy.warmup(x, x, off, 1024, BLOCK=1024, HINT=True, grid=(1,)).asm["ptx"]
    plain = hinted_copy.warmup(x, x, off, 1024, BLOCK=1024, HINT=False, grid=(1,)).asm["ptx"]
    assert "ld.global.v4.b32" in hinted and "ld.global.v4.b32" not in plain
    ptxas(hinted, arch)
