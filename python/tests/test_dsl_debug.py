"""tl.device_print, tl.device_assert and ``assert`` on tensors in @jit
kernels: the lines they print (Triton's format) and the located errors they
raise, on the interpreter and on the CPU back end (where it is built)."""
import inspect
import os
import sys

import numpy as np
import pytest

import tritonc
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

@pytest.fixture(params=dsl_backends.available(cuda=False))
def backend(request, monkeypatch, tmp_path):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TRITONC_DEBUG", raising=False)
    monkeypatch.delenv("TRITON_DEBUG", raising=False)
    return dsl_backends.use(monkeypatch, request.param)


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn.fn)
    for k, line in enumerate(lines):
        if text in line:
            return first + k, line.index(text) + 1
    raise AssertionError(text)


@tritonc.jit
def print_tile(X, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.device_print("x", x)


def test_device_print_prints_each_element_per_program(backend, capfd):
    x = np.array([0.5, -1.0, 2.25, 3.0, 4.0, 5.5, -6.0, 7.125], np.float32)
    print_tile[(2,)](x, BLOCK=4)
    out = capfd.readouterr().out
    expected = ["pid (%d, 0, 0) idx (%d) x: %f" % (i // 4, i % 4, v) for i, v in enumerate(x)]
    assert out.splitlines() == expected


@tritonc.jit
def print_fstring(X, BLOCK: tl.constexpr, NAME: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.device_print(f"{NAME!r} {BLOCK:03d} {BLOCK * 2}", x)


def test_device_print_prefix_from_an_fstring_of_constexprs(backend, capfd):
    """Conversions (!r) and format specs (:03d) as Python formats them."""
    x = np.array([1.5, -2.0], np.float32)
    print_fstring[(1,)](x, BLOCK=2, NAME="x")
    out = capfd.readouterr().out
    assert out.splitlines() == ["pid (0, 0, 0) idx (%d) 'x' 002 4: %f" % (i, v) for i, v in enumerate(x)]


@tritonc.jit
def print_many(X, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    ids = tl.reshape(offs, (2, BLOCK // 2))
    tl.device_print("ids ", ids, n)
    tl.device_print("bits", offs.to(tl.int8) - 2, hex=True)
    print("no values")  # Python's print is tl.device_print, as in Triton


def test_device_print_several_values_hex_and_text(backend, capfd):
    print_many[(1,)](np.zeros(4, np.float32), 7, BLOCK=4)
    out = capfd.readouterr().out.splitlines()
    assert out == [
        "pid (0, 0, 0) idx (0, 0) ids: (operand 0) 0",
        "pid (0, 0, 0) idx (0, 1) ids: (operand 0) 1",
        "pid (0, 0, 0) idx (1, 0) ids: (operand 0) 2",
        "pid (0, 0, 0) idx (1, 1) ids: (operand 0) 3",
        "pid (0, 0, 0) idx () ids: (operand 1) 7",
        "pid (0, 0, 0) idx (0) bits: 0xfe",
        "pid (0, 0, 0) idx (1) bits: 0xff",
        "pid (0, 0, 0) idx (2) bits: 0x00",
        "pid (0, 0, 0) idx (3) bits: 0x01",
        "pid (0, 0, 0) no values",
    ]


@tritonc.jit(debug=True)
def checked(X, limit, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.device_assert(x < limit, "x below the limit")
    tl.store(X + offs, x + 1)


def test_device_assert_fails_with_a_located_error(backend):
    x = np.arange(8, dtype=np.float32)
    with pytest.raises(tritonc.Error) as e:
        checked[(2,)](x, 6.0, BLOCK=4)
    line, col = line_of(checked, "tl.device_assert")
    text = str(e.value)
    assert ("%s:%d:%d: error: device assertion failed: x below the limit (kernel 'checked', program (1, 0, 0), "
            "tile element [2])" % (inspect.getsourcefile(checked.fn), line, col)) in text, text
    assert text.splitlines()[-1].strip() == "^" and "tl.device_assert(x < limit" in text.splitlines()[-2]


def test_device_assert_passes_when_true(backend):
    x = np.arange(8, dtype=np.float32)
    checked[(2,)](x, 100.0, BLOCK=4)
    np.testing.assert_array_equal(x, np.arange(1, 9, dtype=np.float32))


@tritonc.jit
def python_assert(X, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    assert x != 3, "no threes"
    pid = tl.program_id(0)
    assert pid < n


def test_python_assert_on_tensors_needs_debug(backend):
    x = np.arange(4, dtype=np.int32)
    # Off by default, as in Triton: nothing is checked, nothing is compiled.
    python_assert[(1,)](x, 0, BLOCK=4)
    assert "  assert %" not in python_assert.warmup(x, 0, BLOCK=4).asm["ttir"]
    assert "  assert %" in python_assert.warmup(x, 0, BLOCK=4, debug=True).asm["ttir"]
    with pytest.raises(tritonc.Error) as e:
        python_assert[(1,)](x, 0, BLOCK=4, debug=True)
    line, col = line_of(python_assert, "assert x != 3")
    assert ":%d:%d: error: device assertion failed: no threes (kernel 'python_assert', program (0, 0, 0), " \
           "tile element [3])" % (line, col) in str(e.value)


def test_debug_environment_variable_enables_asserts(backend, monkeypatch):
    monkeypatch.setenv("TRITONC_DEBUG", "1")
    x = np.array([0, 1, 2, 4], np.int32)
    with pytest.raises(tritonc.Error) as e:
        python_assert[(2,)](x, 1, BLOCK=4)
    line, col = line_of(python_assert, "assert pid < n")
    # A scalar condition names no element.
    assert ":%d:%d: error: device assertion failed (kernel 'python_assert', program (1, 0, 0))" % (line, col) \
        in str(e.value)


@tritonc.jit(debug=True)
def masked_assert(X, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=-1)
    tl.device_assert(x >= 0, "negative", mask=offs < n)


def test_device_assert_mask_skips_lanes(backend):
    x = np.array([0, 1, -5, 3], np.int32)
    masked_assert[(1,)](x, 2, BLOCK=4)  # lanes 2 and 3 are masked off
    with pytest.raises(tritonc.Error, match=r"negative \(kernel 'masked_assert', program \(0, 0, 0\), "
                                            r"tile element \[2\]\)"):
        masked_assert[(1,)](x, 3, BLOCK=4)


def test_ir_has_the_operations(backend):
    ir = print_tile.warmup(np.zeros(4, np.float32), BLOCK=4).asm["ttir"]
    assert 'print " x: ", %' in ir
    ir = checked.warmup(np.zeros(4, np.float32), 1.0, BLOCK=4).asm["ttir"]
    assert 'assert %' in ir and '"x below the limit"' in ir


@tritonc.jit
def bad_prefix(X):
    tl.device_print(X, X)


@tritonc.jit(debug=True)
def bad_condition(X):
    tl.device_assert(tl.load(X), "not a boolean")


def test_misuse_is_a_located_compile_error(backend):
    from tritonc.codegen import CompilationError
    x = np.zeros(4, np.float32)
    with pytest.raises(CompilationError, match="device_print's prefix must be a string"):
        bad_prefix[(1,)](x)
    with pytest.raises(CompilationError, match=r"condition must be a boolean \(int1\) tensor, not tl.float32"):
        bad_condition[(1,)](x)


# ---- on the GPU (skipped without CUDA and torch) -------------------------------------

_torch_cuda = dsl_backends.torch_cuda


@pytest.mark.skipif(_torch_cuda() is None, reason="needs a CUDA GPU and torch")
def test_device_print_on_the_gpu(capfd, monkeypatch):
    monkeypatch.delenv("TRITONC_INTERPRET", raising=False)
    torch = _torch_cuda()
    x = torch.tensor([0.5, -1.0, 2.25, 3.0, 4.0, 5.5, -6.0, 7.125], device="cuda")
    print_tile[(2,)](x, BLOCK=4)
    print_many[(1,)](torch.zeros(4, device="cuda"), 7, BLOCK=4)
    torch.cuda.synchronize()  # device printf's buffer is written out at synchronization
    out = capfd.readouterr().out.splitlines()
    # Threads print in any order; each element exactly once.
    expected = ["pid (%d, 0, 0) idx (%d) x: %f" % (i // 4, i % 4, v) for i, v in enumerate(x.tolist())]
    expected += ["pid (0, 0, 0) idx (%d, %d) ids: (operand 0) %d" % (i // 2, i % 2, i) for i in range(4)]
    expected += ["pid (0, 0, 0) idx () ids: (operand 1) 7"]
    expected += ["pid (0, 0, 0) idx (%d) bits: 0x%02x" % (i, (i - 2) & 0xff) for i in range(4)]
    expected += ["pid (0, 0, 0) no values"]
    assert sorted(out) == sorted(expected)


# A failed assertion loses the process's CUDA context: it runs in a child.
_GPU_ASSERT_CHILD = r"""
import sys, torch, tritonc
sys.path.insert(0, %r)
from test_dsl_debug import checked
x = torch.arange(8, dtype=torch.float32, device="cuda")
for limit in (6.0, 100.0):  # the second launch meets the lost context: tritonc's report
    try:
        checked[(2,)](x, limit, BLOCK=4)
        torch.cuda.synchronize()
    except Exception as e:
        sys.stdout.flush()
        print("RAISED", type(e).__name__, e, file=sys.stderr)
"""


@pytest.mark.skipif(_torch_cuda() is None, reason="needs a CUDA GPU and torch")
def test_device_assert_on_the_gpu(tmp_path):
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, TRITONC_CACHE_DIR=str(tmp_path), PYTHONUNBUFFERED="1")
    env.pop("TRITONC_INTERPRET", None)
    r = subprocess.run([sys.executable, "-c", _GPU_ASSERT_CHILD % here], env=env, capture_output=True, text=True,
                       timeout=300)
    line, col = line_of(checked, "tl.device_assert")
    # Thread 2 of program 1 holds element 2 (x = 6): the located line, then CUDA's own.
    located = ("%s:%d:%d: error: device assertion failed: x below the limit (kernel 'checked', program (1, 0, 0), "
               "tile element [2])" % (inspect.getsourcefile(checked.fn), line, col))
    assert located in r.stdout.splitlines(), r.stdout + r.stderr
    assert "Assertion `x below the limit` failed" in r.stdout + r.stderr, r.stdout + r.stderr
    assert "RAISED" in r.stderr and "CUDA_ERROR_ASSERT" in r.stderr, r.stderr
    assert "A device assertion failed: the kernel printed which one" in r.stderr, r.stderr
