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
