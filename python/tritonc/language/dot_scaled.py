"""``tl.dot_scaled``: the product of two tiles in microscaling formats (OCP
MX: fp4 e2m1, fp8 e4m3 and e5m2, with one e8m0 scale per 32 elements along
K), emulated as Triton emulates it where the hardware has no scaled MMA
(Hopper, Ampere): each operand is decoded, multiplied by its scales and
rounded to bfloat16 (float16 when either operand is float16), then one
tl.dot accumulates in float32.

Operands, as Triton takes them: lhs [M, K] and rhs [K, N]; fp8 as uint8 or
the fp8 type; bf16/fp16 as that type or uint16; e2m1 packed two to a uint8,
the first element in the low nibble, along K (lhs [M, K/2], rhs [K/2, N])
or, with lhs_k_pack/rhs_k_pack False, along M (lhs [M/2, K]) or N (rhs
[K, N/2]). Scales: uint8, lhs_scale [M, K/32], rhs_scale [N, K/32], or None
(no scaling); a scale byte s is 2^(s - 127), 0 giving 0 and 255 NaN (without
fast_math). The decoded and scaled values are exact in bfloat16 (or
float16) unless they leave its range; the products are exact in float32."""
from . import core, semantic
from .core import CompileError, builtin, tensor
from .semantic import to_tensor, unwrap

_FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")
_GROUP = 32  # elements along K per e8m0 scale


def _format(f, which):
    f = unwrap(f)
    if f not in _FORMATS:
        raise CompileError("tl.dot_scaled: %s must be one of %s, not %r" % (which, ", ".join(_FORMATS), f))
    return f


def _e2m1(nibble):
    """float32 of the low 4 bits of a uint8 tensor: sign, 2 exponent bits
    (bias 1), 1 mantissa bit: +-0, 0.5, 1, 1.5, 2, 3, 4, 6."""
    c = semantic.bitwise("and", nibble, 7)
    e = semantic.shift("shr", c, 1)  # logical: uint8
    # c >= 2: (2 + (c & 1)) * 2^(e - 2); c < 2: c / 2 (0 and the subnormal 0.5)
    m = semantic.cast(semantic.add(semantic.bitwise("and", c, 1), 2), core.float32)
    p = semantic.cast(semantic.shift("shl", 1, semantic.cast(e, core.int32)), core.float32)
    normal = semantic.mul(semantic.mul(m, p), 0.25)
    sub = semantic.mul(semantic.cast(c, core.float32), 0.5)
    mag = semantic.where(semantic.compare("lt", c, 2), sub, normal)
    negative = semantic.compare("ne", semantic.bitwise("and", nibble, 8), 0)
    return semantic.where(negative, semantic.neg(mag), mag)


def _decode(x, fmt, k_pack, is_lhs, which):
    """The operand as float32, [M, K] or [K, N]."""
    x = to_tensor(x)
    if len(x.shape) != 2:
        raise CompileError("tl.dot_scaled takes 2-D operands; %s has shape %s" % (which, list(x.shape)))
    if not k_pack and fmt != "e2m1":
        raise CompileError("tl.dot_scaled: only e2m1 operands are packed along a dimension other than K (%s is %s)"
                           % (which, fmt))
    if fmt == "e2m1":
        if x.dtype is not core.uint8:
            raise CompileError("tl.dot_scaled: an e2m1 operand is packed two to a tl.uint8; %s is %r" % (which, x.dtype))
        lo = _e2m1(x)
        hi = _e2m1(semantic.shift("shr", x, 4))
        a, b = x.shape
        from .standard import join
        pair = join(lo, hi)  # [a, b, 2]: element 2i of the packed axis, then 2i + 1
        # Packed along the first axis (lhs without k_pack: M; rhs with it: K): the pair goes after it.
        if k_pack != is_lhs:
            return semantic.reshape(semantic.permute(pair, (0, 2, 1)), (2 * a, b))
        return semantic.reshape(pair, (a, 2 * b))
    fp = {"e4m3": core.float8e4nv, "e5m2": core.float8e5, "bf16": core.bfloat16, "fp16": core.float16}[fmt]
    bits = core.uint8 if fmt in ("e4m3", "e5m2") else core.uint16
    if x.dtype == bits:
        x = semantic.cast(x, fp, bitcast=True)
    elif x.dtype != fp:
        raise CompileError("tl.dot_scaled: a %s operand is %r or %r; %s is %r" % (fmt, fp, bits, which, x.dtype))
    return semantic.cast(x, core.float32)


def _scaled(v, scale, is_lhs, fast_math, which):
    """v (float32, [M, K] or [K, N]) times its e8m0 scales ([M, K/32] or
    [N, K/32]), one per 32 elements along K."""
    if scale is None:
        return v
    s = to_tensor(scale)
    rows, k = (v.shape[0], v.shape[1]) if is_lhs else (v.shape[1], v.shape[0])
    if s.dtype is not core.uint8 or tuple(s.shape) != (rows, k // _GROUP) or k % _GROUP:
        raise CompileError("tl.dot_scaled: %s must be tl.uint8 of shape %s (one e8m0 scale per %d elements of K), "
                           "not %r of shape %s" % (which, [rows, k // _GROUP], _GROUP, s.dtype, list(s.shape)))
    # 2^(s - 127) as float32 bits s << 23 (s = 0: 0, as Triton's bf16 bits; 255: inf, NaN below)
    f = semantic.cast(semantic.shift("shl", semantic.cast(s, core.uint32), 23), core.float32, bitcast=True)
    if not fast_math:
        f = semantic.where(semantic.compare("eq", s, 255), float("nan"), f)
    f = semantic.reshape(semantic.broadcast_to(semantic.reshape(f, (rows, k // _GROUP, 1)), (rows, k // _GROUP, _GROUP)),
                         (rows, k))
    if not is_lhs:
        f = semantic.permute(f, (1, 0))
    return semantic.mul(v, f)


@builtin
def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, fast_math=False, lhs_k_pack=True,
               rhs_k_pack=True, out_dtype=core.float32):
    lf, rf = _format(lhs_format, "lhs_format"), _format(rhs_format, "rhs_format")
    fast = bool(unwrap(fast_math))
    a = _scaled(_decode(lhs, lf, bool(unwrap(lhs_k_pack)), True, "lhs"), unwrap(lhs_scale), True, fast, "lhs_scale")
    b = _scaled(_decode(rhs, rf, bool(unwrap(rhs_k_pack)), False, "rhs"), unwrap(rhs_scale), False, fast, "rhs_scale")
    if a.shape[1] != b.shape[0]:
        raise CompileError("tl.dot_scaled: lhs holds %d elements along K, rhs %d" % (a.shape[1], b.shape[0]))
    # (in float16 where an operand is float16, as Triton: bfloat16 would drop
    # its mantissa bits; else in bfloat16, whose range holds every scale)
    work = core.float16 if "fp16" in (lf, rf) else core.bfloat16
    from .ops import dot
    out = unwrap(out_dtype)
    if acc is not None and isinstance(unwrap(acc), tensor) and unwrap(acc).dtype != out:
        raise CompileError("tl.dot_scaled: the accumulator is %r, out_dtype %r" % (unwrap(acc).dtype, out))
    return dot(semantic.cast(a, work), semantic.cast(b, work), acc=acc, out_dtype=out)
