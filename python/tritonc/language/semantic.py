"""The rules of the Python DSL's operators, as Triton 3.x defines them (not
C's): type promotion with weakly typed Python scalars, NumPy broadcasting,
true division ``/``, C-like ``//`` and ``%`` on integers, comparisons giving
int1, pointer arithmetic. Each function checks its operands, converts them
and emits IR through the current builder."""
from . import core
from .core import CompileError, tensor, unwrap

# Triton's kinds: bool < integer (signed or not) < float. A Python number of
# a kind no higher than a tensor's takes the tensor's type.
_KIND_ORDER = {"bool": 0, "uint": 1, "int": 1, "float": 2}


def builder():
    return core.current()


# ---- Python scalars -----------------------------------------------------------

def is_py_scalar(v):
    v = unwrap(v)
    return isinstance(v, (bool, int, float)) and not isinstance(v, tensor)


def py_scalar_dtype(v):
    v = unwrap(v)
    if isinstance(v, bool):
        return core.int1
    if isinstance(v, int):  # Triton's table
        if -2**31 <= v < 2**31:
            return core.int32
        if 2**31 <= v < 2**32:
            return core.uint32
        if -2**63 <= v < 2**63:
            return core.int64
        if 2**63 <= v < 2**64:
            return core.uint64
        raise CompileError("integer %d does not fit in 64 bits" % v)
    if isinstance(v, float):
        # Triton's: float64 where float32 would lose it (beyond float32's
        # normal range, but not 0, infinities or NaN).
        a = abs(v)
        if a == 0.0 or a == float("inf") or v != v or 2.0 ** -126 <= a <= (2 - 2.0 ** -23) * 2.0 ** 127:
            return core.float32
        return core.float64
    raise CompileError("expected a number or a tensor, got %s" % type(v).__name__)


def constant(v, dt, shape=()):
    """A constant of element type `dt`, splatted to `shape`."""
    v = unwrap(v)
    core.check_supported(dt)
    b = builder()
    if dt.is_floating():
        h = b.const_float(dt.ir, float(v))
    else:
        v = int(v)
        if not -2**63 <= v < 2**64:
            raise CompileError("integer %d does not fit in 64 bits" % v)
        h = b.const_int(dt.ir, v - 2**64 if v >= 2**63 else v)  # the bits; the builder wraps to the width
    t = tensor(h, dt, ())
    return broadcast_to(t, shape) if shape else t


def to_tensor(v, dt=None):
    """A tensor for `v` (a tensor, or a Python number: int32/int64, float32, int1)."""
    v = unwrap(v)
    if isinstance(v, tensor):
        return v
    if not is_py_scalar(v):
        raise CompileError("expected a number or a tensor, got %s" % _describe(v))
    return constant(v, dt or py_scalar_dtype(v))


def _describe(v):
    if v is None:
        return "None"
    if isinstance(v, core.dtype):
        return "the type %r" % v
    return "a %s (%r)" % (type(v).__name__, v) if not isinstance(v, tensor) else repr(v)


# ---- types -------------------------------------------------------------------

def integer_promote(a, b):
    """C's usual arithmetic conversions, as Triton applies them: the wider
    type; at equal width, or when the unsigned one is wider, unsigned."""
    a_u, b_u = a.is_int_unsigned(), b.is_int_unsigned()
    if a_u == b_u:
        return a if a.bits > b.bits else b
    if a_u:
        return a if a.bits >= b.bits else b
    return b if b.bits >= a.bits else a


def computation_type(a_dt, a_py, b_dt, b_py, div_or_mod=False):
    """The type two operands are converted to before an arithmetic operation."""
    if a_py != b_py:
        sc, tt = (a_dt, b_dt) if a_py else (b_dt, a_dt)
        if not tt.is_ptr() and _KIND_ORDER[sc.kind] <= _KIND_ORDER[tt.kind]:
            if div_or_mod and (tt is core.float16 or tt is core.bfloat16):
                return core.float32
            return tt
    if a_dt is core.float64 or b_dt is core.float64:
        return core.float64
    if a_dt is core.float32 or b_dt is core.float32:
        return core.float32
    if a_dt is core.float16 or b_dt is core.float16:
        return core.float32 if div_or_mod else core.float16
    if a_dt is core.bfloat16 and b_dt is core.bfloat16:
        return core.float32 if div_or_mod else core.bfloat16
    if a_dt is core.bfloat16 or b_dt is core.bfloat16:
        return core.float32
    if a_dt.is_fp8() and b_dt.is_fp8():  # Triton's rule: one fp8 type stays, two meet in float16
        return a_dt if a_dt == b_dt else core.float16
    if not a_dt.is_int() or not b_dt.is_int():
        raise CompileError("unexpected operand types %r and %r" % (a_dt, b_dt))
    if div_or_mod and a_dt.is_int_unsigned() != b_dt.is_int_unsigned() and not (a_dt.is_bool() or b_dt.is_bool()):
        # (Triton's wording, which code and tests match)
        raise CompileError("Cannot use //, %% or / with %r and %r because they have different signedness, which is "
                           "unlikely to give a useful answer; cast one of them" % (a_dt, b_dt))
    return integer_promote(a_dt, b_dt)


def cast_rounded(x, dt, mode, bitcast=False):
    """cast(x, dt) with Triton's fp_downcast_rounding, 'rtne' (the default)
    or 'rtz': a float narrowed to a float toward zero, the nearest value
    stepped one toward zero where it lies beyond x (the float's bits as an
    integer, less one: the largest finite value for an overflow), NaN and
    infinities as they are."""
    from . import math
    mode = unwrap(mode)
    if mode not in (None, "rtne", "rtz"):
        raise CompileError("fp_downcast_rounding must be 'rtne' or 'rtz', not %r" % (mode,))
    x = to_tensor(x)
    dt = unwrap(dt)
    r = cast(x, dt, bitcast=bitcast)
    if mode != "rtz" or bitcast or not x.dtype.is_floating() or not dt.is_floating() or dt.bits >= x.dtype.bits:
        return r
    if dt.bits == 8:
        raise CompileError("fp_downcast_rounding='rtz' to %r is not supported (float16, bfloat16, float32)" % dt)
    bits = core.uint16 if dt.bits == 16 else core.uint32
    stepped = cast(sub(cast(r, bits, bitcast=True), 1), dt, bitcast=True)
    beyond = compare("gt", math.abs(cast(r, x.dtype)), math.abs(x))
    return where(beyond, stepped, r)


def cast(x, dt, bitcast=False):
    x = to_tensor(x)
    dt = unwrap(dt)
    if not isinstance(dt, core.dtype):
        raise CompileError("cast: expected a dtype such as tl.float32, got %s" % _describe(dt))
    if x.dtype == dt:
        return x
    core.check_supported(dt, "cast")
    if bitcast:
        return _bitcast(x, dt)
    src = x.dtype
    if (src.is_fp8() and dt.is_int()) or (src.is_int() and dt.is_fp8()):
        return cast(cast(x, core.float32), dt)  # the IR converts fp8 to and from floats only
    if src.is_ptr() != dt.is_ptr() and not (dt in (core.int64, core.uint64) or src in (core.int64, core.uint64)):
        raise CompileError("cannot cast %r to %r (pointers convert to pointers and to tl.int64)" % (src, dt))
    # The unsigned conversions: from an unsigned integer (zero extension, to
    # floats as unsigned), and from a float to an unsigned integer.
    unsigned = (src.is_int_unsigned() and not dt.is_ptr()) or (src.is_floating() and dt.is_int_unsigned())
    ir_t = core.ir_type(dt, x.shape)
    h = builder().ucast(x.handle, ir_t) if unsigned else builder().cast(x.handle, ir_t)
    return tensor(h, dt, x.shape)


def _bitcast(x, dt):
    """The same bits as `dt` (Triton's ``.to(dt, bitcast=True)``): numbers of
    one bit width; pointers to pointers."""
    src = x.dtype
    if src.is_ptr() or dt.is_ptr():
        return cast(x, dt)  # pointers: as a cast (to pointers, or to and from 64-bit integers), as in Triton
    if src.bits != dt.bits or src.is_bool() or dt.is_bool():
        raise CompileError("cannot bitcast %r to %r: bitcasts keep the bit width (%d and %d bits)"
                           % (src, dt, src.bits, dt.bits))
    if src.ir == dt.ir:
        return tensor(x.handle, dt, x.shape)  # int32 <-> uint32: the same IR value
    return tensor(builder().bitcast(x.handle, core.ir_type(dt, x.shape)), dt, x.shape)


# ---- shapes ------------------------------------------------------------------

def broadcast_shapes(a, b):
    ra, rb = len(a), len(b)
    n = max(ra, rb)
    a = (1,) * (n - ra) + tuple(a)
    b = (1,) * (n - rb) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise CompileError("shapes %s and %s cannot be broadcast together" % (list(a), list(b)))
    return tuple(out)


# The most elements one tile may have (the IR's limit, ir/op_rules.h;
# Triton's is 2^20).
MAX_TILE_ELEMENTS = 1 << 24


def check_tile_size(shape):
    n = 1
    for d in shape:
        n *= d
    if n > MAX_TILE_ELEMENTS:
        raise CompileError("a tile of shape %s has %d elements: at most 2^24 = %d fit in one"
                           % (list(shape), n, MAX_TILE_ELEMENTS))


def broadcast_to(x, shape):
    shape = tuple(shape)
    x = to_tensor(x)
    if x.shape == shape:
        return x
    check_tile_size(shape)
    b = builder()
    if not x.shape:
        return tensor(b.splat(x.handle, list(shape)), x.dtype, shape)
    if len(x.shape) > len(shape):
        raise CompileError("cannot broadcast a tensor of shape %s to %s" % (list(x.shape), list(shape)))
    if len(x.shape) < len(shape):
        padded = (1,) * (len(shape) - len(x.shape)) + x.shape
        x = tensor(b.reshape(x.handle, list(padded)), x.dtype, padded)
    for have, want in zip(x.shape, shape):
        if have != want and have != 1:
            raise CompileError("cannot broadcast a tensor of shape %s to %s" % (list(x.shape), list(shape)))
    return tensor(b.broadcast(x.handle, list(shape)), x.dtype, shape)


def reshape(x, shape):
    x = to_tensor(x)
    shape = tuple(int(unwrap(d)) for d in shape)
    n = 1
    for d in shape:
        n *= d
    if n != x.numel():
        raise CompileError("cannot reshape a tensor of %d elements (shape %s) to %s" % (x.numel(), list(x.shape), list(shape)))
    if shape == x.shape:
        return x
    if not shape:
        return _element(x, 0)
    if not x.shape:
        return broadcast_to(x, shape)
    return tensor(builder().reshape(x.handle, list(shape)), x.dtype, shape)


def permute(x, dims):
    x = to_tensor(x)
    dims = tuple(int(unwrap(d)) for d in dims)
    if sorted(dims) != list(range(len(x.shape))):
        raise CompileError("permute: %s is not a permutation of the %d dimensions of %s"
                           % (list(dims), len(x.shape), list(x.shape)))
    if dims == tuple(range(len(x.shape))):
        return x
    shape = tuple(x.shape[d] for d in dims)
    if len(x.shape) == 2:
        return tensor(builder().trans(x.handle), x.dtype, shape)
    return tensor(builder().permute(x.handle, list(dims)), x.dtype, shape)


def pick(x, hit, axis):
    """`x` without `axis`: at each index, the element where `hit` (of x's
    shape) is true along it, exactly (beyond Triton's ops: slices, element
    indices and the tile algorithms pick so). Integers sum with zeros,
    floats take the max with -inf (so -0.0 and NaN survive), booleans go
    through int8 and pointers through int64."""
    from . import ops
    if x.dtype.is_ptr():
        r = pick(cast(x, core.int64), hit, axis)
        return cast(r, x.dtype)
    if x.dtype.is_bool():
        return cast(pick(cast(x, core.int8), hit, axis), core.int1)
    fill = float("-inf") if x.dtype.is_floating() else 0
    return ops.reduce_ir(where(hit, x, fill), axis, "max" if x.dtype.is_floating() else "add")


def _element(x, index):
    """Element `index` of a 1-D tensor as a scalar (beyond Triton)."""
    from . import ops
    flat = x if len(x.shape) == 1 else reshape(x, (x.numel(),))
    lanes = ops.arange(0, flat.shape[0])
    return pick(flat, broadcast_to(compare("eq", lanes, index), flat.shape), 0)


def _full_slice(i):
    return isinstance(i, slice) and i.start is None and i.stop is None and i.step is None


def subscript(x, index):
    """x[:, None], x[None, :], x[3] (a constant index) and x[a:b] (constant
    bounds, the length dividing the start) of a tensor."""
    if not isinstance(index, tuple):
        index = (index,)
    index = tuple(unwrap(i) for i in index)
    if any(isinstance(i, tensor) for i in index):
        raise CompileError("tensor indices must be constants (x[3], x[16:48], x[:, None]); "
                           "use pointers and tl.load to gather")
    if Ellipsis in index:
        k = index.index(Ellipsis)
        rest = len([i for i in index if i is not None and i is not Ellipsis])
        index = index[:k] + (slice(None),) * (len(x.shape) - rest) + index[k + 1:]
    real = [i for i in index if i is not None]
    while len(real) > len(x.shape) and real and all(_full_slice(i) for i in real):
        # Triton's `:` is a no-op that consumes no axis: a scalar's s[None, :] and s[:, None] are [1]
        k = max(j for j, i in enumerate(index) if _full_slice(i))
        index = index[:k] + index[k + 1:]
        real = [i for i in index if i is not None]
    if len(real) > len(x.shape):
        raise CompileError("too many indices (%d) for a tensor of rank %d" % (len(real), len(x.shape)))
    real += [slice(None)] * (len(x.shape) - len(real))
    # Slices and constant indices, one dimension at a time; then None inserts.
    out = x
    dim = 0
    kept = []  # for each real index: the dimension it keeps, or None for an int
    for i in real:
        if isinstance(i, slice):
            out = _slice(out, dim, i)
            kept.append(dim)
            dim += 1
        elif isinstance(i, int):
            out = _index(out, dim, i)
        else:
            raise CompileError("unsupported index %s" % _describe(i))
    shape = []
    it = iter(out.shape)
    r = 0
    for i in index:
        if i is None:
            shape.append(1)
        else:
            if isinstance(real[r], slice):
                shape.append(next(it))
            r += 1
    shape.extend(it)
    return reshape(out, tuple(shape)) if tuple(shape) != out.shape else out


def extract_slice(x, dim, start, length):
    """x[..., start:start + length, ...] along `dim` (the IR's extract_slice)."""
    if start == 0 and length == x.shape[dim]:
        return x
    shape = x.shape[:dim] + (length,) + x.shape[dim + 1:]
    return tensor(builder().extract_slice(x.handle, dim, start, length), x.dtype, shape)


def drop_unit_axis(x, dim):
    """x without its axis `dim` of length 1 (a 1-D tensor: its element)."""
    shape = x.shape[:dim] + x.shape[dim + 1:]
    if shape:
        return reshape(x, shape)
    from . import ops
    return pick(x, compare("eq", ops.arange(0, 1), 0), 0)


def item(x):
    """The one element of a tensor of one element, as a scalar (tl.item,
    x.item(); an `if` on such a tensor tests it)."""
    x = to_tensor(x)
    if not x.shape:
        return x
    n = 1
    for d in x.shape:
        n *= d
    if n != 1:
        raise CompileError("item() takes a tensor of one element, not one of shape %s" % list(x.shape))
    return drop_unit_axis(reshape(x, (1,)) if len(x.shape) > 1 else x, 0)


def _slice(x, dim, s):
    n = x.shape[dim]
    written = "%s:%s%s" % ("" if s.start is None else s.start, "" if s.stop is None else s.stop,
                           "" if s.step is None else ":%s" % s.step)
    # A bound past the tile is refused, not clipped as Python clips lists:
    # the tile's length would change under the code that expects it.
    for bound in (s.start, s.stop):
        if isinstance(bound, int) and not -n <= bound <= n:
            raise CompileError("slice %s of a dimension of %d: %d is outside it" % (written, n, bound))
    start, stop, step = s.indices(n)
    if (start, stop, step) == (0, n, 1):
        return x
    length = len(range(start, stop, step))
    if step != 1 or length <= 0 or length & (length - 1):
        raise CompileError("slice %s of a dimension of %d: slices need constant bounds, step 1 and a "
                           "power-of-two length" % (written, n))
    return extract_slice(x, dim, start, length)


def _index(x, dim, i):
    n = x.shape[dim]
    if not -n <= i < n:
        raise CompileError("index %d is out of range for a dimension of %d" % (i, n))
    return drop_unit_axis(extract_slice(x, dim, i % n, 1), dim)


# ---- operators ---------------------------------------------------------------

def _operands(a, b, div_or_mod=False, what="operation"):
    a_py, b_py = is_py_scalar(a), is_py_scalar(b)
    if a_py and b_py:
        # (a built-in given two numbers, as tl.maximum(1, W) of a constexpr W:
        # both become tensors of their own types, as in Triton)
        a, b = to_tensor(a), to_tensor(b)
        a_py = b_py = False
    ta = to_tensor(a) if not a_py else None
    tb = to_tensor(b) if not b_py else None
    a_dt = ta.dtype if ta is not None else py_scalar_dtype(a)
    b_dt = tb.dtype if tb is not None else py_scalar_dtype(b)
    for t in (a_dt, b_dt):
        core.check_supported(t.element_ty if t.is_ptr() else t, what)
    return ta, tb, a_dt, b_dt, a_py, b_py


def _convert(a, b, dt):
    """Both operands in type `dt`, broadcast to one shape."""
    ta = cast(a, dt) if isinstance(unwrap(a), tensor) else constant(a, dt)
    tb = cast(b, dt) if isinstance(unwrap(b), tensor) else constant(b, dt)
    shape = broadcast_shapes(ta.shape, tb.shape)
    return broadcast_to(ta, shape), broadcast_to(tb, shape)


def _binary(op, a, b, dt):
    x, y = _convert(a, b, dt)
    if dt.is_fp8():  # the IR never computes on fp8: in float32, rounded back once
        x, y = cast(x, core.float32), cast(y, core.float32)
        return cast(tensor(builder().binary(op, x.handle, y.handle), core.float32, x.shape), dt)
    return tensor(builder().binary(op, x.handle, y.handle), dt, x.shape)


def in_float32(x, fn):
    """fn(x) for an fp8 tensor, computed in float32 and rounded back (the IR
    never computes on fp8); fn(x) itself for others."""
    if not x.dtype.is_fp8():
        return fn(x)
    return cast(fn(cast(x, core.float32)), x.dtype)


def _pointer_offset(p, off, negate=False):
    off = to_tensor(off)
    if not off.dtype.is_int():
        raise CompileError("a pointer moves by an integer offset, not %r" % off.dtype)
    if off.dtype.is_int_unsigned() and off.dtype.bits < 64:
        off = cast(off, core.int64)  # offsets are signed: an unsigned one zero-extends first, as in Triton
    shape = broadcast_shapes(p.shape, off.shape)
    p = broadcast_to(p, shape)
    off = broadcast_to(off, shape)
    if negate:
        off = neg(off)
    return tensor(builder().gep(p.handle, off.handle), p.dtype, shape)


def add(a, b):
    ta, tb, a_dt, b_dt, _, _ = _operands(a, b, what="+")
    if a_dt.is_ptr() and b_dt.is_ptr():
        raise CompileError("cannot add two pointers")
    if a_dt.is_ptr():
        return _pointer_offset(ta, b)
    if b_dt.is_ptr():
        return _pointer_offset(tb, a)
    return _arith("add", a, b)


def sub(a, b):
    ta, tb, a_dt, b_dt, _, _ = _operands(a, b, what="-")
    if a_dt.is_ptr():
        if b_dt.is_ptr():
            raise CompileError("subtracting pointers is not supported (cast them to tl.int64 first)")
        return _pointer_offset(ta, b, negate=True)
    if b_dt.is_ptr():
        raise CompileError("cannot subtract a pointer from a number")
    return _arith("sub", a, b)


def mul(a, b):
    return _arith("mul", a, b)


def _arith(op, a, b, div_or_mod=False):
    _, _, a_dt, b_dt, a_py, b_py = _operands(a, b, what=op)
    if a_dt.is_ptr() or b_dt.is_ptr():
        raise CompileError("'%s' does not apply to pointers" % op)
    dt = computation_type(a_dt, a_py, b_dt, b_py, div_or_mod)
    _check_scalars(a, b, dt)
    return _binary(op, a, b, dt)


def fma(x, y, z):
    """x * y + z rounded once (the IR's fma) where the type of x * y + z is a
    float; integers multiply, then add (exact up to wrapping)."""
    if all(is_py_scalar(v) for v in (x, y, z)):
        raise CompileError("tl.fma: one operand at least must be a tensor")
    dts = [(to_tensor(v).dtype, False) if not is_py_scalar(v) else (py_scalar_dtype(v), True) for v in (x, y, z)]
    if any(dt.is_ptr() for dt, _ in dts):
        raise CompileError("tl.fma does not apply to pointers")
    xy_py = dts[0][1] and dts[1][1]
    xy = computation_type(dts[0][0], dts[0][1], dts[1][0], dts[1][1])
    dt = computation_type(xy, xy_py, dts[2][0], dts[2][1])
    if not dt.is_floating():
        return add(mul(x, y), z)
    work = core.float32 if dt.is_fp8() else dt  # the IR never computes on fp8
    ops = [cast(v, work) if isinstance(unwrap(v), tensor) else constant(v, work) for v in (x, y, z)]
    shape = broadcast_shapes(broadcast_shapes(ops[0].shape, ops[1].shape), ops[2].shape)
    a, b, c = (broadcast_to(v, shape) for v in ops)
    r = tensor(builder().fma(a.handle, b.handle, c.handle), work, shape)
    return cast(r, dt) if work is not dt else r


def truediv(a, b):
    _, _, a_dt, b_dt, a_py, b_py = _operands(a, b, what="/")
    if a_dt.is_ptr() or b_dt.is_ptr():
        raise CompileError("'/' does not apply to pointers")
    if a_dt.is_int() and b_dt.is_int():
        _check_scalars(a, b, computation_type(a_dt, a_py, b_dt, b_py, div_or_mod=True))  # (signedness too)
        dt = core.float32
    elif a_dt.is_floating() and b_dt.is_int():
        dt = a_dt if a_dt.bits >= 32 else core.float32
    elif a_dt.is_int() and b_dt.is_floating():
        dt = b_dt if b_dt.bits >= 32 else core.float32
    else:
        dt = computation_type(a_dt, a_py, b_dt, b_py, div_or_mod=True)
    return _binary("div", a, b, dt)


def _signed_op(op, dt):
    """The IR opcode of `op` ('div', 'rem', 'shr', 'max', 'min') on `dt`:
    its unsigned form on unsigned integers."""
    return "u" + op if dt.is_int_unsigned() else op


def floordiv(a, b):
    _, _, a_dt, b_dt, a_py, b_py = _operands(a, b, what="//")
    if not (a_dt.is_int() and b_dt.is_int()):
        raise CompileError("'//' takes integers (it truncates toward zero, as in C); use '/' and tl.floor for "
                           "floats (operands %r and %r)" % (a_dt, b_dt))
    dt = computation_type(a_dt, a_py, b_dt, b_py, True)
    _check_scalars(a, b, dt)
    return _binary(_signed_op("div", dt), a, b, dt)


def mod(a, b):
    _, _, a_dt, b_dt, a_py, b_py = _operands(a, b, what="%")
    if a_dt.is_ptr() or b_dt.is_ptr():
        raise CompileError("'%' does not apply to pointers")
    dt = computation_type(a_dt, a_py, b_dt, b_py, True)
    _check_scalars(a, b, dt)
    return _binary(_signed_op("rem", dt), a, b, dt)


def _check_scalars(a, b, dt):
    """Triton's checks of Python integers against the integer type `dt` they
    are computed in: none negative where it is unsigned, each in its range."""
    if not dt.is_int() or dt.is_bool():
        return
    lo, hi = (0, 2**dt.bits - 1) if dt.is_int_unsigned() else (-2**(dt.bits - 1), 2**(dt.bits - 1) - 1)
    for v in (unwrap(a), unwrap(b)):
        if not isinstance(v, int) or isinstance(v, bool):
            continue
        if v < 0 and dt.is_int_unsigned():
            raise CompileError("cannot combine an unsigned tensor (%r) with the negative number %d; cast one of "
                               "them explicitly" % (dt, v))
        if not lo <= v <= hi:
            raise CompileError("the number %d is out of range for %r" % (v, dt))


def bitwise(op, a, b):
    _, _, a_dt, b_dt, a_py, b_py = _operands(a, b, what=op)
    if not (a_dt.is_int() and b_dt.is_int()):
        raise CompileError("invalid operands of type %r and %r for bitwise '%s': it takes integers or booleans"
                           % (a_dt, b_dt, {"and": "&", "or": "|", "xor": "^"}[op]))
    dt = computation_type(a_dt, a_py, b_dt, b_py)
    _check_scalars(a, b, dt)
    return _binary(op, a, b, dt)


def shift(op, a, b):
    _, _, a_dt, b_dt, a_py, b_py = _operands(a, b, what=op)
    if not (a_dt.is_int() and b_dt.is_int()) or a_dt.is_bool():
        raise CompileError("shifts take integers, not %r and %r" % (a_dt, b_dt))
    dt = computation_type(a_dt, a_py, b_dt, b_py)
    _check_scalars(a, b, dt)
    if op == "shr":
        # Arithmetic where the shifted tensor's own type is signed (Triton's
        # rule: int8 >> uint8 shifts in sign bits, then is a uint8), else
        # logical; a Python number shifted takes the other operand's type.
        op = "ushr" if (b_dt if a_py else a_dt).is_int_unsigned() else "shr"
    return _binary(op, a, b, dt)


def _min_max(op, a, b, propagate_nan):
    _, _, a_dt, b_dt, a_py, b_py = _operands(a, b, what=op)
    if a_dt.is_ptr() or b_dt.is_ptr():
        raise CompileError("'%s' does not apply to pointers" % op)
    dt = computation_type(a_dt, a_py, b_dt, b_py)
    _check_scalars(a, b, dt)
    if dt.is_floating():  # Triton's default ignores a NaN operand (maxnum); propagate_nan=ALL keeps it
        return _binary(op if propagate_nan else op + "num", a, b, dt)
    return _binary(_signed_op(op, dt), a, b, dt)


def minimum(a, b, propagate_nan=False):
    return _min_max("min", a, b, propagate_nan)


def maximum(a, b, propagate_nan=False):
    return _min_max("max", a, b, propagate_nan)


def compare(pred, a, b):
    ta, tb, a_dt, b_dt, a_py, b_py = _operands(a, b, what="comparison")
    if a_dt.is_ptr() or b_dt.is_ptr():
        if not (a_dt.is_ptr() and b_dt.is_ptr()):
            raise CompileError("pointers compare with pointers only")
        a, b = cast(ta, core.int64), cast(tb, core.int64)
        dt = core.int64
    else:
        dt = computation_type(a_dt, a_py, b_dt, b_py)
        _check_scalars(a, b, dt)
        if dt.is_int_unsigned() and pred not in ("eq", "ne"):
            pred = "u" + pred  # ult ule ugt uge
    x, y = _convert(a, b, dt)
    if dt.is_fp8():  # exact in float32
        x, y = cast(x, core.float32), cast(y, core.float32)
    return tensor(builder().cmp(pred, x.handle, y.handle), core.int1, x.shape)


def neg(x):
    x = to_tensor(x)
    if x.dtype.is_ptr():
        raise CompileError("cannot negate a pointer")
    if x.dtype.is_bool():
        x = cast(x, core.int32)
    return in_float32(x, lambda v: tensor(builder().unary("neg", v.handle), v.dtype, v.shape))


def invert(x):
    x = to_tensor(x)
    if not x.dtype.is_int():
        raise CompileError("'~' takes integers or booleans, not %r" % x.dtype)
    return tensor(builder().unary("not", x.handle), x.dtype, x.shape)


def to_bool(x):
    x = to_tensor(x)
    if x.dtype.is_bool():
        return x
    if x.dtype.is_ptr():
        return compare("ne", cast(x, core.int64), 0)
    return compare("ne", x, 0)


def logical_not(x):
    return invert(to_bool(x))


def logical(op, a, b):
    a, b = to_bool(a), to_bool(b)
    return bitwise(op, a, b)


def where(c, x, y):
    c = to_bool(c)
    x_py, y_py = is_py_scalar(x), is_py_scalar(y)
    if x_py and y_py:
        dt = computation_type(py_scalar_dtype(x), False, py_scalar_dtype(y), False)
    else:
        tx = None if x_py else to_tensor(x)
        ty = None if y_py else to_tensor(y)
        x_dt = tx.dtype if tx is not None else py_scalar_dtype(x)
        y_dt = ty.dtype if ty is not None else py_scalar_dtype(y)
        if x_dt.is_ptr() or y_dt.is_ptr():
            if x_dt != y_dt:
                raise CompileError("tl.where: pointers of different types (%r, %r)" % (x_dt, y_dt))
            dt = x_dt
        else:
            dt = computation_type(x_dt, x_py, y_dt, y_py)
            _check_scalars(x, y, dt)
    a, b = _convert(x, y, dt)
    shape = broadcast_shapes(c.shape, a.shape)
    c, a, b = broadcast_to(c, shape), broadcast_to(a, shape), broadcast_to(b, shape)
    return tensor(builder().select(c.handle, a.handle, b.handle), dt, shape)


def unary_float(op, x, what):
    """An element-wise float function: integers are computed in float32."""
    x = to_tensor(x)
    if x.dtype.is_ptr():
        raise CompileError("%s does not apply to pointers" % what)
    if not x.dtype.is_floating():
        x = cast(x, core.float32)
    return in_float32(x, lambda v: tensor(builder().unary(op, v.handle), v.dtype, v.shape))
