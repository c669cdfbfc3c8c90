"""Element-wise math of ``tritonc.language`` (also ``tl.math.*``): the IR's
own functions, and the others composed from them (exp2, log2, sigmoid, erf,
fma). Integer arguments are computed in float32, as in Triton."""
import math as _pymath

from . import core, semantic
from .core import CompileError, builtin, tensor
from .semantic import to_tensor

_LN2 = _pymath.log(2.0)


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
    if x.dtype.is_bool():
        return x
    if x.dtype.is_ptr():
        raise CompileError("abs does not apply to pointers")
    return tensor(semantic.builder().unary("abs", x.handle), x.dtype, x.shape)


@builtin
def exp2(x):
    x = _float(x, "tl.exp2")
    return exp(semantic.mul(x, _LN2))


@builtin
def log2(x):
    x = _float(x, "tl.log2")
    return semantic.mul(log(x), 1.0 / _LN2)


@builtin
def log1p(x):
    return log(semantic.add(_float(x, "tl.log1p"), 1.0))


@builtin
def sigmoid(x):
    x = _float(x, "tl.sigmoid")
    return semantic.truediv(1.0, semantic.add(1.0, exp(semantic.neg(x))))


@builtin
def fma(x, y, z):
    return semantic.add(semantic.mul(x, y), z)


@builtin
def div_rn(x, y):
    return semantic.truediv(x, y)


fdiv = div_rn


@builtin
def erf(x):
    """Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7)."""
    x = _float(x, "tl.erf")
    dt = x.dtype
    wide = x if dt.bits >= 32 else semantic.cast(x, core.float32)
    ax = abs(wide)
    t = semantic.truediv(1.0, semantic.add(semantic.mul(ax, 0.3275911), 1.0))
    poly = 1.061405429
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly = semantic.add(semantic.mul(poly, t), c)
    poly = semantic.mul(poly, t)
    y = semantic.sub(1.0, semantic.mul(poly, exp(semantic.neg(semantic.mul(ax, ax)))))
    r = semantic.where(semantic.compare("lt", wide, 0.0), semantic.neg(y), y)
    return r if dt.bits >= 32 else semantic.cast(r, dt)


@builtin
def cdiv(x, y):
    from . import ops
    return ops.cdiv(x, y)
