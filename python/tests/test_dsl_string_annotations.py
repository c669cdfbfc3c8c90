"""Annotations as strings (`from __future__ import annotations`, as many
projects write): `n: tl.int64` and `s: tl.float64` still type the
parameters (Triton reads the strings), and `BLOCK: tl.constexpr` is still a
constexpr; on the interpreter and the CPU back end."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402


@pytest.fixture(params=dsl_backends.available(cuda=False))
def backend(request, monkeypatch):
    return dsl_backends.use(monkeypatch, request.param)


@triton.jit
def row_offset(o_ptr, stride: tl.int64, scale: tl.float64, BLOCK: tl.constexpr):
    row = tl.program_id(0) + 100_000
    tl.store(o_ptr + tl.arange(0, BLOCK), row * stride + tl.zeros((BLOCK,), tl.int64))
    tl.store(o_ptr + BLOCK, (scale * 3.0 * (1 << 40)).to(tl.int64))


def test_string_annotations_type_the_parameters(backend):
    stride = 40_000 + int(np.random.default_rng().integers(0, 20_000))
    o = np.full(5, -1, np.int64)
    row_offset[(1,)](o, stride, 1.0 + 2.0 ** -40, BLOCK=4)
    # int64: 100000 * stride passes 2^31; float64: 1 + 2^-40 is not a float32
    assert (o[:4] == 100_000 * stride).all()
    assert o[4] == 3 * (1 << 40) + 3
    assert "%stride: i64, %scale: f64" in row_offset.warmup(o, stride, 1.0, BLOCK=4, grid=(1,)).asm["ttir"]
