"""The Python API (python/tritonc): kernels called with numpy arrays, torch
tensors and DLPack-only arrays, tuning lists and dtypes as macros, the seed's
dot in its four variants with its backward against PyTorch's autograd, and
clear errors. Inputs are fresh random each run; outputs are poisoned first."""
import re

import numpy as np
import pytest

import tritonc

ADD = """
__global__ void add(TYPE* a, TYPE* b, TYPE* c, int n) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = off < n;
  @m *(c + off) = *(a + off) + *(b + off);
}
"""

rng = np.random.default_rng()


def grid_for(n):
    return lambda opt: (tritonc.cdiv(n, opt.d("BLOCK")),)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_add_numpy_with_tuning_list_and_dtype_macro(dtype):
    n = int(rng.integers(100, 3000))
    a = rng.standard_normal(n).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    c = np.full(n, np.nan, dtype=dtype)
    add = tritonc.kernel(ADD, ["c"])
    out = add(a, b, c, n, grid=grid_for(n), BLOCK=[64, 256], TYPE=dtype)
    assert out is c
    np.testing.assert_array_equal(c, (a.astype(np.float32) + b.astype(np.float32)).astype(dtype))


def test_report_names_the_copies_and_the_dot_of_a_masked_matmul():
    import json, os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "kernels", "matmul_masked.tc")
    src = open(path).read()
    mm = tritonc.kernel(src, filename="matmul_masked.tc")
    a = np.zeros((64, 64), np.float16)
    rep = json.loads(mm.report(a, a, a, 4096, 4096, 4096, 4096, 4096, 4096, TYPE=np.float16, TM=[128, 64], TN=128,
                               TK=64, num_warps=8, json=True))
    lines = src.splitlines()
    dot_line = 1 + next(i for i, l in enumerate(lines) if "c += a @ b" in l)
    load_line = 1 + next(i for i, l in enumerate(lines) if "TYPE a[TM, TK] = checka" in l)
    by = {(f["line"], f["kind"]): f for f in rep["lines"]}
    assert by[(dot_line, "dot")]["instruction"] == "wgmma" and by[(dot_line, "dot")]["tile"] == "128x128x64"
    # The masked tiles are boxes of A and B: the tensor memory accelerator copies each whole (gpu-tma).
    copy = by[(load_line, "copy")]
    assert copy["instruction"] == "cp.async.bulk.tensor" and copy["access_bytes"] == 128 * 64 * 2
    # num_stages 3 (the default): three stages, the asynchronous wgmma's refilled once it is retired.
    assert copy["stages"] == 3 and "refills the stage" in copy["text"]
    assert "TM=128" in rep["config"]
    text = mm.report(a, a, a, 4095, 4095, 4095, 4095, 4095, 4095, TYPE=np.float16, TM=128, TN=128, TK=64, num_warps=8)
    assert "%4d | " % load_line in text and "`lda`" in text  # the source with its facts, and the advice


def test_allow_tf32_puts_an_f32_linear_on_the_tensor_cores():
    """tritonc.kernel(allow_tf32=True): x @ w.T in f32 (both operands loaded
    K-contiguous) runs on wgmma's tf32 steps for sm_90a; without it, on the
    cores. A launch (on the GPU where there is one) is within tf32's error."""
    import json, os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "kernels", "matmul_masked_nt.tc")
    src = open(path).read()
    dot_line = 1 + next(i for i, l in enumerate(src.splitlines()) if "c += a @ ^b" in l)
    a = np.zeros((64, 64), np.float32)
    for tf32, instruction in ((True, "wgmma"), (False, "fma")):
        mm = tritonc.kernel(src, filename="matmul_masked_nt.tc", allow_tf32=tf32)
        rep = json.loads(mm.report(a, a, a, 4096, 4096, 4096, 4096, 4096, 4096, TYPE=np.float32, TM=128, TN=128,
                                   TK=32, num_warps=8, json=True))
        dot = next(f for f in rep["lines"] if f["line"] == dot_line and f["kind"] == "dot")
        assert dot["instruction"] == instruction, dot
        if tf32:
            assert "m64n128k8 (f32 as tf32)" in dot["text"], dot
    M, N, K = (int(v) for v in rng.integers(20, 90, size=3))
    x = rng.standard_normal((M, K)).astype(np.float32)
    w = rng.standard_normal((N, K)).astype(np.float32)
    y = np.full((M, N), np.nan, np.float32)
    tritonc.kernel(src, ["C"], filename="matmul_masked_nt.tc", allow_tf32=True)(
        x, w, y, M, N, K, K, K, N, grid=(tritonc.cdiv(M, 32), tritonc.cdiv(N, 32)), TYPE=np.float32, TM=32, TN=32,
        TK=16)
    # tf32 keeps 10 bits of each input's mantissa: relative 2^-10 per product.
    np.testing.assert_allclose(y, x.astype(np.float64) @ w.astype(np.float64).T, rtol=1e-2, atol=4e-3 * np.sqrt(K))


def test_config_of_names_the_tuned_configuration():
    n = int(rng.integers(100, 3000))
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = np.full(n, np.nan, dtype=np.float32)
    add = tritonc.kernel(ADD)
    assert add.config_of(a, b, c, n, BLOCK=[64, 256], TYPE=np.float32) is None  # not called yet
    add(a, b, c, n, grid=grid_for(n), BLOCK=[64, 256], TYPE=np.float32)
    chosen = add.config_of(a, b, c, n, BLOCK=[64, 256], TYPE=np.float32)
    assert chosen.split()[0] in ("BLOCK=64", "BLOCK=256") and "num_warps=4" in chosen


def test_grid_as_positional_tuple_and_several_outputs():
    src = """
    __global__ void two(float* x, float* y, float* z, int n) {
      int off[32] = get_program_id(0) * 32 + 0 ... 32;
      bool m[32] = off < n;
      @m *(y + off) = *(x + off) * 2;
      @m *(z + off) = *(x + off) + 1;
    }"""
    n = 100
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    z = np.full(n, np.nan, np.float32)
    yy, zz = tritonc.kernel(src, ["y", "z"])(x, y, z, n, (4,))
    np.testing.assert_array_equal(yy, x * 2)
    np.testing.assert_array_equal(zz, x + 1)


def test_grid_function_sees_the_configuration():
    n = 300
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c = np.full(n, np.nan, np.float32)
    seen = []

    def grid(opt):
        seen.append((opt.d("BLOCK"), opt.d("TYPE"), opt.num_warps, opt.num_stages))
        with pytest.raises(KeyError, match="no macro or tuning parameter 'NOPE'"):
            opt.d("NOPE")
        return (tritonc.cdiv(n, opt.d("BLOCK")),)

    tritonc.kernel(ADD)(a, b, c, n, grid=grid, BLOCK=128, TYPE="float", num_warps=2, num_stages=1)
    np.testing.assert_array_equal(c, a + b)
    assert seen and all(s == (128, "float", 2, 1) for s in seen)


class DLPackOnly:
    """An array type that speaks only DLPack (no numpy or torch type)."""

    def __init__(self, array):
        self._a = array

    def __dlpack__(self, stream=None, **kwargs):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_dlpack_only_arrays_are_read_and_written():
    n = 300
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c = np.full(n, np.nan, np.float32)
    tritonc.kernel(ADD)(DLPackOnly(a), DLPackOnly(b), DLPackOnly(c), n, grid=grid_for(n), BLOCK=128, TYPE="float")
    np.testing.assert_array_equal(c, a + b)
    strided = DLPackOnly(np.zeros((n, 2), np.float32)[:, 0])
    with pytest.raises(ValueError, match="argument 2: the DLPack tensor is not contiguous"):
        tritonc.kernel(ADD)(DLPackOnly(a), DLPackOnly(b), strided, n, grid=grid_for(n), BLOCK=128, TYPE="float")


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_dot_numpy_all_variants(ta, tb):
    M, N, K = 64, 96, 40
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    x = np.ascontiguousarray(A.T) if ta else A
    y = np.ascontiguousarray(B.T) if tb else B
    C = tritonc.ops.dot(x, y, ta, tb)
    assert C.shape == (M, N)
    np.testing.assert_allclose(C, A.astype(np.float64) @ B.astype(np.float64), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, True), (False, True)])
@pytest.mark.parametrize("M,N,K", [(37, 50, 29), (1, 7, 300), (130, 129, 3)])
def test_dot_numpy_any_size(M, N, K, ta, tb):
    """Sizes that no tile divides: the masks of tritonc.ops.dot."""
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    C = tritonc.ops.dot(np.ascontiguousarray(A.T) if ta else A, np.ascontiguousarray(B.T) if tb else B, ta, tb)
    assert C.shape == (M, N) and C.dtype == np.float32
    np.testing.assert_allclose(C, A.astype(np.float64) @ B.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_dot_takes_views_that_are_not_row_major():
    """A transposed view is multiplied as the matrix it shows, not as its storage."""
    A = rng.standard_normal((40, 24)).astype(np.float32)
    B = rng.standard_normal((40, 56)).astype(np.float32)
    np.testing.assert_allclose(tritonc.ops.dot(A.T, B), A.T.astype(np.float64) @ B, rtol=1e-4, atol=1e-4)
    if torch is not None:
        TA, TB = torch.randn(40, 24), torch.randn(40, 56)
        torch.testing.assert_close(tritonc.ops.dot(TA.t(), TB), TA.t() @ TB, rtol=1e-4, atol=1e-4)


def test_macros_of_no_text_are_refused():
    add = tritonc.kernel(ADD, ["c"])
    a = np.zeros(64, np.float32)
    with pytest.raises(TypeError, match="macro TYPE: a number, a string, a dtype or a list of them, not <class 'object'>"):
        add(a, a, a, 64, grid=(1,), BLOCK=64, TYPE=object)


def test_dot_refuses_what_is_not_an_array():
    with pytest.raises(TypeError, match="operands are arrays or tensors .* not list"):
        tritonc.ops.dot([[1.0, 2.0]], [[1.0], [2.0]])


def test_dot_numpy_f16_and_empty_sizes():
    A = rng.standard_normal((45, 70)).astype(np.float16)
    B = rng.standard_normal((70, 33)).astype(np.float16)
    C = tritonc.ops.dot(A, B)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    assert C.dtype == np.float16
    assert np.abs(C.astype(np.float64) - ref).max() <= 1e-2 * np.abs(ref).max()
    assert tritonc.ops.dot(np.ones((0, 5), np.float32), np.ones((5, 3), np.float32)).shape == (0, 3)
    Z = tritonc.ops.dot(np.ones((4, 0), np.float32), np.ones((0, 3), np.float32))
    np.testing.assert_array_equal(Z, np.zeros((4, 3), np.float32))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.float64])
def test_dot_sums_in_the_type_of_its_operands(dtype):
    """Integer products are exact (modulo the type's width, as numpy's: sums
    in int, or long for 64-bit), f64 ones sum in f64, not f32."""
    M, N, K = (int(v) for v in rng.integers(20, 70, size=3))
    if np.issubdtype(dtype, np.integer):
        hi = min(np.iinfo(dtype).max, 1 << 40)
        A = rng.integers(-hi, hi, size=(M, K)).astype(dtype)
        B = rng.integers(-hi, hi, size=(K, N)).astype(dtype)
        want = A @ B  # numpy: exact modulo the width
        np.testing.assert_array_equal(tritonc.ops.dot(A, B), want)
        big = np.array([[2 ** 24 + 1]], dtype) if np.iinfo(dtype).bits >= 32 else None
        if big is not None:  # beyond f32's 24-bit mantissa
            np.testing.assert_array_equal(tritonc.ops.dot(big, np.ones((1, 1), dtype)), big)
    else:
        A, B = rng.standard_normal((M, K)), rng.standard_normal((K, N))
        np.testing.assert_allclose(tritonc.ops.dot(A, B), A @ B, rtol=1e-12, atol=1e-12)
        one = np.array([[1 + 2.0 ** -40]])
        assert tritonc.ops.dot(one, np.ones((1, 1)))[0, 0] == one[0, 0]


def test_scalar_arguments_must_fit_their_parameters():
    """An int beyond its parameter's width, or a float for an integer
    parameter, is refused with the parameter named (it used to be cut to
    the width: 2**40 + 7 became 7); a float parameter takes an int."""
    src = ("void f(int *p, int n, char c, TYPE s, TYPE *x) { int i[4] = 0 ... 4; *(p + i) = n + c + i;"
           " *(x + i) = s; }")
    k = tritonc.kernel(src, ["p", "x"], target="interp")
    p, x = np.zeros(4, np.int32), np.zeros(4, np.float32)
    for n, c, what in ((2 ** 40 + 7, 1, "'n'): 1099511627783 does not fit in i32"),
                       (1, 300, "'c'): 300 does not fit in i8"),
                       (2.5, 1, "('n') is an integer (i32): pass an int, not the float 2.5")):
        with pytest.raises(tritonc.Error, match=re.escape(what)):
            k(p, n, c, 1.5, x, grid=(1,), TYPE=np.float32)
    k(p, -2 ** 31, 255, 3, x, grid=(1,), TYPE=np.float32)  # i8 takes its unsigned bit patterns too
    np.testing.assert_array_equal(p, np.array([-2 ** 31 - 1 + i for i in range(4)], np.int64).astype(np.int32))
    np.testing.assert_array_equal(x, np.full(4, 3.0, np.float32))


def cpu_kernel(src, outputs=()):
    """A kernel for the CPU back end, or a skip where tritonc was built without it."""
    k = tritonc.kernel(src, outputs, target="cpu")
    try:
        k(np.zeros(1, np.float32), np.zeros(1, np.float32), np.zeros(1, np.float32), 1, grid=(1,), BLOCK=16,
          TYPE="float")
    except tritonc.Error as e:
        if "built without the CPU back end" in str(e):
            pytest.skip(str(e))
        raise
    return k


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_cpu_target_tunes_and_matches_numpy(dtype):
    n = int(rng.integers(1000, 100000))
    a = rng.standard_normal(n).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    c = np.full(n, np.nan, dtype=dtype)
    add = cpu_kernel(ADD, ["c"])
    out = add(a, b, c, n, grid=grid_for(n), BLOCK=[128, 1024], TYPE=dtype)
    assert out is c
    np.testing.assert_array_equal(c, (a.astype(np.float32) + b.astype(np.float32)).astype(dtype))


def test_errors_are_clear():
    add = tritonc.kernel(ADD, ["c"])
    a = np.zeros(64, np.float32)
    with pytest.raises(tritonc.Error, match="takes 4 arguments, 3 given"):
        add(a, a, a, grid=(1,), BLOCK=64, TYPE="float")
    with pytest.raises(tritonc.Error, match="'n'.*scalar"):
        add(a, a, a, a, grid=(1,), BLOCK=64, TYPE="float")
    with pytest.raises(tritonc.Error, match="'a'.*pointer"):
        add(1, a, a, 64, grid=(1,), BLOCK=64, TYPE="float")
    with pytest.raises(TypeError, match="argument 0: cannot pass a str"):
        add("x", a, a, 64, grid=(1,), BLOCK=64, TYPE="float")
    with pytest.raises(ValueError, match="argument 0: views with negative strides are not supported"):
        add(np.zeros(64, np.float32)[::-2], a, a, 32, grid=(1,), BLOCK=32, TYPE="float")
    with pytest.raises(TypeError, match="needs a grid"):
        add(a, a, a, 64, BLOCK=64, TYPE="float")
    with pytest.raises(tritonc.Error, match=r"<python>:2:\d+: error: .*'nope'") as e:
        tritonc.kernel("\n__global__ void f(int x) { nope = 1; }")(1, grid=(1,))
    assert "^" in str(e.value)  # the caret under the source line
    # The interpreter (target="interp", also on GPU machines) checks every access.
    with pytest.raises(tritonc.Error, match="out-of-bounds"):
        tritonc.kernel(ADD, target="interp")(a, a, a, 128, grid=(2,), BLOCK=64, TYPE="float")  # n > the arrays
    # Arrays whose elements are not the kernel's pointer types.
    with pytest.raises(TypeError, match=r"argument 1 \('b'\) holds f64 elements, but kernel 'add' takes f32\* there"):
        add(a, a.astype(np.float64), a, 64, grid=(1,), BLOCK=64, TYPE="float")
    with pytest.raises(TypeError, match="no Triton-C type"):
        add(a, a, a, 64, grid=(1,), BLOCK=64, TYPE=np.complex64)


torch = pytest.importorskip("torch") if False else None
try:
    import torch  # noqa: F811
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed (the suite's script installs it)")


@needs_torch
def test_add_torch_cpu_tensors():
    n = 777
    a, b = torch.randn(n), torch.randn(n)
    c = torch.full((n,), float("nan"))
    out = tritonc.kernel(ADD, ["c"])(a, b, c, n, grid=grid_for(n), BLOCK=[128, 512], TYPE=a.dtype)
    assert out is c
    assert torch.equal(c, a + b)


def check_dot_against_autograd(ta, tb, M, N, K, device, tol):
    """tritonc.ops.dot and its gradients against PyTorch's autograd of the
    same product on the same inputs (f32)."""
    A = torch.randn(M, K, device=device)
    B = torch.randn(K, N, device=device)
    x = (A.t().contiguous() if ta else A.clone()).requires_grad_()
    y = (B.t().contiguous() if tb else B.clone()).requires_grad_()
    c = tritonc.ops.dot(x, y, ta, tb)
    assert isinstance(c, torch.Tensor) and c.shape == (M, N) and c.device == A.device
    dy = torch.randn(M, N, device=device)
    c.backward(dy)
    x2, y2 = x.detach().clone().requires_grad_(), y.detach().clone().requires_grad_()
    ref = (x2.t() if ta else x2) @ (y2.t() if tb else y2)
    ref.backward(dy)
    torch.testing.assert_close(c.detach(), ref.detach(), rtol=tol, atol=tol)
    torch.testing.assert_close(x.grad, x2.grad, rtol=tol, atol=tol)
    torch.testing.assert_close(y.grad, y2.grad, rtol=tol, atol=tol)


@needs_torch
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_dot_and_gradients_match_torch_autograd(ta, tb):
    check_dot_against_autograd(ta, tb, 64, 32, 48, "cpu", 1e-4)


def _cuda():
    return torch is not None and torch.cuda.is_available()


@pytest.mark.skipif(not _cuda(), reason="no CUDA device")
def test_cuda_tensors_on_the_current_stream():
    n = 1 << 20
    a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    c = torch.full((n,), float("nan"), device="cuda")
    tritonc.kernel(ADD, ["c"])(a, b, c, n, grid=grid_for(n), BLOCK=1024, TYPE=a.dtype)
    torch.cuda.synchronize()
    assert torch.equal(c, a + b)


@pytest.mark.skipif(not _cuda(), reason="no CUDA device")
def test_cuda_objects_that_speak_only_dlpack():
    n = 3000
    a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    c = torch.full((n,), float("nan"), device="cuda")
    tritonc.kernel(ADD)(DLPackOnly(a), DLPackOnly(b), DLPackOnly(c), n, grid=grid_for(n), BLOCK=256, TYPE="float")
    torch.cuda.synchronize()
    assert torch.equal(c, a + b)


@pytest.mark.skipif(not _cuda(), reason="no CUDA device")
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_dot_cuda_with_gradients(ta, tb):
    check_dot_against_autograd(ta, tb, 128, 64, 96, "cuda", 1e-3)


@pytest.mark.skipif(not _cuda(), reason="no CUDA device")
@pytest.mark.parametrize("M,N,K,dtype,ta,tb", [
    (1000, 1000, 1000, "float16", False, False),  # fewer 128x128 tiles than multiprocessors
    (2048, 128, 2048, "float16", False, True),    # a split-K candidate
    (257, 129, 4111, "float16", True, False),     # split-K, ragged everywhere
    (512, 512, 8192, "bfloat16", False, False),   # split-K, bf16
    (300, 200, 100, "float32", True, True),       # FMA dots
])
def test_dot_cuda_any_shape(M, N, K, dtype, ta, tb):
    """tritonc.ops.dot on the GPU at sizes no tile divides, the split-K path
    included, against float64."""
    dt = getattr(torch, dtype)
    A = torch.randn(M, K, device="cuda").to(dt)
    B = torch.randn(K, N, device="cuda").to(dt)
    C = tritonc.ops.dot(A.t().contiguous() if ta else A, B.t().contiguous() if tb else B, ta, tb)
    torch.cuda.synchronize()
    assert C.shape == (M, N) and C.dtype == dt
    ref = A.double() @ B.double()
    err = ((C.double() - ref).abs().max() / ref.abs().max()).item()
    assert err <= (1e-4 if dtype == "float32" else 1e-2), err
    assert tritonc.ops.dot_config(M, N, K, dt, ta, tb)  # what it ran, as text
    # A second call takes the remembered path and agrees.
    C2 = tritonc.ops.dot(A.t().contiguous() if ta else A, B.t().contiguous() if tb else B, ta, tb)
    torch.cuda.synchronize()
    assert ((C2.double() - ref).abs().max() / ref.abs().max()).item() <= (1e-4 if dtype == "float32" else 1e-2)


@pytest.mark.skipif(not _cuda(), reason="no CUDA device")
@pytest.mark.parametrize("M,N,K,tb", [
    (1000, 1000, 1000, True),   # x @ w.T: wgmma's tf32 steps on sm_90a
    (333, 515, 260, False),     # B K x N: mma.sync's
    (256, 256, 4100, True),     # a split-K candidate
])
def test_dot_cuda_f32_takes_tf32_where_torch_allows_it(M, N, K, tb):
    """With torch.backends.cuda.matmul.allow_tf32, an f32 tritonc.ops.dot runs
    its tf32 kernels (what it ran is remembered apart from the f32 path),
    within tf32's error of float64; without it, f32's."""
    A = torch.randn(M, K, device="cuda")
    B = torch.randn(K, N, device="cuda")
    ref = A.double() @ B.double()
    saved = torch.backends.cuda.matmul.allow_tf32
    try:
        for tf32, tol in ((True, 5e-3), (False, 1e-4)):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            C = tritonc.ops.dot(A, B.t().contiguous() if tb else B, False, tb)
            torch.cuda.synchronize()
            err = ((C.double() - ref).abs().max() / ref.abs().max()).item()
            assert err <= tol, (tf32, err)
            assert tritonc.ops.dot_config(M, N, K, torch.float32, False, tb, tf32=tf32)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


@pytest.mark.skipif(not _cuda(), reason="no CUDA device")
@pytest.mark.skipif(_cuda() and torch.cuda.get_device_capability()[0] < 9, reason="no clusters before sm_90")
def test_pairs_with_a_producer_warp_survive_many_launches():
    """Pairs of programs with a producer warp (num_ctas=2): each consumer
    warp's last release arrives on the partner's barrier, which must land
    before the partner exits (the producer drains its free barriers after
    the loop). With a relaxed barrier over the cluster at the end instead,
    this configuration at 8192^3 faulted within 150 launches (3 runs of 3 on
    the H100); the launches then agree with float64."""
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "kernels", "matmul_masked.tc")
    with open(path) as f:
        mm = tritonc.kernel(f.read(), filename="matmul_masked.tc")
    M = N = K = 8192
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    for _ in range(150):
        mm(a, b, c, M, N, K, K, N, N, grid=(M // 64, N // 128), TYPE=torch.float16, TM=64, TN=128, TK=32,
           num_warps=4, num_stages=3, num_ctas=2)
    torch.cuda.synchronize()
    rows = torch.randint(0, M, (64,), device="cuda")
    ref = a[rows].double() @ b.double()
    err = ((c[rows].double() - ref).abs().max() / ref.abs().max()).item()
    assert err <= 1e-2, err


@pytest.mark.skipif(not _cuda(), reason="no CUDA device")
@pytest.mark.skipif(_cuda() and torch.cuda.get_device_capability()[0] < 9, reason="no clusters before sm_90")
@pytest.mark.parametrize("tm,tn,tk,stages", [(64, 128, 32, 3), (64, 128, 64, 4), (128, 128, 64, 3)])
def test_pairs_drain_at_any_trip_count(tm, tn, tk, stages):
    """Pairs of programs with a producer warp at K from no iteration to
    many: after the loop each producer waits once more for a free slot, the
    last releases of both programs' consumers; a wait too many would hang
    (no release comes), one too few lets a program exit under the partner's
    arrives. Poisoned output, then float64 against every launch."""
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "kernels", "matmul_masked.tc")
    with open(path) as f:
        mm = tritonc.kernel(f.read(), filename="matmul_masked.tc")
    M, N = 250, 260  # ragged; an even number of programs along x, so they run in pairs
    for K in (0, 16, tk, 2 * tk + 16, 5 * tk, 1000):
        a = torch.randn(M, max(K, 8), device="cuda", dtype=torch.float16)
        b = torch.randn(max(K, 8), N, device="cuda", dtype=torch.float16)
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
        mm(a, b, c, M, N, K, a.stride(0), N, N, grid=((M + tm - 1) // tm, (N + tn - 1) // tn), TYPE=torch.float16,
           TM=tm, TN=tn, TK=tk, num_warps=4, num_stages=stages, num_ctas=2)
        torch.cuda.synchronize()
        ref = a[:, :K].double() @ b[:K].double()
        err = (c.double() - ref).abs().max().item() / max(ref.abs().max().item(), 1.0)
        assert err <= 1e-2, (K, err)


@pytest.mark.skipif(not _cuda(), reason="no CUDA device")
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_dot_split_k_path_leaves_its_workspace_zero(dtype):
    """The split-K path at a fixed configuration, called three times with new
    operands: each result matches float64 (a workspace left non-zero by the
    call before would add its sums in), also on a second stream."""
    from tritonc.ops import _dot, _layout_macros
    dt = getattr(torch, dtype)
    M, N, K = 200, 136, 2300
    config = dict(_layout_macros(False, False), TYPE=dt, ACC="float", SPLIT=4, TM=64, TN=64, TK=64, num_warps=4,
                  num_stages=3)
    split = _dot._split_path(M, N, K, K, N, N, config, dtype == "float32", _dot.splitk)
    for stream in (torch.cuda.current_stream(), torch.cuda.Stream()):
        with torch.cuda.stream(stream):
            for _ in range(3):
                A = torch.randn(M, K, device="cuda").to(dt)
                B = torch.randn(K, N, device="cuda").to(dt)
                C = split(A, B)
                torch.cuda.synchronize()
                ref = A.double() @ B.double()
                err = ((C.double() - ref).abs().max() / ref.abs().max()).item()
                assert C.dtype == dt and err <= (1e-4 if dtype == "float32" else 1e-2), err


def test_dot_tile_space_offers_multicast_where_b_rows_are_unaligned():
    """tritonc.ops.dot's GPU tile space: num_ctas 1 and 2 where B's rows are
    not a multiple of 128 bytes apart (a wave of large tiles, or less than
    one: 1000^3), 1 only where they are, and none for f32 (FMA dots)."""
    from tritonc.ops import _gpu_space
    assert _gpu_space(1760, 7000, 1760, "float16", 132, 7000 * 2)["num_ctas"] == [1, 2]
    assert "num_ctas" not in _gpu_space(4096, 4096, 4096, "float16", 132, 4096 * 2)
    assert "num_ctas" not in _gpu_space(1760, 7000, 1760, "float16", 132, None)  # rows unknown
    assert "num_ctas" not in _gpu_space(1760, 7000, 1760, "float32", 132, 7000 * 4)
    assert _gpu_space(1000, 1000, 1000, "float16", 132, 2000)["num_ctas"] == [1, 2]
    assert "num_ctas" not in _gpu_space(2048, 128, 2048, "float16", 132, 128 * 2)
    # tf32: the 16-bit spaces with K steps of 32 f32 (128 bytes).
    tf32 = _gpu_space(1000, 1000, 1000, "float32", 132, 4000, tf32=True)
    assert tf32["TK"] == [32] and tf32["num_ctas"] == [1, 2]
    # f64 and integers (FMA, 64-bit sums at most): one small tile.
    assert _gpu_space(4096, 4096, 4096, "torch.float64", 132, 4096 * 8)["TM"] == [64]


@pytest.mark.skipif(not _cuda(), reason="no CUDA device")
@pytest.mark.parametrize("ctas", [2, 4])
@pytest.mark.parametrize("trans_b", [False, True])
@pytest.mark.parametrize("M,N,K,TM,TN,warps", [
    (1000, 712, 520, 128, 128, 8),  # grid 8 x 6: pairs of programs multicast B's boxes (sm_90), 2 x 2 A's too
    (300, 520, 200, 64, 128, 4),    # grid 5 x 5: no clusters, each program copies its whole box
    (130, 1032, 72, 64, 256, 4),    # grid 3 x 5, a ragged K
    (300, 1000, 200, 64, 128, 4),   # grid 5 x 8: num_ctas 4 pairs along y only
    (1000, 1000, 1000, 64, 128, 4),  # grid 16 x 8, with a producer warp
])
def test_masked_matmul_with_multicast_copies(M, N, K, TM, TN, warps, trans_b, ctas):
    """The user's masked matmul with num_ctas=2: B's boxes are multicast to
    pairs of programs along M (gpu-multicast), launched in clusters of two
    where the grid's x extent is even and alone where it is odd, against
    float64. B stored N x K (a @ ^b): its boxes of 64 K-contiguous f16, one
    swizzle block wide, are split between the pair by rows. num_ctas=4: A's
    boxes too, to pairs along N, in clusters of 2 x 2 (or of 2 x 1, 1 x 2
    where only one extent is even)."""
    import os
    name = "matmul_masked_nt.tc" if trans_b else "matmul_masked.tc"
    path = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "kernels", name)
    mm = tritonc.kernel(open(path).read(), filename=name)
    A = torch.randn(M, K, device="cuda").half()
    B = torch.randn(N, K, device="cuda").half() if trans_b else torch.randn(K, N, device="cuda").half()
    ldb = K if trans_b else N
    C = torch.full((M, N), float("nan"), device="cuda").half()
    grid = ((M + TM - 1) // TM, (N + TN - 1) // TN)
    args = (A, B, C, M, N, K, K, ldb, N)
    for _ in range(20 if M == 1000 else 1):  # pairs that fault or race do so now and then
        C.fill_(float("nan"))
        mm(*args, grid=grid, TYPE=torch.float16, TM=TM, TN=TN, TK=64, num_warps=warps, num_ctas=ctas)
        torch.cuda.synchronize()
        ref = A.double() @ (B.double().t() if trans_b else B.double())
        err = ((C.double() - ref).abs().max() / ref.abs().max()).item()
        assert err <= 1e-2, err
    if torch.cuda.get_device_capability() >= (9, 0):
        text = mm.report(*args, TYPE=torch.float16, TM=TM, TN=TN, TK=64, num_warps=warps, num_ctas=ctas)
        assert "multicast" in text
        assert "multicast" not in mm.report(*args, TYPE=torch.float16, TM=TM, TN=TN, TK=64, num_warps=warps)
    with pytest.raises(tritonc.Error, match="num_ctas must be 1, 2"):
        mm(*args, grid=grid, TYPE=torch.float16, TM=TM, TN=TN, TK=64, num_ctas=3)


@pytest.mark.skipif(not _cuda(), reason="no CUDA device")
def test_repeated_cuda_calls_take_the_fast_path_and_stay_correct():
    add = tritonc.kernel(ADD, ["c"])

    def check(n, block, a=None, b=None, c=None):
        a = torch.randn(n, device="cuda") if a is None else a.normal_()
        b = torch.randn(n, device="cuda") if b is None else b.normal_()
        c = torch.full((n,), float("nan"), device="cuda") if c is None else c.fill_(float("nan"))
        out = add(a, b, c, n, grid=grid_for(n), BLOCK=block, TYPE=torch.float32)
        assert out is c
        torch.cuda.synchronize()
        assert torch.equal(c, a + b)
        return a, b, c

    a, b, c = check(5000, 256)  # the first call of a shape runs Python
    fast = add._fast_launches
    for _ in range(3):  # the same call again, on fresh data: no Python
        check(5000, 256, a, b, c)
    assert add._fast_launches == fast + 3
    # Other sizes, an unaligned view (a new specialization), another macro, a
    # tuning list: each right, each new shape once through Python.
    for n, block in [(4999, 256), (5000, 1024), (64, [128, 512]), (64, [128, 512])]:
        check(n, block)
    a2 = torch.randn(5001, device="cuda")
    check(5000, 256, a2[1:], b, c)
    check(5000, 256, a2[1:], b, c)
    # On the current stream, whichever it is.
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        a, b = torch.randn(5000, device="cuda"), torch.randn(5000, device="cuda")
        c = torch.full((5000,), float("nan"), device="cuda")
        for _ in range(2):
            add(a, b, c, 5000, grid=grid_for(5000), BLOCK=256, TYPE=torch.float32)
        s.synchronize()
        assert torch.equal(c, a + b)
        # Tuning there: the inputs are written on `s` just before; the tuner waits for it.
        a.copy_(torch.randn(5000, device="cuda"))
        c.fill_(float("nan"))
        add(a, b, c, 5000, grid=grid_for(5000), BLOCK=[128, 512], TYPE=torch.float32)
        s.synchronize()
        assert torch.equal(c, a + b)
    # A strided CUDA view passes its data pointer (strides are the kernel's business).
    big = torch.full((10000,), float("nan"), device="cuda")
    for _ in range(2):
        add(a, b, big[::2], 5000, grid=grid_for(5000), BLOCK=256, TYPE=torch.float32)
    torch.cuda.synchronize()
    assert torch.equal(big[:5000], a + b) and big[5000:].isnan().all()
    # After fast calls, bad arguments still raise their clear errors.
    with pytest.raises(ValueError, match="argument 2: views with negative strides are not supported"):
        add(a, b, np.zeros(10000, np.float32)[::-2], 5000, grid=grid_for(5000), BLOCK=256, TYPE=torch.float32)
    with pytest.raises(tritonc.Error, match="is a pointer"):
        add(a, 1.5, c, 5000, grid=grid_for(5000), BLOCK=256, TYPE=torch.float32)
    with pytest.raises(TypeError, match="holds f16 elements"):
        add(a, b.half(), c, 5000, grid=grid_for(5000), BLOCK=256, TYPE=torch.float32)
    with pytest.raises(tritonc.Error, match="takes 4 arguments"):
        add(a, b, c, grid=grid_for(5000), BLOCK=256, TYPE=torch.float32)
    # A grid function may itself launch a kernel, on the fast path too.
    x, y = torch.randn(5000, device="cuda"), torch.randn(5000, device="cuda")
    inner, outer = torch.full_like(x, float("nan")), torch.full_like(x, float("nan"))

    def grid_that_launches(opt):
        add(x, y, inner, 5000, grid=grid_for(5000), BLOCK=256, TYPE=torch.float32)
        return (tritonc.cdiv(5000, opt.d("BLOCK")),)

    other = tritonc.kernel(ADD, ["c"])
    for _ in range(3):
        outer.fill_(float("nan"))
        other(y, y, outer, 5000, grid=grid_that_launches, BLOCK=256, TYPE=torch.float32)
        torch.cuda.synchronize()
        assert torch.equal(outer, y + y) and torch.equal(inner, x + y)
    assert other._fast_launches >= 1
    # CPU tensors with the same macros run on the CPU path.
    ac, bc = torch.randn(300), torch.randn(300)
    cc = torch.full((300,), float("nan"))
    add(ac, bc, cc, 300, grid=grid_for(300), BLOCK=256, TYPE=torch.float32)
    assert torch.equal(cc, ac + bc)


def test_autotune_records_live_where_the_kernel_cache_does(monkeypatch, tmp_path):
    """tritonc.autotune's choices go into the kernel cache's folder as the
    C++ runtime picks it: TRITONC_CACHE_DIR, else an absolute
    XDG_CACHE_HOME's tritonc, else ~/.cache/tritonc."""
    from tritonc.autotuner import _cache_dir
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path / "c"))
    assert _cache_dir() == str(tmp_path / "c" / "autotune")
    monkeypatch.delenv("TRITONC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert _cache_dir() == str(tmp_path / "x" / "tritonc" / "autotune")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # ignored, as by the runtime
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert _cache_dir() == str(tmp_path / "h" / ".cache" / "tritonc" / "autotune")
