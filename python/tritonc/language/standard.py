"""The standard library of ``tritonc.language``: functions written with the
other built-ins (softmax) and tile algorithms that Triton-IR has no op for,
built from reshapes, masked picks and element-wise operations (flip, sort,
top-k, scans, reductions with a user's combine function)."""
from . import core, semantic
from .core import CompileError, builtin, tensor, unwrap
from .semantic import to_tensor


def _not_yet(name):
    def f(*args, **kwargs):
        raise CompileError("tl.%s is not supported yet" % name)
    f.__name__ = name
    return builtin(f)


@builtin
def softmax(x, ieee_rounding=False):
    from . import math, ops
    x = to_tensor(x)
    z = semantic.sub(x, ops.max(x, 0))
    num = math.exp(z)
    return semantic.truediv(num, ops.sum(num, 0))


reduce = _not_yet("reduce")
xor_sum = _not_yet("xor_sum")
associative_scan = _not_yet("associative_scan")
cumsum = _not_yet("cumsum")
cumprod = _not_yet("cumprod")
sort = _not_yet("sort")
topk = _not_yet("topk")
flip = _not_yet("flip")
