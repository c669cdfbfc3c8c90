"""Kernels compiled ahead of time (tritonc compile, a .tck file) and loaded
with tritonc.load: called like tritonc.kernel objects, on the interpreter,
the CPU and (with CUDA tensors) the GPU, against numpy references on fresh
random inputs with poisoned outputs; macros choose configurations, several
are tuned; damaged files and mismatches raise tritonc.Error naming what is
wrong."""
import os
import subprocess

import numpy as np
import pytest

import tritonc

ADD = """
__global__ void add(TYPE* a, TYPE* b, TYPE* c, int n) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = off < n;
  @m *(c + off) = *(a + off) + *(b + off);
}
"""

rng = np.random.default_rng()


def grid_for(n):
    return lambda opt: (tritonc.cdiv(n, opt.d("BLOCK")),)


def compile_tck(tmp_path, source, *options):
    """`tritonc compile` of `source` into tmp_path/kernel.tck (the CLI of this build)."""
    cli = os.environ.get("TRITONC_CLI")
    if not cli:
        pytest.skip("TRITONC_CLI (the tritonc binary of this build) is not set; ctest sets it")
    src = tmp_path / "kernel.tc"
    src.write_text(source)
    out = tmp_path / "kernel.tck"
    r = subprocess.run([cli, "compile", str(src), *options, "-o", str(out)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return out


def load_or_skip(path, target, **kwargs):
    try:
        return tritonc.load(path, target=target, **kwargs)
    except tritonc.Error as e:
        if "built without the CPU back end" in str(e):
            pytest.skip(str(e))
        raise


@pytest.mark.parametrize("target", ["interp", "cpu"])
def test_loaded_add_equals_numpy(tmp_path, target):
    path = compile_tck(tmp_path, ADD, "-DTYPE=float", "-DBLOCK=[64, 256]", "--target", "interp,cpu", "--generic")
    add = load_or_skip(path, target, outputs=["c"])
    for n in [1, int(rng.integers(100, 5000))]:
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        c = np.full(n, np.nan, dtype=np.float32)
        out = add(a, b, c, n, grid=grid_for(n))  # two configurations: tuned
        assert out is c
        np.testing.assert_array_equal(c, a + b)
        assert add.config_of(a, b, c, n) in ("BLOCK=64 num_warps=4 num_stages=3", "BLOCK=256 num_warps=4 num_stages=3")
        c[:] = np.nan
        add(a, b, c, n, grid_for(n), BLOCK=64)  # one, chosen
        np.testing.assert_array_equal(c, a + b)
        assert add.config_of(a, b, c, n, BLOCK=64) == "BLOCK=64 num_warps=4 num_stages=3"


def test_loaded_kernel_takes_torch_cpu_tensors(tmp_path):
    torch = pytest.importorskip("torch")
    path = compile_tck(tmp_path, ADD, "-DTYPE=half", "-DBLOCK=128", "--target", "interp")
    add = tritonc.load(path, target="interp", outputs=["c"])
    n = int(rng.integers(100, 3000))
    a = torch.randn(n, dtype=torch.float16)
    b = torch.randn(n, dtype=torch.float16)
    c = torch.full((n,), float("nan"), dtype=torch.float16)
    add(a, b, c, n, grid=grid_for(n), TYPE=torch.float16)
    assert torch.equal(c, (a.float() + b.float()).half())


def test_loaded_kernel_errors_name_the_problem(tmp_path):
    path = compile_tck(tmp_path, ADD, "-DTYPE=float", "-DBLOCK=[64, 256]", "--target", "interp", "--arg", "n=64")
    add = tritonc.load(path, target="interp")
    n = 100
    a, b, c = (np.zeros(n, np.float32) for _ in range(3))
    with pytest.raises(tritonc.Error, match=r"no configuration of kernel 'add' for interp with BLOCK=128;"
                                            r" it holds:\n  BLOCK=64 num_warps=4 num_stages=3 \(TYPE=float\)"):
        add(a, b, c, n, grid_for(n), BLOCK=128)
    with pytest.raises(tritonc.Error, match="no code of kernel 'add' for this launch"):
        add(a, b, c, n, grid_for(n), BLOCK=64)  # compiled for n divisible by 16
    with pytest.raises(tritonc.Error, match="compile report"):
        add.report(a, b, c, n)
    with pytest.raises(tritonc.Error, match="missing.tck"):
        tritonc.load(tmp_path / "missing.tck")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    damaged = tmp_path / "damaged.tck"
    damaged.write_bytes(bytes(data))
    with pytest.raises(tritonc.Error, match="damaged.tck: damaged: the checksum does not match"):
        tritonc.load(damaged)
    with pytest.raises(tritonc.Error, match="holds code for interp"):
        tritonc.load(path, target="gpu")


def test_loaded_kernel_on_cuda_tensors(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    path = compile_tck(tmp_path, ADD, "-DTYPE=float", "-DBLOCK=[128, 512]")  # this machine's GPU
    add = tritonc.load(path, outputs=["c"])
    n = int(rng.integers(1000, 100000))
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.full((n,), float("nan"), device="cuda")
    for _ in range(3):  # tuned, then the fast path
        add(a, b, c, n, grid=grid_for(n))
        torch.cuda.synchronize()
        assert torch.equal(c, a + b)
        c.fill_(float("nan"))
