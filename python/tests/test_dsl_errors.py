"""Mistakes in Python DSL kernels give a tritonc CompilationError located in
the user's file (line, column, the source line and a caret), never a crash;
what is not supported yet says so."""
import inspect
import math

import numpy as np
import pytest

import tritonc
import tritonc.language as tl
from tritonc.codegen import CompilationError

rng = np.random.default_rng()


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


@tritonc.jit
def bad_block_ptr_store_mask(X):
    p = tl.make_block_ptr(X, (16,), (1,), (0,), (16,), (0,))
    tl.store(p, tl.zeros((16,), tl.float32), mask=tl.arange(0, 16) < 3)


@tritonc.jit
def bad_cache_modifier(X):
    tl.store(X, tl.load(X, cache_modifier=".bogus"))


@tritonc.jit
def bad_eviction_policy(X):
    tl.store(X, 1.0, eviction_policy="whatever")


@tritonc.jit
def bad_runtime_fstring(X, n):
    tl.device_print(f"value {n}", tl.load(X))


@tritonc.jit
def bad_block_shape(X, n):
    p = tl.make_block_ptr(X, (16,), (1,), (0,), (n,), (0,))
    tl.store(p, tl.zeros((16,), tl.float32))


@tritonc.jit
def bad_skip_in_tuple_loop(X):
    for v in (1, 2, 3):
        if v == 2:
            continue
        tl.store(X + v, 1.0)


@tritonc.jit
def _store_one(X):
    tl.store(X, 1.0)


@tritonc.jit
def bad_launch_in_kernel(X):
    _store_one[(1,)](X)


@tritonc.jit
def bad_full_dtype(X):
    tl.store(X + tl.arange(0, 4), tl.full((4,), 1, "float32"))


@tritonc.jit
def bad_store_nothing(X):
    r = _store_one(X)
    tl.store(X, r)


@tritonc.jit
def bad_slice_past_the_end(X):
    v = tl.load(X + tl.arange(0, 64))
    tl.store(X + tl.arange(0, 16), v[48:80])


@tritonc.jit
def bad_wrapped_slice(X):
    v = tl.load(X + tl.arange(0, 64))
    tl.store(X + tl.arange(0, 16), v[-16:16])


@tritonc.jit
def bad_store_wider_value(X):
    i = tl.arange(0, 4)
    tl.store(X + i, i[:, None] * 10 + i[None, :])


@tritonc.jit
def bad_atomic_wider_value(X):
    i = tl.arange(0, 4)
    tl.atomic_add(X + i[:, None], i[:, None] * 10 + i[None, :])


@tritonc.jit
def bad_load_wider_mask(X):
    i = tl.arange(0, 4)
    v = tl.load(X + i, mask=i[:, None] < i[None, :])
    tl.store(X + i, tl.sum(v, axis=0))


@tritonc.jit
def bad_other_without_mask(X):
    i = tl.arange(0, 4)
    tl.store(X + i, tl.load(X + i, other=1.5))


@tritonc.jit
def bad_float_atomic_and(X):
    tl.atomic_and(X + tl.arange(0, 16), tl.zeros((16,), tl.float32))


@tritonc.jit
def bad_pointer_to_pointer(X):
    pp = X.to(tl.pointer_type(tl.pointer_type(tl.float32)))
    tl.store(X, tl.load(tl.load(pp)))


@tritonc.jit
def bad_scan_shapes(X):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    r = tl.associative_scan((a, b), 0, _add_pairs)
    tl.store(X + a, r[0])


@tritonc.jit
def _add_pairs(a, b, c, d):
    return a + c, b + d


@tritonc.jit
def bad_float_gather_index(X):
    x = tl.load(X + tl.arange(0, 16))
    tl.store(X + tl.arange(0, 16), tl.gather(x, x * 0.5, 0))


@tritonc.jit
def bad_integer_accumulator(X):
    a = tl.full((16, 16), 1.5, tl.float16)
    acc = tl.dot(a, a, tl.zeros((16, 16), tl.int32))
    tl.store(X + tl.arange(0, 16), tl.sum(acc, 1).to(tl.float32))


@tritonc.jit
def bad_overflow_at_compile_time(X, BLOCK: tl.constexpr):
    tl.store(X, math.exp(BLOCK * 1000))


@tritonc.jit
def _sum_and_product(a, b):
    return a + b, a * b


@tritonc.jit
def _first_sum(a1, b1, a2, b2):
    return a1 + a2


@tritonc.jit
def bad_combine_two_results(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.store(X, tl.reduce(x, 0, _sum_and_product))


@tritonc.jit
def bad_combine_one_result(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    a, b = tl.associative_scan((x, x), 0, _first_sum)
    tl.store(X + tl.arange(0, BLOCK), a + b)


@tritonc.jit
def bad_scalar_reduction_axis(X, BLOCK: tl.constexpr):
    s = tl.sum(tl.load(X + tl.arange(0, BLOCK)), axis=0)
    tl.store(X, tl.max(s, 1))  # (meant tl.maximum)


@tritonc.jit
def bad_scalar_reduction_tensor_axis(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    a = tl.min(x, axis=0)
    tl.store(X, tl.max(a, tl.max(x, axis=0)))


@pytest.mark.parametrize("kernel,text,message", [
    (bad_scalar_reduction_axis, "tl.max(s, 1)", "axis 1 is out of range for a tensor of rank 0"),
    (bad_scalar_reduction_tensor_axis, "tl.max(a, tl.max", "axis must be a compile-time"),
    (bad_combine_two_results, "tl.reduce", "_sum_and_product returned 2 values for 1 tensor"),
    (bad_combine_one_result, "tl.associative_scan", "_first_sum returned 1 value for 2 tensors"),
    (bad_float_atomic_and, "tl.atomic_and", "atomic_and takes integers, not tl.float32"),
    (bad_pointer_to_pointer, "tl.pointer_type(tl.pointer_type", "pointers to pointers are not supported"),
    (bad_scan_shapes, "tl.associative_scan", "the tuple's tensors must have one shape, not [16], [32]"),
    (bad_float_gather_index, "tl.gather", "the index must be integers, not tl.float32"),
    (bad_integer_accumulator, "tl.dot", "a tl.int32 accumulator for tl.float16 operands"),
    (bad_overflow_at_compile_time, "math.exp", "OverflowError: math range error"),
    (bad_store_wider_value, "tl.store", "the value's shape [4, 4] does not broadcast to the pointers' shape [4]"),
    (bad_atomic_wider_value, "tl.atomic_add", "value's shape [4, 4] does not broadcast to the pointers' shape [4, 1]"),
    (bad_load_wider_mask, "tl.load", "the mask's shape [4, 4] does not broadcast to the pointers' shape [4]"),
    (bad_other_without_mask, "tl.load", "`other` cannot be provided without `mask`"),
    (bad_slice_past_the_end, "v[48:80]", "slice 48:80 of a dimension of 64: 80 is outside it"),
    (bad_wrapped_slice, "v[-16:16]", "slice -16:16 of a dimension of 64: slices need constant bounds"),
    (bad_launch_in_kernel, "_store_one[(1,)]", "a kernel does not launch kernels"),
    (bad_full_dtype, "tl.full", "the dtype must be a tl.dtype"),
    (bad_store_nothing, "tl.store(X, r)", "the value is None"),
    (bad_block_shape, "tl.make_block_ptr", "block_shape must be compile-time powers of two"),
    (bad_skip_in_tuple_loop, "continue", "loop unrolled at compile time"),
    (bad_block_ptr_store_mask, "tl.store", "takes boundary_check, not mask"),
    (bad_cache_modifier, "tl.load", "cache_modifier '.bogus' is not one of"),
    (bad_eviction_policy, "tl.store", "eviction_policy 'whatever' is not one of"),
    (bad_runtime_fstring, 'f"value', "an f-string takes compile-time values only"),
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


@tritonc.jit
def gather_past_the_axis(X, I, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, tl.gather(tl.load(X + offs), tl.load(I + offs), 0))


def test_gather_index_outside_the_axis_names_the_python_line(tmp_path, monkeypatch):
    """The interpreter (the debug mode) reports an index outside the
    gathered axis at the user's line; the CPU back end clamps it to the axis
    (as the GPU does: no read outside the tile)."""
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    values = np.random.default_rng().standard_normal(16).astype(np.float32)
    idx = np.arange(16, dtype=np.int32)
    idx[5] = 16 + int(np.random.default_rng().integers(0, 100))
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    with pytest.raises(tritonc.Error) as e:
        gather_past_the_axis[(1,)](values.copy(), idx, BLOCK=16)
    line, col = line_of(gather_past_the_axis, "tl.gather(")
    assert ("gather index %d is outside the 16 elements of axis 0" % idx[5]) in str(e.value)
    assert (":%d:%d:" % (line, col)) in str(e.value) and "[5]" in str(e.value), str(e.value)
    monkeypatch.delenv("TRITONC_INTERPRET")
    if tritonc._tritonc.cpu_backend_available():
        x = values.copy()
        gather_past_the_axis[(1,)](x, idx, BLOCK=16)
        np.testing.assert_array_equal(x, values[np.minimum(idx, 15)])


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


@tritonc.jit
def copy_plus_one(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs) + 1.0)


@pytest.mark.parametrize("interpret", ["1", "0"])
def test_read_only_arrays_are_read_but_never_written(tmp_path, monkeypatch, interpret):
    """A read-only numpy array (a memmap opened with mode 'r', an array over
    a bytes object) is read as any input; a kernel that stores to it raises
    a clear error (it used to crash, or change the bytes object), after the
    writable outputs got their results."""
    monkeypatch.setenv("TRITONC_INTERPRET", interpret)
    values = rng.standard_normal(16).astype(np.float32)
    path = tmp_path / "values.bin"
    values.tofile(path)
    ro = np.memmap(path, dtype=np.float32, mode="r")
    out = np.full(16, np.nan, np.float32)
    copy_plus_one[(1,)](ro, out, BLOCK=16)
    np.testing.assert_array_equal(out, values + 1.0)
    frozen = bytes(64)
    for target in (ro, np.frombuffer(frozen, np.float32)):
        out = np.full(16, np.nan, np.float32)
        with pytest.raises(tritonc.Error, match=r"argument 1 \('Y'\) is read-only memory"):
            copy_plus_one[(1,)](out, target, BLOCK=16)
        np.testing.assert_array_equal(out, np.full(16, np.nan, np.float32))  # inputs are never written
    assert frozen == bytes(64)
    np.testing.assert_array_equal(np.fromfile(path, np.float32), values)


def test_bad_grids_are_refused():
    """A grid is 1 to 3 integers, none negative (0 launches nothing);
    floats, strings and a grid function returning None are refused."""
    x = np.zeros(4, np.float32)
    for grid, error, message in (((-1,), ValueError, "not negative"), ((1.5,), TypeError, "tuple of 1 to 3 integers"),
                                 (("2",), TypeError, "tuple of 1 to 3 integers"),
                                 (lambda meta: None, TypeError, "tuple of 1 to 3 integers"),
                                 ((1, 1, 1, 1), ValueError, "1 to 3 dimensions")):
        with pytest.raises(error, match=message):
            copy_plus_one[grid](x, x, BLOCK=4)
    copy_plus_one[(0,)](x, x, BLOCK=4)  # nothing to do
    np.testing.assert_array_equal(x, np.zeros(4, np.float32))


def test_dot_of_booleans_is_refused_up_front():
    """As Triton; the GPU back end had refused it only when writing PTX."""
    @tritonc.jit
    def k(X, Z):
        b = tl.load(X + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :]) > 0
        tl.store(Z + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], tl.dot(b, b))

    with pytest.raises(tl.CompileError, match="tl.dot of booleans is not supported"):
        k[(1,)](np.zeros((16, 16), np.float32), np.zeros((16, 16), np.int32))
