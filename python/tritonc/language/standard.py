"""The standard library of ``tritonc.language``: softmax, and the tile
algorithms Triton-IR has no op for, built from reshapes, masked picks and
element-wise operations:

- bitonic_merge, and top-k with indices of 64-bit elements: a bitonic
  network of compare-and-swap rounds on the (blocks, 2, s) view of the axis;
- associative_scan of tuples of pointers or fp8, or with a combine
  function that is a Python function (not @jit): Sklansky's parallel
  prefix, each round combining the last element of a block's lower half
  into its upper half;
- reductions with a combine function that is a user's Python function:
  halving;
- join, split, interleave.

and those that are IR ops: gather (staged in shared memory on the GPU),
flip (a gather of the reversed positions), cumsum, cumprod and
associative_scan of one operation (the IR's scan), associative_scan and
reduce with a @jit combine function (the IR's scan_fn and reduce_fn, the
function built once as a combine function of the module), sort and topk
(the IR's sort and argsort), histogram (the IR's histogram: the bins in
shared memory on the GPU).

The axis must have a power-of-two length; a combine function is a @jit
function (inlined) or a Python function of tensors. Work is O(n log n)
element operations (O(n log^2 n) for sort): meant
for tiles, as Triton's own versions are."""
from . import core, semantic
from .core import CompileError, builtin, tensor, unwrap
from .semantic import to_tensor


def _log2(i):
    """Triton's ``tl.standard._log2``: the base-2 logarithm of a compile-time
    integer, rounded down (libraries' sorting networks size their loops so)."""
    n = unwrap(i)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise CompileError("_log2 takes a positive compile-time integer, got %r" % (n,))
    return core.constexpr(n.bit_length() - 1)


_log2.__tritonc_constexpr_function__ = True


def _axis(x, axis, default_last=True):
    a = unwrap(axis)
    if a is None:
        if not default_last:
            return None
        a = len(x.shape) - 1
    n = len(x.shape)
    if not isinstance(a, int) or not -n <= a < n:
        raise CompileError("axis %r is out of range for a tensor of rank %d" % (a, n))
    return a % n


def _length(x, a, what):
    n = x.shape[a]
    if n & (n - 1):
        raise CompileError("%s needs a power-of-two length along its axis, not %d" % (what, n))
    return n


def _pick(x, axis, k):
    """x[..., k, ...] along `axis` (the axis dropped)."""
    return semantic.drop_unit_axis(semantic.extract_slice(x, axis, k, 1), axis)


def lanes_of(x, grouped):
    """x viewed as `grouped` ([..., n / p, p]): the p tiles of its
    consecutive elements along the last axis (tl.map_elementwise's and
    inline_asm_elementwise's pack)."""
    g = semantic.reshape(x, grouped)
    return [_pick(g, len(grouped) - 1, j) for j in range(grouped[-1])]


def from_lanes(parts, grouped, shape):
    """The inverse of lanes_of: element j of each group of the last axis from
    parts[j], as a tile of `shape`."""
    from . import ops
    last = len(grouped) - 1
    lane = semantic.reshape(ops.arange(0, len(parts)), (1,) * last + (len(parts),))
    acc = None
    for j, part in enumerate(parts):
        part = semantic.broadcast_to(semantic.reshape(part, grouped[:-1] + (1,)), grouped)
        acc = part if acc is None else semantic.where(semantic.compare("eq", lane, j), part, acc)
    return semantic.reshape(acc, shape)


def _pairs(x, axis, s):
    """The axis viewed as (blocks, 2, s): the lower and upper halves of each block."""
    n = x.shape[axis]
    shape = x.shape[:axis] + (n // (2 * s), 2, s) + x.shape[axis + 1:]
    y = semantic.reshape(x, shape)
    return _pick(y, axis + 1, 0), _pick(y, axis + 1, 1), shape


def _unpair(lo, hi, axis, shape, out_shape):
    """The inverse of _pairs: lower halves `lo`, upper halves `hi`."""
    from . import ops
    expanded = lo.shape[:axis + 1] + (1,) + lo.shape[axis + 1:]
    sub_shape = [1] * len(shape)
    sub_shape[axis + 1] = 2
    upper = semantic.broadcast_to(semantic.reshape(semantic.compare("eq", ops.arange(0, 2), 1), tuple(sub_shape)),
                                  shape)
    joined = semantic.where(upper, semantic.broadcast_to(semantic.reshape(hi, expanded), shape),
                            semantic.broadcast_to(semantic.reshape(lo, expanded), shape))
    return semantic.reshape(joined, out_shape)


def _values(x, what):
    """The operands of a reduction or scan: one tensor, or a tuple of
    tensors of one shape (as Triton requires: element i of each is combined
    with element i of the others)."""
    if isinstance(x, (tuple, list)):
        xs = [to_tensor(v) for v in x]
        if any(v.shape != xs[0].shape for v in xs):
            raise CompileError("%s: the tuple's tensors must have one shape, not %s"
                               % (what, ", ".join(str(list(v.shape)) for v in xs)))
        return xs, True
    return [to_tensor(x)], False


def _combine(fn, a, b, what, scalars=False):
    r = core.current_codegen().call(fn, list(a) + list(b), scalars)
    r = unwrap(r)
    out = [to_tensor(v) for v in r] if isinstance(r, (tuple, list)) else [to_tensor(r)]
    if len(out) != len(a):
        name = getattr(fn, "__name__", None) or getattr(getattr(fn, "fn", None), "__name__", "the combine function")
        raise CompileError("%s: %s returned %d value%s for %d tensor%s: a combine function returns one value per "
                           "tensor combined" % (what, name, len(out), "" if len(out) == 1 else "s", len(a),
                                                "" if len(a) == 1 else "s"))
    return out


@builtin
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    """Triton's: exp(x - max) / sum along `dim` (0 when None), the maximum and
    the sum keeping their dimension with keep_dims (a row softmax of a 2-D
    tile is softmax(x, dim=1, keep_dims=True)); ieee_rounding divides
    correctly rounded (tl.fdiv)."""
    from . import math, ops
    x = to_tensor(x)
    d = 0 if unwrap(dim) is None else unwrap(dim)
    z = semantic.sub(x, ops.max(x, d, keep_dims=keep_dims))
    num = math.exp(z)
    return math.fdiv(num, ops.sum(num, d, keep_dims=keep_dims), ieee_rounding=ieee_rounding)


@builtin
def flip(x, dim=None):
    from . import ops
    x = to_tensor(x)
    a = _axis(x, dim)
    n = _length(x, a, "tl.flip")
    if n > 1:
        # A gather of the reversed positions: one pass (through shared memory
        # on the GPU) where log2(n) rounds of half swaps would each move the
        # tile (4096 elements: 96k lines of PTX; a 32-element axis of a
        # 4096 x 32 tile: 22k lines and spills).
        lanes = [1] * len(x.shape)
        lanes[a] = n
        index = semantic.reshape(semantic.sub(n - 1, ops.arange(0, n)), tuple(lanes))
        return gather(x, semantic.broadcast_to(index, x.shape), a)
    return x


def _bitonic(keys, axis, descending, first=2):
    """Sorts the tensors `keys[0]` (by value) and carries `keys[1:]` along;
    from stage `first` (n: only the last merge, of a bitonic sequence)."""
    from . import ops
    n = keys[0].shape[axis]
    size = first
    while size <= n:
        stride = size // 2
        while stride >= 1:
            halves = [_pairs(k, axis, stride) for k in keys]
            lo0, hi0, shape = halves[0]
            blocks = n // (2 * stride)
            # Block b holds positions b * 2 * stride + j; a round sorts up where bit `size` is 0.
            bshape = [1] * len(lo0.shape)
            bshape[axis] = blocks
            down = semantic.compare("ne", semantic.bitwise("and", semantic.mul(ops.arange(0, blocks), 2 * stride),
                                                           size), 0)
            down = semantic.broadcast_to(semantic.reshape(down, tuple(bshape)), lo0.shape)
            if descending:
                down = semantic.logical_not(down)
            out_of_order = semantic.compare("gt", lo0, hi0)
            swap = semantic.bitwise("xor", out_of_order, down)
            # Equal keys never swap: the order of equal elements is kept within a pair.
            swap = semantic.logical("and", swap, semantic.compare("ne", lo0, hi0))
            keys = [_unpair(semantic.where(swap, hi, lo), semantic.where(swap, lo, hi), axis, shp, k.shape)
                    for k, (lo, hi, shp) in zip(keys, halves)]
            stride //= 2
        size *= 2
    return keys


def _ir_sort(x, a, descending, indices=False, keep=None):
    """The IR's sort along axis `a` (argsort with `indices`: the int32
    positions the sorted elements come from, equal ones in order), the
    first `keep` of them along the axis where given (a top-k). The IR
    orders integers signed: unsigned ones go through their bits with the top
    bit flipped; booleans sort as bytes. Floats sort by IEEE totalOrder
    (-NaN first, NaN last, -0.0 before 0.0)."""
    dt = x.dtype
    keys = x
    if dt.is_bool():
        keys = semantic.cast(x, core.int8)
    elif dt.is_int_unsigned():
        keys = semantic.bitwise("xor", x, semantic.constant(1 << (dt.int_bitwidth - 1), dt))
    h = semantic.builder().sort(bool(descending), a, keys.handle, indices, keep or 0)
    shape = tuple(keep if d == a and keep else s for d, s in enumerate(x.shape))
    if indices:
        return tensor(h, core.int32, shape)
    r = tensor(h, keys.dtype, shape)
    if dt.is_bool():
        return semantic.cast(r, dt)
    if dt.is_int_unsigned():
        return semantic.bitwise("xor", r, semantic.constant(1 << (dt.int_bitwidth - 1), dt))
    return r


@builtin
def sort(x, dim=None, descending=False):
    x = to_tensor(x)
    a = _axis(x, dim)
    _length(x, a, "tl.sort")
    return _ir_sort(x, a, bool(unwrap(descending)))


@builtin
def bitonic_merge(x, dim=None, descending=0):
    """Triton's: the last stage of a bitonic sort along `dim` (the last axis
    by default): a bitonic `x` (rising then falling, or falling then rising)
    comes out sorted."""
    x = to_tensor(x)
    a = _axis(x, dim)
    n = _length(x, a, "tl.bitonic_merge")
    return _bitonic([x], a, bool(unwrap(descending)), first=n)[0]


@builtin
def topk(x, k, dim=None, descending=True, return_indices=False):
    """The k largest values along `dim` (last by default), largest first;
    with descending=False the k smallest, smallest first (Triton 3.7's
    argument); with return_indices=True also their indices (beyond Triton)."""
    x = to_tensor(x)
    a = _axis(x, dim)
    n = _length(x, a, "tl.topk")
    k = unwrap(k)
    if not isinstance(k, int) or k <= 0 or k > n or k & (k - 1):
        raise CompileError("tl.topk: k must be a power of two between 1 and %d, not %r" % (n, k))
    descending = bool(unwrap(descending))
    # The first k of a sort (on the GPU each thread keeps k of its chunk and
    # the threads of a row halve their lists pairwise).
    if not unwrap(return_indices):
        return _ir_sort(x, a, descending, keep=k)
    # The positions of the sort (ties: the lower position first), and the
    # values gathered from them.
    indices = _ir_sort(x, a, descending, indices=True, keep=k)
    return gather(x, indices, a), indices


@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    xs, many = _values(input, "tl.associative_scan")
    a = _axis(xs[0], axis)
    n = _length(xs[0], a, "tl.associative_scan")
    kind = None if many else _scan_kind(unwrap(combine_fn), xs[0].dtype)
    if kind is not None:
        return _ir_scan(xs[0], a, kind, reverse, "tl.associative_scan")
    if _combines_in_ir(unwrap(combine_fn), xs):
        if unwrap(reverse):
            xs = [flip(x, a) for x in xs]
        out = _with_combiner(xs, a, unwrap(combine_fn), "scan_fn", "tl.associative_scan")
        if unwrap(reverse):
            out = [flip(o, a) for o in out]
        return tuple(out) if many else out[0]
    if unwrap(reverse):
        xs = [flip(x, a) for x in xs]
    fn = unwrap(combine_fn)
    s = 1
    while s < n:
        parts = [_pairs(x, a, s) for x in xs]
        # The last element of each lower half, against every element of the upper half.
        lasts = []
        for lo, _, _ in parts:
            last = _pick(lo, a + 1, s - 1)
            lasts.append(semantic.broadcast_to(semantic.reshape(last, last.shape[:a + 1] + (1,) + last.shape[a + 1:]),
                                               lo.shape))
        highs = _combine(fn, lasts, [hi for _, hi, _ in parts], "tl.associative_scan")
        xs = [_unpair(lo, semantic.cast(h, lo.dtype), a, shp, x.shape)
              for x, (lo, _, shp), h in zip(xs, parts, highs)]
        s *= 2
    if unwrap(reverse):
        xs = [flip(x, a) for x in xs]
    return tuple(xs) if many else xs[0]


class _OwnArguments:
    """A combine function of this library written in Python that uses
    nothing but its arguments (so it can be a combine function of the
    module, as a @jit function can)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args):
        return self.fn(*args)


def _xor(a, b):
    return semantic.bitwise("xor", a, b)


def _or(a, b):
    return semantic.bitwise("or", a, b)


_EFFECTS = ("device_assert", "device_print", "static_print", "store", "atomic_add", "atomic_cas", "atomic_xchg",
            "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor")


def _without_loops(fn):
    """Whether a @jit function's own body has no loop and calls nothing with
    an effect (an assertion, a print, a store): a combine function of the
    module is one block of element-wise arithmetic (returns under an `if`
    become selects)."""
    import ast
    try:
        fdef = fn.parsed()[0]
    except CompileError:
        return False
    for n in ast.walk(fdef):
        if isinstance(n, (ast.For, ast.While)):
            return False
        if isinstance(n, ast.Call):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in _EFFECTS:
                return False
    return True


def _combines_in_ir(fn, xs):
    """Whether the IR's scan_fn/reduce_fn take `fn` over `xs`: a @jit
    function without loops or one of this library's, over numbers (a
    user's Python function may close over the kernel's values, which a
    combine function of the module cannot use; a loop needs blocks and an
    assertion, print or store the tiles: those take the networks)."""
    from ..jit import JITFunction
    return (isinstance(fn, _OwnArguments) or (isinstance(fn, JITFunction) and _without_loops(fn))) and \
        all(not (x.dtype.is_ptr() or x.dtype.is_fp8()) for x in xs)


def _with_combiner(xs, a, fn, op, what):
    """The IR's scan_fn or reduce_fn (`op`) of the tuple `xs` along axis `a`:
    `fn` built once into a combine function of the module, on scalars;
    booleans go as int8."""
    b = semantic.builder()
    held = [core.int8 if x.dtype.is_bool() else x.dtype for x in xs]
    tiles = [semantic.cast(x, h) if h is not x.dtype else x for x, h in zip(xs, held)]
    args = b.begin_combiner("combine_" + fn.fn.__name__, [core.ir_type(h, ()) for h in held] * 2)
    vals = [tensor(v, h, ()) for v, h in zip(args, held * 2)]
    vals = [semantic.cast(v, x.dtype) if h is not x.dtype else v for v, h, x in zip(vals, held * 2, xs * 2)]
    k = len(xs)
    from .. import _tritonc
    try:
        out = _combine(fn, vals[:k], vals[k:], what, scalars=True)
    except _tritonc.Error as e:  # a loop in a function it calls: no blocks in a combine function
        raise CompileError("%s: %s" % (what, e)) from None
    for o in out:
        if o.shape:
            raise CompileError("%s: the combine function must give one value per element, not a tensor of shape %s"
                               % (what, list(o.shape)))
    name = b.end_combiner([semantic.cast(o, h).handle for o, h in zip(out, held)])
    build = b.scan_fn if op == "scan_fn" else b.reduce_fn
    shape = xs[0].shape if op == "scan_fn" else xs[0].shape[:a] + xs[0].shape[a + 1:]
    results = []
    for j, (x, h) in enumerate(zip(xs, held)):
        r = tensor(build(name, j, a, [t.handle for t in tiles]), h, shape)
        results.append(semantic.cast(r, x.dtype) if h is not x.dtype else r)
    return results


def _scan_type(x, dtype):
    from . import ops
    return ops._sum_type(to_tensor(x), dtype)


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None):
    """As Triton's: narrow integers widened to 32 bits, bfloat16 to float32;
    float16 stays float16 (summed in float32 here, rounded back once)."""
    x = to_tensor(input)
    back = core.float16 if unwrap(dtype) is None and x.dtype is core.float16 else None
    r = _ir_scan(_scan_type(x, dtype), axis, "add", reverse, "tl.cumsum")
    return semantic.cast(r, back) if back is not None else r


@builtin
def cumprod(input, axis=0, reverse=False, dtype=None):
    """In the input's type, as Triton's (only bfloat16 computes in float32;
    cumsum widens narrow integers, cumprod does not), or `dtype`'s."""
    x = to_tensor(input)
    if unwrap(dtype) is not None:
        x = semantic.cast(x, unwrap(dtype))
    elif x.dtype is core.bfloat16:
        x = semantic.cast(x, core.float32)
    return _ir_scan(x, axis, "mul", reverse, "tl.cumprod")


def _scan_kind(fn, dtype):
    """The IR scan kind of a @jit combine function that is one operation of
    its two arguments (`return a + b`, `a * b`, `tl.maximum(a, b)`,
    `tl.minimum(a, b)`) on numbers, or None (then the Sklansky network,
    which takes any combine function)."""
    import ast
    from . import ops
    from ..jit import JITFunction
    if not isinstance(fn, JITFunction) or not (dtype.is_int() or dtype.is_floating()) or dtype.is_bool() \
            or dtype.is_fp8():
        return None
    try:
        fdef = fn.parsed()[0]
    except CompileError:
        return None
    params = [p.arg for p in fdef.args.args]
    body = [s for s in fdef.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(params) != 2 or fdef.args.vararg or len(body) != 1 or not isinstance(body[0], ast.Return):
        return None
    e = body[0].value

    def both(x, y):
        return isinstance(x, ast.Name) and isinstance(y, ast.Name) and sorted((x.id, y.id)) == sorted(params)

    if isinstance(e, ast.BinOp) and both(e.left, e.right):
        return {ast.Add: "add", ast.Mult: "mul"}.get(type(e.op))
    if isinstance(e, ast.Call) and not e.keywords and len(e.args) == 2 and both(*e.args):
        names = fn.fn.__globals__
        f = e.func
        target = names.get(f.id) if isinstance(f, ast.Name) else \
            getattr(names.get(f.value.id), f.attr, None) if isinstance(f, ast.Attribute) and \
            isinstance(f.value, ast.Name) else None
        op = "max" if target is ops.maximum else "min" if target is ops.minimum else None
        if op is None:
            return None
        # as tl.maximum computes: NaN ignored on floats, unsigned order on uints
        return op + "num" if dtype.is_floating() else ("u" + op if dtype.is_int_unsigned() else op)
    return None


def _ir_scan(x, axis, kind, reverse, what):
    """The IR's scan (in index order on the CPU and the interpreter; runs in
    registers, their totals through shared memory on the GPU); reversed by
    flips around it."""
    if x.dtype.is_bool():
        x = semantic.cast(x, core.int32)
    a = _axis(x, axis)
    _length(x, a, what)
    if unwrap(reverse):
        x = flip(x, a)
    r = tensor(semantic.builder().scan(kind, a, x.handle), x.dtype, x.shape)
    return flip(r, a) if unwrap(reverse) else r


@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    xs, many = _values(input, "tl.reduce")
    fn = unwrap(combine_fn)
    if unwrap(axis) is None:
        xs = [semantic.reshape(x, (x.numel(),)) for x in xs]
        a = 0
    else:
        a = _axis(xs[0], axis)
    shape = xs[0].shape
    n = _length(xs[0], a, "tl.reduce")
    if _combines_in_ir(fn, xs):
        out = _with_combiner(xs, a, fn, "reduce_fn", "tl.reduce")
    else:  # halving: the lower half combined with the upper
        while n > 1:
            halves = []
            for x in xs:
                y = semantic.reshape(x, x.shape[:a] + (2, n // 2) + x.shape[a + 1:])
                halves.append((_pick(y, a, 0), _pick(y, a, 1)))
            xs = [semantic.cast(r, x.dtype) for r, x in
                  zip(_combine(fn, [lo for lo, _ in halves], [hi for _, hi in halves], "tl.reduce"), xs)]
            n //= 2
        out = [_pick(x, a, 0) for x in xs]
    if unwrap(keep_dims):
        out = [semantic.reshape(o, shape[:a] + (1,) + shape[a + 1:]) if unwrap(axis) is not None
               else semantic.reshape(o, (1,) * len(input.shape if not many else input[0].shape)) for o in out]
    return tuple(out) if many else out[0]


@builtin
def xor_sum(input, axis=None, keep_dims=False):
    x = to_tensor(input)
    if not x.dtype.is_int():
        raise CompileError("tl.xor_sum takes integers, not %r" % x.dtype)
    return reduce(x, axis, _OwnArguments(_xor), keep_dims)


@builtin
def reduce_or(input, axis, keep_dims=False):
    """Bitwise or of integers along `axis` (Triton's tl.reduce_or)."""
    x = to_tensor(input)
    if not x.dtype.is_int():
        raise CompileError("tl.reduce_or takes integers, not %r" % x.dtype)
    return reduce(x, axis, _OwnArguments(_or), keep_dims)


@builtin
def join(a, b):
    """A new last axis of length 2: [..., 0] is a, [..., 1] is b."""
    a, b = to_tensor(a), to_tensor(b)
    shape = semantic.broadcast_shapes(a.shape, b.shape)
    a, b = semantic.broadcast_to(a, shape), semantic.broadcast_to(b, shape)
    dt = semantic.computation_type(a.dtype, False, b.dtype, False)
    a, b = semantic.cast(a, dt), semantic.cast(b, dt)
    from . import ops
    sub = semantic.reshape(semantic.compare("eq", ops.arange(0, 2), 1), (1,) * len(shape) + (2,))
    return semantic.where(sub, semantic.reshape(b, shape + (1,)), semantic.reshape(a, shape + (1,)))


@builtin
def split(x):
    """The two halves of a last axis of length 2."""
    x = to_tensor(x)
    if not x.shape or x.shape[-1] != 2:
        raise CompileError("tl.split needs a last axis of length 2, got shape %s" % list(x.shape))
    a = len(x.shape) - 1
    return _pick(x, a, 0), _pick(x, a, 1)


@builtin
def cat(input, other, can_reorder=False, dim=0):
    """`input` then `other` (tensors of one shape) along axis `dim` (the
    first by default; Triton 3.7's argument), in order (Triton may reorder
    with can_reorder=True; keeping the order satisfies both)."""
    j = join(input, other)
    r = len(j.shape) - 1
    if r == 0:
        raise CompileError("tl.cat takes tensors, not scalars")
    d = _axis(tensor(j.handle, j.dtype, j.shape[:-1]), dim)
    # the joined axis just before `dim`, then the two merged
    order = tuple(range(d)) + (r,) + tuple(range(d, r))
    moved = semantic.permute(j, order)
    return semantic.reshape(moved, j.shape[:d] + (2 * j.shape[d],) + j.shape[d + 1:-1])


@builtin
def squeeze(x, dim):
    """`x` without its axis `dim`, which must have length 1 (Triton 3.7)."""
    x = to_tensor(x)
    d = _axis(x, dim)
    if x.shape[d] != 1:
        raise CompileError("tl.squeeze: axis %d has length %d, not 1 (shape %s)" % (d, x.shape[d], list(x.shape)))
    return semantic.reshape(x, x.shape[:d] + x.shape[d + 1:])


@builtin
def unsqueeze(x, dim):
    """`x` with a new axis of length 1 at `dim` (0 to its rank; Triton 3.7)."""
    x = to_tensor(x)
    d = unwrap(dim)
    n = len(x.shape)
    if not isinstance(d, int) or not -n - 1 <= d <= n:
        raise CompileError("tl.unsqueeze: dim %r is out of range for a tensor of rank %d" % (d, n))
    d %= n + 1
    return semantic.reshape(x, x.shape[:d] + (1,) + x.shape[d:])


@builtin
def interleave(a, b):
    j = join(a, b)
    if len(j.shape) == 1:  # two scalars joined: [a, b] already
        return j
    return semantic.reshape(j, j.shape[:-2] + (j.shape[-2] * 2,))


@builtin
def gather(src, index, axis):
    """out[..., i, ...] = src[..., index[..., i, ...], ...] along `axis`, any
    rank: index and src of one rank, equal along the other axes (or 1 in
    src, broadcast)."""
    src, index = to_tensor(src), to_tensor(index)
    if not index.dtype.is_int() or index.dtype == core.int1:
        raise CompileError("tl.gather: the index must be integers, not %r" % index.dtype)
    a = _axis(src, axis)
    r = len(src.shape)
    if r == 0 or len(index.shape) != r:
        raise CompileError("tl.gather takes tensors of one rank (src %s, index %s)"
                           % (list(src.shape), list(index.shape)))
    for d, (x, y) in enumerate(zip(src.shape, index.shape)):
        if d != a and x != y and x != 1:
            raise CompileError("tl.gather: src and index differ along axis %d (%d and %d)" % (d, x, y))
    # Along the other axes src is the index's shape (a 1 there broadcast).
    wanted = tuple(src.shape[a] if d == a else index.shape[d] for d in range(r))
    src = semantic.broadcast_to(src, wanted)
    if index.dtype.is_int_unsigned() and index.dtype.int_bitwidth < 32:
        index = semantic.cast(index, core.int32)  # the IR reads indices signed
    # The IR's gather: staged once in shared memory on the GPU, one loop on the CPU.
    return tensor(semantic.builder().gather(src.handle, index.handle, a), src.dtype, index.shape)


@builtin
def histogram(input, num_bins, mask=None):
    """Counts of the values 0 .. num_bins - 1 of a 1-D integer tensor (int32):
    the IR's histogram (values outside the bins count nowhere; unsigned
    ones are widened first, so that the op's signed reading keeps them)."""
    x = to_tensor(input)
    nb = unwrap(num_bins)
    if len(x.shape) != 1 or not x.dtype.is_int():
        raise CompileError("tl.histogram takes a 1-D integer tensor")
    if not isinstance(nb, int) or nb <= 0 or nb & (nb - 1):
        raise CompileError("tl.histogram: num_bins must be a positive power of two, not %r" % (nb,))
    if x.dtype.is_bool():
        x = semantic.cast(x, core.int32)
    elif x.dtype.is_int_unsigned() and x.dtype.primitive_bitwidth < 64:
        x = semantic.cast(x, core.int64)
    m = None
    if unwrap(mask) is not None:
        m = semantic.broadcast_to(semantic.to_bool(mask), x.shape).handle
    return tensor(semantic.builder().histogram(x.handle, nb, m), core.int32, (nb,))
