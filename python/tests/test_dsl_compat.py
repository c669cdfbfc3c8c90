"""What Triton kernels and their launch code rely on beyond the operators:
NaN handling of tl.maximum/minimum/max/min/clamp (Triton's default ignores
a NaN operand; PropagateNan.ALL keeps it), atomic_xor, swizzle2d, ravel,
assume, and on the host triton.next_power_of_2, triton.OutOfResources and
triton.runtime.driver. Against numpy / Python on the back ends of
dsl_backends.language_backends(); fresh inputs, poisoned outputs."""
import os
import sys

from fractions import Fraction

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc.language.extra import libdevice

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()
backend = dsl_backends.suite_fixture()  # each test on each back end of language_backends()
run = dsl_backends.run


@triton.jit
def nan_kernel(X, Y, Z, R, I, N: tl.constexpr, OP: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    if OP == "maximum":
        z = tl.maximum(x, y)
    elif OP == "minimum":
        z = tl.minimum(x, y)
    elif OP == "maximum_all":
        z = tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL)
    elif OP == "minimum_all":
        z = tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL)
    elif OP == "builtin_max":
        z = max(x, y)
    else:
        z = tl.clamp(x, -0.5, 0.5)
    tl.store(Z + offs, z)
    tl.store(R, tl.max(x, axis=0))
    tl.store(R + 1, tl.min(x, axis=0))
    tl.store(I, tl.argmax(x, axis=0))
    tl.store(I + 1, tl.argmin(x, axis=0))


@pytest.mark.parametrize("op", ["maximum", "minimum", "maximum_all", "minimum_all", "builtin_max", "clamp"])
def test_nan_handling(op):
    n = 32
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    x[[2, 7]] = np.nan
    y[[3, 7]] = np.nan
    z = np.full(n, 5, np.float32)
    r = np.full(2, 5, np.float32)
    i = np.full(2, -1, np.int32)
    run(nan_kernel, (1,), x, y, z, r, i, N=n, OP=op)
    want = {"maximum": np.fmax, "minimum": np.fmin, "maximum_all": np.maximum, "minimum_all": np.minimum,
            "builtin_max": np.fmax}.get(op)
    want = want(x, y) if want else np.where(np.isnan(x), -0.5, np.clip(x, -0.5, 0.5))
    np.testing.assert_array_equal(z, want)
    np.testing.assert_array_equal(r, [np.nanmax(x), np.nanmin(x)])  # reductions ignore NaNs, as Triton's
    np.testing.assert_array_equal(i, [np.nanargmax(x), np.nanargmin(x)])


@triton.jit
def xor_kernel(M, X, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.atomic_xor(M + offs, tl.load(X + tl.program_id(0) * N + offs))


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64"])
def test_atomic_xor(dtype):
    programs, n = 5, 32
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=programs * n, dtype=dtype, endpoint=True)
    m = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    want = m.copy()
    for p in range(programs):
        want ^= x[p * n:(p + 1) * n]
    run(xor_kernel, (programs,), m, x, N=n)
    np.testing.assert_array_equal(m, want)


@triton.jit
def swizzle_kernel(I, J, M: tl.constexpr, N: tl.constexpr, G: tl.constexpr):
    i = tl.arange(0, M)[:, None] + tl.zeros((M, N), dtype=tl.int32)
    j = tl.arange(0, N)[None, :] + tl.zeros((M, N), dtype=tl.int32)
    si, sj = tl.swizzle2d(i, j, M, N, G)
    offs = tl.ravel(i * N + j)
    tl.assume(M > 0)
    tl.store(I + offs, tl.ravel(si))
    tl.store(J + offs, tl.ravel(sj))


def swizzled(i, j, size_i, size_j, size_g):
    """Triton's documented example: within each group of size_g rows the
    row-major numbering becomes column-major (the last group may be short)."""
    ij = i * size_j + j
    group, within = divmod(ij, size_g * size_j)
    first = group * size_g
    rows = min(size_i - first, size_g)
    return first + within % rows, within // rows


@pytest.mark.parametrize("g", [1, 2, 3, 8])
def test_swizzle2d_and_ravel(g):
    m, n = 8, 4
    si, sj = np.full(m * n, -1, np.int32), np.full(m * n, -1, np.int32)
    run(swizzle_kernel, (1,), si, sj, M=m, N=n, G=g)
    want = [swizzled(i, j, m, n, g) for i in range(m) for j in range(n)]
    np.testing.assert_array_equal(si, [w[0] for w in want])
    np.testing.assert_array_equal(sj, [w[1] for w in want])
    assert sorted(zip(si, sj)) == [(i, j) for i in range(m) for j in range(n)]  # a permutation


def test_swizzle2d_matches_tritons_example():
    """The reference itself, against the example in Triton's documentation."""
    got = {}
    for i in range(4):
        for j in range(4):
            ni, nj = swizzled(i, j, 4, 4, 2)
            got[(ni, nj)] = i * 4 + j
    assert [[got[(i, j)] for j in range(4)] for i in range(4)] == [[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14],
                                                                   [9, 11, 13, 15]]


@triton.jit
def assume_kernel(X, n):
    tl.assume(n > 100)
    tl.store(X, n)


def test_assume_is_checked_in_debug_mode():
    x = np.zeros(1, np.int32)
    run(assume_kernel, (1,), x, 3)  # a promise: not checked by default
    assert x[0] == 3
    if dsl_backends.current() == "cuda":
        return  # a failed assertion on the GPU loses the context
    with pytest.raises(triton.Error, match="tl.assume"):
        assume_kernel[(1,)](x, 3, debug=True)


def test_host_helpers():
    assert [triton.next_power_of_2(v) for v in (0, 1, 2, 3, 17, 1024, 1025, 2**40 + 1)] == \
        [0, 1, 2, 4, 32, 1024, 2048, 2**41]
    assert issubclass(triton.OutOfResources, triton.Error)
    err = triton.OutOfResources(300000, 232448, "shared memory")
    assert "shared memory" in str(err) and err.required == 300000
    import os
    import torch
    if not torch.cuda.is_available():  # the CPU back end's view, so that host code sizing grids runs
        active = triton.runtime.driver.active
        assert active.get_current_target().backend == "cpu"
        assert active.get_active_torch_device() == torch.device("cpu")
        assert active.utils.get_device_properties(0)["multiprocessor_count"] == os.cpu_count()
        with pytest.raises(RuntimeError, match="needs a CUDA device"):
            active.get_current_stream()
    else:
        props = triton.runtime.driver.active.utils.get_device_properties(
            triton.runtime.driver.active.get_active_torch_device().index)
        assert props["multiprocessor_count"] > 0 and props["warpSize"] == 32 and props["max_shared_mem"] > 0


# ---- host tensor descriptors (triton.tools.tensor_descriptor) ----------------------

from tritonc.tools.tensor_descriptor import TensorDescriptor  # noqa: E402


@triton.jit
def matmul_desc_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_matmul_with_host_tensor_descriptors(dtype):
    m, n, k = 50, 70, 45  # ragged: the blocks at the edges read zeros and store only inside
    bm, bn, bk = 32, 32, 16
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = np.full((m, n), np.nan, dtype)
    descs = [TensorDescriptor.from_tensor(a, [bm, bk]), TensorDescriptor.from_tensor(b, [bk, bn]),
             TensorDescriptor.from_tensor(c, [bm, bn])]
    if dsl_backends.current() == "cuda":
        import torch
        ta, tb, tc = (torch.from_numpy(x).cuda() for x in (a, b, c))
        descs = [TensorDescriptor.from_tensor(ta, [bm, bk]), TensorDescriptor.from_tensor(tb, [bk, bn]),
                 TensorDescriptor.from_tensor(tc, [bm, bn])]
        matmul_desc_kernel[(triton.cdiv(m, bm), triton.cdiv(n, bn))](*descs, m, n, k, BLOCK_M=bm, BLOCK_N=bn,
                                                                       BLOCK_K=bk)
        c = tc.cpu().numpy()
    else:
        matmul_desc_kernel[(triton.cdiv(m, bm), triton.cdiv(n, bn))](*descs, m, n, k, BLOCK_M=bm, BLOCK_N=bn,
                                                                       BLOCK_K=bk)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=1e-2 if dtype == "float16" else 1e-5,
                               atol=1e-2 if dtype == "float16" else 1e-5)


@triton.jit
def pad_kernel(x_desc, Z, BLOCK: tl.constexpr):
    tl.store(Z + tl.arange(0, BLOCK), x_desc.load([tl.program_id(0) * BLOCK]))


def test_descriptor_padding_nan_and_strides():
    x = rng.standard_normal(40).astype(np.float32)
    z = np.zeros(64, np.float32)
    if dsl_backends.current() == "cuda":
        import torch
        tx, tz = torch.from_numpy(x).cuda(), torch.from_numpy(z).cuda()
        pad_kernel[(1,)](TensorDescriptor(tx, [37], [1], [64], padding="nan"), tz, BLOCK=64)
        z = tz.cpu().numpy()
    else:  # a shape below the array's: the rest pads
        pad_kernel[(1,)](TensorDescriptor(x, [37], [1], [64], padding="nan"), z, BLOCK=64)
    np.testing.assert_array_equal(z[:37], x[:37])
    assert np.isnan(z[37:]).all()
    with pytest.raises(ValueError, match="1 to 5 dimensions"):
        TensorDescriptor(x, [40], [1, 1], [64])


@triton.jit
def scale_tile_kernel(x_desc, y_desc, BLOCK: tl.constexpr):
    tile = x_desc.load([tl.program_id(0) * BLOCK, 0])
    y_desc.store([tl.program_id(0) * BLOCK, 0], tile * 2)


def test_descriptors_over_strided_views():
    """A descriptor's base may be a strided view (every other row of a
    matrix): its strides are the descriptor's, on the host as on the GPU;
    the rows between are neither read as the view's nor written."""
    rows = 2 * int(rng.integers(8, 24))
    x_all = rng.standard_normal((2 * rows, 16)).astype(np.float32)
    y_all = np.full((2 * rows, 16), np.nan, np.float32)
    if dsl_backends.current() == "cuda":
        import torch
        tx, ty = torch.from_numpy(x_all).cuda(), torch.from_numpy(y_all).cuda()
        x, y = tx[::2], ty[::2]
    else:
        x, y = x_all[::2], y_all[::2]
    descs = [TensorDescriptor(t, [rows, 16], [32, 1], [16, 16]) for t in (x, y)]
    scale_tile_kernel[(triton.cdiv(rows, 16),)](*descs, BLOCK=16)
    if dsl_backends.current() == "cuda":
        y_all = ty.cpu().numpy()
    np.testing.assert_array_equal(y_all[::2], x_all[::2] * 2)
    assert np.isnan(y_all[1::2]).all()
    with pytest.raises(ValueError, match="descriptor 'x_desc': the base array has negative strides"):
        scale_tile_kernel[(1,)](TensorDescriptor(x_all[::-2], [rows, 16], [-32, 1], [16, 16]), descs[1], BLOCK=16)


# ---- the fused-softmax tutorial's host code: warmup, registers, shared memory -------

@triton.jit
def softmax_tutorial_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                            BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # starting row of the program
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def test_softmax_tutorial_host_code():
    n_rows, n_cols = 37, 300
    x = rng.standard_normal((n_rows, n_cols)).astype(np.float32)
    y = np.full_like(x, np.nan)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps, num_stages = 8, 4
    kernel = softmax_tutorial_kernel.warmup(y, x, x.shape[1], y.shape[1], n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                            num_stages=num_stages, num_warps=num_warps, grid=(1,))
    kernel._init_handles()
    assert kernel.n_regs >= 0 and kernel.metadata.shared >= 0 and kernel.metadata.num_warps == num_warps
    num_programs = 5
    if dsl_backends.current() == "cuda":
        return  # the GPU path is the language suites' (numpy arrays here)
    kernel[(num_programs, 1, 1)](y, x, x.shape[1], y.shape[1], n_rows, n_cols, BLOCK_SIZE, num_stages)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_perf_report_tables(tmp_path, capsys):
    calls = []

    @triton.testing.perf_report(triton.testing.Benchmark(
        x_names=["size"], x_vals=[2**i for i in range(3, 6)], x_log=True, line_arg="provider",
        line_vals=["tritonc", "numpy"], line_names=["tritonc", "numpy"], styles=[("blue", "-"), ("green", "-")],
        ylabel="GB/s", plot_name="vector-add-performance", args={"scale": 2}))
    def benchmark(size, provider, scale):
        calls.append((size, provider, scale))
        return (float(size * scale), float(size), float(size * 4)) if provider == "tritonc" else float(size)

    out = benchmark.run(print_data=True, save_path=str(tmp_path), return_df=True)
    assert len(calls) == 6 and all(c[2] == 2 for c in calls)
    printed = capsys.readouterr().out
    assert "vector-add-performance:" in printed and "tritonc" in printed
    csv = (tmp_path / "vector-add-performance.csv").read_text().splitlines()
    assert csv[0].startswith("size,tritonc") and len(csv) == 4
    assert csv[1].split(",")[:2] == ["8", "16.0"]
    rows = out.to_dict("records") if hasattr(out, "to_dict") else out
    assert [r["numpy"] for r in rows] == [8.0, 16.0, 32.0]


@triton.jit
def checked_where(X, Z):
    x = tl.load(X)
    tl.store(Z, tl.where(x > 3, x, -1))


@triton.jit
def checked_truediv(X, Y, Z):
    tl.store(Z, tl.load(X) / tl.load(Y))


@triton.jit
def checked_umulhi(X, Z):
    tl.store(Z, tl.umulhi(tl.load(X), 0xD2511F53))


def test_scalar_and_signedness_checks_of_where_truediv_umulhi():
    u8, z8 = np.ones(1, np.uint8), np.zeros(1, np.uint8)
    with pytest.raises(tl.CompileError, match="negative number -1"):
        run(checked_where, (1,), u8, z8)
    with pytest.raises(tl.CompileError, match="different signedness"):
        run(checked_truediv, (1,), np.ones(1, np.int32), np.ones(1, np.uint32), np.zeros(1, np.float32))
    with pytest.raises(tl.CompileError, match="out of range for tl.int32"):
        run(checked_umulhi, (1,), np.ones(1, np.int32), np.zeros(1, np.int32))
    x = np.array([7], np.uint32)
    z = np.zeros(1, np.uint32)
    run(checked_umulhi, (1,), x, z)  # a uint32 takes the constant as uint32
    assert z[0] == (7 * 0xD2511F53) >> 32


@triton.jit
def nan_row_kernel(X, I, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(I, tl.argmax(x, axis=0))
    tl.store(I + 1, tl.argmin(x, axis=0, tie_break_left=False))


def test_argmax_of_a_row_of_nans_stays_inside_the_row():
    x = np.full(16, np.nan, np.float32)
    i = np.full(2, -7, np.int32)
    run(nan_row_kernel, (1,), x, i, N=16)
    assert 0 <= i[0] < 16 and 0 <= i[1] < 16


@triton.jit
def option_param_kernel(X, num_stages: tl.constexpr = 1):
    tl.store(X, num_stages)


def test_launch_option_defaults_do_not_bind_parameters():
    x = np.zeros(1, np.int32)
    compiled = option_param_kernel.warmup(x, grid=(1,))  # no num_stages given: the parameter keeps its default
    assert "i32 1" in compiled.asm["ttir"]
    run(option_param_kernel, (1,), x, num_stages=2)  # given: both the option and the parameter
    assert x[0] == 2


class _FakeCudaArray:
    __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0, False), "version": 3}
    dtype = np.dtype(np.float32)


def test_a_descriptor_on_a_cuda_array_compiles_for_the_gpu(monkeypatch):
    monkeypatch.delenv("TRITONC_INTERPRET", raising=False)
    desc = TensorDescriptor(_FakeCudaArray(), [4], [1], [4])
    assert pad_kernel._target([desc, np.zeros(4, np.float32)]) == "gpu"


# ---- inline PTX ----------------------------------------------------------------------

@triton.jit
def inline_asm_kernel(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.inline_asm_elementwise(asm="tanh.approx.f32 $0, $1;", constraints="=f,f", args=[x], dtype=tl.float32,
                                  is_pure=True, pack=1)
    tl.store(Y + offs, y)


def test_inline_asm_elementwise():
    x = rng.uniform(-3, 3, 64).astype(np.float32)
    y = np.zeros(64, np.float32)
    if dsl_backends.current() != "cuda":
        with pytest.raises(triton.Error, match="runs only on the GPU"):
            inline_asm_kernel[(1,)](x, y, N=64)
        return
    run(inline_asm_kernel, (1,), x, y, N=64)
    np.testing.assert_allclose(y, np.tanh(x), atol=1e-3)  # tanh.approx: about 2^-11 relative


@triton.jit
def bad_inline_asm(X):
    x = tl.load(X)
    tl.store(X, tl.inline_asm_elementwise("add.f32 $0, $1, $2;", "=f,f", [x, x], tl.float32, True, 1))


def test_inline_asm_constraints_must_match_the_arguments():
    with pytest.raises(tl.CompileError, match="name 1 output"):
        run(bad_inline_asm, (1,), np.zeros(1, np.float32))


def test_inline_asm_rewrites_one_copy_per_output_register():
    """Independently of the compiler: the copy for output register k names
    it $0, declares the other outputs as scratch registers of their
    constraint's PTX type, and renumbers the inputs from $1."""
    from tritonc.language.inline_asm import rewrite
    asm = "sub.u32 $0, $2, $3; sub.u32 $1, $3, $2;"
    assert rewrite(asm, 2, 0, ["r", "f"]) == ".reg .f32 %tritonc_out1; sub.u32 $0, $1, $2; sub.u32 %tritonc_out1, $2, $1;"
    assert rewrite(asm, 2, 1, ["r", "f"]) == ".reg .b32 %tritonc_out0; sub.u32 %tritonc_out0, $1, $2; sub.u32 $0, $2, $1;"
    assert rewrite("mov.b32 $0, $12;", 1, 0, ["r"]) == "mov.b32 $0, $12;"
    assert rewrite("add.s32 $10, $11, $1;", 11, 10, ["l"] * 11).endswith("add.s32 $0, $1, %tritonc_out1;")


@triton.jit
def inline_asm_many_kernel(A, B, C, D, P, Q, R, N: tl.constexpr, WHICH: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(A + offs)
    b = tl.load(B + offs)
    if WHICH == "two-results":  # Triton's example: two outputs of two types
        c, d = tl.inline_asm_elementwise("sub.u32 $0, $2, $3; sub.u32 $1, $3, $2;", "=r,=r,r,r", [a, b],
                                         dtype=(tl.uint32, tl.uint32), is_pure=True, pack=1)
        tl.store(C + offs, c)
        tl.store(D + offs, d)
    elif WHICH == "pack-bytes":  # four bytes per register: masked and shifted together
        p = tl.load(P + offs)
        q = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;", "=r,r", [p], dtype=tl.int8,
                                      is_pure=True, pack=4)
        tl.store(Q + offs, q)
    else:  # four bytes in, four f32 out (and the bytes' sum as f32 of a second input): pack 4
        p = tl.load(P + offs)
        r0, r1 = tl.inline_asm_elementwise(
            """{
            .reg .b8 t<4>;
            mov.b32 {t0, t1, t2, t3}, $8;
            cvt.rn.f32.u8 $0, t0; cvt.rn.f32.u8 $1, t1; cvt.rn.f32.u8 $2, t2; cvt.rn.f32.u8 $3, t3;
            add.f32 $4, $9, $0; add.f32 $5, $10, $1; add.f32 $6, $11, $2; add.f32 $7, $12, $3;
            }""",
            "=f,=f,=f,=f,=f,=f,=f,=f,r,f,f,f,f", [p, a.to(tl.float32, bitcast=True)], dtype=(tl.float32, tl.float32),
            is_pure=True, pack=4)
        tl.store(R + offs, r0)
        tl.store(R + N + offs, r1)


@pytest.mark.parametrize("which", ["two-results", "pack-bytes", "bytes-to-floats"])
def test_inline_asm_with_several_results_and_packs(which):
    N = 64
    a = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    c, d = np.zeros(N, np.uint32), np.zeros(N, np.uint32)
    p = rng.integers(0, 256, N).astype(np.uint8)
    q = np.zeros(N, np.int8)
    r = np.full(2 * N, np.nan, np.float32)
    if dsl_backends.current() != "cuda":
        with pytest.raises(triton.Error, match="runs only on the GPU"):
            inline_asm_many_kernel[(1,)](a, b, c, d, p, q, r, N=N, WHICH=which)
        return
    run(inline_asm_many_kernel, (1,), a, b, c, d, p, q, r, N=N, WHICH=which)
    if which == "two-results":
        np.testing.assert_array_equal(c, a - b)
        np.testing.assert_array_equal(d, b - a)
    elif which == "pack-bytes":
        np.testing.assert_array_equal(q, ((p & 0x1F) << 3).astype(np.uint8).view(np.int8))
    else:
        np.testing.assert_array_equal(r[:N], p.astype(np.float32))
        np.testing.assert_array_equal(r[N:], a.view(np.float32) + p.astype(np.float32))


@triton.jit
def inline_asm_bad_pack(X, WHICH: tl.constexpr):
    x = tl.load(X + tl.arange(0, 16))
    if WHICH == 0:  # 8-bit elements go four to a register
        y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int8, is_pure=True, pack=2)
    else:  # two output registers need is_pure
        y, z = tl.inline_asm_elementwise("mov.b32 $0, $2; mov.b32 $1, $2;", "=r,=r,r", [x.to(tl.int32)],
                                         dtype=(tl.int32, tl.int32), is_pure=False, pack=1)
    tl.store(X + tl.arange(0, 16), y.to(tl.int8))


@pytest.mark.parametrize("which,message", [(0, "pack must be a multiple of 4"), (1, "needs is_pure=True")])
def test_inline_asm_packs_and_purity_are_checked(which, message):
    with pytest.raises(tl.CompileError, match=message):
        run(inline_asm_bad_pack, (1,), np.zeros(16, np.int8), WHICH=which)


@triton.jit
def cat_kernel(X, Y, Z, M: tl.constexpr, N: tl.constexpr, TWO_D: tl.constexpr):
    if TWO_D:
        offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
        z = tl.cat(tl.load(X + offs), tl.load(Y + offs))
        tl.store(Z + tl.arange(0, 2 * M)[:, None] * N + tl.arange(0, N)[None, :], z)
    else:
        z = tl.cat(tl.load(X + tl.arange(0, M)), tl.load(Y + tl.arange(0, M)), can_reorder=True)
        tl.store(Z + tl.arange(0, 2 * M), z)


@pytest.mark.parametrize("two_d", [False, True])
def test_cat_keeps_the_order(two_d):
    shape = (8, 4) if two_d else (16,)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    z = np.full((2 * shape[0],) + shape[1:], np.nan, np.float32)
    run(cat_kernel, (1,), x, y, z, M=shape[0], N=shape[-1], TWO_D=two_d)
    np.testing.assert_array_equal(z, np.concatenate([x, y]))


@triton.jit
def cat_dim_kernel(X, Y, Z, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, DIM: tl.constexpr):
    # [A, B, C] tiles joined along DIM, then written out through the shape it has
    offs = (tl.arange(0, A)[:, None, None] * B + tl.arange(0, B)[None, :, None]) * C + tl.arange(0, C)[None, None, :]
    z = tl.cat(tl.load(X + offs), tl.load(Y + offs), dim=DIM)
    ZA: tl.constexpr = A * 2 if DIM == 0 else A
    ZB: tl.constexpr = B * 2 if DIM == 1 or DIM == -2 else B
    ZC: tl.constexpr = C * 2 if DIM == 2 or DIM == -1 else C
    out = (tl.arange(0, ZA)[:, None, None] * ZB + tl.arange(0, ZB)[None, :, None]) * ZC + \
        tl.arange(0, ZC)[None, None, :]
    tl.store(Z + out, z)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cat_along_any_axis(dim):
    """tl.cat(a, b, dim=...) of Triton 3.7: a then b along `dim`."""
    shape = (2, 4, 8)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    want = np.concatenate([x, y], axis=dim)
    z = np.full(want.shape, np.nan, np.float32)
    run(cat_dim_kernel, (1,), x, y, z, A=2, B=4, C=8, DIM=dim)
    np.testing.assert_array_equal(z, want)


@triton.jit
def squeeze_kernel(Z, S0: tl.constexpr, S1: tl.constexpr, S2: tl.constexpr, DIM: tl.constexpr, UN: tl.constexpr):
    a = tl.reshape(tl.arange(0, 8), (S0, S1, S2))
    a = tl.squeeze(a, DIM)
    a = tl.unsqueeze(a, UN)
    tl.static_assert(len(a.shape) == 3)
    tl.store(Z + tl.arange(0, 8), tl.ravel(a) * 10 + a.shape[UN])


@pytest.mark.parametrize("shape, dim, un", [((1, 2, 4), 0, 2), ((2, 1, 4), 1, 0), ((2, 4, 1), -1, -1)])
def test_squeeze_and_unsqueeze(shape, dim, un):
    """tl.squeeze drops an axis of length 1, tl.unsqueeze adds one (Triton
    3.7); the elements keep their order."""
    z = np.full(8, -1, np.int32)
    run(squeeze_kernel, (1,), z, S0=shape[0], S1=shape[1], S2=shape[2], DIM=dim, UN=un)
    np.testing.assert_array_equal(z, np.arange(8) * 10 + 1)


@triton.jit
def bad_squeeze_kernel(Z):
    tl.store(Z + tl.arange(0, 8), tl.ravel(tl.squeeze(tl.reshape(tl.arange(0, 8), (2, 4)), 0)))


def test_squeezing_a_longer_axis_is_refused():
    with pytest.raises(triton.CompilationError, match="axis 0 has length 2, not 1"):
        run(bad_squeeze_kernel, (1,), np.zeros(8, np.int32))


@triton.jit
def topk_order_kernel(X, Z, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, DESCENDING: tl.constexpr):
    x = tl.load(X + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    z = tl.topk(x, K, descending=DESCENDING)
    tl.store(Z + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], z)


@pytest.mark.parametrize("descending", [True, False])
def test_topk_largest_or_smallest(descending):
    """tl.topk(x, k, descending=False) of Triton 3.7: the k smallest of each
    row, smallest first (torch.topk's largest=False)."""
    M, N, K = 4, 64, 8
    x = rng.standard_normal((M, N)).astype(np.float32)
    z = np.full((M, K), np.nan, np.float32)
    run(topk_order_kernel, (1,), x, z, M=M, N=N, K=K, DESCENDING=descending)
    s = np.sort(x, axis=1)
    np.testing.assert_array_equal(z, s[:, ::-1][:, :K] if descending else s[:, :K])


@triton.jit
def descriptor_functions_kernel(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(X, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(Y, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tl.extra.cuda.gdc_wait()
    t = tl.load_tensor_descriptor(src, [tl.program_id(0) * BM, 0])
    tl.store_tensor_descriptor(dst, [tl.program_id(0) * BM, 0], t * 2)
    tl.extra.cuda.gdc_launch_dependents()


def test_descriptor_functions_and_programmatic_launch_controls():
    """tl.load/store_tensor_descriptor as functions; gdc_wait and
    gdc_launch_dependents with launch_pdl=True (nothing to wait for: tritonc
    launches without programmatic dependence)."""
    m, n = int(rng.integers(17, 60)), 16
    x = rng.standard_normal((m, n)).astype(np.float32)
    y = np.full_like(x, np.nan)
    run(descriptor_functions_kernel, (triton.cdiv(m, 16),), x, y, m, n, BM=16, BN=16, launch_pdl=True)
    np.testing.assert_array_equal(y, x * 2)
    assert tl.TRITON_MAX_TENSOR_NUMEL == 1048576


@triton.jit
def sm_kernel(Y):
    tl.store(Y, tl.extra.cuda.smid())
    t0 = tl.extra.cuda.globaltimer()
    t1 = tl.extra.cuda.globaltimer()
    tl.store(Y + 1, (t1 - t0 >= 0).to(tl.int32))


def test_smid_and_globaltimer():
    y = np.full(2, -1, np.int32)
    if dsl_backends.current() != "cuda":
        with pytest.raises(triton.Error, match="runs only on the GPU"):
            sm_kernel[(1,)](y)
        return
    run(sm_kernel, (1,), y)
    assert 0 <= y[0] < 1024 and y[1] == 1


# ---- Triton 3.x's smaller names: tl.add/sub/mul, tl.reduce_or, tl.condition, tl.const,
# triton.constexpr_function, triton.must_use_result

@triton.constexpr_function
def doubled(n):
    return 2 * n


@triton.must_use_result
@triton.jit
def halve(x):
    return x // 2


@triton.jit
def small_names_kernel(X: tl.const, Y, Z, W, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(Z + offs, tl.add(tl.mul(x, y), tl.sub(x, 1), sanitize_overflow=False))
    tl.store(W, tl.reduce_or(x, 0))
    i = 0
    total = 0
    while tl.condition(i < N, disable_licm=True):  # sums x[0], x[2], ...
        total += tl.load(X + i)
        i += 2
    tl.store(W + 1, total)
    wide = tl.arange(0, doubled(N))  # a compile-time value of N
    tl.store(W + 2, tl.sum(wide, 0))
    tl.store(W + 3, halve(tl.load(X + 1)))


def test_small_names_of_triton_3():
    N = 16
    x = rng.integers(0, 1000, N).astype(np.int32)
    y = rng.integers(-50, 50, N).astype(np.int32)
    z = np.full(N, -7, np.int32)
    w = np.full(4, -7, np.int32)
    run(small_names_kernel, (1,), x, y, z, w, N=N)
    np.testing.assert_array_equal(z, x * y + x - 1)
    assert w[0] == np.bitwise_or.reduce(x)
    assert w[1] == x[0::2].sum()
    assert w[2] == sum(range(2 * N))
    assert w[3] == x[1] // 2
    assert halve._must_use_result is True
    assert doubled(tl.constexpr(3)) == 6  # also an ordinary function on the host


# ---- Triton's tensor methods that are tl functions of the tensor ---------------------

@triton.jit
def members_kernel(X, Y, I, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    i = tl.load(I + offs)
    (Y + offs).store(x.cast(tl.float16).cast(tl.float32).sigmoid() + x.exp2() * x.floor())
    tl.store(Y + N + offs, x.flip(0).sort(0))
    tl.store(Z, i.reduce_or(0))
    tl.store(Z + 1, i.xor_sum(0))
    tl.store(Z + 2, i.cdiv(7).sum(0))
    tl.store(Z + 3, tl.sum(((i > 3).logical_and(i < 9) | (i == 0).logical_or(i == 1)).to(tl.int32), 0))
    tl.store(Z + 4, i.reshape(N // 2, 2).split()[1].ravel().sum(0))
    tl.store(Z + 5, tl.sum(i, 0, keep_dims=True).item())
    (Z + 6).atomic_add(3)
    tl.store(Z + 7, i.cumsum(0).sum(0))
    tl.store(Y + 2 * N + offs, (x * 0.0625 + 1.0).cumprod(0))


def test_tensor_methods_of_triton():
    N = 32
    x = rng.standard_normal(N).astype(np.float32)
    i = rng.integers(0, 12, N).astype(np.int32)
    y = np.full(3 * N, np.nan, np.float32)
    z = np.zeros(8, np.int32)
    z[6] = 10
    run(members_kernel, (1,), x, y, i, z, N=N)
    h = x.astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(y[:N], 1 / (1 + np.exp(-h)) + np.exp2(x) * np.floor(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(y[N:2 * N], np.sort(x))
    assert z[0] == np.bitwise_or.reduce(i) and z[1] == np.bitwise_xor.reduce(i)
    assert z[2] == sum(-(-v // 7) for v in i.tolist())
    assert z[3] == np.sum(((i > 3) & (i < 9)) | (i == 0) | (i == 1))
    assert z[4] == i[1::2].sum() and z[5] == i.sum() and z[6] == 13
    assert z[7] == np.cumsum(i).sum()
    np.testing.assert_allclose(y[2 * N:], np.cumprod(x * 0.0625 + 1.0), rtol=1e-5)


# ---- arguments Triton takes as they come: @jit functions, numpy scalars ----------------

@triton.jit
def _plus_one(x):
    return x + 1


@triton.jit
def _doubled(x):
    return x * 2


@triton.jit
def apply_kernel(X, n, scale, F, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n)
    tl.store(X + offs, F(x) * scale, mask=offs < n)


def test_jit_functions_and_numpy_scalars_as_arguments():
    """A @jit function passed as an ordinary argument is a constexpr (as in
    Triton: each function its own specialization); numpy integers and
    floats are the numbers they hold, not arrays."""
    x = rng.standard_normal(16).astype(np.float32)
    for fn, ref in ((_plus_one, x + 1), (_doubled, x * 2)):
        for n, scale in ((np.int64(11), np.float32(0.5)), (np.int32(16), np.float64(2.0)), (np.uint8(3), 1.5)):
            y = x.copy()
            run(apply_kernel, (1,), y, n, scale, fn, BLOCK=16)
            m = int(n)
            np.testing.assert_allclose(y[:m], ref[:m] * float(scale), rtol=1e-6)
            np.testing.assert_array_equal(y[m:], x[m:])


# ---- globals: compiled with their values, refused once changed (as Triton) -------------

GLOBAL_SCALE = 3.0


@triton.jit
def scale_by_global(X, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, tl.load(X + offs) * GLOBAL_SCALE)


def test_a_changed_global_is_refused_as_in_triton():
    """A global read by a kernel is compiled in; once it holds another value
    the launch raises Triton's RuntimeError (also after repeated launches,
    which on CUDA take the C++ launch path), and runs again once it is back."""
    global GLOBAL_SCALE
    x = rng.standard_normal(16).astype(np.float32)
    for _ in range(3):
        y = x.copy()
        run(scale_by_global, (1,), y, BLOCK=16)
        np.testing.assert_array_equal(y, x * np.float32(3.0))
    GLOBAL_SCALE = 5.0
    try:
        with pytest.raises(RuntimeError, match="Global variable GLOBAL_SCALE has changed since we compiled this "
                                               "kernel, from 3.0 to 5.0"):
            run(scale_by_global, (1,), x.copy(), BLOCK=16)
    finally:
        GLOBAL_SCALE = 3.0
    y = x.copy()
    run(scale_by_global, (1,), y, BLOCK=16)
    np.testing.assert_array_equal(y, x * np.float32(3.0))


# ---- Triton 3.6's descriptor reductions, gather and scatter -----------------------------

@triton.jit
def descriptor_reduce_gather_kernel(X, Y, G, R, M, N, BM: tl.constexpr, BN: tl.constexpr, NR: tl.constexpr):
    xd = tl.make_tensor_descriptor(X, [M, N], [N, 1], [BM, BN])
    yd = tl.make_tensor_descriptor(Y, [M, N], [N, 1], [BM, BN])
    pm = tl.program_id(0)
    tile = xd.load([pm * BM, 0])
    yd.atomic_add([pm * BM, 0], tile)
    yd.atomic_max([pm * BM, 0], tile * 0 + 1.0)
    rows_d = tl.make_tensor_descriptor(X, [M, N], [N, 1], [1, BN])
    out_d = tl.make_tensor_descriptor(G, [NR, N], [N, 1], [1, BN], padding_option="zero")
    if pm == 0:
        out_d.scatter(rows_d.gather(tl.load(R + tl.arange(0, NR)), 0) + 1.0, tl.arange(0, NR), 0)


def test_descriptor_atomics_gather_and_scatter():
    """desc.atomic_add/atomic_max combine a block into memory (the ragged
    last block's rows outside the tensor left out); gather reads rows by
    index (zeros outside the tensor), scatter writes rows."""
    M, N, NR = int(rng.integers(20, 60)), 16, 8
    x = rng.standard_normal((M, N)).astype(np.float32)
    y0 = rng.standard_normal((M, N)).astype(np.float32)
    y = y0.copy()
    rows = rng.integers(-3, M + 3, NR).astype(np.int32)
    g = np.full((NR, N), np.nan, np.float32)
    run(descriptor_reduce_gather_kernel, (triton.cdiv(M, 16),), x, y, g, rows, M, N, BM=16, BN=16, NR=NR)
    np.testing.assert_allclose(y, np.maximum(y0 + x, 1.0), rtol=1e-6)
    inside = ((rows >= 0) & (rows < M))[:, None]
    np.testing.assert_array_equal(g, np.where(inside, x[np.clip(rows, 0, M - 1)], 0) + 1.0)


@triton.jit
def division_kernel(X, Y, A, B, C, D, E, F, d, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(A + offs, tl.math.div_rn(x, d))  # a uniform divisor (the CPU back end's reciprocal)
    tl.store(B + offs, tl.fdiv(x, y, ieee_rounding=True))
    tl.store(C + offs, tl.fdiv(x, d))  # `/`: within 2 ulp, as on the GPU
    tl.store(D + offs, tl.div_rn(x, 3))  # an int divisor: f32 by Triton's rules
    tl.store(E + offs, libdevice.div_rn(x, d))  # CUDA's __fdiv_rn
    tl.store(F + offs, libdevice.rcp_rn(y))


def test_div_rn_and_fdiv_round_to_nearest():
    """tl.math.div_rn, tl.fdiv(..., ieee_rounding=True) and libdevice's
    div_rn and rcp_rn are IEEE divisions on every back end, a uniform
    divisor included; tl.fdiv alone is `/`."""
    n = 256
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.uniform(0.5, 4, n).astype(np.float32)
    d = float(np.float32(rng.uniform(1.5, 9)))
    a, b, c, e, f, g = (np.full(n, np.nan, np.float32) for _ in range(6))
    run(division_kernel, (1,), x, y, a, b, c, e, f, g, d, N=n)
    np.testing.assert_array_equal(a, x / np.float32(d))
    np.testing.assert_array_equal(b, x / y)
    np.testing.assert_allclose(c, x / np.float32(d), rtol=3e-7, atol=0)
    np.testing.assert_array_equal(e, x / np.float32(3))
    np.testing.assert_array_equal(f, x / np.float32(d))
    np.testing.assert_array_equal(g, np.float32(1) / y)


@triton.jit
def block_pointer_dtype_kernel(X, Y, N: tl.constexpr):
    px = tl.make_block_ptr(X, (N,), (1,), (0,), (N,), (0,))
    py = tl.make_block_ptr(Y, (N,), (1,), (0,), (N,), (0,))
    tl.store(py, tl.load(px).to(py.dtype.element_ty))  # flash-linear-attention's idiom


def test_block_pointer_dtype_names_the_element_type():
    x = rng.standard_normal(64).astype(np.float32)
    y = np.full(64, np.nan, np.float16)
    run(block_pointer_dtype_kernel, (1,), x, y, N=64)
    np.testing.assert_array_equal(y, x.astype(np.float16))


@triton.jit
def narrow_extreme_kernel(X, H, Z, W, N: tl.constexpr):
    offs = tl.arange(0, N)
    m = tl.max(tl.load(X + offs), axis=0)
    tl.static_assert(m.dtype == tl.int32)
    tl.store(Z, m + 100)
    tl.store(Z + 1, tl.min(tl.load(X + offs), axis=0) - 100)
    h = tl.max(tl.load(H + offs), axis=0)
    tl.static_assert(h.dtype == tl.float32)
    tl.store(W, h * 2.0)
    v, i = tl.max(tl.load(X + offs), axis=0, return_indices=True)
    tl.static_assert(v.dtype == tl.int8)  # with indices: the input's type
    tl.store(Z + 2, i)


def test_max_and_min_of_narrow_types_reduce_in_32_bits():
    """As Triton's: int8 reduces in int32 and fp16 in fp32, so that
    arithmetic on the result does not wrap or overflow."""
    n = 16
    x = rng.integers(-128, 128, n).astype(np.int8)
    x[rng.integers(n)] = 120
    h = rng.uniform(-1, 1, n).astype(np.float16)
    h[rng.integers(n)] = 60000
    z = np.full(3, -1, np.int32)
    w = np.full(1, np.nan, np.float32)
    run(narrow_extreme_kernel, (1,), x, h, z, w, N=n)
    np.testing.assert_array_equal(z, [int(x.max()) + 100, int(x.min()) - 100, int(np.argmax(x))])
    np.testing.assert_array_equal(w, [np.float32(h.max()) * 2])


@triton.jit
def ceiling_kernel(Z, K, BLOCK: tl.constexpr):
    tl.store(Z, triton.cdiv(K, BLOCK))
    tl.store(Z + 1, tl.cdiv(K, BLOCK))


def test_triton_cdiv_inside_a_kernel_rounds_up():
    k = int(rng.integers(1, 1000))
    z = np.full(2, -1, np.int32)
    run(ceiling_kernel, (1,), z, k, BLOCK=32)
    np.testing.assert_array_equal(z, [-(-k // 32)] * 2)


@triton.jit
def overlapping_views_kernel(A, B, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(A + offs, tl.load(A + offs) + 1.0)  # the first half of the first view
    tl.store(B + N + offs, tl.load(B + N + offs) * 2.0)  # the second half of the second


def test_overlapping_views_keep_every_store():
    """Two views of one array share one buffer on the host back ends, so
    neither undoes the other's stores."""
    if dsl_backends.current() == "cuda":
        pytest.skip("device memory is shared as it is (the suite copies each numpy argument to the GPU apart)")
    n = 8
    buf = rng.standard_normal(3 * n).astype(np.float32)
    want = buf.copy()
    want[:n] += 1
    want[2 * n:] *= 2
    run(overlapping_views_kernel, (1,), buf[0:2 * n], buf[n:3 * n], N=n)
    np.testing.assert_array_equal(buf, want)


@triton.jit
def store_then_load_through_another_kernel(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(X + offs, offs.to(tl.float32) * 3.0)  # through X ...
    tl.debug_barrier()
    tl.store(Z + offs, tl.load(Y + offs + 1) + 1.0)  # ... seen through Y, one element on


@pytest.mark.parametrize("alias", ["same", "shifted", "int32_view"])
def test_a_store_through_one_argument_is_seen_through_another_over_the_same_memory(alias):
    """An in-place kernel given one array twice (or two views of it, of
    other types too): a store through one argument is read back through the
    other, as on the GPU; the array's elements outside both keep theirs."""
    if dsl_backends.current() == "cuda":
        pytest.skip("device memory is shared as it is (the suite copies each numpy argument to the GPU apart)")
    n = 16
    whole = rng.standard_normal(2 * n + 8).astype(np.float32)
    before = whole.copy()
    x_at, y_at = (7, 4) if alias == "shifted" else (4, 4)
    x = whole[x_at:x_at + n]
    y = whole.view(np.int32) if alias == "int32_view" else whole
    y = y[y_at:y_at + n + 1]
    z = np.full(n, np.nan, np.float32)
    run(store_then_load_through_another_kernel, (1,), x, y, z, N=n)
    np.testing.assert_array_equal(whole[x_at:x_at + n], np.arange(n, dtype=np.float32) * 3)
    # Y + 1 + i after X's stores (the separate copies of before would read the old values).
    seen = (whole.view(np.int32) if alias == "int32_view" else whole)[y_at + 1:y_at + 1 + n]
    np.testing.assert_array_equal(z, seen.astype(np.float32) + 1.0)
    changed = np.zeros(whole.size, bool)
    changed[x_at:x_at + n] = True
    np.testing.assert_array_equal(whole[~changed], before[~changed])


@triton.jit
def shift_in_place_kernel(X, Y, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(Y + 1 + i, tl.load(X + i) * 2.0)


@triton.jit
def shift_one_kernel(X, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(X + 1 + i, tl.load(X + i) * 2.0)


@pytest.mark.parametrize("twice", [False, True])
def test_a_store_over_the_memory_its_value_was_loaded_from(twice):
    """x[i + 1] = 2 x[i] over one array (one argument, or the array passed
    twice): the tile is loaded whole before it is stored (the CPU back end
    computed the product while storing it, reading what it had just
    written: zeros)."""
    if dsl_backends.current() == "cuda":
        pytest.skip("on the GPU the warps of a program race on it (no barrier between load and store)")
    a = rng.standard_normal(33).astype(np.float32)
    want = a.copy()
    want[1:] = 2 * a[:-1]
    if twice:
        run(shift_in_place_kernel, (1,), a, a, BLOCK=32)
    else:
        run(shift_one_kernel, (1,), a, BLOCK=32)
    np.testing.assert_array_equal(a, want)


@triton.jit
def strided_view_kernel(Q, K, rows, stride_row, D: tl.constexpr):
    """q and k, views of one qkv array (vLLM's qkv.split), updated in place
    through the strides the caller passes."""
    r = tl.program_id(0)
    offs = tl.arange(0, D)
    q = tl.load(Q + r * stride_row + offs)
    k = tl.load(K + r * stride_row + offs)
    tl.store(Q + r * stride_row + offs, q * 2.0 + k)
    tl.store(K + r * stride_row + offs, k - q)


@pytest.mark.parametrize("framework", ["numpy", "torch"])
def test_strided_views_are_passed_by_their_first_element(framework):
    """A non-contiguous host view passes its first element's address, as on
    the GPU; the bytes between its elements (v's here) stay as they were."""
    if dsl_backends.current() == "cuda":
        pytest.skip("host views (CUDA tensors are device memory: test_tritonc)")
    rows, d = 6, 16
    qkv = rng.standard_normal((rows, 3 * d)).astype(np.float32)
    want = qkv.copy()
    q0, k0 = want[:, :d].copy(), want[:, d:2 * d].copy()
    want[:, :d], want[:, d:2 * d] = q0 * 2 + k0, k0 - q0
    if framework == "torch":
        torch = pytest.importorskip("torch")
        t = torch.from_numpy(qkv)  # shares qkv's memory
        q, k, _ = t.split([d, d, d], dim=-1)
        assert not q.is_contiguous()
        strided_view_kernel[(rows,)](q, k, rows, t.stride(0), D=d)
    else:
        strided_view_kernel[(rows,)](qkv[:, :d], qkv[:, d:2 * d], rows, 3 * d, D=d)
    np.testing.assert_array_equal(qkv, want)


@triton.jit
def masked_divide_kernel(X, Y, Q, R, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m, other=0)
    y = tl.load(Y + offs, mask=m, other=0)  # 0 in the lanes masked off
    tl.store(Q + offs, x // y, mask=m)
    tl.store(R + offs, x % y)  # every lane: by zero, the dividend


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32"])
def test_integer_division_by_zero_in_masked_lanes(dtype):
    # As users write it: a divisor loaded with other=0 divides by zero in the
    # lanes masked off; no error, and x % 0 is x (docs/IR.md).
    block, n = 64, int(rng.integers(1, 64))
    info = np.iinfo(dtype)
    x = rng.integers(max(info.min, -10**6), 10**6, size=block, dtype=dtype)
    y = rng.integers(1, 50, size=block, dtype=dtype)
    if info.min < 0:
        y = y * rng.choice(np.array([-1, 1], dtype=dtype), size=block)
    q = np.full(block, 7, dtype=dtype)
    r = np.full(block, 7, dtype=dtype)
    run(masked_divide_kernel, (1,), x, y, q, r, n, BLOCK=block)
    xs, ys = x[:n].astype(np.int64), y[:n].astype(np.int64)
    want_q = np.trunc(xs / ys).astype(np.int64)  # C's truncation, not Python's floor
    np.testing.assert_array_equal(q[:n].astype(np.int64), want_q)
    np.testing.assert_array_equal(q[n:], np.full(block - n, 7, dtype=dtype))
    np.testing.assert_array_equal(r[:n].astype(np.int64), xs - want_q * ys)
    np.testing.assert_array_equal(r[n:], np.zeros(block - n, dtype=dtype))  # 0 % 0: the dividend, 0


@triton.jit
def shift_kernel(X, Y, L, R, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(L + offs, x << y)
    tl.store(R + offs, x >> y)


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32"])
def test_shifts_by_the_width_or_more_shift_every_bit_out(dtype):
    # As Triton on NVIDIA GPUs (PTX clamps the amount) and in its numpy
    # interpreter: 0, or the sign for >> of a signed integer.
    block = 64
    info = np.iinfo(dtype)
    bits = info.bits
    x = rng.integers(info.min, info.max, size=block, dtype=dtype, endpoint=True)
    y = rng.integers(0, bits + 12, size=block).astype(dtype)
    left, right = np.zeros(block, dtype=dtype), np.zeros(block, dtype=dtype)
    run(shift_kernel, (1,), x, y, left, right, BLOCK=block)
    mask = (1 << bits) - 1
    for i in range(block):
        xi, yi = int(x[i]), int(y[i])
        want_l = 0 if yi >= bits else (xi << yi) & mask
        want_r = (-1 if xi < 0 else 0) if yi >= bits else xi >> yi
        assert int(left[i]) & mask == want_l, (i, xi, yi)
        assert int(right[i]) == want_r, (i, xi, yi)


@triton.jit
def fma_kernel(X, Y, Z, O, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(O + offs, tl.fma(tl.load(X + offs), tl.load(Y + offs), tl.load(Z + offs)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_fma_rounds_once(dtype):
    # (1 + e)^2 - (1 + 2e) = e^2 exactly, which a product rounded before the
    # add loses; random operands against x * y + z computed exactly (in
    # float64 for float32 and float16, whose products are exact there).
    block = 64
    e = {"float32": 2.0 ** -12, "float64": 2.0 ** -27, "float16": 2.0 ** -6}[dtype]
    x = rng.uniform(-8, 8, size=block).astype(dtype)
    y = rng.uniform(-8, 8, size=block).astype(dtype)
    z = rng.uniform(-8, 8, size=block).astype(dtype)
    x[0] = y[0] = 1 + e
    z[0] = -(1 + 2 * e)
    o = np.full(block, np.nan, dtype=dtype)
    run(fma_kernel, (1,), x, y, z, o, BLOCK=block)
    assert float(o[0]) == e * e
    if dtype == "float64":  # exactly, in rationals, rounded once by float()
        want = np.array([float(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))) for a, b, c in zip(x, y, z)])
        np.testing.assert_array_equal(o, want)
    else:
        want = (x.astype(np.float64) * y.astype(np.float64) + z.astype(np.float64)).astype(dtype)
        np.testing.assert_array_equal(o, want)


@triton.jit
def softmax_rows_kernel(X, Y, Z, N: tl.constexpr, M: tl.constexpr):
    offs = tl.arange(0, N)[:, None] * M + tl.arange(0, M)[None, :]
    x = tl.load(X + offs)
    tl.store(Y + offs, tl.softmax(x, dim=1, keep_dims=True))
    tl.store(Z + offs, tl.softmax(x, 0, True, ieee_rounding=True))


def test_softmax_takes_dim_and_keep_dims():
    # Triton 3.x: softmax(x, dim=None, keep_dims=False, ieee_rounding=False).
    n, m = 8, 16
    x = rng.standard_normal((n, m)).astype(np.float32) * 4
    y, z = np.full_like(x, np.nan), np.full_like(x, np.nan)
    run(softmax_rows_kernel, (1,), x, y, z, N=n, M=m)
    for got, axis in ((y, 1), (z, 0)):
        e = np.exp(x.astype(np.float64) - x.max(axis=axis, keepdims=True))
        np.testing.assert_allclose(got, e / e.sum(axis=axis, keepdims=True), rtol=2e-6, atol=1e-7)


@triton.jit
def interleave_merge_kernel(P, A, B, O, M, N: tl.constexpr):
    tl.store(P + tl.arange(0, 2), tl.interleave(tl.load(A), tl.load(B)))  # two scalars
    offs = tl.arange(0, N)
    x = tl.load(M + offs)
    tl.store(O + offs, tl.bitonic_merge(x))
    tl.store(O + N + offs, tl.bitonic_merge(x, descending=True))


def test_interleave_of_scalars_and_bitonic_merge():
    n = 32
    a, b = rng.integers(-100, 100, size=1, dtype=np.int32), rng.integers(-100, 100, size=1, dtype=np.int32)
    up = np.sort(rng.integers(-1000, 1000, size=n // 2, dtype=np.int32))
    down = np.sort(rng.integers(-1000, 1000, size=n // 2, dtype=np.int32))[::-1]
    m = np.concatenate([up, down]) if rng.integers(0, 2) else np.concatenate([down, up])  # bitonic either way
    p, o = np.full(2, -7, np.int32), np.full(2 * n, -7, np.int32)
    run(interleave_merge_kernel, (1,), p, a, b, o, m, N=n)
    np.testing.assert_array_equal(p, [a[0], b[0]])
    np.testing.assert_array_equal(o[:n], np.sort(m))
    np.testing.assert_array_equal(o[n:], np.sort(m)[::-1])


@triton.jit
def carried_tuple_kernel(O, n):
    t = (1.0, 2)  # numbers: tensors once the loop carries them, as Triton 3.3+
    for i in range(n):
        t = (t[0] * 2, t[1] + i)
    u = (0.5, 0)
    k = 0
    while k < n:
        u = (0.25, 1)  # numbers again, where the carried tuple holds tensors
        u = (u[0] + k, u[1] + k)
        k += 1
    shape = (16, 4)  # a tuple no loop assigns keeps its numbers: still a shape
    acc = tl.zeros(shape, tl.float32)
    tl.store(O + tl.arange(0, 4), tl.sum(acc, 0) + t[0] + u[0] + (t[1] + u[1]).to(tl.float32))


def test_tuples_of_numbers_carried_through_loops():
    n = int(rng.integers(1, 6))
    o = np.full(4, np.nan, np.float32)
    run(carried_tuple_kernel, (1,), o, n)
    t0, t1 = 2.0 ** n, 2 + n * (n - 1) // 2
    u0, u1 = 0.25 + (n - 1), 1 + (n - 1)
    np.testing.assert_array_equal(o, np.full(4, t0 + u0 + t1 + u1, np.float32))


# ---- found by the fourth bug hunt (session 28) ----

@triton.jit
def annotated_scalars_kernel(O, n: tl.int64, u: tl.uint8, f: tl.float64):
    tl.store(O, n * 1048576)
    tl.store(O + 1, (u + 255).to(tl.int64))
    tl.store(O + 2, (f * 1e10).to(tl.int64))


def test_an_annotated_scalar_parameter_has_its_annotation_type():
    """`n: tl.int64` is int64 even for a small value (n * 2^20 does not wrap
    at 32 bits), `u: tl.uint8` wraps at 8 bits, `f: tl.float64` keeps a
    float64 (Triton 3.x's annotated parameters). A 1 is specialized to a
    constant and keeps its annotated type (the GPU check found 1 + 255 = 256)."""
    n = int(rng.integers(3000, 9000))
    for u in (int(rng.integers(2, 100)), 1):
        o = np.zeros(3, np.int64)
        run(annotated_scalars_kernel, (1,), o, n, u, 0.1234567891)
        np.testing.assert_array_equal(o, [n * 1048576, (u + 255) % 256, 1234567891])


@triton.jit
def cumprod_type_kernel(X, O, F, P, N: tl.constexpr):
    o = tl.arange(0, N)
    y = tl.cumprod(tl.load(X + o), 0)
    tl.static_assert(y.dtype == tl.int8)
    tl.store(O + o, y)
    h = tl.cumprod(tl.load(F + o), 0)
    tl.static_assert(h.dtype == tl.float16)
    tl.store(P + o, h)


def test_cumprod_keeps_the_input_type():
    """Triton's cumprod multiplies in the input's type (int8 wraps, float16
    rounds every product); only bfloat16 computes in float32."""
    x = rng.integers(-5, 6, 16).astype(np.int8)
    f = (1 + rng.uniform(-0.01, 0.01, 16)).astype(np.float16)
    o = np.zeros(16, np.int8)
    p = np.zeros(16, np.float16)
    run(cumprod_type_kernel, (1,), x, o, f, p, N=16)
    want = np.zeros(16, np.int8)
    acc = np.int8(1)
    with np.errstate(over="ignore"):
        for i in range(16):
            acc = np.int8(acc * x[i])
            want[i] = acc
    np.testing.assert_array_equal(o, want)
    # (every product rounded to float16, in the scan's own order: a few float16 ulps from numpy's)
    np.testing.assert_allclose(p.astype(np.float64), np.cumprod(f.astype(np.float64)), rtol=4e-3)


@triton.jit
def wide_literal_kernel(X, O, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.static_assert((x * 1e300).dtype == tl.float64)
    tl.static_assert((x * 1e30).dtype == tl.float32)
    tl.store(O + tl.arange(0, N), x * 1e300)
    tl.store(O + N + tl.arange(0, N), x * 1e-300)


def test_a_float_literal_beyond_float32_is_float64():
    """Triton types a Python float float64 where float32 would lose it
    (outside float32's normal range): int32 * 1e300 is float64, not inf."""
    x = rng.integers(1, 100, 8).astype(np.int32)
    o = np.zeros(16)
    run(wide_literal_kernel, (1,), x, o, N=8)
    np.testing.assert_allclose(o, np.concatenate([x * 1e300, x * 1e-300]), rtol=1e-15)


@triton.jit
def store_or_negate(O, v, flag):
    if flag:
        tl.store(O, v)
        return
    tl.store(O, -v)


@triton.jit
def void_return_kernel(O, flag):
    store_or_negate(O, 3, flag)


@pytest.mark.parametrize("flag", [True, False])
def test_a_bare_return_in_a_helper_under_a_runtime_if(flag):
    """`return` without a value on one path, falling off the end on the
    other: both return nothing (was refused as 'returns a value on some paths')."""
    o = np.zeros(1, np.int32)
    run(void_return_kernel, (1,), o, flag)
    assert o[0] == (3 if flag else -3)


@triton.jit
def block_pointer_members_kernel(X, O, M, N: tl.constexpr, B: tl.constexpr):
    p = tl.make_block_ptr(X, (M,), (1,), (0,), (B,), (0,))
    q = tl.make_block_ptr(O, (M,), (1,), (0,), (B,), (0,))
    for _ in range(0, N, B):
        x = p.load(boundary_check=(0,))
        tl.static_assert(x.type.is_block() and x.type.with_element_ty(tl.int8).element_ty == tl.int8)
        q.store(x * 2.0 + x.numel, boundary_check=(0,))
        p = p.advance((B,))
        q = q.advance((B,))
    tl.static_assert(tl.float16.fp_mantissa_width == 10 and tl.bfloat16.exponent_bias == 127)
    tl.static_assert(tl.int8.get_int_max_value() == 127 and tl.uint16.get_int_min_value() == 0)
    tl.static_assert(tl.uint32.is_uint32() and not tl.int32.is_uint32() and tl.float32.is_standard_floating())


def test_block_pointer_members_numel_attribute_and_dtype_queries():
    """p.load(...), p.store(x, ...), p.advance(...) as Triton's tensor members;
    x.numel as an attribute; dtype queries (mantissa width, bias, integer
    limits, is_uint32, with_element_ty)."""
    m = int(rng.integers(20, 60))
    x = rng.standard_normal(64).astype(np.float32)
    o = np.full(64, -1.0, np.float32)
    run(block_pointer_members_kernel, (1,), x, o, m, N=64, B=16)
    np.testing.assert_array_equal(o[:m], x[:m] * 2 + 16)
    np.testing.assert_array_equal(o[m:], -1.0)


@triton.jit
def round_toward_zero_kernel(X, H, B, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(X + o)
    tl.store(H + o, x.to(tl.float16, fp_downcast_rounding="rtz"))
    tl.store(B + o, tl.cast(x, tl.bfloat16, fp_downcast_rounding="rtz"))


def test_fp_downcast_rounding_toward_zero():
    """.to(float16 / bfloat16, fp_downcast_rounding='rtz'): the nearest value
    stepped toward zero where it lies beyond x; overflow gives the largest
    finite value; NaN, infinities and exact values as they are."""
    n = 64
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    x[:6] = [7e4, -1e5, np.inf, -np.inf, 1.5, -0.0]
    x[6] = np.nan
    h = np.zeros(n, np.float16)
    b = np.zeros(n, np.uint16)
    run(round_toward_zero_kernel, (1,), x, h, triton.reinterpret(b, tl.bfloat16), N=n)

    def toward_zero(x, nearest, step):
        r = nearest(x)
        beyond = np.abs(r.astype(np.float64)) > np.abs(x.astype(np.float64))
        return np.where(beyond & np.isfinite(x), step(r), r)
    want_h = toward_zero(x, lambda v: v.astype(np.float16),
                         lambda r: np.nextafter(r, np.float16(0)).astype(np.float16))
    np.testing.assert_array_equal(h, want_h)
    # bfloat16 as the high half of float32's bits, rounded to nearest even, then stepped
    bits = x.view(np.uint32).astype(np.uint64)
    nearest = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nearest[np.isnan(x)] = 0x7FC0
    as_f32 = (nearest.astype(np.uint32) << 16).view(np.float32)
    beyond = (np.abs(as_f32.astype(np.float64)) > np.abs(x.astype(np.float64))) & np.isfinite(x)
    want_b = np.where(beyond, nearest - 1, nearest).astype(np.uint16)
    finite = ~np.isnan(x)
    np.testing.assert_array_equal(b[finite], want_b[finite])
    assert np.all((b[~finite] & 0x7F80) == 0x7F80) and np.all(b[~finite] & 0x7F)


@triton.jit
def boolean_max_with_index_kernel(X, V, I, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N)) != 0
    v, i = tl.max(x, 0, return_indices=True)
    tl.static_assert(v.dtype == tl.int1)
    tl.store(V, v)
    tl.store(I, i)


def test_the_max_of_booleans_with_its_index_stays_boolean():
    """tl.max(bools, return_indices=True): a boolean and the first index of
    it (Triton promotes only without indices)."""
    x = (rng.random(16) < 0.3).astype(np.int32)
    v, i = np.zeros(1, np.bool_), np.full(1, -1, np.int32)
    run(boolean_max_with_index_kernel, (1,), x, v, i, N=16)
    assert bool(v[0]) == bool(x.any())
    assert i[0] == (int(np.argmax(x)) if x.any() else 0)


@triton.jit
def split_bf16_dot_kernel(A, B, C, PRECISION: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(A + r[:, None] * N + r[None, :])
    b = tl.load(B + r[:, None] * N + r[None, :])
    tl.store(C + r[:, None] * N + r[None, :], tl.dot(a, b, input_precision=PRECISION))


@pytest.mark.parametrize("precision,bound", [("bf16x3", 3e-5), ("bf16x6", 2e-6)])
def test_float32_dots_on_split_bfloat16(precision, bound):
    """input_precision='bf16x3' / 'bf16x6': float32 operands as two or three
    bfloat16 pieces; the error, relative to |a| @ |b|, falls from bfloat16's
    (~4e-3) to ~2^-16 and float32's order."""
    n = 32
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    c = np.full((n, n), np.nan, np.float32)
    run(split_bf16_dot_kernel, (1,), a, b, c, PRECISION=precision, N=n)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    err = np.max(np.abs(c - exact) / scale)
    assert err < bound, err


@triton.jit
def unsigned_bounds_kernel(Z, W, n: tl.uint32, m: tl.uint64):
    count = 0
    for i in range(n - 3, n):  # a uint32 variable: 2^31 and beyond stay positive
        count += 1
        tl.store(Z + 1, i.to(tl.int64))
    tl.store(Z, count)
    for j in range(m - 1, m):  # a uint64 variable: not truncated to 32 bits
        tl.store(W, j)


def test_loop_variables_take_the_promoted_type_of_unsigned_bounds():
    n = int(rng.integers(2 ** 31, 2 ** 32 - 1))
    m = int(rng.integers(2 ** 33, 2 ** 60))
    z, w = np.zeros(2, np.int64), np.zeros(1, np.uint64)
    run(unsigned_bounds_kernel, (1,), z, w, n, m)
    assert z.tolist() == [3, n - 1] and int(w[0]) == m - 1


@triton.jit
def nan_extremes_kernel(X, Y, MAX, MIN):
    x, y = tl.load(X + tl.arange(0, 8)), tl.load(Y + tl.arange(0, 8))
    tl.store(MAX + tl.arange(0, 8), tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(MIN + tl.arange(0, 8), tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_maximum_and_minimum_propagate_nan_next_to_zeros(dtype):
    """propagate_nan=ALL: a NaN on either side wins over +-0 too (float16 on
    the CPU back end returned the zero)."""
    zeros = np.array([0.0, -0.0, 0.0, -0.0], dtype)
    x = np.concatenate([zeros, np.full(4, np.nan, dtype)])
    y = np.concatenate([np.full(4, np.nan, dtype), zeros])
    perm = rng.permutation(8)
    x, y = x[perm], y[perm]
    hi, lo = np.zeros(8, dtype), np.zeros(8, dtype)
    run(nan_extremes_kernel, (1,), x, y, hi, lo)
    assert np.isnan(hi).all() and np.isnan(lo).all()


@triton.jit
def dtype_name_kernel(X, Z):
    x = tl.load(X)
    if x.dtype.name == "fp32":  # as Triton names it
        tl.store(Z, 1)
    else:
        tl.store(Z, 2)


def test_dtype_names_are_tritons():
    assert [t.name for t in (tl.float16, tl.bfloat16, tl.float32, tl.float64)] == ["fp16", "bf16", "fp32", "fp64"]
    assert str(tl.float32) == "fp32" and repr(tl.float32) == "tl.float32" and tl.int8.name == "int8"
    assert tl.dtype("fp16") is tl.float16 and tl.dtype("float16") is tl.float16
    assert tl.core.get_int_dtype(16, False) is tl.uint16 and tl.core.get_int_dtype(1, True) is tl.int1
    assert tl.pointer_type(tl.float32).name == "pointer<fp32>"
    with pytest.raises(TypeError, match="not a dtype name"):
        tl.dtype("fp13")
    z = np.zeros(1, np.int32)
    run(dtype_name_kernel, (1,), np.ones(1, np.float32), z)
    assert z[0] == 1


@tl.constexpr_function
def _twice_as_constexpr(n):
    return 2 * n


@triton.jit
def fill_doubled_kernel(X, N: tl.constexpr):
    tl.store(X + tl.arange(0, _twice_as_constexpr(N)), tl.full((_twice_as_constexpr(N),), 1.0, tl.float32))


def test_tl_constexpr_function_run_warmup_src_and_params():
    x = np.zeros(16, np.float32)
    n = int(rng.integers(1, 4))
    compiled = fill_doubled_kernel.run(x, N=2 ** n, grid=(1,), warmup=True)
    assert "ttir" in compiled.asm and x.sum() == 0  # compiled, not launched
    run(fill_doubled_kernel, (1,), x, N=2 ** n)
    assert x.sum() == 2 ** (n + 1)
    assert fill_doubled_kernel.src.startswith("def fill_doubled_kernel(X, N: tl.constexpr):")  # from `def`
    assert [(p.name, p.is_constexpr) for p in fill_doubled_kernel.params] == [("X", False), ("N", True)]
    assert tl.block_type is tl.core.block_type


@triton.jit
def _sign_and_step(x):
    if x > 0:
        return x * 2, x + 1
    return 0, -1  # numbers: tensors like the other return's (Triton)


@triton.jit
def tuple_numbers_kernel(X, Z):
    x = tl.load(X)
    a, b = _sign_and_step(x)
    t = (1, 2)
    if x > 3:
        t = (3, 4)  # the tuple's numbers are tensors on both paths
    u = (1, 2.5)
    tl.store(Z, a * 100 + b * 10 + t[0] * 1000 + t[1] * 10000)
    tl.store(Z + 1, (u[0].to(tl.float32) + u[1]).to(tl.int32))  # t[0] of numbers has tensor methods


@pytest.mark.parametrize("x", [-2, 2, 5])
def test_tuples_of_numbers_in_returns_and_under_a_runtime_if(x):
    z = np.zeros(2, np.int32)
    run(tuple_numbers_kernel, (1,), np.array([x], np.int32), z)
    a, b = (x * 2, x + 1) if x > 0 else (0, -1)
    t = (3, 4) if x > 3 else (1, 2)
    assert z.tolist() == [a * 100 + b * 10 + t[0] * 1000 + t[1] * 10000, 3]


@triton.jit
def float_atomic_extremes_kernel(HI, LO, V, N: tl.constexpr):
    offs = tl.arange(0, N)
    v = tl.load(V + offs)
    tl.atomic_max(HI + offs, v)
    tl.atomic_min(LO + offs, v)


def _bits_extreme(mem, val, is_max):
    """Triton's float atomic max/min on float32 bits: the value's sign bit
    picks signed max (min) or unsigned min (max)."""
    m, v = np.float32(mem).view(np.uint32), np.float32(val).view(np.uint32)
    if v >> 31:
        r = min(m, v) if is_max else max(m, v)
    else:
        r = max(m.view(np.int32), v.view(np.int32)).view(np.uint32) if is_max else \
            min(m.view(np.int32), v.view(np.int32)).view(np.uint32)
    return np.uint32(r).view(np.float32)


def test_float_atomic_max_and_min_order_bit_patterns():
    """Float atomic max/min as Triton's (and the GPU's) bit rule: -0.0 <
    +0.0, NaNs by their bits; every back end alike."""
    specials = np.array([np.nan, -np.nan, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 2.5, -3.0], np.float32)
    specials[1] = np.uint32(0xFFC00000).view(np.float32)  # a NaN with its sign set
    pairs = [(a, b) for a in specials for b in specials]
    idx = rng.permutation(len(pairs))[:64]
    mem = np.array([pairs[i][0] for i in idx], np.float32)
    val = np.array([pairs[i][1] for i in idx], np.float32)
    hi, lo = mem.copy(), mem.copy()
    run(float_atomic_extremes_kernel, (1,), hi, lo, val, N=64)
    want_hi = np.array([_bits_extreme(m, v, True) for m, v in zip(mem, val)], np.float32)
    want_lo = np.array([_bits_extreme(m, v, False) for m, v in zip(mem, val)], np.float32)
    assert (hi.view(np.uint32) == want_hi.view(np.uint32)).all()
    assert (lo.view(np.uint32) == want_lo.view(np.uint32)).all()


@triton.jit
def gather3_kernel(S, I, O, AXIS: tl.constexpr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                   K: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    src = tl.load(S + a * B * C + b * C + c)
    # the index tensor: the gathered axis K long, the others as src's
    ia = tl.arange(0, K if AXIS == 0 else A)[:, None, None]
    ib = tl.arange(0, K if AXIS == 1 else B)[None, :, None]
    ic = tl.arange(0, K if AXIS == 2 else C)[None, None, :]
    nb = K if AXIS == 1 else B
    nc = K if AXIS == 2 else C
    idx = tl.load(I + ia * nb * nc + ib * nc + ic)
    tl.store(O + ia * nb * nc + ib * nc + ic, tl.gather(src, idx, AXIS))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_gather_of_three_dimensional_tensors(axis):
    """tl.gather of rank 3 along each axis (Triton's takes any rank), as
    numpy's take_along_axis."""
    shape = (4, 8, 16)
    k = 8
    src = rng.standard_normal(shape).astype(np.float32)
    ishape = tuple(k if d == axis else n for d, n in enumerate(shape))
    idx = rng.integers(0, shape[axis], ishape).astype(np.int32)
    out = np.full(ishape, np.nan, np.float32)
    run(gather3_kernel, (1,), src, idx, out, AXIS=axis, A=4, B=8, C=16, K=k)
    np.testing.assert_array_equal(out, np.take_along_axis(src, idx, axis))


@triton.jit
def max_with_index_kernel(X, V, I, W, J, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :])
    v, i = tl.max(x, axis=1, return_indices=True)
    w, j = tl.min(x, axis=1, return_indices=True, keep_dims=True)
    tl.store(V + tl.arange(0, N), v)
    tl.store(I + tl.arange(0, N), i)
    tl.store(W + tl.arange(0, N)[:, None], w)
    tl.store(J + tl.arange(0, N)[:, None], j)


def test_max_and_min_with_indices_return_the_element_at_the_index():
    """Rows of signed zeros: the value returned is x[index] (the first of
    -0.0 and +0.0), as Triton's combine of (value, index) pairs."""
    n = 8
    x = rng.choice(np.array([0.0, -0.0, -1.0, -2.0], np.float32), (n, n))
    v, w = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
    i, j = np.full(n, -1, np.int32), np.full(n, -1, np.int32)
    run(max_with_index_kernel, (1,), x, v, i, w, j, N=n)
    assert (i == np.argmax(x, axis=1)).all() and (j == np.argmin(x, axis=1)).all()
    rows = np.arange(n)
    assert (v.view(np.uint32) == x[rows, i].view(np.uint32)).all()
    assert (w.view(np.uint32) == x[rows, j].view(np.uint32)).all()


@triton.jit
def fill_block_kernel(X, BLOCK: tl.constexpr, VALUE: tl.constexpr):
    tl.store(X + tl.arange(0, BLOCK), tl.full((BLOCK,), VALUE, tl.float32))


def test_numpy_scalars_as_constexprs_are_their_numbers():
    """BLOCK=np.int64(8) is 8 (Triton refuses a numpy integer there; it
    read as 'arange's end must be an integer constant, got 8')."""
    x = np.zeros(16, np.float32)
    value = float(rng.uniform(1, 2))
    run(fill_block_kernel, (1,), x, BLOCK=np.int64(16), VALUE=np.float32(value))
    np.testing.assert_allclose(x, np.float32(value))


def test_dtypes_copy_and_pickle_as_themselves():
    import copy
    import pickle
    for t in (tl.float32, tl.bfloat16, tl.uint8, tl.float8e4nv, tl.pointer_type(tl.float16)):
        assert copy.copy(t) == t and copy.deepcopy({"DT": t})["DT"] == t and pickle.loads(pickle.dumps(t)) == t
    assert copy.deepcopy(tl.float32) is tl.float32
    with pytest.raises(tl.CompileError, match="not supported"):
        tl.pointer_type(tl.float8e4b15)


def test_host_arithmetic_on_constexprs_and_tritons_names():
    """A module-level constexpr computes on the host as Triton's (a
    constexpr back); the names host code imports: __version__,
    triton.runtime.JITFunction/Autotuner/Heuristics, triton.compiler's
    CompilationError; do_bench refuses an unknown return_mode."""
    n = int(rng.integers(17, 1000))
    block = tl.constexpr(16)
    assert isinstance(block * 2, tl.constexpr) and (block * 2).value == 32 and (2 + block).value == 18
    assert (block < 32).value is True and (-block).value == -16 and (n // block).value == n // 16
    assert triton.cdiv(n, block) == -(-n // 16) and float(block) == 16.0 and int(block) == 16
    assert isinstance(triton.__version__, str) and triton.__version__[0].isdigit()
    assert triton.runtime.JITFunction is triton.JITFunction and triton.runtime.Autotuner and triton.runtime.Heuristics
    from tritonc.compiler import CompilationError
    assert CompilationError is triton.CompilationError
    with pytest.raises(ValueError, match="return_mode"):
        triton.testing.do_bench(lambda: None, return_mode="foo")


@triton.jit
def _bump_first(Y, X, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(Y + i, tl.load(Y + i) + tl.load(X + i))


def test_one_configuration_is_launched_untimed_and_hooks_see_every_option(tmp_path, monkeypatch):
    """As Triton's autotune: a single configuration is launched once, never
    timed (an in-place kernel updates once); a config's pre_hook gets the
    launch options (num_warps...) too."""
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path))
    seen = []
    one = triton.autotune(configs=[triton.Config({"BLOCK": 16}, num_warps=2, pre_hook=seen.append)],
                          key=[])(_bump_first)
    y0 = rng.random(16).astype(np.float32)
    x = rng.random(16).astype(np.float32)
    y = y0.copy()
    one[(1,)](y, x)
    np.testing.assert_array_equal(y, y0 + x)
    assert len(seen) == 1 and seen[0]["num_warps"] == 2 and seen[0]["BLOCK"] == 16 and "num_stages" in seen[0]


def test_warmup_takes_torch_dtypes_for_tensors():
    """kernel.warmup(torch.float32, ...) compiles with pointers of those
    types, no tensor needed (Triton's MockTensor)."""
    torch = pytest.importorskip("torch")

    @triton.jit
    def add(X, Y, O, n, BLOCK: tl.constexpr):
        o = tl.arange(0, BLOCK)
        tl.store(O + o, tl.load(X + o, mask=o < n) + tl.load(Y + o, mask=o < n), mask=o < n)

    k = add.warmup(torch.float16, torch.float32, O=torch.int8, n=100, BLOCK=64, grid=(1,))
    head = [line for line in k.asm["ttir"].splitlines() if "kernel @add" in line][0]
    assert "%X: f16*" in head and "%Y: f32*" in head and "%O: i8*" in head and "%n: i32" in head


def test_cache_dir_none_keeps_kernels_and_tunings_in_memory(tmp_path, monkeypatch):
    """TRITONC_CACHE_DIR=none, as `--cache-dir none`: nothing is written (a
    folder named `none` was made before), kernels and tuning results still
    run from memory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRITONC_CACHE_DIR", "none")
    tuned = triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})],
                            key=[], restore_value=["Y"])(_bump_first)
    y0 = rng.random(32).astype(np.float32)
    x = rng.random(32).astype(np.float32)
    y = y0.copy()
    tuned[(1,)](y, x)
    assert tuned.best_config is not None
    picked = tuned.best_config.kwargs["BLOCK"]
    np.testing.assert_array_equal(y[:picked], y0[:picked] + x[:picked])
    assert os.listdir(tmp_path) == [], os.listdir(tmp_path)


@triton.jit
def _huge_tiles(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def test_too_much_shared_memory_raises_out_of_resources(monkeypatch):
    """A configuration whose buffers exceed the target's shared memory
    raises triton.OutOfResources (an Error), as host code that prunes
    configurations expects, with what it needs and what there is."""
    monkeypatch.setenv("TRITONC_ARCH", "sm_80")
    a = np.zeros((256, 1024), np.float16)
    with pytest.raises(triton.OutOfResources, match="bytes of shared memory, more than the") as info:
        _huge_tiles.warmup(a, a, np.zeros((256, 256), np.float32), 1024, BM=256, BN=256, BK=256, num_stages=4,
                           grid=(1,)).asm["ptx"]
    assert info.value.required > info.value.limit > 0 and info.value.name == "shared memory"


def test_jit_takes_tritons_keyword_arguments():
    """@triton.jit(version=..., do_not_specialize=..., do_not_specialize_on_alignment=...,
    noinline=..., debug=...) as Triton 3.x takes them (the specialization
    hints change no result here); the kernel runs as without them."""
    @triton.jit(version=1, do_not_specialize=["n"], do_not_specialize_on_alignment=["x_ptr"], noinline=False)
    def fill(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, offs * 3, mask=offs < n)

    n = int(rng.integers(1, 16))
    x = np.full(16, -1, np.int32)
    run(fill, (1,), x, n, BLOCK=16)
    want = np.full(16, -1, np.int32)
    want[:n] = np.arange(n) * 3
    np.testing.assert_array_equal(x, want)


# ---- found by FlagGems' flash attention (session 39) ----

@triton.jit
def range_keywords_kernel(O, n, S: tl.constexpr):
    a = 0
    for i in tl.range(0, n, step=S, num_stages=2):  # FlagGems' flash_fwd_kernel: its masked columns
        a += i
    b = 0
    for i in tl.range(n, step=S):  # (arg2=None: from 0 to arg1)
        b += 1
    c = 0
    for i in tl.static_range(1, 9, step=3):
        c += i
    d = 0
    for i in tl.range(arg1=2, arg2=n, step=None):  # (step=None: 1)
        d += 1
    tl.store(O + tl.arange(0, 4), tl.where(tl.arange(0, 4) == 0, a, tl.where(tl.arange(0, 4) == 1, b,
                                                                             tl.where(tl.arange(0, 4) == 2, c, d))))


def test_range_bounds_given_by_keyword():
    """`tl.range(lo, hi, step=S)` steps by S (the keyword was dropped: a
    step of 1, and FlagGems' flash attention forward looped over every
    column offset instead of every block); `tl.range(n, step=S)` runs from
    0; tl.static_range takes `step=` too."""
    n = int(rng.integers(40, 200))
    s = int(rng.choice([8, 16, 32]))
    o = np.full(4, -1, np.int32)
    run(range_keywords_kernel, (1,), o, n, S=s)
    np.testing.assert_array_equal(o, [sum(range(0, n, s)), len(range(0, n, s)), 1 + 4 + 7, n - 2])


@triton.jit
def range_bad_keyword_kernel(O, n):
    for i in tl.range(0, n, stride=2):
        tl.store(O + i, i)


@triton.jit
def range_without_start_kernel(O, n):
    for i in tl.range(step=2):
        tl.store(O + i, i)


def test_range_refuses_an_unknown_keyword_and_a_missing_bound():
    with pytest.raises(tl.CompileError, match="range takes no keyword 'stride'"):
        run(range_bad_keyword_kernel, (1,), np.zeros(4, np.int32), 4)
    with pytest.raises(tl.CompileError, match="range needs its first bound"):
        run(range_without_start_kernel, (1,), np.zeros(4, np.int32), 4)


@triton.jit
def scalar_none_slice_kernel(O, n):
    r = tl.arange(0, 8)
    m = n + 0  # a scalar tensor
    a = r[None, :] < m[None, :]  # FlagGems' paged flash attention: [1, 8] < [1]
    b = r[:, None] < m[:, None]
    tl.store(O + r, tl.sum(a.to(tl.int32), 0) + 10 * tl.sum(b.to(tl.int32), 1))


def test_a_scalars_none_and_full_slice_make_one_element():
    """As Triton: `:` consumes no axis, so a scalar's s[None, :] and
    s[:, None] are both of shape [1] (refused before: too many indices)."""
    n = int(rng.integers(0, 9))
    o = np.full(8, -1, np.int32)
    run(scalar_none_slice_kernel, (1,), o, n)
    np.testing.assert_array_equal(o, np.where(np.arange(8) < n, 11, 0))


@triton.jit
def index_and_full_slice_kernel(O):
    r = tl.arange(0, 8)
    tl.store(O, r[:, 0])


@triton.jit
def annotated_none_kernel(O, s: tl.int32 = None):
    if s is None:
        tl.store(O, 7)
    else:
        tl.store(O, s)


def test_full_slices_are_dropped_only_among_full_slices_and_none():
    """`r[:, 0]` of a 1-D tile stays an error (only `:` and None consume no
    axis in Triton); an annotated parameter given None stays None."""
    with pytest.raises(tl.CompileError, match="too many indices"):
        run(index_and_full_slice_kernel, (1,), np.zeros(1, np.int32))
    o = np.zeros(1, np.int32)
    run(annotated_none_kernel, (1,), o)
    assert o[0] == 7


def _make_closure_kernel(factor):
    @triton.jit
    def local_helper(x):
        return x * FACTOR

    FACTOR = tl.constexpr(factor)  # (a closure variable that is a constexpr)

    @triton.jit
    def closure_kernel(Z, X, n, BLOCK: tl.constexpr):
        o = tl.arange(0, BLOCK)
        tl.store(Z + o, local_helper(tl.load(X + o, mask=o < n)), mask=o < n)
    return closure_kernel


def test_kernels_defined_in_a_function_name_its_locals():
    """A kernel (or helper) defined inside a function reads that function's
    variables, @jit helpers and constexprs, as in Triton."""
    factor = int(rng.integers(2, 9))
    kernel = _make_closure_kernel(factor)
    n = int(rng.integers(1, 65))
    x = rng.standard_normal(n).astype(np.float32)
    z = np.full(n, np.nan, np.float32)
    run(kernel, (1,), z, x, n, BLOCK=64)
    np.testing.assert_allclose(z, x * factor, rtol=1e-6)


@triton.jit
def one_element_condition_kernel(X, Out, EXPLICIT: tl.constexpr):
    c = tl.load(X + tl.arange(0, 1)) > 42  # a tensor of one element
    if EXPLICIT:
        c = c.item()
    if c:
        tl.store(Out, 1)
    else:
        tl.store(Out, 2)


@pytest.mark.parametrize("explicit", [False, True])
def test_an_if_on_a_tensor_of_one_element_tests_it(explicit):
    for v in (int(rng.integers(0, 43)), int(rng.integers(43, 100))):
        out = np.full(1, -1, np.int32)
        run(one_element_condition_kernel, (1,), np.array([v], np.int32), out, EXPLICIT=explicit)
        assert out[0] == (1 if v > 42 else 2), v


@triton.jit
def statement_ternary_kernel(A, B, flag):
    tl.store(A, 1) if flag > 0 else tl.store(B, 2)


def test_a_ternary_statement_runs_one_branch():
    """`store(a) if c else store(b)` as a statement stores once (not both,
    as a select of two evaluated branches would)."""
    for flag in (int(rng.integers(1, 10)), -int(rng.integers(0, 10))):
        a, b = np.full(1, -7, np.int32), np.full(1, -7, np.int32)
        run(statement_ternary_kernel, (1,), a, b, flag)
        assert (a[0], b[0]) == ((1, -7) if flag > 0 else (-7, 2)), flag


@triton.jit
def nine_dims_kernel(X):
    x = tl.load(X + tl.arange(0, 512))
    tl.store(X + tl.arange(0, 512), tl.ravel(tl.reshape(x, (2, 2, 2, 2, 2, 2, 2, 2, 2))))


def test_tensors_of_more_than_eight_dimensions_are_refused_at_their_line():
    with pytest.raises(tl.CompileError, match=r"at most 8 dimensions in tritonc, not 9") as err:
        run(nine_dims_kernel, (1,), np.zeros(512, np.int32))
    assert "tl.reshape(x, (2, 2" in str(err.value)


@triton.jit
def bump_all(values):
    return tl.tuple([v + 1 for v in values])


@triton.jit
def comprehension_kernel(Out, a, b, c):
    t = bump_all((a, b, c))
    evens = [i * 10 for i in range(6) if i % 2 == 0]  # 0, 20, 40: constants
    squares = tuple(x * x for x in t)
    tl.static_assert(isinstance(t, tl.tuple) and len(evens) == 3)
    for i in tl.static_range(3):
        tl.store(Out + i, squares[i] + evens[i])


def test_comprehensions_unroll_over_tuples_and_ranges():
    """List comprehensions and generator expressions over tuples and constant
    ranges (with conditions), and tl.tuple, as in Triton 3.x."""
    a, b, c = (int(v) for v in rng.integers(-50, 50, size=3))
    out = np.full(3, -1, np.int32)
    run(comprehension_kernel, (1,), out, a, b, c)
    assert list(out) == [(a + 1) ** 2, (b + 1) ** 2 + 20, (c + 1) ** 2 + 40]


def test_reinterpret_takes_numpy_and_torch_style_dtypes():
    x = rng.standard_normal(4).astype(np.float32)
    w = triton.reinterpret(x, np.dtype("int32"))
    assert w.dtype is tl.int32 and triton.reinterpret(w, np.float32) is x
    with pytest.raises(TypeError, match="expected an element type"):
        triton.reinterpret(x, "no such type")


@triton.jit
def copy_bits_kernel(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.load(X + offs))


def test_a_reinterpreted_array_is_copied_and_allocated_as_triton_s_wrapper():
    """Triton's TensorWrapper methods (new_empty, clone, copy_, cpu, data) keep
    the element type seen by kernels: a uint32 view of float bits round-trips."""
    x = rng.standard_normal(16).astype(np.float32)
    w = triton.reinterpret(x, tl.uint32)
    out = w.new_empty((16,))
    assert isinstance(out, triton.TensorWrapper) and out.dtype is tl.uint32 and out.shape == (16,)
    out.base[...] = 0
    run(copy_bits_kernel, (1,), w, out, N=16)
    np.testing.assert_array_equal(out.base.view(np.uint32), x.view(np.uint32))
    c = w.clone()
    assert c.dtype is tl.uint32 and c.base is not x
    np.testing.assert_array_equal(c.base, x)
    c.copy_(triton.reinterpret(np.zeros(16, np.float32), tl.uint32))
    assert not c.base.any() and x.any()
    assert w.cpu() is w and w.data is not None


@triton.jit
def dot4d_kernel(X, Y, Z, B0: tl.constexpr, B1: tl.constexpr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    b0 = tl.arange(0, B0)[:, None, None, None]
    b1 = tl.arange(0, B1)[None, :, None, None]
    m = tl.arange(0, M)[None, None, :, None]
    k = tl.arange(0, K)[None, None, None, :]
    kr = tl.arange(0, K)[None, None, :, None]
    n = tl.arange(0, N)[None, None, None, :]
    x = tl.load(X + ((b0 * B1 + b1) * M + m) * K + k)
    y = tl.load(Y + ((b0 * B1 + b1) * K + kr) * N + n)
    tl.store(Z + ((b0 * B1 + b1) * M + m) * N + n, tl.dot(x, y))


def test_dots_of_more_than_three_dimensions_batch_the_leading_axes():
    b0, b1, m, k, n = 2, 2, 16, 16, 16
    x = rng.standard_normal((b0, b1, m, k)).astype(np.float32)
    y = rng.standard_normal((b0, b1, k, n)).astype(np.float32)
    z = np.full((b0, b1, m, n), np.nan, np.float32)
    run(dot4d_kernel, (1,), x, y, z, B0=b0, B1=b1, M=m, K=k, N=n)
    np.testing.assert_allclose(z, x @ y, rtol=2e-2, atol=2e-2)  # (tf32 on the GPU)


@triton.jit
def trans3d_kernel(X, Z, W, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr):
    b = tl.arange(0, B)[:, None, None]
    x = tl.load(X + (b * M + tl.arange(0, M)[None, :, None]) * N + tl.arange(0, N)[None, None, :])
    out = (b * N + tl.arange(0, N)[None, :, None]) * M + tl.arange(0, M)[None, None, :]
    tl.store(Z + out, tl.trans(x))
    tl.store(W + out, x.T)


def test_trans_without_dims_swaps_the_last_two_axes():
    """As Triton 3.6: tl.trans(x) and x.T of a 3-D tensor are batched
    transposes ([B, M, N] -> [B, N, M]), not a reversal of the axes."""
    x = rng.standard_normal((2, 4, 8)).astype(np.float32)
    z, w = np.full((2, 8, 4), np.nan, np.float32), np.full((2, 8, 4), np.nan, np.float32)
    run(trans3d_kernel, (1,), x, z, w, B=2, M=4, N=8)
    np.testing.assert_array_equal(z, x.transpose(0, 2, 1))
    np.testing.assert_array_equal(w, x.transpose(0, 2, 1))


@triton.jit
def launch_shape_kernel(Out, Warps, get_num_threads: tl.constexpr):
    threads: tl.constexpr = get_num_threads()  # a constexpr from a function passed as one
    tl.store(Out + tl.arange(0, threads), tl.arange(0, threads) + 1)
    tl.store(Warps, tl.extra.cuda.num_warps())


@pytest.mark.parametrize("warps", [1, 2, 8])
def test_num_threads_and_num_warps_are_the_launch_s(warps):
    """tl.extra.cuda.num_threads() and num_warps() (Triton's) are constexprs
    of the launch's num_warps: a tile of 32 * num_warps elements; each
    num_warps is its own compile."""
    out = np.full(256, -1, np.int32)
    w = np.full(1, -1, np.int32)
    run(launch_shape_kernel, (1,), out, w, tl.extra.cuda.num_threads, num_warps=warps)
    want = np.full(256, -1, np.int32)
    want[:32 * warps] = np.arange(1, 32 * warps + 1)
    np.testing.assert_array_equal(out, want)
    assert w[0] == warps


@triton.jit
def loop_staged_matmul(A, B, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K, BK, num_stages=STAGES):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.0)
        b = tl.load(B + (k + rk)[:, None] * BN + rn[None, :], mask=(k + rk)[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * BN + rn[None, :], acc)


@pytest.mark.parametrize("stages", [1, 2, 4])
def test_a_loop_with_its_own_num_stages_computes_the_same(stages):
    """tl.range(num_stages=N): the loop pipelined N deep on the GPU (rings of
    its own depth, the kernel's num_stages aside), the same product; K
    ragged, so the last tiles are masked."""
    k = int(rng.integers(33, 200))
    a = rng.standard_normal((32, k)).astype(np.float16)
    b = rng.standard_normal((k, 32)).astype(np.float16)
    c = np.full((32, 32), np.nan, np.float32)
    run(loop_staged_matmul, (1,), a, b, c, k, BM=32, BN=32, BK=32, STAGES=stages, num_stages=3)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=2e-3, atol=2e-3)


@triton.jit
def hinted_copy(dst, src, off, N, BLOCK: tl.constexpr, HINT: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offsets = offsets + tl.load(off)
    if HINT:
        tl.max_contiguous(tl.multiple_of(offsets, 1024), 1024)  # a statement: the hint is offsets'
    x = tl.load(src + offsets, mask=offsets < N)
    tl.store(dst + offsets, x, mask=offsets < N)


def test_hinted_copy_by_statement_copies():
    """A hint called as a statement (tl.max_contiguous(tl.multiple_of(x,
    1024), 1024)) hints x from there on (test_dsl_ptx checks the vectors):
    the values of a plain copy; the interpreter checks the promise."""
    n = 1024
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    run(hinted_copy, (1,), y, x, np.zeros(1, np.int32), n, BLOCK=n, HINT=True)
    np.testing.assert_array_equal(y, x)
