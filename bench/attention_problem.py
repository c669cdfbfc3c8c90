# One fused-attention problem for the benchmarks (bench/shapes.py,
# bench/switch_ab.py): random f16 q, k, v of (batch, heads, length, head dim)
# and the float64 reference output of the first two heads of the first batch
# entry (the whole would take gigabytes), causal or not.
import math

import torch


def attention_problem(batch, heads, length, dim, causal, dev):
    """(q, k, v, scale, ref): ref is softmax(q k^T scale) v in float64 over
    q[:1, :2], with the keys after each query masked out when causal."""
    q, k, v = (torch.randn(batch, heads, length, dim, device=dev, dtype=torch.float16) for _ in range(3))
    scale = 1 / math.sqrt(dim)
    qs, ks, vs = (t[:1, :2].double() for t in (q, k, v))
    s = qs @ ks.transpose(-1, -2) * scale
    if causal:
        s = s.masked_fill(torch.ones(length, length, device=dev, dtype=torch.bool).triu(1), float("-inf"))
    return q, k, v, scale, torch.softmax(s, -1) @ vs
