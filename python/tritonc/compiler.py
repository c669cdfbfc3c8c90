"""``tritonc.compiler``: the names Triton's host code imports from
``triton.compiler`` (its compile errors, the compiled kernel's class,
``errors``, whose ``CompilationError`` Triton's tests name, and the
ahead-of-time compile of a function without arguments: ``ASTSource`` and
``compile``, also ``tritonc.compile``)."""
import types as _types

from .codegen import CompilationError  # noqa: F401
from .jit import CompiledKernel, JITFunction
from .language import core

errors = _types.ModuleType("tritonc.compiler.errors", "Triton's compile errors: CompilationError")
errors.CompilationError = CompilationError

# (a package to the import system: under install_as_triton, Triton's
# triton.compiler.compiler is its submodule, made by triton_alias)
__path__ = []


class ASTSource:
    """Triton's ASTSource: a @jit function, the types of its runtime
    parameters (``signature``: name -> ``"*fp32"``, ``"i32"``, ...; or
    ``"constexpr"``), the values of its constexprs (``constexprs``: by name,
    or by Triton's path of one parameter index, ``(2,)``) and what is known
    of its arguments (``attrs``: ``{(i,): [["tt.divisibility", 16]]}``, the
    i-th parameter a multiple of 16, for a pointer 16-byte aligned)."""

    def __init__(self, fn, signature, constexprs=None, attrs=None):
        if not isinstance(fn, JITFunction):
            raise TypeError("ASTSource takes a @jit function, not %r" % (fn,))
        self.fn, self.signature = fn, dict(signature)
        self.constexprs, self.attrs = dict(constexprs or {}), dict(attrs or {})

    def _name(self, key):
        """A parameter's name from a constexprs or attrs key (a name, an
        index, or a path of one index)."""
        names = self.fn.arg_names
        index = key[0] if isinstance(key, tuple) and len(key) == 1 else key
        if isinstance(index, int) and not isinstance(index, bool):
            if not 0 <= index < len(names):
                raise ValueError("%s has no parameter %d" % (self.fn.__name__, index))
            return names[index]
        if index not in names:
            raise ValueError("%s has no parameter %r" % (self.fn.__name__, key))
        return index


class _AotPointer:
    """What compile's PTX is specialized for in place of a pointer argument:
    16-byte aligned where attrs say so (address 0), else only 4 (address 4)."""

    def __init__(self, aligned):
        self.address, self.dtype, self.device = 0 if aligned else 4, "aot", "cuda"

    def data_ptr(self):
        return self.address


def _arch(fn, target):
    """tritonc's GPU architecture for Triton's GPUTarget (None: $TRITONC_ARCH
    or sm_90a, as asm['ptx'] takes it); an error located at fn's def."""
    if target is None:
        return None
    backend, arch = getattr(target, "backend", "cuda"), getattr(target, "arch", None)

    def error(message):
        _, file, first_line, _, _ = fn.parsed()
        return CompilationError(file, first_line, 1, message)
    if backend != "cuda":
        raise error("tritonc compiles for CUDA GPUs; GPUTarget's backend is %r" % (backend,))
    text = str(arch)
    if text.startswith("sm_"):
        text = text[3:].rstrip("a")
    if not text.isdigit() or not 80 <= int(text) <= 90:
        raise error("tritonc's PTX is for sm_80 to sm_90a, not GPUTarget arch %r" % (arch,))
    return "sm_90a" if int(text) >= 90 else "sm_%s" % text


def compile(src, target=None, options=None):
    """Triton's ``triton.compile(ASTSource(fn, signature, constexprs),
    target, options)``: the function compiled without arguments, for the
    parameter types its signature gives; returns a CompiledKernel whose
    ``asm['ttir']``, ``['ttgir']`` and ``['ptx']`` are those of that
    specialization (for ``target``'s architecture), and which launches as
    ``kernel[grid](*args)`` (each launch compiles for its own arguments, as a
    @jit call does). ``options``: num_warps, num_stages, num_ctas, debug,
    enable_fp_fusion, enable_reflect_ftz, maxnreg."""
    if not isinstance(src, ASTSource):
        raise TypeError("tritonc.compile takes an ASTSource (a @jit function and its signature), not %r" % (src,))
    fn = src.fn
    options = dict(options or {})
    known = {"num_warps", "num_stages", "num_ctas", "debug", "enable_fp_fusion", "enable_reflect_ftz", "maxnreg"}
    from .jit import _IGNORED_OPTIONS
    unknown = set(options) - known - set(_IGNORED_OPTIONS)
    if unknown:
        raise ValueError("tritonc.compile: unknown options %s (it takes %s)"
                         % (", ".join(sorted(unknown)), ", ".join(sorted(known))))
    arch = _arch(fn, target)
    constexprs = {src._name(k): core.unwrap(v) for k, v in src.constexprs.items()}
    aligned = {src._name(k) for k, facts in src.attrs.items()
               if any(list(f)[:1] == ["tt.divisibility"] and int(list(f)[1]) % 16 == 0 for f in facts)}
    from .language.type_names import str_to_ty
    params, args, key = [], [], []
    for name in fn.arg_names:
        t = src.signature.get(name)
        if name in constexprs or t == "constexpr":
            if name not in constexprs:
                if name not in fn.defaults:
                    raise ValueError("%s's signature says %s is a constexpr; give its value in constexprs"
                                     % (fn.__name__, name))
                constexprs[name] = fn.defaults[name]
            key.append(("c", name, repr(constexprs[name])))
            continue
        if t is None:
            raise ValueError("%s's signature gives no type for its parameter %s" % (fn.__name__, name))
        ty = str_to_ty(t)
        if isinstance(ty, tuple):
            raise ValueError("tritonc.compile: tuple parameters (%s) are not supported; launch the kernel instead"
                             % name)
        params.append((name, ty))
        key.append(("r", name, ty.name, name in aligned))
        # (what the PTX is specialized for: an integer known a multiple of
        # 16 where attrs say so, else of nothing)
        args.append(_AotPointer(name in aligned) if ty.is_ptr() else False if ty.is_bool() else
                    (16 if name in aligned else 3) if ty.is_int() else 0.5)
    # (its own launches: where a GPU is, else where a host array would run;
    # asm builds the PTX for the architecture apart, no GPU needed)
    from .jit import _torch
    torch = _torch()
    where = "gpu" if torch is not None and torch.cuda.is_available() else fn._target(())
    compiled = fn.compile_specialization(
        params, constexprs, ("aot",) + tuple(key), where, options.get("num_warps", 4), options.get("num_stages", 3),
        debug=options.get("debug"), num_ctas=options.get("num_ctas", 1),
        enable_fp_fusion=options.get("enable_fp_fusion"), enable_reflect_ftz=options.get("enable_reflect_ftz", True),
        maxnreg=options.get("maxnreg"))
    out = CompiledKernel(fn, compiled.ir, compiled.kernel, compiled.params, compiled.options, args)
    out.used_globals, out.target, out.name, out.arch = compiled.used_globals, compiled.target, compiled.name, arch
    return out
