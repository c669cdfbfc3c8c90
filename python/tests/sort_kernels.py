"""Kernels built on tl.sort and tl.topk, as users write them (run by
tritonc and, in bench/dsl_bench.py, by Triton 3.6 with the imports
swapped): each row sorted, and each row's K largest (one program per row;
the row masked to the block, padded with what sorts last)."""
import tritonc as triton
import tritonc.language as tl


@triton.jit
def row_sort(X, Y, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < n_cols, other=float("inf"))
    tl.store(Y + row * stride + cols, tl.sort(x), mask=cols < n_cols)


@triton.jit
def row_topk(X, Y, n_cols, stride, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < n_cols, other=float("-inf"))
    tl.store(Y + row * K + tl.arange(0, K), tl.topk(x, K))
