"""tl.map_elementwise (Triton 3.5+): a @jit function written for one
element, mapped over tensors; its `if`s on an element's value become
selects (both branches run under their predicates), its returns are taken
per element. Against numpy on the back ends of
dsl_backends.language_backends(); fresh inputs, poisoned outputs."""
import os
import sys

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
def selu_scalar(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@triton.jit
def bucket(x, y):
    # early returns, an assignment in one branch, a nested if, a call
    if x < -1.0:
        return -1.0, y
    r = x * 2.0
    if y > 0:
        r = r + y
        if x > 1.0:
            return square(r), -y
    else:
        r = r - 1.0
    return r, y * 3.0


@triton.jit
def square(v):
    return v * v


@triton.jit
def digits(n):
    # a loop (constant trip count) and an element's if inside it
    total = 0
    for _ in range(4):
        if n > 0:
            total += n % 10
        n = n // 10
    return total


@triton.jit
def int_steps(n):
    s = 0
    if n % 3 == 0:
        s = n // 3
    elif n % 3 == 1:
        s = n * 2
    else:
        return 7
    return s + 1


@triton.jit
def map_kernel(X, Y, Z, W, I, J, N: tl.constexpr, ALPHA: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(Z + offs, tl.map_elementwise(selu_scalar, x, ALPHA))
    a, b = tl.map_elementwise(bucket, x, y)
    tl.store(W + offs, a)
    tl.store(W + N + offs, b)
    tl.store(J + offs, tl.map_elementwise(int_steps, tl.load(I + offs)))
    tl.store(J + N + offs, tl.map_elementwise(digits, tl.load(I + offs)))


def test_map_elementwise_matches_numpy():
    N = 64
    x = (rng.standard_normal(N) * 2).astype(np.float32)
    y = rng.standard_normal(N).astype(np.float32)
    i = rng.integers(0, 100, N).astype(np.int32)
    z = np.full(N, np.nan, np.float32)
    w = np.full(2 * N, np.nan, np.float32)
    j = np.full(2 * N, -9, np.int32)
    run(map_kernel, (1,), x, y, z, w, i, j, N=N, ALPHA=1.5)
    np.testing.assert_allclose(z, np.where(x > 0, x, 1.5 * (np.exp(x) - 1)), rtol=1e-5, atol=1e-6)
    want_a, want_b = [], []
    for xv, yv in zip(x.astype(np.float64), y.astype(np.float64)):
        if xv < -1.0:
            want_a.append(-1.0), want_b.append(yv)
            continue
        r = xv * 2.0
        if yv > 0:
            r = r + yv
            if xv > 1.0:
                want_a.append(r * r), want_b.append(-yv)
                continue
        else:
            r = r - 1.0
        want_a.append(r), want_b.append(yv * 3.0)
    np.testing.assert_allclose(w[:N], want_a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w[N:], want_b, rtol=1e-5, atol=1e-6)
    want_j = [7 if n % 3 == 2 else (n // 3 if n % 3 == 0 else n * 2) + 1 for n in i.tolist()]
    np.testing.assert_array_equal(j[:N], want_j)
    np.testing.assert_array_equal(j[N:], [sum(int(c) for c in str(n)[-4:]) for n in i.tolist()])


@triton.jit
def pairwise(a0, a1, b0, b1):
    # two consecutive elements of a and of b at once: their sum and difference, and the larger of b's
    if a0 > a1:
        return a0 + a1, a0 - a1, tl.maximum(b0, b1), tl.maximum(b0, b1)
    return a1 + a0, a1 - a0, b0, b1


@triton.jit
def squares4(x0, x1, x2, x3):
    return x0 * x0, x1 * x1, x2 * x2, x3 * x3


@triton.jit
def packed_kernel(A, B, S, M, N: tl.constexpr, PACK: tl.constexpr):
    offs = tl.arange(0, 8)[:, None] * N + tl.arange(0, N)[None, :]
    a = tl.load(A + offs)
    b = tl.load(B + offs)
    if PACK == 2:
        s, m = tl.map_elementwise(pairwise, a, b, pack=2)
        tl.store(S + offs, s)
        tl.store(M + offs, m)
    else:
        tl.store(S + offs, tl.map_elementwise(squares4, a, pack=PACK))


def test_map_elementwise_packs_consecutive_elements():
    N = 16
    a = rng.standard_normal((8, N)).astype(np.float32)
    b = rng.standard_normal((8, N)).astype(np.float32)
    s = np.full((8, N), np.nan, np.float32)
    m = np.full((8, N), np.nan, np.float32)
    run(packed_kernel, (1,), a, b, s, m, N=N, PACK=2)
    a0, a1, b0, b1 = a[:, 0::2], a[:, 1::2], b[:, 0::2], b[:, 1::2]
    big = a0 > a1
    want_s = np.empty_like(a)
    want_s[:, 0::2] = a0 + a1
    want_s[:, 1::2] = np.where(big, a0 - a1, a1 - a0)
    want_m = np.empty_like(b)
    want_m[:, 0::2] = np.where(big, np.maximum(b0, b1), b0)
    want_m[:, 1::2] = np.where(big, np.maximum(b0, b1), b1)
    np.testing.assert_allclose(s, want_s, rtol=1e-6)
    np.testing.assert_array_equal(m, want_m)
    s.fill(np.nan)
    run(packed_kernel, (1,), a, b, s, m, N=N, PACK=4)
    np.testing.assert_allclose(s, a * a, rtol=1e-6)


@triton.jit
def stores_under_a_branch(x, P):
    if x > 0:
        tl.store(P, x)
    return x


@triton.jit
def store_it(x, P):
    tl.store(P, x)
    return x


@triton.jit
def stores_in_a_call_under_a_branch(x, P):
    if x > 0:
        x = store_it(x, P)
    return x


@triton.jit
def impure_asm_under_a_branch(x):
    if x > 0:
        x = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=False, pack=1)
    return x


@triton.jit
def loops_on_the_element(x):
    while x > 1.0:
        x = x / 2
    return x


@triton.jit
def returns_in_a_loop(x):
    for i in range(3):
        if x > i:
            return x * i
    return x


@triton.jit
def error_kernel(X, WHICH: tl.constexpr):
    x = tl.load(X + tl.arange(0, 16))
    if WHICH == 0:
        y = tl.map_elementwise(stores_under_a_branch, x, X)
    elif WHICH == 1:
        y = tl.map_elementwise(loops_on_the_element, x)
    elif WHICH == 2:
        y = tl.map_elementwise(square, x, pack=3)
    elif WHICH == 3:
        y = tl.map_elementwise(returns_in_a_loop, x)
    elif WHICH == 4:
        y = tl.map_elementwise(stores_in_a_call_under_a_branch, x, X)
    else:
        y = tl.map_elementwise(impure_asm_under_a_branch, x.to(tl.int32)).to(tl.float32)
    tl.store(X + tl.arange(0, 16), y)


@pytest.mark.parametrize("which,message", [
    (0, "store under an 'if' on an element's value"),
    (1, "a loop on an element's value in tl.map_elementwise is not supported"),
    (2, "pack is a power of two dividing the last axis"),
    (3, "'return' inside a loop of a function mapped over elements"),
    (4, "store under an 'if' on an element's value"),
    (5, r"inline_asm_elementwise \(not pure\) under an 'if'"),
])
def test_map_elementwise_refuses_what_it_cannot_convert(which, message):
    with pytest.raises(tl.CompileError, match=message):
        run(error_kernel, (1,), np.zeros(16, np.float32), WHICH=which)
