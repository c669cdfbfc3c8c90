"""tl.randint / rand / randn (Philox, as Triton 3.x's tl.random) against a
numpy implementation of Philox 4x32-10 and 4x64-10 written here from the
paper's definition (Salmon et al., SC 2011), so that the bits are Triton's;
and Triton's tutorial dropout kernel (low-memory dropout). Fresh seeds and
inputs each run, outputs poisoned; on the back ends of
dsl_backends.language_backends()."""
import os
import sys

import numpy as np
import pytest

import tritonc
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()
backend = dsl_backends.suite_fixture()  # each test on each back end of language_backends()
run = dsl_backends.run


# ---- the reference ---------------------------------------------------------------

def philox(seed, counters, bits=32, rounds=10):
    """Philox 4xW-R of the four counter arrays under the key from `seed`."""
    mask = (1 << bits) - 1
    if bits == 32:
        mul, inc = (0xD2511F53, 0xCD9E8D57), (0x9E3779B9, 0xBB67AE85)
        k = [seed & mask, (seed >> 32) & mask]
    else:
        mul, inc = (0xD2E7470EE14C6C93, 0xCA5A826395121157), (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)
        k = [seed & mask, 0]
    out = []
    for lane in zip(*[np.asarray(c).astype(np.int64).tolist() for c in counters]):
        c = [x & mask for x in lane]
        k0, k1 = k
        for _ in range(rounds):
            pa, pb = mul[0] * c[0], mul[1] * c[2]
            c = [(pb >> bits) ^ c[1] ^ k0, pb & mask, (pa >> bits) ^ c[3] ^ k1, pa & mask]
            k0, k1 = (k0 + inc[0]) & mask, (k1 + inc[1]) & mask
        out.append(c)
    dt = np.uint32 if bits == 32 else np.uint64
    return [np.array([o[i] for o in out], dtype=dt) for i in range(4)]


def to_uniform(bits):
    """Random bits to float32 in [0, 1), as Triton's uint_to_uniform_float."""
    if bits.dtype == np.uint32:
        x = bits.view(np.int32).astype(np.int64)
        scale = np.float32(4.6566127342e-10)
    else:
        x = bits.view(np.int64)
        scale = np.float32(1.0842020432385337e-19)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * scale


# ---- kernels ---------------------------------------------------------------------

@tritonc.jit
def random_kernel(O, I4, U, N, seed, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if WIDE:
        offs = offs.to(tl.int64) + 5_000_000_000  # 64-bit offsets: both halves count (Philox 4x32)
    r0, r1, r2, r3 = tl.randint4x(seed, offs)
    lanes = tl.arange(0, BLOCK)
    base = tl.program_id(0) * BLOCK * 4
    tl.store(I4 + base + lanes * 4, r0)
    tl.store(I4 + base + lanes * 4 + 1, r1)
    tl.store(I4 + base + lanes * 4 + 2, r2)
    tl.store(I4 + base + lanes * 4 + 3, r3)
    o = tl.program_id(0) * BLOCK + lanes
    tl.store(O + o, tl.randint(seed, offs))
    tl.store(U + o, tl.rand(seed, offs))
    tl.store(N + o, tl.randn(seed, offs))


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("seed_kind", ["small", "large"])
def test_philox_bits_uniforms_normals(wide, seed_kind):
    block, programs = 64, 3
    n = block * programs
    seed = int(rng.integers(0, 2**31)) if seed_kind == "small" else int(rng.integers(2**32, 2**62))
    dt = np.uint32  # (64-bit offsets too, as Triton 3.6)
    o = np.full(n, 7, dt)
    i4 = np.full(4 * n, 7, dt)
    u = np.full(n, np.nan, np.float32)
    z = np.full(n, np.nan, np.float32)
    run(random_kernel, (programs,), o, i4, u, z, seed, BLOCK=block, WIDE=wide)
    offs = np.arange(n, dtype=np.int64) + (5_000_000_000 if wide else 0)
    zero = np.zeros(n, np.int64)
    want = philox(seed, [offs & 0xFFFFFFFF, offs >> 32, zero, zero], bits=32)
    np.testing.assert_array_equal(i4.reshape(n, 4), np.stack(want, axis=1))
    np.testing.assert_array_equal(o, want[0])
    np.testing.assert_array_equal(u, to_uniform(want[0]))
    assert (u >= 0).all() and (u < 1).all()
    u1 = np.maximum(np.float32(1e-7), to_uniform(want[0])).astype(np.float64)
    u2 = to_uniform(want[1]).astype(np.float64)
    normal = np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * u2)
    np.testing.assert_allclose(z, normal, rtol=1e-4, atol=1e-4)


# Triton's tutorial 04 (low-memory dropout), verbatim but for the import.
@tritonc.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    # compute memory offsets of elements handled by this instance
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # load data from x
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # randomly prune it
    random = tl.rand(seed, offsets)
    x_keep = random > p
    # write-back
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def test_seeded_dropout_is_reproducible_and_tritons():
    n, p = 1000, 0.4
    x = rng.standard_normal(n).astype(np.float32)
    seed = int(rng.integers(0, 2**31))
    outs = []
    for _ in range(2):
        out = np.full(n, np.nan, np.float32)
        run(_seeded_dropout, (triton_cdiv(n, 256),), x, out, n, p, seed, BLOCK_SIZE=256)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])  # the same seed drops the same elements
    zero = np.zeros(n, np.int64)
    keep = to_uniform(philox(seed, [np.arange(n), zero, zero, zero])[0]) > np.float32(p)
    want = np.where(keep, x / np.float32(1 - p), np.float32(0))
    np.testing.assert_allclose(outs[0], want, rtol=1e-6)
    assert 0.5 < keep.mean() < 0.7  # about 1 - p kept


def triton_cdiv(a, b):
    return tritonc.cdiv(a, b)


@tritonc.jit
def philox64_kernel(O, seed, BLOCK: tl.constexpr):
    c = tl.arange(0, BLOCK).to(tl.uint64) + 5_000_000_000
    zero = c * 0
    r0, r1, r2, r3 = tl.philox(seed, c, zero, zero, zero)
    lanes = tl.arange(0, BLOCK) * 4
    tl.store(O + lanes, r0)
    tl.store(O + lanes + 1, r1)
    tl.store(O + lanes + 2, r2)
    tl.store(O + lanes + 3, r3)


def test_philox_of_64_bit_counters_is_philox_4x64():
    """tl.philox itself takes 64-bit counters to Philox 4x64 (randint and
    rand split 64-bit offsets into two 32-bit counters instead)."""
    n = 32
    seed = int(rng.integers(0, 2**62))
    o = np.full(4 * n, 7, np.uint64)
    run(philox64_kernel, (1,), o, seed, BLOCK=n)
    c = np.arange(n, dtype=np.int64) + 5_000_000_000
    zero = np.zeros(n, np.int64)
    np.testing.assert_array_equal(o.reshape(n, 4), np.stack(philox(seed, [c, zero, zero, zero], bits=64), axis=1))
