"""``libdevice`` as Triton kernels import it (``from triton.language.extra
import libdevice``, here tritonc's): each function against numpy on random
inputs with their special values (signed zeros, infinities, NaN, halfway
cases), float32 (and float64 where noted), on the back ends of
dsl_backends.language_backends()."""
import fractions
import math
import os
import sys

import numpy as np
import pytest

import tritonc
import tritonc.language as tl
from tritonc.language.extra import libdevice
from tritonc.language.extra.cuda import libdevice as cuda_libdevice

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()
backend = dsl_backends.suite_fixture()  # each test on each back end of language_backends()
run = dsl_backends.run


@tritonc.jit
def unary_kernel(X, Z, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m, other=1)
    if OP == "trunc":
        z = libdevice.trunc(x)
    elif OP == "round":
        z = libdevice.round(x)
    elif OP == "rint":
        z = libdevice.rint(x)
    elif OP == "isnan":
        z = libdevice.isnan(x)
    elif OP == "isinf":
        z = libdevice.isinf(x)
    elif OP == "isfinited":
        z = libdevice.isfinited(x)
    elif OP == "signbit":
        z = libdevice.signbit(x)
    elif OP == "exp10":
        z = libdevice.exp10(x)
    elif OP == "log10":
        z = libdevice.log10(x)
    elif OP == "expm1":
        z = libdevice.expm1(x)
    elif OP == "cbrt":
        z = libdevice.cbrt(x)
    elif OP == "sinh":
        z = libdevice.sinh(x)
    elif OP == "cosh":
        z = libdevice.cosh(x)
    elif OP == "asinh":
        z = libdevice.asinh(x)
    elif OP == "atanh":
        z = libdevice.atanh(x)
    elif OP == "tan":
        z = libdevice.tan(x)
    elif OP == "atan":
        z = libdevice.atan(x)
    elif OP == "asin":
        z = libdevice.asin(x)
    elif OP == "acos":
        z = cuda_libdevice.acos(x)
    elif OP == "erfc":
        z = libdevice.erfc(x)
    elif OP == "saturatef":
        z = libdevice.saturatef(x)
    elif OP == "acosh":
        z = libdevice.acosh(x)
    elif OP == "sinpi":
        z = libdevice.sinpi(x)
    elif OP == "cospi":
        z = libdevice.cospi(x)
    elif OP == "log1p":
        z = tl.math.log1p(x)
    elif OP == "lgamma":
        z = libdevice.lgamma(x)
    elif OP == "j0":
        z = libdevice.j0(x)
    elif OP == "j1":
        z = cuda_libdevice.j1(x)
    elif OP == "y0":
        z = libdevice.y0(x)
    elif OP == "y1":
        z = cuda_libdevice.y1(x)
    elif OP == "tgamma":
        z = cuda_libdevice.tgamma(x)
    elif OP == "cyl_bessel_i0":
        z = libdevice.cyl_bessel_i0(x)
    elif OP == "cyl_bessel_i1":
        z = cuda_libdevice.cyl_bessel_i1(x)
    else:
        z = libdevice.exp(x)
    tl.store(Z + offs, z, mask=m)


def special(x):
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -2.5, 1.0]
    return x


# name: (inputs, numpy reference, (rtol, atol) or None for exact)
def near_halves(n):
    """Numbers next to multiples of 1/2 (the zeros of sinpi and cospi), up to 2^20 (where many are exact)."""
    k = rng.integers(-1, 1, n) * 2.0 ** rng.integers(1, 21, n) * 0.5
    return (k + rng.choice([-1, 1], n) * rng.integers(0, 64, n) * 2.0 ** -21).astype(np.float32)


UNARY = {
    "trunc": (lambda n: special(rng.uniform(-100, 100, n)), np.trunc, None),
    "round": (lambda n: np.concatenate([special(rng.uniform(-100, 100, n - 4)), [0.49999997, -1.5, 2.5, 1e8]]),
              lambda x: np.where(np.isfinite(x), np.copysign(np.floor(np.abs(x) + 0.5), x), x), None),
    "rint": (lambda n: np.concatenate([special(rng.uniform(-100, 100, n - 4)), [0.5, 1.5, -2.5, 3.5]]), np.rint, None),
    "isnan": (lambda n: special(rng.uniform(-1, 1, n)), np.isnan, None),
    "isinf": (lambda n: special(rng.uniform(-1, 1, n)), np.isinf, None),
    "isfinited": (lambda n: special(rng.uniform(-1, 1, n)), np.isfinite, None),
    "signbit": (lambda n: special(rng.uniform(-1, 1, n)), lambda x: np.signbit(x).astype(np.int32), None),
    "exp10": (lambda n: rng.uniform(-37, 38, n), lambda x: 10.0 ** x, (2e-6, 0)),
    "log10": (lambda n: rng.uniform(1e-3, 1e4, n), np.log10, (1e-5, 1e-6)),
    # relative accuracy near 0 too (no cancellation), and the extremes
    "expm1": (lambda n: np.concatenate([rng.uniform(-3, 3, n // 4), np.exp(rng.uniform(-20, -1, n - n // 4)) *
                                        rng.choice([-1, 1], n - n // 4)]), np.expm1, (1e-5, 0)),
    "cbrt": (lambda n: np.concatenate([rng.uniform(-1e3, 1e3, n - 5), [0.0, -8.0, 27.0, 3.4028235e38, -1e-30]]),
             np.cbrt, (2e-6, 0)),
    "sinh": (lambda n: np.concatenate([rng.uniform(-5, 5, n // 4), np.exp(rng.uniform(-20, -1, n - n // 4)) *
                                       rng.choice([-1, 1], n - n // 4)]), np.sinh, (1e-5, 0)),
    "cosh": (lambda n: rng.uniform(-5, 5, n), np.cosh, (2e-5, 0)),
    "asinh": (lambda n: np.concatenate([rng.uniform(-50, 50, n - 4), [1e-8, -3e-12, 1e20, -3e37]]), np.arcsinh,
              (1e-5, 0)),
    # acosh relatively next to 1 too, where log(x + sqrt(x^2 - 1)) kept only its argument's rounding
    "acosh": (lambda n: np.concatenate([rng.uniform(1, 50, n // 2), 1 + np.exp(rng.uniform(-16, -1, n - n // 2 - 2)),
                                        [1e20, 3e37]]), np.arccosh, (1e-6, 0)),
    "atanh": (lambda n: np.concatenate([rng.uniform(-0.9, 0.9, n - 2), [1e-8, -2e-20]]), np.arctanh, (1e-5, 0)),
    "log1p": (lambda n: np.concatenate([rng.uniform(-0.9, 10, n // 2), np.exp(rng.uniform(-30, -1, n - n // 2))]),
              np.log1p, (1e-5, 0)),
    # sinpi and cospi relatively (a few ulp) next to their zeros and at large arguments too
    "sinpi": (lambda n: np.concatenate([rng.uniform(-3, 3, n // 2), near_halves(n - n // 2 - 7),
                                        [1.0, -2.0, 0.0, 5.0, 3e9, 4194304.5, -np.inf]]),
              lambda x: np.where(x == np.floor(x), 0.0 * x, np.sin(np.pi * np.fmod(x, 2.0))), (3e-7, 0)),
    "cospi": (lambda n: np.concatenate([rng.uniform(-3, 3, n // 2), near_halves(n - n // 2 - 8),
                                        [0.5, -1.5, 2.5, 8388609.0, 2.0**24, 1e30, np.inf, 4194304.5]]),
              lambda x: np.where(x - np.floor(x) == 0.5, 0.0, np.cos(np.pi * np.fmod(x, 2.0))), (3e-7, 0)),
    "tan": (lambda n: rng.uniform(-1.5, 1.5, n), np.tan, (2e-5, 1e-6)),
    "atan": (lambda n: np.concatenate([rng.uniform(-20, 20, n - 4), [0.0, np.inf, -np.inf, 1.0]]), np.arctan,
             (1e-6, 1e-7)),
    "asin": (lambda n: np.concatenate([rng.uniform(-1, 1, n - 3), [1.0, -1.0, 0.0]]), np.arcsin, (2e-6, 1e-6)),
    "acos": (lambda n: np.concatenate([rng.uniform(-1, 1, n - 3), [1.0, -1.0, 0.0]]), np.arccos, (2e-6, 1e-6)),
    # erfc relatively, into its tail (erfc(9) = 4e-37), where 1 - erf(x) would cancel
    "erfc": (lambda n: np.concatenate([rng.uniform(-2, 9, n - 3), [0.0, 4.0, -4.0]]), None, (2e-6, 0)),
    # lgamma and tgamma (Lanczos in float64, reflected left of 1/2) against Python's math, off their poles
    "lgamma": (lambda n: np.concatenate([rng.uniform(-20, 40, n - 6), [0.5, 1.0, 2.0, 1e-5, 1e20, -2.5]]), None,
               (1e-6, 1e-6)),
    "tgamma": (lambda n: np.concatenate([rng.uniform(-10, 30, n - 5), [0.5, 1.0, 5.0, 1e-5, -2.5]]), None, (2e-6, 0)),
    # Bessel functions of the first kind, absolutely (their zeros), against their integrals (bessel_j below)
    "j0": (lambda n: np.concatenate([rng.uniform(-30, 30, n - 5), [0.0, 8.0, -7.999, 2.4048, 100.0]]), None,
           (1e-6, 1e-7)),
    "j1": (lambda n: np.concatenate([rng.uniform(-30, 30, n - 5), [0.0, 8.0, -7.999, 3.8317, -100.0]]), None,
           (1e-6, 1e-7)),
    # and of the second kind on x > 0 (bessel_y below; relatively too: Y1 reaches -6.5 at 0.1, whose float32 ulp is 5e-7)
    "y0": (lambda n: np.concatenate([rng.uniform(0.1, 30, n - 4), [8.0, 7.999, 0.8936, 100.0]]), None, (1e-6, 1e-7)),
    "y1": (lambda n: np.concatenate([rng.uniform(0.1, 30, n - 4), [8.0, 7.999, 2.1971, 100.0]]), None, (1e-6, 1e-7)),
    # modified Bessel functions of the first kind, relatively (bessel_i below), both sides of the series'
    # switch at 22, up to float32's range (I0(88) = 7e36) and beyond it (inf)
    "cyl_bessel_i0": (lambda n: np.concatenate([rng.uniform(-30, 30, n - 9), [0.0, 22.0, -21.999, 1e-20, 88.0,
                                                                             -60.0, 100.0, np.inf, -np.inf]]),
                      None, (2e-6, 0)),
    "cyl_bessel_i1": (lambda n: np.concatenate([rng.uniform(-30, 30, n - 9), [0.0, 22.0, -21.999, 1e-20, 88.0,
                                                                             -60.0, -100.0, np.inf, -np.inf]]),
                      None, (2e-6, 1e-15)),  # (I1's integral is exact to 1e-16 absolutely: I1(1e-20) = 5e-21)
    # NaN and -0 saturate to +0, as cvt.sat (np.clip keeps -0 with some numpy versions, not with others)
    "saturatef": (lambda n: special(rng.uniform(-2, 2, n)), lambda x: np.where(x > 0, np.minimum(x, 1.0), 0.0),
                  None),
}


def bessel_j(x, order):
    """J_order(x) = (1/pi) int_0^pi cos(order t - x sin t) dt, by the midpoint
    rule (exact to rounding for a periodic analytic integrand once the points
    outnumber |x|)."""
    t = (np.arange(4096) + 0.5) * np.pi / 4096
    return np.array([np.mean(np.cos(order * t - v * np.sin(t))) for v in x])


def bessel_i(x, order):
    """I_order(x) = (1/pi) int_0^pi e^(x cos t) cos(order t) dt by the
    midpoint rule (exact to rounding for a periodic analytic integrand), as
    e^|x| times the integral of e^(x cos t - |x|) so that it stays finite as
    long as I does; +-inf where |x| is."""
    t = (np.arange(4096) + 0.5) * np.pi / 4096
    out = []
    for v in x:
        if np.isinf(v):
            out.append(np.inf if order == 0 or v > 0 else -np.inf)
            continue
        with np.errstate(over="ignore"):
            out.append(np.exp(abs(v)) * np.mean(np.exp(v * np.cos(t) - abs(v)) * np.cos(order * t)))
    return np.array(out)


def bessel_y(x, order):
    """Y_order(x), x > 0: (1/pi) int_0^pi sin(x sin t - order t) dt (midpoint
    rule, 2^20 points) minus (1/pi) int_0^inf (e^(order t) + (-1)^order
    e^(-order t)) e^(-x sinh t) dt, the latter with u = x sinh t = s^2 (a
    smooth integrand in s): within about 1e-9 of tabulated values."""
    t = (np.arange(1 << 20) + 0.5) * np.pi / (1 << 20)
    h = np.sqrt(80.0) / 200000
    s = (np.arange(200000) + 0.5) * h
    u = s * s
    out = []
    for v in x:
        first = np.mean(np.sin(v * np.sin(t) - order * t))
        g = np.exp(-u) / np.sqrt(v * v + u * u) * (2.0 if order == 0 else 2.0 * u / v)
        out.append(first - np.sum(g * 2 * s) * h / np.pi)
    return np.array(out)


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(op):
    make, ref, tol = UNARY[op]
    n = 64
    x = make(n).astype(np.float32)
    boolean = op in ("isnan", "isinf", "isfinited")
    out_dt = np.bool_ if boolean else np.int32 if op == "signbit" else np.float32
    z = np.full(n, 7, out_dt) if out_dt != np.float32 else np.full(n, -7.0, np.float32)
    run(unary_kernel, (1,), x, z, n, OP=op, BLOCK=64)
    x64 = x.astype(np.float64)
    if op in ("j0", "j1"):
        want = bessel_j(x64, int(op[1]))
    elif op in ("y0", "y1"):
        want = bessel_y(x64, int(op[1]))
    elif op in ("cyl_bessel_i0", "cyl_bessel_i1"):
        with np.errstate(over="ignore"):  # (float32's range: I0(100) = 1e42 is inf there)
            want = bessel_i(x64, int(op[-1])).astype(np.float32).astype(np.float64)
    elif op in ("erfc", "lgamma", "tgamma"):
        import math
        want = np.array([{"erfc": math.erfc, "lgamma": math.lgamma, "tgamma": math.gamma}[op](v) for v in x64])
    else:
        with np.errstate(all="ignore"):
            want = ref(x64)
    if tol is None:
        np.testing.assert_array_equal(z, want.astype(out_dt))
        if out_dt == np.float32:
            np.testing.assert_array_equal(np.signbit(z), np.signbit(want))
    else:
        np.testing.assert_allclose(z.astype(np.float64), want, rtol=tol[0], atol=tol[1])
    if op in ("sinpi", "cospi"):  # exact zeros where they are
        zeros = want == 0
        np.testing.assert_array_equal(z[zeros], 0.0)


@tritonc.jit
def bessel_i_kernel(X, Z, n, ORDER: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n)
    z = libdevice.cyl_bessel_i0(x) if ORDER == 0 else libdevice.cyl_bessel_i1(x)
    tl.store(Z + offs, z, mask=offs < n)


@pytest.mark.parametrize("order", [0, 1])
def test_modified_bessel_in_float64(order):
    """cyl_bessel_i0/i1 of float64 keep float64's precision (torch's i0 and
    i1, which Triton's tests compare with, are within 1e-15), both sides of
    the switch from the series to the asymptotic form."""
    n = 128
    x = np.concatenate([rng.standard_normal(n // 2) * 4, rng.uniform(-40, 40, n // 2 - 4), [21.9999, 22.0, -22.5, 700.0]])
    z = np.full(n, np.nan)
    run(bessel_i_kernel, (1,), x, z, n, ORDER=order, BLOCK=n)
    np.testing.assert_allclose(z, bessel_i(x, order), rtol=2e-14, atol=0)


@tritonc.jit
def binary_kernel(X, Y, Z, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m, other=1)
    y = tl.load(Y + offs, mask=m, other=1)
    if OP == "pow":
        z = libdevice.pow(x, y)
    elif OP == "atan2":
        z = libdevice.atan2(x, y)
    elif OP == "hypot":
        z = libdevice.hypot(x, y)
    elif OP == "fmax":
        z = libdevice.fmax(x, y)
    elif OP == "fmin":
        z = libdevice.fmin(x, y)
    elif OP == "copysign":
        z = libdevice.copysign(x, y)
    elif OP == "fmod":
        z = libdevice.fmod(x, y)
    else:
        z = libdevice.fdim(x, y)
    tl.store(Z + offs, z, mask=m)


def pow_inputs(n):
    x = rng.uniform(0.01, 10, n)
    y = rng.uniform(-4, 4, n)
    specials = [(-2.0, 3.0), (-2.0, 2.0), (-0.5, 1.5), (0.0, -1.0), (-0.0, -3.0), (0.0, 2.0), (-0.0, 3.0),
                (1.0, np.nan), (np.nan, 0.0), (3.0, 0.0), (-2.0, np.inf), (-1.0, np.inf), (-1.0, -np.inf),
                (-0.0, -np.inf), (0.5, np.inf), (0.5, -np.inf), (2.0, -np.inf), (-np.inf, 3.0), (-np.inf, 0.5),
                (-np.inf, -2.0), (np.inf, -0.5)]
    for i, (a, b) in enumerate(specials):
        x[i], y[i] = a, b
    return x, y


BINARY = {
    "pow": (pow_inputs, np.power, (2e-5, 1e-30)),
    "atan2": (lambda n: (np.concatenate([rng.uniform(-5, 5, n - 14),
                                         [0.0, -0.0, 1.0, -1.0, 0.0, -2.0, np.nan, 0.0, -0.0, np.inf, -np.inf, np.inf,
                                          -np.inf, 2.0]]),
                         np.concatenate([rng.uniform(-5, 5, n - 14),
                                         [1.0, 1.0, 0.0, 0.0, -1.0, -1e-3, 0.0, -0.0, -0.0, np.inf, np.inf, -np.inf,
                                          -np.inf, np.nan]])),
              np.arctan2, (2e-6, 1e-6)),
    "hypot": (lambda n: (np.concatenate([rng.uniform(-1e30, 1e30, n - 3), [np.nan, np.inf, 3.0]]),
                         np.concatenate([rng.uniform(-1e30, 1e30, n - 3), [3.0, np.nan, -np.inf]])), np.hypot,
              (2e-6, 0)),
    "fmax": (lambda n: (special(rng.uniform(-1, 1, n)), np.roll(special(rng.uniform(-1, 1, n)), 3)), np.fmax, None),
    "fmin": (lambda n: (special(rng.uniform(-1, 1, n)), np.roll(special(rng.uniform(-1, 1, n)), 3)), np.fmin, None),
    "copysign": (lambda n: (special(rng.uniform(-1, 1, n)), np.roll(special(rng.uniform(-1, 1, n)), 2)),
                 np.copysign, None),
    "fmod": (lambda n: (rng.uniform(-100, 100, n), rng.uniform(0.5, 7, n) * rng.choice([-1, 1], n)), np.fmod, None),
    "fdim": (lambda n: (np.concatenate([rng.uniform(-5, 5, n - 2), [np.nan, 1.0]]),
                        np.concatenate([rng.uniform(-5, 5, n - 2), [1.0, np.nan]])),
             lambda x, y: np.where(np.isnan(x) | np.isnan(y), np.nan, np.maximum(x - y, 0)), None),
}


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary(op):
    make, ref, tol = BINARY[op]
    n = 64
    x, y = (a.astype(np.float32) for a in make(n))
    z = np.full(n, -7.0, np.float32)
    run(binary_kernel, (1,), x, y, z, n, OP=op, BLOCK=64)
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    if tol is None:
        np.testing.assert_array_equal(z, want)
        np.testing.assert_array_equal(np.signbit(z[~np.isnan(z)]), np.signbit(want[~np.isnan(want)]))
    else:
        np.testing.assert_allclose(z.astype(np.float64), want.astype(np.float64), rtol=tol[0], atol=tol[1])


@tritonc.jit
def pow_kernel(X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Z + offs, libdevice.pow(tl.load(X + offs, mask=m, other=1), tl.load(Y + offs, mask=m, other=1)), mask=m)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_in_ulps_where_exp2_would_magnify_the_logarithm(dtype):
    """x^y over the whole range of results: y log2 x up to the largest
    exponents (where 2^(y log2 x) magnifies an ulp of log2 x up to ~1000
    times), subnormal x, x next to 1 with large y. Within an ulp of the
    correctly rounded result (float32: float64's pow, rounded once; float64:
    the exact powers of small integers), four on the GPU, whose ex2.approx
    (about 2 ulp) adds its own; the largest is printed."""
    dt = np.dtype(dtype)
    n = 4096
    top = 127 if dt == np.float32 else 1023
    if dt == np.float32:
        x = 10.0 ** rng.uniform(-44, 38, n)
        y = rng.uniform(-1, 1, n) * top / np.abs(np.log2(x)) * rng.uniform(0, 1.1, n)
        x[:256] = 1 + rng.uniform(-1e-3, 1e-3, 256)
        y[:256] = rng.uniform(-8e4, 8e4, 256)
        x, y = x.astype(dt), y.astype(dt)
        with np.errstate(all="ignore"):
            want = np.power(x.astype(np.float64), y.astype(np.float64))
    else:
        # Integer powers of integers are exact in Python's integers.
        base = rng.integers(2, 50, n)
        expo = np.array([rng.integers(-int(top / np.log2(b)), int(top / np.log2(b))) for b in base])
        x, y = base.astype(dt), expo.astype(dt)
        want = np.array([float(fractions.Fraction(int(b)) ** int(e)) for b, e in zip(base, expo)])
    z = np.full(n, -7, dt)
    run(pow_kernel, (n // 1024,), x, y, z, n, BLOCK=1024)
    tiny = np.finfo(dt).tiny
    ok = np.isfinite(want.astype(dt)) & (np.abs(want) >= tiny)
    ref = want[ok].astype(dt)
    ulps = np.abs(z[ok].astype(np.float64) - ref.astype(np.float64)) / np.spacing(np.abs(ref)).astype(np.float64)
    limit = 4.0 if dsl_backends.current() == "cuda" else 1.0
    print("pow %s on %s: at most %.2f ulp" % (dtype, dsl_backends.current(), ulps.max()))
    assert ulps.max() <= limit, (ulps.max(), x[ok][ulps.argmax()], y[ok][ulps.argmax()])
    # Beyond the normal range: overflow to inf, underflow within the subnormals' spacing.
    big = ~np.isfinite(want.astype(dt))
    assert np.all(np.isinf(z[big]))
    small = np.abs(want) < tiny
    np.testing.assert_allclose(z[small], want[small], rtol=0, atol=float(np.spacing(dt.type(0))) * 1.01)


@tritonc.jit
def int_kernel(X, Z, OP: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    if OP == "popc":
        z = libdevice.popc(x)
    elif OP == "clz":
        z = libdevice.clz(x)
    elif OP == "ffs":
        z = libdevice.ffs(x)
    else:
        z = libdevice.brev(x)
    tl.store(Z + offs, z)


@pytest.mark.parametrize("op", ["popc", "clz", "ffs", "brev"])
@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64"])
def test_bit_functions(op, dtype):
    w = np.dtype(dtype).itemsize * 8
    x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, size=32, dtype=dtype, endpoint=True)
    x[:4] = np.array([0, 1, -1 if dtype != "uint32" else 2**32 - 1, 2**(w - 2)], dtype=np.int64).astype(dtype)
    out_dt = dtype if op == "brev" else "int32"
    z = np.full(32, 7, out_dt)
    run(int_kernel, (1,), x, z, OP=op, N=32)
    bits = [int(v) & ((1 << w) - 1) for v in x]
    want = {"popc": [bin(b).count("1") for b in bits],
            "clz": [w - b.bit_length() for b in bits],
            "ffs": [(b & -b).bit_length() for b in bits],
            "brev": [int(format(b, "0%db" % w)[::-1], 2) for b in bits]}[op]
    if op == "brev":
        want = np.array(want, dtype=np.uint64 if w == 64 else np.uint32).view(dtype)
    np.testing.assert_array_equal(z, np.array(want).astype(out_dt))


@tritonc.jit
def ldexp_kernel(X, E, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Z + offs, libdevice.ldexp(tl.load(X + offs), tl.load(E + offs)))


def test_ldexp_is_exact():
    x = rng.uniform(-2, 2, 32).astype(np.float32)
    e = rng.integers(-60, 60, 32).astype(np.int32)
    x[:6] = [1.0, 1.0, 2.0 ** -100, 1.5, 3.0, -1.0]
    e[:6] = [128, -149, 200, -140, 300, -400]  # overflow, subnormals, beyond the exponent range
    z = np.zeros(32, np.float32)
    run(ldexp_kernel, (1,), x, e, z, N=32)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(z, np.ldexp(x, e))


@tritonc.jit
def misc_kernel(X, I, L, IZ, LZ, N: tl.constexpr):
    offs = tl.arange(0, N)
    i = tl.load(I + offs)
    tl.store(IZ + offs, libdevice.abs(i))  # integers keep their type
    tl.store(LZ + offs, libdevice.mulhi(tl.load(L + offs), tl.load(L + N + offs)))
    p = (X + offs).to(tl.int64, bitcast=True)  # a pointer bitcast to int64, as in Triton
    tl.store(LZ + N + offs, p - X.to(tl.int64, bitcast=True))


def test_abs_mulhi_and_pointer_bitcast():
    n = 32
    x = rng.standard_normal(n).astype(np.float64)
    i = rng.integers(-2**31, 2**31 - 1, n, dtype=np.int32)
    ll = rng.integers(-2**63, 2**63 - 1, 2 * n, dtype=np.int64)
    iz, lz = np.zeros(n, np.int32), np.zeros(2 * n, np.int64)
    run(misc_kernel, (1,), x, i, ll, iz, lz, N=n)
    np.testing.assert_array_equal(iz, np.abs(i))
    want = [((int(a) * int(b)) >> 64) for a, b in zip(ll[:n], ll[n:])]
    np.testing.assert_array_equal(lz[:n], np.array(want, dtype=np.int64))
    np.testing.assert_array_equal(lz[n:], np.arange(n) * 8)


@tritonc.jit
def gelu_kernel(X, Z, N: tl.constexpr):
    # GELU with tanh, as written in many Triton kernels.
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    z = 0.5 * x * (1 + libdevice.tanh(0.7978845608028654 * (x + 0.044715 * libdevice.pow(x, 3.0))))
    tl.store(Z + offs, z)


def test_gelu_tanh():
    x = rng.uniform(-4, 4, 64).astype(np.float32)
    z = np.zeros(64, np.float32)
    run(gelu_kernel, (1,), x, z, N=64)
    x64 = x.astype(np.float64)
    want = 0.5 * x64 * (1 + np.tanh(0.7978845608028654 * (x64 + 0.044715 * x64 ** 3)))
    np.testing.assert_allclose(z, want, rtol=1e-4, atol=1e-5)


@tritonc.jit
def missing_kernel(X):
    tl.store(X, libdevice.erfcinv(tl.load(X)))


def test_missing_functions_are_clear_errors():
    with pytest.raises(tl.CompileError, match="libdevice.erfcinv is not supported by tritonc yet"):
        run(missing_kernel, (1,), np.ones(1, np.float32))


@tritonc.jit
def erf_kernel(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.erf(tl.load(X + offs)))


def test_erf_in_float64_within_a_few_ulps():
    """tl.erf of float64 (float32's approximation before: 1.6e-7 relative):
    against libm's erf within 8 ulps over the whole range, every series and
    the continued fraction's border included; -0.0, infinities and NaN."""
    n = 4096
    x = np.concatenate([rng.uniform(-7, 7, 1024), rng.uniform(-0.6, 0.6, 1024), rng.uniform(1.9, 2.1, 1024),
                        rng.uniform(5.5, 6.5, 1015), [0.0, -0.0, np.inf, -np.inf, np.nan, 40.0, -1e-300, 0.5, 2.0]])
    y = np.full(n, np.nan)
    run(erf_kernel, (1,), x, y, N=n)
    want = np.array([math.erf(v) for v in x])
    finite = np.isfinite(x)
    ulps = np.abs(y[finite] - want[finite]) / np.spacing(np.abs(want[finite]))
    assert ulps.max() <= 8, (ulps.max(), x[finite][ulps.argmax()])
    s = n - 9  # the special values
    assert np.signbit(y[s + 1]) and y[s + 2] == 1.0 and y[s + 3] == -1.0 and np.isnan(y[s + 4])


SPECIAL_CASES = {  # op: (inputs, expected), C99's values (signed zeros by their sign bit)
    "erfc": ([np.inf, -np.inf, 40.0, -40.0], [0.0, 2.0, 0.0, 2.0]),
    "exp10": ([np.inf, -np.inf, 1e30, -1e30], [np.inf, 0.0, np.inf, 0.0]),
    "acosh": ([-2.0, -1e10, -1e30, 0.5], [np.nan] * 4),
    "cbrt": ([-0.0, 0.0], [-0.0, 0.0]),
    "atan": ([-0.0, 0.0], [-0.0, 0.0]),
    "sinh": ([-0.0, 0.0], [-0.0, 0.0]),
    "asinh": ([-0.0, 0.0], [-0.0, 0.0]),
    "atanh": ([-0.0, 0.0, -1.0, 1.0, -1.5], [-0.0, 0.0, -np.inf, np.inf, np.nan]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(SPECIAL_CASES))
def test_special_values(op, dtype):
    """Infinities into erfc and exp10 (an fma of inf - inf gave NaN), acosh
    below 1 (large negatives gave 0 or infinities), odd functions at -0.0
    (a `x < 0` test gave +0.0)."""
    inputs, expected = SPECIAL_CASES[op]
    x = np.array(inputs, dtype)
    z = np.full(len(x), 7.0, dtype)
    run(unary_kernel, (1,), x, z, len(x), OP=op, BLOCK=8)
    want = np.array(expected, dtype)
    np.testing.assert_array_equal(z, want)
    signed = ~np.isnan(want)  # a NaN's sign is not C's to say
    np.testing.assert_array_equal(np.signbit(z[signed]), np.signbit(want[signed]))


def test_exp10_in_float64_and_atanh_near_minus_one_in_ulps():
    """exp10 of float64 within 2 ulps up to 10^+-300 (log2(10)'s tail was a
    double's rounding: up to ~290 ulps at |x| = 300), against a 40-digit
    decimal power; atanh near -1 as near +1 (it was 16-30 ulps off there)."""
    ctx = __import__("decimal").Context(prec=40)
    D = __import__("decimal").Decimal
    x = np.concatenate([rng.uniform(-300, 300, 60), [300.0, -296.8408172606552, 100.0, 1.0]])
    z = np.full(len(x), np.nan)
    run(unary_kernel, (1,), x, z, len(x), OP="exp10", BLOCK=64)
    want = np.array([float(ctx.power(D(10), D(v))) for v in x])
    ulps = np.abs(z - want) / np.spacing(want)
    assert ulps.max() <= 2, (ulps.max(), x[ulps.argmax()])
    for dtype in ("float32", "float64"):
        a = -rng.uniform(0.99, 0.9999, 64).astype(dtype)
        z = np.full(64, np.nan, dtype)
        run(unary_kernel, (1,), a, z, 64, OP="atanh", BLOCK=64)
        want = np.array([float(ctx.divide(ctx.ln(ctx.divide(1 + D(float(v)), 1 - D(float(v)))), 2)) for v in a])
        ulps = np.abs(z.astype(np.float64) - want) / np.spacing(np.abs(want).astype(dtype)).astype(np.float64)
        assert ulps.max() <= 4, (dtype, ulps.max(), a[ulps.argmax()])


@tritonc.jit
def convert_kernel(X, Z, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m, other=0)
    if OP == "float2int_rn":
        z = libdevice.float2int_rn(x)
    elif OP == "float2int_rz":
        z = libdevice.float2int_rz(x)
    elif OP == "float2int_rd":
        z = libdevice.float2int_rd(x)
    elif OP == "float2int_ru":
        z = libdevice.float2int_ru(x)
    elif OP == "float2ll_rn":
        z = libdevice.float2ll_rn(x)
    elif OP == "int2float_rn":
        z = libdevice.int2float_rn(x)
    elif OP == "float_as_int":
        z = libdevice.float_as_int(x)
    elif OP == "int_as_float":
        z = libdevice.int_as_float(x)
    elif OP == "double_hilo":
        z = libdevice.hiloint2double(libdevice.double2hiint(x), libdevice.double2loint(x))
    else:
        z = libdevice.fma_rn(libdevice.mul_rn(x, x), x, libdevice.add_rn(x, libdevice.sub_rn(x, 1.0)))
    tl.static_assert(z.dtype == (tl.int64 if OP == "float2ll_rn" else tl.int32 if OP.startswith("float2") or OP == "float_as_int"
                                 else tl.float64 if OP == "double_hilo" else tl.float32))
    tl.store(Z + offs, z, mask=m)


@pytest.mark.parametrize("op", ["float2int_rn", "float2int_rz", "float2int_rd", "float2int_ru", "float2ll_rn",
                                "int2float_rn", "float_as_int", "int_as_float", "double_hilo", "rn_arithmetic"])
def test_cuda_conversions_and_rounded_arithmetic(op):
    """CUDA's conversions as Triton kernels call them (dynamic int8
    quantization: float2int_rn): halfway cases to even, saturation at the
    type's ends, NaN to 0; reinterpretations bit for bit."""
    n = 64
    if op.startswith("float2"):
        x = np.concatenate([np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7, -3.7, 3e9, -3e9, np.nan, -0.0], np.float32),
                            (rng.standard_normal(n - 12) * 1000).astype(np.float32)])
        r = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}[op[-2:]](x.astype(np.float64))
        info = np.iinfo(np.int64 if op == "float2ll_rn" else np.int32)
        want = np.where(np.isnan(r), 0, np.clip(np.nan_to_num(r), info.min, info.max)).astype(info.dtype)
        z = np.full(n, 7, info.dtype)
    elif op == "int2float_rn":
        x = rng.integers(-2 ** 31, 2 ** 31, n).astype(np.int32)
        want, z = x.astype(np.float32), np.full(n, np.nan, np.float32)  # numpy rounds to nearest even too
    elif op == "float_as_int":
        x = (rng.standard_normal(n) * 100).astype(np.float32)
        want, z = x.view(np.int32), np.full(n, 7, np.int32)
    elif op == "int_as_float":
        x = rng.integers(0, 2 ** 31 - 2 ** 23, n).astype(np.int32)  # finite floats
        want, z = x.view(np.float32), np.full(n, np.nan, np.float32)
    elif op == "double_hilo":
        x = rng.standard_normal(n) * 1e10
        want, z = x, np.full(n, np.nan)
    else:
        x = rng.standard_normal(n).astype(np.float32)
        xd = x.astype(np.float64)
        want, z = (xd * xd * xd + (xd + (xd - 1.0))).astype(np.float32), np.full(n, np.nan, np.float32)
    run(convert_kernel, (1,), x, z, n, OP=op, BLOCK=n)
    if op == "rn_arithmetic":
        np.testing.assert_allclose(z, want, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(z.view(np.uint8), np.ascontiguousarray(want).view(np.uint8))


def test_directed_rounding_variants_are_refused_clearly():
    @tritonc.jit
    def k(X):
        x = tl.load(X + tl.arange(0, 16))
        tl.store(X + tl.arange(0, 16), libdevice.add_rz(x, x))

    with pytest.raises(tl.CompileError, match="libdevice.add_rz is not supported by tritonc yet"):
        k[(1,)](np.zeros(16, np.float32))


# ---- found by FlagGems (session 39): erfinv, erfcx, nextafter ----

@tritonc.jit
def special_kernel(X, Y, Z, N: tl.constexpr, OP: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    if OP == "erfinv":
        z = libdevice.erfinv(x)
    elif OP == "erfcx":
        z = libdevice.erfcx(x)
    else:
        z = libdevice.nextafter(x, tl.load(Y + offs))
    tl.store(Z + offs, z)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfinv_against_mpmath(dtype):
    """erfinv: Giles' approximation (float32 within 4e-7 relatively), two
    Newton steps for float64 (within 1e-14 away from +-1); +-1 give +-inf,
    beyond them NaN, -0.0 keeps its sign."""
    mpmath = pytest.importorskip("mpmath")
    n = 1024
    x = np.concatenate([rng.uniform(-0.999, 0.999, n - 264), rng.uniform(-1e-3, 1e-3, 128),
                        rng.uniform(0.9999, 0.99999, 128), [1.0, -1.0, 1.5, -0.0, 0.0, np.nan, 0.5, -0.5]])
    x = x.astype(dtype)
    z = np.full(n, 7.0, dtype)
    run(special_kernel, (1,), x, x, z, N=n, OP="erfinv")
    want = np.array([float(mpmath.erfinv(mpmath.mpf(float(v)))) if abs(v) < 1 else np.nan for v in x])
    body = np.abs(x) < 0.999
    rel = np.abs(z[body] - want[body]) / np.maximum(np.abs(want[body]), 1e-300)
    assert rel.max() <= (4e-7 if dtype == "float32" else 1e-14), (rel.max(), x[body][rel.argmax()])
    tail = (np.abs(x) >= 0.9999) & (np.abs(x) < 1)
    assert (np.abs(z[tail] - want[tail]) / np.abs(want[tail])).max() <= (1e-5 if dtype == "float32" else 1e-13)
    if dtype == "float64":  # the far tail, where erf(r) - x cancels: Newton on log erfc
        far = np.array([1 - 2.0 ** -53, -(1 - 2.0 ** -52), 1 - 1e-13, 1 - 1e-10, -(1 - 1e-7), 0.996, 0.9951, 0.9949])
        zf = np.full(8, 7.0)
        run(special_kernel, (1,), far, far, zf, N=8, OP="erfinv")
        with mpmath.workdps(40):
            wf = np.array([float(mpmath.erfinv(mpmath.mpf(float(v)))) for v in far])
        assert (np.abs(zf - wf) / np.abs(wf)).max() <= 1e-13, (zf, wf)
    s = n - 8
    assert z[s] == np.inf and z[s + 1] == -np.inf and np.isnan(z[s + 2]) and np.isnan(z[s + 5])
    assert np.signbit(z[s + 3]) and z[s + 4] == 0.0 and not np.signbit(z[s + 4])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfcx_against_mpmath(dtype):
    """erfcx(x) = exp(x^2) erfc(x) without its overflow: within 3e-7
    relatively where x >= 0 (1e-30 and 1e30 included), 2 exp(x^2) -
    erfcx(-x) below 0, exp(x^2) split so that x^2's rounding is not lost
    (1e-5 off at -9 in float32 before)."""
    mpmath = pytest.importorskip("mpmath")
    n = 512
    low = -9.2 if dtype == "float32" else -26.0  # (exp(x^2) overflows below)
    x = np.concatenate([rng.uniform(-3, 3, 192), rng.uniform(low, -3, 64), rng.uniform(3, 200, 248),
                        [0.0, 1e-30, 1e30, 5.0, 26.0, 1e4, -1.0, -2.0]])
    x = x.astype(dtype)
    z = np.full(n, 7.0, dtype)
    run(special_kernel, (1,), x, x, z, N=n, OP="erfcx")
    def reference(v):
        if v >= 10:  # (mpmath's erfc underflows far out): the asymptotic series, within 3e-9 here
            return (1 - 1 / (2 * v * v) + 3 / (4 * v ** 4) - 15 / (8 * v ** 6) + 105 / (16 * v ** 8)) / (v * math.sqrt(math.pi))
        with mpmath.workdps(30):
            return float(mpmath.exp(mpmath.mpf(v) ** 2) * mpmath.erfc(mpmath.mpf(v)))
    want = np.array([reference(float(v)) for v in x])
    rel = np.abs(z - want) / np.abs(want)
    assert rel.max() <= (3e-7 if dtype == "float64" else 1e-6), (rel.max(), x[rel.argmax()])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nextafter_against_numpy(dtype):
    """nextafter by the bits, in the argument's own kind (float16 too):
    random pairs, zeros of both signs, infinities, the largest finite
    value, subnormals, equal pairs and NaN, against numpy's."""
    n = 256
    info = np.finfo(dtype)
    special = [0.0, -0.0, np.inf, -np.inf, info.max, -info.max, info.tiny, info.smallest_subnormal, 1.0, np.nan]
    x = np.concatenate([rng.standard_normal(n // 2), rng.choice(special, n - n // 2)]).astype(dtype)
    y = np.concatenate([rng.standard_normal(n // 2), rng.choice(special, n - n // 2)]).astype(dtype)
    y[rng.integers(0, n, 16)] = x[rng.integers(0, n, 16)]  # some equal pairs
    y[:8] = x[:8]
    z = np.full(n, 7.0, dtype)
    run(special_kernel, (1,), x, y, z, N=n, OP="nextafter")
    want = np.where(x == y, y, np.nextafter(x, y))  # (C's: y where equal; numpy's float16 gives x for +-0)
    np.testing.assert_array_equal(z, want)
    both = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(z[both]), np.signbit(want[both]))


@tritonc.jit
def nextafter_mixed_kernel(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Z + offs, libdevice.nextafter(tl.load(X + offs), tl.load(Y + offs)))


def test_nextafter_of_two_kinds_in_the_wider():
    """A float32 x toward a float64 y steps in float64, as Triton's
    dispatch promotes them (rounding y to float32 first made x equal to it)."""
    n = 16
    x = rng.standard_normal(n).astype(np.float32)
    y = x.astype(np.float64) + rng.choice([-1, 1], n) * 2.0 ** -40
    z = np.full(n, 7.0)
    run(nextafter_mixed_kernel, (1,), x, y, z, N=n)
    np.testing.assert_array_equal(z, np.nextafter(x.astype(np.float64), y))
