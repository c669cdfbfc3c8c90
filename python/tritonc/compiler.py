"""``tritonc.compiler``: the names Triton's host code imports from
``triton.compiler`` (its compile errors, the compiled kernel's class, and
``errors``, whose ``CompilationError`` Triton's tests name)."""
import types as _types

from .codegen import CompilationError  # noqa: F401
from .jit import CompiledKernel  # noqa: F401

errors = _types.ModuleType("tritonc.compiler.errors", "Triton's compile errors: CompilationError")
errors.CompilationError = CompilationError

# (a package to the import system: under install_as_triton, Triton's
# triton.compiler.compiler is its submodule, made by triton_alias)
__path__ = []
