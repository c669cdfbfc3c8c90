"""The built-in functions of ``tritonc.language`` (``tl.load``, ``tl.dot``,
``tl.sum``, ...), with Triton 3.x's signatures. Each checks its arguments and
builds IR through semantic.py."""
import builtins

from . import core, semantic
from .core import CompileError, builtin, pointer_type, tensor, unwrap
from .semantic import to_tensor


def _int(v, what):
    v = unwrap(v)
    if isinstance(v, tensor):
        c = v.handle.constant() if not v.shape else None
        if c is None:
            raise CompileError("%s must be a compile-time constant (a tl.constexpr), not a tensor" % what)
        v = c
    if isinstance(v, bool) or not isinstance(v, int):
        raise CompileError("%s must be an integer constant, got %r" % (what, v))
    return v


def _shape(shape, what="shape"):
    shape = unwrap(shape)
    if isinstance(shape, (list, tuple)):
        dims = tuple(_int(d, what) for d in shape)
    else:
        dims = (_int(shape, what),)
    for d in dims:
        if d <= 0 or d & (d - 1):
            raise CompileError("%s %s: every dimension must be a power of two" % (what, list(dims)))
    semantic.check_tile_size(dims)
    return dims


def _dims_arg(dims):
    if len(dims) == 1 and isinstance(unwrap(dims[0]), (list, tuple)):
        dims = unwrap(dims[0])
    return tuple(_int(d, "a dimension") for d in dims)


def _axis(x, axis):
    a = _int(axis, "axis")
    n = len(x.shape)
    if not -n <= a < n:
        raise CompileError("axis %d is out of range for a tensor of rank %d" % (a, n))
    return a % n


# ---- programs and tensors -------------------------------------------------------

def _grid_axis(axis, what):
    a = _int(axis, what + "'s axis")
    if a not in (0, 1, 2):
        raise CompileError("%s's axis must be 0, 1 or 2, got %d" % (what, a))
    return a


@builtin
def program_id(axis):
    return tensor(semantic.builder().program_id(_grid_axis(axis, "program_id")), core.int32, ())


@builtin
def num_programs(axis):
    return tensor(semantic.builder().num_programs(_grid_axis(axis, "num_programs")), core.int32, ())


@builtin
def arange(start, end):
    s, e = _int(start, "arange's start"), _int(end, "arange's end")
    n = e - s
    if n <= 0 or n & (n - 1):
        raise CompileError("arange(%d, %d): the length must be a positive power of two, not %d" % (s, e, n))
    if s < -2**31 or e > 2**31:
        raise CompileError("arange(%d, %d) does not fit in int32" % (s, e))
    semantic.check_tile_size((n,))
    return tensor(semantic.builder().arange(s, n), core.int32, (n,))


@builtin
def full(shape, value, dtype):
    dims = _shape(shape)
    dt = unwrap(dtype)
    if not isinstance(dt, core.dtype):
        raise CompileError("the dtype must be a tl.dtype (such as tl.float32), not %r" % (dt,))
    if unwrap(value) is None or isinstance(unwrap(value), (str, tuple, list)):
        raise CompileError("the fill value must be a number or a scalar, not %r" % (unwrap(value),))
    if isinstance(unwrap(value), tensor):
        return semantic.broadcast_to(semantic.cast(value, dt), dims)
    return semantic.constant(value, dt, dims)


@builtin
def zeros(shape, dtype):
    return full(shape, 0, dtype)


@builtin
def zeros_like(input):
    x = to_tensor(input)
    return semantic.constant(0, x.dtype, x.shape)


@builtin
def full_like(input, value):
    x = to_tensor(input)
    return semantic.constant(value, x.dtype, x.shape) if not isinstance(unwrap(value), tensor) else \
        semantic.broadcast_to(semantic.cast(value, x.dtype), x.shape)


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    return semantic.cast_rounded(input, dtype, fp_downcast_rounding, bitcast=unwrap(bitcast))


@builtin
def reshape(input, *shape, can_reorder=False):
    return semantic.reshape(input, _dims_arg(shape))


view = builtin(lambda input, *shape: semantic.reshape(input, _dims_arg(shape)))


@builtin
def trans(input, *dims):
    x = to_tensor(input)
    if not dims:  # the last two axes swapped (a batched 2-D transpose), as Triton 3.6
        n = len(x.shape)
        if n < 2:
            raise CompileError("tl.trans without dims takes a tensor of 2 or more dimensions, not %s" % list(x.shape))
        return semantic.permute(x, tuple(range(n - 2)) + (n - 1, n - 2))
    return semantic.permute(x, _dims_arg(dims))


@builtin
def permute(input, *dims):
    return semantic.permute(input, _dims_arg(dims))


@builtin
def expand_dims(input, axis):
    x = to_tensor(input)
    axes = unwrap(axis)
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    shape = list(x.shape)
    n = len(shape) + len(axes)
    for a in axes:
        if not -n <= _int(a, "axis") < n:
            raise CompileError("expand_dims: axis %d is out of range for a result of rank %d" % (_int(a, "axis"), n))
    for a in sorted(_int(a, "axis") % n for a in axes):
        shape.insert(a, 1)
    return semantic.reshape(x, tuple(shape))


@builtin
def broadcast_to(input, *shape):
    return semantic.broadcast_to(input, _dims_arg(shape))


@builtin
def broadcast(input, other):
    a, b = to_tensor(input), to_tensor(other)
    shape = semantic.broadcast_shapes(a.shape, b.shape)
    return semantic.broadcast_to(a, shape), semantic.broadcast_to(b, shape)


@builtin
def where(condition, x, y):
    return semantic.where(condition, x, y)


@builtin
def minimum(x, y, propagate_nan=core.PropagateNan.NONE):
    return semantic.minimum(x, y, _propagates(propagate_nan))


@builtin
def maximum(x, y, propagate_nan=core.PropagateNan.NONE):
    return semantic.maximum(x, y, _propagates(propagate_nan))


@builtin
def clamp(x, min, max, propagate_nan=core.PropagateNan.NONE):
    p = _propagates(propagate_nan)
    return semantic.minimum(semantic.maximum(x, min, p), max, p)


def _propagates(propagate_nan):
    """Whether a NaN operand wins (PropagateNan.ALL) or loses (NONE, Triton's default)."""
    v = unwrap(propagate_nan)
    if v is None:
        return False
    if v not in (core.PropagateNan.NONE, core.PropagateNan.ALL):
        raise CompileError("propagate_nan must be tl.PropagateNan.NONE or tl.PropagateNan.ALL, not %r" % (v,))
    return v == core.PropagateNan.ALL


@builtin
def static_assert(cond, msg=""):
    if not unwrap(cond):
        raise CompileError("static_assert failed" + (": " + str(unwrap(msg)) if unwrap(msg) else ""))


@builtin
def static_print(*values, sep=" ", end="\n"):
    builtins.print(*[unwrap(v) for v in values], sep=sep, end=end)


def _text(v, what):
    v = unwrap(v)
    if not isinstance(v, str):
        raise CompileError("%s must be a string, not %s" % (what, type(v).__name__))
    if "\0" in v:
        raise CompileError("%s must not contain a NUL character" % what)
    return v


@builtin
def device_print(prefix, *args, hex=False):
    """Prints each element of each value, per program, as Triton does:
    ``pid (0, 0, 0) idx (3) x: 1.500000`` (docs/IR.md, print)."""
    prefix = _text(prefix, "device_print's prefix")
    values = [to_tensor(a) for a in args]
    # The IR prints integers signed: an unsigned one narrower than 64 bits
    # prints its value as an int64 (a uint64 from 2^63 up prints negative;
    # hex prints the bits of every width as they are).
    # fp8 prints as float32 (hex: its bits, as a uint8).
    values = [(semantic.cast(v, core.uint8, bitcast=True) if unwrap(hex) else semantic.cast(v, core.float32))
              if v.dtype.is_fp8() else v for v in values]
    if not unwrap(hex):
        values = [semantic.cast(v, core.int64) if v.dtype.is_int_unsigned() and v.dtype.bits < 64 else v
                  for v in values]
    semantic.builder().device_print(prefix, [v.handle for v in values], bool(unwrap(hex)))


def debug_enabled():
    """Whether device assertions are compiled: the kernel's ``debug``
    (``@jit(debug=True)``, a launch's ``debug=True``, or TRITONC_DEBUG=1 /
    TRITON_DEBUG=1), as in Triton, where they are off by default."""
    gen = core.current_codegen()
    return bool(getattr(gen, "debug", False))


@builtin
def device_assert(cond, msg="", mask=None):
    """Fails the launch where an element of `cond` is false (and `mask`, if
    given, true), naming `msg`, the line, the program and the element. Only
    in debug mode (see debug_enabled), as in Triton."""
    msg = _text(msg, "device_assert's message")
    c = unwrap(cond)
    if not isinstance(c, tensor) and not isinstance(c, (bool, int)):
        raise CompileError("device_assert's condition must be a boolean tensor, not %s" % type(c).__name__)
    c = to_tensor(c)
    if not c.dtype.is_bool():
        raise CompileError("device_assert's condition must be a boolean (int1) tensor, not %r" % c.dtype)
    if not debug_enabled():
        return
    if mask is not None and unwrap(mask) is not None:
        c = semantic.logical("or", c, semantic.logical_not(mask))
    semantic.builder().device_assert(c.handle, msg)


def _hint_values(x, values, what, one_for_all, any_dtype=False):
    """A hint's values, one per dimension (one for a scalar); with
    `one_for_all`, a single value stands for every dimension."""
    v = unwrap(values)
    vs = [_int(unwrap(w), what + "'s value") for w in (v if isinstance(v, (list, tuple)) else [v])]
    rank = builtins.max(1, len(x.shape))
    if one_for_all and len(vs) == 1:
        vs = vs * rank
    if len(vs) != rank:
        raise CompileError("%s takes one value per dimension: %d given for a tensor of shape %s"
                           % (what, len(vs), list(x.shape)))
    if any(w < 1 for w in vs):
        raise CompileError("%s's values must be positive, not %s" % (what, vs))
    if not any_dtype and not (x.dtype.is_int() and not x.dtype.is_bool()) and not isinstance(x.dtype, pointer_type):
        raise CompileError("%s applies to integers and pointers, not %r" % (what, x.dtype))
    return vs


@builtin
def multiple_of(input, values):
    """Triton's promise: the first value of every run of consecutive values
    (every value where there are none) is a multiple of the value; for
    pointers, the byte address. The interpreter checks it. Different values
    per dimension promise the smallest on every one."""
    x = to_tensor(input)
    n = builtins.min(_hint_values(x, values, "multiple_of", True))
    return tensor(semantic.builder().multiple_of(x.handle, n), x.dtype, x.shape)


@builtin
def assume(cond):
    """A promise to the compiler (Triton's tl.assume): accepted; the axis
    analysis finds what it needs itself. In debug mode it is checked, as a
    device_assert."""
    c = unwrap(cond)
    if isinstance(c, (bool, int)) and not isinstance(c, tensor):
        if not c:
            raise CompileError("tl.assume of a false constant")
        return
    c = to_tensor(c)
    if not c.dtype.is_bool():
        raise CompileError("tl.assume takes a boolean condition, not %r" % c.dtype)
    if debug_enabled():
        semantic.builder().device_assert(c.handle, "tl.assume")


@builtin
def item(input):
    return semantic.item(input)


@builtin
def ravel(x, can_reorder=False):
    """The tensor flattened to one dimension, in row-major order."""
    x = to_tensor(x)
    return semantic.reshape(x, (x.numel(),))


@builtin
def swizzle2d(i, j, size_i, size_j, size_g):
    """Triton's grouped ordering: the index (i, j) of a row-major
    size_i x size_j grid, renumbered column-major within groups of size_g
    rows (the last group may have fewer)."""
    def op(f, py):  # Python numbers (constexprs) compute in Python
        def g(a, b):
            a, b = unwrap(a), unwrap(b)
            return py(a, b) if semantic.is_py_scalar(a) and semantic.is_py_scalar(b) else f(a, b)
        return g
    add, sub, mul = op(semantic.add, int.__add__), op(semantic.sub, int.__sub__), op(semantic.mul, int.__mul__)
    div, rem = op(semantic.floordiv, int.__floordiv__), op(semantic.mod, int.__mod__)
    smaller = op(semantic.minimum, builtins.min)
    ij = add(mul(i, size_j), j)
    size_gj = mul(size_g, size_j)
    first_row = mul(div(ij, size_gj), size_g)
    rows = smaller(sub(size_i, first_row), size_g)
    within = rem(ij, size_gj)
    return add(first_row, rem(within, rows)), div(within, rows)


@builtin
def max_contiguous(input, values):
    """Triton's promise of runs of `values[d]` consecutive values along each
    dimension d (the GPU back end's vector width rests on it; `where` at a
    tile's edge hides runs the analysis would otherwise find). Not checked:
    Triton's kernels keep it where a clamp breaks a run in masked lanes."""
    x = to_tensor(input)
    vs = _hint_values(x, values, "max_contiguous", False)
    h = x.handle
    if x.shape:
        for d, n in enumerate(vs):
            if n > 1:
                h = semantic.builder().max_contiguous(h, d, n)
    return tensor(h, x.dtype, x.shape)


@builtin
def max_constancy(input, values):
    """Accepted and checked for shape; the axis analysis finds constancy
    itself (no IR instruction carries it)."""
    x = to_tensor(input)
    _hint_values(x, values, "max_constancy", False, any_dtype=True)
    return x


@builtin
def add(x, y, sanitize_overflow=True):
    """x + y as a function (Triton's tl.add; sanitize_overflow, a debug-mode
    check in Triton, is accepted and ignored)."""
    return semantic.add(x, y)


@builtin
def sub(x, y, sanitize_overflow=True):
    return semantic.sub(x, y)


@builtin
def mul(x, y, sanitize_overflow=True):
    return semantic.mul(x, y)


def map_elementwise(scalar_fn, *args, pack=1):
    """``tl.map_elementwise(fn, *tensors, pack=1)``: `fn` (a @jit function
    written for one element) applied to every element of the tensors,
    broadcast to one shape; an `if` on an element's value runs both
    branches and selects, so the function must not store, load or print
    under one; with pack, it takes that many consecutive elements of each
    tensor along the last axis. Handled by the code generator
    (codegen.map_elementwise)."""
    raise CompileError("tl.map_elementwise is called from a @jit function")


class condition:
    """``while tl.condition(c, disable_licm=False):``: a while loop's
    condition with a hint for the compiler (Triton's); the loop is `while c`
    (the hint is accepted and ignored)."""

    def __init__(self, arg1, disable_licm=False):
        self.condition = arg1
        self.disable_licm = disable_licm


class const:
    """A type annotation marking a pointer parameter whose data the kernel
    does not write (Triton's tl.const): its type is a const pointer_type,
    and a store or atomic through it (or through a pointer computed from
    it) is a compile error."""


@builtin
def debug_barrier():
    semantic.builder().barrier()


# ---- memory ----------------------------------------------------------------------

def _to_pointer_shape(what, role, t, shape):
    """t broadcast to the pointers' shape, as Triton: the pointers say how
    many elements are accessed; a mask, value or `other` of a larger shape
    (several values for one address) is an error, not a broadcast of the
    pointers."""
    if semantic.broadcast_shapes(shape, t.shape) != tuple(shape):
        if not shape:
            raise CompileError("%s: the %s is a tensor of shape %s but the pointer is a scalar; use a tensor "
                               "of pointers" % (what, role, list(t.shape)))
        raise CompileError("%s: the %s's shape %s does not broadcast to the pointers' shape %s"
                           % (what, role, list(t.shape), list(shape)))
    return semantic.broadcast_to(t, shape)


def _mask_other(ptr, mask, other):
    shape = ptr.shape
    if mask is not None:
        mask = _to_pointer_shape("tl.load", "mask", semantic.to_bool(mask), shape)
    if other is not None and isinstance(unwrap(other), tensor):
        _to_pointer_shape("tl.load", "other", unwrap(other), shape)
    return ptr, mask, shape


# The cache hints Triton accepts, passed on to PTX (cache operators, and
# eviction priorities as L1's and L2's: docs/IR.md `cache`, `evict`); others
# are refused, as Triton does.
_LOAD_CACHE = ("", ".ca", ".cg", ".cv")
_STORE_CACHE = ("", ".wb", ".cg", ".cs", ".wt")
_EVICTION = ("", "evict_normal", "evict_first", "evict_last")


def _check_hints(what, cache_modifier, eviction_policy, caches):
    """(cache_modifier, eviction_policy) checked; None is "" (none), as in
    Triton, where kernels pass cache_modifier=None."""
    cache_modifier, eviction_policy = unwrap(cache_modifier), unwrap(eviction_policy)
    cache_modifier = "" if cache_modifier is None else cache_modifier
    eviction_policy = "" if eviction_policy is None else eviction_policy
    if cache_modifier not in caches:
        raise CompileError("%s: cache_modifier %r is not one of %s" % (what, cache_modifier,
                                                                       ", ".join(repr(c) for c in caches)))
    if eviction_policy not in _EVICTION:
        raise CompileError("%s: eviction_policy %r is not one of %s" % (what, eviction_policy,
                                                                        ", ".join(repr(e) for e in _EVICTION)))
    return cache_modifier, eviction_policy


def _evict_name(eviction_policy):
    """The IR's eviction priority of Triton's eviction_policy ("" for none)."""
    e = unwrap(eviction_policy)
    return "" if e in ("", "evict_normal") else e[len("evict_"):]


def _check_writable(what, p):
    if p.dtype.is_const():
        raise CompileError("%s: Cannot store to a constant pointer (a parameter annotated tl.const, or a "
                           "pointer computed from one)" % what)


@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    from . import block_pointers
    cache_modifier, eviction_policy = _check_hints("tl.load", cache_modifier, eviction_policy, _LOAD_CACHE)
    pointer = unwrap(pointer)
    if isinstance(pointer, block_pointers.block_ptr):
        if mask is not None or other is not None:
            raise CompileError("a load through a block pointer takes boundary_check and padding_option, not mask/other")
        return pointer.load_block(boundary_check, unwrap(padding_option))
    p = to_tensor(pointer)
    if not p.dtype.is_ptr():
        raise CompileError("tl.load needs a pointer (or a tensor of pointers), not %r" % p.dtype)
    mask, other = unwrap(mask), unwrap(other)
    if other is not None and mask is None:
        raise CompileError("tl.load: `other` cannot be provided without `mask` (as in Triton: nothing would use it)")
    p, mask, shape = _mask_other(p, mask, other)
    elem = p.dtype.element_ty
    core.check_supported(elem, "tl.load")
    b = semantic.builder()
    # The GPU's cache operator (ld.global.cg, ...) and volatile=True (read
    # from memory every time, as flags other programs write must be): IR
    # attributes `cache` and `volatile` (docs/IR.md).
    hints = dict(cache=unwrap(cache_modifier).lstrip("."), volatile_=bool(unwrap(volatile)),
                 evict=_evict_name(eviction_policy))
    if mask is None:
        return tensor(b.load(p.handle, None, None, **hints), elem, shape)
    o = semantic.constant(0, elem, shape) if other is None else \
        semantic.broadcast_to(semantic.cast(to_tensor(other), elem) if isinstance(other, tensor)
                              else semantic.constant(other, elem), shape)
    return tensor(b.load(p.handle, mask.handle, o.handle, **hints), elem, shape)


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    from . import block_pointers
    cache_modifier, eviction_policy = _check_hints("tl.store", cache_modifier, eviction_policy, _STORE_CACHE)
    pointer = unwrap(pointer)
    if isinstance(pointer, block_pointers.block_ptr):
        if unwrap(mask) is not None:
            raise CompileError("a store through a block pointer takes boundary_check, not mask")
        return pointer.store_block(value, boundary_check)
    p = to_tensor(pointer)
    if not p.dtype.is_ptr():
        raise CompileError("tl.store needs a pointer (or a tensor of pointers), not %r" % p.dtype)
    _check_writable("tl.store", p)
    v = unwrap(value)
    if v is None:
        raise CompileError("tl.store: the value is None (the result of a function that returns nothing?)")
    elem = p.dtype.element_ty
    vt = semantic.cast(v, elem) if isinstance(v, tensor) else semantic.constant(v, elem)
    vt = _to_pointer_shape("tl.store", "value", vt, p.shape)
    mask = unwrap(mask)
    if mask is not None:
        mask = _to_pointer_shape("tl.store", "mask", semantic.to_bool(mask), p.shape)
    semantic.builder().store(p.handle, vt.handle, mask.handle if mask is not None else None,
                             cache=unwrap(cache_modifier).lstrip("."), evict=_evict_name(eviction_policy))


# ---- dot -------------------------------------------------------------------------

@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=core.float32):
    a, b = to_tensor(input), to_tensor(other)
    if len(a.shape) == len(b.shape) > 3 and a.shape[:-2] == b.shape[:-2]:
        # [..., M, K] @ [..., K, N]: the leading axes as one batch axis
        lead = a.shape[:-2]
        batch = 1
        for d in lead:
            batch *= d

        def flat(x):
            return semantic.reshape(x, (batch,) + x.shape[-2:])
        acc3 = None if acc is None or unwrap(acc) is None else flat(to_tensor(acc))
        r = _batched_dot(flat(a), flat(b), acc3, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype)
        return semantic.reshape(r, lead + r.shape[-2:])
    if len(a.shape) == 3 and len(b.shape) == 3:
        return _batched_dot(a, b, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype)
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise CompileError("tl.dot takes 2-D tensors, or N-D ones of the same leading (batch) axes, got %s and %s"
                           % (list(a.shape), list(b.shape)))
    if a.shape[1] != b.shape[0]:
        raise CompileError("tl.dot: the inner dimensions differ (%s @ %s)" % (list(a.shape), list(b.shape)))
    # (Any M, N and K: Triton 3.x asks K >= 16; the GPU back end runs
    # dimensions below its MMA shapes on FMAs.)
    if a.dtype.is_fp8() and b.dtype.is_fp8():
        # float16 holds every fp8 value: the products and sums are those of
        # fp8 tensor cores (f16 ones run them; native fp8 MMA is not used yet).
        a, b = semantic.cast(a, core.float16), semantic.cast(b, core.float16)
    if a.dtype != b.dtype:
        raise CompileError("tl.dot: both operands must have one type (%r and %r); cast one with .to()" % (a.dtype, b.dtype))
    if a.dtype.is_int_unsigned():
        raise CompileError("tl.dot of unsigned integers (%r) is not supported; integer dots take tl.int8" % a.dtype)
    if a.dtype.is_bool():
        raise CompileError("tl.dot of booleans is not supported (as in Triton); cast them with .to(tl.int8)")
    out = unwrap(out_dtype)
    if a.dtype.is_int():
        out = core.int32
    elif a.dtype is core.float64:  # as Triton: f64 operands give an f64 product
        out = core.float64
    precision = unwrap(input_precision)
    if precision is None and unwrap(allow_tf32) is not None:
        precision = "tf32" if unwrap(allow_tf32) else "ieee"
    if precision is None:
        precision = "tf32"
    if precision not in ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"):
        raise CompileError("tl.dot: input_precision must be 'tf32', 'tf32x3', 'ieee', 'bf16x3' or 'bf16x6', not %r"
                           % precision)
    if precision in ("bf16x3", "bf16x6") and a.dtype is core.float32:
        return _split_bf16_dot(a, b, acc, 2 if precision == "bf16x3" else 3)
    if a.dtype is core.float32:
        core.current_codegen().note_dot_precision(precision)
    shape = (a.shape[0], b.shape[1])
    if acc is None:
        c = semantic.constant(0, out, shape)
    else:
        c = to_tensor(acc)
        if c.shape != shape:
            raise CompileError("tl.dot: the accumulator has shape %s, the product %s" % (list(c.shape), list(shape)))
        # (the IR's dot converts its operands to the accumulator's type: an
        # integer one would truncate float operands; Triton refuses both)
        if (c.dtype is not core.int32) if a.dtype.is_int() else not c.dtype.is_floating():
            raise CompileError("tl.dot: a %r accumulator for %r operands; it takes %s" % (
                c.dtype, a.dtype, "tl.int32" if a.dtype.is_int() else "a float type (tl.float32 by default)"))
        out = c.dtype
    if out in (core.float16, core.bfloat16):
        # Half-precision accumulators accumulate in float32, rounded to out
        # once per dot, on every back end (Triton's tensor cores round at
        # each of their k steps; the IR's dot into f16 would round at each
        # product and sum).
        c32 = semantic.cast(c, core.float32)
        r = tensor(semantic.builder().dot(a.handle, b.handle, c32.handle), core.float32, shape)
        return semantic.cast(r, out)
    return tensor(semantic.builder().dot(a.handle, b.handle, c.handle), out, shape)


def _split_bf16_dot(a, b, acc, parts):
    """a @ b of float32 tiles on bfloat16 tensor cores (Triton's 'bf16x3',
    'bf16x6'): each operand split into `parts` bfloat16 pieces (a = a0 + a1
    (+ a2), each the rest's nearest bfloat16), and the products of pieces
    whose ranks sum below `parts` (3 of them for two pieces, 6 for three),
    smallest first, accumulated in float32."""
    def pieces(x):
        out, rest = [], x
        for _ in range(parts):
            p = semantic.cast(rest, core.bfloat16)
            out.append(p)
            rest = semantic.sub(rest, semantic.cast(p, core.float32))
        return out
    pa, pb = pieces(a), pieces(b)
    pairs = sorted(((i, j) for i in range(parts) for j in range(parts) if i + j < parts), key=lambda ij: -(ij[0] + ij[1]))
    c = acc
    for i, j in pairs:
        c = dot(pa[i], pb[j], c, out_dtype=core.float32)
    return c


def _batched_dot(a, b, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype):
    """[B, M, K] @ [B, K, N]: one 2-D dot per batch entry, picked and
    reassembled along axis 0 (the IR's dot is 2-D; B is small in tiles)."""
    from .standard import _pick
    nb = a.shape[0]
    if b.shape[0] != nb:
        raise CompileError("tl.dot: the batch sizes differ (%s @ %s)" % (list(a.shape), list(b.shape)))
    accs = None if acc is None else to_tensor(acc)
    parts = [dot(_pick(a, 0, i), _pick(b, 0, i), None if accs is None else _pick(accs, 0, i), input_precision,
                 allow_tf32, max_num_imprecise_acc, out_dtype) for i in range(nb)]
    shape = (nb,) + parts[0].shape
    batch = semantic.reshape(arange(0, nb), (nb, 1, 1)) if nb > 1 else None
    out = semantic.broadcast_to(semantic.reshape(parts[0], (1,) + parts[0].shape), shape)
    for i in range(1, nb):
        hit = semantic.broadcast_to(semantic.compare("eq", batch, i), shape)
        out = semantic.where(hit, semantic.broadcast_to(semantic.reshape(parts[i], (1,) + parts[i].shape), shape), out)
    return out


# ---- reductions -------------------------------------------------------------------

def reduce_ir(x, axis, kind):
    if x.dtype.is_fp8():  # in float32, the result rounded back once
        return semantic.cast(reduce_ir(semantic.cast(x, core.float32), axis, kind), x.dtype)
    if kind in ("max", "min") and x.dtype.is_int_unsigned():
        kind = "u" + kind
    return tensor(semantic.builder().reduce(kind, axis, x.handle), x.dtype, x.shape[:axis] + x.shape[axis + 1:])


def _reduce(x, axis, kind, keep_dims):
    x = to_tensor(x)
    if not x.shape:
        if unwrap(axis) is not None:
            _axis(x, axis)  # a 0-d value has no axis: refused as Triton does (tl.max(a, b) meant tl.maximum)
        return x
    if unwrap(axis) is None:
        flat = semantic.reshape(x, (x.numel(),))
        r = reduce_ir(flat, 0, kind)
        return semantic.reshape(r, (1,) * len(x.shape)) if unwrap(keep_dims) else r
    a = _axis(x, axis)
    r = reduce_ir(x, a, kind)
    if unwrap(keep_dims):
        r = semantic.reshape(r, x.shape[:a] + (1,) + x.shape[a + 1:])
    return r


def _sum_type(x, dtype):
    if unwrap(dtype) is not None:
        return semantic.cast(x, unwrap(dtype))
    if x.dtype.is_int() and x.dtype.bits < 32:  # of the same signedness, as in Triton
        return semantic.cast(x, core.uint32 if x.dtype.is_int_unsigned() else core.int32)
    if x.dtype.is_floating() and x.dtype.bits < 32:
        return semantic.cast(x, core.float32)
    return x


def _narrow_float_kept(x, dtype):
    """The type Triton's sum keeps for a float16 or bfloat16 tensor (its adds
    run in that type; ours in float32, rounded back once), or None."""
    return x.dtype if unwrap(dtype) is None and x.dtype in (core.float16, core.bfloat16) else None


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None):
    x = to_tensor(input)
    back = _narrow_float_kept(x, dtype)
    x = _sum_type(x, dtype)
    if x.dtype is core.int1:
        # A sum in int1 is the parity of the trues: counted in int32 (the GPU
        # back end reduces no booleans), its low bit.
        r = _reduce(semantic.cast(x, core.int32), axis, "add", keep_dims)
        return semantic.compare("ne", semantic.bitwise("and", r, 1), 0)
    r = _reduce(x, axis, "add", keep_dims)
    return semantic.cast(r, back) if back is not None else r


def _arg_reduce(x, axis, kind, keep_dims, tie_break_left=True):
    x = to_tensor(x)
    a = _axis(x, axis)
    best = _reduce(x, a, _value_kind(x, kind), True)
    n = x.shape[a]
    idx_shape = [1] * len(x.shape)
    idx_shape[a] = n
    lanes = semantic.broadcast_to(semantic.reshape(arange(0, n), tuple(idx_shape)), x.shape)
    hit = semantic.compare("eq", x, best)  # (NaNs never equal the best, which ignores them)
    if tie_break_left:
        cand = semantic.where(hit, lanes, n)
        idx = _reduce(cand, a, "min", keep_dims)
    else:
        cand = semantic.where(hit, lanes, -1)
        idx = _reduce(cand, a, "max", keep_dims)
    # A row of NaNs matches no best: its first index, so that the index stays inside the row.
    return semantic.where(semantic.logical("or", semantic.compare("eq", idx, n), semantic.compare("eq", idx, -1)),
                          0, idx)


def _value_kind(x, kind):
    """tl.max/tl.min of floats ignore NaNs (maxnum), as Triton's reductions
    combine with tl.maximum/tl.minimum."""
    return kind + "num" if x.dtype.is_floating() else kind


def _extreme(kind, input, axis, return_indices, tie_break_left, keep_dims):
    """tl.max / tl.min, with their indices when asked. As Triton's: bfloat16
    is reduced in float32, and without indices any type narrower than 32
    bits too (floats in float32, integers and booleans in int32), so that
    arithmetic on the result does not wrap or overflow in the narrow type."""
    x = to_tensor(input)
    booleans_with_indices = x.dtype.is_bool() and unwrap(return_indices)
    if x.dtype is core.bfloat16 or (not unwrap(return_indices) and x.dtype.is_floating() and x.dtype.bits < 32):
        x = semantic.cast(x, core.float32)
    if x.dtype.is_bool() or (not unwrap(return_indices) and x.dtype.is_int() and x.dtype.bits < 32):
        x = semantic.cast(x, core.int32)
    if unwrap(return_indices) and x.dtype.is_floating() and axis is not None:
        # The value is the element at the index (of -0.0 and +0.0, the one whose index wins).
        a = _axis(x, axis)
        idx = _arg_reduce(x, a, kind, True, unwrap(tie_break_left))
        shape = [1] * len(x.shape)
        shape[a] = x.shape[a]
        lanes = semantic.broadcast_to(semantic.reshape(arange(0, x.shape[a]), tuple(shape)), x.shape)
        best = semantic.pick(x, semantic.compare("eq", lanes, semantic.broadcast_to(idx, x.shape)), a)
        if keep_dims:
            best = semantic.reshape(best, idx.shape)
        else:
            idx = semantic.reshape(idx, best.shape)
        return best, idx
    best = _reduce(x, axis, _value_kind(x, kind), keep_dims)
    if unwrap(return_indices):
        if booleans_with_indices:  # reduced as int32; the values stay booleans, as Triton's
            best = semantic.cast(best, core.int1)
        return best, _arg_reduce(x, axis, kind, keep_dims, unwrap(tie_break_left))
    return best


@builtin
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _extreme("max", input, axis, return_indices, return_indices_tie_break_left, keep_dims)


@builtin
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _extreme("min", input, axis, return_indices, return_indices_tie_break_left, keep_dims)


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    return _arg_reduce(input, axis, "max", keep_dims, unwrap(tie_break_left))


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    return _arg_reduce(input, axis, "min", keep_dims, unwrap(tie_break_left))


# ---- atomics -----------------------------------------------------------------------

def _memory_order(sem, scope):
    """Triton's defaults: acq_rel at GPU scope (a lock taken with atomic_cas
    and released with atomic_xchg orders the accesses between them)."""
    sem = unwrap(sem) if unwrap(sem) is not None else "acq_rel"
    scope = unwrap(scope) if unwrap(scope) is not None else "gpu"
    if sem not in ("acq_rel", "acquire", "release", "relaxed"):
        raise CompileError("sem must be 'acq_rel', 'acquire', 'release' or 'relaxed', not %r" % sem)
    if scope not in ("gpu", "cta", "sys"):
        raise CompileError("scope must be 'gpu', 'cta' or 'sys', not %r" % scope)
    return sem, scope


def _atomic(kind, pointer, val, mask, sem, scope):
    p = to_tensor(pointer)
    if not p.dtype.is_ptr():
        raise CompileError("atomics need a pointer (or a tensor of pointers), not %r" % p.dtype)
    _check_writable("tl.atomic_" + kind, p)
    sem, scope = _memory_order(sem, scope)
    elem = p.dtype.element_ty
    if elem.is_fp8():
        raise CompileError("atomic_%s on %r: atomics do not take fp8 (no GPU has them)" % (kind, elem))
    if kind in ("and", "or", "xor") and not elem.is_int():
        raise CompileError("atomic_%s takes integers, not %r (a bitcast pointer, .to(tl.pointer_type(tl.uint32), "
                           "bitcast=True), works on a float's bits)" % (kind, elem))
    v = unwrap(val)
    vt = semantic.cast(v, elem) if isinstance(v, tensor) else semantic.constant(v, elem)
    what, shape = "tl.atomic_" + kind, p.shape
    vt = _to_pointer_shape(what, "value", vt, shape)
    mask = unwrap(mask)
    if mask is not None:
        mask = _to_pointer_shape(what, "mask", semantic.to_bool(mask), shape)
    if kind in ("max", "min") and elem.is_int_unsigned():
        kind = "u" + kind
    h = semantic.builder().atomic_rmw(kind, p.handle, vt.handle, mask.handle if mask is not None else None,
                                      sem, scope)
    return tensor(h, elem, shape)


def _atomic_op(kind):
    def op(pointer, val, mask=None, sem=None, scope=None):
        return _atomic(kind, pointer, val, mask, sem, scope)
    op.__name__ = "atomic_" + kind
    op.__doc__ = "tl.atomic_%s: returns the old values; masked lanes change nothing." % kind
    return builtin(op)


atomic_add = _atomic_op("add")
atomic_xchg = _atomic_op("xchg")
atomic_max = _atomic_op("max")
atomic_min = _atomic_op("min")
atomic_and = _atomic_op("and")
atomic_or = _atomic_op("or")
atomic_xor = _atomic_op("xor")


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    p = to_tensor(pointer)
    if not p.dtype.is_ptr():
        raise CompileError("atomic_cas needs a pointer, not %r" % p.dtype)
    _check_writable("tl.atomic_cas", p)
    sem, scope = _memory_order(sem, scope)
    elem = p.dtype.element_ty
    if elem.is_fp8():
        raise CompileError("atomic_cas on %r: atomics do not take fp8 (no GPU has them)" % elem)
    c = semantic.cast(cmp, elem) if isinstance(unwrap(cmp), tensor) else semantic.constant(cmp, elem)
    v = semantic.cast(val, elem) if isinstance(unwrap(val), tensor) else semantic.constant(val, elem)
    shape = p.shape
    c, v = _to_pointer_shape("tl.atomic_cas", "cmp", c, shape), _to_pointer_shape("tl.atomic_cas", "value", v, shape)
    return tensor(semantic.builder().atomic_cas(p.handle, c.handle, v.handle, None, sem, scope), elem, shape)


# ---- integers ------------------------------------------------------------------------

@builtin
def cdiv(x, div):
    if semantic.is_py_scalar(x) and semantic.is_py_scalar(div):
        return -(-unwrap(x) // unwrap(div))
    return semantic.floordiv(semantic.sub(semantic.add(x, div), 1), div)
