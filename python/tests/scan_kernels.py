"""A kernel built on tl.cumsum, as users write it (run by tritonc and, in
bench/dsl_bench.py, by Triton 3.6 with the imports swapped): the running
sum of each row (one program per row; the row masked to the block)."""
import tritonc as triton
import tritonc.language as tl


@triton.jit
def row_cumsum(X, Y, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(Y + row * stride + cols, tl.cumsum(x, 0), mask=cols < n_cols)
