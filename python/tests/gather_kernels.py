"""Kernels built on tl.gather, as users write them (run by tritonc and, in
bench/dsl_bench.py, by Triton 3.6 with the imports swapped):

- gather_rows: each row's elements permuted by that row's indices
  (out[m, k] = x[m, idx[m, k]]: a per-row shuffle, as MoE routing and
  sparse attention layouts do inside a tile);
- codebook_dequant: 4-bit codes looked up in a 16-entry table (NF4-style
  dequantization), scaled per block of 64."""
import tritonc as triton
import tritonc.language as tl


@triton.jit
def gather_rows(X, I, O, M, N: tl.constexpr, K: tl.constexpr, BLOCK_M: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    inside = rows[:, None] < M
    x = tl.load(X + rows[:, None] * N + tl.arange(0, N)[None, :], mask=inside, other=0.0)
    offs = rows[:, None] * K + tl.arange(0, K)[None, :]
    idx = tl.load(I + offs, mask=inside, other=0)
    tl.store(O + offs, tl.gather(x, idx, axis=1), mask=inside)


@triton.jit
def codebook_dequant(CODES, TABLE, SCALES, O, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    codes = tl.load(CODES + offs, mask=inside, other=0)
    table = tl.load(TABLE + tl.arange(0, 16))
    scale = tl.load(SCALES + offs // 64, mask=inside, other=0.0)
    values = tl.gather(table, codes.to(tl.int32), axis=0)
    tl.store(O + offs, (values.to(tl.float32) * scale).to(O.dtype.element_ty), mask=inside)
