"""Parts of Triton's Python API beyond the language that host code and
Triton's own test suite use: `triton.knobs` (settings read from the
environment, set by code, restored by scopes), Triton's type names
(`type_canonicalisation_dict`, `tl.str_to_ty`, `tl.dtype.SINT_TYPES`...),
`JITFunction._unsafe_update_src` (kernels made from a template),
`TritonError`, the base of Triton's errors, const pointers
(`tl.const`), and `triton.compile` of an `ASTSource` (a function compiled
for a signature, without arguments). Kernels run on the back ends
of dsl_backends.language_backends() against numpy; fresh inputs, poisoned
outputs."""
import os
import sys

import numpy as np
import pytest

import tritonc as triton
import tritonc.language as tl
from tritonc import knobs

sys.path.insert(0, os.path.dirname(__file__))
import dsl_backends  # noqa: E402

rng = np.random.default_rng()
backend = dsl_backends.suite_fixture()
run = dsl_backends.run


@triton.jit
def template(Z, X, Y, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(X + o, mask=o < n)
    y = tl.load(Y + o, mask=o < n)
    z = GENERATE_TEST_HERE  # noqa: F821  (replaced before compiling)
    tl.store(Z + o, z, mask=o < n)


@triton.jit
def copy_kernel(Y, X, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(Y + o, tl.load(X + o, mask=o < n), mask=o < n)


def test_a_knob_reads_its_variable_until_code_sets_it(monkeypatch):
    monkeypatch.delenv("TRITONC_INTERPRET", raising=False)
    assert knobs.runtime.interpret is False
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    assert knobs.runtime.interpret is True
    with knobs.runtime.scope():
        knobs.runtime.interpret = False  # set: the variable follows (propagate_env)
        assert knobs.runtime.interpret is False and os.environ["TRITONC_INTERPRET"] == "0"
    assert knobs.runtime.interpret is True and os.environ["TRITONC_INTERPRET"] == "1"  # restored


def test_knob_scopes_restore_the_cache_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITONC_CACHE_DIR", str(tmp_path / "outer"))
    assert knobs.cache.dir == str(tmp_path / "outer")
    with knobs.cache.scope():
        knobs.cache.dir = str(tmp_path / "inner")
        assert os.environ["TRITONC_CACHE_DIR"] == str(tmp_path / "inner")
    assert knobs.cache.dir == str(tmp_path / "outer") and os.environ["TRITONC_CACHE_DIR"] == str(tmp_path / "outer")


def test_reset_copy_and_the_descriptors(monkeypatch):
    monkeypatch.setenv("TRITONC_TUNE_VERBOSE", "1")
    saved = knobs.autotuning.copy()
    try:
        knobs.autotuning.print = False
        assert knobs.autotuning.print is False
        knobs.autotuning.reset()  # back to the variable (set to 0 by the line above, propagated)
        assert knobs.autotuning.print is False and os.environ["TRITONC_TUNE_VERBOSE"] == "0"
        keys = {d.key for d in knobs.autotuning.knob_descriptors.values()}
        assert "TRITONC_TUNE_VERBOSE" in keys
        assert isinstance(knobs.cache, knobs.base_knobs) and isinstance(knobs.nvidia, knobs.base_knobs)
    finally:
        knobs.autotuning = saved


def test_propagate_env_off_keeps_the_environment(monkeypatch):
    monkeypatch.delenv("TRITONC_DEBUG", raising=False)
    monkeypatch.setattr(knobs, "propagate_env", False)
    with knobs.runtime.scope():
        knobs.runtime.debug = True
        assert knobs.runtime.debug is True and "TRITONC_DEBUG" not in os.environ


def test_the_interpret_knob_sends_launches_to_the_interpreter(monkeypatch):
    """Set by code (its variable not propagated), the knob alone decides."""
    if not triton._tritonc.cpu_backend_available():
        pytest.skip("without the CPU back end every host launch is interpreted anyway")
    monkeypatch.delenv("TRITONC_INTERPRET", raising=False)
    monkeypatch.setattr(knobs, "propagate_env", False)
    x = rng.standard_normal(50).astype(np.float32)
    for interpret, where in ((True, "interp"), (False, "cpu")):
        with knobs.runtime.scope():
            knobs.runtime.interpret = interpret
            y = np.full(50, np.nan, np.float32)
            compiled = copy_kernel[(1,)](y, x, 50, BLOCK=64)
            assert compiled.target == where and np.array_equal(y, x)


def test_ptxas_knob_finds_the_tool():
    tool = knobs.nvidia.ptxas
    if tool is None:
        pytest.skip("no ptxas on this machine")
    assert os.path.exists(tool.path) and tool.version.count(".") == 1, tool


def test_type_names_canonicalise_and_parse():
    canon = triton.runtime.jit.type_canonicalisation_dict
    assert canon["float16"] == "fp16" and canon["bool"] == "u1" and canon["uint32"] == "u32"
    assert canon["float8_e4m3fn"] == "fp8e4nv" and canon["fp16"] == "fp16"  # canonical names map to themselves
    for name in tl.dtype.SINT_TYPES + tl.dtype.UINT_TYPES + tl.dtype.STANDARD_FP_TYPES:
        assert tl.dtype(name).name == name  # every listed name is a type of ours
    assert tl.str_to_ty("fp32") is tl.float32 and tl.str_to_ty("u1") is tl.int1 and tl.str_to_ty("bf16") is tl.bfloat16
    ptr = tl.str_to_ty("*kfp16")
    assert ptr.is_ptr() and ptr.element_ty is tl.float16 and ptr.is_const()
    assert ptr == tl.pointer_type(tl.float16, const=True) and ptr != tl.pointer_type(tl.float16)
    assert not tl.str_to_ty("*fp16").is_const() and not tl.float16.is_const()
    assert tl.str_to_ty(("i32", "*fp64"))[1].element_ty is tl.float64
    with pytest.raises(ValueError, match="names no type"):
        tl.str_to_ty("fp33")


@pytest.mark.parametrize("expr, reference", [("x + y", lambda x, y: x + y), ("x * y - x", lambda x, y: x * y - x),
                                             ("tl.maximum(x, y)", np.maximum)])
def test_kernels_made_from_a_template(expr, reference):
    """A copy of the template with its placeholder replaced compiles and
    computes the new body; the template itself is untouched."""
    kernel = triton.JITFunction(template.fn)
    kernel._unsafe_update_src(kernel.src.replace("GENERATE_TEST_HERE", expr))
    n = 100
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    z = np.full(n, np.nan, np.float32)
    run(kernel, (1,), z, x, y, n, BLOCK=128)
    assert np.allclose(z, reference(x, y), rtol=1e-6, atol=1e-6)
    assert "GENERATE_TEST_HERE" in template.src


def test_updating_the_source_again_forgets_the_compiled_kernel():
    kernel = triton.JITFunction(template.fn)
    n = 64
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    for expr, reference in (("x - y", x - y), ("x * 2.0 + y", x * 2 + y)):
        kernel._unsafe_update_src(template.src.replace("GENERATE_TEST_HERE", expr))
        z = np.full(n, np.nan, np.float32)
        run(kernel, (1,), z, x, y, n, BLOCK=64)  # the same specialization as the first time
        assert np.allclose(z, reference, rtol=1e-6, atol=1e-6), expr


def test_errors_of_a_template_point_at_the_template_lines():
    kernel = triton.JITFunction(template.fn)
    kernel._unsafe_update_src(template.src.replace("GENERATE_TEST_HERE", "x + undefined_name"))
    x = np.zeros(8, np.float32)
    with pytest.raises(triton.TritonError) as err:
        run(kernel, (1,), x, x, x, 8, BLOCK=8)
    import inspect
    line = inspect.getsourcelines(template.fn)[1] + 5  # the decorator, then `def`, then four lines
    assert "undefined_name" in str(err.value) and ":%d:" % line in str(err.value), str(err.value)


def test_triton_error_is_the_base_of_compile_errors():
    assert issubclass(triton.CompilationError, triton.TritonError)
    assert triton.compiler.errors.CompilationError is triton.CompilationError
    assert issubclass(triton.OutOfResources, triton.TritonError) and issubclass(triton.Error, triton.TritonError)
    assert issubclass(triton.runtime.errors.InterpreterError, triton.TritonError)


@triton.jit
def pick_one(a, b, choose_b):
    if choose_b:
        return b
    else:
        return a


@triton.jit
def const_copy(src: tl.const, dst, ro: tl.const, n, BLOCK: tl.constexpr, TAIL: tl.constexpr):
    o = tl.arange(0, BLOCK)
    v = tl.load(src + o, mask=o < n)
    if TAIL == "plain":
        out = dst
    elif TAIL == "store-const":
        out = ro
    elif TAIL == "ternary":
        out = ro if n > 1 else dst
    elif TAIL == "if":
        if n > 1:
            out = ro
        else:
            out = dst
    elif TAIL == "call":
        out = pick_one(dst, ro, n > 1)
    elif TAIL == "atomic":
        tl.atomic_add(src + o, v, mask=o < n)
        out = dst
    tl.store(out + o, v + 1.0, mask=o < n)


@pytest.mark.parametrize("tail, message", [
    ("store-const", "Cannot store to a constant pointer"), ("atomic", "Cannot store to a constant pointer"),
    ("ternary", "Ternary expression with dynamic condition has inconsistent types"),
    ("if", "Mismatched type for out"), ("call", "Return type mismatch")])
def test_a_const_pointer_is_never_written(tail, message):
    """A parameter annotated tl.const is a const pointer: a store or atomic
    through it (or a pointer computed from it) is refused at compile time,
    and a variable cannot be const on one path and not on another."""
    x = np.zeros(16, np.float32)
    with pytest.raises(triton.CompilationError, match=message) as err:
        const_copy.warmup(x, x, x, 16, BLOCK=16, TAIL=tail, grid=(1,))
    assert message in err.value.error_message  # (the message without its place, as Triton's attribute)


def test_a_kernel_reading_through_const_pointers_runs():
    n = 100
    x = rng.standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    run(const_copy, (1,), x, y, x, n, BLOCK=128, TAIL="plain")
    assert np.array_equal(y, x + np.float32(1))


def _scaled_name(spec):
    ones = "_".join(k for k, v in spec.constants.items() if v == 1)
    return "scaled_%s_%s_%s.v2" % (spec.signature["s"], spec.signature["Y"], ones)


@triton.jit(repr=_scaled_name)
def scaled_copy(Y, X, s, one, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    x = tl.load(X + o, mask=o < n)
    tl.store(Y + o, x * s + one, mask=o < n)


def test_repr_names_each_specialization():
    """jit(repr=...) names the compiled kernel from its specialization (the
    types' short names, the constants), as Triton's; the name is the IR's
    and the PTX's entry, made an identifier."""
    n = 50
    x = rng.standard_normal(n).astype(np.float32)
    h = scaled_copy.warmup(x, x, 2.5, 1, n, BLOCK=64, grid=(1,))
    assert h.name == "scaled_fp32__fp32_one_v2", h.name
    assert "kernel @scaled_fp32__fp32_one_v2(" in h.asm["ttir"], h.asm["ttir"][:200]
    assert ".entry scaled_fp32__fp32_one_v2(" in h.asm["ptx"]
    y = np.full(n, np.nan, np.float32)
    run(scaled_copy, (1,), y, x, 2.5, 1, n, BLOCK=64)
    np.testing.assert_allclose(y, x * np.float32(2.5) + 1, rtol=1e-6)


@triton.jit
def constexpr_types_kernel(Y, given: tl.constexpr, LITERAL: tl.constexpr):
    kept: tl.constexpr = given
    tl.static_assert(kept.type == tl.constexpr_type(LITERAL))  # a compile-time value's type, not a tensor's
    tl.static_assert(given.type == tl.constexpr_type(LITERAL))
    lifted = given  # assigned without the annotation: a tensor, as in Triton
    tl.static_assert(lifted.type == tl.int32)
    tl.store(Y, lifted + kept)


def test_constexpr_values_have_constexpr_types():
    y = np.full(1, -1, np.int32)
    v = int(rng.integers(2, 100))
    run(constexpr_types_kernel, (1,), y, v, LITERAL=v)
    assert y[0] == 2 * v


@triton.jit
def aot_add(A, B, C, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    o = tl.arange(0, BLOCK)
    m = o < n
    tl.store(C + o, (tl.load(A + o, mask=m) + tl.load(B + o, mask=m)) * SCALE, mask=m)


@pytest.mark.parametrize("arch", [80, 90])
def test_compile_of_an_ast_source_without_arguments(arch):
    """triton.compile(ASTSource(fn, signature, constexprs), target, options)
    (Triton's ahead-of-time entry): the IR, GPU IR and PTX of the signature's
    specialization for the target's architecture, no GPU needed; attrs'
    divisibility by 16 makes pointers aligned (16-byte vector loads) and
    integers multiples of 16; the result launches like the @jit function
    (each launch specialized for its own arguments)."""
    from tritonc.compiler import ASTSource
    from tritonc.runtime.driver import GPUTarget
    import tritonc
    signature = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    plain = tritonc.compile(ASTSource(aot_add, signature, {"BLOCK": 128, (5,): 3.0}), target=GPUTarget("cuda", arch, 32))
    target = "sm_90a" if arch == 90 else "sm_80"
    assert ".target %s" % target in plain.asm["ptx"] and ".entry aot_add(" in plain.asm["ptx"]
    assert "ld.global.v4" not in plain.asm["ptx"]  # (pointers of unknown alignment)
    assert "kernel @aot_add(" in plain.asm["ttir"] and 'target "%s"' % target in plain.asm["ttgir"]
    aligned = tritonc.compile(
        ASTSource(aot_add, signature, {"BLOCK": 128, "SCALE": 3.0},
                  attrs={(i,): [["tt.divisibility", 16]] for i in range(4)}),
        target=GPUTarget("cuda", arch, 32), options={"num_warps": 2, "maxnreg": 64})
    assert "ld.global.v4.b32" in aligned.asm["ptx"] and ".maxnreg 64" in aligned.asm["ptx"]
    assert "num_warps(2)" in aligned.asm["ttgir"] and aligned.metadata.num_warps == 2
    n = int(rng.integers(1, 128))
    a, b = rng.standard_normal(128).astype(np.float32), rng.standard_normal(128).astype(np.float32)
    c = np.full(128, np.nan, np.float32)
    run(aligned, (1,), a, b, c, n, 128, 3.0)
    np.testing.assert_allclose(c[:n], (a[:n] + b[:n]) * 3.0, rtol=1e-6)
    assert np.isnan(c[n:]).all()


def test_compile_refuses_what_it_cannot_build():
    """A parameter the signature does not type, a constexpr without a value,
    another back end or architecture, an unknown option: each a clear error."""
    from tritonc.compiler import ASTSource
    from tritonc.runtime.driver import GPUTarget
    import tritonc
    typed = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "n": "i32"}
    with pytest.raises(ValueError, match="gives no type for its parameter B"):
        tritonc.compile(ASTSource(aot_add, {"A": "*fp32"}, {"BLOCK": 8, "SCALE": 1.0}))
    with pytest.raises(ValueError, match="give its value in constexprs"):
        tritonc.compile(ASTSource(aot_add, dict(typed, BLOCK="constexpr"), {"SCALE": 1.0}))
    with pytest.raises(tritonc.CompilationError, match="sm_80 to sm_90a"):
        tritonc.compile(ASTSource(aot_add, typed, {"BLOCK": 8, "SCALE": 1.0}), target=GPUTarget("cuda", 100, 32))
    with pytest.raises(tritonc.CompilationError, match="CUDA GPUs"):
        tritonc.compile(ASTSource(aot_add, typed, {"BLOCK": 8, "SCALE": 1.0}), target=GPUTarget("hip", "gfx942", 64))
    with pytest.raises(ValueError, match="unknown options num_wraps"):
        tritonc.compile(ASTSource(aot_add, typed, {"BLOCK": 8, "SCALE": 1.0}), options={"num_wraps": 4})
    with pytest.raises(TypeError, match="ASTSource"):
        tritonc.compile(aot_add)
