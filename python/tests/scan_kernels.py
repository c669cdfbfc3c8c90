"""Kernels built on tl.cumsum and tl.associative_scan, as users write them
(run by tritonc and, in bench/dsl_bench.py, by Triton 3.6 with the imports
swapped): the running sum of each row, and a linear recurrence along each
row (one program per row; the row masked to the block)."""
import tritonc as triton
import tritonc.language as tl


@triton.jit
def row_cumsum(X, Y, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(Y + row * stride + cols, tl.cumsum(x, 0), mask=cols < n_cols)


@triton.jit
def first_order(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def row_recurrence(A, B, H, n_cols, stride, BLOCK: tl.constexpr):
    """h[t] = a[t] * h[t - 1] + b[t] along each row (Mamba's selective scan
    for one channel): a scan of the pairs (a, b), padded with (1, 0)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    a = tl.load(A + row * stride + cols, mask=m, other=1.0)
    b = tl.load(B + row * stride + cols, mask=m, other=0.0)
    _, h = tl.associative_scan((a, b), 0, first_order)
    tl.store(H + row * stride + cols, h, mask=m)
