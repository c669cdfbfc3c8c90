"""Counter-based random numbers, as Triton 3.x's ``tl.random``: Philox
(Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011),
4 x 32 bits with 10 rounds by default (4 x 64 bits for 64-bit offsets), so
that ``tl.rand(seed, offsets)`` gives Triton's bits: a dropout mask drawn in
tritonc matches one drawn in Triton.

``randint``/``randint4x``: uint32 (uint64 for 64-bit offsets);
``rand``/``rand4x``: float32 uniform in [0, 1); ``randn``/``randn4x``: float32
normal (Box-Muller on pairs)."""
from . import core, math, semantic
from .core import CompileError, builtin, unwrap
from .semantic import to_tensor

N_ROUNDS_DEFAULT = 10
# Philox 4x32: the key's increments (golden ratio and sqrt(3) - 1) and the
# round multipliers; 4x64 likewise.
_KEY_32 = (0x9E3779B9, 0xBB67AE85)
_ROUND_32 = (0xD2511F53, 0xCD9E8D57)
_KEY_64 = (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)
_ROUND_64 = (0xD2E7470EE14C6C93, 0xCA5A826395121157)


def _u(v, dt):
    return semantic.constant(v, dt)


def _philox_rounds(c, k, n_rounds, dt):
    key, mul = (_KEY_32, _ROUND_32) if dt is core.uint32 else (_KEY_64, _ROUND_64)
    a, b = _u(mul[0], dt), _u(mul[1], dt)
    c0, c1, c2, c3 = c
    k0, k1 = k
    for _ in range(n_rounds):
        hi_b, hi_a = math.umulhi(b, c2), math.umulhi(a, c0)
        c0, c1, c2, c3 = (semantic.bitwise("xor", semantic.bitwise("xor", hi_b, c1), k0), semantic.mul(b, c2),
                          semantic.bitwise("xor", semantic.bitwise("xor", hi_a, c3), k1), semantic.mul(a, c0))
        k0, k1 = semantic.add(k0, _u(key[0], dt)), semantic.add(k1, _u(key[1], dt))
    return c0, c1, c2, c3


def _rounds(n_rounds):
    n = unwrap(n_rounds)
    if not isinstance(n, int) or n <= 0:
        raise CompileError("n_rounds must be a positive integer constant, not %r" % (n,))
    return n


@builtin
def philox(seed, c0, c1, c2, c3, n_rounds=N_ROUNDS_DEFAULT):
    """The Philox block of counters (c0, c1, c2, c3) under the key `seed`:
    four tensors of uint32 (32-bit counters) or uint64 (64-bit counters)."""
    counters = [to_tensor(c) for c in (c0, c1, c2, c3)]
    bits = counters[0].dtype.bits
    if any(not c.dtype.is_int() or c.dtype.is_bool() or c.dtype.bits != bits for c in counters) or bits not in (32, 64):
        raise CompileError("philox counters are integers of 32 or 64 bits, all alike, not %s"
                           % ", ".join(repr(c.dtype) for c in counters))
    shape = counters[0].shape
    for c in counters[1:]:
        shape = semantic.broadcast_shapes(shape, c.shape)
    dt = core.uint32 if bits == 32 else core.uint64
    counters = [semantic.broadcast_to(semantic.cast(c, dt, bitcast=True), shape) for c in counters]
    s = to_tensor(seed)
    if not s.dtype.is_int() or s.dtype.is_bool():
        raise CompileError("the seed of a random draw is an integer, not %r" % s.dtype)
    s = semantic.cast(s, core.uint64)  # a signed seed sign-extends, as in Triton
    if dt is core.uint32:
        lo = semantic.cast(semantic.bitwise("and", s, 0xFFFFFFFF), dt)
        hi = semantic.cast(semantic.bitwise("and", semantic.shift("shr", s, 32), 0xFFFFFFFF), dt)
    else:
        lo, hi = s, _u(0, dt)
    keys = (semantic.broadcast_to(lo, shape), semantic.broadcast_to(hi, shape))
    return _philox_rounds(counters, keys, _rounds(n_rounds), dt)


@builtin
def randint4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four blocks of random uint32 for each offset: Philox 4x32 of the
    counters (offset's low 32 bits, its high 32 bits for a 64-bit offset,
    0, 0), as Triton 3.6."""
    offset = to_tensor(offset)
    if not offset.dtype.is_int() or offset.dtype.is_bool():
        raise CompileError("the offsets of a random draw are integers, not %r" % offset.dtype)
    lo = semantic.cast(offset, core.uint32)  # (the low bits)
    zero = semantic.mul(lo, 0)
    hi = semantic.cast(semantic.shift("shr", offset, 32), core.uint32) if offset.dtype.bits > 32 else zero
    return philox(seed, lo, hi, zero, zero, n_rounds)


@builtin
def randint(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Random bits for each offset: uint32 (also for 64-bit offsets, as Triton 3.6)."""
    return randint4x(seed, offset, n_rounds)[0]


@builtin
def uint_to_uniform_float(x):
    """Random bits to float32 in [0, 1): read as signed, folded onto the
    non-negative values, scaled below 1."""
    x = to_tensor(x)
    if x.dtype.bits == 32:
        x = semantic.cast(x, core.int32, bitcast=True)
        scale = 4.6566127342e-10  # the largest scale with (2^31 - 1) * scale < 1 in float32
    elif x.dtype.bits == 64:
        x = semantic.cast(x, core.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    else:
        raise CompileError("uint_to_uniform_float takes 32- or 64-bit integers, not %r" % x.dtype)
    x = semantic.where(semantic.compare("lt", x, 0), semantic.sub(semantic.neg(x), 1), x)
    return semantic.mul(x, scale)


@builtin
def rand(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Uniform float32 in [0, 1) for each offset."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@builtin
def rand4x(seed, offsets, n_rounds=N_ROUNDS_DEFAULT):
    return tuple(uint_to_uniform_float(i) for i in randint4x(seed, offsets, n_rounds))


@builtin
def pair_uniform_to_normal(u1, u2):
    """Box-Muller: two uniforms to two independent standard normals."""
    u1 = semantic.maximum(1.0e-7, to_tensor(u1))
    th = semantic.mul(6.283185307179586, u2)
    r = math.sqrt(semantic.mul(-2.0, math.log(u1)))
    return semantic.mul(r, math.cos(th)), semantic.mul(r, math.sin(th))


@builtin
def randn(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Standard normal float32 for each offset."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    return pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))[0]


@builtin
def randn4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4
