"""tl.dot_scaled (microscaling formats) against numpy: operands decoded here
independently of the compiler (fp4 e2m1 from its table, fp8 e4m3/e5m2 from
their bit fields), scaled by 2^(s - 127) per 32 elements of K, multiplied
in float64. Fresh random bits each run, outputs poisoned; on the back ends
of dsl_backends.language_backends()."""
import os
import sys

import numpy as np
import pytest

import tritonc
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()
backend = dsl_backends.suite_fixture()
run = dsl_backends.run


@tritonc.jit
def dot_scaled_kernel(A, AS, B, BS, C, ACC, AR: tl.constexpr, AC: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr,
                      M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, LF: tl.constexpr, RF: tl.constexpr,
                      LPACK: tl.constexpr, RPACK: tl.constexpr, LSCALE: tl.constexpr, RSCALE: tl.constexpr,
                      FAST: tl.constexpr, WITH_ACC: tl.constexpr):
    a = tl.load(A + tl.arange(0, AR)[:, None] * AC + tl.arange(0, AC)[None, :])
    b = tl.load(B + tl.arange(0, BR)[:, None] * BC + tl.arange(0, BC)[None, :])
    ks = tl.arange(0, K // 32)
    a_scale = None
    b_scale = None
    if LSCALE:
        a_scale = tl.load(AS + tl.arange(0, M)[:, None] * (K // 32) + ks[None, :])
    if RSCALE:
        b_scale = tl.load(BS + tl.arange(0, N)[:, None] * (K // 32) + ks[None, :])
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    if WITH_ACC:
        c = tl.dot_scaled(a, a_scale, LF, b, b_scale, RF, acc=tl.load(ACC + offs), fast_math=FAST, lhs_k_pack=LPACK,
                          rhs_k_pack=RPACK)
    else:
        c = tl.dot_scaled(a, a_scale, LF, b, b_scale, RF, fast_math=FAST, lhs_k_pack=LPACK, rhs_k_pack=RPACK)
    tl.store(C + offs, c)


E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def e2m1(n):
    return np.where(n & 8, -1.0, 1.0) * E2M1[n & 7]


def fp8(bits, exp_bits, man_bits):
    bits = bits.astype(np.int64)
    bias = 2 ** (exp_bits - 1) - 1
    e, m = (bits >> man_bits) & (2 ** exp_bits - 1), bits & (2 ** man_bits - 1)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    mag = np.where(e == 0, m / 2.0 ** man_bits * 2.0 ** (1 - bias), (1 + m / 2.0 ** man_bits) * 2.0 ** (e - bias))
    return sign * mag


def operand(fmt, rows, cols, pack_rows):
    """Random bits of an operand of logical shape rows x cols: (what the
    kernel loads, float64 values)."""
    if fmt == "e2m1":
        n = rng.integers(0, 16, size=(rows, cols)).astype(np.uint8)
        if pack_rows:
            packed = n[0::2, :] | (n[1::2, :] << 4)
        else:
            packed = n[:, 0::2] | (n[:, 1::2] << 4)
        return packed.astype(np.uint8), e2m1(n)
    if fmt in ("e4m3", "e5m2"):
        e, m = (4, 3) if fmt == "e4m3" else (5, 2)
        bits = rng.integers(0, 256, size=(rows, cols)).astype(np.uint8)
        if fmt == "e4m3":
            bits[(bits & 0x7F) == 0x7F] = 0x3C  # no NaN
        else:
            bits[(bits & 0x7C) == 0x7C] = 0x3C  # no inf or NaN
        return bits, fp8(bits, e, m)
    dt = np.float16 if fmt == "fp16" else np.float32
    x = rng.standard_normal((rows, cols)).astype(dt)
    if fmt == "bf16":  # bfloat16 bits: the high half of float32's, numpy has no bfloat16
        hi = (x.view(np.uint32) >> 16).astype(np.uint16)
        return hi, (hi.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return x.view(np.uint16), x.astype(np.float64)


CASES = [("e4m3", "e4m3", True, True), ("e5m2", "e4m3", True, True), ("e2m1", "e2m1", True, True),
         ("e2m1", "e4m3", False, True), ("e4m3", "e2m1", True, False), ("e2m1", "e2m1", False, False),
         ("bf16", "e2m1", True, True), ("fp16", "fp16", True, True), ("e5m2", "bf16", True, True),
         ("e4m3", "fp16", True, True), ("fp16", "e2m1", True, True)]


@pytest.mark.parametrize("lf,rf,lpack,rpack", CASES)
@pytest.mark.parametrize("scales", ["both", "lhs", "none"])
def test_dot_scaled_matches_numpy(lf, rf, lpack, rpack, scales):
    M, N, K = 32, 16, 64
    a_bits, a = operand(lf, M, K, pack_rows=not lpack)  # lhs packed along K: its columns
    b_bits, b = operand(rf, K, N, pack_rows=rpack)      # rhs packed along K: its rows
    # (with a float16 operand the product is taken in float16, as Triton's:
    # scales within 2^-3..2^4 keep the scaled values in its range)
    lo, hi = (124, 132) if "fp16" in (lf, rf) else (118, 136)
    sa = rng.integers(lo, hi, size=(M, K // 32)).astype(np.uint8)
    sb = rng.integers(lo, hi, size=(N, K // 32)).astype(np.uint8)
    # (bf16 and fp16 operands take no scales)
    with_a = scales in ("both", "lhs") and lf not in ("bf16", "fp16")
    with_b = scales == "both" and rf not in ("bf16", "fp16")
    a_scaled = a * (np.repeat(2.0 ** (sa.astype(np.float64) - 127), 32, axis=1) if with_a else 1.0)
    b_scaled = b * (np.repeat(2.0 ** (sb.astype(np.float64) - 127), 32, axis=1).T if with_b else 1.0)
    # Rounded to bfloat16, as Triton's emulation does, unless an operand is
    # float16 (then to float16: exact for these values)
    if "fp16" in (lf, rf):
        a_scaled, b_scaled = a_scaled.astype(np.float16).astype(np.float64), b_scaled.astype(np.float16).astype(np.float64)
    else:
        a_scaled, b_scaled = round_bf16(a_scaled), round_bf16(b_scaled)
    want = a_scaled @ b_scaled
    c = np.full((M, N), np.nan, np.float32)
    acc = np.zeros((M, N), np.float32)
    run(dot_scaled_kernel, (1,), a_bits, sa, b_bits, sb, c, acc, AR=a_bits.shape[0], AC=a_bits.shape[1],
        BR=b_bits.shape[0], BC=b_bits.shape[1], M=M, N=N, K=K, LF=lf, RF=rf, LPACK=lpack, RPACK=rpack,
        LSCALE=with_a, RSCALE=with_b, FAST=False, WITH_ACC=False)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def round_bf16(x):
    """Round to nearest even to bfloat16 (float64 in, float64 out)."""
    f = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    f = (f + 0x7FFF + ((f >> 16) & 1)) >> 16 << 16
    return f.astype(np.uint32).view(np.float32).astype(np.float64)


def test_dot_scaled_accumulates_and_maps_scale_255_to_nan():
    M, N, K = 16, 16, 64
    a_bits, a = operand("e4m3", M, K, pack_rows=False)
    b_bits, b = operand("e2m1", K, N, pack_rows=True)
    sa = rng.integers(120, 134, size=(M, K // 32)).astype(np.uint8)
    sb = rng.integers(120, 134, size=(N, K // 32)).astype(np.uint8)
    sa[3, 1] = 255  # row 3 of lhs: NaN
    sa[5, 0] = 0    # 2^-127 reads as 0 (as Triton's emulation)
    acc = rng.standard_normal((M, N)).astype(np.float32)
    c = np.full((M, N), -7.0, np.float32)
    run(dot_scaled_kernel, (1,), a_bits, sa, b_bits, sb, c, acc, AR=M, AC=K, BR=K // 2, BC=N, M=M, N=N, K=K,
        LF="e4m3", RF="e2m1", LPACK=True, RPACK=True, LSCALE=True, RSCALE=True, FAST=False, WITH_ACC=True)
    fa = 2.0 ** (sa.astype(np.float64) - 127)
    fa[5, 0] = 0.0
    fa[3, 1] = 1.0
    want = (a * np.repeat(fa, 32, axis=1)) @ (b * np.repeat(2.0 ** (sb.astype(np.float64) - 127), 32, axis=1).T) + acc
    rows = np.arange(M) != 3
    np.testing.assert_allclose(c[rows], want[rows], rtol=1e-5, atol=1e-5 * np.abs(want).max())
    assert np.isnan(c[3]).all()


@tritonc.jit
def bad_format_kernel(A, C):
    a = tl.load(A + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    tl.store(C + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :],
             tl.dot_scaled(a, None, "e3m2", tl.trans(a), None, "e4m3"))


@tritonc.jit
def unpacked_k_kernel(A, C):
    a = tl.load(A + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    tl.store(C + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :],
             tl.dot_scaled(a, None, "e4m3", tl.trans(a), None, "e4m3", lhs_k_pack=False))


def test_dot_scaled_refuses_what_it_does_not_take():
    a, c = np.zeros((16, 32), np.uint8), np.zeros((16, 16), np.float32)
    with pytest.raises(tl.CompileError, match="lhs_format must be one of e2m1, e4m3, e5m2, bf16, fp16"):
        run(bad_format_kernel, (1,), a, c)
    with pytest.raises(tl.CompileError, match="only e2m1 operands are packed along a dimension other than K"):
        run(unpacked_k_kernel, (1,), a, c)
