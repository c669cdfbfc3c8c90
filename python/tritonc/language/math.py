"""Element-wise math of ``tritonc.language`` (also ``tl.math.*``): the IR's
own functions (exp2, log2 and fma among them), and the others composed from
them (log1p, sigmoid, erf). Integer arguments are computed in float32, as in
Triton (fma's: multiplied, then added)."""
import math as _pymath
from fractions import Fraction as _Fraction

from . import core, semantic
from .core import CompileError, builtin, tensor
from .semantic import to_tensor


def _float(x, what):
    x = to_tensor(x)
    if x.dtype.is_ptr():
        raise CompileError("%s does not apply to pointers" % what)
    return x if x.dtype.is_floating() else semantic.cast(x, core.float32)


def _unary(op):
    def f(x):
        return semantic.unary_float(op, x, "tl." + op)
    f.__name__ = op
    return builtin(f)


exp = _unary("exp")
log = _unary("log")
exp2 = _unary("exp2")  # one ex2 on the GPU; exact in the interpreter (std::exp2), not exp(x ln 2)
log2 = _unary("log2")
sqrt = _unary("sqrt")
sqrt_rn = sqrt
rsqrt = _unary("rsqrt")
sin = _unary("sin")
cos = _unary("cos")
tanh = _unary("tanh")
floor = _unary("floor")
ceil = _unary("ceil")


@builtin
def abs(x):
    x = to_tensor(x)
    if x.dtype.is_bool() or x.dtype.is_int_unsigned():
        return x
    if x.dtype.is_ptr():
        raise CompileError("abs does not apply to pointers")
    return semantic.in_float32(x, lambda v: tensor(semantic.builder().unary("abs", v.handle), v.dtype, v.shape))


@builtin
def log1p(x):
    """log(1 + x), accurate near 0: there 2 atanh(s) = 2 (s + s^3/3 + ...)
    with s = x / (2 + x), |s| < 0.2, a series that needs no log of a number
    near 1 (whose error is absolute on the GPU, lg2.approx: relative near 0)."""
    x = _float(x, "tl.log1p")
    s = semantic.truediv(x, semantic.add(x, 2.0))
    s2 = semantic.mul(s, s)
    terms = 12 if x.dtype is core.float64 else 6  # 0.04^terms / (2 terms + 1) under an ulp
    p = 1.0 / (2 * terms - 1)  # a Python number takes s's type in the first product
    for k in range(terms - 2, -1, -1):
        p = semantic.add(semantic.mul(s2, p), 1.0 / (2 * k + 1))
    near = semantic.mul(semantic.mul(s, p), 2.0)
    small = semantic.logical("and", semantic.compare("gt", x, -0.25), semantic.compare("lt", x, 0.5))
    return semantic.where(small, near, log(semantic.add(x, 1.0)))


@builtin
def sigmoid(x):
    x = _float(x, "tl.sigmoid")
    return semantic.truediv(1.0, semantic.add(1.0, exp(semantic.neg(x))))


@builtin
def fma(x, y, z):
    """x * y + z rounded once, on every back end (PTX's fma.rn; the CPU's
    fma; the interpreter's): float16 and bfloat16 in float32 or float64,
    where their product is exact, then rounded to their type."""
    return semantic.fma(x, y, z)


@builtin
def div_rn(x, y):
    """x / y rounded to nearest (IEEE 754), where `/` on f32 may be 2 ulp
    off (the GPU's div.full, the CPU's multiply by a uniform divisor's
    reciprocal): computed in f64, whose division is exact on every back end,
    and rounded once to the result's type, which gives the correctly rounded
    quotient since 53 >= 2 * 24 + 2 bits (double rounding is innocuous)."""
    q = semantic.truediv(x, y)  # the result's type by Triton's rules (this op then dies)
    if q.dtype is core.float64:
        return q
    x64 = semantic.cast(semantic.cast(to_tensor(x), q.dtype), core.float64)
    y64 = semantic.cast(semantic.cast(to_tensor(y), q.dtype), core.float64)
    return semantic.cast(semantic.truediv(x64, y64), q.dtype)


@builtin
def fdiv(x, y, ieee_rounding=False):
    """Triton's tl.fdiv: `/`, or div_rn with ieee_rounding=True."""
    from .core import unwrap
    return div_rn(x, y) if unwrap(ieee_rounding) else semantic.truediv(x, y)


def _double_factorial_odd(n):
    """1 * 3 * 5 * ... * (2n + 1)."""
    r = 1
    for k in range(1, 2 * n + 2, 2):
        r *= k
    return r


_TWO_OVER_SQRT_PI = 2.0 / _pymath.sqrt(_pymath.pi)
# erf(x) = 2/sqrt(pi) e^(-x^2) sum_n 2^n x^(2n+1) / (2n+1)!!: every term
# positive, so Horner in x^2 loses nothing to cancellation; 30 terms reach
# float64's precision below |x| = 2. The coefficients carry 2/sqrt(pi),
# each rounded once from the exact rational.
_ERF_POSITIVE_SERIES = [float(_Fraction(2 ** n, _double_factorial_odd(n)) * _Fraction(_TWO_OVER_SQRT_PI))
                        for n in range(30)]
# erf(x) = 2/sqrt(pi) sum_n (-1)^n x^(2n+1) / (n! (2n+1)): x times these in x^2
# (float32 takes 8 terms below |x| = 0.5, float64 12).
_ERF_TAYLOR = [(-1) ** n / (_pymath.factorial(n) * (2 * n + 1)) * 2.0 / _pymath.sqrt(_pymath.pi) for n in range(12)]


def _horner(t, coefficients):
    """coefficients[0] + t (coefficients[1] + t (...))."""
    p = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        p = semantic.add(semantic.mul(p, t), c)
    return p


@builtin
def erf(x):
    """Below |x| = 0.5 the Taylor series, x times a polynomial in x^2 (its
    relative error under an ulp of f32 at 8 terms, and -0.0's sign kept);
    beyond, Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, relative
    below 3e-7 there), whose absolute error near 0 would be all of erf(x).
    float64: _erf64 (within a few ulps)."""
    x = _float(x, "tl.erf")
    dt = x.dtype
    if dt is core.float64:
        return _erf64(x)
    wide = x if dt.bits >= 32 else semantic.cast(x, core.float32)
    ax = abs(wide)
    t = semantic.truediv(1.0, semantic.add(semantic.mul(ax, 0.3275911), 1.0))
    poly = semantic.mul(_horner(t, (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)), t)
    y = semantic.sub(1.0, semantic.mul(poly, exp(semantic.neg(semantic.mul(ax, ax)))))
    far = semantic.where(semantic.compare("lt", wide, 0.0), semantic.neg(y), y)
    near = semantic.mul(wide, _horner(semantic.mul(wide, wide), _ERF_TAYLOR[:8]))
    r = semantic.where(semantic.compare("lt", ax, 0.5), near, far)
    return r if dt.bits >= 32 else semantic.cast(r, dt)


def _erf64(x):
    """erf in float64, within about 6 ulps (measured against libm's erf):
    below |x| = 0.5 the alternating Taylor series; up to 2 the series of
    positive terms times e^(-x^2), x^2 split in two (an fma gives the part
    its rounding lost, so that e^(-x^2) keeps it); beyond, 1 - erfc(x) with
    erfc from its continued fraction (80 levels: far more than erf's last
    bit needs there); 1 from 6 on (erfc(6) is below half an ulp of 1)."""
    ax = abs(x)
    x2 = semantic.mul(x, x)
    near = semantic.mul(x, _horner(x2, _ERF_TAYLOR))
    x2_lost = semantic.fma(x, x, semantic.neg(x2))
    e = semantic.mul(exp(semantic.neg(x2)), semantic.sub(1.0, x2_lost))  # e^(-x^2) to ~1 ulp
    middle = semantic.mul(x, semantic.mul(_horner(x2, _ERF_POSITIVE_SERIES), e))
    # erfc(z) = e^(-z^2) / sqrt(pi) / (z + (1/2) / (z + 1 / (z + (3/2) / (z + ...)))), from the bottom up
    t = ax
    for k in range(80, 0, -1):
        t = semantic.add(ax, semantic.truediv(k / 2.0, t))
    far = semantic.sub(1.0, semantic.truediv(e, semantic.mul(t, _pymath.sqrt(_pymath.pi))))
    far = semantic.where(semantic.compare("ge", ax, 6.0), to_tensor(1.0, core.float64), far)
    far = semantic.where(semantic.compare("lt", x, 0.0), semantic.neg(far), far)
    r = semantic.where(semantic.compare("lt", ax, 2.0), middle, far)
    return semantic.where(semantic.compare("lt", ax, 0.5), near, r)


@builtin
def umulhi(x, y):
    """The high half of the 2N-bit product of N-bit integers read as
    unsigned (Triton's tl.umulhi; Philox's multiply). Up to 32 bits in one
    64-bit product; 64 bits from four products of 32-bit halves."""
    x_py, y_py = semantic.is_py_scalar(x), semantic.is_py_scalar(y)
    x_dt = semantic.py_scalar_dtype(x) if x_py else to_tensor(x).dtype
    y_dt = semantic.py_scalar_dtype(y) if y_py else to_tensor(y).dtype
    if not (x_dt.is_int() and y_dt.is_int()) or x_dt.is_bool() or y_dt.is_bool():
        raise CompileError("tl.umulhi takes integers, not %r and %r" % (x_dt, y_dt))
    dt = semantic.computation_type(x_dt, x_py, y_dt, y_py)  # a Python number is weakly typed, as in Triton
    semantic._check_scalars(x, y, dt)
    if dt.bits not in (32, 64):
        raise CompileError("tl.umulhi takes 32- or 64-bit integers, not %r" % dt)
    x = semantic.constant(x, dt) if x_py else semantic.cast(to_tensor(x), dt)
    y = semantic.constant(y, dt) if y_py else semantic.cast(to_tensor(y), dt)
    bits = dt.bits
    u = {8: core.uint8, 16: core.uint16, 32: core.uint32, 64: core.uint64}[bits]
    x, y = semantic.cast(semantic.cast(x, dt), u, bitcast=True), semantic.cast(semantic.cast(y, dt), u, bitcast=True)
    shape = semantic.broadcast_shapes(x.shape, y.shape)
    x, y = semantic.broadcast_to(x, shape), semantic.broadcast_to(y, shape)
    if bits <= 32:
        wide = semantic.mul(semantic.cast(x, core.uint64), semantic.cast(y, core.uint64))
        hi = semantic.cast(semantic.shift("shr", wide, bits), u)
    else:
        lo32 = semantic.constant(0xFFFFFFFF, core.uint64)

        def halves(v):
            return semantic.shift("shr", v, 32), semantic.bitwise("and", v, lo32)
        (xh, xl), (yh, yl) = halves(x), halves(y)
        ll, lh, hl, hh = semantic.mul(xl, yl), semantic.mul(xl, yh), semantic.mul(xh, yl), semantic.mul(xh, yh)
        # The carries into the high half: below 3 * 2^32, no overflow.
        mid = semantic.add(semantic.add(semantic.shift("shr", ll, 32), semantic.bitwise("and", lh, lo32)),
                           semantic.bitwise("and", hl, lo32))
        hi = semantic.add(semantic.add(hh, semantic.shift("shr", lh, 32)),
                          semantic.add(semantic.shift("shr", hl, 32), semantic.shift("shr", mid, 32)))
    return semantic.cast(hi, dt, bitcast=True)


@builtin
def cdiv(x, y):
    from . import ops
    return ops.cdiv(x, y)
