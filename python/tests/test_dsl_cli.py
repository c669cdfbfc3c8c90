"""`tritonc emit FILE.py:KERNEL`: the command line compiles Python DSL
kernels through the package's front end (python -m tritonc.tools)."""
import os
import subprocess
import sys

import numpy as np
import pytest


HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "dsl_kernels.py")
CLI = os.environ.get("TRITONC_CLI")

pytestmark = pytest.mark.skipif(not CLI, reason="TRITONC_CLI (the tritonc binary) is not set")


def tritonc_cli(*args):
    env = dict(os.environ, TRITONC_PYTHON=sys.executable,
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([CLI, *args], capture_output=True, text=True, env=env, timeout=120)


def test_emit_ir_of_a_python_kernel_is_the_front_ends():
    r = tritonc_cli("emit", KERNELS + ":add_kernel", "-DBLOCK_SIZE=128", "--signature", "*fp32,*fp32,*fp32,i32",
                    "--stage", "ir")
    assert r.returncode == 0, r.stderr
    sys.path.insert(0, HERE)
    import dsl_kernels
    x = np.zeros(4, np.float32)
    want = dsl_kernels.add_kernel.warmup(x, x, x, 4, BLOCK_SIZE=128).asm["ttir"]
    body = lambda text: [l.split(" loc(")[0] for l in text.splitlines() if l.startswith("  ")]  # noqa: E731
    assert body(r.stdout) == body(want)


def test_emit_ptx_of_the_grouped_matmul_uses_wgmma():
    r = tritonc_cli("emit", KERNELS + ":matmul_kernel", "--signature", "a_ptr=*fp16,b_ptr=*fp16,c_ptr=*fp16",
                    "-DBLOCK_M=128", "-DBLOCK_N=128", "-DBLOCK_K=64", "-DGROUP_M=8", "--stage", "ptx",
                    "--target", "sm_90a", *[a for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")
                                            for a in ("--arg", n + "=4096")],
                    "--arg", "stride_ak=1", "--arg", "stride_bn=1", "--arg", "stride_cn=1")
    assert r.returncode == 0, r.stderr
    assert "wgmma.mma_async" in r.stdout and "cp.async" in r.stdout


def test_num_ctas_reaches_a_python_kernels_compile():
    """--num-ctas 2 (or -Dnum_ctas=2) is not a constexpr of the kernel: it
    configures the compile, and the 2-D grid matmul's B boxes are multicast."""
    args = [HERE + "/test_dsl_kernels.py:matmul_2d_kernel", "--signature", "a_ptr=*fp16,b_ptr=*fp16,c_ptr=*fp16",
            "-DBLOCK_M=128", "-DBLOCK_N=128", "-DBLOCK_K=64", "--stage", "ptx", "--target", "sm_90a",
            *[a for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm") for a in ("--arg", n + "=4096")]]
    for extra, multicast in ((["--num-ctas", "2"], True), (["-Dnum_ctas=2"], True), ([], False)):
        r = tritonc_cli("emit", *args, *extra)
        assert r.returncode == 0, r.stderr
        assert ("multicast::cluster" in r.stdout) == multicast, extra


def test_python_kernel_errors_are_located_in_the_python_file():
    r = tritonc_cli("emit", KERNELS + ":add_kernel", "-DBLOCK_SIZE=1000", "--signature", "*fp32,*fp32,*fp32",
                    "--stage", "ir")
    assert r.returncode == 1
    assert "dsl_kernels.py:" in r.stderr and "power of two" in r.stderr and "^" in r.stderr
    r = tritonc_cli("emit", KERNELS + ":no_such_kernel", "--stage", "ir")
    assert r.returncode == 1 and "no @tritonc.jit kernel named 'no_such_kernel'" in r.stderr
    r = tritonc_cli("emit", KERNELS + ":add_kernel", "--stage", "ir")
    assert r.returncode == 1 and "BLOCK_SIZE" in r.stderr


def test_report_of_a_python_kernel_sits_beside_its_python_lines():
    """`emit FILE.py:KERNEL --stage report`: the compile report's facts (the
    loads' copies, the dot's instruction, the store) beside the kernel's own
    lines of the Python file (its decorator to its last line, no other
    function), then registers and occupancy; --json gives the same lines."""
    args = [KERNELS + ":matmul_kernel", "--signature", "a_ptr=*fp16,b_ptr=*fp16,c_ptr=*fp16", "-DBLOCK_M=128",
            "-DBLOCK_N=128", "-DBLOCK_K=64", "-DGROUP_M=8", "--stage", "report", "--target", "sm_90a",
            *[a for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm") for a in ("--arg", n + "=4096")],
            "--arg", "stride_ak=1", "--arg", "stride_bn=1", "--arg", "stride_cn=1"]
    r = tritonc_cli("emit", *args)
    assert r.returncode == 0, r.stderr
    with open(KERNELS) as f:
        py = f.read().splitlines()
    line_of = lambda text: next(i + 1 for i, l in enumerate(py) if text in l)  # noqa: E731
    shown = {int(l.split("|")[0]): l for l in r.stdout.splitlines() if l.split("|")[0].strip().isdigit()}
    start, dot = line_of("def matmul_kernel("), line_of("accumulator = tl.dot(a, b, accumulator)")
    assert min(shown) == start - 1 and "@triton.jit" in shown[start - 1]
    assert "wgmma" in shown[dot], shown[dot]
    assert "cp.async" in shown[dot - 2] and "cp.async" in shown[dot - 1]
    store = line_of("tl.store(c_ptrs, c, mask=c_mask)")
    assert "store 128x128 f16" in shown[store] and max(shown) == store
    assert "def add_kernel" not in r.stdout and "registers:" in r.stdout
    j = tritonc_cli("emit", *args, "--json")
    assert j.returncode == 0, j.stderr
    import json
    facts = json.loads(j.stdout)["lines"]
    assert any(f["line"] == dot and f["kind"] == "dot" for f in facts), facts


def test_what_the_module_prints_on_import_stays_out_of_the_ir(tmp_path):
    """A script that prints as it is imported (its own test run, say): the
    IR on stdout is the kernel's alone, the print goes to stderr."""
    src = tmp_path / "printing.py"
    src.write_text("import tritonc as triton\nimport tritonc.language as tl\nprint('max error 0.0')\n\n"
                   "@triton.jit\ndef copy(X, Y, N: tl.constexpr):\n"
                   "    tl.store(Y + tl.arange(0, N), tl.load(X + tl.arange(0, N)))\n")
    r = tritonc_cli("emit", str(src) + ":copy", "-DN=64", "--signature", "*fp32,*fp32", "--stage", "ptx",
                    "--target", "sm_80")
    assert r.returncode == 0, r.stderr
    assert "max error 0.0" not in r.stdout and "max error 0.0" in r.stderr
    assert ".entry copy" in r.stdout


def test_what_the_module_writes_to_file_descriptor_1_stays_out_of_the_ir(tmp_path):
    src = tmp_path / "raw.py"
    src.write_text("import os\nimport tritonc as triton\nimport tritonc.language as tl\nos.write(1, b'raw bytes\\n')\n\n"
                   "@triton.jit\ndef copy(X, Y, DT: tl.constexpr):\n"
                   "    tl.store(Y + tl.arange(0, 16), tl.load(X + tl.arange(0, 16)).to(DT))\n")
    r = tritonc_cli("emit", str(src) + ":copy", "-DDT=fp16", "--signature", "*fp32,*fp16", "--stage", "ir")
    assert r.returncode == 0, r.stderr
    assert "raw bytes" not in r.stdout and "raw bytes" in r.stderr and "cast" in r.stdout


def test_a_divisibility_suffix_in_the_signature_points_at_arg():
    """Triton's AOT suffix (`i32:16`) is not silently dropped: the error says
    to give the value with --arg, which specializes as a launch does (the
    store then goes out in 16-byte vectors, which --arg n=4096 proves)."""
    r = tritonc_cli("emit", KERNELS + ":add_kernel", "-DBLOCK_SIZE=1024", "--signature", "*fp32,*fp32,*fp32,i32:16",
                    "--stage", "gpu-ir", "--target", "sm_90a")
    assert r.returncode != 0
    assert "'i32:16': a type takes no ':' suffix here" in r.stderr and "--arg NAME=VALUE" in r.stderr, r.stderr
    r = tritonc_cli("emit", KERNELS + ":add_kernel", "-DBLOCK_SIZE=1024", "--signature", "*fp32,*fp32,*fp32,i32",
                    "--arg", "n_elements=4096", "--stage", "gpu-ir", "--target", "sm_90a")
    assert r.returncode == 0, r.stderr
    assert "store" in r.stdout and "{vec = 4}" in r.stdout.split("store", 1)[1].splitlines()[0], r.stdout


def report_under(env_name, env_value, *args):
    """The compile report (`tritonc emit ... --stage report`) of `args` with
    the environment variable `env_name` set to `env_value`."""
    env_before = os.environ.get(env_name)
    os.environ[env_name] = env_value
    try:
        r = tritonc_cli("emit", *args, "--stage", "report")
    finally:
        if env_before is None:
            del os.environ[env_name]
        else:
            os.environ[env_name] = env_before
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_shared_elementwise_values_stream_in_the_occupancy_estimate(monkeypatch):
    """A SwiGLU row of 16384 bf16 on 16 warps reads `a` twice (a *
    sigmoid(a)); counted as streamed (the default), the estimate lets the
    kernel ask ptxas for more programs than the one it asks for with
    TRITONC_STREAM_SHARED=0 (the compile report says what was asked; the
    occupancy probe is off here, as it may keep ptxas's own choice)."""
    monkeypatch.setenv("TRITONC_OCCUPANCY_PROBE", "0")
    def asked(env_value):
        out = report_under("TRITONC_STREAM_SHARED", env_value, HERE + "/llm_kernels.py:swiglu_fwd", "-DBLOCK=16384",
                           "--num-warps", "16", "--signature", "A=*bf16,B=*bf16,C=*bf16,n=i32", "--arg",
                           "n=45088768", "--target", "sm_90a")
        line = [l for l in out.splitlines() if "asked of ptxas:" in l]
        assert line, out[-2000:]
        return int(line[0].split("asked of ptxas:")[1].split()[0]), line[0]
    off, off_line = asked("0")
    on, on_line = asked("")  # (unset: the default)
    assert off == 1, off_line
    assert on >= 2, on_line


LAYER_NORM_ROW = '''
import tritonc as triton
import tritonc.language as tl


@triton.jit
def layer_norm_row(Y, X, W, B, MEAN, RSTD, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(B + cols, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    centered = tl.where(mask, x - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(centered * centered, axis=0) / n_cols + eps)
    tl.store(MEAN + row, mean)
    tl.store(RSTD + row, rstd)
    tl.store(Y + row * stride + cols, (centered * rstd * w + b).to(tl.bfloat16), mask=mask)
'''


def occupancy_report(tmp_path, name, source, kernel, args, probe):
    """(programs per multiprocessor, the 'asked of ptxas' line, the
    registers line) of the compile report for sm_90a with
    TRITONC_OCCUPANCY_PROBE set to `probe`."""
    path = tmp_path / name
    path.write_text(source)
    lines = report_under("TRITONC_OCCUPANCY_PROBE", probe, str(path) + ":" + kernel, *args,
                         "--target", "sm_90a").splitlines()
    asked = [l for l in lines if "asked of ptxas:" in l]
    regs = [l for l in lines if l.strip().startswith("registers:")]
    occupancy = [l for l in lines if l.strip().startswith("occupancy:")]
    assert asked and regs and occupancy, "\n".join(lines[-30:])
    if "[ptxas -v]" not in regs[0]:
        pytest.skip("no ptxas: " + regs[0])
    assert "spills: 0 B stored" in regs[0], regs[0]
    return int(occupancy[0].split("occupancy:")[1].split()[0]), asked[0], regs[0]


def test_occupancy_probe_keeps_ptxas_own_choice_where_it_holds_more_programs(tmp_path):
    """The occupancy probe (the default; TRITONC_OCCUPANCY_PROBE=0 off): a layer
    norm row of 4096 bf16 on 8 warps (Liger's forward) is estimated at more
    registers than ptxas needs and asks for 4 programs, where ptxas then
    takes 56 registers; the probe also assembles the PTX without
    .minnctapersm (as Triton's is), which fits 5 without spilling, and the
    compile report says the launch asks for nothing (the launch tries it
    through the driver the same way)."""
    args = ("-DBLOCK=4096", "--num-warps", "8", "--signature", "Y=*bf16,X=*bf16,W=*bf16,B=*bf16,MEAN=*bf16,"
            "RSTD=*bf16,stride=i32,n_cols=i32,eps=fp32", "--arg", "n_cols=4096", "--arg", "stride=4096")
    off, off_line, _ = occupancy_report(tmp_path, "ln.py", LAYER_NORM_ROW, "layer_norm_row", args, "0")
    on, on_line, _ = occupancy_report(tmp_path, "ln.py", LAYER_NORM_ROW, "layer_norm_row", args, "1")
    default, default_line, _ = occupancy_report(tmp_path, "ln.py", LAYER_NORM_ROW, "layer_norm_row", args, "")
    assert on > off, (off_line, on_line)
    assert (default, default_line) == (on, on_line)
    assert "asked of ptxas: nothing" in on_line and "left to ptxas it takes" in on_line, on_line
    assert "asked of ptxas: nothing" not in off_line, off_line


ROPE_ROWS = '''
import tritonc as triton
import tritonc.language as tl


@triton.jit
def rope_rows(Q, COS, SIN, stride, HEADS: tl.constexpr, HALF: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    h = tl.arange(0, HEADS)[:, None]
    d = tl.arange(0, HALF)[None, :]
    c = tl.load(COS + row * 2 * HALF + d)
    s = tl.load(SIN + row * 2 * HALF + d)
    first = Q + row * stride + h * 2 * HALF + d
    q1 = tl.load(first)
    q2 = tl.load(first + HALF)
    tl.store(first, q1 * c - q2 * s)
    tl.store(first + HALF, q2 * c + q1 * s)
'''


def test_occupancy_probe_tries_half_as_many_before_the_fallback(tmp_path):
    """The occupancy probe: a bf16 RoPE over 32 heads of 128 on 4
    warps asks for 16 programs and spills there; without the probe the
    launch falls back to 2 (.minnctapersm), with it it first tries 8, which
    fits without spilling, then ptxas's own choice, which holds more
    programs still (the compile report says each step)."""
    args = ("-DHEADS=32", "-DHALF=64", "--num-warps", "4", "--signature", "Q=*bf16,COS=*bf16,SIN=*bf16,stride=i32",
            "--arg", "stride=4096")
    off, off_line, _ = occupancy_report(tmp_path, "rope.py", ROPE_ROWS, "rope_rows", args, "0")
    on, on_line, _ = occupancy_report(tmp_path, "rope.py", ROPE_ROWS, "rope_rows", args, "1")
    assert "it spilled at 16, so the launch asks for 2" in off_line, off_line
    assert "it spilled at 16, so the launch asks for 8" in on_line and "8 tried before 2" in on_line, on_line
    assert on >= off, (off_line, on_line)
