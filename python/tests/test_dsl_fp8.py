"""fp8 (tl.float8e4nv, tl.float8e5) in the Python DSL: loads, stores,
conversions to and from the other floats (round to nearest even, saturating
to the largest finite value), arithmetic (in float32, rounded back), tl.dot
of fp8 operands, reductions and where; on the back ends of
dsl_backends.language_backends() (CUDA: sm_89 and later). The arrays are
numpy bytes passed with tritonc.reinterpret; the reference formats are
decoded and rounded here from their definitions, independently of the
compiler's support/float8.cpp. Fresh inputs each run, outputs poisoned."""
import os
import sys

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402
import fp8_kernels  # noqa: E402

rng = np.random.default_rng()
backend = dsl_backends.suite_fixture()
run = dsl_backends.run

# (exponent bits, fraction bits, bias, IEEE-like specials, largest finite)
FORMATS = {"e4m3": (4, 3, 7, False, 448.0), "e5m2": (5, 2, 15, True, 57344.0)}
DTYPES = {"e4m3": tl.float8e4nv, "e5m2": tl.float8e5}


def decode(codes, fmt):
    """float64 values of fp8 codes (uint8)."""
    e_bits, f_bits, bias, ieee, _ = FORMATS[fmt]
    c = codes.astype(np.int64)
    sign = np.where(c & 0x80, -1.0, 1.0)
    e = (c >> f_bits) & ((1 << e_bits) - 1)
    m = c & ((1 << f_bits) - 1)
    top = (1 << e_bits) - 1
    normal = (1.0 + m / (1 << f_bits)) * np.exp2(e - bias)
    sub = (m / (1 << f_bits)) * np.exp2(1 - bias)
    v = np.where(e == 0, sub, normal)
    if ieee:
        v = np.where(e == top, np.where(m == 0, np.inf, np.nan), v)
    else:
        v = np.where((e == top) & (m == (1 << f_bits) - 1), np.nan, v)
    return sign * v


def encode(values, fmt):
    """fp8 codes of float64 values: nearest, ties to the even code, beyond
    the largest finite value (infinities too) the largest; NaN to 0x7f."""
    _, _, _, _, largest = FORMATS[fmt]
    codes = np.arange(256, dtype=np.uint8)
    table = decode(codes, fmt)
    finite = [c for c in range(128) if np.isfinite(table[c])]
    mags = table[finite]  # increasing with the code
    v = np.asarray(values, dtype=np.float64)
    a = np.minimum(np.abs(v), largest)
    hi = np.clip(np.searchsorted(mags, a), 0, len(mags) - 1)
    lo = np.clip(hi - 1, 0, len(mags) - 1)
    d_lo, d_hi = a - mags[lo], mags[hi] - a
    code_lo, code_hi = np.array(finite)[lo], np.array(finite)[hi]
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (code_hi % 2 == 0))
    out = np.where(pick_hi, code_hi, code_lo).astype(np.uint8)
    out = np.where(np.signbit(v), out | 0x80, out).astype(np.uint8)
    return np.where(np.isnan(v), np.uint8(0x7f), out).astype(np.uint8)


def same_values(got_codes, want_codes, fmt):
    """The codes decode to the same values (NaN matching NaN, of any sign)."""
    g, w = decode(got_codes, fmt), decode(want_codes, fmt)
    both_nan = np.isnan(g) & np.isnan(w)
    bad = ~both_nan & ((g != w) | (np.signbit(g) != np.signbit(w)))
    assert not bad.any(), "%d differ, first at %d: got %r (0x%02x), want %r (0x%02x)" % (
        bad.sum(), np.argmax(bad), g[bad][0], got_codes[bad][0], w[bad][0], want_codes[bad][0])


def wrap(codes, fmt):
    return triton.reinterpret(codes, DTYPES[fmt])


def test_reference_formats_are_what_the_standards_say():
    assert decode(np.array([0x7e, 0x08, 0x01, 0x38], np.uint8), "e4m3").tolist() == [448.0, 2**-6, 2**-9, 1.0]
    assert decode(np.array([0x7b, 0x7c, 0x04, 0x01, 0x3c], np.uint8), "e5m2").tolist() == \
        [57344.0, np.inf, 2**-14, 2**-16, 1.0]
    assert encode([1000.0, -np.inf, 1.0625, 1.1875], "e4m3").tolist() == [0x7e, 0xfe, 0x38, 0x3a]


@triton.jit
def widen_kernel(X, Y16, Y32, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    tl.store(Y16 + offs, x.to(tl.float16), mask=m)
    tl.store(Y32 + offs, x.to(tl.float32), mask=m)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_every_code_widens_exactly(fmt):
    codes = rng.permutation(np.arange(256, dtype=np.uint8))
    y16 = np.full(256, 7, np.float16)
    y32 = np.full(256, 7, np.float32)
    run(widen_kernel, (2,), wrap(codes, fmt), y16, y32, 256, BLOCK=128)
    want = decode(codes, fmt)
    np.testing.assert_array_equal(y32, want.astype(np.float32))
    np.testing.assert_array_equal(y16, want.astype(np.float16))


@triton.jit
def narrow_kernel(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    tl.store(Y + offs, x.to(Y.dtype.element_ty), mask=m)


def narrowing_inputs(fmt, n):
    """Values of every kind: ordinary, beyond the largest, subnormal, exact
    ties between neighbours, zeros, infinities and NaN."""
    _, _, _, _, largest = FORMATS[fmt]
    mags = decode(np.arange(128, dtype=np.uint8), fmt)
    mags = mags[np.isfinite(mags)]
    ties = (mags[:-1] + mags[1:]) / 2
    parts = [rng.standard_normal(n) * rng.choice([1e-3, 1.0, 30.0, largest], n),
             rng.choice(ties, n) * rng.choice([-1.0, 1.0], n),
             rng.uniform(-2 * largest, 2 * largest, n),
             np.array([0.0, -0.0, np.inf, -np.inf, np.nan, largest, -largest, mags[1] / 2, mags[1] / 4])]
    return rng.permutation(np.concatenate(parts))


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
@pytest.mark.parametrize("src", [np.float32, np.float16])
def test_narrowing_rounds_to_nearest_even_and_saturates(fmt, src):
    with np.errstate(over="ignore"):  # beyond float16's range: its infinities, which saturate too
        x = narrowing_inputs(fmt, 300).astype(src)
    y = np.full(x.size, 0x55, np.uint8)
    run(narrow_kernel, (triton.cdiv(x.size, 256),), x, wrap(y, fmt), x.size, BLOCK=256)
    same_values(y, encode(x.astype(np.float64), fmt), fmt)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_narrowing_from_float64_rounds_once(fmt):
    """Values a hair (far below float32's resolution) off the ties between
    neighbours: rounding through float32 first would land on the tie."""
    mags = decode(np.arange(128, dtype=np.uint8), fmt)
    mags = mags[np.isfinite(mags)]
    ties = (mags[:-1] + mags[1:]) / 2
    n = 256
    t = rng.choice(ties[ties > 0], n)
    x = t * (1 + rng.choice([-1.0, 1.0], n) * 2.0 ** -40) * rng.choice([-1.0, 1.0], n)
    y = np.full(n, 0x55, np.uint8)
    run(narrow_kernel, (1,), x, wrap(y, fmt), n, BLOCK=256)
    same_values(y, encode(x, fmt), fmt)


@pytest.mark.parametrize("src,dst", [("e4m3", "e5m2"), ("e5m2", "e4m3")])
def test_between_formats(src, dst):
    codes = np.arange(256, dtype=np.uint8)
    y = np.full(256, 0x55, np.uint8)
    run(narrow_kernel, (1,), wrap(codes, src), wrap(y, dst), 256, BLOCK=256)
    same_values(y, encode(decode(codes, src), dst), dst)


@triton.jit
def arith_kernel(X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    y = tl.load(Y + offs, mask=m)
    z = tl.where(x > y, x * 2.0 + 1.0, -y)
    tl.store(Z + offs, z, mask=m)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_arithmetic_is_float32_rounded_back(fmt):
    n = 200
    finite = np.array([c for c in range(256) if np.isfinite(decode(np.array([c], np.uint8), fmt)[0])], np.uint8)
    x, y = rng.choice(finite, n), rng.choice(finite, n)
    z = np.full(256, 0x55, np.uint8)
    run(arith_kernel, (1,), wrap(x, fmt), wrap(y, fmt), wrap(z, fmt), n, BLOCK=256)
    dx, dy = decode(x, fmt), decode(y, fmt)
    twice = decode(encode(dx * 2.0, fmt), fmt)
    want = np.where(dx > dy, encode(twice + 1.0, fmt), encode(-dy, fmt))
    same_values(z[:n], want, fmt)


@triton.jit
def dot_kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(A + rm[:, None] * K + rk[None, :])
    b = tl.load(B + rk[:, None] * N + rn[None, :])
    tl.store(C + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@pytest.mark.parametrize("fa,fb", [("e4m3", "e4m3"), ("e5m2", "e5m2"), ("e4m3", "e5m2")])
def test_dot_of_fp8(fa, fb):
    m, n, k = 32, 64, 32

    def operand(fmt, count):  # values of modest size, so that f32 sums stay close to the f64 ones
        codes = encode(rng.standard_normal(count) * 2.0, fmt)
        return codes
    a, b = operand(fa, m * k), operand(fb, k * n)
    c = np.full(m * n, np.nan, np.float32)
    run(dot_kernel, (1,), wrap(a, fa), wrap(b, fb), c, m, n, k)
    want = decode(a, fa).reshape(m, k) @ decode(b, fb).reshape(k, n)
    np.testing.assert_allclose(c.reshape(m, n), want, rtol=1e-5, atol=1e-4)


@triton.jit
def matmul_kernel(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The tutorials' masked matmul, on fp8 operands (as their FP8 variant)."""
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(A + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(B + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * N + rn[None, :], acc.to(C.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_masked_matmul_of_fp8(fmt):
    m, n, k = 40, 48, 72
    a = encode(rng.standard_normal(m * k), fmt)
    b = encode(rng.standard_normal(k * n), fmt)
    c = np.full(m * n, np.nan, np.float32)
    run(matmul_kernel, (triton.cdiv(m, 32), triton.cdiv(n, 32)), wrap(a, fmt), wrap(b, fmt), c, m, n, k,
        BM=32, BN=32, BK=32)
    want = decode(a, fmt).reshape(m, k) @ decode(b, fmt).reshape(k, n)
    np.testing.assert_allclose(c.reshape(m, n), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("fa,fb", [("e4m3", "e4m3"), ("e5m2", "e4m3")])
def test_masked_matmul_of_k_contiguous_fp8(fa, fb):
    m, n, k = 100, 80, 96
    a = encode(rng.standard_normal(m * k), fa)
    bt = encode(rng.standard_normal(n * k), fb)  # B as the transpose of [n, k]: strides (1, k)
    c = np.full(m * n, np.nan, np.float32)
    run(fp8_kernels.matmul_fp8, (triton.cdiv(m, 64), triton.cdiv(n, 64)), wrap(a, fa), wrap(bt, fb), c, m, n, k,
        k, 1, 1, k, n, 1, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    want = decode(a, fa).reshape(m, k) @ decode(bt, fb).reshape(n, k).T
    # Hopper's fp8 tensor cores add the products with fewer bits than f32.
    tol = 2e-3 * np.sqrt(k) if dsl_backends.current() == "cuda" else 1e-4
    np.testing.assert_allclose(c.reshape(m, n), want, rtol=1e-3 if dsl_backends.current() == "cuda" else 1e-5,
                               atol=tol)


@triton.jit
def matmul_trans_kernel(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """B stored [N, K] and used as tl.trans(b): K-contiguous both, the way
    fp8 weights are usually laid out."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(A + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(B + rn[:, None] * K + kk[None, :], mask=(rn[:, None] < N) & (kk[None, :] < K), other=0.0)
        acc = tl.dot(a, tl.trans(b), acc)
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_masked_matmul_with_transposed_fp8_weights():
    m, n, k = 70, 90, 96
    a = encode(rng.standard_normal(m * k), "e4m3")
    b = encode(rng.standard_normal(n * k), "e5m2")  # [n, k]
    c = np.full(m * n, np.nan, np.float32)
    run(matmul_trans_kernel, (triton.cdiv(m, 64), triton.cdiv(n, 64)), wrap(a, "e4m3"), wrap(b, "e5m2"), c, m, n, k,
        BM=64, BN=64, BK=32)
    want = decode(a, "e4m3").reshape(m, k) @ decode(b, "e5m2").reshape(n, k).T
    cuda = dsl_backends.current() == "cuda"
    np.testing.assert_allclose(c.reshape(m, n), want, rtol=1e-3 if cuda else 1e-5,
                               atol=2e-3 * np.sqrt(k) if cuda else 1e-4)


@triton.jit
def reduce_kernel(X, Y, R: tl.constexpr, C: tl.constexpr):
    x = tl.load(X + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :])
    tl.store(Y + tl.arange(0, R), tl.max(x, axis=1))
    tl.store(Y + R + tl.arange(0, R), tl.sum(x, axis=1))


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_reductions(fmt):
    r, c = 8, 16
    x = encode(rng.standard_normal(r * c), fmt)
    y = np.full(2 * r, 0x55, np.uint8)
    run(reduce_kernel, (1,), wrap(x, fmt), wrap(y, fmt), r, c)
    d = decode(x, fmt).reshape(r, c)
    same_values(y[:r], encode(d.max(axis=1), fmt), fmt)
    # The sum in float32 (exact here: few terms of 3 or 2 fraction bits), rounded once.
    same_values(y[r:], encode(d.sum(axis=1), fmt), fmt)


@triton.jit
def constant_kernel(Y, V: tl.constexpr, BLOCK: tl.constexpr):
    tl.store(Y + tl.arange(0, BLOCK), tl.full((BLOCK,), V, Y.dtype.element_ty))


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_constants_round_once(fmt):
    v = float(rng.choice([0.3, -5.5, 1e6, 1.0625]))
    y = np.zeros(16, np.uint8)
    run(constant_kernel, (1,), wrap(y, fmt), v, 16)
    same_values(y, np.full(16, encode([v], fmt)[0], np.uint8), fmt)


@triton.jit
def int_cast_kernel(X, I, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    tl.store(I + offs, x.to(tl.int32))  # through float32: truncated toward zero
    tl.store(Z + offs, tl.load(I + N + offs).to(Z.dtype.element_ty))


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_conversions_to_and_from_integers_go_through_float32(fmt):
    n = 64
    x = encode(rng.standard_normal(n) * 40, fmt)
    ints = np.concatenate([np.full(n, -7, np.int32), rng.integers(-500, 500, n).astype(np.int32)])
    z = np.full(n, 0x55, np.uint8)
    run(int_cast_kernel, (1,), wrap(x, fmt), ints, wrap(z, fmt), n)
    np.testing.assert_array_equal(ints[:n], np.trunc(decode(x, fmt)).astype(np.int32))
    same_values(z, encode(ints[n:].astype(np.float64), fmt), fmt)


@triton.jit
def rtz_kernel(X, Y, MODE: tl.constexpr):
    tl.store(Y, tl.load(X).to(tl.float8e4nv, fp_downcast_rounding=MODE))


def test_round_toward_zero_to_fp8_is_refused_not_ignored():
    """'rtz' narrows to float16, bfloat16 and float32 (test_dsl_compat), not to fp8; other modes are errors."""
    with pytest.raises(triton.CompilationError, match="fp_downcast_rounding='rtz' to tl.float8e4nv is not supported"):
        run(rtz_kernel, (1,), np.zeros(1, np.float32), wrap(np.zeros(1, np.uint8), "e4m3"), MODE="rtz")
    with pytest.raises(triton.CompilationError, match="fp_downcast_rounding must be 'rtne' or 'rtz', not 'rtp'"):
        run(rtz_kernel, (1,), np.zeros(1, np.float32), wrap(np.zeros(1, np.uint8), "e4m3"), MODE="rtp")


@triton.jit
def print_kernel(X, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.device_print("fp8", tl.load(X + offs))
    tl.device_print("ptr", X)


def test_prints_of_fp8_values_and_pointers(capfd):
    if dsl_backends.current() == "cuda":
        pytest.skip("device printf output is the CUDA driver's")
    x = encode(np.array([1.5, -2.0]), "e4m3")
    run(print_kernel, (1,), wrap(x, "e4m3"), 2)
    out = capfd.readouterr().out
    assert "fp8: 1.5" in out and "fp8: -2" in out and "ptr:" in out, out


@triton.jit
def atomic_kernel(X):
    tl.atomic_add(X + tl.arange(0, 16), 1.0)


def test_atomics_refuse_fp8():
    with pytest.raises(triton.CompilationError, match="atomics do not take fp8"):
        run(atomic_kernel, (1,), wrap(np.zeros(16, np.uint8), "e4m3"))


@triton.jit
def other_fp8_kernel(X):
    tl.store(X, tl.load(X).to(tl.float8e4b15))


def test_other_fp8_formats_are_refused():
    with pytest.raises(triton.CompilationError, match="float8e4b15 is not supported"):
        run(other_fp8_kernel, (1,), np.zeros(4, np.float32))


def test_reinterpret_checks_the_element_size():
    with pytest.raises(TypeError, match="bytes"):
        triton.reinterpret(np.zeros(4, np.float32), tl.float8e4nv)
    codes = np.zeros((4, 6), np.uint8)
    w = triton.reinterpret(codes, tl.float8e5)
    assert triton.reinterpret(w, tl.uint8) is codes
    assert w.stride() == (6, 1) and w.dim() == 2 and w.ndim == 2
