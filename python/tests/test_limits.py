"""Issue 15 from Python: the version is the command line's, grids beyond the
GPU's limits are refused, a store through a __readonly pointer is a warning,
and recompiles are logged or refused (TRITONC_LOG_COMPILES, cache_must_hit)."""
import os
import re
import subprocess

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
