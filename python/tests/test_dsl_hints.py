"""Triton's compiler hints as its kernels use them: `tl.multiple_of` (on
integers and pointers, a promise about the first value of every run of
consecutive values), `tl.max_contiguous` (runs the analysis cannot see, as
after `tl.where` clamps an index at a tile's edge) and `tl.max_constancy`.
Results against numpy on the back ends of dsl_backends.language_backends();
the interpreter's check of multiple_of; what the hints decide in the GPU IR
(the vector width of the copies), read from `tritonc emit --stage gpu-ir`."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402
from hint_kernels import clamped_matmul, grouped_matmul  # noqa: E402

rng = np.random.default_rng()
KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hint_kernels.py")
CLI = os.environ.get("TRITONC_CLI")
BACKEND = "interp"


@pytest.fixture(params=dsl_backends.language_backends())
def backend(request, monkeypatch):
    global BACKEND
    BACKEND = dsl_backends.use(monkeypatch, request.param)
    return BACKEND


@pytest.mark.parametrize("hints", [False, True])
def test_clamped_matmul_with_and_without_hints(backend, hints):
    m, n, k = [int(v) for v in rng.integers(33, 100, 3)]
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    dsl_backends.launch(clamped_matmul, (triton.cdiv(m, 32), triton.cdiv(n, 32)), backend, a, b, c, m, n, k,
                        k, 1, n, 1, n, 1, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, HINTS=hints)
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), want, rtol=1e-2, atol=5e-2)


@triton.jit
def promise_kernel(X, Y, n, STEP: tl.constexpr, BLOCK: tl.constexpr, DIV: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) * STEP
    idx = tl.multiple_of(offs, DIV)
    tl.store(Y + tl.arange(0, BLOCK), tl.load(X + idx, mask=idx < n, other=-1), mask=tl.arange(0, BLOCK) < n)


def test_multiple_of_holds_for_run_starts_and_is_checked(monkeypatch):
    dsl_backends.use(monkeypatch, "interp")
    x = rng.integers(-100, 100, 256).astype(np.int32)
    y = np.full(64, 7777, np.int32)
    # pid * 64 + arange(64): the run starts at a multiple of 64; every
    # other value continues it (Triton's meaning).
    promise_kernel[(2,)](x, y, 256, STEP=1, BLOCK=64, DIV=64)
    np.testing.assert_array_equal(y, x[64:128])
    # arange * 2: no runs, so every value must be a multiple of 4; 2 is not.
    with pytest.raises(Exception) as e:
        promise_kernel[(1,)](x, y, 256, STEP=2, BLOCK=64, DIV=4)
    assert "multiple_of 4 does not hold" in str(e.value) and "tile element [1] is 2" in str(e.value)
    # Program 1's run starts at 64, no multiple of 128 (program 0's at 0 is).
    with pytest.raises(Exception) as e:
        promise_kernel[(2,)](x, y, 256, STEP=1, BLOCK=64, DIV=128)
    assert "program (1, 0, 0)" in str(e.value) and "tile element [0] is 64" in str(e.value)


@triton.jit
def pointer_promise_kernel(X, Y, OFF: tl.constexpr, BLOCK: tl.constexpr):
    p = tl.multiple_of(X + OFF + tl.arange(0, BLOCK), 16)
    tl.store(Y + tl.arange(0, BLOCK), tl.load(p))


def test_multiple_of_on_pointers_is_about_bytes(monkeypatch):
    dsl_backends.use(monkeypatch, "interp")
    x = rng.standard_normal(64).astype(np.float32)
    y = np.full(32, np.nan, np.float32)
    pointer_promise_kernel[(1,)](x, y, OFF=4, BLOCK=32)  # 16 bytes in: aligned
    np.testing.assert_array_equal(y, x[4:36])
    with pytest.raises(Exception) as e:
        pointer_promise_kernel[(1,)](x, y, OFF=2, BLOCK=32)  # 8 bytes in
    assert "multiple_of 16 does not hold" in str(e.value) and "'X' + 8 bytes" in str(e.value)


@triton.jit
def clamped_rows_kernel(X, Y, M, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.arange(0, BM)
    rows = tl.where(r < M, r, 0)  # rows past M read row 0: equal neighbours down the columns
    c = tl.arange(0, BN)
    ptrs = tl.multiple_of(X + rows[:, None] * BN + c[None, :], 16)
    tl.store(Y + r[:, None] * BN + c[None, :], tl.load(ptrs))


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_multiple_of_is_not_checked_where_neighbours_are_equal_by_chance(m, monkeypatch):
    """Rows of 16 f32 start at multiples of 64 bytes; rows clamped to 0 past
    M repeat down the columns, which the analysis does not read as constant
    stretches, so the interpreter does not ask every element there to be a
    multiple (it did, for M < 4)."""
    dsl_backends.use(monkeypatch, "interp")
    x = rng.standard_normal(64).astype(np.float32)
    y = np.full(64, np.nan, np.float32)
    clamped_rows_kernel[(1,)](x, y, m, BM=4, BN=16)
    rows = np.where(np.arange(4) < m, np.arange(4), 0)
    np.testing.assert_array_equal(y.reshape(4, 16), x.reshape(4, 16)[rows])


@pytest.mark.parametrize("where", ["cpu", "cuda"])
def test_grouped_matmul_through_addresses_in_memory(where, monkeypatch):
    """Needs real addresses: the CPU back end or the GPU (the interpreter's
    memory holds only the kernel's own arguments; it reports the address)."""
    if where not in dsl_backends.available():
        pytest.skip("no %s back end here" % where)
    dsl_backends.use(monkeypatch, where)
    shapes = [tuple(int(v) * 32 for v in rng.integers(1, 4, 3)) for _ in range(3)]
    a = [rng.standard_normal((m, k)).astype(np.float16) for m, n, k in shapes]
    b = [rng.standard_normal((k, n)).astype(np.float16) for m, n, k in shapes]
    c = [np.full((m, n), np.nan, np.float16) for m, n, k in shapes]
    sizes = np.array([v for s in shapes for v in s], np.int32)
    lds = np.array([v for s in shapes for v in (s[2], s[1], s[1])], np.int32)
    if where == "cuda":
        torch = dsl_backends.torch_cuda()
        a_, b_, c_ = ([torch.from_numpy(x).cuda() for x in xs] for xs in (a, b, c))
        addrs = [torch.tensor([x.data_ptr() for x in xs], dtype=torch.int64).cuda() for xs in (a_, b_, c_)]
        grouped_matmul[(4,)](*addrs, torch.from_numpy(sizes).cuda(), torch.from_numpy(lds).cuda(), len(shapes),
                             NUM_PROGRAMS=4, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        torch.cuda.synchronize()
        c = [x.cpu().numpy() for x in c_]
    else:
        addrs = [np.array([x.ctypes.data for x in xs], np.int64) for xs in (a, b, c)]
        grouped_matmul[(4,)](*addrs, sizes, lds, len(shapes), NUM_PROGRAMS=4, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    for x, w, got in zip(a, b, c):
        np.testing.assert_allclose(got.astype(np.float32), x.astype(np.float32) @ w.astype(np.float32),
                                   rtol=1e-2, atol=5e-2)
    if where == "cpu":
        monkeypatch.setenv("TRITONC_INTERPRET", "1")
        with pytest.raises(Exception) as e:
            grouped_matmul[(4,)](*addrs, sizes, lds, len(shapes), NUM_PROGRAMS=4, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        assert "is in no buffer" in str(e.value)
        assert "an address loaded from a tensor, runs on the CPU back end or the GPU" in str(e.value)


@triton.jit
def hint_error_kernel(X, WHICH: tl.constexpr):
    offs = tl.arange(0, 16)
    if WHICH == "count":
        offs = tl.max_contiguous(offs[:, None] + offs[None, :], 16)
    elif WHICH == "negative":
        offs = tl.multiple_of(offs, -4)
    elif WHICH == "float":
        offs = tl.multiple_of(offs.to(tl.float32), 4).to(tl.int32)
    elif WHICH == "constancy":
        offs = tl.max_constancy(offs, [1, 2])
    tl.store(X + offs, offs)


@pytest.mark.parametrize("which,message", [
    ("count", "max_contiguous takes one value per dimension: 1 given for a tensor of shape [16, 16]"),
    ("negative", "multiple_of's values must be positive"),
    ("float", "multiple_of applies to integers and pointers, not tl.float32"),
    ("constancy", "max_constancy takes one value per dimension: 2 given for a tensor of shape [16]"),
])
def test_hint_errors_point_at_the_call(which, message, monkeypatch):
    dsl_backends.use(monkeypatch, "interp")
    with pytest.raises(triton.CompilationError) as e:
        hint_error_kernel[(1,)](np.zeros(256, np.int32), WHICH=which)
    assert message in str(e.value)
    assert "test_dsl_hints.py" in str(e.value)


@pytest.mark.skipif(not CLI, reason="TRITONC_CLI (the tritonc binary) is not set")
@pytest.mark.parametrize("hints", [0, 1])
def test_hints_decide_the_vector_width_of_the_copies(hints):
    """After `where`, B's columns are runs only by the user's promise: with
    it both operands are copied 16 bytes at a time (cp.async), without it B
    is read one element at a time, as Triton does."""
    sig = ",".join(["a_ptr=*fp16", "b_ptr=*fp16", "c_ptr=*fp16"] +
                   ["%s=i32" % n for n in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn",
                                           "stride_cm", "stride_cn")])
    args = [a for n, v in (("M", 1000), ("N", 1000), ("K", 1000), ("stride_am", 1000), ("stride_ak", 1),
                           ("stride_bk", 1000), ("stride_bn", 1), ("stride_cm", 1000), ("stride_cn", 1))
            for a in ("--arg", "%s=%d" % (n, v))]
    env = dict(os.environ, TRITONC_PYTHON=sys.executable, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([CLI, "emit", KERNELS + ":clamped_matmul", "--signature", sig, "-DBLOCK_M=128", "-DBLOCK_N=128",
                        "-DBLOCK_K=64", "-DHINTS=%d" % hints, *args, "--stage", "gpu-ir", "--target", "sm_90a",
                        "--num-warps", "8", "--num-stages", "3"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    copies = [l for l in r.stdout.splitlines() if "async_copy" in l]
    element_loads = [l for l in r.stdout.splitlines() if " load " in l and "{vec = 1}" in l]
    if hints:
        assert len(copies) >= 4 and all("{vec = 8}" in l for l in copies) and not element_loads
    else:
        assert element_loads and "max_contiguous" not in r.stdout
