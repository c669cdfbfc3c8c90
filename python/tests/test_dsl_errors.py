"""Mistakes in Python DSL kernels give a tritonc CompilationError located in
the user's file (line, column, the source line and a caret), never a crash;
what is not supported yet says so."""
import inspect

import numpy as np
import pytest

import tritonc
import tritonc.language as tl
from tritonc.codegen import CompilationError


@pytest.fixture(autouse=True)
def interpreter(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn.fn)
    for k, line in enumerate(lines):
        if text in line:
            return first + k, line.index(text) + 1
    raise AssertionError(text)


@tritonc.jit
def bad_shapes(X, BLOCK: tl.constexpr):
    a = tl.arange(0, BLOCK)
    b = tl.arange(0, 2 * BLOCK)
    tl.store(X + a, a + b)


@tritonc.jit
def bad_loop_carried(X, n):
    acc = 0
    for i in range(n):
        acc += tl.load(X + tl.arange(0, 16)).to(tl.float32)
    tl.store(X + tl.arange(0, 16), acc)


@tritonc.jit
def bad_tensor_if(X):
    x = tl.load(X + tl.arange(0, 16))
    if x > 0:
        tl.store(X, 1.0)


@tritonc.jit
def bad_arange(X, n):
    tl.store(X + tl.arange(0, n), 1.0)


@tritonc.jit
def bad_name(X):
    tl.store(X, undefined_thing)  # noqa: F821


@tritonc.jit
def bad_float_floordiv(X):
    x = tl.load(X)
    tl.store(X, x // 2.0)


@tritonc.jit
def bad_bitcast_width(X):
    tl.store(X, tl.cast(tl.load(X), tl.int16, bitcast=True).to(tl.float32))


@tritonc.jit
def bad_store_through_scalar(X):
    tl.store(X, tl.load(X + tl.arange(0, 16)))


@tritonc.jit
def bad_huge_tile(X):
    tl.store(X, tl.sum(tl.sum(tl.zeros((8192, 4096), tl.float32), 1), 0))


@tritonc.jit
def bad_expand_axis(X):
    tl.store(X + tl.arange(0, 16), tl.expand_dims(tl.load(X + tl.arange(0, 16)), 5))


@tritonc.jit
def bad_histogram_bins(X):
    tl.store(X, tl.sum(tl.histogram(tl.arange(0, 16), 3), 0).to(tl.float32))


@pytest.mark.parametrize("kernel,text,message", [
    (bad_shapes, "a + b", "cannot be broadcast"),
    (bad_store_through_scalar, "tl.store", "the pointer is a scalar"),
    (bad_huge_tile, "tl.zeros", "at most 2^24"),
    (bad_expand_axis, "tl.expand_dims", "axis 5 is out of range"),
    (bad_histogram_bins, "tl.histogram", "num_bins must be a positive power of two"),
    (bad_loop_carried, "for i in range(n)", "'acc' is loop-carried and changes type"),
    (bad_tensor_if, "x > 0", "must be a scalar"),
    (bad_arange, "tl.arange(0, n)", "compile-time constant"),
    (bad_name, "undefined_thing", "not defined"),
    (bad_float_floordiv, "x // 2.0", "'//' takes integers"),
    (bad_bitcast_width, "tl.cast", "bitcasts keep the bit width"),
])
def test_located_errors(kernel, text, message):
    x = np.zeros(64, np.float32)
    with pytest.raises(CompilationError) as e:
        kernel[(1,)](x, 16) if "n" in kernel.arg_names or "BLOCK" in kernel.arg_names else kernel[(1,)](x)
    err = e.value
    line, col = line_of(kernel, text)
    assert message in str(err)
    assert err.file == inspect.getsourcefile(kernel.fn)
    assert err.line == line and err.col == col, (err.line, err.col, line, col, str(err))
    assert str(err).splitlines()[-1].strip() == "^" and text in str(err).splitlines()[-2]


def test_out_of_bounds_names_the_python_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))

    def oob(X, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(X + offs, tl.load(X + offs) + 1.0)  # no mask: reads past the end

    x = np.zeros(10, np.float32)
    # Compiled, then loaded from the disk cache by a second kernel object.
    for kernel in (tritonc.jit(oob), tritonc.jit(oob)):
        with pytest.raises(tritonc.Error) as e:
            kernel[(1,)](x, 10, BLOCK=16)
        line, col = line_of(kernel, "tl.load(X + offs)")
        assert "out-of-bounds load" in str(e.value) and (":%d:%d:" % (line, col)) in str(e.value)


def test_wrong_launch_arguments():
    with pytest.raises(TypeError, match="missing argument 'BLOCK'"):
        bad_shapes[(1,)](np.zeros(4, np.float32))
    with pytest.raises(RuntimeError, match=r"kernel\[grid\]"):
        bad_shapes(np.zeros(4, np.float32), 16)


def test_a_kernel_without_source_says_so():
    namespace = {}
    exec("import tritonc.language as tl\ndef k(X):\n    tl.store(X, 1.0)\n", namespace)
    kernel = tritonc.jit(namespace["k"])
    with pytest.raises(tl.CompileError, match="source of kernel 'k' is not available"):
        kernel[(1,)](np.zeros(1, np.float32))
