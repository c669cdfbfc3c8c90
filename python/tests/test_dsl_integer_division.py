"""Integer division and remainder by constants (C's: toward zero, the
remainder with the dividend's sign) on every back end: the GPU's lowers them
without a div instruction (shifts for powers of two, else a multiply-high:
lib/target/nvptx/lower_divide.cpp), the interpreter and the CPU back end
divide. Dividends at the edges of each type (the most negative, multiples
of the divisor and their neighbours) and random ones; outputs poisoned."""
import os
import sys

import numpy as np
import pytest

import tritonc
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()
BLOCK = 128
INTS = ["int8", "int16", "int32", "int64"]
DIVISORS = [1, 2, 3, 4, 7, 8, 10, 16, 100, 127, 641, 1000, 4096, 65537, 2 ** 31 - 1, 10 ** 12 + 39, -3, -8]


@pytest.fixture(params=dsl_backends.available())
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


@tritonc.jit
def divide_kernel(X, Q, R, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Q + offs, x // D)
    tl.store(R + offs, x % D)
    # A scalar too (one register, not a tile's).
    s = tl.load(X + 5)
    tl.store(Q + BLOCK, s // D)
    tl.store(R + BLOCK, s % D)


def c_division(a, d):
    q = abs(a) // abs(d)
    q = -q if (a < 0) != (d < 0) else q
    return q, a - q * d


def dividends(dtype, d):
    info = np.iinfo(dtype)
    edge = [info.min, info.min + 1, info.max, info.max - 1, 0, 1, -1]
    for k in (1, 2, 3):
        for sign in (1, -1):
            for off in (-1, 0, 1):
                v = sign * k * abs(d) + off
                if info.min <= v <= info.max:
                    edge.append(v)
    out = rng.integers(info.min, info.max, size=BLOCK, dtype=dtype, endpoint=True)
    out[1:len(edge) + 1] = np.array(edge, dtype=dtype)
    rng.shuffle(out[1:])
    return out


CASES = [(t, d) for t in INTS for d in DIVISORS
         if np.iinfo(t).min <= d <= np.iinfo(t).max]


@pytest.mark.parametrize("dtype,d", CASES)
def test_divide_by_constant(backend, dtype, d):
    x = dividends(dtype, d)
    q = np.full(BLOCK + 1, 77, dtype=dtype)
    r = np.full(BLOCK + 1, 77, dtype=dtype)
    if backend == "cuda":
        torch = dsl_backends.torch_cuda()
        xt, qt, rt = (torch.from_numpy(a).cuda() for a in (x, q, r))
        divide_kernel[(1,)](xt, qt, rt, D=d, BLOCK=BLOCK)
        q, r = qt.cpu().numpy(), rt.cpu().numpy()
    else:
        divide_kernel[(1,)](x, q, r, D=d, BLOCK=BLOCK)
    want = [c_division(int(a), d) for a in list(x) + [x[5]]]
    assert [int(v) for v in q] == [w[0] for w in want], (dtype, d)
    assert [int(v) for v in r] == [w[1] for w in want], (dtype, d)
