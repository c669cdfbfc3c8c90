"""The Python DSL's language, case by case (in the spirit of Triton's own
unit tests; written for tritonc): binary operators over dtype pairs with
Triton's promotion rules, Python scalars, reductions over axes, where,
masked loads, dot shapes, atomics, control flow. Expected values come from
numpy in the expected dtype; expected dtypes from the table below, a
statement of Triton 3.x's rules independent of the compiler's. Runs on the
interpreter (TRITONC_INTERPRET=1) and the CPU back end, and on CUDA in the
GPU check (TRITONC_LANGUAGE_BACKENDS): fresh random inputs, outputs
poisoned."""
import os
import sys

import numpy as np
import pytest

import tritonc
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()

INTS = ["int8", "int16", "int32", "int64"]
FLOATS = ["float16", "float32", "float64"]
DTYPES = INTS + FLOATS
TL = {"int8": tl.int8, "int16": tl.int16, "int32": tl.int32, "int64": tl.int64, "float16": tl.float16,
      "float32": tl.float32, "float64": tl.float64, "bool": tl.int1}


backend = dsl_backends.suite_fixture()  # each test on each back end of language_backends()
run = dsl_backends.run


# ---- Triton's promotion rules, as a table -------------------------------------------

def promoted(a, b, div_or_mod=False):
    """The computation dtype of two tensors (Triton 3.x)."""
    if "float64" in (a, b):
        return "float64"
    if "float32" in (a, b):
        return "float32"
    if "float16" in (a, b):
        return "float32" if div_or_mod else "float16"
    return a if np.dtype(a).itemsize >= np.dtype(b).itemsize else b


def result_dtype(op, a, b):
    if op in ("lt", "le", "gt", "ge", "eq", "ne"):
        return "bool"
    if op == "truediv":
        if a in INTS and b in INTS:
            return "float32"
        return promoted(a, b, True)
    return promoted(a, b, op in ("floordiv", "mod"))


@tritonc.jit
def binary_kernel(X, Y, Z, n, OP: tl.constexpr, EXPECT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    y = tl.load(Y + offs, mask=m, other=1)  # masked lanes divide by 1
    if OP == "add":
        z = x + y
    elif OP == "sub":
        z = x - y
    elif OP == "mul":
        z = x * y
    elif OP == "truediv":
        z = x / y
    elif OP == "floordiv":
        z = x // y
    elif OP == "mod":
        z = x % y
    elif OP == "and":
        z = x & y
    elif OP == "or":
        z = x | y
    elif OP == "xor":
        z = x ^ y
    elif OP == "shl":
        z = x << y
    elif OP == "shr":
        z = x >> y
    elif OP == "lt":
        z = x < y
    elif OP == "le":
        z = x <= y
    elif OP == "gt":
        z = x > y
    elif OP == "ge":
        z = x >= y
    elif OP == "eq":
        z = x == y
    else:
        z = x != y
    tl.static_assert(z.dtype == EXPECT, "the result's dtype differs from the expected one")
    tl.store(Z + offs, z, mask=m)


def values(dtype, n, nonzero=False, small=False):
    if dtype in INTS:
        info = np.iinfo(dtype)
        lo, hi = (-100, 100) if small or dtype == "int64" else (info.min // 2, info.max // 2)
        v = rng.integers(lo, hi, size=n).astype(dtype)
        if nonzero:
            v[v == 0] = 3
        return v
    v = (rng.standard_normal(n) * 4).astype(dtype)
    if nonzero:
        v[np.abs(v) < 0.5] = 1.5
    return v


def reference(op, x, y, out):
    ct = promoted(x.dtype.name, y.dtype.name, op in ("truediv", "floordiv", "mod"))
    if op == "truediv" and x.dtype.name in INTS and y.dtype.name in INTS:
        ct = "float32"
    a, b = x.astype(ct), y.astype(ct)
    with np.errstate(all="ignore"):
        r = {
            "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "truediv": lambda: a / b,
            # C's division and remainder: toward zero, the dividend's sign.
            "floordiv": lambda: (np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))).astype(ct),
            "mod": lambda: np.fmod(a, b), "and": lambda: a & b, "or": lambda: a | b, "xor": lambda: a ^ b,
            "shl": lambda: a << b, "shr": lambda: a >> b, "lt": lambda: a < b, "le": lambda: a <= b,
            "gt": lambda: a > b, "ge": lambda: a >= b, "eq": lambda: a == b, "ne": lambda: a != b,
        }[op]()
    return r.astype(out)


ARITH = ["add", "sub", "mul", "truediv", "mod"]
INT_ONLY = ["floordiv", "and", "or", "xor", "shl", "shr"]
COMPARE = ["lt", "le", "gt", "ge", "eq", "ne"]
CASES = [(op, a, b) for op in ARITH + COMPARE for a in DTYPES for b in DTYPES] + \
        [(op, a, b) for op in INT_ONLY for a in INTS for b in INTS]


@pytest.mark.parametrize("op,a,b", CASES)
def test_binary_op(op, a, b):
    n = int(rng.integers(5, 32))
    shift = op in ("shl", "shr")
    small = "float16" in (a, b)  # int32 + float16 is float16 in Triton: keep it finite
    x = values(a, n, small=small)
    y = rng.integers(0, 7, size=n).astype(b) if shift else \
        values(b, n, nonzero=op in ("truediv", "floordiv", "mod"), small=small)
    if op in ("eq", "ne"):
        y[: n // 2] = x[: n // 2].astype(b)  # some equal pairs
    want = result_dtype(op, a, b)
    out_np = "bool" if want == "bool" else want
    z = np.full(n, 99, dtype=out_np) if want == "bool" else np.full(n, -7 if want in INTS else np.nan, dtype=want)
    run(binary_kernel, (1,), x, y, z, n, OP=op, EXPECT=TL[want], BLOCK=32)
    ref = reference(op, x, y, out_np)
    if want in FLOATS:
        tol = {"float16": 2e-3, "float32": 1e-6, "float64": 1e-12}[want]
        np.testing.assert_allclose(z.astype(np.float64), ref.astype(np.float64), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(z, ref)


@tritonc.jit
def scalar_kernel(X, Z, n, s, OP: tl.constexpr, EXPECT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    if OP == "add_int":
        z = x + 3
    elif OP == "mul_float":
        z = x * 1.5
    elif OP == "rsub_int":
        z = 10 - x
    elif OP == "div_int":
        z = x / 2
    else:
        z = x + s
    tl.static_assert(z.dtype == EXPECT, "the result's dtype differs from the expected one")
    tl.store(Z + offs, z, mask=m)


SCALAR_CASES = [(op, d) for op in ("add_int", "mul_float", "rsub_int", "div_int", "add_arg") for d in DTYPES]


@pytest.mark.parametrize("op,dtype", SCALAR_CASES)
def test_python_scalars_are_weakly_typed(op, dtype):
    """A Python number takes the tensor's type when its kind is not higher (int
    with int, any number with floats); an int32 argument is a tensor."""
    n = 20
    x = values(dtype, n, small=True)
    if op == "add_int":
        want, ref = dtype, x + np.array(3, dtype)
    elif op == "mul_float":
        want = dtype if dtype in FLOATS else "float32"
        ref = x.astype(want) * np.array(1.5, want)
    elif op == "rsub_int":
        want, ref = dtype, np.array(10, dtype) - x
    elif op == "div_int":
        want = "float32" if dtype in INTS or dtype == "float16" else dtype
        ref = x.astype(want) / np.array(2, want)
    else:
        want = promoted(dtype, "int32")
        ref = x.astype(want) + np.array(5, want)
    z = np.full(n, -7 if want in INTS else np.nan, dtype=want)
    run(scalar_kernel, (1,), x, z, n, 5, OP=op, EXPECT=TL[want], BLOCK=32)
    np.testing.assert_allclose(z.astype(np.float64), ref.astype(np.float64), rtol=2e-3)


# ---- float to integer conversions ------------------------------------------------------

@tritonc.jit
def to_int_kernel(X, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Z + offs, tl.load(X + offs, mask=m).to(Z.dtype.element_ty), mask=m)


@pytest.mark.parametrize("a,b", [(a, b) for a in FLOATS for b in INTS])
def test_float_to_signed_truncates_saturates_and_maps_nan_to_zero(a, b):
    n = 29
    info = np.iinfo(b)
    with np.errstate(over="ignore"):  # float16 holds neither end of int32/int64: infinities
        x = rng.uniform(1.5 * info.min, 1.5 * info.max, size=n).astype(a)
    x[:5] = np.array([np.nan, -3.7, 2.9, np.inf, -np.inf]).astype(a)
    x[5:10] = rng.uniform(-100, 100, 5).astype(a)  # in range, whatever the width
    z = np.full(n, 5, dtype=b)
    run(to_int_kernel, (1,), x, z, n, BLOCK=32)
    want = [0 if np.isnan(f) else int(min(max(np.trunc(float(f)), info.min), info.max)) for f in x]
    np.testing.assert_array_equal(z, np.array(want, dtype=b))


# ---- small integers to floats (dequantization), every value ------------------------

@tritonc.jit
def small_int_to_float_kernel(X, Z, n, BF16: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    if BF16:  # stored as its bits: numpy has no bfloat16
        y = x.to(tl.bfloat16).to(tl.uint16, bitcast=True)
    else:
        y = x.to(Z.dtype.element_ty)
    tl.store(Z + offs, y, mask=m)


def bf16_bits(x):
    """float32 values rounded to bfloat16 (to nearest, ties to even), as bits."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


@pytest.mark.parametrize("a", ["int8", "uint8", "int16", "uint16"])
@pytest.mark.parametrize("b", ["float16", "bfloat16", "float32"])
def test_every_small_integer_converts_to_float_exactly_or_rounded_once(a, b):
    info = np.iinfo(a)
    x = np.arange(info.min, info.max + 1, dtype=np.int64).astype(a)
    rng.shuffle(x)
    n = x.size
    z = np.full(n, 0x7E01, dtype=np.uint16) if b == "bfloat16" else np.full(n, np.nan, dtype=b)
    run(small_int_to_float_kernel, (-(-n // 1024),), x, z, n, BF16=b == "bfloat16", BLOCK=1024)
    want = bf16_bits(x.astype(np.float32)) if b == "bfloat16" else x.astype(b)
    np.testing.assert_array_equal(z, want)


@tritonc.jit
def f64_to_bf16_kernel(X, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Z + offs, tl.load(X + offs, mask=m).to(tl.bfloat16).to(tl.uint16, bitcast=True), mask=m)


def bf16_of_f64(v):
    """float64 to bfloat16 bits, rounded once (to nearest, ties to even)."""
    import math
    out = []
    for x in v:
        x = float(x)
        if math.isnan(x):
            out.append(0x7FC0)
            continue
        sign = 0x8000 if math.copysign(1.0, x) < 0 else 0
        a = abs(x)
        if a == 0 or math.isinf(a):
            out.append(sign | (0x7F80 if a else 0))
            continue
        e = math.frexp(a)[1] - 1  # a = 1.m * 2^e
        q = 2.0 ** (7 - max(e, -126))  # ulp of bfloat16 at a: 2^(e-7), subnormals 2^-133
        r = round(a * q) / q
        out.append(sign | (0x7F80 if r >= 2.0 ** 128 else int(np.float32(r).view(np.uint32) >> 16)))
    return np.array(out, dtype=np.uint16)


def test_float64_to_bfloat16_rounds_once():
    """Values one f32 rounding would put exactly halfway between two
    bfloat16 values (then ties to even: the wrong way), ties, subnormals,
    overflow, NaN and infinities."""
    bf = bf16_bits((rng.standard_normal(600) * 8).astype(np.float32))  # bfloat16 values
    base = (bf.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    half_ulp = np.ldexp(1.0, np.frexp(base)[1] - 9)  # half a bfloat16 ulp
    tiny = np.ldexp(1.0, np.frexp(base)[1] - 40)  # below f32's precision
    x = np.concatenate([base, base + half_ulp, base + half_ulp + tiny, base + half_ulp - tiny,
                        [1e-40, -3e-39, 9.2e-41, 3.39e38, 3.3961e38, 3.5e38, 1e300, -1e300, np.inf, -np.inf,
                         np.nan, 0.0, -0.0]])
    z = np.full(x.size, 0x7E01, dtype=np.uint16)
    run(f64_to_bf16_kernel, (-(-x.size // 512),), x, z, x.size, BLOCK=512)
    want = bf16_of_f64(x)
    nan = np.isnan(x)
    np.testing.assert_array_equal(z[~nan], want[~nan])
    assert np.all((z[nan] & 0x7F80) == 0x7F80) and np.all(z[nan] & 0x7F)


@tritonc.jit
def evicting_copy(Y, X, n, LOAD: tl.constexpr, STORE: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    first = tl.load(X, cache_modifier=".cg", eviction_policy=LOAD)
    x = tl.load(X + o, mask=o < n, eviction_policy=LOAD, cache_modifier=None)
    tl.store(Y + o, x + first, mask=o < n, eviction_policy=STORE)


@pytest.mark.parametrize("load, store", [("evict_last", "evict_first"), ("evict_first", "evict_normal"),
                                         ("", "evict_last"), (None, None)])
def test_eviction_policies_leave_the_values_alone(load, store):
    """eviction_policy reaches the IR ({evict = last}) and the PTX
    (test_dsl_ptx); the values are those of the plain copy, ragged sizes too.
    None is no policy (as Triton takes it, cache_modifier=None too)."""
    n = int(rng.integers(300, 1000))
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    run(evicting_copy, (-(-n // 256),), y, x, n, LOAD=load, STORE=store, BLOCK=256)
    np.testing.assert_array_equal(y, x + x[0])


@tritonc.jit
def mul_add_kernel(X, A, B, Y, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    m = o < n
    tl.store(Y + o, tl.load(X + o, mask=m) * tl.load(A + o, mask=m) + tl.load(B + o, mask=m), mask=m)


@tritonc.jit
def exp2_kernel(X, Y, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(Y + o, tl.math.exp2(tl.load(X + o)))


def test_exp2_keeps_subnormals_without_reflect_ftz():
    """exp2 of -127..-149 is subnormal in float32: kept with
    enable_reflect_ftz=False; with it (the default) the GPU flushes them to
    zero, as Triton's; the interpreter and the CPU back end keep them."""
    x = np.concatenate([np.linspace(-149, -126, 32), rng.uniform(-20, 20, 32)]).astype(np.float32)
    y = np.full(64, np.nan, np.float32)
    ref = np.exp2(x.astype(np.float64)).astype(np.float32)  # subnormals rounded to their spacing, 2^-149
    ulp = np.float32(2.0 ** -149)
    exp2_kernel[(1,)](x, y, BLOCK=64, enable_reflect_ftz=False)
    np.testing.assert_allclose(y, ref, rtol=2e-6, atol=2 * ulp)
    assert np.all(y[x < -126] > 0)
    y[:] = np.nan
    exp2_kernel[(1,)](x, y, BLOCK=64)
    tiny = x < -126
    np.testing.assert_allclose(y[~tiny], ref[~tiny], rtol=2e-6)
    assert np.all((y[tiny] == 0) | np.isclose(y[tiny], ref[tiny], rtol=2e-6, atol=2 * ulp))


def test_without_fp_fusion_each_product_is_rounded():
    """enable_fp_fusion=False (Triton's launch option): x * a + b rounds the
    product before the sum on every back end (no fma), exactly as float32
    arithmetic in numpy; inputs where the two roundings differ from one."""
    n = 1000
    x = rng.uniform(1, 2, n).astype(np.float32)
    a = (1 + rng.integers(1, 1 << 12, n) * np.float32(2.0 ** -23)).astype(np.float32)
    b = -(x * a)  # the rounded product, negated: fused, the sum would be the product's rounding error
    y = np.full(n, np.nan, np.float32)
    run(mul_add_kernel, (1,), x, a, b, y, n, BLOCK=1024, enable_fp_fusion=False)
    want = x * a + b  # (numpy: each operation rounded to float32)
    np.testing.assert_array_equal(y, want)
    assert np.all(want == 0) and np.any(x.astype(np.float64) * a + b != 0)  # (a fused result would differ)


@tritonc.jit
def half_scalars_kernel(X, Y, n, s: tl.float16, b: tl.bfloat16, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.static_assert(s.dtype == tl.float16)
    tl.store(Y + offs, tl.load(X + offs, mask=m) * s + b.to(tl.float32), mask=m)


def test_half_precision_scalar_arguments():
    """Scalars annotated float16/bfloat16 arrive rounded to their type (the
    GPU packs them as 16-bit parameters)."""
    x = rng.standard_normal(29).astype(np.float32)
    y = np.full(29, np.nan, np.float32)
    s, b = 0.1, 3.3
    run(half_scalars_kernel, (1,), x, y, 29, s, b, BLOCK=32)
    b16 = float((bf16_bits(np.array([b], np.float32)).astype(np.uint32) << 16).view(np.float32)[0])
    ref = x * np.float32(np.float16(s)) + np.float32(b16)
    np.testing.assert_allclose(y, ref, rtol=1e-6, atol=1e-6)  # (s unrounded: 2.4e-4 off; b: 3e-3)


# ---- reductions ---------------------------------------------------------------------

@tritonc.jit
def reduce_kernel(X, Z, OP: tl.constexpr, AXIS: tl.constexpr, KEEP: tl.constexpr, M: tl.constexpr,
                  N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    if OP == "sum":
        z = tl.sum(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "max":
        z = tl.max(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "min":
        z = tl.min(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "argmax":
        z = tl.argmax(x, axis=AXIS, keep_dims=KEEP)
    else:
        z = tl.argmin(x, axis=AXIS, keep_dims=KEEP)
    if AXIS is None:
        tl.store(Z + tl.arange(0, 1), tl.reshape(z, (1,)) if not KEEP else tl.reshape(z, (1,)))
    elif AXIS == 0:
        tl.store(Z + tl.arange(0, N), tl.reshape(z, (N,)))
    else:
        tl.store(Z + tl.arange(0, M), tl.reshape(z, (M,)))


REDUCE_CASES = [(op, d, axis, keep) for op in ("sum", "max", "min", "argmax", "argmin")
                for d in ("int8", "int32", "float16", "float32") for axis in (0, 1, None) for keep in (False, True)
                if not (op.startswith("arg") and axis is None)]


@pytest.mark.parametrize("op,dtype,axis,keep", REDUCE_CASES)
def test_reduction(op, dtype, axis, keep):
    M, N = 8, 16
    x = values(dtype, M * N, small=True).reshape(M, N)
    if op.startswith("arg"):
        x = rng.permutation(M * N).reshape(M, N).astype(dtype) if dtype != "int8" else \
            rng.integers(-100, 100, size=(M, N)).astype(dtype)
    if op == "sum":
        acc = "int32" if dtype in INTS else "float32"
        ref = x.astype(np.float64).sum(axis=axis)
        out_dt = acc
    elif op in ("max", "min"):
        ref = getattr(x, op)(axis=axis).astype(np.float64)
        out_dt = dtype
    else:
        # ties resolve to the first index, as in numpy
        ref = getattr(x, op)(axis=axis)
        out_dt = "int32"
    size = 1 if axis is None else (N if axis == 0 else M)
    z = np.full(size, -7 if out_dt in INTS else np.nan, dtype=out_dt)
    run(reduce_kernel, (1,), x, z, OP=op, AXIS=axis, KEEP=keep, M=M, N=N)
    tol = 1e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(z.astype(np.float64), np.reshape(ref, size).astype(np.float64), rtol=tol, atol=tol)


# ---- where, masks, shapes -------------------------------------------------------------

@tritonc.jit
def where_kernel(C, X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    c = tl.load(C + offs, mask=m, other=0)
    x = tl.load(X + offs, mask=m, other=-1.0)
    y = tl.load(Y + 0)  # a scalar broadcast against the tiles
    tl.store(Z + offs, tl.where(c > 0, x, y), mask=m)


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32", "int64"])
def test_where_with_scalar_and_mask(dtype):
    n = int(rng.integers(10, 64))
    c = rng.integers(0, 2, size=n).astype("int32")
    x, y = values(dtype, n), values(dtype, 1)
    z = np.full(n, -7 if dtype in INTS else np.nan, dtype=dtype)
    run(where_kernel, (1,), c, x, y, z, n, BLOCK=64)
    np.testing.assert_array_equal(z, np.where(c > 0, x, y[0]))


@tritonc.jit
def masked_load_kernel(X, Z, n, other, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=other)
    tl.store(Z + offs, x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_load_other(dtype):
    n = int(rng.integers(1, 32))
    x = values(dtype, 32)
    z = np.full(32, -7 if dtype in INTS else np.nan, dtype=dtype)
    run(masked_load_kernel, (1,), x, z, n, 3, BLOCK=32)
    np.testing.assert_array_equal(z, np.where(np.arange(32) < n, x, np.array(3, dtype)))


@tritonc.jit
def shape_kernel(X, Z, OP: tl.constexpr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    if OP == "trans":
        z = tl.trans(x)
        tl.store(Z + tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :], z)
    elif OP == "T":
        z = x.T
        tl.store(Z + tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :], z)
    elif OP == "reshape":
        z = tl.reshape(x, (M * N,))
        tl.store(Z + tl.arange(0, M * N), z)
    elif OP == "expand_broadcast":
        row = tl.load(X + tl.arange(0, N))
        z = tl.broadcast_to(tl.expand_dims(row, 0), (M, N))
        tl.store(Z + offs, z)
    elif OP == "slice":
        z = x[:, N // 2:N]  # beyond Triton: constant slices
        tl.store(Z + tl.arange(0, M)[:, None] * (N // 2) + tl.arange(0, N // 2)[None, :], z)
    elif OP == "slice_unaligned":
        z = x[:, 4:12]  # a start the length does not divide
        tl.store(Z + tl.arange(0, M)[:, None] * 8 + tl.arange(0, 8)[None, :], z)
    elif OP == "slice_rows":
        z = x[2:6, 8:16]
        tl.store(Z + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :], z)
    elif OP == "index":
        z = x[1, :]  # beyond Triton: constant indices
        tl.store(Z + tl.arange(0, N), z)
    else:
        z = x[2, 3]
        tl.store(Z, z)


@pytest.mark.parametrize("op", ["trans", "T", "reshape", "expand_broadcast", "slice", "slice_unaligned", "slice_rows",
                                "index", "element"])
@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_shapes(op, dtype):
    M, N = 8, 16
    x = values(dtype, M * N).reshape(M, N)
    if dtype in FLOATS:  # values a pick must keep exactly: signed zeros, NaN, infinities
        x[1, :4] = [-0.0, np.nan, -np.inf, np.inf]
        x[2, 3] = -0.0
        x[:, N - 1] = -0.0
    ref = {"trans": x.T, "T": x.T, "reshape": x.reshape(-1), "expand_broadcast": np.broadcast_to(x[0], (M, N)),
           "slice": x[:, N // 2:], "slice_unaligned": x[:, 4:12], "slice_rows": x[2:6, 8:16], "index": x[1],
           "element": x[2, 3:4]}[op]
    z = np.full(ref.size, -7 if dtype in INTS else np.nan, dtype=dtype)
    run(shape_kernel, (1,), x, z, OP=op, M=M, N=N)
    np.testing.assert_array_equal(z, np.ascontiguousarray(ref).reshape(-1))
    np.testing.assert_array_equal(np.signbit(z), np.signbit(np.ascontiguousarray(ref).reshape(-1)))


# ---- dot ---------------------------------------------------------------------------------

@tritonc.jit
def dot_kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, ACC: tl.constexpr):
    a = tl.load(A + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(B + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    if ACC:
        c = tl.load(C + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
        c = tl.dot(a, b, c, input_precision="ieee")
    else:
        c = tl.dot(a, b, input_precision="ieee")
    tl.store(C + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


# (M or N below 16 as Triton 3.x allows, down to 1: a decode step's one row;
# K below 16 too, beyond Triton)
@pytest.mark.parametrize("M,N,K", [(16, 16, 16), (32, 64, 16), (64, 32, 32), (16, 128, 64), (8, 32, 32), (1, 64, 32),
                                   (32, 8, 16), (4, 4, 8)])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("acc", [False, True])
def test_dot(M, N, K, dtype, acc):
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    c0 = rng.standard_normal((M, N)).astype(np.float32)
    c = c0.copy() if acc else np.full((M, N), np.nan, np.float32)
    run(dot_kernel, (1,), a, b, c, M=M, N=N, K=K, ACC=acc)
    ref = a.astype(np.float64) @ b.astype(np.float64) + (c0 if acc else 0)
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-3)


@tritonc.jit
def dot_half_out_kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, BK: tl.constexpr,
                        OUT: tl.constexpr):
    """A K loop whose accumulator is f16 or bf16 (out_dtype), carried as such."""
    acc = tl.zeros((M, N), OUT)
    for k in range(0, K, BK):
        a = tl.load(A + tl.arange(0, M)[:, None] * K + k + tl.arange(0, BK)[None, :])
        b = tl.load(B + (k + tl.arange(0, BK))[:, None] * N + tl.arange(0, N)[None, :])
        acc = tl.dot(a, b, acc, out_dtype=OUT)
    tl.static_assert(acc.dtype == OUT)
    tl.store(C + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], acc.to(tl.float32))


@pytest.mark.parametrize("M,N,K,BK", [(16, 16, 32, 16), (64, 64, 128, 32), (64, 128, 64, 64)])
@pytest.mark.parametrize("out", ["float16", "bfloat16"])
def test_dot_into_half_accumulators(M, N, K, BK, out):
    a = (rng.standard_normal((M, K)) * 0.25).astype(np.float16)
    b = (rng.standard_normal((K, N)) * 0.25).astype(np.float16)
    c = np.full((M, N), np.nan, np.float32)
    run(dot_half_out_kernel, (1,), a, b, c, M=M, N=N, K=K, BK=BK, OUT=TL[out] if out in TL else tl.bfloat16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    # rounded to f16/bf16 at least once per K block (Triton: per k step of the instruction)
    tol = (2.0 ** -8 if out == "float16" else 2.0 ** -5) * (K // BK + 1) * max(1.0, np.abs(ref).max())
    np.testing.assert_allclose(c, ref, rtol=0, atol=tol)


@tritonc.jit
def dot_i8_kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, B_KN: tl.constexpr):
    a = tl.load(A + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    if B_KN:  # B stored [K, N]
        b = tl.load(B + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    else:  # stored [N, K], read as its transpose (K contiguous)
        b = tl.load(B + tl.arange(0, N)[None, :] * K + tl.arange(0, K)[:, None])
    c = tl.dot(a, b)
    tl.static_assert(c.dtype == tl.int32)
    tl.store(C + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


@pytest.mark.parametrize("M,N,K", [(16, 16, 16), (32, 32, 32), (64, 64, 64), (128, 64, 128), (64, 128, 32),
                                   (2, 64, 32)])
@pytest.mark.parametrize("b_kn", [True, False])
@pytest.mark.parametrize("warps", [4, 8])
def test_dot_of_int8_is_exact_int32(M, N, K, b_kn, warps):
    """int8 products summed exactly in int32, every value of int8 taken
    (the tensor cores on a GPU: wgmma or mma.sync by shape and B's order)."""
    a = rng.integers(-128, 128, (M, K)).astype(np.int8)
    b = rng.integers(-128, 128, (K, N)).astype(np.int8)
    c = np.full((M, N), -7, np.int32)
    run(dot_i8_kernel, (1,), a, np.ascontiguousarray(b if b_kn else b.T), c, M=M, N=N, K=K, B_KN=b_kn,
        num_warps=warps)
    np.testing.assert_array_equal(c, a.astype(np.int64) @ b.astype(np.int64))


@pytest.mark.parametrize("M,N,K", [(16, 16, 16), (32, 16, 64)])
def test_dot_of_float64_is_float64(M, N, K):
    """As Triton: f64 operands give an f64 product (the kernel's
    static_assert), exact to f64 rounding, not f32's."""
    a = rng.standard_normal((M, K))
    b = rng.standard_normal((K, N))
    c = np.full((M, N), np.nan)
    run(dot_f64_kernel, (1,), a, b, c, M=M, N=N, K=K)
    np.testing.assert_allclose(c, a @ b, rtol=1e-12, atol=1e-12)


@tritonc.jit
def dot_f64_kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.load(A + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(B + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    c = tl.dot(a, b)
    tl.static_assert(c.dtype == tl.float64)
    tl.store(C + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


# ---- atomics ------------------------------------------------------------------------------

@tritonc.jit
def atomic_kernel(P, V, OLD, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(V + tl.program_id(0) * BLOCK + offs, mask=m)
    if OP == "add":
        old = tl.atomic_add(P + offs, v, mask=m)
    elif OP == "max":
        old = tl.atomic_max(P + offs, v, mask=m)
    elif OP == "min":
        old = tl.atomic_min(P + offs, v, mask=m)
    elif OP == "xchg":
        old = tl.atomic_xchg(P + offs, v, mask=m, sem="acq_rel")
    elif OP == "and":
        old = tl.atomic_and(P + offs, v, mask=m)
    else:
        old = tl.atomic_or(P + offs, v, mask=m)
    tl.store(OLD + tl.program_id(0) * BLOCK + offs, old, mask=m)


ATOMIC_CASES = [(op, d) for op in ("add", "max", "min", "xchg") for d in ("int32", "float32")] + \
               [(op, "int32") for op in ("and", "or")] + [("add", "int64"), ("max", "int64"), ("add", "float16")]


@pytest.mark.parametrize("op,dtype", ATOMIC_CASES)
def test_atomics(op, dtype):
    programs, block, n = 4, 16, 13
    v = values(dtype, programs * block, small=True)
    p0 = values(dtype, block, small=True)
    p, old = p0.copy(), np.zeros(programs * block, dtype)
    run(atomic_kernel, (programs,), p, v, old, n, OP=op, BLOCK=block)
    vals = v.reshape(programs, block)[:, :n]
    if op == "xchg":
        # In whatever order the programs ran, each exchange returned what the
        # one before it left: per element, the old values and the final one
        # are the initial value and the exchanged ones.
        olds = old.reshape(programs, block)[:, :n]
        for j in range(n):
            np.testing.assert_array_equal(np.sort(np.append(olds[:, j], p[j])),
                                          np.sort(np.append(vals[:, j], p0[j])))
    else:
        fn = {"add": np.add, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or}[op]
        ref = p0[:n].astype(np.float64) if dtype.startswith("float") else p0[:n]
        for row in vals:
            ref = fn(ref, row)
        # f32 sums of values near 10 round at about 1e-6 each (f16: 1e-2, in
        # whatever order the programs added): absolute where they cancel to near 0
        tol = 3e-2 if dtype == "float16" else 1e-5
        np.testing.assert_allclose(p[:n].astype(np.float64), np.asarray(ref, np.float64), rtol=tol, atol=tol)
    np.testing.assert_array_equal(p[n:], p0[n:])  # masked lanes untouched


@tritonc.jit
def cas_tile_kernel(P, OLD, BLOCK: tl.constexpr):
    """Even lanes compare equal and swap in twice the value, odd ones not."""
    offs = tl.arange(0, BLOCK)
    cur = tl.load(P + offs)
    cmp = tl.where(offs % 2 == 0, cur, cur + 1).to(P.dtype.element_ty)
    tl.store(OLD + offs, tl.atomic_cas(P + offs, cmp, (cur * 2).to(P.dtype.element_ty)))


@pytest.mark.parametrize("dtype", ["int16", "float16", "int32", "float32", "int64"])
def test_atomic_cas_of_tiles(dtype):
    p0 = values(dtype, 32, small=True)
    p, old = p0.copy(), np.zeros(32, dtype)
    run(cas_tile_kernel, (1,), p, old, BLOCK=32)
    np.testing.assert_array_equal(old, p0)
    want = p0.copy()
    want[::2] = (p0[::2] * 2).astype(dtype)
    np.testing.assert_array_equal(p, want)


@tritonc.jit
def cas_kernel(LOCK, COUNT):
    # A spin lock: take it, count, release it.
    while tl.atomic_cas(LOCK, 0, 1) == 1:
        pass
    c = tl.load(COUNT)
    tl.store(COUNT, c + 1)
    tl.atomic_xchg(LOCK, 0)


def test_atomic_cas_spin_lock():
    lock, count = np.zeros(1, np.int32), np.zeros(1, np.int32)
    run(cas_kernel, (7,), lock, count)
    assert count[0] == 7 and lock[0] == 0


@tritonc.jit
def cas_product_kernel(OUT, SRC, IDX, N, BLOCK: tl.constexpr):
    # Products scattered by a compare-and-swap loop (FlagGems'
    # scatter_reduce): the value written is computed from the value the
    # swap expects, so both must be the same read of memory.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    s = tl.load(SRC + offs, mask=m, other=1.0)
    t = OUT + tl.load(IDX + offs, mask=m, other=0)
    done = ~m
    while tl.sum(done.to(tl.int32), axis=0) < BLOCK:
        cur = tl.load(t, mask=m, other=1.0)
        new = tl.where(done, cur, cur * s)
        done |= tl.atomic_cas(t, cur, new) == cur


def test_atomic_cas_loop_scatters_products():
    n, targets = 4000, 16
    src = rng.uniform(0.9, 1.1, n).astype(np.float32)
    idx = rng.integers(0, targets, n).astype(np.int32)
    out0 = rng.uniform(0.5, 2, targets).astype(np.float32)
    out = out0.copy()
    run(cas_product_kernel, (tritonc.cdiv(n, 128),), out, src, idx, n, BLOCK=128)
    want = out0.astype(np.float64)
    np.multiply.at(want, idx, src.astype(np.float64))
    np.testing.assert_allclose(out, want, rtol=1e-4)


# ---- control flow and functions ---------------------------------------------------------

@tritonc.jit
def _clamp_add(x, lo, hi):
    if lo > hi:
        return x  # an early return
    return tl.minimum(tl.maximum(x, lo), hi) + 1


@tritonc.jit
def control_kernel(X, Z, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0)
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    i = 0
    while i < 5:
        i += 1
        if i == 2:
            continue
        acc += x * i
    for j in tl.static_range(3):
        acc += j
    for k in range(10, 0, -3):  # a negative step
        acc -= k
    tl.store(Z + offs, _clamp_add(acc, lo, hi), mask=offs < n)


@pytest.mark.parametrize("lo,hi", [(-50, 50), (10, -10)])
def test_control_flow_and_inlined_calls(lo, hi):
    n = 20
    x = rng.integers(-10, 10, size=n).astype(np.int32)
    z = np.full(n, -7, np.int32)
    run(control_kernel, (1,), x, z, n, lo, hi, BLOCK=32)
    acc = x * (1 + 3 + 4 + 5) + 3 - (10 + 7 + 4 + 1)
    ref = acc if lo > hi else np.clip(acc, lo, hi) + 1
    np.testing.assert_array_equal(z, ref)


@tritonc.jit
def math_kernel(X, Z, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=1.0)
    if OP == "exp":
        z = tl.exp(x)
    elif OP == "exp2":
        z = tl.exp2(x)
    elif OP == "log":
        z = tl.log(tl.abs(x) + 1)
    elif OP == "log2":
        z = tl.log2(tl.abs(x) + 1)
    elif OP == "sqrt":
        z = tl.sqrt(tl.abs(x))
    elif OP == "rsqrt":
        z = tl.rsqrt(tl.abs(x) + 1)
    elif OP == "sin":
        z = tl.sin(x)
    elif OP == "cos":
        z = tl.cos(x)
    elif OP == "sigmoid":
        z = tl.sigmoid(x)
    elif OP == "erf":
        z = tl.erf(x)
    elif OP == "floor":
        z = tl.floor(x)
    elif OP == "ceil":
        z = tl.ceil(x)
    elif OP == "fma":
        z = tl.fma(x, x, 1.0)
    else:
        z = tl.math.abs(x)
    tl.store(Z + offs, z, mask=offs < n)


@pytest.mark.parametrize("op", ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "sigmoid", "erf",
                                "floor", "ceil", "fma", "abs"])
def test_math(op):
    import math
    n = 50
    x = (rng.standard_normal(n) * 2).astype(np.float32)
    z = np.full(n, np.nan, np.float32)
    run(math_kernel, (1,), x, z, n, OP=op, BLOCK=64)
    xd = x.astype(np.float64)
    ref = {"exp": np.exp(xd), "exp2": np.exp2(xd), "log": np.log(np.abs(xd) + 1), "log2": np.log2(np.abs(xd) + 1),
           "sqrt": np.sqrt(np.abs(xd)), "rsqrt": 1 / np.sqrt(np.abs(xd) + 1), "sin": np.sin(xd), "cos": np.cos(xd),
           "sigmoid": 1 / (1 + np.exp(-xd)), "erf": np.array([math.erf(v) for v in xd]), "floor": np.floor(xd),
           "ceil": np.ceil(xd), "fma": xd * xd + 1, "abs": np.abs(xd)}[op]
    np.testing.assert_allclose(z, ref, rtol=1e-5, atol=1e-6)


@tritonc.jit
def math64_kernel(X, Z, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    if OP == "exp":
        z = tl.exp(x)
    elif OP == "exp2":
        z = tl.exp2(x)
    elif OP == "log":
        z = tl.log(tl.abs(x))
    elif OP == "log2":
        z = tl.log2(tl.abs(x))
    elif OP == "rsqrt":
        z = tl.rsqrt(tl.abs(x))
    elif OP == "sin":
        z = tl.sin(x)
    elif OP == "cos":
        z = tl.cos(x)
    elif OP == "tanh":
        z = tl.extra.libdevice.tanh(x)
    elif OP == "sigmoid":
        z = tl.sigmoid(x)
    else:
        z = tl.erf(x)
    tl.store(Z + offs, z)


@pytest.mark.parametrize("op", ["exp", "exp2", "log", "log2", "rsqrt", "sin", "cos", "tanh", "sigmoid", "erf"])
def test_math_in_float64(op):
    """float64 functions keep float64's accuracy on every back end (on the
    GPU, whose instructions are float32, gpu-expand-f64-math computes them):
    within a few ulps of numpy over a wide range."""
    import math
    n = 1024
    x = np.concatenate([rng.uniform(-30, 30, n // 2), rng.standard_normal(n // 2) * 2])
    z = np.full(n, np.nan)
    run(math64_kernel, (1,), x, z, OP=op, BLOCK=n)
    ref = {"exp": np.exp(x), "exp2": np.exp2(x), "log": np.log(np.abs(x)), "log2": np.log2(np.abs(x)),
           "rsqrt": 1 / np.sqrt(np.abs(x)), "sin": np.sin(x), "cos": np.cos(x), "tanh": np.tanh(x),
           "sigmoid": 1 / (1 + np.exp(-x)), "erf": np.array([math.erf(v) for v in x])}[op]
    ulps = np.abs(z - ref) / np.spacing(np.abs(ref))
    assert ulps.max() <= 8, (ulps.max(), x[np.argmax(ulps)])


@tritonc.jit
def exp2_log2_kernel(X, E, L, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n)
    tl.store(E + offs, tl.exp2(x), mask=offs < n)
    tl.store(L + offs, tl.math.log2(tl.abs(x)), mask=offs < n)


def test_exp2_and_log2_are_their_own_functions(backend):
    """exp2 and log2 over [-140, 120] (attention's exp2 of scaled scores):
    within 2 units in the last place of float64's on the interpreter and
    the CPU back end (computed as exp(x ln 2) they were 60 off: the
    rounding of x ln 2 scales with |x|), within the GPU's approximate
    ex2 on CUDA (2 ulp, an absolute 2^-22 allowed near 0; ex2 flushes
    subnormal results to 0); log2 within 2 ulp on CUDA too since session 39
    (float32 arithmetic: lg2.approx's absolute error 2^-22 near 1, where
    log2 is near 0, was 17 ulp of a small result there)."""
    n = 1000
    x = rng.uniform(-140, 120, n).astype(np.float32)
    x[:4] = [0.0, 1.0, -1.0, 100.5]
    e = np.full(n, np.nan, np.float32)
    lg = np.full(n, np.nan, np.float32)
    run(exp2_log2_kernel, (1,), x, e, lg, n, BLOCK=1024)
    xd = x.astype(np.float64)
    for got, want in ((e, np.exp2(xd)), (lg, np.log2(np.abs(xd)))):
        normal = (np.abs(want) >= np.finfo(np.float32).tiny) & (np.abs(want) < 3e38)
        ulp = np.spacing(np.abs(want[normal]).astype(np.float32)).astype(np.float64)
        diff = np.abs(got[normal].astype(np.float64) - want[normal])
        err = diff / ulp
        if backend == "cuda" and got is e:
            err = np.where(diff <= 2.0 ** -22, 0.0, err)
        assert err.max() <= 2.0, (err.max(), x[normal][np.argmax(err)])
    assert e[0] == 1.0 and e[1] == 2.0 and e[2] == 0.5 and lg[1] == 0.0


@tritonc.jit
def _times_two_unless_one(x, N: tl.constexpr):
    if N == 1:
        return x
    tl.static_assert(N != 1, "compiled after a taken return")
    return x * 2


@tritonc.jit
def _factorial(n: tl.constexpr):
    if n <= 1:
        return 1
    return n * _factorial(n - 1)


@tritonc.jit
def guarded_kernel(Z, N: tl.constexpr):
    i = tl.arange(0, 4)
    tl.store(Z + i, _times_two_unless_one(i, N) + _factorial(N) * 100)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_code_after_a_taken_return_is_not_compiled(n):
    """A constexpr branch that returns guards what follows it (a static_assert
    that would fail, the step of a recursion over a constexpr): only the path
    taken is compiled, so recursion with a constexpr base case works."""
    import math
    z = np.full(4, -1, np.int32)
    run(guarded_kernel, (1,), z, N=n)
    np.testing.assert_array_equal(z, np.arange(4) * (1 if n == 1 else 2) + math.factorial(n) * 100)


def test_erf_is_accurate_relative_to_small_values():
    """tl.erf near 0 (where an absolute error bound is all of erf(x)): within
    about 2 ulp of float64's erf relative to the value, tiny values and
    -0.0's sign included; elsewhere within 6e-7."""
    import math
    tiny = np.array([1e-30, -1e-30, 1e-8, -3e-7, 1e-6, 1e-4, 1e-3, 0.01, 0.2, 0.4999, 0.5, 0.7, 2.0, -3.5, 6.0], np.float32)
    x = np.concatenate([tiny, (rng.standard_normal(48) * 0.6).astype(np.float32), np.array([-0.0], np.float32)])
    z = np.full(64, np.nan, np.float32)
    run(math_kernel, (1,), x, z, 64, OP="erf", BLOCK=64)
    ref = np.array([math.erf(float(v)) for v in x])
    near = np.abs(x) < 0.5
    np.testing.assert_allclose(z[near], ref[near], rtol=3e-7, atol=0)
    np.testing.assert_allclose(z[~near], ref[~near], rtol=6e-7, atol=0)
    assert np.signbit(z[-1]) and z[-1] == 0


@tritonc.jit
def batched_dot_kernel(A, B, C, NB: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    bi = tl.arange(0, NB)[:, None, None]
    a = tl.load(A + bi * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :])
    b = tl.load(B + bi * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(C + bi * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :], c)


@pytest.mark.parametrize("NB", [1, 2, 4])
def test_batched_dot(NB):
    M, N, K = 16, 32, 16
    a = rng.standard_normal((NB, M, K)).astype(np.float32)
    b = rng.standard_normal((NB, K, N)).astype(np.float32)
    c = np.full((NB, M, N), np.nan, np.float32)
    run(batched_dot_kernel, (1,), a, b, c, NB=NB, M=M, N=N, K=K)
    np.testing.assert_allclose(c, np.matmul(a.astype(np.float64), b.astype(np.float64)), rtol=1e-4, atol=1e-4)


@tritonc.jit
def narrow_sum_kernel(X, Z, T, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    s = tl.sum(x, axis=0)
    tl.static_assert(s.dtype == x.dtype)  # Triton keeps float16 and bfloat16
    c = tl.cumsum(x, axis=0)
    tl.static_assert(c.dtype == (tl.float32 if x.dtype == tl.bfloat16 else x.dtype))
    # a running total in the input's type, carried through a loop
    total = tl.zeros((1,), x.dtype)
    for i in range(2):
        total += tl.sum(x, axis=0)
    tl.store(Z + tl.arange(0, N), c)
    tl.store(T + tl.arange(0, 1), total)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_sum_and_cumsum_keep_narrow_float_types_as_triton(dtype):
    """tl.sum of float16 or bfloat16 is of that type, tl.cumsum of float16
    too (of bfloat16 float32), as in Triton 3.x; summed in float32 and
    rounded once, so within the type's rounding of the float64 sums."""
    N = 64
    x32 = (rng.random(N) - 0.5).astype(np.float32)
    if dtype == "float16":
        x = x32.astype(np.float16)
        xv = x.astype(np.float64)
        arg = x
    else:
        bits = (x32.view(np.uint32) >> 16).astype(np.uint16)
        xv = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        arg = tritonc.reinterpret(bits, tl.bfloat16)
    z = np.full(N, np.nan, np.float32)
    t = np.full(1, np.nan, np.float32)
    run(narrow_sum_kernel, (1,), arg, z, t, N=N)
    tol = 1e-2 if dtype == "float16" else 4e-2
    np.testing.assert_allclose(z, np.cumsum(xv), rtol=tol, atol=tol)
    np.testing.assert_allclose(t[0], 2 * xv.sum(), rtol=tol, atol=tol)
