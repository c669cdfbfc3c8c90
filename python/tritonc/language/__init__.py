"""``tritonc.language`` (import as ``tl``): the Python DSL of Triton 3.x.
A kernel written for Triton runs after changing only its imports
(``import tritonc as triton``, ``import tritonc.language as tl``)."""
from . import math  # noqa: F401  (tl.math.exp, ...)
from . import random  # noqa: F401  (tl.random.rand, ...)
from . import extra  # noqa: F401  (tl.extra.libdevice, tl.extra.cuda.libdevice)
from .block_pointers import (advance, load_tensor_descriptor, make_block_ptr, make_tensor_descriptor,  # noqa: F401
                             store_tensor_descriptor, tensor_descriptor)
from .core import (CompileError, PropagateNan, bfloat16, block_type, constexpr, dtype, float8e4b8, float8e4b15, float8e4nv,  # noqa: F401
                   float8e5, float8e5b16, float16, float32,
                   float64, int1, int8, int16, int32, int64, pi32_t, pointer_type, tensor, uint8, uint16, uint32, uint64)
from .math import (abs, cdiv, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log, log2, log1p,  # noqa: F401
                   rsqrt, sigmoid, sin, sqrt, sqrt_rn, tanh, umulhi)
from .ops import (add, condition, const, map_elementwise, mul, sub, arange, argmax, argmin, assume, ravel, swizzle2d, atomic_add, atomic_and, atomic_cas, atomic_max, atomic_min,  # noqa: F401
                  atomic_or, atomic_xchg, atomic_xor, broadcast, broadcast_to, cast, clamp, debug_barrier, device_assert,
                  device_print, dot, expand_dims, full, full_like, item, load, max, max_constancy, max_contiguous,
                  maximum, min, minimum, multiple_of, num_programs, permute, program_id, reshape, static_assert,
                  static_print, store, sum, trans, view, where, zeros, zeros_like)
from .dot_scaled import dot_scaled  # noqa: F401
from .type_names import str_to_ty  # noqa: F401
from .inline_asm import inline_asm_elementwise  # noqa: F401
from .random import (pair_uniform_to_normal, philox, rand, rand4x, randint, randint4x, randn,  # noqa: F401
                     randn4x, uint_to_uniform_float)
from .standard import (associative_scan, bitonic_merge, cat, cumprod, cumsum, flip, gather, histogram,  # noqa: F401
                       interleave, join, reduce, reduce_or, softmax, sort, split, squeeze, topk, unsqueeze,
                       xor_sum)

bool_ = int1
TRITON_MAX_TENSOR_NUMEL = 1048576  # Triton's bound on a tensor's elements


class range:
    """``for i in tl.range(lo, hi, step, num_stages=...)``: a loop like
    ``range``; ``num_stages`` (1 to 8) is this loop's own software-pipelining
    depth on the GPU (else the kernel's num_stages); the other keyword hints
    (loop_unroll_factor, ...) are accepted."""

    def __init__(self, *args, **kwargs):
        raise CompileError("tl.range is used only as the iterable of a for loop")


class static_range:
    """``for i in tl.static_range(lo, hi, step)``: unrolled while compiling;
    ``i`` is a constexpr."""

    def __init__(self, *args, **kwargs):
        raise CompileError("tl.static_range is used only as the iterable of a for loop")


def constexpr_function(fn):
    """``tl.constexpr_function``, as ``triton.constexpr_function``."""
    from ..jit import constexpr_function as wrap
    return wrap(fn)


# Triton's `triton.language.core` holds the built-ins themselves and its
# `standard` the library functions (libraries write `core.static_range`,
# `from triton.language.standard import zeros_like`): ours are spread over
# several modules, so both get the public names they lack.
# (Not the names of Python's built-ins, range, min, max, sum, ...: the
# modules' own code calls those.)
def _fill_namespaces():
    import builtins
    from . import standard
    for module in (core, standard):
        for name, value in list(globals().items()):
            if not name.startswith("_") and not hasattr(module, name) and not hasattr(builtins, name) and \
                    name not in ("core", "semantic", "standard", "annotations"):
                setattr(module, name, value)


_fill_namespaces()

# tl.tuple and tl.constexpr_type (last: `tuple` then shadows the built-in in
# this module only, whose code above is done with it)
from .core import constexpr_type  # noqa: E402,F401
tuple = core.tuple_
