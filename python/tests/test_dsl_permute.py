"""tl.permute / tl.trans of any rank (the IR's `trans` with a permutation)
against numpy's transpose, on the back ends of
dsl_backends.language_backends(); fresh inputs, poisoned outputs. The PTX
is assembled in test_dsl_ptx.py."""
import itertools
import os
import sys

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()
backend = dsl_backends.suite_fixture()  # each test on each back end of language_backends()
run = dsl_backends.run


@triton.jit
def permute3_kernel(X, Y, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, P0: tl.constexpr, P1: tl.constexpr,
                    P2: tl.constexpr, METHOD: tl.constexpr):
    offs = tl.arange(0, A)[:, None, None] * (B * C) + tl.arange(0, B)[None, :, None] * C + tl.arange(0, C)[None, None, :]
    x = tl.load(X + offs)
    if METHOD == "permute":
        y = tl.permute(x, (P0, P1, P2))
    elif METHOD == "trans":
        y = tl.trans(x, P0, P1, P2)
    else:
        y = x.permute(P0, P1, P2)
    # Row-major offsets of the permuted shape.
    s0: tl.constexpr = y.shape[0]
    s1: tl.constexpr = y.shape[1]
    s2: tl.constexpr = y.shape[2]
    out = tl.arange(0, s0)[:, None, None] * (s1 * s2) + tl.arange(0, s1)[None, :, None] * s2 + \
        tl.arange(0, s2)[None, None, :]
    tl.store(Y + out, y + 1)


@pytest.mark.parametrize("perm", list(itertools.permutations(range(3))))
@pytest.mark.parametrize("method", ["permute", "trans", "method"])
def test_permute_3d(perm, method):
    a, b, c = 2, 8, 4
    x = rng.integers(-1000, 1000, a * b * c).astype(np.int32)
    y = np.full(a * b * c, -7, np.int32)
    run(permute3_kernel, (1,), x, y, a, b, c, *perm, METHOD=method)
    np.testing.assert_array_equal(y.reshape([(a, b, c)[p] for p in perm]),
                                  np.transpose(x.reshape(a, b, c), perm) + 1)


@triton.jit
def permute4_kernel(X, Y, D: tl.constexpr):
    i = tl.arange(0, D)
    offs = i[:, None, None, None] * D * D * D + i[None, :, None, None] * D * D + i[None, None, :, None] * D + \
        i[None, None, None, :]
    x = tl.load(X + offs)
    tl.store(Y + offs, tl.permute(tl.permute(x, (3, 1, 0, 2)), (0, 2, 3, 1)) * 2.0)


def test_two_permutes_of_4d_compose():
    d = 4
    x = rng.standard_normal(d ** 4).astype(np.float32)
    y = np.full(d ** 4, np.nan, np.float32)
    run(permute4_kernel, (1,), x, y, d)
    want = np.transpose(np.transpose(x.reshape(d, d, d, d), (3, 1, 0, 2)), (0, 2, 3, 1)) * 2
    np.testing.assert_array_equal(y.reshape(d, d, d, d), want)


@triton.jit
def subtile_split_kernel(X, Y0, Y1, M: tl.constexpr, N: tl.constexpr):
    # The persistent-matmul tutorial's epilogue: halves of the columns
    # through reshape, a 3-D permute and split.
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    acc = tl.reshape(x, (M, 2, N // 2))
    acc = tl.permute(acc, (0, 2, 1))
    a0, a1 = tl.split(acc)
    half = tl.arange(0, M)[:, None] * (N // 2) + tl.arange(0, N // 2)[None, :]
    tl.store(Y0 + half, a0)
    tl.store(Y1 + half, a1)


def test_subtile_split_is_the_column_halves():
    m, n = 16, 32
    x = rng.standard_normal((m, n)).astype(np.float32)
    y0 = np.full((m, n // 2), np.nan, np.float32)
    y1 = np.full((m, n // 2), np.nan, np.float32)
    run(subtile_split_kernel, (1,), x, y0, y1, m, n)
    np.testing.assert_array_equal(y0, x[:, : n // 2])
    np.testing.assert_array_equal(y1, x[:, n // 2:])


@triton.jit
def bad_permute_kernel(X, WHICH: tl.constexpr):
    x = tl.load(X + tl.arange(0, 8)[:, None, None] + tl.arange(0, 2)[None, :, None] + tl.arange(0, 2)[None, None, :])
    if WHICH == "repeat":
        x = tl.permute(x, (0, 0, 1))
    else:
        x = tl.permute(x, (0, 1))
    tl.store(X + tl.arange(0, 8), tl.sum(tl.sum(x, 2), 1))


@pytest.mark.parametrize("which", ["repeat", "short"])
def test_bad_permutations_are_compile_errors(which):
    with pytest.raises(triton.CompilationError) as e:
        bad_permute_kernel[(1,)](np.zeros(16, np.float32), WHICH=which)
    assert "is not a permutation of the 3 dimensions" in str(e.value)
