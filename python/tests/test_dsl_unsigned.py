"""Unsigned integers in the Python DSL (tl.uint8 ... tl.uint64), case by
case: binary operators over pairs with signed, unsigned and float types
(Triton's promotion rules, stated below independently of the compiler),
conversions, bitcasts, reductions, sorting, atomics, tl.umulhi, Python
numbers and kernel arguments. Expected values come from numpy (or Python
integers) in the expected dtype; fresh random bits each run, outputs
poisoned. Runs on the back ends of dsl_backends.language_backends(): the
interpreter and the CPU back end in CI, CUDA too in the GPU check."""
import os
import sys

import numpy as np
import pytest

import tritonc
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()

UINTS = ["uint8", "uint16", "uint32", "uint64"]
INTS = ["int8", "int16", "int32", "int64"]
TL = {name: getattr(tl, name) for name in UINTS + INTS + ["float16", "float32", "float64"]}
TL["bool"] = tl.int1
BITS = {t: np.dtype(t).itemsize * 8 for t in UINTS + INTS}

backend = dsl_backends.suite_fixture()  # each test on each back end of language_backends()
run = dsl_backends.run


def bits(dtype, n):
    """Random values over the whole range of an integer dtype (a third of
    them small, where the high bits are zero)."""
    info = np.iinfo(dtype)
    v = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    v[::3] = rng.integers(0, 100, size=len(v[::3])).astype(dtype)
    return v


# ---- Triton's rules for integers of either signedness ---------------------------

def integer_promote(a, b):
    """C's usual conversions as Triton applies them: the wider type; at equal
    width, or where the unsigned one is wider, the unsigned one."""
    ua, ub = a in UINTS, b in UINTS
    if ua == ub:
        return a if BITS[a] > BITS[b] else b
    u, s = (a, b) if ua else (b, a)
    return u if BITS[u] >= BITS[s] else s


def promoted(a, b):
    for f in ("float64", "float32"):
        if f in (a, b):
            return f
    return integer_promote(a, b)


@tritonc.jit
def binary_kernel(X, Y, Z, n, OP: tl.constexpr, EXPECT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    y = tl.load(Y + offs, mask=m, other=1)
    if OP == "add":
        z = x + y
    elif OP == "sub":
        z = x - y
    elif OP == "mul":
        z = x * y
    elif OP == "floordiv":
        z = x // y
    elif OP == "mod":
        z = x % y
    elif OP == "and":
        z = x & y
    elif OP == "or":
        z = x | y
    elif OP == "xor":
        z = x ^ y
    elif OP == "shl":
        z = x << y
    elif OP == "shr":
        z = x >> y
    elif OP == "minimum":
        z = tl.minimum(x, y)
    elif OP == "maximum":
        z = tl.maximum(x, y)
    elif OP == "lt":
        z = x < y
    elif OP == "le":
        z = x <= y
    elif OP == "gt":
        z = x > y
    elif OP == "ge":
        z = x >= y
    elif OP == "eq":
        z = x == y
    else:
        z = x != y
    tl.static_assert(z.dtype == EXPECT, "the result's dtype differs from the expected one")
    tl.store(Z + offs, z, mask=m)


def reference(op, x, y, ct):
    a, b = x.astype(ct), y.astype(ct)  # numpy's conversions wrap as the IR's do
    with np.errstate(all="ignore"):
        if op == "floordiv" and ct in INTS:  # C's: toward zero
            return (np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))).astype(ct)
        if op == "shr" and x.dtype.kind == "i" and ct in UINTS:
            # Triton's rule: the shifted operand's own type decides; a signed
            # one shifts in sign bits (int8 >> uint32: arithmetic, then uint32)
            signed = np.dtype(ct.replace("uint", "int"))
            return (a.astype(signed) >> b.astype(signed)).astype(ct)
        return {
            "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "floordiv": lambda: a // b,
            "mod": lambda: np.fmod(a, b), "and": lambda: a & b, "or": lambda: a | b, "xor": lambda: a ^ b,
            "shl": lambda: a << b, "shr": lambda: a >> b, "minimum": lambda: np.minimum(a, b),
            "maximum": lambda: np.maximum(a, b), "lt": lambda: a < b, "le": lambda: a <= b, "gt": lambda: a > b,
            "ge": lambda: a >= b, "eq": lambda: a == b, "ne": lambda: a != b,
        }[op]()


ARITH = ["add", "sub", "mul", "minimum", "maximum", "lt", "le", "gt", "ge", "eq", "ne"]
INT_ONLY = ["and", "or", "xor", "shl", "shr"]
DIVISION = ["floordiv", "mod"]
CASES = [(op, a, b) for op in ARITH + INT_ONLY for a in UINTS for b in UINTS + INTS] + \
        [(op, a, b) for op in ("add", "mul", "lt", "maximum") for a in UINTS for b in ("float32", "float64")] + \
        [(op, a, b) for op in DIVISION for a in UINTS for b in UINTS] + \
        [(op, b, a) for op in ("sub", "lt", "shr", "maximum") for a in UINTS for b in INTS]


@pytest.mark.parametrize("op,a,b", CASES)
def test_binary_op(op, a, b):
    n = int(rng.integers(5, 32))
    ct = promoted(a, b)
    x = bits(a, n) if a in UINTS + INTS else (rng.standard_normal(n) * 1000).astype(a)
    if op in ("shl", "shr"):
        y = rng.integers(0, BITS[ct], size=n).astype(b)  # amounts below the width
    else:
        y = bits(b, n) if b in UINTS + INTS else (rng.standard_normal(n) * 1000).astype(b)
    if op in DIVISION:
        y[y == 0] = 7
    if op in ("eq", "ne", "le", "ge"):
        y[: n // 3] = x[: n // 3].astype(b)  # some equal pairs
    compare = op in ("lt", "le", "gt", "ge", "eq", "ne")
    want = "bool" if compare else ct
    z = np.full(n, 99 if compare else 7, dtype=want)
    run(binary_kernel, (1,), x, y, z, n, OP=op, EXPECT=TL[want], BLOCK=32)
    ref = reference(op, x, y, ct).astype(want)
    if want.startswith("float"):
        np.testing.assert_allclose(z, ref, rtol=1e-6 if want == "float32" else 1e-12)
    else:
        np.testing.assert_array_equal(z, ref)


@tritonc.jit
def mixed_division(X, Y, Z):
    tl.store(Z, tl.load(X) // tl.load(Y))


def test_division_of_mixed_signedness_is_refused():
    x, y, z = np.ones(1, np.uint32), np.ones(1, np.int32), np.zeros(1, np.uint32)
    with pytest.raises(tl.CompileError, match="different signedness"):
        run(mixed_division, (1,), x, y, z)


# ---- Python numbers --------------------------------------------------------------

@tritonc.jit
def scalar_kernel(X, Z, n, OP: tl.constexpr, EXPECT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    if OP == "add3":
        z = x + 3
    elif OP == "rsub1":
        z = 1 - x
    elif OP == "and_max":  # the type's largest value, weakly typed
        z = x & (2 ** (x.dtype.primitive_bitwidth) - 1)
    elif OP == "shr1":
        z = x >> 1
    elif OP == "mul_float":
        z = x * 0.5
    else:
        z = x // 3
    tl.static_assert(z.dtype == EXPECT, "the result's dtype differs from the expected one")
    tl.store(Z + offs, z, mask=m)


@pytest.mark.parametrize("op,dtype", [(op, d) for op in ("add3", "rsub1", "and_max", "shr1", "mul_float", "div3")
                                      for d in UINTS])
def test_python_numbers_take_the_unsigned_type(op, dtype):
    n = 20
    x = bits(dtype, n)
    want = "float32" if op == "mul_float" else dtype
    z = np.full(n, 7, dtype=want)
    run(scalar_kernel, (1,), x, z, n, OP=op, EXPECT=TL[want], BLOCK=32)
    with np.errstate(all="ignore"):
        ref = {"add3": lambda: x + np.array(3, dtype), "rsub1": lambda: np.array(1, dtype) - x,
               "and_max": lambda: x, "shr1": lambda: x >> np.array(1, dtype),
               "mul_float": lambda: x.astype(np.float32) * np.float32(0.5),
               "div3": lambda: x // np.array(3, dtype)}[op]()
    np.testing.assert_array_equal(z, ref.astype(want))


@tritonc.jit
def negative_scalar(X, Z):
    tl.store(Z, tl.load(X) + (-1))


@tritonc.jit
def scalar_out_of_range(X, Z):
    tl.store(Z, tl.load(X) + 300)


def test_python_numbers_outside_the_unsigned_range_are_refused():
    x, z = np.ones(1, np.uint8), np.zeros(1, np.uint8)
    with pytest.raises(tl.CompileError, match="negative number -1"):
        run(negative_scalar, (1,), x, z)
    with pytest.raises(tl.CompileError, match="300 is out of range for tl.uint8"):
        run(scalar_out_of_range, (1,), x, z)


# ---- conversions and bitcasts -------------------------------------------------------

@tritonc.jit
def cast_kernel(X, Z, n, BITCAST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    tl.store(Z + offs, x.to(Z.dtype.element_ty, bitcast=BITCAST), mask=m)


def float_to_unsigned(v, dtype):
    """Truncated toward zero, saturated to [0, 2^n - 1], NaN to 0."""
    top = 2 ** BITS[dtype] - 1
    out = [0 if np.isnan(f) else int(min(max(np.trunc(float(f)), 0), top)) for f in v]
    return np.array(out, dtype=dtype)


CAST_CASES = [(a, b) for a in UINTS for b in UINTS + INTS + ["float16", "float32", "float64", "bool"] if a != b] + \
             [(a, b) for a in INTS + ["bool"] for b in UINTS] + \
             [(a, b) for a in ("float16", "float32", "float64") for b in UINTS]


@pytest.mark.parametrize("a,b", CAST_CASES)
def test_cast(a, b):
    n = 29
    if a == "bool":
        x = rng.integers(0, 2, size=n).astype(bool)
    elif a.startswith("float"):
        big = 2.0 ** BITS[b]
        with np.errstate(over="ignore"):  # beyond float16: infinities, saturating too
            x = rng.uniform(-0.25 * big, 1.5 * big, size=n).astype(a)  # saturating on both sides
        x[:4] = np.array([np.nan, -3.7, 2.9, np.inf]).astype(a)
    else:
        x = bits(a, n)
    z = np.full(n, 5, dtype=b)
    run(cast_kernel, (1,), x, z, n, BITCAST=False, BLOCK=32)
    if a.startswith("float"):
        ref = float_to_unsigned(x, b)
    elif b == "bool":
        ref = x != 0
    else:
        with np.errstate(over="ignore"):  # to float16: infinities
            ref = x.astype(b)  # numpy: zero-extends unsigned, sign-extends signed, wraps, rounds once
    np.testing.assert_array_equal(z, ref)


BITCAST_CASES = [("uint32", "float32"), ("float32", "uint32"), ("int32", "float32"), ("float32", "int32"),
                 ("uint16", "float16"), ("float16", "uint16"), ("int16", "float16"), ("uint64", "float64"),
                 ("float64", "uint64"), ("int64", "float64"), ("uint32", "int32"), ("int8", "uint8")]


@pytest.mark.parametrize("a,b", BITCAST_CASES)
def test_bitcast_keeps_the_bits(a, b):
    n = 29
    if a.startswith("float"):
        x = bits("uint" + a[5:], n).view(a)  # any bits: NaNs, infinities, subnormals
    else:
        x = bits(a, n)
    z = np.zeros(n, dtype=b)
    run(cast_kernel, (1,), x, z, n, BITCAST=True, BLOCK=32)
    np.testing.assert_array_equal(z.view("uint%d" % (8 * z.itemsize)), x.view("uint%d" % (8 * x.itemsize)))


# ---- reductions, sorting, atomics ---------------------------------------------------

@tritonc.jit
def reduce_kernel(X, MAX, MIN, AMAX, AMIN, SUM, R: tl.constexpr, C: tl.constexpr):
    rows = tl.arange(0, R)[:, None]
    cols = tl.arange(0, C)[None, :]
    x = tl.load(X + rows * C + cols)
    tl.store(MAX + tl.arange(0, R), tl.max(x, axis=1))
    tl.store(MIN + tl.arange(0, C), tl.min(x, axis=0))
    tl.store(AMAX + tl.arange(0, R), tl.argmax(x, axis=1))
    tl.store(AMIN + tl.arange(0, C), tl.argmin(x, axis=0))
    s = tl.sum(x, axis=1)
    tl.static_assert(s.dtype == (tl.uint32 if x.dtype.primitive_bitwidth < 32 else x.dtype),
                     "sums of narrow unsigned integers are uint32")
    tl.store(SUM + tl.arange(0, R), s)


@pytest.mark.parametrize("dtype", UINTS)
def test_reductions_order_unsigned(dtype):
    R, C = 8, 16
    x = bits(dtype, R * C).reshape(R, C)
    sum_type = "uint32" if BITS[dtype] < 32 else dtype
    mx, mn = np.zeros(R, dtype), np.zeros(C, dtype)
    amx, amn = np.full(R, -1, np.int32), np.full(C, -1, np.int32)
    sm = np.zeros(R, sum_type)
    run(reduce_kernel, (1,), x, mx, mn, amx, amn, sm, R=R, C=C)
    np.testing.assert_array_equal(mx, x.max(axis=1))
    np.testing.assert_array_equal(mn, x.min(axis=0))
    np.testing.assert_array_equal(amx, x.argmax(axis=1))
    np.testing.assert_array_equal(amn, x.argmin(axis=0))
    np.testing.assert_array_equal(sm, x.astype(sum_type).sum(axis=1, dtype=sum_type))


@tritonc.jit
def sort_kernel(X, Z, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Z + offs, tl.sort(tl.load(X + offs), descending=DESCENDING))


@pytest.mark.parametrize("dtype", ["uint8", "uint32", "uint64"])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_unsigned(dtype, descending):
    x = bits(dtype, 64)
    z = np.zeros(64, dtype)
    run(sort_kernel, (1,), x, z, N=64, DESCENDING=descending)
    want = np.sort(x)
    np.testing.assert_array_equal(z, want[::-1] if descending else want)


@tritonc.jit
def atomic_kernel(M, X, N: tl.constexpr, MAX: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, N)
    x = tl.load(X + pid * N + offs)
    if MAX:
        tl.atomic_max(M + offs, x)
    else:
        tl.atomic_min(M + offs, x)


@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
@pytest.mark.parametrize("is_max", [True, False])
def test_atomic_max_min_unsigned(dtype, is_max):
    programs, n = 6, 32
    x = bits(dtype, programs * n)
    m = bits(dtype, n)
    want = np.maximum(m, x.reshape(programs, n).max(axis=0)) if is_max else \
        np.minimum(m, x.reshape(programs, n).min(axis=0))
    run(atomic_kernel, (programs,), m, x, N=n, MAX=is_max)
    np.testing.assert_array_equal(m, want)


# ---- umulhi, arguments, offsets ------------------------------------------------------

@tritonc.jit
def umulhi_kernel(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Z + offs, tl.umulhi(tl.load(X + offs), tl.load(Y + offs)))


@pytest.mark.parametrize("dtype", ["uint32", "uint64", "int32"])
def test_umulhi(dtype):
    x, y = bits(dtype, 32), bits(dtype, 32)
    z = np.zeros(32, dtype)
    run(umulhi_kernel, (1,), x, y, z, N=32)
    w = BITS[dtype]
    u = "uint%d" % w
    want = [(int(a) * int(b)) >> w for a, b in zip(x.view(u), y.view(u))]
    np.testing.assert_array_equal(z.view(u), np.array(want, dtype=u))


@tritonc.jit
def argument_kernel(Z, big, mid, small):
    tl.static_assert(big.dtype == tl.uint64, "an integer from 2^63 is a uint64 argument")
    tl.static_assert(mid.dtype == tl.int64, "an integer from 2^31 below 2^63 is an int64 argument")
    tl.store(Z, big)
    tl.store(Z + 1, mid.to(tl.uint64))
    tl.store(Z + 2, (big // 3) + (big > small))


def test_integer_arguments_take_tritons_types():
    big = int(rng.integers(2**63, 2**64 - 1, dtype=np.uint64))
    mid = int(rng.integers(2**31, 2**32))
    small = int(rng.integers(0, 2**31))
    z = np.zeros(3, np.uint64)
    run(argument_kernel, (1,), z, big, mid, small)
    np.testing.assert_array_equal(z, np.array([big, mid, big // 3 + 1], dtype=np.uint64))


@tritonc.jit
def offset_kernel(X, I, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    i = tl.load(I + offs)  # uint8 offsets of 128 and up point forward
    tl.store(Z + offs, tl.load(X + i))


def test_unsigned_offsets_zero_extend():
    x = rng.standard_normal(256).astype(np.float32)
    i = rng.integers(0, 256, size=32).astype(np.uint8)
    i[:4] = [255, 128, 200, 0]
    z = np.zeros(32, np.float32)
    run(offset_kernel, (1,), x, i, z, N=32)
    np.testing.assert_array_equal(z, x[i.astype(np.int64)])


@tritonc.jit
def hash_kernel(X, Z, N: tl.constexpr):
    """A user's integer hash (xorshift-multiply) in uint32: wrapping
    multiplies, logical shifts."""
    offs = tl.arange(0, N)
    h = tl.load(X + offs)
    h = h ^ (h >> 16)
    h = h * 0x7FEB352D
    h = h ^ (h >> 15)
    h = h * 0x846CA68B
    h = h ^ (h >> 16)
    tl.store(Z + offs, h)


def test_uint32_hash():
    x = bits("uint32", 64)
    z = np.zeros(64, np.uint32)
    run(hash_kernel, (1,), x, z, N=64)
    h = x.astype(np.uint64)
    m = 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x7FEB352D) & m
    h ^= h >> 15
    h = (h * 0x846CA68B) & m
    h ^= h >> 16
    np.testing.assert_array_equal(z, h.astype(np.uint32))
