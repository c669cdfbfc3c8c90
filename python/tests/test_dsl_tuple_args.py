"""Tuples as kernel arguments (Triton 3.x): tuples of arrays, of numbers,
nested, with constant leaves (None, dtypes, strings); each runtime leaf is a
parameter of its own (specialized as any other), the kernel sees the tuple.
Against numpy on the back ends of dsl_backends.language_backends(); fresh
inputs, poisoned outputs."""
import os
import sys
import typing

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()
backend = dsl_backends.suite_fixture()
run = dsl_backends.run


@triton.jit
def sum_of_kernel(ptrs, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    acc = tl.zeros((N,), tl.float32)
    for p in ptrs:  # unrolled: one load per element of the tuple
        acc += tl.load(p + offs)
    tl.store(Y + offs, acc)


@pytest.mark.parametrize("count", [1, 2, 3])
def test_a_tuple_of_arrays(count):
    xs = tuple(rng.standard_normal(32).astype(np.float32) for _ in range(count))
    y = np.full(32, np.nan, np.float32)
    run(sum_of_kernel, (1,), xs, y, 32)
    np.testing.assert_allclose(y, sum(xs), rtol=1e-6)


@triton.jit
def strided_kernel(X, Y, shape, rest, BM: tl.constexpr, BN: tl.constexpr):
    m, n = shape
    (sm, sn), (so, scale) = rest  # a nested tuple unpacks
    rm, rn = tl.arange(0, BM), tl.arange(0, BN)
    mask = (rm[:, None] < m) & (rn[None, :] < n)
    x = tl.load(X + rm[:, None] * sm + rn[None, :] * sn, mask=mask, other=0.0)
    if so is None:
        tl.store(Y + rm[:, None] * n + rn[None, :], x * scale, mask=mask)
    else:
        tl.store(Y + rm[:, None] * n + rn[None, :], x * scale + so, mask=mask)


@pytest.mark.parametrize("offset", [None, 1.5])
def test_nested_tuples_of_numbers_and_constants(offset):
    a = rng.standard_normal((20, 12)).astype(np.float32)
    xt = np.ascontiguousarray(a.T)  # read through strides (1, 20): the transpose back
    y = np.full(20 * 12, np.nan, np.float32)
    run(strided_kernel, (1,), xt, y, (20, 12), ((1, 20), (offset, 3.0)), BM=32, BN=16)
    want = a * 3.0 + (offset or 0.0)
    # atol: the GPU contracts x * scale + so into one fma (one rounding, numpy's two)
    np.testing.assert_allclose(y.reshape(20, 12), want, rtol=1e-6, atol=1e-6)


@triton.jit
def typed_kernel(pair, Y, N: tl.constexpr):
    x_ptr, dt = pair
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.load(x_ptr + offs).to(dt).to(tl.float32))


def test_a_dtype_inside_a_tuple_is_a_constant():
    x = (rng.standard_normal(16) * 100).astype(np.float32)
    y = np.full(16, np.nan, np.float32)
    run(typed_kernel, (1,), (x, tl.int32), y, 16)
    np.testing.assert_array_equal(y, np.trunc(x))


def test_tuple_leaves_are_parameters_of_their_own():
    x = np.zeros(16, np.float32)
    c = typed_kernel.warmup((x, tl.int32), np.zeros(16, np.float32), 16)
    assert "%pair__0: f32*" in c.asm["ttir"]
    with pytest.raises(TypeError, match="TensorDescriptor inside a tuple"):
        d = triton.tools.tensor_descriptor.TensorDescriptor.from_tensor(np.zeros((16, 16), np.float32), [16, 16])
        typed_kernel.warmup((d, tl.int32), x, 16)


def test_repeated_calls_with_tuples_take_each_calls_values():
    """A call with a tuple goes the Python way every time (the C++ fast path
    of repeated CUDA calls does not expand tuples): the second and third
    calls see their own numbers and arrays."""
    for n_rows in (20, 12, 20):
        a = rng.standard_normal((n_rows, 12)).astype(np.float32)
        xt = np.ascontiguousarray(a.T)
        y = np.full(n_rows * 12, np.nan, np.float32)
        run(strided_kernel, (1,), xt, y, (n_rows, 12), ((1, n_rows), (None, 2.0)), BM=32, BN=16)
        np.testing.assert_allclose(y.reshape(n_rows, 12), a * 2.0, rtol=1e-6)


@triton.jit
def weighted_sum_kernel(ptrs, Y, WEIGHTS: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    acc = tl.zeros((N,), tl.float32)
    for i, (p, w) in enumerate(zip(ptrs, WEIGHTS)):  # unrolled, as the tuples are
        acc += tl.load(p + offs) * w + i
    for j, p in enumerate(reversed(ptrs), start=10):
        acc = acc * 0.5 + j * tl.load(p + offs)
    tl.store(Y + offs, acc)


@pytest.mark.parametrize("count", [1, 3])
def test_enumerate_zip_and_reversed_over_tuples_unroll(count):
    """Beyond Triton: enumerate, zip and reversed of tuples in a kernel's
    loop unroll like the tuples (Triton refuses them)."""
    xs = tuple(rng.standard_normal(16).astype(np.float32) for _ in range(count))
    weights = tuple(float(w) for w in rng.integers(1, 5, count))
    y = np.full(16, np.nan, np.float32)
    run(weighted_sum_kernel, (1,), xs, y, WEIGHTS=weights, N=16)
    want = sum(x * w + i for i, (x, w) in enumerate(zip(xs, weights)))
    for j, x in enumerate(reversed(xs), start=10):
        want = want * 0.5 + j * x
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_enumerate_of_a_tensor_is_refused_with_the_line():
    @triton.jit
    def bad(X, N: tl.constexpr):
        x = tl.load(X + tl.arange(0, N))
        for i, v in enumerate(x):
            tl.store(X + i, v)

    with pytest.raises(triton.CompilationError, match="enumerate.*takes tuples"):
        run(bad, (1,), np.zeros(4, np.float32), N=4)


class View(typing.NamedTuple):
    ptr: object
    shape: tuple
    stride: tuple


@triton.jit
def make_view(ptr, shape, stride):
    v = View(ptr=ptr, shape=shape, stride=stride)  # (a variable holding it keeps its class)
    return v


@triton.jit
def view_mask(v, BM: tl.constexpr, BN: tl.constexpr):
    rm, rn = tl.arange(0, BM), tl.arange(0, BN)
    return (rm[:, None] < v.shape[0]) & (rn[None, :] < v.shape[1])


@triton.jit
def named_copy_kernel(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    rm, rn = tl.arange(0, BM), tl.arange(0, BN)
    out = make_view(dst.ptr, dst.shape, dst.stride)
    x = tl.load(src.ptr + rm[:, None] * src.stride[0] + rn[None, :] * src.stride[1], mask=view_mask(src, BM, BN),
                other=0.0)
    tl.store(out.ptr + rm[:, None] * out.stride[0] + rn[None, :] * out.stride[1], x * 2.0,
             mask=view_mask(out, BM, BN))


def test_named_tuples_keep_their_fields():
    """A typing.NamedTuple argument (Triton 3.x's test_namedtuple): fields
    by name in the kernel, through @jit calls that build and return one."""
    m, n = int(rng.integers(5, 16)), int(rng.integers(5, 16))
    x = rng.standard_normal((m, n)).astype(np.float32)
    y = np.full((n, m), np.nan, np.float32)  # written transposed, through its strides
    src = View(x, (m, n), (n, 1))
    dst = View(y, (m, n), (1, m))
    run(named_copy_kernel, (1,), src, dst, BM=16, BN=16)
    np.testing.assert_array_equal(y, (x * 2).T)
