"""Issue 15 from Python: the version is the command line's, grids beyond the
GPU's limits are refused, a store through a __readonly pointer is a warning,
and recompiles are logged or refused (TRITONC_LOG_COMPILES, cache_must_hit)."""
import os
import re
import subprocess
import time

import numpy as np
import pytest

import tritonc


def test_version_is_the_command_lines():
    assert re.fullmatch(r"tritonc \d+\.\d+ \([^ ,()]+\)", tritonc.version()), tritonc.version()
    cli = os.environ.get("TRITONC_CLI")
    if not cli:
        pytest.skip("TRITONC_CLI (the tritonc binary of this build) is not set; ctest sets it")
    r = subprocess.run([cli, "--version"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout == tritonc.version() + "\n"


ADD = """
__global__ void add(TYPE* a, TYPE* b, TYPE* c, int n) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = off < n;
  @m *(c + off) = *(a + off) + *(b + off);
}
"""


@pytest.mark.parametrize("target", ["interp", "auto"])
def test_grids_beyond_the_gpu_limits_are_refused(target):
    add = tritonc.kernel(ADD, ["c"], target=target)
    a = np.ones(64, np.float32)
    c = np.zeros(64, np.float32)
    cases = [
        ((2**30, 2**30, 2**30), "(1073741824, 1073741824, 1073741824)"),
        ((2**31,), "(2147483648, 1, 1)"),
        ([1, 65536], "(1, 65536, 1)"),
        (lambda opt: (1, 1, 65536), "(1, 1, 65536)"),
    ]
    for grid, shown in cases:
        t0 = time.monotonic()
        with pytest.raises(tritonc.Error, match=re.escape("grid " + shown + " is beyond the GPU's limits")):
            add(a, a, c, 64, grid=grid, BLOCK=64, TYPE="float")
        assert time.monotonic() - t0 < 10
    assert not c.any()  # nothing ran
    add(a, a, c, 64, grid=(1,), BLOCK=64, TYPE="float")  # a grid within the limits runs
    np.testing.assert_array_equal(c, np.full(64, 2, np.float32))


SCALE_IN_PLACE = """
__global__ void scale(float* __readonly x, int n) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = off < n;
  @m *(x + off) = *(x + off) * 2 + 1;
}
"""


@pytest.mark.parametrize("target", ["interp", "auto"])
def test_store_through_readonly_warns_once_and_runs(target, capfd):
    scale = tritonc.kernel(SCALE_IN_PLACE, ["x"], target=target)
    rng = np.random.default_rng()
    for n in (100, 37, 100):
        x = rng.standard_normal(n).astype(np.float32)
        expected = x * 2 + 1
        scale(x, n, grid=lambda opt: (tritonc.cdiv(n, opt.d("BLOCK")),), BLOCK=[16, 32])
        np.testing.assert_array_equal(x, expected)
    err = capfd.readouterr().err
    assert err.count("warning:") == 1, err
    assert re.search(r"<python>:5:6: warning: store through 'x', which is declared __readonly \(line 2\): "
                     r"the buffer is written, so __readonly is ignored\n  @m \*\(x \+ off\)", err), err


LOGGED = """
__global__ void logged_%s(float* x, int n) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = off < n;
  @m *(x + off) = *(x + off) + 1;
}
"""


def _compile_lines(err):
    return [l for l in err.splitlines() if l.startswith("tritonc: compiling ")]


def _cuda():
    try:
        import torch
        return torch if torch.cuda.is_available() else None
    except ImportError:
        return None


def test_log_names_an_alignment_change(capfd, monkeypatch):
    monkeypatch.setenv("TRITONC_LOG_COMPILES", "1")
    src = LOGGED % "align"
    torch = _cuda()
    if torch is not None:
        # Two calls that differ only in x's address: 16-byte aligned, then 4 bytes past that.
        k = tritonc.kernel(src, cache_dir="none")
        x = torch.zeros(257, device="cuda")
        k(x, 256, grid=(2,), BLOCK=128)
        k(x[1:], 256, grid=(2,), BLOCK=128)
        torch.cuda.synchronize()
        assert float(x[0]) == 1 and float(x[256]) == 1 and float(x[1]) == 2
    else:
        # No GPU: host arrays are copied into aligned buffers, so only device
        # addresses can change alignment. The package's kernel object compiles
        # for sm_90a (PTX needs no GPU) and then fails to load: the compiles
        # are logged all the same.
        k = tritonc._tritonc.Kernel(src, [("BLOCK", "128")], [4], [3], "sm_90a", "", "none", "<python>", [], False)
        for address in (0x10000, 0x10004):
            with pytest.raises(tritonc.Error):
                k.launch([(1, address, 1024), 256], (2,), 0)
    lines = _compile_lines(capfd.readouterr().err)
    target = "on sm_90a" if torch is None else "on sm_"
    assert len(lines) == 2, lines
    assert lines[0].startswith("tritonc: compiling kernel 'logged_align' (BLOCK=128 num_warps=4 num_stages=3) for "
                               "x: 16-byte aligned, n: divisible by 16, " + target), lines
    assert lines[0].endswith(": first compile"), lines
    assert "for x: not 16-byte aligned, n: divisible by 16, " + target in lines[1], lines
    assert lines[1].endswith(": recompile, changed: argument 'x' alignment: 16-byte aligned -> not 16-byte aligned"), lines


def test_log_names_divisibility_and_macro_changes(capfd, monkeypatch):
    monkeypatch.setenv("TRITONC_LOG_COMPILES", "1")
    k = tritonc.kernel(LOGGED % "interp", ["x"], target="interp", cache_dir="none")
    x = np.zeros(64, np.float32)
    k(x, 64, grid=(1,), BLOCK=64)
    k(x, 64, grid=(1,), BLOCK=64)  # cached: no line
    k(x, 63, grid=(1,), BLOCK=64)
    k(x, 64, grid=(1,), BLOCK=128)
    assert x[0] == 4 and x[63] == 3
    lines = _compile_lines(capfd.readouterr().err)
    assert len(lines) == 3, lines
    assert lines[0].endswith("for x: 16-byte aligned, n: divisible by 16, on interp: first compile"), lines
    assert lines[1].endswith("for x: 16-byte aligned, n: odd, on interp: recompile, changed: argument 'n' "
                             "divisibility: divisible by 16 -> odd"), lines
    assert lines[2].startswith("tritonc: compiling kernel 'logged_interp' (BLOCK=128 num_warps=4 num_stages=3)"), lines
    assert lines[2].endswith("recompile, changed: macro BLOCK: 64 -> 128"), lines


def test_cache_must_hit_raises_naming_the_key(tmp_path, monkeypatch):
    src = LOGGED % "musthit"
    x = np.zeros(64, np.float32)
    strict = tritonc.kernel(src, ["x"], target="interp", cache_dir=str(tmp_path), cache_must_hit=True)
    with pytest.raises(tritonc.Error, match=re.escape(
            "the cache must hit (TRITONC_CACHE_MUST_HIT / cache_must_hit), but kernel 'logged_musthit' "
            "(BLOCK=64 num_warps=4 num_stages=3) for x: 16-byte aligned, n: divisible by 16, on interp is not cached")):
        strict(x, 64, grid=(1,), BLOCK=64)
    assert not x.any()
    tritonc.kernel(src, ["x"], target="interp", cache_dir=str(tmp_path))(x, 64, grid=(1,), BLOCK=64)
    # Warm now: a new strict kernel hits the disk cache and runs.
    tritonc.kernel(src, ["x"], target="interp", cache_dir=str(tmp_path), cache_must_hit=True)(x, 64, grid=(1,), BLOCK=64)
    np.testing.assert_array_equal(x, np.full(64, 2, np.float32))
    # The environment variable does the same for every kernel.
    monkeypatch.setenv("TRITONC_CACHE_MUST_HIT", "1")
    with pytest.raises(tritonc.Error, match="the cache must hit"):
        tritonc.kernel(src, ["x"], target="interp", cache_dir="none")(x, 64, grid=(1,), BLOCK=64)


def test_a_sum_python_compiles_is_a_kernel_tritonc_compiles(tmp_path, monkeypatch):
    """A 2,000-term sum (2,000 levels of the syntax tree: beyond Python's
    default recursion limit for the code generator's walk) compiles and
    computes 2,000 x; the recursion limit is the caller's again after."""
    import importlib.util
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    terms = 2000
    path = tmp_path / "long_sum.py"
    path.write_text(
        "import tritonc\nimport tritonc.language as tl\n\n\n@tritonc.jit\n"
        "def long_sum(X, Y, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    m = offs < n\n"
        "    x = tl.load(X + offs, mask=m, other=0.0)\n"
        "    y = " + " + ".join(["x"] * terms) + "\n"
        "    tl.store(Y + offs, y, mask=m)\n")
    spec = importlib.util.spec_from_file_location("long_sum", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import sys
    limit = sys.getrecursionlimit()
    x = np.random.default_rng().integers(-8, 8, 50).astype(np.float32)  # exact sums in f32
    y = np.full(50, np.nan, np.float32)
    mod.long_sum[(1,)](x, y, 50, BLOCK=64)
    np.testing.assert_array_equal(y, terms * x)
    assert sys.getrecursionlimit() == limit
